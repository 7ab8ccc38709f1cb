//! Charts of the study page, drawn with plotters-canvas's canvas backend:
//! bars with error bars (grouped by load) and line charts (latency CDFs,
//! switch rates). The numbers come from the engine's study results; this
//! only maps them to pixels.
//!
//! On the page a chart is drawn at its shown CSS size times the device
//! pixel ratio, in the page's theme (the canvas's CSS background, text and
//! border colours, so dark mode too). Exported SVG files use the light
//! theme whatever the page's mode; the study worker draws them
//! ([`ChartSvg`], so plotters-svg is not in the page's .wasm).

use plotters_backend::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{BackendColor, BackendStyle, BackendTextStyle, DrawingBackend, FontFamily, FontTransform};
use plotters_canvas::CanvasBackend;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsCast;

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

type Rgb = (u8, u8, u8);

/// The colours a chart is drawn in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Theme {
    pub bg: Rgb,
    /// Axes, text and error bars.
    pub ink: Rgb,
    pub grid: Rgb,
}

impl Theme {
    /// The light theme (exported files, and a page without its CSS).
    pub const LIGHT: Theme = Theme { bg: (255, 255, 255), ink: (60, 64, 70), grid: (215, 218, 222) };

    /// The theme the page shows `el` in: its CSS background, text and
    /// border colours (style.css sets them from the theme's variables).
    pub fn of(el: &web_sys::Element) -> Theme {
        let style = web_sys::window().and_then(|w| w.get_computed_style(el).ok().flatten());
        let get = |prop: &str, light: Rgb| style.as_ref().and_then(|s| s.get_property_value(prop).ok()).and_then(|v| parse_rgb(&v)).unwrap_or(light);
        let l = Theme::LIGHT;
        Theme { bg: get("background-color", l.bg), ink: get("color", l.ink), grid: get("border-top-color", l.grid) }
    }

    /// A dark background (by its luma, ITU-R BT.601 weights).
    pub fn dark(&self) -> bool {
        let (r, g, b) = self.bg;
        299 * r as u32 + 587 * g as u32 + 114 * (b as u32) < 128_000
    }

    /// Series `i`'s colour: the palette's, but the baseline's grey lighter
    /// on a dark background (the palette's grey is too close to it).
    pub fn series(&self, i: usize) -> Rgb {
        if i % SERIES.len() == 0 && self.dark() {
            (150, 157, 165)
        } else {
            series_color(i)
        }
    }
}

/// An opaque colour as `getComputedStyle` writes it: `rgb(r, g, b)` (or
/// `rgba(r, g, b, 1)`); None for anything else (transparent, say).
pub fn parse_rgb(s: &str) -> Option<Rgb> {
    let s = s.trim();
    let inner = s.strip_prefix("rgba(").or_else(|| s.strip_prefix("rgb("))?.strip_suffix(')')?;
    let parts: Vec<&str> = inner.split([',', ' ', '/']).filter(|p| !p.is_empty()).collect();
    match parts[..] {
        [r, g, b] | [r, g, b, "1"] => Some((r.parse().ok()?, g.parse().ok()?, b.parse().ok()?)),
        _ => None,
    }
}

/// Font sizes in CSS px: tick labels and legend, and titles.
const LABEL_PX: f64 = 12.0;
const TITLE_PX: f64 = 13.0;
/// How much larger a chart is drawn in projector mode: 12 px labels at 18 px.
const BIG_ZOOM: f64 = 1.5;

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

fn text<B: DrawingBackend>(b: &mut B, t: &Theme, s: &str, at: (i32, i32), size: f64, h: HPos, v: VPos) {
    let style = Text { size, color: color(t.ink), anchor: Pos::new(h, v), rotate: false };
    let _ = b.draw_text(s, &style, at);
}

