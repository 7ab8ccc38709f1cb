//! The scenario generator: valid random scenarios over every part of the
//! format — every `[sim]` key (every kernel preset, patch and feature
//! flag, hz, tunables, costs), both topology forms (every preset and
//! explicit counts), group trees (weights, v1 shares, idle groups, nested
//! parents), channels, tasks with every key and programs with every
//! statement and distribution, every workload kind with every parameter,
//! and `[study]` tables — written as TOML or as JSON.
//!
//! Sizes are kept small (a few CPUs to a few hundred, a few dozen tasks,
//! microsecond-to-millisecond costs) so that thousands of cases, each
//! checked at every event, fit in the test suite's budget; the mutator
//! (mutate.rs) supplies the large and the malformed.

use serde_json::{json, Map, Value};

use crate::kernel::patches::PATCHES;
use crate::kernel::sched::features::{Feature, PRESET_NAMES};
use crate::kernel::sched::topology::PRESETS as TOPOLOGIES;
use crate::lab::rng::Rng;
use crate::lab::workload::{COMMON, KINDS};

pub(crate) fn pick<'a, T>(r: &mut Rng, xs: &'a [T]) -> &'a T {
    &xs[r.uniform(0, xs.len() as u64 - 1) as usize]
}

fn chance(r: &mut Rng, one_in: u64) -> bool {
    r.uniform(0, one_in - 1) == 0
}

/// A duration literal in one of the accepted spellings.
pub(crate) fn duration(r: &mut Rng, lo_ns: u64, hi_ns: u64) -> String {
    let ns = r.uniform(lo_ns, hi_ns);
    match r.uniform(0, 5) {
        0 => format!("{ns}ns"),
        1 if ns.is_multiple_of(1000) => format!("{}us", ns / 1000),
        // The micro sign, and a fraction that is a whole number of ns.
        2 if ns.is_multiple_of(1000) => format!("{}\u{b5}s", ns / 1000),
        3 if ns.is_multiple_of(100_000) => format!("{}.{}ms", ns / 1_000_000, (ns / 100_000) % 10),
        4 if ns.is_multiple_of(1_000_000) => format!("{}ms", ns / 1_000_000),
        _ => crate::lab::scenario::format_duration(ns),
    }
}

/// A duration or a distribution, as the program language writes them.
fn dist(r: &mut Rng, lo_ns: u64, hi_ns: u64) -> String {
    match r.uniform(0, 4) {
        0 => format!("exp({})", duration(r, lo_ns.max(1), hi_ns)),
        1 => {
            let a = r.uniform(lo_ns, hi_ns);
            let b = r.uniform(a, hi_ns.max(a) * 2);
            format!("uniform({}, {})", crate::lab::scenario::format_duration(a), crate::lab::scenario::format_duration(b))
        }
        _ => duration(r, lo_ns, hi_ns),
    }
}

/// What a program may refer to.
struct Names<'a> {
    /// Task instance names (`name` or `name.K`).
    tasks: &'a [String],
    channels: &'a [String],
}

fn statement(r: &mut Rng, n: &Names, depth: u32) -> String {
    let choices = if depth >= 3 { 15 } else { 17 };
    match r.uniform(0, choices - 1) {
        0..=2 => format!("run {}", dist(r, 1_000, 2_000_000)),
        3 => format!("sleep {}", dist(r, 1_000, 5_000_000)),
        4 => "yield".into(),
        5 => format!("nice {}", r.uniform(0, 39) as i64 - 20),
        6 => match r.uniform(0, 3) {
            0 => "slice default".into(),
            1 => "slice 0".into(),
            _ => format!("slice {}", duration(r, 100_000, 100_000_000)),
        },
        7 if chance(r, 6) => "exit".into(),
        8 | 9 => {
            let ch = pick(r, n.channels);
            let verb = if chance(r, 2) { "send" } else { "recv" };
            if chance(r, 2) {
                format!("{verb} {ch} {}", r.uniform(1, 4))
            } else {
                format!("{verb} {ch}")
            }
        }
        10 if chance(r, 3) => format!("futex_wake {}", pick(r, n.tasks)),
        10 => format!("wake {}", pick(r, n.tasks)),
        11 => match r.uniform(0, 3) {
            0 => "futex_wait".into(),
            1 => format!("futex_wait {}", dist(r, 1_000, 2_000_000)),
            _ => "wait".into(),
        },
        12 => format!("call {}", pick(r, n.tasks)),
        13 => "reply".into(),
        14 if chance(r, 8) => "run".into(),
        15 | 16 => {
            let body = block(r, n, depth + 1);
            if chance(r, 3) {
                format!("loop {{ {body} }}")
            } else {
                format!("loop {} {{ {body} }}", r.uniform(0, 30))
            }
        }
        _ => format!("run {}", dist(r, 1_000, 500_000)),
    }
}

