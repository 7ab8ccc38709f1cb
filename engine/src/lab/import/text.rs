//! One line of scheduler tracepoint text, in the three dialects people
//! have:
//!
//! - `perf sched script`: `COMM PID [CPU] SECS.USECS: sched:EVENT: ARGS`
//!   (the comm right-aligned, may hold spaces; no flags);
//! - the ftrace `trace` file and `trace-cmd report`:
//!   `COMM-PID [(TGID)] [CPU] [FLAGS] SECS.USECS: EVENT: ARGS`, where newer
//!   trace-cmd prints `CPUFLAGS` without brackets (`bash-52501 110d... `);
//!   schedlab's own export is this format with nanoseconds;
//! - arguments either as the kernel's format strings (`prev_comm=X
//!   prev_pid=N ... ==> next_comm=Y ...`, `comm=X pid=N prio=P
//!   target_cpu=C`) or as trace-cmd's sched plugin prints them
//!   (`X:N [P] S ==> Y:N [P]`, `X:N [P] success=1 CPU:005`).
//!
//! Comms may contain spaces, `-`, `:` and brackets, so fields are found by
//! their keys (`prev_comm=` up to ` prev_pid=`) and numbers from the right.

/// How a task left the CPU in a `sched_switch`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LeftAs {
    /// Still runnable (`R`, `R+`): preempted or yielded.
    Runnable,
    /// Blocked (`S`, `D`, `T`, `I`, ... or a non-zero numeric state).
    Blocked,
    /// Dead (`X`, `Z`, `x`, or the TASK_DEAD / EXIT_* bits).
    Dead,
}

/// A tracepoint this importer uses; others are `Other` and skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event<'a> {
    Switch { prev_comm: &'a str, prev_pid: u32, prev_prio: i32, left: LeftAs, next_comm: &'a str, next_pid: u32, next_prio: i32 },
    /// `sched_waking` (`first`) or `sched_wakeup`.
    Waking { comm: &'a str, pid: u32, prio: i32, target_cpu: Option<u32>, first: bool },
    WakeupNew { comm: &'a str, pid: u32, prio: i32, target_cpu: Option<u32> },
    Migrate { comm: &'a str, pid: u32, orig: u32, dest: u32 },
    Exit { comm: &'a str, pid: u32 },
    Other,
}

/// The `pid` of a line whose task the tool could not name (perf's `-1`).
pub const UNKNOWN_PID: u32 = u32::MAX;

/// A parsed line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line<'a> {
    /// The task the line was emitted from (the one running on `cpu`).
    pub comm: &'a str,
    pub pid: u32,
    pub tgid: Option<u32>,
    pub cpu: u32,
    /// The flags say hardirq or softirq context (`h`, `H`, `s`).
    pub irq: bool,
    /// Time in ns.
    pub ts: u64,
    pub event: Event<'a>,
}

/// What a line is, if it is not an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Skip {
    /// Empty, a `#` comment, or a header (`cpus=N`, `version = 6`,
    /// `CPU 0 is empty`, trace-cmd's `TIME EXTEND`).
    Blank,
    /// `cpus=N`: the number of CPUs (trace-cmd's first line).
    Cpus(u32),
}

/// Parses `SECS.FRACTION` into nanoseconds exactly (no float): up to nine
/// fractional digits.
pub fn parse_ts(s: &str) -> Option<u64> {
    let (sec, frac) = s.split_once('.')?;
    if sec.is_empty() || frac.is_empty() || frac.len() > 9 || !sec.bytes().all(|b| b.is_ascii_digit()) || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: u64 = sec.parse().ok()?;
    let f: u64 = frac.parse().ok()?;
    secs.checked_mul(1_000_000_000)?.checked_add(f * 10u64.pow(9 - frac.len() as u32))
}

/// A line's fault: what was expected, for "line N: ...".
pub type Fault = String;

/// Parses one line. `Ok(Err(skip))` for lines that carry no event.
pub fn parse_line(line: &str) -> Result<Result<Line<'_>, Skip>, Fault> {
    let l = line.trim_end_matches(['\r', '\n']);
    let t = l.trim();
    if t.is_empty() || t.starts_with('#') || t.starts_with("version =") || t.starts_with("CPU ") || t.starts_with("TIME EXTEND") {
        return Ok(Err(Skip::Blank));
    }
    if let Some(n) = t.strip_prefix("cpus=") {
        return n.parse::<u32>().map(|n| Err(Skip::Cpus(n))).map_err(|_| format!("`{t}`: expected cpus=NUMBER"));
    }
    // The timestamp is the first token of the form DIGITS.DIGITS: followed
    // by a space; the event name follows it. Find ": " after it.
    let (head, ts, rest) = split_at_timestamp(l).ok_or_else(|| {
        "expected `TASK-PID [CPU] SECONDS.MICROS: EVENT: ARGS` (ftrace, trace-cmd report) or `COMM PID [CPU] SECONDS.MICROS: sched:EVENT: ARGS` (perf sched script)".to_string()
    })?;
    // perf names events `sched:sched_switch`.
    let rest = rest.trim_start();
    let rest = rest.strip_prefix("sched:").unwrap_or(rest);
    let (name, args) = match rest.find(':') {
        Some(i) => (rest[..i].trim(), rest[i + 1..].trim()),
        None => return Err(format!("expected `EVENT: ARGS` after the timestamp, found `{}`", rest.trim())),
    };
    let (comm, pid, tgid, cpu, irq) = parse_head(head)?;
    let event = parse_event(name, args).map_err(|e| format!("{name}: {e}"))?;
    Ok(Ok(Line { comm, pid, tgid, cpu, irq, ts, event }))
}

