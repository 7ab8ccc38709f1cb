//! The timeline (canvas): one lane per CPU, grouped by socket, LLC and core;
//! slices coloured by task, markers where a task left the CPU (coloured by
//! why), wakeups drawn from the waker's CPU to the chosen CPU, migrations,
//! a cursor at the shown instant, and an optional marked instant (the
//! comparison's first difference, a dashed line with a diamond). Wheel zooms, drag pans, double-click
//! shows the whole run, a click picks that CPU and instant.
//!
//! Drawing follows the "viewers that draw a lot" rules: the engine reduces
//! each lane to about one slice per pixel column (the longest one, as
//! Perfetto does); spans are merged and batched into one path per colour;
//! a redraw happens only when something changed, in requestAnimationFrame.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::html::Canvas;
use leptos::prelude::*;
use schedlab_engine::lab::timeline::{Arrow, ArrowKind, MarkItem, MarkKind, Span, Window};
use wasm_bindgen::{JsCast, JsValue};
use web_sys::CanvasRenderingContext2d;

use crate::export::{save_canvas, with_theme, ExportButtons};
use crate::fmt;
use crate::perf;
use crate::state::{use_ctx, Ctx, Setup};

const LABEL_W: f64 = 70.0;
const AXIS_H: f64 = 22.0;
const GROUP_GAP: f64 = 3.0;
/// Arrows are drawn only when at most this many are in view.
const MAX_ARROWS: usize = 400;

/// A pixel of the slice layer (RGBA in memory order).
fn rgba((r, g, b): (u8, u8, u8), a: u8) -> u32 {
    u32::from_le_bytes([r, g, b, a])
}

/// Fills the rectangle [x0, x1) × [y0, y1) of a `stride`-wide buffer.
fn fill(px: &mut [u32], stride: usize, x0: usize, x1: usize, y0: usize, y1: usize, c: u32) {
    let rows = px.len() / stride.max(1);
    let (x1, y1) = (x1.min(stride), y1.min(rows));
    if x0 >= x1 {
        return;
    }
    for y in y0..y1 {
        px[y * stride + x0..y * stride + x1].fill(c);
    }
}

/// Vertical layout: lanes in topology order (socket, LLC, core, thread).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Lanes {
    /// CPU of each lane, top to bottom.
    pub cpus: Vec<u32>,
    /// Top of each lane.
    pub y: Vec<f64>,
    /// Lane of each CPU.
    pub row_of: Vec<usize>,
    pub lane_h: f64,
    pub height: f64,
    /// Where a new socket / LLC starts: (lane index, label).
    pub groups: Vec<(usize, String)>,
    /// Lanes of every other core get a shaded background.
    pub shade: Vec<bool>,
}

pub fn lanes(s: &Setup) -> Lanes {
    let n = s.cpus.len();
    let mut cpus: Vec<u32> = (0..n as u32).collect();
    cpus.sort_by_key(|&c| {
        let i = s.cpus[c as usize];
        (i.socket, i.llc, i.core, i.thread)
    });
    let lane_h = (560.0 / n as f64).floor().clamp(5.0, 26.0);
    let mut y = Vec::with_capacity(n);
    let mut groups = Vec::new();
    let mut at = AXIS_H + 2.0;
    let mut last: Option<(u32, u32)> = None;
    for (row, &c) in cpus.iter().enumerate() {
        let i = s.cpus[c as usize];
        let key = (i.socket, i.llc);
        if last != Some(key) {
            if last.is_some() {
                at += GROUP_GAP;
            }
            let label = if s.sockets > 1 && s.llcs_per_socket > 1 {
                format!("S{} L{}", i.socket, i.llc)
            } else if s.sockets > 1 {
                format!("socket {}", i.socket)
            } else if s.llcs_per_socket > 1 {
                format!("LLC {}", i.llc)
            } else {
                String::new()
            };
            groups.push((row, label));
            last = Some(key);
        }
        y.push(at);
        at += lane_h;
    }
    let mut row_of = vec![0; n];
    for (row, &c) in cpus.iter().enumerate() {
        row_of[c as usize] = row;
    }
    let shade = cpus
        .iter()
        .map(|&c| s.cpus[c as usize].core.is_multiple_of(2))
        .collect();
    Lanes {
        cpus,
        y,
        row_of,
        lane_h,
        height: at + 4.0,
        groups,
        shade,
    }
}