/// A chart's canvas, sized to its shown box and cleared: a backend that
/// draws in CSS px, that box's width and height, and the page's theme.
struct Prepared {
    backend: CanvasBackend,
    w: f64,
    h: f64,
    theme: Theme,
}

/// Sizes the canvas's bitmap to its shown size (CSS px, from style.css)
/// times the device pixel ratio, scales its context so that drawing is in
/// CSS px, and clears it in the theme's background. In projector mode
/// (the canvas is inside `.app.big`) everything is drawn [`BIG_ZOOM`]
/// times larger: labels of 12 px become 18 px; style.css makes such a
/// canvas as much larger, so the chart keeps its layout.
fn prepare(canvas: &web_sys::HtmlCanvasElement) -> Option<Prepared> {
    let zoom = if canvas.closest(".app.big").ok().flatten().is_some() { BIG_ZOOM } else { 1.0 };
    let w = match canvas.client_width() {
        0 => canvas.parent_element().map_or(600, |p| p.client_width()),
        w => w,
    }
    .clamp(120, 4000) as f64;
    let h = match canvas.client_height() {
        0 => 240,
        h => h,
    }
    .clamp(120, 2000) as f64;
    let dpr = web_sys::window().map_or(1.0, |w| w.device_pixel_ratio()).clamp(0.5, 4.0);
    let (pw, ph) = ((w * dpr).round() as u32, (h * dpr).round() as u32);
    if canvas.width() != pw || canvas.height() != ph {
        canvas.set_width(pw);
        canvas.set_height(ph);
    }
    let g: web_sys::CanvasRenderingContext2d = canvas.get_context("2d").ok()??.dyn_into().ok()?;
    let _ = g.set_transform(dpr * zoom, 0.0, 0.0, dpr * zoom, 0.0, 0.0);
    let (w, h) = (w / zoom, h / zoom);
    let theme = Theme::of(canvas);
    let mut backend = CanvasBackend::with_canvas_object(canvas.clone())?;
    let _ = backend.draw_rect((0, 0), (w as i32 + 1, h as i32 + 1), &color(theme.bg), true);
    Some(Prepared { backend, w, h, theme })
}

/// Axes, grid and y tick labels of a frame.
fn axes<B: DrawingBackend>(b: &mut B, t: &Theme, f: &Frame, y_label: &str, title: &str) {
    let step = fmt::nice_step(f.y.1 - f.y.0, 5.0).max(1e-12);
    let mut y = (f.y.0 / step).ceil() * step;
    let mut n = 0;
    while y <= f.y.1 + step * 1e-9 && n < 20 {
        let py = f.py(y);
        let _ = b.draw_line((f.left as i32, py), (f.right as i32, py), &Stroke(color(t.grid), 1));
        text(b, t, &tick_label(y, step), (f.left as i32 - 4, py), LABEL_PX, HPos::Right, VPos::Center);
        y += step;
        n += 1;
    }
    let _ = b.draw_line((f.left as i32, f.top as i32), (f.left as i32, f.bottom as i32), &Stroke(color(t.ink), 1));
    let _ = b.draw_line((f.left as i32, f.bottom as i32), (f.right as i32, f.bottom as i32), &Stroke(color(t.ink), 1));
    let style = Text { size: LABEL_PX, color: color(t.ink), anchor: Pos::new(HPos::Center, VPos::Top), rotate: true };
    let _ = b.draw_text(y_label, &style, (4, ((f.top + f.bottom) / 2.0) as i32));
    text(b, t, title, (f.left as i32 - 50, 4), TITLE_PX, HPos::Left, VPos::Top);
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

/// The legend, right-aligned under the title: a swatch and a name per
/// series.
fn legend<B: DrawingBackend>(b: &mut B, t: &Theme, f: &Frame, names: &[String]) {
    let item = |n: &String| 26 + (n.chars().count() as f64 * LABEL_PX * 0.55) as i32;
    let width: i32 = names.iter().map(item).sum();
    let mut x = (f.right as i32 - width).max(f.left as i32);
    for (i, n) in names.iter().enumerate() {
        let c = color(t.series(i));
        let _ = b.draw_rect((x, 21), (x + 12, 33), &c, true);
        text(b, t, n, (x + 16, 27), LABEL_PX, HPos::Left, VPos::Center);
        x += item(n);
    }
}

/// One group of bars (one load level): per configuration, mean and std.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BarGroup {
    pub label: String,
    pub bars: Vec<Option<(f64, f64)>>,
}

