//! From a scenario to what validation will run: the task instances, the
//! one CPU they share, the run length — or a clear refusal of what cannot
//! be run for real (or not modelled yet). Also builds the model's copy of
//! the scenario, tuned like the local kernel.

use std::sync::Arc;

use schedlab_engine::program::Program;
use schedlab_engine::scenario::{CpuList, Named, Policy, Pos, Scenario, StmtKind, Stmt, Topology};

/// Runs longer than this need `--duration`.
pub const DEFAULT_MAX_DURATION_NS: u64 = 10_000_000_000;
/// The longest run validation accepts at all.
pub const MAX_DURATION_NS: u64 = 600_000_000_000;
/// The most threads one validation starts.
pub const MAX_THREADS: usize = 256;

/// One task as it will run: a scenario task with `count = n` gives n
/// instances, named as the engine names them.
#[derive(Clone, Debug)]
pub struct Instance {
    pub name: String,
    pub nice: i32,
    pub policy: Policy,
    pub slice: Option<u64>,
    pub start: u64,
    pub program: Arc<Program>,
}

#[derive(Clone, Debug)]
pub struct Plan {
    pub scenario: Scenario,
    pub instances: Vec<Instance>,
    /// The CPU every task is pinned to, as the scenario numbers it.
    pub scenario_cpu: u32,
    pub duration_ns: u64,
    /// Things the user should know (a capped duration, ignored keys).
    pub notes: Vec<String>,
}

fn at(key: &str, pos: Pos, msg: impl std::fmt::Display) -> String {
    format!("{key} at {pos}: {msg}")
}

/// Settings the real kernel cannot take from a scenario.
fn refuse_sim_overrides(sc: &Scenario) -> Result<(), String> {
    if let Some((f, _)) = sc.sim.features.first() {
        return Err(at(&f.key, f.pos, "feature flags cannot be switched on the real kernel here; remove [sim].features to validate"));
    }
    if let Some(p) = sc.sim.patches.first() {
        return Err(at(&p.key, p.pos, "the real kernel cannot be patched; remove [sim].patches to validate"));
    }
    Ok(())
}

/// The CPU count a scenario's `[topology]` asks for.
fn topology_cpus(t: &Topology) -> u64 {
    if t.preset.as_ref().is_some_and(|p| p.name == "1cpu") {
        return 1;
    }
    [t.sockets, t.llcs_per_socket, t.cores_per_llc, t.threads_per_core].iter().flatten().map(|(n, _)| *n as u64).product()
}

fn refuse_topology(sc: &Scenario, machine_cpus: usize) -> Result<(), String> {
    let want = topology_cpus(&sc.topology);
    if want > machine_cpus as u64 {
        return Err(at("topology", sc.topology.pos, format!("the scenario has {want} CPUs, this machine has {machine_cpus} online")));
    }
    if want > 1 {
        return Err(at("topology", sc.topology.pos, "multi-CPU scenarios cannot be validated yet: the model has one CPU"));
    }
    Ok(())
}

/// The one CPU all tasks are pinned to. The model has one CPU, so every
/// task must be pinned, to the same single CPU.
fn single_cpu(sc: &Scenario) -> Result<u32, String> {
    let mut cpu = None;
    for (i, t) in sc.tasks.iter().enumerate() {
        let key = format!("task[{i}].affinity");
        let Some((list, pos)) = &t.affinity else {
            return Err(at(&key, t.pos, "every task must be pinned to one CPU (affinity = \"N\"): the model has one CPU, the machine more"));
        };
        let [c] = list.0[..] else {
            return Err(at(&key, *pos, format!("`{list}` is more than one CPU: the model has one CPU")));
        };
        if cpu.is_some_and(|prev| prev != c) {
            return Err(at(&key, *pos, format!("CPU {c}, but an earlier task is on CPU {}: all tasks must share one CPU", cpu.unwrap_or(0))));
        }
        cpu = Some(c);
    }
    cpu.ok_or_else(|| "the scenario has no tasks".to_string())
}

fn any_stmt(stmts: &[Stmt], f: &impl Fn(&StmtKind) -> bool) -> bool {
    stmts.iter().any(|s| f(&s.kind) || matches!(&s.kind, StmtKind::Loop { body, .. } if any_stmt(body, f)))
}

/// Custom slices (task `slice`, program `slice D`) need v6.12's
/// sched_setattr(sched_runtime) support.
fn refuse_custom_slice(sc: &Scenario, version: (u32, u32)) -> Result<(), String> {
    if version >= (6, 12) {
        return Ok(());
    }
    for (i, t) in sc.tasks.iter().enumerate() {
        if t.slice.is_some() || any_stmt(&t.program.stmts, &|k| matches!(k, StmtKind::Slice(_))) {
            return Err(at(
                &format!("task[{i}]"),
                t.pos,
                format!("custom slices need kernel 6.12 or later; this kernel ({}.{}) ignores sched_runtime for fair tasks", version.0, version.1),
            ));
        }
    }
    Ok(())
}