/// Splits `HEAD TS: REST` at the first `DIGITS.DIGITS:` token.
fn split_at_timestamp(l: &str) -> Option<(&str, u64, &str)> {
    let b = l.as_bytes();
    let mut i = 0;
    while i < b.len() {
        // A token starts after whitespace.
        if (i == 0 || b[i - 1] == b' ' || b[i - 1] == b'\t') && b[i].is_ascii_digit() {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
                j += 1;
            }
            if j < b.len() && b[j] == b':' && j + 1 < b.len() && (b[j + 1] == b' ' || b[j + 1] == b'\t') {
                if let Some(ts) = parse_ts(&l[i..j]) {
                    return Some((&l[..i], ts, &l[j + 1..]));
                }
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    None
}

/// `COMM-PID [(TGID)] [CPU] FLAGS` or `COMM PID [CPU]` or `COMM-PID CPUFLAGS`.
fn parse_head(head: &str) -> Result<(&str, u32, Option<u32>, u32, bool), Fault> {
    let h = head.trim_end();
    let bad = || format!("expected `TASK-PID [CPU]` or `COMM PID [CPU]` before the timestamp, found `{}`", h.trim());
    // The CPU: the last `[digits]`, else trace-cmd's `CPUFLAGS` token.
    let (before, cpu, flags) = match h.rfind('[') {
        Some(open) if h[open..].find(']').is_some_and(|c| c > 1 && h[open + 1..open + c].bytes().all(|b| b.is_ascii_digit())) => {
            let close = open + h[open..].find(']').unwrap();
            let cpu: u32 = h[open + 1..close].parse().map_err(|_| bad())?;
            (&h[..open], cpu, h[close + 1..].trim())
        }
        _ => {
            // `bash-52501   110d... `: the last token is CPU digits then flags.
            let tok_start = h.rfind([' ', '\t']).map_or(0, |i| i + 1);
            let tok = &h[tok_start..];
            let nd = tok.bytes().take_while(|b| b.is_ascii_digit()).count();
            if nd == 0 {
                return Err(bad());
            }
            (&h[..tok_start], tok[..nd].parse().map_err(|_| bad())?, &tok[nd..])
        }
    };
    let irq = flags.len() <= 6 && flags.bytes().any(|b| matches!(b, b'h' | b'H' | b's'));
    let mut task = before.trim_end();
    let mut tgid = None;
    if task.ends_with(')') {
        if let Some(open) = task.rfind('(') {
            let inner = task[open + 1..task.len() - 1].trim();
            if inner.bytes().all(|b| b.is_ascii_digit()) && !inner.is_empty() {
                tgid = inner.parse().ok();
                task = task[..open].trim_end();
            } else if inner.bytes().all(|b| b == b'-') {
                task = task[..open].trim_end();
            }
        }
    }
    let task = task.trim_start();
    // perf: `COMM PID` (whitespace before the pid); ftrace: `COMM-PID`.
    let digits = task.bytes().rev().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits == task.len() {
        return Err(bad());
    }
    let pid: u32 = task[task.len() - digits..].parse().map_err(|_| bad())?;
    let sep = task.as_bytes()[task.len() - digits - 1];
    // perf prints `:-1 -1` for a task it has no comm and pid for (one
    // exiting): a pid of -1 as its own token.
    if sep == b'-' && (task.len() == digits + 1 || matches!(task.as_bytes()[task.len() - digits - 2], b' ' | b'\t')) {
        return Ok((task[..task.len() - digits - 1].trim_end(), UNKNOWN_PID, tgid, cpu, irq));
    }
    let comm = match sep {
        b'-' => &task[..task.len() - digits - 1],
        b' ' | b'\t' => task[..task.len() - digits].trim_end(),
        _ => return Err(bad()),
    };
    Ok((comm, pid, tgid, cpu, irq))
}

/// The value of `key=` in `args`, up to the next ` NEXTKEY=` (comms may
/// hold spaces) or the end.
fn field<'a>(args: &'a str, key: &str, next: Option<&str>) -> Option<&'a str> {
    let start = find_key(args, key)? + key.len() + 1;
    let rest = &args[start..];
    let end = match next {
        Some(n) => find_key(rest, n).map(|i| i.saturating_sub(1)).unwrap_or(rest.len()),
        None => rest.find(' ').unwrap_or(rest.len()),
    };
    Some(rest[..end].trim_end())
}