/// Bars with error bars (mean ± std), grouped; returns the number of bars
/// drawn.
pub fn draw_bars(canvas: &web_sys::HtmlCanvasElement, title: &str, y_label: &str, configs: &[String], groups: &[BarGroup]) -> usize {
    let Some(mut p) = prepare(canvas) else { return 0 };
    bars_on(&mut p.backend, &p.theme, p.w, p.h, title, y_label, configs, groups)
}

/// A chart to draw as an SVG file of `w` × `h` px (the study worker's
/// [`crate::worker::Request::ChartSvg`]). Values must be finite (JSON has
/// no NaN).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "chart", rename_all = "lowercase")]
pub enum ChartSvg {
    Bars { w: u32, h: u32, title: String, y_label: String, configs: Vec<String>, groups: Vec<BarGroup> },
    Lines { w: u32, h: u32, title: String, x_label: String, y_label: String, series: Vec<Series>, x_labels: Option<Vec<String>>, log_x: bool },
}

impl ChartSvg {
    pub fn render(&self) -> String {
        match self {
            ChartSvg::Bars { w, h, title, y_label, configs, groups } => bars_svg(*w, *h, title, y_label, configs, groups),
            ChartSvg::Lines { w, h, title, x_label, y_label, series, x_labels, log_x } => {
                lines_svg(*w, *h, title, x_label, y_label, series, x_labels.as_deref(), *log_x)
            }
        }
    }
}

/// [`draw_bars`] as an SVG document of `w` × `h` px.
pub fn bars_svg(w: u32, h: u32, title: &str, y_label: &str, configs: &[String], groups: &[BarGroup]) -> String {
    svg_doc(w, h, |b| {
        bars_on(b, &Theme::LIGHT, w as f64, h as f64, title, y_label, configs, groups);
    })
}

/// Draws on an SVG backend on the light theme's background.
fn svg_doc(w: u32, h: u32, f: impl FnOnce(&mut plotters_svg::SVGBackend)) -> String {
    let mut out = String::new();
    {
        let mut b = plotters_svg::SVGBackend::with_string(&mut out, (w, h));
        let _ = b.draw_rect((0, 0), (w as i32, h as i32), &color(Theme::LIGHT.bg), true);
        f(&mut b);
        let _ = b.present();
    }
    out
}

