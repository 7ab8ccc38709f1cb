//! Scenario printing: the inverse of the parser, as TOML. A study cell
//! opens its run from this text, and `schedlab expand` prints with it.

use std::fmt::Write;

use super::{format_duration, BalancePhases, ChannelKind, ChannelSpec, GroupSpec, Param, Policy, Scenario, StudySpec, TaskSpec, TunableScaling, WorkloadSpec};

/// A TOML basic string: quotes, backslashes and control characters
/// escaped, everything else (non-ASCII included) as it is.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A key: bare when TOML allows it, quoted otherwise.
fn key(k: &str) -> String {
    if !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-') {
        k.to_string()
    } else {
        quote(k)
    }
}

/// The whole scenario as TOML that parses back to the same scenario
/// (positions aside).
pub fn to_toml(sc: &Scenario) -> String {
    let mut s = String::new();
    let sim = &sc.sim;
    s += "[sim]\n";
    let _ = writeln!(s, "duration = {}", quote(&format_duration(sim.duration)));
    if let Some((ns, _)) = sim.warmup {
        let _ = writeln!(s, "warmup = {}", quote(&format_duration(ns)));
    }
    let _ = writeln!(s, "seed = {}", sim.seed);
    let _ = writeln!(s, "kernel = {}", quote(&sim.kernel.name));
    if let Some((hz, _)) = sim.hz {
        let _ = writeln!(s, "hz = {hz}");
    }
    if !sim.patches.is_empty() {
        let names: Vec<String> = sim.patches.iter().map(|p| quote(&p.name)).collect();
        let _ = writeln!(s, "patches = [{}]", names.join(", "));
    }
    if !sim.features.is_empty() {
        let flags: Vec<String> = sim.features.iter().map(|(n, on)| format!("{} = {on}", key(&n.name))).collect();
        let _ = writeln!(s, "features = {{ {} }}", flags.join(", "));
    }
    if let Some((ns, _)) = sim.base_slice {
        let _ = writeln!(s, "base_slice = {}", quote(&format_duration(ns)));
    }
    if let Some((ts, _)) = sim.tunable_scaling {
        let name = match ts {
            TunableScaling::None => "none",
            TunableScaling::Log => "log",
            TunableScaling::Linear => "linear",
        };
        let _ = writeln!(s, "tunable_scaling = {}", quote(name));
    }
    if let Some((bp, _)) = sim.balance_phases {
        let name = match bp {
            BalancePhases::Boot => "boot",
            BalancePhases::Spread => "spread",
        };
        let _ = writeln!(s, "balance_phases = {}", quote(name));
    }
    let c = sim.costs;
    let costs: Vec<String> = [("context_switch", c.context_switch), ("thread_switch", c.thread_switch), ("migration", c.migration), ("migration_llc", c.migration_llc), ("scan", c.scan), ("wakeup", c.wakeup), ("idle_exit", c.idle_exit), ("channel_op", c.channel_op)]
        .iter()
        .filter_map(|(k, v)| v.map(|ns| format!("{k} = {}", quote(&format_duration(ns)))))
        .collect();
    if !costs.is_empty() {
        let _ = writeln!(s, "costs = {{ {} }}", costs.join(", "));
    }
    let t = &sc.topology;
    s += "\n[topology]\n";
    if let Some(p) = &t.preset {
        let _ = writeln!(s, "preset = {}", quote(&p.name));
    }
    for (k, v) in [("sockets", t.sockets), ("llcs_per_socket", t.llcs_per_socket), ("cores_per_llc", t.cores_per_llc), ("threads_per_core", t.threads_per_core)] {
        if let Some((n, _)) = v {
            let _ = writeln!(s, "{k} = {n}");
        }
    }
    for g in &sc.groups {
        s += &group(g);
    }
    for c in &sc.channels {
        s += &channel(c);
    }
    for t in &sc.tasks {
        s += &task(t);
    }
    for w in &sc.workloads {
        s += &workload(w);
    }
    if let Some(st) = &sc.study {
        s += &study(st);
    }
    s
}