/// Names for a validation run, which has no channels or wake targets
/// (`refuse_interaction` rejected them before compiling).
struct NoNames;

impl schedlab_engine::program::Names for NoNames {
    fn channel(&mut self, _: &str) -> u32 {
        0
    }
    fn task(&self, _: &str) -> Option<u32> {
        None
    }
}

fn compile(i: usize, stmts: &[Stmt]) -> Result<Arc<Program>, String> {
    Program::compile(stmts, &mut NoNames)
        .map(Arc::new)
        .map_err(|u| at(&format!("task[{i}].program"), u.pos, format!("{} cannot be validated", u.what)))
}

/// Tasks that talk to each other (channels, wake/wait, call/reply) and
/// workload macros need a real implementation of those primitives on the
/// kernel side, which the validator does not have: refuse them.
fn refuse_interaction(sc: &Scenario) -> Result<(), String> {
    if let Some(w) = sc.workloads.first() {
        return Err(at("workload[0]", w.pos, "workload macros cannot be validated: the validator runs only run/sleep/yield/nice/slice programs"));
    }
    let talks = |k: &StmtKind| {
        matches!(k, StmtKind::Send { .. } | StmtKind::Recv { .. } | StmtKind::Wake(_) | StmtKind::Wait | StmtKind::Call(_) | StmtKind::Reply)
    };
    for (i, t) in sc.tasks.iter().enumerate() {
        if any_stmt(&t.program.stmts, &talks) {
            return Err(at(
                &format!("task[{i}].program"),
                t.pos,
                "channels and wakes (send/recv/wake/wait/call/reply) cannot be validated: the validator runs only run/sleep/yield/nice/slice programs",
            ));
        }
    }
    Ok(())
}

fn instances(sc: &Scenario) -> Result<Vec<Instance>, String> {
    let mut out = Vec::new();
    for (i, t) in sc.tasks.iter().enumerate() {
        let program = compile(i, &t.program.stmts)?;
        for k in 0..t.count {
            if out.len() == MAX_THREADS {
                return Err(format!("more than {MAX_THREADS} tasks: too many threads to validate"));
            }
            let name = if t.count == 1 { t.name.clone() } else { format!("{}.{k}", t.name) };
            out.push(Instance { name, nice: t.nice, policy: t.policy, slice: t.slice, start: t.start, program: program.clone() });
        }
    }
    Ok(out)
}

/// The run length: `--duration`, else the scenario's, capped at 10 s.
fn duration(sc: &Scenario, requested: Option<u64>, notes: &mut Vec<String>) -> Result<u64, String> {
    let d = match requested {
        Some(d) => d,
        None if sc.sim.duration > DEFAULT_MAX_DURATION_NS => {
            notes.push(format!("the scenario's duration is capped at {} s (use --duration to run longer)", DEFAULT_MAX_DURATION_NS / 1_000_000_000));
            DEFAULT_MAX_DURATION_NS
        }
        None => sc.sim.duration,
    };
    if d == 0 || d > MAX_DURATION_NS {
        return Err(format!("duration must be between 1 ns and {} s", MAX_DURATION_NS / 1_000_000_000));
    }
    Ok(d)
}

fn tunable_notes(sc: &Scenario, preset: &str, notes: &mut Vec<String>) {
    if sc.sim.kernel.name != preset && sc.sim.kernel.pos != Pos::START {
        notes.push(format!("the scenario asks for kernel {}; the model runs preset {preset}, the local kernel's", sc.sim.kernel.name));
    }
    if sc.sim.hz.is_some() || sc.sim.base_slice.is_some() || sc.sim.tunable_scaling.is_some() {
        notes.push("the scenario's hz/base_slice/tunable_scaling are replaced by the local kernel's".into());
    }
}

/// Checks a scenario and lays out its run. `version` is the local
/// kernel's, `machine_cpus` its online CPU count, `preset` the model's.
pub fn plan(sc: Scenario, version: (u32, u32), machine_cpus: usize, preset: &str, requested: Option<u64>) -> Result<Plan, String> {
    refuse_sim_overrides(&sc)?;
    refuse_topology(&sc, machine_cpus)?;
    refuse_interaction(&sc)?;
    let instances = instances(&sc)?;
    let scenario_cpu = single_cpu(&sc)?;
    refuse_custom_slice(&sc, version)?;
    let mut notes = Vec::new();
    let duration_ns = duration(&sc, requested, &mut notes)?;
    tunable_notes(&sc, preset, &mut notes);
    Ok(Plan { scenario: sc, instances, scenario_cpu, duration_ns, notes })
}

/// The local kernel's tunables, as the model takes them.
#[derive(Clone, Copy, Debug)]
pub struct Tuning<'a> {
    pub preset: &'a str,
    pub hz: u32,
    pub base_slice_ns: u64,
}

