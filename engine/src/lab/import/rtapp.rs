//! rt-app JSON workloads to scenarios: the subset scx_simulator reads
//! (`run`/`runtime`, `sleep`, `timer`, `suspend`/`resume`, `priority`,
//! `loop`, `phases`, `instance`, `cpus`, `global.duration`) plus `yield`,
//! `delay`, `policy` and `taskgroup` (→ `[[group]]`, nested by path).
//!
//! rt-app runs a task's events in the order written, and files repeat keys
//! (`"run": 10, "sleep": 5, "run": 20`); the JSON is therefore read into
//! ordered entries that keep duplicates (a plain map would sort or drop
//! them). C block comments (`/* */`), which rt-app allows, are removed
//! first. Times are microseconds, as in rt-app.
//!
//! `timer` waits for the next period boundary; the model has no absolute
//! timer, so it becomes a sleep of the period less the `run` time since
//! the previous timer of the loop (exact when the task is never delayed).

use std::fmt::Write as _;

use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};

use super::{err, topology_toml, ImportError, Options};

/// A JSON value whose objects keep their entries in order, duplicates
/// included.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

struct JVisitor;

impl<'de> Visitor<'de> for JVisitor {
    type Value = J;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<J, E> {
        Ok(J::Null)
    }
    fn visit_bool<E>(self, v: bool) -> Result<J, E> {
        Ok(J::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<J, E> {
        Ok(J::Num(v as f64))
    }
    fn visit_u64<E>(self, v: u64) -> Result<J, E> {
        Ok(J::Num(v as f64))
    }
    fn visit_f64<E>(self, v: f64) -> Result<J, E> {
        Ok(J::Num(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<J, E> {
        Ok(J::Str(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<J, E> {
        Ok(J::Str(v))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<J, A::Error> {
        let mut v = Vec::new();
        while let Some(x) = a.next_element_seed(JSeed)? {
            v.push(x);
        }
        Ok(J::Arr(v))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<J, A::Error> {
        let mut v = Vec::new();
        while let Some(k) = a.next_key::<String>()? {
            v.push((k, a.next_value_seed(JSeed)?));
        }
        Ok(J::Obj(v))
    }
}

struct JSeed;
impl<'de> serde::de::DeserializeSeed<'de> for JSeed {
    type Value = J;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<J, D::Error> {
        d.deserialize_any(JVisitor)
    }
}

/// Parses JSON keeping object order and duplicate keys.
pub fn parse_ordered(s: &str) -> Result<J, ImportError> {
    let mut de = serde_json::Deserializer::from_str(s);
    let v = de.deserialize_any(JVisitor).map_err(|e| err(Some(e.line() as u64), format!("column {}: {e}", e.column())))?;
    de.end().map_err(|e| err(Some(e.line() as u64), format!("column {}: {e}", e.column())))?;
    Ok(v)
}

/// `/* ... */` removed, newlines kept (so error lines stay right).
pub fn strip_comments(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("/*") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after.find("*/").map_or(after.len(), |j| j + 2);
        out.extend(after[..end].chars().filter(|&c| c == '\n'));
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

impl J {
    fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(v) => v.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
    fn what(&self) -> &'static str {
        match self {
            J::Null => "null",
            J::Bool(_) => "a boolean",
            J::Num(_) => "a number",
            J::Str(_) => "a string",
            J::Arr(_) => "an array",
            J::Obj(_) => "an object",
        }
    }
}

fn int(v: &J, key: &str) -> Result<i64, ImportError> {
    match v {
        J::Num(n) if n.fract() == 0.0 => Ok(*n as i64),
        _ => Err(err(None, format!("{key}: expected an integer, found {}", v.what()))),
    }
}

fn micros(v: &J, key: &str) -> Result<u64, ImportError> {
    let n = int(v, key)?;
    if n < 0 {
        return Err(err(None, format!("{key}: expected a non-negative number of microseconds, found {n}")));
    }
    Ok(n as u64)
}

/// A name as the scenario format accepts it.
fn clean(name: &str) -> String {
    let mut s: String = name.chars().take(60).map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        s.insert(0, '_');
    }
    s
}

/// rt-app's `cpus`: a number, an array, or a cpulist string.
fn cpus(v: &J, key: &str) -> Result<String, ImportError> {
    match v {
        J::Num(_) => Ok(int(v, key)?.to_string()),
        J::Arr(a) => {
            let l: Result<Vec<String>, _> = a.iter().map(|c| int(c, key).map(|n| n.to_string())).collect();
            Ok(l?.join(","))
        }
        J::Str(s) => Ok(s.clone()),
        _ => Err(err(None, format!("{key}: expected a CPU number, an array or a cpulist string, found {}", v.what()))),
    }
}

const KNOWN: &[&str] = &[
    "loop", "phases", "instance", "delay", "policy", "priority", "cpus", "nodes_membind", "taskgroup", "dl-runtime", "dl-period", "dl-deadline", "util_min",
    "util_max",
];

/// Events that rt-app has and the model cannot run.
const SKIPPED: &[&str] = &["lock", "unlock", "wait", "signal", "broad", "sync", "mem", "iorun", "barrier", "fork"];

struct Ctx<'a> {
    /// rt-app name → (scenario name, instances).
    names: &'a [(String, String, i64)],
    skipped: Vec<String>,
}

/// The statements of one phase (or a task without phases).
fn events(obj: &[(String, J)], path: &str, cx: &mut Ctx) -> Result<Vec<String>, ImportError> {
    let mut out = Vec::new();
    let mut run_since_timer = 0u64;
    for (k, v) in obj {
        if KNOWN.contains(&k.as_str()) {
            continue;
        }
        let key = format!("{path}.{k}");
        let kind = ["runtime", "run", "sleep", "timer", "suspend", "resume", "yield"].iter().find(|p| k.starts_with(*p)).copied();
        match kind {
            Some("run") | Some("runtime") => {
                let us = micros(v, &key)?;
                run_since_timer += us;
                out.push(format!("run {us}us"));
            }
            Some("sleep") => out.push(format!("sleep {}us", micros(v, &key)?)),
            Some("timer") => {
                let p = match v {
                    J::Obj(_) => micros(v.get("period").ok_or_else(|| err(None, format!("{key}: expected a `period`")))?, &format!("{key}.period"))?,
                    _ => micros(v, &key)?,
                };
                out.push(format!("sleep {}us", p.saturating_sub(std::mem::take(&mut run_since_timer))));
            }
            Some("suspend") => out.push("wait".into()),
            Some("resume") => {
                let J::Str(target) = v else {
                    return Err(err(None, format!("{key}: expected the name of a task, found {}", v.what())));
                };
                let (_, name, inst) = cx.names.iter().find(|n| &n.0 == target).ok_or_else(|| {
                    err(None, format!("{key}: no task named `{target}` (tasks: {})", cx.names.iter().map(|n| n.0.as_str()).collect::<Vec<_>>().join(", ")))
                })?;
                out.push(if *inst > 1 { format!("wake {name}.0") } else { format!("wake {name}") });
            }
            Some("yield") => out.push("yield".into()),
            _ => {
                if SKIPPED.iter().any(|s| k.starts_with(s)) {
                    cx.skipped.push(key);
                } else {
                    return Err(err(None, format!("{key}: unknown rt-app event (expected run, runtime, sleep, timer, suspend, resume, yield, or one of {})", SKIPPED.join(", "))));
                }
            }
        }
    }
    Ok(out)
}

fn looped(count: i64, body: &[String]) -> String {
    let b = body.join("; ");
    match count {
        n if n < 0 => format!("loop {{ {b} }}"),
        0 | 1 => b,
        n => format!("loop {n} {{ {b} }}"),
    }
}

/// The scenario of an rt-app JSON file.
pub fn to_scenario(json: &str, o: &Options) -> Result<String, ImportError> {
    let root = parse_ordered(&strip_comments(json))?;
    let J::Obj(_) = &root else {
        return Err(err(None, format!("expected a JSON object with `tasks`, found {}", root.what())));
    };
    let tasks = match root.get("tasks") {
        Some(J::Obj(t)) if !t.is_empty() => t,
        Some(J::Obj(_)) => return Err(err(None, "tasks: expected at least one task")),
        Some(v) => return Err(err(None, format!("tasks: expected an object of tasks, found {}", v.what()))),
        None => return Err(err(None, "expected a `tasks` object (an rt-app workload)")),
    };
    let global = root.get("global");
    let duration = match global.and_then(|g| g.get("duration")) {
        Some(v @ J::Num(n)) if *n > 0.0 => {
            let _ = v;
            format!("{}ms", (n * 1000.0).round() as u64)
        }
        Some(J::Num(_)) | None => "10s".into(),
        Some(v) => return Err(err(None, format!("global.duration: expected seconds, found {}", v.what()))),
    };
    let default_policy = match global.and_then(|g| g.get("default_policy")) {
        Some(J::Str(s)) => s.clone(),
        _ => "SCHED_OTHER".into(),
    };
    let names: Vec<(String, String, i64)> = tasks
        .iter()
        .map(|(n, v)| (n.clone(), clean(n), v.get("instance").and_then(|i| int(i, "").ok()).unwrap_or(1)))
        .collect();
    let mut cx = Ctx { names: &names, skipped: Vec::new() };
    let mut groups: Vec<(String, Option<String>)> = Vec::new();
    let mut body = String::new();
    let mut max_cpu: Option<u32> = None;
    let mut notes = Vec::new();
    for (ti, (tname, t)) in tasks.iter().enumerate() {
        let path = format!("tasks.{tname}");
        let J::Obj(fields) = t else {
            return Err(err(None, format!("{path}: expected an object, found {}", t.what())));
        };
        let count = names[ti].2;
        if !(1..=262_144).contains(&count) {
            return Err(err(None, format!("{path}.instance: expected 1 to 262144, found {count}")));
        }
        let policy = match t.get("policy") {
            Some(J::Str(s)) => s.clone(),
            Some(v) => return Err(err(None, format!("{path}.policy: expected a string, found {}", v.what()))),
            None => default_policy.clone(),
        };
        let prio = t.get("priority").map(|v| int(v, &format!("{path}.priority"))).transpose()?.unwrap_or(0);
        let (policy, nice) = match policy.as_str() {
            "SCHED_OTHER" => ("normal", prio.clamp(-20, 19)),
            "SCHED_BATCH" => ("batch", prio.clamp(-20, 19)),
            "SCHED_IDLE" => ("idle", prio.clamp(-20, 19)),
            "SCHED_FIFO" | "SCHED_RR" | "SCHED_DEADLINE" => {
                notes.push(format!("{path}: {policy} replays as a nice -20 fair task (the model has only the fair class)"));
                ("normal", -20)
            }
            p => return Err(err(None, format!("{path}.policy: `{p}`: expected SCHED_OTHER, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR or SCHED_DEADLINE"))),
        };
        let task_loop = t.get("loop").map(|v| int(v, &format!("{path}.loop"))).transpose()?.unwrap_or(-1);
        let stmts = match t.get("phases") {
            Some(J::Obj(phases)) => {
                let mut all = Vec::new();
                for (pn, p) in phases {
                    let pp = format!("{path}.phases.{pn}");
                    let J::Obj(pf) = p else {
                        return Err(err(None, format!("{pp}: expected an object, found {}", p.what())));
                    };
                    let pl = p.get("loop").map(|v| int(v, &format!("{pp}.loop"))).transpose()?.unwrap_or(1);
                    let ev = events(pf, &pp, &mut cx)?;
                    if !ev.is_empty() {
                        all.push(looped(pl.max(1), &ev));
                    }
                }
                all
            }
            Some(v) => return Err(err(None, format!("{path}.phases: expected an object of phases, found {}", v.what()))),
            None => events(fields, &path, &mut cx)?,
        };
        if stmts.is_empty() {
            return Err(err(None, format!("{path}: no events the model can run (expected run, sleep, timer, suspend or resume)")));
        }
        let _ = write!(body, "\n[[task]]\nname = \"{}\"\n", names[ti].1);
        if count > 1 {
            let _ = writeln!(body, "count = {count}");
        }
        let _ = writeln!(body, "nice = {nice}\npolicy = \"{policy}\"");
        if let Some(c) = t.get("cpus") {
            let list = cpus(c, &format!("{path}.cpus"))?;
            let top = crate::lab::scenario::CpuList::parse(&list).map_err(|e| err(None, format!("{path}.cpus: {e}")))?;
            if let Some(&m) = top.0.iter().max() {
                max_cpu = Some(max_cpu.map_or(m, |x: u32| x.max(m)));
            }
            let _ = writeln!(body, "affinity = \"{list}\"");
        }
        if let Some(d) = t.get("delay") {
            let _ = writeln!(body, "start = \"{}us\"", micros(d, &format!("{path}.delay"))?);
        }
        if let Some(g) = t.get("taskgroup") {
            let J::Str(g) = g else {
                return Err(err(None, format!("{path}.taskgroup: expected a path such as \"/a/b\", found {}", g.what())));
            };
            let mut parent: Option<String> = None;
            let mut acc = String::new();
            for part in g.split('/').filter(|p| !p.is_empty()) {
                acc = if acc.is_empty() { clean(part) } else { format!("{acc}_{}", clean(part)) };
                if !groups.iter().any(|(n, _)| *n == acc) {
                    groups.push((acc.clone(), parent.clone()));
                }
                parent = Some(acc.clone());
            }
            if let Some(p) = parent {
                let _ = writeln!(body, "group = \"{p}\"");
            }
        }
        let _ = writeln!(body, "program = \"{}\"", looped(task_loop, &stmts));
    }
    let mut out = format!("# Imported by `schedlab import` from {} (rt-app JSON).\n", o.source);
    for n in &notes {
        let _ = writeln!(out, "# note: {n}");
    }
    if !cx.skipped.is_empty() {
        let _ = writeln!(out, "# skipped (no model equivalent): {}", cx.skipped.join(", "));
    }
    let _ = writeln!(out, "\n[sim]\nduration = \"{duration}\"\nkernel = \"{}\"\nhz = {}\n", o.kernel, o.hz);
    let ncpu = max_cpu.map_or(1, |m| m + 1);
    out += &topology_toml(ncpu, o.topology.as_deref());
    for (g, parent) in &groups {
        let _ = write!(out, "\n[[group]]\nname = \"{g}\"\n");
        if let Some(p) = parent {
            let _ = writeln!(out, "parent = \"{p}\"");
        }
    }
    out += &body;
    Ok(out)
}