fn study(st: &StudySpec) -> String {
    let mut s = format!("\n[study]\nbase = {}\n", quote(&st.base.name));
    let names: Vec<String> = st.compare.iter().map(|n| quote(&n.name)).collect();
    // One configuration written as a string stays a string.
    match st.compare.as_slice() {
        [one] if !one.key.ends_with(']') => {
            let _ = writeln!(s, "compare = {}", quote(&one.name));
        }
        _ => {
            let _ = writeln!(s, "compare = [{}]", names.join(", "));
        }
    }
    let seeds: Vec<String> = st.seeds.iter().map(u64::to_string).collect();
    let _ = writeln!(s, "seeds = [{}]", seeds.join(", "));
    if let Some(l) = &st.load {
        let _ = writeln!(s, "load = {}", quote(&l.name));
    }
    if !st.loads.is_empty() {
        let loads: Vec<String> = st.loads.iter().map(|(p, _)| param(p)).collect();
        let _ = writeln!(s, "loads = [{}]", loads.join(", "));
    }
    if !st.cases.is_empty() {
        let cases: Vec<String> = st
            .cases
            .iter()
            .map(|c| format!("{{ {} }}", c.iter().map(|(n, v)| format!("{} = {}", key(&n.name), param(v))).collect::<Vec<_>>().join(", ")))
            .collect();
        let _ = writeln!(s, "cases = [{}]", cases.join(", "));
    }
    if let Some(m) = &st.metric {
        let _ = writeln!(s, "metric = {}", quote(&m.name));
    }
    s
}

fn group(g: &GroupSpec) -> String {
    let mut s = format!("\n[[group]]\nname = {}\n", quote(&g.name));
    if let Some(p) = &g.parent {
        let _ = writeln!(s, "parent = {}", quote(&p.name));
    }
    match (g.idle, g.shares) {
        // An idle group's weight is SCHED_IDLE's; the file may not set one.
        (true, _) => s += "idle = true\n",
        (false, Some(sh)) => {
            let _ = writeln!(s, "shares = {sh}");
        }
        (false, None) => {
            let _ = writeln!(s, "weight = {}", g.weight);
        }
    }
    s
}

pub fn channel(c: &ChannelSpec) -> String {
    let mut s = format!("\n[[channel]]\nname = {}\ncapacity = {}\n", quote(&c.name), c.capacity);
    match c.kind {
        _ if !c.sync => s.push_str("sync = false\n"),
        ChannelKind::Pipe { pages: 1 } => {}
        ChannelKind::Pipe { pages } => {
            let _ = writeln!(s, "pages = {pages}");
        }
        ChannelKind::Socket { wake_at } => {
            s.push_str("kind = \"socket\"\n");
            if wake_at != c.capacity / 4 {
                let _ = writeln!(s, "wake_at = {wake_at}");
            }
        }
    }
    s
}

pub fn task(t: &TaskSpec) -> String {
    let mut s = format!("\n[[task]]\nname = {}\n", quote(&t.name));
    if t.count != 1 {
        let _ = writeln!(s, "count = {}", t.count);
    }
    if t.nice != 0 {
        let _ = writeln!(s, "nice = {}", t.nice);
    }
    match t.policy {
        Policy::Normal => {}
        Policy::Batch => s += "policy = \"batch\"\n",
        Policy::Idle => s += "policy = \"idle\"\n",
    }
    if let Some(ns) = t.slice {
        let _ = writeln!(s, "slice = {}", quote(&format_duration(ns)));
    }
    if let Some((list, _)) = &t.affinity {
        let _ = writeln!(s, "affinity = \"{list}\"");
    }
    if t.start != 0 {
        let _ = writeln!(s, "start = {}", quote(&format_duration(t.start)));
    }
    if let Some(g) = &t.group {
        let _ = writeln!(s, "group = {}", quote(&g.name));
    }
    if t.want_preempt {
        s += "want_preempt = true\n";
    }
    if let Some(p) = &t.process {
        let _ = writeln!(s, "process = {}", quote(p));
    }
    let _ = writeln!(s, "program = {}", quote(&t.program.to_string()));
    s
}

fn workload(w: &WorkloadSpec) -> String {
    let mut s = format!("\n[[workload]]\nkind = {}\n", quote(&w.kind.name));
    if let Some(n) = &w.name {
        let _ = writeln!(s, "name = {}", quote(n));
    }
    for (k, v) in &w.params {
        let _ = writeln!(s, "{} = {}", key(&k.name), param(v));
    }
    s
}

fn param(p: &Param) -> String {
    p.to_string()
}
