//! Charts of the study page, drawn with plotters-canvas's canvas backend:
//! bars with error bars (grouped by load) and line charts (latency CDFs,
//! switch rates). The numbers come from the engine's study results; this
//! only maps them to pixels.

use plotters_backend::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{BackendColor, BackendStyle, BackendTextStyle, DrawingBackend, FontFamily, FontTransform};
use plotters_canvas::CanvasBackend;

use crate::fmt;

/// Colours of the configurations (baseline first), with names for the
/// legend's text.
pub const SERIES: [((u8, u8, u8), &str); 6] = [
    ((96, 103, 112), "grey"),
    ((42, 111, 219), "blue"),
    ((229, 72, 77), "red"),
    ((48, 164, 108), "green"),
    ((142, 78, 198), "purple"),
    ((247, 107, 21), "orange"),
];

pub fn series_color(i: usize) -> (u8, u8, u8) {
    SERIES[i % SERIES.len()].0
}

fn color((r, g, b): (u8, u8, u8)) -> BackendColor {
    BackendColor { alpha: 1.0, rgb: (r, g, b) }
}

struct Stroke(BackendColor, u32);

impl BackendStyle for Stroke {
    fn color(&self) -> BackendColor {
        self.0
    }
    fn stroke_width(&self) -> u32 {
        self.1
    }
}

/// A text style for the canvas backend (which draws text itself and only
/// reads colour, size, anchor and family).
struct Text {
    size: f64,
    color: BackendColor,
    anchor: Pos,
    rotate: bool,
}

impl BackendTextStyle for Text {
    type FontError = std::fmt::Error;
    fn color(&self) -> BackendColor {
        self.color
    }
    fn size(&self) -> f64 {
        self.size
    }
    fn anchor(&self) -> Pos {
        self.anchor
    }
    fn transform(&self) -> FontTransform {
        if self.rotate {
            FontTransform::Rotate270
        } else {
            FontTransform::None
        }
    }
    fn family(&self) -> FontFamily<'_> {
        FontFamily::SansSerif
    }
    fn layout_box(&self, text: &str) -> Result<((i32, i32), (i32, i32)), Self::FontError> {
        let w = (text.chars().count() as f64 * self.size * 0.55) as i32;
        Ok(((0, 0), (w, self.size as i32)))
    }
    fn draw<E, F: FnMut(i32, i32, BackendColor) -> Result<(), E>>(
        &self,
        _text: &str,
        _pos: (i32, i32),
        _draw: F,
    ) -> Result<Result<(), E>, Self::FontError> {
        Ok(Ok(()))
    }
}

const INK: (u8, u8, u8) = (60, 64, 70);
const GRID: (u8, u8, u8) = (215, 218, 222);

/// The plotting area of a canvas and its value ranges.
struct Frame {
    left: f64,
    top: f64,
    right: f64,
    bottom: f64,
    x: (f64, f64),
    y: (f64, f64),
    log_x: bool,
}

impl Frame {
    fn px(&self, x: f64) -> i32 {
        let (a, b, v) = if self.log_x { (self.x.0.ln(), self.x.1.ln(), x.max(self.x.0).ln()) } else { (self.x.0, self.x.1, x) };
        (self.left + (v - a) / (b - a).max(1e-12) * (self.right - self.left)) as i32
    }
    fn py(&self, y: f64) -> i32 {
        (self.bottom - (y - self.y.0) / (self.y.1 - self.y.0).max(1e-12) * (self.bottom - self.top)) as i32
    }
}

fn text<B: DrawingBackend>(b: &mut B, s: &str, at: (i32, i32), size: f64, h: HPos, v: VPos) {
    let style = Text { size, color: color(INK), anchor: Pos::new(h, v), rotate: false };
    let _ = b.draw_text(s, &style, at);
}

/// Sizes the canvas to its box (CSS px) and clears it.
fn prepare(canvas: &web_sys::HtmlCanvasElement, height: u32) -> Option<CanvasBackend> {
    // The canvas's own CSS width (100 % of its box), so one pixel is one
    // CSS pixel and nothing is scaled.
    let w = match canvas.client_width() {
        0 => canvas.parent_element().map_or(600, |p| p.client_width()),
        w => w,
    }
    .clamp(240, 1400) as u32;
    if canvas.width() != w || canvas.height() != height {
        canvas.set_width(w);
        canvas.set_height(height);
    }
    let mut b = CanvasBackend::with_canvas_object(canvas.clone())?;
    let _ = b.draw_rect((0, 0), (w as i32, height as i32), &color((255, 255, 255)), true);
    Some(b)
}

