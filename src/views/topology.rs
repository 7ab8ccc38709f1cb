//! The machine (SVG): sockets → LLCs → cores → CPUs as nested boxes, each
//! CPU coloured by its state (idle, running one task, tasks waiting, in the
//! SIS_FILTER overloaded mask), and the last wakeup placement drawn on it:
//! the waker's and the previous CPU, the CPUs the scan looked at in order
//! with what it saw, the filtered CPUs, the chosen CPU and why the scan
//! stopped. Click a CPU to show its run queue.

use leptos::prelude::*;
use schedlab_engine::lab::explain::{placed_label, scan_end_label, seen_label};
use schedlab_engine::kernel::sched::select::Seen;

use crate::fmt;
use crate::state::{use_ctx, CpuState, PlacementInfo, Setup};

/// Font sizes of the map's labels in its own units (the SVG is drawn at
/// `scale` × these): the boxes' names and the CPU numbers, and the F
/// mark of a filtered CPU. A badge's font follows its circle
/// ([`badge_radius`]).
const LABEL_FONT: f64 = 10.0;
const MARK_FONT: f64 = 9.0;
/// Projector mode's smallest label on the screen, in CSS px (issue 13).
const PROJECTOR_PX: f64 = 18.0;

/// A corner badge's radius (W, P, scan order) in a cell of `cell` units:
/// three fit in a cell's corners around its number.
fn badge_radius(cell: f64) -> f64 {
    (cell * 0.24).clamp(4.0, 6.5)
}

fn badge_font(r: f64) -> f64 {
    r * 1.35
}

/// How much larger than its units the map is drawn: 1, or in projector
/// mode enough for its smallest label (a badge, whose size follows the
/// cell's) to be [`PROJECTOR_PX`] on the screen, and at least 1.5 as
/// the other figures. Scaling the whole map keeps the badges clear of
/// each other and of the CPU numbers, which larger badges in cells of
/// the same size would cover.
fn map_scale(g: &Geometry, big: bool) -> f64 {
    if !big {
        return 1.0;
    }
    let smallest = LABEL_FONT.min(MARK_FONT).min(badge_font(badge_radius(g.cell)));
    (PROJECTOR_PX / smallest).max(1.5)
}

/// Box geometry of the whole machine.
#[derive(Clone, Debug, PartialEq)]
pub struct Geometry {
    pub width: f64,
    pub height: f64,
    pub cell: f64,
    /// Per CPU: top-left corner of its cell.
    pub cpu_xy: Vec<(f64, f64)>,
    /// (x, y, w, h, label) of socket, LLC and core boxes.
    pub sockets: Vec<(f64, f64, f64, f64, String)>,
    pub llcs: Vec<(f64, f64, f64, f64, String)>,
    pub cores: Vec<(f64, f64, f64, f64)>,
}

fn grid_cols(n: u32, wide: bool) -> u32 {
    if n <= 8 {
        n.max(1)
    } else if wide {
        (n as f64 * 2.0).sqrt().ceil() as u32
    } else {
        4.min(n)
    }
}