fn block(r: &mut Rng, n: &Names, depth: u32) -> String {
    let k = r.uniform(1, 4);
    let stmts: Vec<String> = (0..k).map(|_| statement(r, n, depth)).collect();
    // Both separators, and comments.
    match r.uniform(0, 5) {
        0 => stmts.join("\n"),
        1 => format!("{}  # a comment\n", stmts.join("; ")),
        _ => stmts.join("; "),
    }
}

/// A program the static checks accept (loops that advance time, nothing
/// after an endless statement): drawn until one is.
fn program(r: &mut Rng, n: &Names) -> String {
    for _ in 0..20 {
        let p = program_once(r, n);
        if crate::lab::scenario::parse_program(&p, crate::lab::scenario::Pos::START).is_ok() {
            return p;
        }
    }
    "loop { run 100us; sleep 1ms }".into()
}

fn program_once(r: &mut Rng, n: &Names) -> String {
    match r.uniform(0, 9) {
        0 => "run".into(),
        1 => format!("loop {{ run {}; sleep {} }}", dist(r, 10_000, 2_000_000), dist(r, 10_000, 5_000_000)),
        2 => format!("{}; exit", block(r, n, 1)),
        _ => format!("loop {{ {} }}", block(r, n, 1)),
    }
}

/// A cpulist within `cpus` CPUs, in one of the kernel's forms.
fn cpulist(r: &mut Rng, cpus: u64) -> Value {
    let a = r.uniform(0, cpus - 1);
    let b = r.uniform(a, cpus - 1);
    match r.uniform(0, 5) {
        0 => json!(a),
        1 => json!(format!("{a}")),
        2 if b > a + 2 => json!(format!("{a}-{b}:{}/{}", 1, r.uniform(1, 3))),
        3 if b > a => json!(format!("{a},{b}")),
        _ => json!(format!("{a}-{b}")),
    }
}

/// CPUs of a topology preset.
fn preset_cpus(name: &str) -> u64 {
    let p = TOPOLOGIES.iter().find(|p| p.0 == name).map_or([1; 4], |p| p.2);
    p.iter().map(|&c| c as u64).product()
}

/// Every workload parameter's generator; `None` for a parameter this table
/// does not know (the coverage test fails on it).
fn param(r: &mut Rng, kind: &str, name: &str, cpus: u64) -> Option<Value> {
    let count = |r: &mut Rng, hi: u64| if chance(r, 4) { json!(format!("{}%", *pick(r, &[25, 50, 100, 200]))) } else { json!(r.uniform(1, hi)) };
    let cost = |r: &mut Rng| json!(duration(r, 100, 50_000));
    Some(match name {
        "groups" => count(r, 2),
        "fds" => json!(r.uniform(1, 4)),
        "loops" if kind == "pipe-test" => json!(r.uniform(0, 50)),
        "loops" => json!(r.uniform(1, 20)),
        "datasize" => json!(*pick(r, &[1u64, 100, 4096, 1 << 20])),
        "mode" => json!(pick(r, &["process", "threads"])),
        "ipc" => json!(pick(r, &["pipe", "sockets"])),
        "proto" => json!(pick(r, &["tcp", "udp"])),
        "message_threads" => json!(r.uniform(1, 2)),
        "workers" | "threads" | "instances" | "count" | "tasks" => count(r, 4),
        "sleep" => json!(duration(r, 0, 200_000)),
        "work" => json!(duration(r, 1_000, 500_000)),
        "window" => json!(r.uniform(1, 32)),
        "version" => json!(pick(r, &["2023", "2019"])),
        "sleeptime" | "cputime" => json!(duration(r, 0, 2_000_000)),
        "client_work" | "server_work" => json!(dist(r, 1_000, 50_000)),
        "cpu" => json!(r.uniform(0, cpus) as i64 - 1),
        "timeout" => json!(duration(r, 0, 200_000)),
        "cost" | "write_cost" | "read_cost" | "send_cost" | "recv_cost" | "wake_cost" | "wait_cost" | "kill_cost" | "handle_cost" => cost(r),
        _ => return None,
    })
}

