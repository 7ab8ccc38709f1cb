//! Duration literals: "750us", "4ms", "1.5ms", "2s", "12ns".

/// Nanoseconds per second.
const NS_PER_SEC: u64 = 1_000_000_000;

/// The largest duration a scenario may name: 1 000 000 s.
pub const MAX_DURATION_NS: u64 = 1_000_000 * NS_PER_SEC;

/// Units from the largest down; `format_duration` writes only the ASCII spellings.
const UNITS: [(&str, u64); 4] = [
    ("s", NS_PER_SEC),
    ("ms", 1_000_000),
    ("us", 1_000),
    ("ns", 1),
];

fn unit_ns(unit: &str) -> Option<u64> {
    match unit {
        "ns" => Some(1),
        // "µs" with the micro sign (U+00B5) or the Greek mu (U+03BC).
        "us" | "\u{b5}s" | "\u{3bc}s" => Some(1_000),
        "ms" => Some(1_000_000),
        "s" => Some(NS_PER_SEC),
        _ => None,
    }
}

/// Parses a duration with a unit (`ns`, `us`/`µs`, `ms`, `s`) into nanoseconds.
///
/// A decimal fraction is allowed when the result is a whole number of
/// nanoseconds ("1.5ms", "0.25s"); negative values, a missing unit and values
/// above 1 000 000 s are rejected. Surrounding whitespace is ignored.
pub fn parse_duration(s: &str) -> Result<u64, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("empty duration; use a unit: \"4ms\"".to_string());
    }
    if t.starts_with('-') {
        return Err(format!(
            "invalid duration `{t}`: durations cannot be negative"
        ));
    }
    let num_end = t
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.'))
        .map_or(t.len(), |(i, _)| i);
    let (num, unit) = t.split_at(num_end);
    if num.is_empty() {
        return Err(format!(
            "invalid duration `{t}`: expected a number with a unit, e.g. \"4ms\""
        ));
    }
    let unit_ns = match unit_ns(unit) {
        Some(u) => u,
        None if unit.is_empty() => {
            return Err(format!(
                "invalid duration `{t}`: missing unit; use a unit: \"{t}ms\" (ns, us, ms or s)"
            ))
        }
        None if unit_ns(unit.trim_start()).is_some() => {
            return Err(format!(
                "invalid duration `{t}`: write it without a space: \"{num}{}\"",
                unit.trim_start()
            ))
        }
        None => {
            return Err(format!(
                "invalid duration `{t}`: unknown unit `{unit}`; use ns, us, ms or s"
            ))
        }
    };
    let (int_part, frac_part) = match num.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (num, None),
    };
    if int_part.is_empty() || frac_part.is_some_and(|f| f.is_empty() || f.contains('.')) {
        return Err(format!("invalid duration `{t}`: malformed number `{num}`"));
    }
    let too_large = || format!("invalid duration `{t}`: too large (at most 1000000s)");
    let int_digits = int_part.trim_start_matches('0');
    if int_digits.len() > 20 {
        return Err(too_large());
    }
    let int_val: u128 = if int_digits.is_empty() {
        0
    } else {
        int_digits.parse().map_err(|_| too_large())?
    };
    let mut total = int_val
        .checked_mul(u128::from(unit_ns))
        .ok_or_else(too_large)?;
    if let Some(f) = frac_part {
        let f = f.trim_end_matches('0');
        if !f.is_empty() {
            // After stripping trailing zeros, more than 9 fractional digits can
            // never give whole nanoseconds (the largest unit is 10^9 ns).
            let not_whole = || format!("invalid duration `{t}`: not a whole number of nanoseconds");
            if f.len() > 9 {
                return Err(not_whole());
            }
            let frac_val: u128 = f.parse().map_err(|_| not_whole())?;
            let scale = 10u128.pow(f.len() as u32);
            let scaled = frac_val * u128::from(unit_ns);
            if !scaled.is_multiple_of(scale) {
                return Err(not_whole());
            }
            total += scaled / scale;
        }
    }
    if total > u128::from(MAX_DURATION_NS) {
        return Err(too_large());
    }
    u64::try_from(total).map_err(|_| too_large())
}

/// Formats nanoseconds as the shortest exact duration literal that
/// `parse_duration` reads back: "750us", "4ms", "1.5ms", "2s", "12ns", "0s".
///
/// On equal length a form without a decimal point wins, then the larger unit.
pub fn format_duration(ns: u64) -> String {
    if ns == 0 {
        return "0s".to_string();
    }
    let mut best: Option<(String, bool)> = None;
    for (name, unit) in UNITS {
        let int = ns / unit;
        let frac = ns % unit;
        let text = if frac == 0 {
            format!("{int}{name}")
        } else {
            let width = unit.ilog10() as usize;
            let digits = format!("{frac:0width$}");
            format!("{int}.{}{name}", digits.trim_end_matches('0'))
        };
        let has_point = frac != 0;
        let better = match &best {
            None => true,
            Some((b, b_point)) => {
                text.len() < b.len() || (text.len() == b.len() && *b_point && !has_point)
            }
        };
        if better {
            best = Some((text, has_point));
        }
    }
    best.map(|(s, _)| s).unwrap_or_else(|| format!("{ns}ns"))
}