/// Axes, grid and y tick labels of a frame.
fn axes<B: DrawingBackend>(b: &mut B, f: &Frame, y_label: &str, title: &str) {
    let step = fmt::nice_step(f.y.1 - f.y.0, 5.0).max(1e-12);
    let mut y = (f.y.0 / step).ceil() * step;
    let mut n = 0;
    while y <= f.y.1 + step * 1e-9 && n < 20 {
        let py = f.py(y);
        let _ = b.draw_line((f.left as i32, py), (f.right as i32, py), &Stroke(color(GRID), 1));
        text(b, &tick_label(y, step), (f.left as i32 - 4, py), 11.0, HPos::Right, VPos::Center);
        y += step;
        n += 1;
    }
    let _ = b.draw_line((f.left as i32, f.top as i32), (f.left as i32, f.bottom as i32), &Stroke(color(INK), 1));
    let _ = b.draw_line((f.left as i32, f.bottom as i32), (f.right as i32, f.bottom as i32), &Stroke(color(INK), 1));
    let style = Text { size: 11.0, color: color(INK), anchor: Pos::new(HPos::Center, VPos::Top), rotate: true };
    let _ = b.draw_text(y_label, &style, (4, ((f.top + f.bottom) / 2.0) as i32));
    text(b, title, (f.left as i32 - 50, 4), 12.0, HPos::Left, VPos::Top);
}

/// A tick label with as many decimals as the tick step needs.
pub fn tick_label(v: f64, step: f64) -> String {
    if step >= 1.0 || v == 0.0 {
        return short_num(v);
    }
    let decimals = (-step.log10().floor()) as usize;
    format!("{v:.decimals$}")
}