/// A configuration string (`KERNEL[+PATCH...][,FLAG=on|off...]`).
fn config(r: &mut Rng) -> String {
    let mut s = pick(r, &PRESET_NAMES).to_string();
    for _ in 0..r.uniform(0, 2) {
        s += "+";
        s += pick(r, PATCHES).name;
    }
    if chance(r, 3) {
        s += &format!(",{}={}", pick(r, Feature::ALL).name(), pick(r, &["on", "off"]));
    }
    s
}

/// A random valid scenario as a JSON value (printed as TOML or JSON by
/// [`scenario`]).
pub(crate) fn document(r: &mut Rng) -> Value {
    let mut doc = Map::new();
    // [sim]
    let mut sim = Map::new();
    sim.insert("duration".into(), json!(duration(r, 1_000_000, 40_000_000)));
    sim.insert("seed".into(), json!(r.next_u64() >> r.uniform(1, 63)));
    sim.insert("kernel".into(), json!(pick(r, &PRESET_NAMES)));
    if chance(r, 2) {
        sim.insert("hz".into(), json!(pick(r, &[100, 250, 300, 1000])));
    }
    if chance(r, 2) {
        let mut patches: Vec<&str> = Vec::new();
        for _ in 0..r.uniform(1, 3) {
            let p = pick(r, PATCHES).name;
            if !patches.contains(&p) {
                patches.push(p);
            }
        }
        sim.insert("patches".into(), json!(patches));
    }
    if chance(r, 2) {
        let mut f = Map::new();
        for _ in 0..r.uniform(1, 5) {
            let flag = pick(r, Feature::ALL).name();
            let v = match r.uniform(0, 3) {
                0 => json!("on"),
                1 => json!("off"),
                _ => json!(chance(r, 2)),
            };
            f.insert(flag.into(), v);
        }
        sim.insert("features".into(), Value::Object(f));
    }
    if chance(r, 4) {
        sim.insert("base_slice".into(), json!(duration(r, 100_000, 100_000_000)));
    }
    if chance(r, 4) {
        sim.insert("tunable_scaling".into(), json!(pick(r, &["none", "log", "linear"])));
    }
    if chance(r, 4) {
        sim.insert("balance_phases".into(), json!(pick(r, &["boot", "spread"])));
    }
    if chance(r, 3) {
        let mut c = Map::new();
        for k in ["context_switch", "thread_switch", "migration", "migration_llc", "scan", "idle_exit", "channel_op"] {
            if chance(r, 2) {
                c.insert(k.into(), json!(duration(r, 0, 20_000)));
            }
        }
        sim.insert("costs".into(), Value::Object(c));
    }
    doc.insert("sim".into(), Value::Object(sim));

    // [topology]
    let cpus;
    if chance(r, 2) {
        // The big presets rarely: they cost the most per event checked.
        let name = if chance(r, 6) { pick(r, TOPOLOGIES).0 } else { *pick(r, &["1cpu", "2cpu-vm", "i7-4790"]) };
        cpus = preset_cpus(name);
        doc.insert("topology".into(), json!({ "preset": name }));
    } else {
        let mut t = Map::new();
        let mut n = 1;
        for (k, hi) in [("sockets", 3), ("llcs_per_socket", 3), ("cores_per_llc", 6), ("threads_per_core", 2)] {
            if chance(r, 3) {
                continue;
            }
            let v = r.uniform(1, hi);
            n *= v;
            t.insert(k.into(), json!(v));
        }
        cpus = n;
        if !t.is_empty() || chance(r, 2) {
            doc.insert("topology".into(), Value::Object(t));
        }
    }

    // [[group]]: a tree (each parent is an earlier group)
    let ngroups = if chance(r, 2) { r.uniform(1, 4) } else { 0 };
    let mut groups = Vec::new();
    for g in 0..ngroups {
        let mut o = Map::new();
        o.insert("name".into(), json!(format!("g{g}")));
        match r.uniform(0, 3) {
            0 => {
                o.insert("shares".into(), json!(r.uniform(2, 262_144)));
            }
            1 => {}
            _ => {
                o.insert("weight".into(), json!(*pick(r, &[1u64, 50, 100, 300, 10_000])));
            }
        }
        if g > 0 && chance(r, 2) {
            o.insert("parent".into(), json!(format!("g{}", r.uniform(0, g - 1))));
        }
        // An idle group takes SCHED_IDLE's weight: the scenario refuses a
        // weight or shares beside `idle` (as the kernel refuses cpu.weight
        // while cpu.idle is 1).
        if chance(r, 5) && !o.contains_key("shares") && !o.contains_key("weight") {
            o.insert("idle".into(), json!(true));
        }
        groups.push(Value::Object(o));
    }
    // Parents may be written after their children.
    if groups.len() > 1 && chance(r, 2) {
        groups.reverse();
    }

    // [[channel]]
    let channels: Vec<String> = (0..r.uniform(1, 3)).map(|c| format!("c{c}")).collect();
    let mut chans = Vec::new();
    for c in &channels {
        if chance(r, 3) {
            continue; // declared by use, with the default capacity
        }
        let capacity = *pick(r, &[1u64, 2, 16, 1024, 1 << 40]);
        let mut chan = json!({ "name": c, "capacity": capacity });
        if chance(r, 3) {
            chan["sync"] = json!(false); // a signal queue
        } else if chance(r, 3) {
            chan["kind"] = json!("socket");
            if chance(r, 2) {
                chan["wake_at"] = json!(r.uniform(0, capacity - 1));
            }
        } else if chance(r, 3) {
            // A power of two of pages the capacity fills evenly.
            chan["pages"] = json!(1u64 << r.uniform(0, capacity.trailing_zeros().min(20) as u64));
        }
        chans.push(chan);
    }

    // [[task]]: names first, so programs can wake and call them.
    let lo = if chance(r, 8) { 0 } else { 1 };
    let ntasks = r.uniform(lo, if cpus > 16 { 10 } else { 6 });
    let counts: Vec<u64> = (0..ntasks).map(|_| if chance(r, 10) { r.uniform(4, 24) } else { r.uniform(1, 3) }).collect();
    let mut instances = Vec::new();
    for (i, &c) in counts.iter().enumerate() {
        if c == 1 {
            instances.push(format!("t{i}"));
        } else {
            for k in 0..c {
                instances.push(format!("t{i}.{k}"));
            }
        }
    }
    if instances.is_empty() {
        instances.push(String::new());
    }
    let names = Names { tasks: &instances, channels: &channels };
    let mut tasks = Vec::new();
    for (i, &c) in counts.iter().enumerate() {
        let mut o = Map::new();
        o.insert("name".into(), json!(format!("t{i}")));
        if c > 1 || chance(r, 4) {
            o.insert("count".into(), json!(c));
        }
        if chance(r, 2) {
            o.insert("nice".into(), json!(*pick(r, &[0i64, -20, -5, 5, 19])));
        }
        if chance(r, 3) {
            o.insert("policy".into(), json!(pick(r, &["normal", "batch", "idle"])));
        }
        if chance(r, 4) {
            o.insert("slice".into(), json!(duration(r, 100_000, 100_000_000)));
        }
        if cpus > 1 && chance(r, 3) {
            o.insert("affinity".into(), cpulist(r, cpus));
        }
        if chance(r, 3) {
            o.insert("start".into(), json!(duration(r, 0, 5_000_000)));
        }
        if ngroups > 0 && chance(r, 2) {
            o.insert("group".into(), json!(format!("g{}", r.uniform(0, ngroups - 1))));
        }
        if chance(r, 5) {
            o.insert("want_preempt".into(), json!(chance(r, 2)));
        }
        if chance(r, 4) {
            o.insert("process".into(), json!(format!("p{}", r.uniform(0, 1))));
        }
        // A program may only name tasks that exist.
        let prog = if instances[0].is_empty() { "loop { run 1ms; sleep 1ms }".into() } else { program(r, &names) };
        o.insert("program".into(), json!(prog));
        tasks.push(Value::Object(o));
    }

    // [[workload]]
    let mut workloads = Vec::new();
    let nworkloads = match r.uniform(0, 5) {
        0 | 1 => 1,
        2 => 2,
        _ => 0,
    };
    for w in 0..nworkloads {
        let kind = pick(r, KINDS);
        let mut o = Map::new();
        o.insert("kind".into(), json!(kind.name));
        for p in kind.params {
            if chance(r, 2) {
                if let Some(v) = param(r, kind.name, p.name, cpus) {
                    o.insert(p.name.into(), v);
                }
            }
        }
        for p in COMMON {
            if !chance(r, 4) {
                continue;
            }
            let v = match p.name {
                "name" => json!(format!("w{w}")),
                "nice" => json!(r.uniform(0, 39) as i64 - 20),
                "group" if ngroups > 0 => json!(format!("g{}", r.uniform(0, ngroups - 1))),
                "affinity" => cpulist(r, cpus),
                "start" => json!(duration(r, 0, 2_000_000)),
                "jitter" => {
                    if chance(r, 4) {
                        json!(0)
                    } else {
                        json!(format!("{}%", *pick(r, &["0", "5", "10", "33.3", "100"])))
                    }
                }
                _ => continue,
            };
            o.insert(p.name.into(), v);
        }
        // Two workloads of one kind need distinct names.
        if w > 0 {
            o.insert("name".into(), json!(format!("w{w}")));
        }
        workloads.push(Value::Object(o));
    }

    // [study]: only over exactly one workload.
    if workloads.len() == 1 && chance(r, 4) {
        let mut s = Map::new();
        s.insert("base".into(), json!(config(r)));
        s.insert("compare".into(), if chance(r, 2) { json!(config(r)) } else { json!([config(r), config(r)]) });
        s.insert("seeds".into(), if chance(r, 2) { json!(r.uniform(1, 3)) } else { json!([r.uniform(0, 9), r.uniform(10, 19)]) });
        let kind = workloads[0]["kind"].as_str().unwrap_or("hogs");
        let kdoc = KINDS.iter().find(|k| k.name == kind);
        if let Some(load) = kdoc.and_then(|k| k.params.iter().find(|p| ["groups", "threads", "instances", "count", "workers"].contains(&p.name))) {
            s.insert("load".into(), json!(load.name));
            s.insert("loads".into(), json!([1, 2]));
        }
        if chance(r, 2) {
            s.insert("metric".into(), json!(pick(r, &["time", "throughput", "wakeup-p90", "wakeup-p99", "request-p99", "cpu-time"])));
        }
        doc.insert("study".into(), Value::Object(s));
    }

    for (k, v) in [("group", groups), ("channel", chans), ("task", tasks), ("workload", workloads)] {
        if !v.is_empty() {
            doc.insert(k.into(), Value::Array(v));
        }
    }
    Value::Object(doc)
}

