//! Formatting numbers for the views (no scheduler math: the engine gives
//! the numbers, these only turn them into text).

use schedlab_engine::kernel::sched::weight::sdiff;

/// Nanoseconds as milliseconds with three decimals, e.g. "12.345 ms".
pub fn ms(ns: u64) -> String {
    format!("{:.3} ms", ns as f64 / 1e6)
}

/// Signed nanoseconds as milliseconds with three decimals and a sign.
pub fn ms_signed(ns: i64) -> String {
    format!("{:+.3} ms", ns as f64 / 1e6)
}

/// A virtual time relative to a base (the CPU's min_vruntime), in ms.
pub fn rel(x: u64, base: u64) -> f64 {
    sdiff(x, base) as f64 / 1e6
}

/// [`rel`] as text with three decimals.
pub fn rel_s(x: u64, base: u64) -> String {
    format!("{:.3}", rel(x, base))
}

/// A duration picked for an axis or a speed label: "250 µs", "1.5 ms", "2 s".
pub fn duration_short(ns: f64) -> String {
    let a = ns.abs();
    let (v, unit) = if a >= 1e9 {
        (ns / 1e9, "s")
    } else if a >= 1e6 {
        (ns / 1e6, "ms")
    } else if a >= 1e3 {
        (ns / 1e3, "µs")
    } else {
        (ns, "ns")
    };
    let s = if v.fract().abs() < 1e-9 {
        format!("{v:.0}")
    } else if (v * 10.0).fract().abs() < 1e-9 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    };
    format!("{s} {unit}")
}

/// A "nice" axis step (1, 2 or 5 × 10^k) for about `target` ticks.
pub fn nice_step(span: f64, target: f64) -> f64 {
    if span <= 0.0 || !span.is_finite() {
        return 1.0;
    }
    let raw = span / target.max(1.0);
    let mag = 10f64.powf(raw.log10().floor());
    let f = raw / mag;
    let m = if f < 1.5 {
        1.0
    } else if f < 3.5 {
        2.0
    } else if f < 7.5 {
        5.0
    } else {
        10.0
    };
    m * mag
}

/// A colour per task: hues spread by the golden angle, quantised to a
/// palette of [`PALETTE`] entries so the timeline can batch by colour.
pub const PALETTE: usize = 24;

pub fn palette_index(task: u32) -> usize {
    task as usize % PALETTE
}

/// The RGB of palette entry `i` (hues by the golden angle, two
/// lightnesses alternating).
pub fn palette_rgb(i: usize) -> (u8, u8, u8) {
    let hue = (i as f64 * 137.508) % 360.0;
    let light = if i.is_multiple_of(2) { 0.52 } else { 0.62 };
    hsl_to_rgb(hue, 0.62, light)
}

/// The CSS colour of palette entry `i`.
pub fn palette_color(i: usize) -> String {
    let (r, g, b) = palette_rgb(i);
    format!("rgb({r},{g},{b})")
}

/// HSL (degrees, 0..1, 0..1) to RGB.
pub fn hsl_to_rgb(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = (h % 360.0) / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    (to(r), to(g), to(b))
}

/// "#rrggbb" to RGB (black if malformed).
pub fn hex_rgb(s: &str) -> (u8, u8, u8) {
    let h = s.trim_start_matches('#');
    let p = |i: usize| {
        h.get(i..i + 2)
            .and_then(|x| u8::from_str_radix(x, 16).ok())
            .unwrap_or(0)
    };
    (p(0), p(2), p(4))
}

pub fn task_color(task: u32) -> String {
    palette_color(palette_index(task))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(ms(12_345_678), "12.346 ms");
        assert_eq!(ms_signed(-1_500_000), "-1.500 ms");
        assert_eq!(ms_signed(2_000), "+0.002 ms");
        assert_eq!(rel_s(5_000_000u64.wrapping_sub(1), u64::MAX), "5.000");
        assert_eq!(duration_short(250_000.0), "250 µs");
        assert_eq!(duration_short(1_500_000.0), "1.5 ms");
        assert_eq!(duration_short(2e9), "2 s");
        assert_eq!(nice_step(10.0, 5.0), 2.0);
        assert_eq!(nice_step(0.7, 7.0), 0.1);
        assert_ne!(palette_color(0), palette_color(1));
        assert_eq!(hsl_to_rgb(0.0, 1.0, 0.5), (255, 0, 0));
        assert_eq!(hsl_to_rgb(120.0, 1.0, 0.5), (0, 255, 0));
        assert_eq!(hsl_to_rgb(240.0, 1.0, 0.25), (0, 0, 128));
        assert_eq!(hex_rgb("#0d74ce"), (13, 116, 206));
    }
}
