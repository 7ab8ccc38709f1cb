//! Eligibility on one CPU (SVG): a virtual-time axis with V, the zero-lag
//! point, as a vertical line, and every queued entity as a bar from its
//! vruntime to its virtual deadline. Eligible entities (vruntime ≤ V, as
//! the engine says) are filled; the others are hatched.
//!
//! Under CFS (v5.15) there is no eligibility and no deadline: the axis is
//! vruntime with min_vruntime marked, each entity's bar runs from its
//! vruntime to vruntime + wakeup_gran (a wakee preempts curr when curr's
//! vruntime lies past the wakee's bar), and its sched_slice() share of the
//! period is written beside it (for curr, how much of it has run).

use leptos::prelude::*;
use schedlab_engine::lab::snapshot::CpuView;

use crate::export::{save_svg, ExportButtons};
use crate::fmt;
use crate::state::use_ctx;

/// Width of the chart; narrower in projector mode, so that it sits beside
/// the tree at 1.5× and its labels reach 18 px at 1280 px.
const W: f64 = 640.0;
const W_BIG: f64 = 400.0;
const LEFT: f64 = 96.0;
const RIGHT: f64 = 24.0;
const ROW: f64 = 26.0;
const TOP: f64 = 30.0;

/// Pixel mapping of a virtual-time range (ms relative to min_vruntime).
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub w: f64,
}

impl Axis {
    /// The range covering every vruntime, deadline and V, padded.
    pub fn of(v: &CpuView) -> Axis {
        let base = v.min_vruntime;
        let mut lo = fmt::rel(v.v, base);
        let mut hi = lo;
        if !v.eevdf {
            // CFS: min_vruntime (0 here) and the wakeup_gran bars.
            lo = 0.0;
            hi = 0.0;
        }
        for e in &v.entities {
            lo = lo.min(fmt::rel(e.vruntime, base));
            let end = if v.eevdf { e.deadline } else { e.vruntime.wrapping_add(e.wakeup_gran) };
            hi = hi.max(fmt::rel(end, base)).max(fmt::rel(e.vruntime, base));
        }
        let pad = ((hi - lo) * 0.06).max(0.05);
        Axis {
            lo: lo - pad,
            hi: hi + pad,
            w: W,
        }
    }
    pub fn x(&self, ms: f64) -> f64 {
        LEFT + (ms - self.lo) / (self.hi - self.lo) * (self.w - LEFT - RIGHT)
    }
}

#[component]
pub fn EligibilityView() -> impl IntoView {
    let ctx = use_ctx();
    let ui = ctx.ui;
    let cfs = move || !ui.setup.with(|s| s.eevdf);
    let header = move || {
        ui.frame.with(|f| {
            let v = &f.view;
            if !v.eevdf {
                format!(
                    "CPU {} · CFS (v5.15): min_vruntime line; sched_latency {:.2} ms, min_granularity {:.2} ms (period = max(latency, nr × min_gran) beyond {} tasks), wakeup_gran {:.2} ms",
                    f.cpu,
                    v.sched_latency as f64 / 1e6,
                    v.min_granularity as f64 / 1e6,
                    v.nr_latency,
                    v.wakeup_granularity as f64 / 1e6
                )
            } else {
                format!("CPU {} · V = {} ms (relative to min_vruntime)", f.cpu, fmt::rel_s(v.v, v.min_vruntime))
            }
        })
    };
    let on_pick = move |task: u32| {
        if ui.quiz.with_untracked(|q| q.as_ref().is_some_and(|q| q.asking())) {
            ctx.guess(task);
        }
    };
    let svg_box = NodeRef::<leptos::html::Div>::new();
    let prefix = crate::export::figure_prefix();
    let export = Callback::new(move |(light, png): (bool, bool)| {
        let el = svg_box.get_untracked().and_then(|b| b.query_selector("svg").ok().flatten()).ok_or("nothing drawn")?;
        let cpu = ui.frame.with_untracked(|f| f.cpu);
        save_svg(&el, &format!("{prefix}-eligibility-cpu{cpu}"), light, png)
    });
    view! {
        <section class="panel elig-panel" data-testid="elig-panel">
            <h2>{move || if cfs() { "vruntime (CFS)" } else { "Eligibility" }} <span class="sub">{header}</span> <ExportButtons name="elig" target=export /></h2>
            <div class="svg-fit" node_ref=svg_box>{move || {
                let scale = if ui.big.get() { 1.5 } else { 1.0 };
                ui.frame.with(|f| elig_svg(&f.view, scale, on_pick))
            }}</div>
            <div class="legend">
                {move || if cfs() {
                    view! {
                        <span class="lg elig-yes">"vruntime → + wakeup_gran"</span>
                        <span class="lg v-mark">"min_vruntime"</span>
                        <span class="muted">"a wakee preempts curr when curr's vruntime is past the wakee's bar (check_preempt_wakeup()); curr is preempted at a tick once it ran its sched_slice (check_preempt_tick())"</span>
                    }.into_any()
                } else {
                    view! {
                        <span class="lg elig-yes">"eligible: vruntime ≤ V"</span>
                        <span class="lg elig-no">"not eligible"</span>
                        <span class="lg v-mark">"V"</span>
                        <span class="muted">"bar: vruntime → deadline; hover for weight and slice"</span>
                    }.into_any()
                }}
            </div>
        </section>
    }
}

