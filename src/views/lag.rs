//! Lag on one CPU (SVG): each queued entity's lag w·(V − v) as a bar with
//! its value, the weighted sum (zero up to the rounding of V), and a
//! sparkline of each task's lag over the last events.

use leptos::prelude::*;
use schedlab_engine::lab::player::LagSample;
use schedlab_engine::lab::snapshot::CpuView;

use crate::export::{save_svg, ExportButtons};
use crate::fmt;
use crate::state::use_ctx;

const W: f64 = 640.0;
const NAME_W: f64 = 96.0;
const BAR_W: f64 = 290.0;
const VAL_X: f64 = NAME_W + BAR_W + 12.0;
const SPARK_X: f64 = 500.0;
const SPARK_W: f64 = 120.0;
const ROW: f64 = 26.0;
const TOP: f64 = 26.0;

#[component]
pub fn LagView() -> impl IntoView {
    let ui = use_ctx().ui;
    let sum = move || {
        ui.frame.with(|f| {
            let (sum, load) = (f.view.weighted_lag_sum, f.view.load.max(1) as i64);
            format!(
                "Σ w·(V − v) = {sum}{}: zero up to the rounding of V (|Σ| ≤ Σw = {load})",
                if sum == 0 {
                    String::new()
                } else {
                    format!(" = Σw × {:.2} ns", sum as f64 / load as f64)
                }
            )
        })
    };
    let svg_box = NodeRef::<leptos::html::Div>::new();
    let prefix = crate::export::figure_prefix();
    let export = Callback::new(move |(light, png): (bool, bool)| {
        let el = svg_box.get_untracked().and_then(|b| b.query_selector("svg").ok().flatten()).ok_or("nothing drawn")?;
        let cpu = ui.frame.with_untracked(|f| f.cpu);
        save_svg(&el, &format!("{prefix}-lag-cpu{cpu}"), light, png)
    });
    view! {
        <section class="panel lag-panel" data-testid="lag-panel">
            <h2>"Lag" <span class="sub">{move || ui.frame.with(|f| format!("CPU {} · lag = w·(V − v), ms of service{}", f.cpu, if f.view.eevdf { "" } else { " (CFS does not use it: V is shown as the weighted mean vruntime)" }))}</span> <ExportButtons name="lag" target=export /></h2>
            <div class="svg-fit" node_ref=svg_box>{move || {
                let scale = if ui.big.get() { 1.5 } else { 1.0 };
                ui.frame.with(|f| lag_svg(&f.view, &f.history, scale))
            }}</div>
            <div class="lag-sum" data-testid="lag-sum" data-value=move || ui.frame.with(|f| f.view.weighted_lag_sum)>{sum}</div>
        </section>
    }
}

fn lag_svg(v: &CpuView, history: &[LagSample], scale: f64) -> impl IntoView {
    let rows = v.entities.len().max(1);
    let height = TOP + ROW * rows as f64 + 8.0;
    let max = v
        .entities
        .iter()
        .map(|e| e.lag.unsigned_abs())
        .max()
        .unwrap_or(0)
        .max(50_000) as f64;
    let zero = NAME_W + BAR_W / 2.0;
    // One scale for all sparklines, so they compare.
    let hmax = history
        .iter()
        .flat_map(|s| s.lags.iter().map(|l| l.1.unsigned_abs()))
        .max()
        .unwrap_or(0)
        .max(50_000) as f64;
    let n = history.len().max(2);
    let bars = v
        .entities
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let y = TOP + ROW * i as f64;
            let w = e.lag as f64 / max * (BAR_W / 2.0 - 4.0);
            let (x, width) = if w >= 0.0 { (zero, w) } else { (zero + w, -w) };
            let val = fmt::ms_signed(e.lag);
            let class = if e.lag >= 0 { "lag-bar pos" } else { "lag-bar neg" };
            // The task's lag over the last events (gaps where it was not
            // queued here).
            let pts: Vec<String> = e
                .task
                .map(|t| {
                    history
                        .iter()
                        .enumerate()
                        .filter_map(|(j, s)| s.lags.iter().find(|l| l.0 == t).map(|l| (j, l.1)))
                        .map(|(j, lag)| {
                            let px = SPARK_X + SPARK_W * j as f64 / (n - 1) as f64;
                            let py = y + ROW / 2.0 - lag as f64 / hmax * (ROW / 2.0 - 3.0);
                            format!("{px:.1},{py:.1}")
                        })
                        .collect()
                })
                .unwrap_or_default();
            let tip = format!("{}: lag {} (vlag {} of virtual time, weight {})", e.name, val, fmt::ms_signed(e.vlag), e.weight);
            view! {
                <g data-testid="lag-row" data-name=e.name.clone() data-lag=e.lag>
                    <title>{tip}</title>
                    <text x=NAME_W - 14.0 y=y + ROW * 0.62 class="row-label" text-anchor="end">{format!("{}{}", if e.curr { "▶ " } else { "" }, e.name)}</text>
                    {e.task.map(|t| view! { <rect x=NAME_W - 11.0 y=y + 7.0 width=8.0 height=ROW - 14.0 style=format!("fill:{}", fmt::task_color(t)) class="swatch-rect" /> })}
                    <rect x=x y=y + 5.0 width=width.max(1.0) height=ROW - 10.0 class=class />
                    <text x=VAL_X y=y + ROW * 0.62 class="lag-val">{val}</text>
                    <line x1=SPARK_X y1=y + ROW / 2.0 x2=SPARK_X + SPARK_W y2=y + ROW / 2.0 class="spark-zero" />
                    <polyline points=pts.join(" ") class="spark" data-testid="lag-spark" />
                </g>
            }
        })
        .collect_view();
    view! {
        <svg class="lag" data-testid="lag" viewBox=format!("0 0 {W} {height}") width=W * scale height=height * scale style=format!("max-width:100%;height:auto;aspect-ratio:{W}/{height}")>
            <text x=zero y=14.0 class="tick" text-anchor="middle">"0"</text>
            <text x=NAME_W y=14.0 class="tick">{format!("−{}", fmt::ms(max as u64))}</text>
            <text x=NAME_W + BAR_W y=14.0 class="tick" text-anchor="end">{format!("+{}", fmt::ms(max as u64))}</text>
            <text x=VAL_X y=14.0 class="tick">"lag"</text>
            <text x=SPARK_X y=14.0 class="tick">{format!("last {} events", history.len())}</text>
            <line x1=zero y1=TOP - 4.0 x2=zero y2=height - 4.0 class="zero-line" />
            {bars}
        </svg>
    }
}
