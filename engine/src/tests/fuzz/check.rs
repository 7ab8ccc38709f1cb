//! What every fuzz case must satisfy, whatever its input: a clean error or
//! a result, never a panic; the scheduler's invariants after every event
//! (tests/invariants.rs); the invariants of `run --json` (busy + idle =
//! simulated time on every CPU, the tasks' CPU time = the CPUs' busy time,
//! voluntary + involuntary = all switches, monotone percentiles); the same
//! log hash when run again without a log; and the paths of `compare`
//! (first divergence), `explain` (the player and its rewinding), `expand`
//! and `study` (planning, one run, the cell's scenario text) ending in a
//! result or a clean error too.

use crate::lab::build::{build, Overrides};
use crate::lab::compare::{first_divergence, ConfigSpec};
use crate::lab::player::Player;
use crate::lab::rng::Rng;
use crate::lab::scenario::{self, ScenarioError};
use crate::lab::sim::{LogMode, Simulation};
use crate::lab::trace::hist::Percentiles;

/// Work the invariant checks of one case may take, in (tasks + run
/// queues) × events: past it the run is cut short (at an instant, so that
/// every event of what ran was checked).
const CHECK_BUDGET: u64 = 600_000;
/// Events one case may run at most.
const MAX_EVENTS: u64 = 6_000;
/// An error message longer than this is itself a bug (an input echoed).
const MAX_MESSAGE: usize = 1_000;

/// How a case ended (for the coverage counts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Outcome {
    /// A clean error while parsing.
    Rejected,
    /// A clean error while building (names, affinity, workload parameters).
    Unbuildable,
    /// It ran to its end.
    Ran,
    /// It ran until the check budget and was cut there.
    Cut,
}

fn clean(e: &ScenarioError, what: &str) -> Result<(), String> {
    let m = e.to_string();
    if e.msg.trim().is_empty() {
        return Err(format!("{what}: an empty error message ({e:?})"));
    }
    if m.len() > MAX_MESSAGE {
        return Err(format!("{what}: a {}-byte error message: {}…", m.len(), m.chars().take(200).collect::<String>()));
    }
    Ok(())
}

fn monotone(p: &Percentiles, what: &str) -> Result<(), String> {
    if p.count > 0 && !(p.p50 <= p.p90 && p.p90 <= p.p99 && p.p99 <= p.max) {
        return Err(format!("{what}: percentiles not monotone: {p:?}"));
    }
    if p.count == 0 && (p.p50, p.p90, p.p99, p.max) != (0, 0, 0, 0) {
        return Err(format!("{what}: percentiles without samples: {p:?}"));
    }
    Ok(())
}

/// The invariants of the results (`run --json`), from the JSON itself.
pub(crate) fn json_invariants(sim: &Simulation) -> Result<(), String> {
    let res = sim.results("fuzz");
    let json = serde_json::to_value(&res).map_err(|e| format!("results do not serialize: {e}"))?;
    let sim_time = json["sim_time_ns"].as_u64().ok_or("no sim_time_ns")?;
    let num = |v: &serde_json::Value, k: &str| v[k].as_u64().ok_or_else(|| format!("`{k}` missing or not an integer in {v}"));
    let mut busy_total = 0u64;
    for c in json["cpus"].as_array().ok_or("no cpus")? {
        let (busy, idle) = (num(c, "busy_ns")?, num(c, "idle_ns")?);
        if busy + idle != sim_time {
            return Err(format!("cpu {}: busy {busy} + idle {idle} != simulated time {sim_time}", c["cpu"]));
        }
        busy_total += busy;
    }
    let mut ran = 0u64;
    for t in json["tasks"].as_array().ok_or("no tasks")? {
        let cpu = num(t, "cpu_time_ns")?;
        if cpu > sim_time {
            return Err(format!("task {}: CPU time {cpu} > simulated time {sim_time}", t["name"]));
        }
        ran += cpu;
        if num(t, "nr_voluntary_switches")? + num(t, "nr_involuntary_switches")? != num(t, "nr_switches")? {
            return Err(format!("task {}: voluntary + involuntary != switches", t["name"]));
        }
        let share = t["share"].as_f64().ok_or("no share")?;
        if !(0.0..=1.0).contains(&share) {
            return Err(format!("task {}: share {share}", t["name"]));
        }
    }
    if ran != busy_total {
        return Err(format!("tasks ran {ran} ns but the CPUs were busy {busy_total} ns"));
    }
    for (t, r) in res.tasks.iter().enumerate() {
        monotone(&r.wakeup_latency_ns, &format!("task {t} wakeup latency"))?;
    }
    for w in &res.workloads {
        monotone(&w.wakeup_latency_ns, &format!("workload {} wakeup latency", w.name))?;
        monotone(&w.request_latency_ns, &format!("workload {} request latency", w.name))?;
        if w.nr_voluntary_switches > 0 && !w.value.is_finite() {
            return Err(format!("workload {}: metric {} is {}", w.name, w.metric.name(), w.value));
        }
    }
    Ok(())
}