/// The marked instant (the comparison's first difference): magenta, which
/// no task palette entry or marker kind uses.
pub const MARKER_COLOR: &str = "#c51b7d";

/// Marker colours by kind (also in the legend): all dark, so that they
/// never collide with a task's light colour ([`crate::fmt::TASK_COLORS`]).
pub fn mark_color(k: MarkKind) -> &'static str {
    match k {
        MarkKind::Tick => "#4d4d4d",
        MarkKind::Wakeup => "#a50f15",
        MarkKind::Short => "#8c3b00",
        MarkKind::Yield => "#5b1a8b",
        MarkKind::Block => "#08306b",
        MarkKind::Exit => "#000000",
        MarkKind::Balance => "#00441b",
        MarkKind::Nice => "#4a3b00",
        MarkKind::Other => "#3d3d5c",
    }
}

fn arrow_color(k: ArrowKind) -> &'static str {
    match k {
        ArrowKind::Wakeup => "#2a6fdb",
        ArrowKind::Fork => "#30a46c",
        ArrowKind::Migrate => "#12a594",
    }
}

/// Scratch buffers and interaction state (outside the reactive graph).
#[derive(Default)]
struct Tl {
    pending: bool,
    spans: Vec<Span>,
    marks: Vec<MarkItem>,
    arrows: Vec<Arrow>,
    drag: Option<(f64, f64, (f64, f64))>,
    moved: bool,
    lanes: Lanes,
    lanes_gen: u64,
    /// A remark for the header (e.g. arrows hidden).
    note: String,
    /// The slice layer, RGBA pixels at device resolution.
    pixels: Vec<u32>,
    /// Last draw: items drawn (for tests and measurement).
    drawn: usize,
}