/// A document as TOML: tables for objects, arrays of tables for arrays of
/// objects, inline tables below that.
pub(crate) fn to_toml(doc: &Value) -> String {
    fn inline(v: &Value) -> String {
        match v {
            // A JSON string literal is a valid TOML basic string.
            Value::String(_) | Value::Number(_) | Value::Bool(_) => v.to_string(),
            Value::Array(a) => format!("[{}]", a.iter().map(inline).collect::<Vec<_>>().join(", ")),
            Value::Object(o) => format!("{{ {} }}", o.iter().map(|(k, v)| format!("{k} = {}", inline(v))).collect::<Vec<_>>().join(", ")),
            Value::Null => "\"\"".into(),
        }
    }
    let mut s = String::new();
    let Value::Object(top) = doc else { return s };
    for (k, v) in top {
        let tables: Vec<&Map<String, Value>> = match v {
            Value::Object(o) => vec![o],
            Value::Array(a) => a.iter().filter_map(Value::as_object).collect(),
            _ => continue,
        };
        for t in tables {
            s += &if v.is_array() { format!("[[{k}]]\n") } else { format!("[{k}]\n") };
            for (key, val) in t {
                // Programs are written multi-line now and then.
                match val.as_str() {
                    Some(p) if key == "program" && p.contains('\n') && !p.contains("'''") => s += &format!("{key} = '''\n{p}'''\n"),
                    _ => s += &format!("{key} = {}\n", inline(val)),
                }
            }
            s += "\n";
        }
    }
    s
}

/// A random valid scenario, as TOML (mostly) or JSON.
pub(crate) fn scenario(r: &mut Rng) -> String {
    let doc = document(r);
    if chance(r, 5) {
        serde_json::to_string_pretty(&doc).unwrap_or_default()
    } else {
        to_toml(&doc)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every workload parameter of every kind has a generator, so the
    /// generator covers a parameter added later or says it does not.
    #[test]
    fn every_workload_parameter_is_generated() {
        let mut r = Rng::new(1);
        for k in KINDS {
            for p in k.params {
                assert!(param(&mut r, k.name, p.name, 8).is_some(), "no generator for {}.{}", k.name, p.name);
            }
        }
    }

    /// The generator's output is valid: every case parses and builds
    /// (run time errors are the checker's business).
    #[test]
    fn generated_scenarios_are_valid() {
        let mut r = Rng::new(7);
        for _ in 0..300 {
            let text = scenario(&mut r);
            let sc = crate::lab::scenario::parse(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            crate::lab::build::build(&sc, &Default::default(), crate::lab::sim::LogMode::HashOnly).unwrap_or_else(|e| panic!("{e}\n{text}"));
        }
    }
}
