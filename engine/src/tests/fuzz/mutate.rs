//! The mutator: the shipped scenario files (assets/, engine/tests/data/)
//! and generated scenarios, changed the way a hostile or careless user
//! would change them — bytes flipped, inserted, deleted, duplicated and
//! cut; numbers and strings replaced by extremes; lines dropped, doubled,
//! swapped and borrowed from other files; keys moved to tables they do
//! not belong to; sizes scaled to the limits.

use crate::lab::rng::Rng;

use super::gen::pick;

/// Numbers at the edges of every range the format has.
const NUMBERS: &[&str] = &[
    "0", "1", "-1", "2", "7", "19", "-20", "20", "-21", "40", "99", "100", "255", "1000", "1023", "1024", "4095", "4096", "4097", "10000", "65535",
    "65536", "65537", "262144", "262145", "2147483647", "2147483648", "4294967295", "4294967296", "9223372036854775807", "-9223372036854775808",
    "18446744073709551615", "18446744073709551616", "99999999999999999999999", "0.5", "1e3", "1e400", "-0", "0x10", "0o7", "0b1", "inf", "nan",
];

/// Strings at the edges: durations, distributions, cpulists, names.
const STRINGS: &[&str] = &[
    "", " ", "0", "0s", "0ns", "1ns", "1.5ns", "999999999999999ns", "1000000s", "1000001s", "999999.999999999s", "18446744073709551615ns", "1e3ms",
    "-1ms", "1 ms", "1msx", "µs", "1µs", "1μs", "exp(0ns)", "exp(1000000s)", "uniform(0ns, 1000000s)", "uniform(5ms, 1ms)", "uniform(1ms,)", "exp(",
    "0-4095", "0-4096", "4095", "0-3:2/4", "0-3:0/4", "0-3:5/4", "3-0", ",", "0,,1", "1-", "100%", "0%", "101%", "50.5%", "-5%", "1e9%", "nan%",
    "6.18", "5.15", "6.6", "6.12", "7.0", "1cpu", "xeon-8260-2s", "spr-2s-224", "epyc-ccx", "reweight-fix", "sis-filter", "RUN_TO_PARITY", "on",
    "off", "normal", "batch", "idle", "fifo", "threads", "process", "pipe", "sockets", "tcp", "udp", "hogs", "hackbench", "schbench", "loop { yield }",
    "loop { }", "loop 0 { run }", "loop { send c0; recv c0 }", "loop { loop { loop { loop { yield } } } }", "run; run", "call", "wake", "exit; exit",
    "t0", "t0.0", "t0.99999", "a.b.c", "\\u0000", "\\\\", "\\\"", "日本", "\u{feff}", "\u{202e}",
];

/// Keys of every table, to put where they belong and where they do not.
const KEYS: &[&str] = &[
    "duration", "seed", "kernel", "hz", "patches", "features", "base_slice", "tunable_scaling", "balance_phases", "costs", "preset", "sockets", "llcs_per_socket",
    "cores_per_llc", "threads_per_core", "name", "count", "nice", "policy", "slice", "affinity", "start", "program", "group", "want_preempt",
    "process", "parent", "weight", "shares", "idle", "capacity", "kind", "base", "compare", "seeds", "load", "loads", "cases", "metric", "groups",
    "fds", "loops", "datasize", "mode", "ipc", "workers", "message_threads", "threads", "instances", "work", "sleep", "jitter", "cpu", "window",
    "proto", "write_cost", "read_cost", "send_cost", "recv_cost", "client_work", "server_work", "wake_cost", "wait_cost", "kill_cost", "handle_cost",
    "sync",
];

const HEADERS: &[&str] = &["[sim]", "[topology]", "[[task]]", "[[group]]", "[[channel]]", "[[workload]]", "[study]", "[sim.costs]", "[sim.features]", "[[study.cases]]"];

/// Byte offsets of the number tokens and of the quoted strings' insides.
fn tokens(text: &str) -> (Vec<(usize, usize)>, Vec<(usize, usize)>) {
    let b = text.as_bytes();
    let (mut nums, mut strs) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'"' {
            let start = i + 1;
            let mut j = start;
            while j < b.len() && b[j] != b'"' && b[j] != b'\n' {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let j = j.min(b.len());
            strs.push((start, j));
            i = j + 1;
        } else if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_alphanumeric()) {
            let start = if i > 0 && b[i - 1] == b'-' { i - 1 } else { i };
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'_') {
                j += 1;
            }
            nums.push((start, j));
            i = j;
        } else {
            i += 1;
        }
    }
    (nums, strs)
}

fn splice(text: &str, (a, b): (usize, usize), with: &str) -> String {
    match (text.get(..a), text.get(b..)) {
        (Some(x), Some(y)) => format!("{x}{with}{y}"),
        _ => text.to_string(),
    }
}