#[component]
pub fn TimelineView() -> impl IntoView {
    let ctx = use_ctx();
    let ui = ctx.ui;
    let canvas = NodeRef::<Canvas>::new();
    let tl: Rc<RefCell<Tl>> = Rc::new(RefCell::new(Tl::default()));
    let tip = RwSignal::new(None::<(f64, f64, String)>);
    let stats = RwSignal::new(String::new());
    let note = RwSignal::new(String::new());

    let draw = {
        let tl = tl.clone();
        Rc::new(move || {
            tl.borrow_mut().pending = false;
            let mut t = tl.borrow_mut();
            // A frame requested before the view was unmounted draws nothing.
            if let Some(n) = draw_timeline(ctx, canvas, &mut t) {
                let _ = stats.try_set(n);
                if note.try_get_untracked().is_some_and(|n| n != t.note) {
                    let _ = note.try_set(t.note.clone());
                }
            }
        })
    };
    let schedule = {
        let tl = tl.clone();
        let draw = draw.clone();
        move || {
            let mut t = tl.borrow_mut();
            if !t.pending {
                t.pending = true;
                let draw = draw.clone();
                request_animation_frame(move || draw());
            }
        }
    };
    // Redraw when the instant, the window, the run or the size changes.
    {
        let schedule = schedule.clone();
        Effect::new(move |_| {
            ui.frame.with(|f| (f.event, f.computed, f.gen));
            ui.window.track();
            ui.setup.track();
            ui.big.track();
            ui.marker.track();
            ui.quiz.with(|q| q.as_ref().map(|q| q.revealed));
            schedule();
        });
    }
    {
        let schedule = schedule.clone();
        let handle = window_event_listener(leptos::ev::resize, move |_| schedule());
        on_cleanup(move || handle.remove());
    }

    let time_at = move |x: f64| -> Option<(f64, Window)> {
        let el = canvas.try_get_untracked().flatten()?;
        let w = el.client_width() as f64 - LABEL_W;
        let win = window_of(ui, w)?;
        Some((win.t0 + (x - LABEL_W) * win.ns_per_px, win))
    };

    let on_wheel = move |ev: web_sys::WheelEvent| {
        ev.prevent_default();
        let x = ev.offset_x() as f64;
        let Some((t, win)) = time_at(x) else { return };
        let dur = ui.setup.with_untracked(|s| s.duration) as f64;
        let span = win.ns_per_px * win.width;
        let factor = (ev.delta_y() * 0.0015).exp();
        let new_span = (span * factor).clamp(2_000.0, dur.max(2_000.0));
        let frac = ((x - LABEL_W) / win.width).clamp(0.0, 1.0);
        let t0 = (t - frac * new_span).clamp(0.0, (dur - new_span).max(0.0));
        set_window(ui, t0, t0 + new_span);
    };
    let on_down = {
        let tl = tl.clone();
        move |ev: web_sys::MouseEvent| {
            if ev.button() != 0 {
                return;
            }
            let Some((_, win)) = time_at(ev.offset_x() as f64) else {
                return;
            };
            let mut t = tl.borrow_mut();
            t.drag = Some((
                ev.client_x() as f64,
                win.ns_per_px,
                (win.t0, win.t0 + win.ns_per_px * win.width),
            ));
            t.moved = false;
        }
    };
    let on_move = {
        let tl = tl.clone();
        move |ev: web_sys::MouseEvent| {
            let drag = tl.borrow().drag;
            if let Some((x0, npp, (a, b))) = drag {
                let dx = ev.client_x() as f64 - x0;
                if dx.abs() > 2.0 {
                    tl.borrow_mut().moved = true;
                }
                if tl.borrow().moved {
                    let dur = ui.setup.with_untracked(|s| s.duration) as f64;
                    let span = b - a;
                    let t0 = (a - dx * npp).clamp(0.0, (dur - span).max(0.0));
                    set_window(ui, t0, t0 + span);
                }
                tip.set(None);
                return;
            }
            let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
            let text = time_at(x).and_then(|(t, _)| {
                let t = t.max(0.0) as u64;
                // Quiz mode hides the future: its slices too.
                if ui.quiz.with_untracked(|q| q.as_ref().is_some_and(|q| q.asking())) && t > ui.frame.with_untracked(|f| f.time) {
                    return Some("quiz: the future is hidden".to_string());
                }
                let t2 = tl.borrow();
                let row = t2
                    .lanes
                    .y
                    .iter()
                    .position(|&ly| y >= ly && y < ly + t2.lanes.lane_h)?;
                let cpu = t2.lanes.cpus[row];
                let slice = ctx
                    .with_lab(|lab| lab.player.timeline.slice_at(cpu as usize, t))
                    .flatten();
                Some(match slice {
                    Some((s, e, task)) => format!(
                        "CPU {cpu} · {} · {} – {} ({})",
                        ui.setup.with_untracked(|st| st.name(task).to_string()),
                        fmt::ms(s),
                        fmt::ms(e),
                        fmt::ms(e - s)
                    ),
                    None => format!("CPU {cpu} · idle at {}", fmt::ms(t)),
                })
            });
            tip.set(text.map(|s| (x, y, s)));
        }
    };
    let on_up = {
        let tl = tl.clone();
        move |ev: web_sys::MouseEvent| {
            let (drag, moved) = {
                let mut t = tl.borrow_mut();
                (t.drag.take(), t.moved)
            };
            if drag.is_none() || moved {
                return;
            }
            // A click: that CPU (if on a lane) and that instant.
            let (x, y) = (ev.offset_x() as f64, ev.offset_y() as f64);
            let Some((t, _)) = time_at(x) else { return };
            let row = {
                let t2 = tl.borrow();
                t2.lanes
                    .y
                    .iter()
                    .position(|&ly| y >= ly && y < ly + t2.lanes.lane_h)
                    .map(|r| t2.lanes.cpus[r])
            };
            if let Some(cpu) = row {
                ui.pinned.set(Some(cpu));
            }
            if x >= LABEL_W {
                ctx.seek_time(t.max(0.0) as u64);
            } else {
                ctx.publish();
            }
        }
    };
    let on_leave = {
        let tl = tl.clone();
        move |_: web_sys::MouseEvent| {
            tl.borrow_mut().drag = None;
            tip.set(None);
        }
    };

    let legend = MarkKind::ALL
        .iter()
        .filter(|k| !matches!(k, MarkKind::Nice | MarkKind::Other))
        .map(|&k| view! { <span class="lg-mark"><i style=format!("background:{}", mark_color(k))></i>{k.label()}</span> })
        .collect_view();
    let prefix = crate::export::figure_prefix();
    // The canvas holds the page's colours: for a light file on a dark
    // page it is drawn once in the light ones for the file, then again
    // as shown.
    let redraw = StoredValue::new_local(draw.clone());
    let export = Callback::new(move |(light, png): (bool, bool)| {
        let el = canvas.get_untracked().ok_or("no timeline drawn")?;
        let draw = redraw.try_get_value().ok_or("no timeline drawn")?;
        let saved = with_theme(light, || {
            draw();
            save_canvas(&el, &format!("{prefix}-timeline"), png)
        });
        draw();
        saved
    });
    view! {
        <section class="panel timeline-panel" data-testid="timeline-panel">
            <h2>
                "Timeline"
                <ExportButtons name="timeline" target=export />
                <span class="sub">{move || ui.setup.with(|s| format!("{} CPUs, grouped by socket / LLC / core", s.nr_cpus()))}</span>
                <button class="small" on:click=move |_| ui.window.set(None) title="show the whole run (double-click)">"whole run"</button>
                <span class="sub" data-testid="timeline-note">{move || note.get()}</span>
            </h2>
            <div class="timeline-wrap">
                <canvas
                    node_ref=canvas
                    class="timeline"
                    data-testid="timeline"
                    data-drawn=move || stats.get()
                    data-marker-event=move || ui.marker.with(|m| m.as_ref().map(|m| m.event.to_string()))
                    data-marker-time=move || ui.marker.with(|m| m.as_ref().map(|m| m.time.to_string()))
                    on:wheel=on_wheel
                    on:mousedown=on_down
                    on:mousemove=on_move
                    on:mouseup=on_up
                    on:mouseleave=on_leave
                    on:dblclick=move |_| ui.window.set(None)
                ></canvas>
                {move || tip.get().map(|(x, y, s)| view! {
                    <div class="tl-tip" style=format!("left:{}px;top:{}px", x + 12.0, y + 12.0)>{s}</div>
                })}
            </div>
            <div class="legend">
                {legend}
                <span class="lg-mark"><i class="arrow-key" style=format!("background:{}", arrow_color(ArrowKind::Wakeup))></i>"wakeup: waker CPU → chosen CPU"</span>
                <span class="lg-mark"><i class="arrow-key dashed" style=format!("background:{}", arrow_color(ArrowKind::Migrate))></i>"migration"</span>
                <span class="muted">"wheel: zoom · drag: pan · click: that CPU and instant · double-click: whole run"</span>
            </div>
        </section>
    }
}