/// Steps a run to its end, checking the scheduler's invariants after every
/// event; past the check budget it ends the run where it is. Returns the
/// number of events it was cut at, if it was.
fn run_checked(sim: &mut Simulation) -> Result<Option<u64>, String> {
    let per_event = (sim.state.sched.tasks.len() + sim.state.sched.cfs_rqs.len()) as u64 + 1;
    let mut spent = 0;
    loop {
        if spent >= CHECK_BUDGET || sim.state.events >= MAX_EVENTS {
            sim.end_now();
            return Ok(Some(sim.state.events));
        }
        if !sim.step() {
            return Ok(None);
        }
        spent += per_event;
        crate::tests::invariants::check(&mut *sim).map_err(|e| format!("invariant at event {} ({} ns): {e}", sim.state.events, sim.now()))?;
    }
}

/// Runs to the end, or to the same cut as the checked run.
fn run_to(sim: &mut Simulation, cut: Option<u64>) {
    match cut {
        None => sim.run(),
        Some(k) => {
            while sim.state.events < k && sim.step() {}
            sim.end_now();
        }
    }
}

/// Runs every check on one input. Err: a violated property (the caller
/// turns panics into failures too).
pub(crate) fn case(text: &str, r: &mut Rng) -> Result<Outcome, String> {
    let sc = match scenario::parse(text) {
        Ok(sc) => sc,
        Err(e) => {
            clean(&e, "parse")?;
            return Ok(Outcome::Rejected);
        }
    };
    // The printer is the parser's inverse.
    let printed = scenario::to_toml(&sc);
    match scenario::parse(&printed) {
        Ok(back) => {
            let (a, b) = (without_positions(&sc), without_positions(&back));
            if a != b {
                let at = a.bytes().zip(b.bytes()).position(|(x, y)| x != y).unwrap_or(a.len().min(b.len()));
                let near = |s: &str| s.get(at.saturating_sub(80)..(at + 80).min(s.len())).unwrap_or("").to_string();
                return Err(format!("to_toml does not round-trip: parsed …{}… reprinted …{}…", near(&a), near(&b)));
            }
        }
        Err(e) => return Err(format!("to_toml printed what does not parse ({e}):\n{printed}")),
    }
    if sc.study.is_some() {
        study(&sc)?;
    }
    let (mut sim, cfg) = match build(&sc, &Overrides::default(), LogMode::Full) {
        Ok(x) => x,
        Err(e) => {
            clean(&e, "build")?;
            return Ok(Outcome::Unbuildable);
        }
    };
    let cut = run_checked(&mut sim)?;
    json_invariants(&sim)?;
    // The same run without a log: the same hash and events.
    let (mut again, _) = build(&sc, &Overrides::default(), LogMode::HashOnly).map_err(|e| format!("second build failed: {e}"))?;
    run_to(&mut again, cut);
    if (again.log.hash, again.state.events) != (sim.log.hash, sim.state.events) {
        return Err(format!("not deterministic: {} events / {:x} vs {} / {:x}", sim.state.events, sim.log.hash.0, again.state.events, again.log.hash.0));
    }
    expand(&sc, cfg.cpus, &sim, cut)?;
    compare(&sc, &sim, cut, r)?;
    explain(text, r)?;
    Ok(if cut.is_some() { Outcome::Cut } else { Outcome::Ran })
}