/// Where `key=` starts in `s` as a whole key (at the start or after a space).
fn find_key(s: &str, key: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(i) = s[from..].find(key) {
        let at = from + i;
        let after = at + key.len();
        if (at == 0 || s.as_bytes()[at - 1] == b' ') && s.as_bytes().get(after) == Some(&b'=') {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

fn num<T: std::str::FromStr>(args: &str, key: &str) -> Result<T, Fault> {
    let v = field(args, key, None).ok_or_else(|| format!("expected `{key}=`"))?;
    v.parse::<T>().map_err(|_| format!("`{key}={v}`: expected a number"))
}

/// `prev_state`: letters (`R`, `R+`, `S`, `D|K`, ...) or a number.
fn left_as(s: &str) -> Result<LeftAs, Fault> {
    let s = s.trim();
    if let Ok(n) = s.parse::<u64>() {
        // TASK_RUNNING 0; EXIT_DEAD 0x10, EXIT_ZOMBIE 0x20, TASK_DEAD 0x80
        // (numeric states of older kernels' format strings).
        return Ok(if n == 0 {
            LeftAs::Runnable
        } else if n & 0xb0 != 0 && n & 0x3 == 0 {
            LeftAs::Dead
        } else {
            LeftAs::Blocked
        });
    }
    if s.is_empty() {
        return Err("empty prev_state".into());
    }
    if s.starts_with('R') {
        return Ok(LeftAs::Runnable);
    }
    if s.contains(['X', 'Z', 'x']) {
        return Ok(LeftAs::Dead);
    }
    if s.bytes().all(|b| b.is_ascii_alphabetic() || b == b'|' || b == b'+') {
        return Ok(LeftAs::Blocked);
    }
    Err(format!("`prev_state={s}`: expected R, S, D, X, Z, ... or a number"))
}

/// trace-cmd's plugin form `COMM:PID [PRIO]`, from the right.
fn plugin_task(s: &str) -> Result<(&str, u32, i32), Fault> {
    let s = s.trim();
    let bad = || format!("`{s}`: expected COMM:PID [PRIO]");
    let open = s.rfind('[').ok_or_else(bad)?;
    let prio: i32 = s[open + 1..].trim_end_matches(']').trim().parse().map_err(|_| bad())?;
    let task = s[..open].trim_end();
    let colon = task.rfind(':').ok_or_else(bad)?;
    let pid: u32 = task[colon + 1..].parse().map_err(|_| bad())?;
    Ok((&task[..colon], pid, prio))
}

fn parse_event<'a>(name: &str, args: &'a str) -> Result<Event<'a>, Fault> {
    Ok(match name {
        "sched_switch" => {
            if find_key(args, "prev_comm").is_some() {
                Event::Switch {
                    prev_comm: field(args, "prev_comm", Some("prev_pid")).unwrap_or(""),
                    prev_pid: num(args, "prev_pid")?,
                    prev_prio: num(args, "prev_prio")?,
                    left: left_as(field(args, "prev_state", None).ok_or("expected `prev_state=`")?)?,
                    next_comm: field(args, "next_comm", Some("next_pid")).ok_or("expected `next_comm=`")?,
                    next_pid: num(args, "next_pid")?,
                    next_prio: num(args, "next_prio")?,
                }
            } else {
                // trace-cmd: `prev:PID [PRIO] STATE ==> next:PID [PRIO]`
                let (a, b) = args.split_once("==>").ok_or("expected `prev_comm=... ==> next_comm=...` or `COMM:PID [PRIO] STATE ==> COMM:PID [PRIO]`")?;
                let a = a.trim();
                let close = a.rfind(']').ok_or("expected `COMM:PID [PRIO] STATE` before `==>`")?;
                let (prev_comm, prev_pid, prev_prio) = plugin_task(&a[..=close])?;
                let (next_comm, next_pid, next_prio) = plugin_task(b.trim())?;
                Event::Switch { prev_comm, prev_pid, prev_prio, left: left_as(&a[close + 1..])?, next_comm, next_pid, next_prio }
            }
        }
        "sched_waking" | "sched_wakeup" | "sched_wakeup_new" => {
            let (comm, pid, prio, target_cpu) = if find_key(args, "pid").is_some() {
                let tc = match field(args, "target_cpu", None) {
                    Some(v) => Some(v.parse().map_err(|_| format!("`target_cpu={v}`: expected a CPU number"))?),
                    None => None,
                };
                (field(args, "comm", Some("pid")).unwrap_or(""), num(args, "pid")?, num(args, "prio").unwrap_or(120), tc)
            } else {
                // trace-cmd: `COMM:PID [PRIO] [success=1] CPU:005`
                let close = args.rfind(']').ok_or("expected `comm=X pid=N prio=P target_cpu=C` or `COMM:PID [PRIO] CPU:NNN`")?;
                let (c, p, pr) = plugin_task(&args[..=close])?;
                let tc = args[close + 1..].split_whitespace().find_map(|w| w.strip_prefix("CPU:")).and_then(|v| v.parse().ok());
                (c, p, pr, tc)
            };
            if name == "sched_wakeup_new" {
                Event::WakeupNew { comm, pid, prio, target_cpu }
            } else {
                Event::Waking { comm, pid, prio, target_cpu, first: name == "sched_waking" }
            }
        }
        "sched_migrate_task" => Event::Migrate {
            comm: field(args, "comm", Some("pid")).unwrap_or(""),
            pid: num(args, "pid")?,
            orig: num(args, "orig_cpu")?,
            dest: num(args, "dest_cpu")?,
        },
        "sched_process_exit" => Event::Exit { comm: field(args, "comm", Some("pid")).unwrap_or(""), pid: num(args, "pid")? },
        _ => Event::Other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(l: &str) -> Line<'_> {
        parse_line(l).unwrap().unwrap()
    }

    #[test]
    fn perf_sched_script_lines() {
        // Recorded on this machine (perf 6.1, `perf sched script`).
        let l = ev("            perf  7713 [000]  2372.461873:       sched:sched_switch: prev_comm=perf prev_pid=7713 prev_prio=120 prev_state=D ==> next_comm=migration/0 next_pid=18 next_prio=0");
        assert_eq!((l.comm, l.pid, l.cpu, l.ts, l.irq), ("perf", 7713, 0, 2_372_461_873_000, false));
        assert_eq!(
            l.event,
            Event::Switch { prev_comm: "perf", prev_pid: 7713, prev_prio: 120, left: LeftAs::Blocked, next_comm: "migration/0", next_pid: 18, next_prio: 0 }
        );
        let l = ev(" memfd:sealed-91  3344 [000]  2372.461905:       sched:sched_waking: comm=rust-lld pid=7752 prio=120 target_cpu=000");
        assert_eq!((l.comm, l.pid), ("memfd:sealed-91", 3344));
        assert_eq!(l.event, Event::Waking { comm: "rust-lld", pid: 7752, prio: 120, target_cpu: Some(0), first: true });
        let l = ev("     migration/0    18 [000]  2372.461878: sched:sched_migrate_task: comm=perf pid=7713 prio=120 orig_cpu=0 dest_cpu=1");
        assert_eq!(l.event, Event::Migrate { comm: "perf", pid: 7713, orig: 0, dest: 1 });
        // A comm with spaces, in the prefix and in the arguments.
        let l = ev("     Web Content  4242 [001]     5.000001: sched:sched_switch: prev_comm=Web Content prev_pid=4242 prev_prio=120 prev_state=R+ ==> next_comm=swapper/1 next_pid=0 next_prio=120");
        assert_eq!((l.comm, l.pid, l.cpu), ("Web Content", 4242, 1));
        assert!(matches!(l.event, Event::Switch { prev_comm: "Web Content", left: LeftAs::Runnable, next_pid: 0, .. }));
    }

    #[test]
    fn ftrace_and_trace_cmd_lines() {
        // The `trace` file with tgid and five flag characters.
        let l = ev("           <idle>-0       (-------) [000] d..2.  2372.461863: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=perf next_pid=7713 next_prio=120");
        assert_eq!((l.comm, l.pid, l.tgid, l.cpu), ("<idle>", 0, None, 0));
        let l = ev("  kworker/u16:1-77    (   77) [004] d.h2   316.196720: sched_waking: comm=a pid=5 prio=120 target_cpu=004");
        assert_eq!((l.comm, l.pid, l.tgid, l.cpu, l.irq, l.ts), ("kworker/u16:1", 77, Some(77), 4, true, 316_196_720_000));
        // trace-cmd report's plugin formats (lines as posted on LKML:
        // "fio-3185 [010] 50419.292941: sched_switch: fio:3185 [120] S ==>
        // kworker/10:0:2763 [120]", "ls-16326 [005] ...: sched_wakeup:
        // migration/5:48 [0] success=1 CPU:005").
        let l = ev("             fio-3185  [010] 50419.292941: sched_switch:         fio:3185 [120] S ==> kworker/10:0:2763 [120]");
        assert_eq!(
            l.event,
            Event::Switch { prev_comm: "fio", prev_pid: 3185, prev_prio: 120, left: LeftAs::Blocked, next_comm: "kworker/10:0", next_pid: 2763, next_prio: 120 }
        );
        let l = ev("              ls-16326 [005] 435246.915558: sched_wakeup:         migration/5:48 [0] success=1 CPU:005");
        assert_eq!(l.event, Event::Waking { comm: "migration/5", pid: 48, prio: 0, target_cpu: Some(5), first: false });
        // Newer trace-cmd: CPU and flags in one token, no brackets.
        let l = ev(" migrate-953     2d.h2.   266.971938: sched_waking:         comm=migrate pid=957 prio=90 target_cpu=002");
        assert_eq!((l.comm, l.pid, l.cpu, l.irq), ("migrate", 953, 2, true));
        // perf's unknown task (an exiting one).
        let l = ev("             :-1    -1 [000]  5449.237144:       sched:sched_switch: prev_comm=opt cgu.04 prev_pid=7613 prev_prio=120 prev_state=X ==> next_comm=rustc next_pid=7506 next_prio=120");
        assert_eq!((l.comm, l.pid), (":-1", UNKNOWN_PID));
        assert!(matches!(l.event, Event::Switch { prev_comm: "opt cgu.04", left: LeftAs::Dead, .. }));
        // Numeric prev_state (old format strings): 128 = TASK_DEAD.
        let l = ev(" kworker/1:0-17144 [001]  7510.995838: sched_switch:          prev_comm=kworker/1:0 prev_pid=17144 prev_prio=120 prev_state=128 ==> next_comm=ksoftirqd/1 next_pid=20 next_prio=120");
        assert!(matches!(l.event, Event::Switch { left: LeftAs::Dead, .. }));
        assert_eq!(parse_line("cpus=8").unwrap(), Err(Skip::Cpus(8)));
        assert_eq!(parse_line("# tracer: nop").unwrap(), Err(Skip::Blank));
        assert_eq!(parse_line("version = 6").unwrap(), Err(Skip::Blank));
    }

    #[test]
    fn timestamps_are_exact() {
        assert_eq!(parse_ts("0.000000001"), Some(1));
        assert_eq!(parse_ts("2372.461873"), Some(2_372_461_873_000));
        assert_eq!(parse_ts("1.5"), Some(1_500_000_000));
        assert_eq!(parse_ts("1.0000000001"), None);
        assert_eq!(parse_ts("x.5"), None);
    }

    #[test]
    fn bad_lines_say_what_was_expected() {
        let e = parse_line("hello world").unwrap_err();
        assert!(e.contains("expected `TASK-PID [CPU]"), "{e}");
        let e = parse_line("  a-1 [000] 1.000: sched_switch: prev_comm=a prev_pid=x prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120").unwrap_err();
        assert!(e.contains("prev_pid=x") && e.contains("expected a number"), "{e}");
        let e = parse_line("  a-1 [000] 1.000: sched_switch: garbage").unwrap_err();
        assert!(e.contains("sched_switch") && e.contains("expected"), "{e}");
        let e = parse_line("  a-1 [000] 1.000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=? ==> next_comm=b next_pid=2 next_prio=120").unwrap_err();
        assert!(e.contains("prev_state=?"), "{e}");
        // Unknown events are skipped, not errors.
        assert_eq!(ev("  a-1 [000] 1.000: sched_stat_runtime: comm=a pid=1 runtime=5 [ns]").event, Event::Other);
    }
}