fn elig_svg(v: &CpuView, scale: f64, on_pick: impl Fn(u32) + Copy + Send + Sync + 'static) -> impl IntoView {
    let base = v.min_vruntime;
    let cfs = !v.eevdf;
    let w = if scale > 1.0 { W_BIG } else { W };
    let axis = Axis { w, ..Axis::of(v) };
    let rows = v.entities.len().max(1);
    let height = TOP + ROW * rows as f64 + 28.0;
    // The vertical line: V, or min_vruntime under CFS.
    let vx = axis.x(if cfs { 0.0 } else { fmt::rel(v.v, base) });
    let step = fmt::nice_step(axis.hi - axis.lo, if scale > 1.0 { 4.0 } else { 6.0 });
    let first = (axis.lo / step).ceil() as i64;
    let last = (axis.hi / step).floor() as i64;
    let ticks = (first..=last.min(first + 40))
        .map(|i| {
            let val = i as f64 * step;
            let x = axis.x(val);
            let label = if step >= 1.0 {
                format!("{val:.0}")
            } else if step >= 0.1 {
                format!("{val:.1}")
            } else {
                format!("{val:.2}")
            };
            view! {
                <line x1=x y1=TOP - 6.0 x2=x y2=height - 22.0 class="grid" />
                <text x=x y=height - 8.0 class="tick" text-anchor="middle">{label}</text>
            }
        })
        .collect_view();
    let bars = v
        .entities
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let y = TOP + ROW * i as f64;
            let x0 = axis.x(fmt::rel(e.vruntime, base));
            let end = if cfs { e.vruntime.wrapping_add(e.wakeup_gran) } else { e.deadline };
            let x1 = axis.x(fmt::rel(end, base)).max(x0 + 2.0);
            let tip = if cfs {
                format!(
                    "{}\nweight {}  ·  sched_slice {}{}\nvruntime {} ms  ·  wakeup_gran {}{}",
                    e.name,
                    e.weight,
                    fmt::ms(e.cfs_slice),
                    if e.curr { format!(" (ran {})", fmt::ms(e.cfs_ran)) } else { String::new() },
                    fmt::rel_s(e.vruntime, base),
                    fmt::ms(e.wakeup_gran),
                    if e.curr { "\nrunning (curr)" } else { "" }
                )
            } else { format!(
                "{}\nweight {}  ·  slice {}\nvruntime {} ms  ·  deadline {} ms\nlag {}{}{}",
                e.name,
                e.weight,
                fmt::ms(e.slice),
                fmt::rel_s(e.vruntime, base),
                fmt::rel_s(e.deadline, base),
                fmt::ms_signed(e.lag),
                if e.curr { "\nrunning (curr)" } else { "" },
                if e.delayed { "\ndelayed (asleep, still queued)" } else { "" }
            ) };
            let class = format!(
                "bar {}{}{}",
                if e.eligible || cfs { "eligible" } else { "ineligible" },
                if e.curr { " curr" } else { "" },
                if e.delayed { " delayed" } else { "" }
            );
            let label = format!("{}{}", if e.curr { "▶ " } else { "" }, e.name);
            let side = if cfs {
                if e.curr {
                    format!("ran {:.2} / slice {:.2} ms", e.cfs_ran as f64 / 1e6, e.cfs_slice as f64 / 1e6)
                } else {
                    format!("slice {:.2} ms", e.cfs_slice as f64 / 1e6)
                }
            } else {
                String::new()
            };
            let task = e.task;
            let swatch = task.map(fmt::task_color);
            view! {
                <g
                    on:click=move |_| { if let Some(t) = task { on_pick(t) } }
                    data-task=task.map(|t| t.to_string())
                    data-testid="elig-bar"
                    data-x0=format!("{x0:.2}")
                    data-x1=format!("{x1:.2}")
                    data-eligible=if e.eligible { "true" } else { "false" }
                    data-name=e.name.clone()
                >
                    <title>{tip}</title>
                    <text x=LEFT - 14.0 y=y + ROW * 0.62 class="row-label" text-anchor="end">{label}</text>
                    {swatch.map(|c| view! { <rect x=LEFT - 11.0 y=y + 7.0 width=8.0 height=ROW - 14.0 style=format!("fill:{c}") class="swatch-rect" /> })}
                    <rect x=x0 y=y + 4.0 width=x1 - x0 height=ROW - 8.0 rx=3.0 class=class />
                    <circle cx=x0 cy=y + ROW / 2.0 r=3.5 class="vr-dot" />
                    {(!side.is_empty()).then(|| view! { <text x=w - RIGHT y=y + ROW * 0.62 class="tick" text-anchor="end">{side.clone()}</text> })}
                </g>
            }
        })
        .collect_view();
    let empty = v
        .entities
        .is_empty()
        .then(|| view! { <text x=LEFT y=TOP + 16.0 class="muted-text">"nothing queued"</text> });
    view! {
        <svg class="elig" data-testid="elig" data-cfs=cfs.to_string() viewBox=format!("0 0 {w} {height}") width=w * scale height=height * scale style=format!("max-width:100%;height:auto;aspect-ratio:{w}/{height}")>
            <defs>
                <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
                    <line x1="0" y1="0" x2="0" y2="6" class="hatch-line" />
                </pattern>
            </defs>
            {ticks}
            {bars}
            {empty}
            <line x1=vx y1=TOP - 14.0 x2=vx y2=height - 22.0 class="v-line" data-testid="v-line" data-x=format!("{vx:.2}") />
            <text x=vx y=TOP - 18.0 class="v-label" text-anchor="middle">{if cfs { "min_vruntime" } else { "V" }}</text>
        </svg>
    }
}