/// Bars side by side in each group, one colour per configuration (so equal
/// bars stand next to each other, never on top of each other).
#[allow(clippy::too_many_arguments)]
fn bars_on<B: DrawingBackend>(b: &mut B, t: &Theme, w: f64, h: f64, title: &str, y_label: &str, configs: &[String], groups: &[BarGroup]) -> usize {
    let top = groups
        .iter()
        .flat_map(|g| g.bars.iter().flatten())
        .map(|(m, s)| m + s)
        .fold(0.0f64, f64::max);
    let f = Frame { left: 58.0, top: 40.0, right: w - 10.0, bottom: h - 26.0, x: (0.0, 1.0), y: (0.0, if top > 0.0 { top * 1.1 } else { 1.0 }), log_x: false };
    axes(b, t, &f, y_label, title);
    legend(b, t, &f, configs);
    let gw = (f.right - f.left) / groups.len().max(1) as f64;
    let n = configs.len().max(1) as f64;
    let bw = (gw * 0.8 / n).max(2.0);
    let mut drawn = 0;
    for (gi, g) in groups.iter().enumerate() {
        let x0 = f.left + gw * gi as f64 + gw * 0.1;
        for (ci, bar) in g.bars.iter().enumerate() {
            let Some((m, s)) = *bar else { continue };
            let (xa, xb) = ((x0 + bw * ci as f64) as i32, (x0 + bw * (ci as f64 + 1.0) - 2.0) as i32);
            let _ = b.draw_rect((xa, f.py(m)), (xb.max(xa + 1), f.py(0.0)), &color(t.series(ci)), true);
            // The error bar: mean ± std, with whiskers.
            let xm = (xa + xb) / 2;
            let (ya, yb) = (f.py(m + s), f.py((m - s).max(f.y.0)));
            let ink = Stroke(color(t.ink), 1);
            let _ = b.draw_line((xm, ya), (xm, yb), &ink);
            let _ = b.draw_line((xm - 3, ya), (xm + 3, ya), &ink);
            let _ = b.draw_line((xm - 3, yb), (xm + 3, yb), &ink);
            drawn += 1;
        }
        text(b, t, &g.label, ((f.left + gw * (gi as f64 + 0.5)) as i32, f.bottom as i32 + 4), LABEL_PX, HPos::Center, VPos::Top);
    }
    drawn
}

/// One line of a line chart.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
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
    let Some(mut p) = prepare(canvas) else { return 0 };
    lines_on(&mut p.backend, &p.theme, p.w, p.h, title, x_label, y_label, series, x_labels, log_x)
}

/// [`draw_lines`] as an SVG document of `w` × `h` px.
#[allow(clippy::too_many_arguments)]
pub fn lines_svg(w: u32, h: u32, title: &str, x_label: &str, y_label: &str, series: &[Series], x_labels: Option<&[String]>, log_x: bool) -> String {
    svg_doc(w, h, |b| {
        lines_on(b, &Theme::LIGHT, w as f64, h as f64, title, x_label, y_label, series, x_labels, log_x);
    })
}

