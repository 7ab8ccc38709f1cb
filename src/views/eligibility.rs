//! Eligibility on one CPU (SVG): a virtual-time axis with V, the zero-lag
//! point, as a vertical line, and every queued entity as a bar from its
//! vruntime to its virtual deadline. Eligible entities (vruntime ≤ V, as
//! the engine says) are filled; the others are hatched.

use leptos::prelude::*;
use schedlab_engine::lab::snapshot::CpuView;

use crate::fmt;
use crate::state::use_ctx;

const W: f64 = 640.0;
const LEFT: f64 = 96.0;
const RIGHT: f64 = 24.0;
const ROW: f64 = 26.0;
const TOP: f64 = 30.0;

/// Pixel mapping of a virtual-time range (ms relative to min_vruntime).
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
}

impl Axis {
    /// The range covering every vruntime, deadline and V, padded.
    pub fn of(v: &CpuView) -> Axis {
        let base = v.min_vruntime;
        let mut lo = fmt::rel(v.v, base);
        let mut hi = lo;
        for e in &v.entities {
            lo = lo.min(fmt::rel(e.vruntime, base));
            hi = hi
                .max(fmt::rel(e.deadline, base))
                .max(fmt::rel(e.vruntime, base));
        }
        let pad = ((hi - lo) * 0.06).max(0.05);
        Axis {
            lo: lo - pad,
            hi: hi + pad,
        }
    }
    pub fn x(&self, ms: f64) -> f64 {
        LEFT + (ms - self.lo) / (self.hi - self.lo) * (W - LEFT - RIGHT)
    }
}

#[component]
pub fn EligibilityView() -> impl IntoView {
    let ui = use_ctx().ui;
    let header = move || {
        ui.frame.with(|f| {
            format!(
                "CPU {} · V = {} ms (relative to min_vruntime)",
                f.cpu,
                fmt::rel_s(f.view.v, f.view.min_vruntime)
            )
        })
    };
    view! {
        <section class="panel elig-panel" data-testid="elig-panel">
            <h2>"Eligibility" <span class="sub">{header}</span></h2>
            {move || (!ui.setup.with(|s| s.eevdf)).then(|| view! {
                <p class="muted" data-testid="cfs-note">"EEVDF is off (CFS, v5.15): there is no eligibility; the smallest vruntime runs. The bars still show vruntime to deadline, and V."</p>
            })}
            {move || {
                let scale = if ui.big.get() { 1.5 } else { 1.0 };
                ui.frame.with(|f| elig_svg(&f.view, scale))
            }}
            <div class="legend">
                <span class="lg elig-yes">"eligible: vruntime ≤ V"</span>
                <span class="lg elig-no">"not eligible"</span>
                <span class="lg v-mark">"V"</span>
                <span class="muted">"bar: vruntime → deadline; hover for weight and slice"</span>
            </div>
        </section>
    }
}

fn elig_svg(v: &CpuView, scale: f64) -> impl IntoView {
    let base = v.min_vruntime;
    let axis = Axis::of(v);
    let rows = v.entities.len().max(1);
    let height = TOP + ROW * rows as f64 + 28.0;
    let vx = axis.x(fmt::rel(v.v, base));
    let step = fmt::nice_step(axis.hi - axis.lo, 6.0);
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
            let x1 = axis.x(fmt::rel(e.deadline, base)).max(x0 + 2.0);
            let tip = format!(
                "{}\nweight {}  ·  slice {}\nvruntime {} ms  ·  deadline {} ms\nlag {}{}{}",
                e.name,
                e.weight,
                fmt::ms(e.slice),
                fmt::rel_s(e.vruntime, base),
                fmt::rel_s(e.deadline, base),
                fmt::ms_signed(e.lag),
                if e.curr { "\nrunning (curr)" } else { "" },
                if e.delayed { "\ndelayed (asleep, still queued)" } else { "" }
            );
            let class = format!(
                "bar {}{}{}",
                if e.eligible { "eligible" } else { "ineligible" },
                if e.curr { " curr" } else { "" },
                if e.delayed { " delayed" } else { "" }
            );
            let label = format!("{}{}", if e.curr { "▶ " } else { "" }, e.name);
            view! {
                <g
                    data-testid="elig-bar"
                    data-x0=format!("{x0:.2}")
                    data-x1=format!("{x1:.2}")
                    data-eligible=if e.eligible { "true" } else { "false" }
                    data-name=e.name.clone()
                >
                    <title>{tip}</title>
                    <text x=LEFT - 8.0 y=y + ROW * 0.62 class="row-label" text-anchor="end">{label}</text>
                    <rect x=x0 y=y + 4.0 width=x1 - x0 height=ROW - 8.0 rx=3.0 class=class />
                    <circle cx=x0 cy=y + ROW / 2.0 r=3.5 class="vr-dot" />
                </g>
            }
        })
        .collect_view();
    let empty = v
        .entities
        .is_empty()
        .then(|| view! { <text x=LEFT y=TOP + 16.0 class="muted-text">"nothing queued"</text> });
    view! {
        <svg class="elig" data-testid="elig" viewBox=format!("0 0 {W} {height}") width=W * scale height=height * scale>
            <defs>
                <pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
                    <line x1="0" y1="0" x2="0" y2="6" class="hatch-line" />
                </pattern>
            </defs>
            {ticks}
            {bars}
            {empty}
            <line x1=vx y1=TOP - 14.0 x2=vx y2=height - 22.0 class="v-line" data-testid="v-line" data-x=format!("{vx:.2}") />
            <text x=vx y=TOP - 18.0 class="v-label" text-anchor="middle">"V"</text>
        </svg>
    }
}