/// Lays the machine out; pure geometry.
pub fn geometry(s: &Setup) -> Geometry {
    let n = s.nr_cpus();
    let cell = if n <= 16 {
        30.0
    } else if n <= 128 {
        19.0
    } else {
        15.0
    };
    let gap = 3.0;
    let pad = 6.0;
    let label = 15.0;
    let tpc = s.threads_per_core.max(1);
    let core_w = tpc as f64 * cell + (tpc as f64 + 1.0) * 2.0;
    let core_h = cell + 4.0;
    let cpl = s.cores_per_llc.max(1);
    let ccols = grid_cols(cpl, true);
    let crows = cpl.div_ceil(ccols);
    let llc_w = ccols as f64 * (core_w + gap) - gap + 2.0 * pad;
    let llc_h = crows as f64 * (core_h + gap) - gap + 2.0 * pad + label;
    let lps = s.llcs_per_socket.max(1);
    let lcols = grid_cols(lps, false);
    let lrows = lps.div_ceil(lcols);
    let sock_w = (lcols as f64 * (llc_w + gap) - gap + 2.0 * pad).max(64.0);
    let sock_h = lrows as f64 * (llc_h + gap) - gap + 2.0 * pad + label;
    let mut g = Geometry {
        width: 0.0,
        height: 0.0,
        cell,
        cpu_xy: vec![(0.0, 0.0); n as usize],
        sockets: vec![],
        llcs: vec![],
        cores: vec![],
    };
    let sockets = s.sockets.max(1);
    for sock in 0..sockets {
        let sx = 4.0 + sock as f64 * (sock_w + 10.0);
        let sy = 4.0;
        g.sockets
            .push((sx, sy, sock_w, sock_h, format!("socket {sock}")));
        for l in 0..lps {
            let llc = sock * lps + l;
            let lx = sx + pad + (l % lcols) as f64 * (llc_w + gap);
            let ly = sy + pad + label + (l / lcols) as f64 * (llc_h + gap);
            g.llcs.push((lx, ly, llc_w, llc_h, format!("LLC {llc}")));
            for c in 0..cpl {
                let core = llc * cpl + c;
                let cx = lx + pad + (c % ccols) as f64 * (core_w + gap);
                let cy = ly + pad + label + (c / ccols) as f64 * (core_h + gap);
                g.cores.push((cx, cy, core_w, core_h));
                for (cpu, info) in s.cpus.iter().enumerate() {
                    if info.core == core {
                        let t = info.thread as f64;
                        g.cpu_xy[cpu] = (cx + 2.0 + t * (cell + 2.0), cy + 2.0);
                    }
                }
            }
        }
    }
    g.width = 8.0 + sockets as f64 * (sock_w + 10.0);
    g.height = sock_h + 8.0;
    g
}

fn state_class(c: &CpuState) -> &'static str {
    if c.overloaded {
        "cpu overloaded"
    } else if c.nr_running > 1 {
        "cpu queued"
    } else if c.curr.is_some() {
        "cpu busy"
    } else {
        "cpu idle"
    }
}

fn state_name(c: &CpuState) -> &'static str {
    if c.overloaded {
        "overloaded"
    } else if c.nr_running > 1 {
        "queued"
    } else if c.curr.is_some() {
        "busy"
    } else {
        "idle"
    }
}

#[component]
pub fn TopologyView() -> impl IntoView {
    let ctx = use_ctx();
    let ui = ctx.ui;
    let geo = Memo::new(move |_| ui.setup.with(|s| geometry(s)));
    let caption = move || {
        ui.frame.with(|f| match &f.placement {
            Some(p) => placement_caption(p, f.event, &ui.setup.read()),
            None => "no wakeup placement yet".to_string(),
        })
    };
    let scan_list = move || {
        ui.frame.with(|f| {
            f.placement.as_ref().map(|p| {
                p.scan
                    .iter()
                    .enumerate()
                    .map(|(i, s)| view! { <li class=format!("scan-{}", seen_css(s.seen))>{format!("{}: CPU {} {}", i + 1, s.cpu, seen_label(s.seen))}</li> })
                    .collect_view()
            })
        })
    };
    view! {
        <section class="panel topo-panel" data-testid="topo-panel">
            <h2>"Machine" <span class="sub">{move || ui.setup.with(|s| format!("{} · {} CPUs · {} socket(s) × {} LLC(s) × {} cores × {} threads", s.topo_name, s.nr_cpus(), s.sockets, s.llcs_per_socket, s.cores_per_llc, s.threads_per_core))}</span></h2>
            <div class="svg-scroll">
                {move || {
                    let g = geo.get();
                    let scale = map_scale(&g, ui.big.get());
                    ui.frame.with(|f| machine_svg(&g, &ui.setup.read(), &f.cpus, f.placement.as_ref(), f.cpu, ctx, scale))
                }}
            </div>
            <p class="placement-caption" data-testid="placement-caption">{caption}</p>
            <ul class="scan-list" data-testid="scan-list">{scan_list}</ul>
            <div class="legend">
                <span class="lg cpu-idle">"idle"</span>
                <span class="lg cpu-busy">"running"</span>
                <span class="lg cpu-queued">"tasks waiting"</span>
                <span class="lg cpu-overloaded">"SIS_FILTER overloaded"</span>
                <span class="lg chosen-mark">"chosen"</span>
                <span class="muted">"W waker · P previous · 1 2 3 scan order · F filtered"</span>
            </div>
        </section>
    }
}