#[allow(clippy::too_many_arguments)]
fn lines_on<B: DrawingBackend>(
    b: &mut B,
    t: &Theme,
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
    axes(b, t, &f, y_label, title);
    legend(b, t, &f, &series.iter().map(|s| s.name.clone()).collect::<Vec<_>>());
    // x ticks.
    match x_labels {
        Some(labels) => {
            for (i, l) in labels.iter().enumerate() {
                text(b, t, l, (f.px(i as f64), f.bottom as i32 + 4), LABEL_PX, HPos::Center, VPos::Top);
            }
        }
        None if log_x => {
            let mut x = 10f64.powf(x0.log10().floor());
            while x <= x1 * 1.0001 {
                if x >= x0 {
                    text(b, t, &short_num(x), (f.px(x), f.bottom as i32 + 4), LABEL_PX, HPos::Center, VPos::Top);
                }
                x *= 10.0;
            }
        }
        None => {
            let step = fmt::nice_step(x1 - x0, 5.0).max(1e-12);
            let mut x = (x0 / step).ceil() * step;
            while x <= x1 {
                text(b, t, &short_num(x), (f.px(x), f.bottom as i32 + 4), LABEL_PX, HPos::Center, VPos::Top);
                x += step;
            }
        }
    }
    text(b, t, x_label, (f.right as i32, f.bottom as i32 + 17), LABEL_PX, HPos::Right, VPos::Top);
    let mut drawn = 0;
    for (i, s) in series.iter().enumerate() {
        let c = color(t.series(i));
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
        // Exported in the light theme: a white background, dark text.
        assert!(svg.contains(r##"<rect x="0" y="0" width="640" height="240" opacity="1" fill="#FFFFFF""##), "{svg}");
        assert!(svg.contains(r##"fill="#3C4046">
hackbench"##), "{svg}");
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

    /// x, width, height and fill of each `<rect>` of an SVG.
    fn rects(svg: &str) -> Vec<(i32, i32, i32, String)> {
        svg.lines()
            .filter(|l| l.starts_with("<rect"))
            .map(|l| {
                let a = |k: &str| l.split(&format!(" {k}=\"")).nth(1).and_then(|r| r.split('"').next()).unwrap_or("").to_string();
                (a("x").parse().unwrap(), a("width").parse().unwrap(), a("height").parse().unwrap(), a("fill"))
            })
            .collect()
    }

    /// Two configurations with equal bars in every group: each group has
    /// two bars side by side (disjoint x ranges, both the same height, the
    /// two series' colours), so neither hides the other.
    #[test]
    fn identical_bars_stand_side_by_side() {
        let configs = vec!["6.6".to_string(), "6.6+sis-filter".to_string(), "6.6+other".to_string()];
        let groups: Vec<BarGroup> = (1..=2)
            .map(|g| BarGroup { label: format!("{g} groups"), bars: vec![Some((1.0, 0.1)), Some((1.0, 0.1)), Some((0.5, 0.0))] })
            .collect();
        let svg = bars_svg(640, 240, "hackbench", "s", &configs, &groups);
        // Bars: neither the background (full width) nor a legend swatch (12 px high).
        let bars: Vec<_> = rects(&svg).into_iter().filter(|r| r.2 > 12 && r.1 < 640).collect();
        assert_eq!(bars.len(), 6, "{svg}");
        for g in bars.chunks(3) {
            let (a, b) = (&g[0], &g[1]);
            assert!(a.0 + a.1 <= b.0, "the equal bars overlap: {a:?} {b:?}");
            assert_eq!(a.2, b.2, "equal means, equal heights");
            assert_eq!((a.3.as_str(), b.3.as_str()), ("#606770", "#2A6FDB"), "grey and blue");
            assert!(g[2].2 < a.2, "the third is lower");
        }
    }

    /// Identical line series: the earlier one is drawn wider, so both show.
    #[test]
    fn identical_lines_are_widened_and_named() {
        let pts = vec![(1.0, 0.5), (10.0, 0.9), (100.0, 1.0)];
        let series = vec![Series { name: "a".into(), points: pts.clone() }, Series { name: "b".into(), points: pts }];
        let svg = lines_svg(640, 240, "cdf", "µs", "fraction", &series, None, true);
        assert!(svg.contains(r##"stroke="#606770" stroke-width="4""##) && svg.contains(r##"stroke="#2A6FDB" stroke-width="2""##), "{svg}");
    }

    #[test]
    fn computed_colours_parse() {
        assert_eq!(parse_rgb("rgb(28, 31, 35)"), Some((28, 31, 35)));
        assert_eq!(parse_rgb(" rgba(230, 231, 233, 1) "), Some((230, 231, 233)));
        assert_eq!(parse_rgb("rgb(28 31 35 / 1)"), Some((28, 31, 35)));
        // Transparent: the caller's light default instead.
        assert_eq!(parse_rgb("rgba(0, 0, 0, 0)"), None);
        assert_eq!(parse_rgb("#1c1f23"), None);
        assert_eq!(parse_rgb("rgb(1, 2)"), None);
    }

    /// Dark by luma: the dark theme's panel (28, 31, 35) has
    /// 0.299·28 + 0.587·31 + 0.114·35 = 30.6 < 128; white has 255.
    #[test]
    fn dark_backgrounds_get_a_lighter_baseline() {
        let dark = Theme { bg: (28, 31, 35), ink: (230, 231, 233), grid: (51, 55, 61) };
        assert!(dark.dark() && !Theme::LIGHT.dark());
        assert_eq!(Theme::LIGHT.series(0), SERIES[0].0);
        assert_ne!(dark.series(0), SERIES[0].0);
        assert_eq!(dark.series(1), SERIES[1].0);
    }
}
