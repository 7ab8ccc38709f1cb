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

/// A colour per task, the same in the timeline, the trees, the bars and
/// the task legend: Paul Tol's "light" scheme (designed to stay apart
/// under the common colour-vision deficiencies), light so that the
/// timeline's cause markers, all dark (see `views::timeline::mark_color`),
/// never collide with a task (`tests::task_and_cause_colours_never_collide`).
pub const TASK_COLORS: [(u8, u8, u8); 9] = [
    (0x77, 0xAA, 0xDD), // light blue
    (0xEE, 0x88, 0x66), // orange
    (0x44, 0xBB, 0x99), // mint
    (0xFF, 0xAA, 0xBB), // pink
    (0xBB, 0xCC, 0x33), // pear
    (0x99, 0xDD, 0xFF), // light cyan
    (0xEE, 0xDD, 0x88), // light yellow
    (0xAA, 0xAA, 0x00), // olive
    (0xDD, 0xDD, 0xDD), // pale grey
];

/// Number of task colours (the timeline batches by colour).
pub const PALETTE: usize = TASK_COLORS.len();

pub fn palette_index(task: u32) -> usize {
    task as usize % PALETTE
}

/// The RGB of palette entry `i`.
pub fn palette_rgb(i: usize) -> (u8, u8, u8) {
    TASK_COLORS[i % PALETTE]
}

/// The CSS colour of palette entry `i`.
pub fn palette_color(i: usize) -> String {
    let (r, g, b) = palette_rgb(i);
    format!("rgb({r},{g},{b})")
}

/// CIE L*a*b* of an sRGB colour (D65), for telling colours apart.
pub fn lab((r, g, b): (u8, u8, u8)) -> (f64, f64, f64) {
    let lin = |c: u8| {
        let c = c as f64 / 255.0;
        if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
    };
    let (r, g, b) = (lin(r), lin(g), lin(b));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| if t > 0.008856 { t.cbrt() } else { 7.787 * t + 16.0 / 116.0 };
    (116.0 * f(y) - 16.0, 500.0 * (f(x) - f(y)), 200.0 * (f(y) - f(z)))
}

/// CIE76 colour difference ΔE*ab.
pub fn delta_e(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
    let (p, q) = (lab(a), lab(b));
    ((p.0 - q.0).powi(2) + (p.1 - q.1).powi(2) + (p.2 - q.2).powi(2)).sqrt()
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
        // White is L* 100, black L* 0, and their ΔE is 100.
        assert!((lab((255, 255, 255)).0 - 100.0).abs() < 0.01);
        assert!((delta_e((0, 0, 0), (255, 255, 255)) - 100.0).abs() < 0.01);
    }

    /// Every task colour is far from every cause marker's (ΔE ≥ 25: clearly
    /// different even side by side in thin strokes) and the task colours
    /// are distinct among themselves (ΔE ≥ 10).
    #[test]
    fn task_and_cause_colours_never_collide() {
        use schedlab_engine::lab::timeline::MarkKind;
        for k in MarkKind::ALL {
            let m = hex_rgb(crate::views::timeline::mark_color(k));
            for (i, &t) in TASK_COLORS.iter().enumerate() {
                let d = delta_e(m, t);
                assert!(d >= 25.0, "task colour {i} vs {k:?}: ΔE {d:.1}");
            }
        }
        for (i, &a) in TASK_COLORS.iter().enumerate() {
            for &b in &TASK_COLORS[i + 1..] {
                assert!(delta_e(a, b) >= 10.0, "{a:?} {b:?}");
            }
        }
    }
}