/// One structural change.
fn once(r: &mut Rng, text: &str, donor: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let line = |r: &mut Rng| r.uniform(0, lines.len().max(1) as u64 - 1) as usize;
    match r.uniform(0, 15) {
        // A number replaced by an extreme.
        0 | 1 => {
            let (nums, _) = tokens(text);
            if nums.is_empty() {
                return text.to_string();
            }
            let at = *pick(r, &nums);
            splice(text, at, *pick(r, NUMBERS))
        }
        // A string's inside replaced.
        2 | 3 => {
            let (_, strs) = tokens(text);
            if strs.is_empty() {
                return text.to_string();
            }
            let at = *pick(r, &strs);
            let with = match r.uniform(0, 9) {
                0 => "x".repeat(r.uniform(60, 100_000) as usize),
                1 => format!("{}{}", pick(r, STRINGS), pick(r, STRINGS)),
                _ => pick(r, STRINGS).to_string(),
            };
            splice(text, at, &with)
        }
        // A line dropped, doubled, or two swapped.
        4 if !lines.is_empty() => {
            let i = line(r);
            lines.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, l)| *l).collect::<Vec<_>>().join("\n")
        }
        5 if !lines.is_empty() => {
            let i = line(r);
            let mut v = lines.clone();
            v.insert(i, lines[i]);
            v.join("\n")
        }
        6 if lines.len() > 1 => {
            let (i, j) = (line(r), line(r));
            let mut v = lines.clone();
            v.swap(i, j);
            v.join("\n")
        }
        // A line or a block from another file.
        7 => {
            let d: Vec<&str> = donor.lines().collect();
            if d.is_empty() {
                return text.to_string();
            }
            let a = r.uniform(0, d.len() as u64 - 1) as usize;
            let b = (a + r.uniform(1, 12) as usize).min(d.len());
            let mut v = lines.clone();
            let at = if v.is_empty() { 0 } else { line(r) };
            for (k, l) in d[a..b].iter().enumerate() {
                v.insert((at + k).min(v.len()), l);
            }
            v.join("\n")
        }
        // A key where it belongs, or where it does not.
        8 | 9 => {
            let key = pick(r, KEYS);
            let value = match r.uniform(0, 3) {
                0 => pick(r, NUMBERS).to_string(),
                1 => "true".to_string(),
                2 => "[1, 2]".to_string(),
                _ => format!("\"{}\"", pick(r, STRINGS)),
            };
            let mut v = lines.clone();
            let new = format!("{key} = {value}");
            let at = if v.is_empty() { 0 } else { line(r) + 1 };
            v.insert(at.min(v.len()), &new);
            v.join("\n")
        }
        // A table header inserted, or a block of tables repeated.
        10 => {
            let mut v = lines.clone();
            let at = if v.is_empty() { 0 } else { line(r) };
            v.insert(at, *pick(r, HEADERS));
            v.join("\n")
        }
        11 => {
            let starts: Vec<usize> = lines.iter().enumerate().filter(|(_, l)| l.starts_with("[[")).map(|(i, _)| i).collect();
            if starts.is_empty() {
                return text.to_string();
            }
            let s = *pick(r, &starts);
            let e = lines[s + 1..].iter().position(|l| l.starts_with('[')).map_or(lines.len(), |k| s + 1 + k);
            let block = lines[s..e].join("\n");
            let times = if r.uniform(0, 4) == 0 { r.uniform(5, 40) } else { 1 };
            let mut out = text.to_string();
            for _ in 0..times {
                out.push('\n');
                out.push_str(&block);
            }
            out
        }
        // Sizes scaled to the limits.
        12 => {
            let (k, v) = *pick(
                r,
                &[
                    ("count", "65536"),
                    ("groups", "1024"),
                    ("fds", "1024"),
                    ("workers", "65536"),
                    ("threads", "200%"),
                    ("instances", "4096"),
                    ("sockets", "1024"),
                    ("cores_per_llc", "1024"),
                    ("llcs_per_socket", "64"),
                    ("threads_per_core", "8"),
                    ("loops", "4294967296"),
                    ("duration", "\"1000000s\""),
                    ("work", "\"1000000s\""),
                    ("jitter", "\"100%\""),
                    ("capacity", "1099511627776"),
                ],
            );
            let mut v2 = lines.clone();
            let new = format!("{k} = {v}");
            let at = if v2.is_empty() { 0 } else { line(r) + 1 };
            v2.insert(at.min(v2.len()), &new);
            v2.join("\n")
        }
        // Bytes: flipped, inserted, deleted, cut.
        _ => {
            let mut bytes = text.as_bytes().to_vec();
            let at = r.uniform(0, bytes.len() as u64) as usize;
            match r.uniform(0, 4) {
                0 if at < bytes.len() => bytes[at] = *pick(r, b"{}[]()\"'#;,:.=-_\\\n 0123456789.%"),
                1 => bytes.insert(at, *pick(r, b"{}[]()\"'#;,=\n 09")),
                2 if at < bytes.len() => {
                    let end = (at + r.uniform(1, 40) as usize).min(bytes.len());
                    bytes.drain(at..end);
                }
                3 => bytes.truncate(at),
                _ if at < bytes.len() => bytes[at] ^= 1 << r.uniform(0, 6),
                _ => {}
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }
    }
}

/// One to four changes to `base`, borrowing from `donor`.
pub(crate) fn mutate(r: &mut Rng, base: &str, donor: &str) -> String {
    let mut text = base.to_string();
    for _ in 0..r.uniform(1, 4) {
        text = once(r, &text, donor);
    }
    text
}