fn seen_css(s: Seen) -> &'static str {
    match s {
        Seen::Idle => "idle",
        Seen::SchedIdle => "schedidle",
        Seen::BusyCore => "busycore",
        _ => "busy",
    }
}

fn placement_caption(p: &PlacementInfo, event: u64, s: &Setup) -> String {
    let when = if p.event == event {
        "this event".to_string()
    } else {
        format!("event {}, {}", p.event, fmt::ms(p.time))
    };
    let filtered = if p.filtered > 0 {
        format!(", SIS_FILTER skipped {}", p.filtered)
    } else {
        String::new()
    };
    format!(
        "Last placement ({when}): {} from waker CPU {} (previous CPU {}) → CPU {} · {} · scan: {}{}",
        s.name(p.task),
        p.waker_cpu,
        p.prev,
        p.cpu,
        placed_label(p.how),
        scan_end_label(p.end),
        filtered
    )
}

fn machine_svg(
    g: &Geometry,
    s: &Setup,
    cpus: &[CpuState],
    p: Option<&PlacementInfo>,
    shown: u32,
    ctx: crate::state::Ctx,
    scale: f64,
) -> impl IntoView {
    let cell = g.cell;
    let labelled = |list: &[(f64, f64, f64, f64, String)], rx: f64, class: &'static str| {
        list.iter()
            .map(|(x, y, w, h, l)| {
                view! {
                    <rect x=*x y=*y width=*w height=*h rx=rx class=class />
                    <text x=x + 6.0 y=y + 12.0 class="box-label" font-size=LABEL_FONT>{l.clone()}</text>
                }
            })
            .collect_view()
    };
    let boxes = labelled(&g.sockets, 6.0, "socket-box");
    let llcs = labelled(&g.llcs, 5.0, "llc-box");
    let cores = g
        .cores
        .iter()
        .map(|(x, y, w, h)| view! { <rect x=*x y=*y width=*w height=*h rx=3.0 class="core-box" /> })
        .collect_view();
    let small = cell < 20.0;
    let cells = g
        .cpu_xy
        .iter()
        .enumerate()
        .map(|(cpu, &(x, y))| {
            let st = cpus.get(cpu).copied().unwrap_or(CpuState { curr: None, nr_running: 0, overloaded: false });
            let who = st.curr.map_or("idle".to_string(), |t| s.name(t).to_string());
            let tip = format!("CPU {cpu} (core {}, thread {}): {who}, {} queued{}", s.cpus[cpu].core, s.cpus[cpu].thread, st.nr_running, if st.overloaded { ", in the SIS_FILTER mask" } else { "" });
            let class = format!("{}{}", state_class(&st), if cpu as u32 == shown { " shown" } else { "" });
            let cpu32 = cpu as u32;
            view! {
                <g data-testid="cpu-cell" data-cpu=cpu data-state=state_name(&st) class="cpu-g" on:click=move |_| ctx.pin_cpu(Some(cpu32))>
                    <title>{tip}</title>
                    <rect x=x y=y width=cell height=cell rx=3.0 class=class />
                    {(!small).then(|| view! { <text x=x + cell / 2.0 y=y + cell / 2.0 + 4.0 class="cpu-num" text-anchor="middle" font-size=LABEL_FONT>{cpu}</text> })}
                </g>
            }
        })
        .collect_view();
    let overlay = p.map(|p| {
        let at = |c: u32| g.cpu_xy.get(c as usize).copied();
        // Badges sit inside the cell corners: W(aker) top left, P(revious)
        // bottom left, the scan order bottom right.
        let r = badge_radius(cell);
        let badge = |c: u32, text: String, class: &'static str, corner: (bool, bool)| {
            at(c).map(|(x, y)| {
                let cx = if corner.0 { x + cell - r + 1.0 } else { x + r - 1.0 };
                let cy = if corner.1 { y + cell - r + 1.0 } else { y + r - 1.0 };
                view! {
                    <g class=class>
                        <circle cx=cx cy=cy r=r />
                        <text x=cx y=cy + r * 0.45 text-anchor="middle" font-size=badge_font(r)>{text}</text>
                    </g>
                }
            })
        };
        let scanned = p
            .scan
            .iter()
            .enumerate()
            .filter_map(|(i, sc)| {
                let (x, y) = at(sc.cpu)?;
                Some(view! {
                    <g data-testid="scan-mark" data-cpu=sc.cpu data-order=i + 1 data-seen=seen_label(sc.seen)>
                        <rect x=x - 1.5 y=y - 1.5 width=cell + 3.0 height=cell + 3.0 rx=4.0 class=format!("scan-ring scan-{}", seen_css(sc.seen)) />
                    </g>
                    {badge(sc.cpu, (i + 1).to_string(), "scan-badge", (true, true))}
                })
            })
            .collect_view();
        let filtered = p.mask_now.iter().filter_map(|&c| {
            let (x, y) = at(c)?;
            Some(view! { <text x=x + cell - 3.0 y=y + 9.0 class="filtered-mark" text-anchor="end" font-size=MARK_FONT>"F"</text> })
        }).collect_view();
        let chosen = at(p.cpu).map(|(x, y)| view! {
            <rect x=x - 3.5 y=y - 3.5 width=cell + 7.0 height=cell + 7.0 rx=5.0 class="chosen-ring" data-testid="placement-chosen" data-cpu=p.cpu />
        });
        view! {
            <g data-testid="placement" data-how=placed_label(p.how) data-end=scan_end_label(p.end) data-scanned=p.scan.len()>
                {scanned}
                {filtered}
                {chosen}
                {badge(p.waker_cpu, "W".into(), "waker-badge", (false, false))}
                {badge(p.prev, "P".into(), "prev-badge", (false, true))}
            </g>
        }
    });
    view! {
        <svg class="machine" data-testid="topology" width=g.width * scale height=g.height * scale viewBox=format!("0 0 {} {}", g.width, g.height)>
            {boxes}
            {llcs}
            {cores}
            {cells}
            {overlay}
        </svg>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::setup_for;

    #[test]
    fn every_cpu_has_its_own_cell_inside_its_boxes() {
        for preset in ["1cpu", "i7-4790", "xeon-8260-2s", "epyc-ccx", "spr-2s-224"] {
            let s = setup_for(preset);
            let g = geometry(&s);
            let c = g.cell;
            for (i, &(x, y)) in g.cpu_xy.iter().enumerate() {
                assert!(
                    x >= 0.0 && y >= 0.0 && x + c <= g.width && y + c <= g.height,
                    "{preset}: CPU {i} outside"
                );
                let info = s.cpus[i];
                let (lx, ly, lw, lh, _) = &g.llcs[info.llc as usize];
                assert!(
                    x >= *lx && x + c <= lx + lw && y >= *ly && y + c <= ly + lh,
                    "{preset}: CPU {i} outside its LLC"
                );
                for (j, &(x2, y2)) in g.cpu_xy.iter().enumerate().skip(i + 1) {
                    assert!(
                        (x - x2).abs() >= c || (y - y2).abs() >= c,
                        "{preset}: CPUs {i} and {j} overlap"
                    );
                }
            }
            assert_eq!(g.sockets.len() as u32, s.sockets);
            assert_eq!(
                g.cores.len() as u32,
                s.sockets * s.llcs_per_socket * s.cores_per_llc
            );
        }
    }

    /// Projector mode (issue 13): every label of the map, the corner
    /// badges and the F mark too, is at least 18 px on the screen; out of
    /// it the map is drawn at its own size.
    #[test]
    fn projector_mode_draws_every_map_label_at_18_px() {
        for preset in ["1cpu", "i7-4790", "xeon-8260-2s", "epyc-ccx", "spr-2s-224"] {
            let g = geometry(&setup_for(preset));
            let k = map_scale(&g, true);
            for (what, font) in [("box and CPU labels", LABEL_FONT), ("F mark", MARK_FONT), ("badge", badge_font(badge_radius(g.cell)))] {
                assert!(font * k >= PROJECTOR_PX - 1e-9, "{preset}: {what} at {:.1} px", font * k);
            }
            assert!(k >= 1.5, "{preset}: the map is drawn smaller than the other figures");
            assert_eq!(map_scale(&g, false), 1.0);
        }
    }
}