/// The scenario the model runs: the local kernel's preset, HZ and base
/// slice, one CPU (numbered 0), this run's duration and seed.
pub fn model_scenario(plan: &Plan, tuning: Tuning, seed: u64) -> Scenario {
    let mut sc = plan.scenario.clone();
    sc.sim.kernel = Named { name: tuning.preset.to_string(), key: "sim.kernel".into(), pos: Pos::START };
    sc.sim.hz = Some((tuning.hz, Pos::START));
    sc.sim.base_slice = Some((tuning.base_slice_ns, Pos::START));
    sc.sim.tunable_scaling = None;
    sc.sim.duration = plan.duration_ns;
    sc.sim.seed = seed;
    sc.topology = Topology { preset: None, sockets: None, llcs_per_socket: None, cores_per_llc: None, threads_per_core: None, pos: Pos::START };
    for t in &mut sc.tasks {
        t.affinity = t.affinity.take().map(|(_, pos)| (CpuList(vec![0]), pos));
    }
    sc
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_engine::scenario::parse;

    const NICE: &str = "[sim]\nduration = \"2s\"\n[[task]]\nname = \"a\"\naffinity = \"1\"\nprogram = \"run\"\n\
                        [[task]]\nname = \"b\"\nnice = 5\ncount = 2\naffinity = \"1\"\nprogram = \"loop { sleep 10ms; run 1ms }\"\n";

    fn try_plan(text: &str) -> Result<Plan, String> {
        plan(parse(text).map_err(|e| e.to_string())?, (6, 18), 2, "6.18", None)
    }

    #[test]
    fn instances_are_named_like_the_engine() {
        let p = try_plan(NICE).unwrap();
        let names: Vec<&str> = p.instances.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["a", "b.0", "b.1"]);
        assert_eq!((p.scenario_cpu, p.duration_ns), (1, 2_000_000_000));
        assert_eq!(p.instances[2].nice, 5);
    }

    #[test]
    fn refusals_name_the_reason() {
        let cases = [
            ("[[task]]\nname = \"a\"\nprogram = \"run\"\n", "must be pinned"),
            ("[[task]]\nname = \"a\"\naffinity = \"0-1\"\nprogram = \"run\"\n", "more than one CPU"),
            ("[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"run\"\n[[task]]\nname = \"b\"\naffinity = \"1\"\nprogram = \"run\"\n", "share one CPU"),
            ("[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"send c\"\n[[task]]\nname = \"b\"\naffinity = \"0\"\nprogram = \"recv c\"\n", "channels"),
            ("[sim]\nfeatures = { RUN_TO_PARITY = false }\n[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"run\"\n", "feature flags"),
            ("[topology]\nsockets = 2\ncores_per_llc = 4\n[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"run\"\n", "this machine has 2"),
            ("[topology]\ncores_per_llc = 2\n[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"run\"\n", "model has one CPU"),
        ];
        for (text, want) in cases {
            let e = try_plan(text).unwrap_err();
            assert!(e.contains(want), "{want}: {e}");
        }
    }

    #[test]
    fn custom_slices_need_6_12() {
        let text = "[[task]]\nname = \"a\"\naffinity = \"0\"\nslice = \"300us\"\nprogram = \"run\"\n";
        assert!(plan(parse(text).unwrap(), (6, 12), 2, "6.12", None).is_ok());
        let e = plan(parse(text).unwrap(), (6, 8), 2, "6.6", None).unwrap_err();
        assert!(e.contains("6.12"), "{e}");
        let text = "[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"loop { slice 1ms; run 1ms }\"\n";
        assert!(plan(parse(text).unwrap(), (6, 6), 2, "6.6", None).is_err());
    }

    #[test]
    fn long_scenarios_are_capped_unless_asked() {
        let text = "[sim]\nduration = \"60s\"\n[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"run\"\n";
        let p = try_plan(text).unwrap();
        assert_eq!(p.duration_ns, DEFAULT_MAX_DURATION_NS);
        assert!(p.notes[0].contains("capped"));
        let p = plan(parse(text).unwrap(), (6, 18), 2, "6.18", Some(30_000_000_000)).unwrap();
        assert_eq!(p.duration_ns, 30_000_000_000);
    }

    #[test]
    fn model_scenario_is_tuned_and_on_cpu_0() {
        let p = try_plan(NICE).unwrap();
        let sc = model_scenario(&p, Tuning { preset: "6.12", hz: 1000, base_slice_ns: 1_400_000 }, 7);
        let (sim, cfg) = schedlab_engine::build(&sc, &Default::default(), schedlab_engine::LogMode::HashOnly).unwrap();
        assert_eq!((cfg.kernel.as_str(), cfg.tunables.hz, cfg.tunables.base_slice, cfg.seed), ("6.12", 1000, 1_400_000, 7));
        assert_eq!(sim.sched().tasks.len(), 3);
    }
}