/// Numbers for axis labels: at most three significant digits.
pub fn short_num(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 {
        "0".into()
    } else if a >= 1e6 {
        format!("{}M", format!("{:.3}", x / 1e6).trim_end_matches('0').trim_end_matches('.'))
    } else if a >= 1e4 {
        format!("{:.0}k", x / 1e3)
    } else if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 1.0 {
        format!("{x:.2}").trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        format!("{x:.3}").trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// The legend, right-aligned on the title line.
fn legend<B: DrawingBackend>(b: &mut B, f: &Frame, names: &[String]) {
    let width: i32 = names.iter().map(|n| 24 + n.chars().count() as i32 * 6).sum();
    let mut x = (f.right as i32 - width).max(f.left as i32);
    for (i, n) in names.iter().enumerate() {
        let c = color(series_color(i));
        let _ = b.draw_rect((x, 22), (x + 12, 32), &c, true);
        text(b, n, (x + 16, 27), 11.0, HPos::Left, VPos::Center);
        x += 24 + (n.chars().count() as i32 * 6);
    }
}

/// One group of bars (one load level): per configuration, mean and std.
#[derive(Clone, Debug, PartialEq)]
pub struct BarGroup {
    pub label: String,
    pub bars: Vec<Option<(f64, f64)>>,
}

/// Bars with error bars (mean ± std), grouped; returns the number of bars
/// drawn.
pub fn draw_bars(canvas: &web_sys::HtmlCanvasElement, title: &str, y_label: &str, configs: &[String], groups: &[BarGroup]) -> usize {
    let Some(mut b) = prepare(canvas, 240) else { return 0 };
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    bars_on(&mut b, w, h, title, y_label, configs, groups)
}

/// [`draw_bars`] as an SVG document of `w` × `h` px.
pub fn bars_svg(w: u32, h: u32, title: &str, y_label: &str, configs: &[String], groups: &[BarGroup]) -> String {
    svg_doc(w, h, |b| {
        bars_on(b, w as f64, h as f64, title, y_label, configs, groups);
    })
}

/// Draws on an SVG backend on a white background.
fn svg_doc(w: u32, h: u32, f: impl FnOnce(&mut plotters_svg::SVGBackend)) -> String {
    let mut out = String::new();
    {
        let mut b = plotters_svg::SVGBackend::with_string(&mut out, (w, h));
        let _ = b.draw_rect((0, 0), (w as i32, h as i32), &color((255, 255, 255)), true);
        f(&mut b);
        let _ = b.present();
    }
    out
}

fn bars_on<B: DrawingBackend>(b: &mut B, w: f64, h: f64, title: &str, y_label: &str, configs: &[String], groups: &[BarGroup]) -> usize {
    let top = groups
        .iter()
        .flat_map(|g| g.bars.iter().flatten())
        .map(|(m, s)| m + s)
        .fold(0.0f64, f64::max);
    let f = Frame { left: 58.0, top: 40.0, right: w - 10.0, bottom: h - 26.0, x: (0.0, 1.0), y: (0.0, if top > 0.0 { top * 1.1 } else { 1.0 }), log_x: false };
    axes(b, &f, y_label, title);
    legend(b, &f, configs);
    let gw = (f.right - f.left) / groups.len().max(1) as f64;
    let n = configs.len().max(1) as f64;
    let bw = (gw * 0.8 / n).max(2.0);
    let mut drawn = 0;
    for (gi, g) in groups.iter().enumerate() {
        let x0 = f.left + gw * gi as f64 + gw * 0.1;
        for (ci, bar) in g.bars.iter().enumerate() {
            let Some((m, s)) = *bar else { continue };
            let (xa, xb) = ((x0 + bw * ci as f64) as i32, (x0 + bw * (ci as f64 + 1.0) - 2.0) as i32);
            let _ = b.draw_rect((xa, f.py(m)), (xb.max(xa + 1), f.py(0.0)), &color(series_color(ci)), true);
            // The error bar: mean ± std, with whiskers.
            let xm = (xa + xb) / 2;
            let (ya, yb) = (f.py(m + s), f.py((m - s).max(f.y.0)));
            let ink = Stroke(color(INK), 1);
            let _ = b.draw_line((xm, ya), (xm, yb), &ink);
            let _ = b.draw_line((xm - 3, ya), (xm + 3, ya), &ink);
            let _ = b.draw_line((xm - 3, yb), (xm + 3, yb), &ink);
            drawn += 1;
        }
        text(b, &g.label, ((f.left + gw * (gi as f64 + 0.5)) as i32, f.bottom as i32 + 4), 11.0, HPos::Center, VPos::Top);
    }
    drawn
}

/// One line of a line chart.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// Line chart; `x_labels` names the x positions of a categorical axis
/// (else numeric ticks, log-scaled with `log_x`). Returns points drawn.
pub fn draw_lines(
    canvas: &web_sys::HtmlCanvasElement,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    x_labels: Option<&[String]>,
    log_x: bool,
) -> usize {
    let Some(mut b) = prepare(canvas, 240) else { return 0 };
    let (w, h) = (canvas.width() as f64, canvas.height() as f64);
    lines_on(&mut b, w, h, title, x_label, y_label, series, x_labels, log_x)
}

/// [`draw_lines`] as an SVG document of `w` × `h` px.
#[allow(clippy::too_many_arguments)]
pub fn lines_svg(w: u32, h: u32, title: &str, x_label: &str, y_label: &str, series: &[Series], x_labels: Option<&[String]>, log_x: bool) -> String {
    svg_doc(w, h, |b| {
        lines_on(b, w as f64, h as f64, title, x_label, y_label, series, x_labels, log_x);
    })
}

#[allow(clippy::too_many_arguments)]
fn lines_on<B: DrawingBackend>(
    b: &mut B,
    w: f64,
    h: f64,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    x_labels: Option<&[String]>,
    log_x: bool,
) -> usize {
    let pts = || series.iter().flat_map(|s| s.points.iter().copied()).filter(|p| p.0.is_finite() && p.1.is_finite());
    let (mut x0, mut x1) = pts().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let y1 = pts().fold(0.0f64, |a, p| a.max(p.1));
    if x0 > x1 {
        (x0, x1) = (0.0, 1.0);
    }
    if log_x {
        x0 = x0.max(1.0);
        x1 = x1.max(x0 * 10.0);
    } else if x1 - x0 < 1e-9 {
        x1 = x0 + 1.0;
    }
    let pad = if x_labels.is_some() { 0.5 } else { 0.0 };
    let f = Frame {
        left: 58.0,
        top: 40.0,
        right: w - 14.0,
        bottom: h - 30.0,
        x: (x0 - pad, x1 + pad),
        y: (0.0, if y1 > 0.0 { y1 * 1.08 } else { 1.0 }),
        log_x,
    };
    axes(b, &f, y_label, title);
    legend(b, &f, &series.iter().map(|s| s.name.clone()).collect::<Vec<_>>());
    // x ticks.
    match x_labels {
        Some(labels) => {
            for (i, l) in labels.iter().enumerate() {
                text(b, l, (f.px(i as f64), f.bottom as i32 + 4), 11.0, HPos::Center, VPos::Top);
            }
        }
        None if log_x => {
            let mut t = 10f64.powf(x0.log10().floor());
            while t <= x1 * 1.0001 {
                if t >= x0 {
                    text(b, &short_num(t), (f.px(t), f.bottom as i32 + 4), 11.0, HPos::Center, VPos::Top);
                }
                t *= 10.0;
            }
        }
        None => {
            let step = fmt::nice_step(x1 - x0, 5.0).max(1e-12);
            let mut t = (x0 / step).ceil() * step;
            while t <= x1 {
                text(b, &short_num(t), (f.px(t), f.bottom as i32 + 4), 11.0, HPos::Center, VPos::Top);
                t += step;
            }
        }
    }
    text(b, x_label, (f.right as i32, f.bottom as i32 + 16), 11.0, HPos::Right, VPos::Top);
    let mut drawn = 0;
    for (i, s) in series.iter().enumerate() {
        let c = color(series_color(i));
        let path: Vec<(i32, i32)> = s.points.iter().filter(|p| p.0.is_finite() && p.1.is_finite()).map(|&(x, y)| (f.px(x), f.py(y))).collect();
        // Earlier series are drawn wider, so identical series stay visible
        // (a thin line inside a wide one) instead of hiding each other.
        let width = 2 + 2 * (series.len() - 1 - i) as u32;
        let _ = b.draw_path(path.iter().copied(), &Stroke(c, width));
        for &(x, y) in &path {
            let _ = b.draw_rect((x - 2, y - 2), (x + 2, y + 2), &c, true);
        }
        drawn += path.len();
    }
    drawn
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The SVG export draws what the canvas draws: one rect per bar (and
    /// per legend entry, and the background), each series' points.
    #[test]
    fn charts_export_as_svg() {
        let configs = vec!["6.6".to_string(), "6.6+sis-filter".to_string()];
        let groups = vec![BarGroup { label: "1 group".into(), bars: vec![Some((1.0, 0.1)), Some((0.9, 0.05))] }];
        let svg = bars_svg(640, 240, "hackbench", "s", &configs, &groups);
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{svg}");
        // background + 2 legend swatches + 2 bars
        assert_eq!(svg.matches("<rect").count(), 5, "{svg}");
        assert!(svg.contains("\nhackbench\n") && svg.contains("\n1 group\n"), "{svg}");
        let series = vec![Series { name: "a".into(), points: vec![(1.0, 0.5), (10.0, 0.9), (100.0, 1.0)] }];
        let svg = lines_svg(640, 240, "cdf", "µs", "fraction", &series, None, true);
        assert_eq!(svg.matches("<polyline").count(), 1, "{svg}");
    }

    #[test]
    fn axis_numbers_are_short() {
        assert_eq!(short_num(0.0), "0");
        assert_eq!(short_num(0.25), "0.25");
        assert_eq!(short_num(2.5), "2.5");
        assert_eq!(short_num(250.0), "250");
        assert_eq!(short_num(25_000.0), "25k");
        assert_eq!(short_num(2_500_000.0), "2.5M");
    }

    #[test]
    fn small_ticks_keep_their_digits() {
        assert_eq!(tick_label(0.0012, 0.0002), "0.0012");
        assert_eq!(tick_label(0.4, 0.2), "0.4");
        assert_eq!(tick_label(2000.0, 500.0), "2000");
    }

    #[test]
    fn frame_maps_ranges_to_pixels() {
        let f = Frame { left: 10.0, top: 0.0, right: 110.0, bottom: 100.0, x: (1.0, 1000.0), y: (0.0, 10.0), log_x: true };
        assert_eq!(f.px(1.0), 10);
        assert_eq!(f.px(1000.0), 110);
        assert_eq!(f.px(10.0), 43); // a third of the way on a log axis
        assert_eq!(f.py(0.0), 100);
        assert_eq!(f.py(10.0), 0);
    }
}