fn set_window(ui: crate::state::Ui, a: f64, b: f64) {
    ui.window.set(Some((a, b)));
}

/// The visible window for a plot `width` px wide.
fn window_of(ui: crate::state::Ui, width: f64) -> Option<Window> {
    let dur = ui.setup.try_with_untracked(|s| s.duration)? as f64;
    let (a, b) = ui
        .window
        .try_get_untracked()?
        .unwrap_or((0.0, dur.max(1.0)));
    let width = width.max(10.0);
    Some(Window {
        t0: a,
        ns_per_px: ((b - a) / width).max(1e-3),
        width,
    })
}

fn css_var(style: Option<&web_sys::CssStyleDeclaration>, name: &str, fallback: &str) -> String {
    style
        .and_then(|s| s.get_property_value(name).ok())
        .map(|v| v.trim().to_string())
        .filter(|v| !v.is_empty())
        .unwrap_or_else(|| fallback.to_string())
}

/// Draws the whole canvas; returns a summary of what was drawn.
fn draw_timeline(ctx: Ctx, canvas: NodeRef<Canvas>, tl: &mut Tl) -> Option<String> {
    let t_start = perf::now();
    let el = canvas.try_get_untracked().flatten()?;
    let ui = ctx.ui;
    let gen = ui.setup.try_with_untracked(|s| s.gen)?;
    if tl.lanes_gen != gen || tl.lanes.cpus.is_empty() {
        tl.lanes = ui.setup.try_with_untracked(|s| lanes(s))?;
        tl.lanes_gen = gen;
    }
    let (time, computed_time, finished) = ui
        .frame
        .try_with_untracked(|f| (f.time, f.computed_time, f.finished))?;
    let css_w = el
        .parent_element()
        .map_or(800, |p| p.client_width())
        .max(200) as f64;
    let css_h = tl.lanes.height;
    let dpr = web_sys::window()
        .map_or(1.0, |w| w.device_pixel_ratio())
        .max(1.0);
    let (pw, ph) = ((css_w * dpr) as u32, (css_h * dpr) as u32);
    if el.width() != pw || el.height() != ph {
        el.set_width(pw);
        el.set_height(ph);
        let style = el.unchecked_ref::<web_sys::HtmlElement>().style();
        let _ = style.set_property("width", &format!("{css_w}px"));
        let _ = style.set_property("height", &format!("{css_h}px"));
    }
    let g: CanvasRenderingContext2d = el.get_context("2d").ok()??.dyn_into().ok()?;
    let _ = g.set_transform(dpr, 0.0, 0.0, dpr, 0.0, 0.0);
    g.clear_rect(0.0, 0.0, css_w, css_h);

    let style = web_sys::window().and_then(|w| w.get_computed_style(&el).ok().flatten());
    let fg = css_var(style.as_ref(), "--fg", "#1d1f21");
    let muted = css_var(style.as_ref(), "--muted", "#5f6368");
    let accent = css_var(style.as_ref(), "--accent", "#2a6fdb");
    let dim = css_var(style.as_ref(), "--dim", "rgba(255,255,255,0.55)");

    let plot_w = css_w - LABEL_W;
    let win = window_of(ui, plot_w)?;
    let lanes = &tl.lanes;
    let lh = lanes.lane_h;
    let bar_h = (lh - 1.0).max(2.0);

    // The slice layer is drawn into a pixel buffer at device resolution
    // and put on the canvas in one call: lane backgrounds, slices (one
    // span per pixel column at most, merged when adjacent and of one
    // colour), and the markers. Text, arrows and the cursor go on top
    // with the canvas API.
    let (pw, ph) = (pw as usize, ph as usize);
    tl.pixels.clear();
    tl.pixels.resize(pw * ph, 0);
    let dev = |v: f64| (v * dpr).round().max(0.0) as usize;
    let lane_bg = rgba((128, 128, 128), 22);
    for row in 0..lanes.cpus.len() {
        if lanes.shade[row] {
            let y = lanes.y[row];
            fill(
                &mut tl.pixels,
                pw,
                dev(LABEL_W),
                pw,
                dev(y),
                dev(y + lh),
                lane_bg,
            );
        }
    }
    let palette: Vec<u32> = (0..fmt::PALETTE)
        .map(|i| rgba(fmt::palette_rgb(i), 255))
        .collect();
    let marks: Vec<u32> = MarkKind::ALL
        .iter()
        .map(|&k| rgba(fmt::hex_rgb(mark_color(k)), 255))
        .collect();
    let coarse = Window {
        t0: win.t0,
        ns_per_px: win.ns_per_px * 3.0,
        width: win.width / 3.0,
    };
    let show_marks = lh >= 7.0;
    let mut drawn = 0usize;
    let mut arrows_in_view = 0usize;
    let t_reduce = perf::now();
    ctx.with_lab(|lab| {
        let timeline = &lab.player.timeline;
        for (row, &cpu) in lanes.cpus.iter().enumerate() {
            let y = lanes.y[row];
            let (y0, y1) = (dev(y + 0.5), dev(y + 0.5 + bar_h).max(dev(y + 0.5) + 1));
            tl.spans.clear();
            timeline.reduce_slices(cpu as usize, &win, &mut tl.spans);
            let mut run: Option<(usize, f64, f64)> = None;
            let mut emit = |run: Option<(usize, f64, f64)>, px: &mut Vec<u32>| {
                if let Some((c, a, b)) = run {
                    let x0 = dev(LABEL_W + a);
                    let x1 = dev(LABEL_W + b).max(x0 + 1);
                    fill(px, pw, x0, x1, y0, y1, palette[c]);
                    drawn += 1;
                }
            };
            for s in &tl.spans {
                let x0 = (s.x0 as f64).max(0.0);
                let x1 = (s.x1 as f64).min(plot_w);
                if x1 <= x0 {
                    continue;
                }
                let c = fmt::palette_index(s.task);
                match run {
                    Some((rc, a, b)) if rc == c && x0 - b < 0.75 => run = Some((rc, a, x1.max(b))),
                    _ => {
                        emit(run, &mut tl.pixels);
                        run = Some((c, x0, x1));
                    }
                }
            }
            emit(run, &mut tl.pixels);
            if show_marks {
                tl.marks.clear();
                timeline.reduce_marks(cpu as usize, &coarse, &mut tl.marks);
                let mh = (lh * 0.45).max(3.0);
                for m in &tl.marks {
                    let x = m.x as f64 * 3.0;
                    if (0.0..=plot_w).contains(&x) {
                        let k = MarkKind::ALL.iter().position(|&q| q == m.kind).unwrap_or(0);
                        let x0 = dev(LABEL_W + x - 1.0);
                        fill(
                            &mut tl.pixels,
                            pw,
                            x0,
                            x0 + dev(2.0).max(1),
                            dev(y),
                            dev(y + mh),
                            marks[k],
                        );
                        drawn += 1;
                    }
                }
            }
        }
        tl.arrows.clear();
        arrows_in_view = timeline.arrows_in(&win).len();
        if arrows_in_view <= MAX_ARROWS {
            timeline.reduce_arrows(&win, MAX_ARROWS, &mut tl.arrows);
        }
    });
    let t_fill = perf::now();
    perf::record("tl_reduce", t_fill - t_reduce);
    {
        // SAFETY: a u32 slice viewed as its bytes (RGBA, little-endian).
        let bytes = unsafe {
            std::slice::from_raw_parts(tl.pixels.as_ptr() as *const u8, tl.pixels.len() * 4)
        };
        if let Ok(img) = web_sys::ImageData::new_with_u8_clamped_array_and_sh(
            wasm_bindgen::Clamped(bytes),
            pw as u32,
            ph as u32,
        ) {
            let _ = g.put_image_data(&img, 0.0, 0.0);
        }
    }
    // Labels and group separators.
    let big = ui.big.try_get_untracked().unwrap_or(false);
    let k = if big { 1.35 } else { 1.0 };
    g.set_fill_style_str(&muted);
    // Projector mode: labels of 18 px (every few lanes where lanes are thin).
    let font = if big { 18.0 } else { (lh - 2.0).clamp(8.0, 12.0).round() };
    g.set_font(&format!("{font}px ui-monospace, monospace"));
    g.set_text_align("right");
    g.set_text_baseline("middle");
    // Label every lane when they are tall enough, else every few lanes (an
    // even stride, so labels fall on the first thread of a core).
    let mut every = ((font + 3.0) / lh).ceil().max(1.0) as usize;
    if every > 1 && every % 2 == 1 {
        every += 1;
    }
    for (row, &cpu) in lanes.cpus.iter().enumerate() {
        if row % every == 0 {
            let _ = g.fill_text(&format!("cpu{cpu}"), LABEL_W - 6.0, lanes.y[row] + lh / 2.0);
        }
    }
    // Socket / LLC groups: a rule between them and the name written
    // vertically along the group.
    g.set_font(&format!("{}px system-ui, sans-serif", if big { 18.0 } else { 10.0 }));
    g.set_text_align("center");
    for (i, (row, label)) in lanes.groups.iter().enumerate() {
        let top = lanes.y[*row];
        let bottom = lanes
            .groups
            .get(i + 1)
            .map_or(lanes.height - 4.0, |(r, _)| lanes.y[*r] - GROUP_GAP);
        if !label.is_empty() {
            g.set_fill_style_str(&fg);
            g.save();
            let _ = g.translate(7.0 * k, (top + bottom) / 2.0);
            let _ = g.rotate(-std::f64::consts::FRAC_PI_2);
            let _ = g.fill_text(label, 0.0, 0.0);
            g.restore();
        }
        if *row > 0 {
            g.set_fill_style_str(&muted);
            g.fill_rect(0.0, top - GROUP_GAP / 2.0 - 0.5, css_w, 1.0);
        }
    }
    g.set_text_align("left");
    let t_arrows = perf::now();
    perf::record("tl_fill", t_arrows - t_fill);
    tl.note = if arrows_in_view > MAX_ARROWS {
        format!("{arrows_in_view} wakeups and migrations in view: zoom in to see their arrows")
    } else {
        String::new()
    };
    // Wakeups and migrations between lanes.
    g.set_line_width(1.0);
    for kind in [ArrowKind::Wakeup, ArrowKind::Fork, ArrowKind::Migrate] {
        let dash = js_sys::Array::new();
        if kind == ArrowKind::Migrate {
            dash.push(&JsValue::from_f64(3.0));
            dash.push(&JsValue::from_f64(2.0));
        }
        let _ = g.set_line_dash(&dash);
        g.set_stroke_style_str(arrow_color(kind));
        g.set_fill_style_str(arrow_color(kind));
        g.begin_path();
        let mut heads = Vec::new();
        for a in tl.arrows.iter().filter(|a| a.kind == kind) {
            let x = LABEL_W + win.x(a.time);
            let (Some(&rf), Some(&rt)) = (
                lanes.row_of.get(a.from as usize),
                lanes.row_of.get(a.to as usize),
            ) else {
                continue;
            };
            let (y0, y1) = (lanes.y[rf] + lh / 2.0, lanes.y[rt] + lh / 2.0);
            if rf == rt {
                heads.push((x, y1 - lh / 2.0, true));
                continue;
            }
            g.move_to(x, y0);
            g.line_to(x, y1);
            heads.push((x, y1, y1 > y0));
        }
        g.stroke();
        g.begin_path();
        for (x, y, down) in heads {
            let d = if down { -1.0 } else { 1.0 };
            g.move_to(x, y);
            g.line_to(x - 2.5, y + 4.0 * d);
            g.line_to(x + 2.5, y + 4.0 * d);
            g.close_path();
        }
        g.fill();
    }
    let _ = g.set_line_dash(&js_sys::Array::new());
    drawn += tl.arrows.len();
    perf::record("tl_arrows", perf::now() - t_arrows);

    // Not computed yet.
    if !finished {
        let x = (LABEL_W + win.x(computed_time)).max(LABEL_W);
        if x < css_w {
            g.set_fill_style_str("rgba(127,127,127,0.18)");
            g.fill_rect(x, AXIS_H, css_w - x, css_h - AXIS_H);
            g.set_fill_style_str(&muted);
            let _ = g.fill_text("computing…", x + 6.0, AXIS_H + 10.0);
        }
    }
    // The future, dimmed (in quiz mode, while asking, hidden), and the
    // cursor.
    let cx = LABEL_W + win.x(time);
    let hide = ui.quiz.try_with_untracked(|q| q.as_ref().is_some_and(|q| q.asking())).unwrap_or(false);
    if cx < css_w {
        let bg = css_var(style.as_ref(), "--panel", "#ffffff");
        g.set_fill_style_str(if hide { &bg } else { &dim });
        let from = cx.max(LABEL_W);
        g.fill_rect(from, AXIS_H, css_w - from, css_h - AXIS_H);
        if hide {
            g.set_fill_style_str(&muted);
            let _ = g.fill_text("quiz: the future is hidden", from + 8.0, AXIS_H + 14.0);
        }
    }
    if (LABEL_W..=css_w).contains(&cx) {
        g.set_fill_style_str(&accent);
        g.fill_rect(cx - 1.0, 2.0, 2.0, css_h - 2.0);
    }
    // The marked instant: a dashed line with a diamond on the axis, in a
    // colour no slice or marker uses, and its label.
    if let Some(m) = ui.marker.try_get_untracked().flatten() {
        let mx = LABEL_W + win.x(m.time);
        if (LABEL_W..=css_w).contains(&mx) {
            let c = MARKER_COLOR;
            let dash = js_sys::Array::new();
            dash.push(&JsValue::from_f64(5.0));
            dash.push(&JsValue::from_f64(3.0));
            let _ = g.set_line_dash(&dash);
            g.set_stroke_style_str(c);
            g.set_line_width(2.0);
            g.begin_path();
            g.move_to(mx, AXIS_H);
            g.line_to(mx, css_h);
            g.stroke();
            let _ = g.set_line_dash(&js_sys::Array::new());
            g.set_line_width(1.0);
            g.set_fill_style_str(c);
            g.begin_path();
            g.move_to(mx, AXIS_H - 12.0);
            g.line_to(mx + 6.0, AXIS_H - 6.0);
            g.line_to(mx, AXIS_H);
            g.line_to(mx - 6.0, AXIS_H - 6.0);
            g.close_path();
            g.fill();
            g.set_font(&format!("bold {}px system-ui, sans-serif", if big { 18.0 } else { 11.0 }));
            let right = mx + 150.0 > css_w;
            g.set_text_align(if right { "right" } else { "left" });
            let _ = g.fill_text(&m.label, if right { mx - 9.0 } else { mx + 9.0 }, AXIS_H + 10.0);
            g.set_text_align("left");
        }
    }
    // Time axis.
    g.set_fill_style_str(&fg);
    g.set_font(&format!("{}px system-ui, sans-serif", if big { 18.0 } else { 11.0 }));
    g.set_text_align("center");
    let span = win.ns_per_px * win.width;
    let step = fmt::nice_step(span, (plot_w / 110.0).max(2.0));
    let mut t = (win.t0 / step).ceil() * step;
    let mut n = 0;
    while t <= win.t0 + span && n < 60 {
        let x = LABEL_W + (t - win.t0) / win.ns_per_px;
        g.fill_rect(x, AXIS_H - 5.0, 1.0, 5.0);
        let _ = g.fill_text(&fmt::duration_short(t), x, 9.0);
        t += step;
        n += 1;
    }
    tl.drawn = drawn;
    let ms = perf::now() - t_start;
    perf::record("timeline", ms);
    Some(format!("{drawn}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::setup_for;

    #[test]
    fn lanes_follow_the_topology() {
        let s = setup_for("xeon-8260-2s");
        let l = lanes(&s);
        assert_eq!(l.cpus.len(), 96);
        // SMT siblings are neighbours: CPU 0 then CPU 48.
        assert_eq!(&l.cpus[..4], &[0, 48, 1, 49]);
        // Sorted by (socket, llc, core, thread); row_of inverts cpus.
        let key = |c: u32| {
            let i = s.cpus[c as usize];
            (i.socket, i.llc, i.core, i.thread)
        };
        assert!(l.cpus.windows(2).all(|w| key(w[0]) < key(w[1])));
        for (row, &c) in l.cpus.iter().enumerate() {
            assert_eq!(l.row_of[c as usize], row);
        }
        // One group per socket, separated by a gap; lanes never overlap.
        assert_eq!(
            l.groups.iter().map(|g| g.1.as_str()).collect::<Vec<_>>(),
            ["socket 0", "socket 1"]
        );
        assert!(l.y.windows(2).all(|w| w[1] >= w[0] + l.lane_h));
        assert!(l.lane_h >= 5.0 && l.height > l.y[95]);
        // A one-CPU machine: one tall lane, no group label.
        let one = lanes(&setup_for("1cpu"));
        assert_eq!(one.lane_h, 26.0);
        assert_eq!(one.groups, vec![(0, String::new())]);
    }

    #[test]
    fn pixel_fill_clips() {
        let mut px = vec![0u32; 10 * 4];
        fill(&mut px, 10, 8, 20, 2, 9, 7);
        assert_eq!(px.iter().filter(|&&p| p == 7).count(), 2 * 2);
        fill(&mut px, 10, 5, 5, 0, 4, 9);
        assert!(!px.contains(&9));
        assert_eq!(rgba((1, 2, 3), 4).to_le_bytes(), [1, 2, 3, 4]);
    }
}