/// `schedlab expand`: the tasks and channels a workload became, printed
/// as TOML below the scenario's other tables, parse back to the same
/// tasks and run identically (the same log hash).
fn expand(sc: &scenario::Scenario, cpus: u32, run: &Simulation, cut: Option<u64>) -> Result<(), String> {
    let (tasks, channels, measures) = crate::lab::workload::expand_all(sc, cpus).map_err(|e| format!("expand failed after build succeeded: {e}"))?;
    let mut rest = sc.clone();
    rest.tasks.clear();
    rest.channels.clear();
    rest.workloads.clear();
    rest.study = None;
    let text = scenario::to_toml(&rest) + "\n" + &crate::lab::workload::to_toml(&tasks, &channels, &measures);
    let back = scenario::parse(&text).map_err(|e| format!("expanded TOML does not parse ({e}):\n{text}"))?;
    let strip = |ts: &[scenario::TaskSpec]| -> Vec<(String, u32, String)> { ts.iter().map(|t| (t.name.clone(), t.count, t.program.to_string())).collect() };
    if strip(&back.tasks) != strip(&tasks) {
        return Err(format!("expanded TOML has other tasks:\n{text}"));
    }
    let (mut again, _) = build(&back, &Overrides::default(), LogMode::HashOnly).map_err(|e| format!("expanded TOML does not build ({e}):\n{text}"))?;
    run_to(&mut again, cut);
    if (again.log.hash, again.state.events) != (run.log.hash, run.state.events) {
        return Err(format!("expanded TOML runs differently ({} events, {:x} vs {:x}):\n{text}", again.state.events, again.log.hash.0, run.log.hash.0));
    }
    Ok(())
}

/// `schedlab compare`: the first divergence against another configuration
/// is where the logs first differ.
fn compare(sc: &scenario::Scenario, a: &Simulation, cut: Option<u64>, r: &mut Rng) -> Result<(), String> {
    let kernel = super::gen::pick(r, &crate::kernel::sched::features::PRESET_NAMES);
    let spec = ConfigSpec::parse(kernel).map_err(|e| format!("config: {e}"))?;
    let mut b = match build(sc, &spec.overrides(None), LogMode::Full) {
        Ok((b, _)) => b,
        // Another kernel may refuse a flag the scenario sets: clean.
        Err(e) => return clean(&e, "compare build"),
    };
    run_to(&mut b, cut);
    let ea: Vec<_> = a.log.iter().collect();
    let eb: Vec<_> = b.log.iter().collect();
    match first_divergence(a, &b) {
        None if ea != eb => Err("compare: no divergence but the logs differ".into()),
        None => Ok(()),
        Some(d) => {
            let n = d.index;
            if ea.get(..n) != eb.get(..n) || ea.get(n) == eb.get(n) || d.base != ea.get(n).copied() || d.patch != eb.get(n).copied() {
                return Err(format!("compare: divergence at record {n} is not the first difference"));
            }
            Ok(())
        }
    }
}

/// `schedlab explain` and the page's player: every event explains in
/// words, and seeking back and forth lands on the state of stepping there.
fn explain(text: &str, r: &mut Rng) -> Result<(), String> {
    let mut p = Player::new(text, &Overrides::default()).map_err(|e| format!("player: {e}"))?;
    let n = r.uniform(1, 60);
    for _ in 0..n {
        if !p.step() {
            break;
        }
        let k = p.event();
        let ex = crate::lab::explain::explain_event(p.sim(), p.log(), &p.entries(k));
        if ex.headline.is_empty() {
            return Err(format!("explain: event {k} has no headline"));
        }
    }
    let k = p.event();
    let hash = p.sim().log.hash;
    p.seek(k / 2);
    p.seek(k);
    if p.sim().log.hash != hash || p.event() != k {
        return Err(format!("player: seeking back to {} and forward to {k} changed the state", k / 2));
    }
    Ok(())
}

/// `schedlab study`: planning ends in a plan or a clean error; one run of
/// a shortened copy gives a value; a cell's scenario text parses.
fn study(sc: &scenario::Scenario) -> Result<(), String> {
    let mut short = sc.clone();
    short.sim.duration = short.sim.duration.min(3_000_000);
    let s = match crate::lab::study::Study::from_scenario(short) {
        Ok(s) => s,
        Err(e) => return clean(&e, "study"),
    };
    let _ = s.table().format(true);
    if let Some(&key) = s.runs.first() {
        let text = s.run_scenario_text(key);
        scenario::parse(&text).map_err(|e| format!("a study cell's scenario does not parse ({e}):\n{text}"))?;
        if let Err(e) = s.run_one(0) {
            if e.trim().is_empty() || e.len() > MAX_MESSAGE {
                return Err(format!("study run: unclear error `{e}`"));
            }
        }
    }
    Ok(())
}

/// A scenario's debug form with every position blanked: positions differ
/// between a text and its reprint, nothing else may.
fn without_positions(sc: &scenario::Scenario) -> String {
    let s = format!("{sc:?}");
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    while let Some(i) = rest.find("Pos { line: ") {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let end = tail.find('}').map_or(tail.len(), |j| j + 1);
        out.push_str("Pos");
        rest = &tail[end..];
    }
    out.push_str(rest);
    out
}
