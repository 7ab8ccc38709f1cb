//! From a scenario to what validation will run: the task instances, the
//! CPUs they run on (one CPU they share, or the whole machine when the
//! scenario's topology is this machine's), the channels (pipes) between
//! them, the run length — or a clear refusal of what cannot be run for
//! real (or not modelled yet).
//! Workload macros are expanded first, as the model expands them. Also
//! builds the model's copy of the scenario, tuned like the local kernel.

use std::sync::Arc;

use super::topology::Shape;

use schedlab_engine::lab::build;
use schedlab_engine::lab::program::Program;
use schedlab_engine::lab::scenario::{ChannelKind, ChannelSpec, CpuList, Named, Policy, Pos, Scenario, StmtKind, Stmt, TaskSpec, Topology, DEFAULT_CHANNEL_CAPACITY};

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
    /// Its affinity as the scenario writes it; None: any CPU.
    pub cpus: Option<Vec<u32>>,
}

/// The size every channel's pipe is set to (`F_SETPIPE_SZ`): one page.
pub const PIPE_BYTES: u64 = 4096;

/// A channel as validation runs it: a pipe holding `capacity` messages of
/// `msg_bytes` each (see [`message_bytes`]), or, for a `sync = false`
/// channel, a queue of real-time signals to the one task that receives
/// from it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelPlan {
    pub name: String,
    pub capacity: u64,
    /// The pipe's size asked for: its `pages` of [`PIPE_BYTES`] each. 0 for
    /// a signal queue.
    pub pipe_bytes: u64,
    /// With a pipe of `pipe_bytes`; recomputed from the size the kernel
    /// actually sets. 0 for a signal queue.
    pub msg_bytes: u64,
    /// A signal queue: the instance that receives, and the signal number.
    pub signals: Option<SignalQueue>,
}

/// A `sync = false` channel run as real-time signals: sigqueue() to a
/// thread (rt_tgsigqueueinfo()), taken by that thread with sigwaitinfo()
/// as stress-ng's sigrt children take theirs (ipc.rs says why not a
/// signalfd, as its sigfd parent reads); either wakes without WF_SYNC.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignalQueue {
    pub receiver: u32,
    pub signo: i32,
}

/// The real-time signals a run may use for signal queues: SIGRTMIN (34 as
/// glibc numbers it; 32 and 33 are its threads' own) to SIGRTMAX (64).
pub const SIGNALS: std::ops::RangeInclusive<i32> = 34..=64;

/// The rule that maps a channel onto a pipe: a channel of capacity C is a
/// pipe of P bytes holding C messages of P / C bytes, so that it is full
/// (a writer blocks) exactly when it holds C messages. C must divide P —
/// with P = 4096, C is a power of two from 1 to 4096 — otherwise C
/// messages would not fill the pipe (or a message would be under a byte).
pub fn message_bytes(pipe_bytes: u64, capacity: u64) -> Result<u64, String> {
    if capacity == 0 || capacity > pipe_bytes || !pipe_bytes.is_multiple_of(capacity) {
        let why = if capacity > pipe_bytes { format!("its messages would be under 1 byte ({pipe_bytes} / {capacity})") } else { format!("{capacity} does not divide {pipe_bytes}") };
        return Err(format!(
            "capacity {capacity} cannot be validated: a channel runs as a pipe of {pipe_bytes} bytes holding `capacity` messages of equal size, \
             so the capacity must divide {pipe_bytes} (a power of two from 1 to {pipe_bytes}); {why}"
        ));
    }
    Ok(pipe_bytes / capacity)
}

#[derive(Clone, Debug)]
pub struct Plan {
    /// The scenario with its workload macros expanded into tasks and
    /// channels (what both sides run).
    pub scenario: Scenario,
    pub instances: Vec<Instance>,
    /// Channel ids as the instances' programs use them.
    pub channels: Vec<ChannelPlan>,
    pub layout: Layout,
    pub duration_ns: u64,
    /// Things the user should know (a capped duration, ignored keys).
    pub notes: Vec<String>,
}

/// Which CPUs a plan runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// Every task pinned to this one CPU (as the scenario numbers it); the
    /// model runs it alone.
    OneCpu(u32),
    /// The scenario's topology is this machine's, numbered alike: every
    /// CPU is used, tasks keep their affinities (none: any CPU), and the
    /// model runs the same machine, so placement and balancing compare.
    Machine(Shape),
}

impl Plan {
    /// The scenario's CPU of a one-CPU plan.
    pub fn one_cpu(&self) -> Option<u32> {
        match self.layout {
            Layout::OneCpu(c) => Some(c),
            Layout::Machine(_) => None,
        }
    }
}

/// The machine a scenario is checked against.
#[derive(Clone, Debug)]
pub struct Machine {
    /// Online CPUs.
    pub online: usize,
    /// Its shape, when the engine numbers a machine of that shape alike
    /// (`HostTopology::model_shape`), or why not.
    pub shape: Result<Shape, String>,
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

/// The machine a scenario's `[topology]` describes, as the engine builds it.
fn scenario_shape(sc: &Scenario) -> Result<Shape, String> {
    let t = build::topology(&sc.topology).map_err(|e| e.to_string())?;
    Ok(Shape { sockets: t.sockets, llcs_per_socket: t.llcs_per_socket, cores_per_llc: t.cores_per_llc, threads_per_core: t.threads_per_core })
}

/// One CPU, or — for a multi-CPU scenario — the whole machine, when the
/// scenario's topology is the machine's.
fn layout(sc: &Scenario, written: usize, machine: &Machine) -> Result<Layout, String> {
    let want = scenario_shape(sc)?;
    if want.cpus() as usize > machine.online {
        return Err(at("topology", sc.topology.pos, format!("the scenario has {} CPUs, this machine has {} online", want.cpus(), machine.online)));
    }
    if want.cpus() == 1 {
        return single_cpu(sc, written).map(Layout::OneCpu);
    }
    let host = machine.shape.as_ref().map_err(|e| at("topology", sc.topology.pos, format!("this machine's topology cannot be modelled CPU for CPU ({e}): only one-CPU scenarios can be validated here")))?;
    if want != *host {
        return Err(at(
            "topology",
            sc.topology.pos,
            format!(
                "a multi-CPU scenario must have this machine's topology to be run on it ({} sockets × {} LLCs × {} cores × {} threads; the scenario has {} × {} × {} × {}), or one CPU",
                host.sockets, host.llcs_per_socket, host.cores_per_llc, host.threads_per_core, want.sockets, want.llcs_per_socket, want.cores_per_llc, want.threads_per_core
            ),
        ));
    }
    for (i, t) in sc.tasks.iter().enumerate() {
        if let Some((list, pos)) = &t.affinity {
            if let Some(c) = list.0.iter().find(|&&c| c >= want.cpus()) {
                return Err(at(&format!("{}.affinity", task_key(written, i, t)), *pos, format!("CPU {c} is not one of the scenario's {} CPUs", want.cpus())));
            }
        }
    }
    Ok(Layout::Machine(want))
}

/// How errors name task `i` of the expanded scenario: `task[i]` for one
/// written by hand (the first `written`), `task `NAME`` for one a workload
/// macro made (as the model's build names them).
fn task_key(written: usize, i: usize, t: &TaskSpec) -> String {
    if i < written {
        format!("task[{i}]")
    } else {
        format!("task `{}`", t.name)
    }
}

/// The one CPU all tasks are pinned to. The model has one CPU, so every
/// task must be pinned, to the same single CPU.
fn single_cpu(sc: &Scenario, written: usize) -> Result<u32, String> {
    let mut cpu = None;
    for (i, t) in sc.tasks.iter().enumerate() {
        let key = format!("{}.affinity", task_key(written, i, t));
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
    find_stmt(stmts, f).is_some()
}

/// The first statement, in loops too, for which `f` holds.
fn find_stmt<'s>(stmts: &'s [Stmt], f: &impl Fn(&StmtKind) -> bool) -> Option<&'s Stmt> {
    stmts.iter().find_map(|s| match &s.kind {
        k if f(k) => Some(s),
        StmtKind::Loop { body, .. } => find_stmt(body, f),
        _ => None,
    })
}

/// Custom slices (task `slice`, program `slice D`) need v6.12's
/// sched_setattr(sched_runtime) support.
fn refuse_custom_slice(sc: &Scenario, written: usize, version: (u32, u32)) -> Result<(), String> {
    if version >= (6, 12) {
        return Ok(());
    }
    for (i, t) in sc.tasks.iter().enumerate() {
        if t.slice.is_some() || any_stmt(&t.program.stmts, &|k| matches!(k, StmtKind::Slice(_))) {
            return Err(at(
                &task_key(written, i, t),
                t.pos,
                format!("custom slices need kernel 6.12 or later; this kernel ({}.{}) ignores sched_runtime for fair tasks", version.0, version.1),
            ));
        }
    }
    Ok(())
}

/// Resolves channel and task names as the model's build does: channels are
/// numbered on first use and take the capacity a `[[channel]]` gives
/// (default 1024); tasks are instance names in order.
struct Resolver<'a> {
    specs: &'a [ChannelSpec],
    chans: Vec<(String, u64)>,
    tasks: Vec<String>,
}

impl schedlab_engine::lab::program::Names for Resolver<'_> {
    fn channel(&mut self, name: &str) -> u32 {
        if let Some(i) = self.chans.iter().position(|(n, _)| n == name) {
            return i as u32;
        }
        let cap = self.specs.iter().find(|c| c.name == name).map_or(DEFAULT_CHANNEL_CAPACITY, |c| c.capacity);
        self.chans.push((name.to_string(), cap));
        self.chans.len() as u32 - 1
    }
    fn task(&self, name: &str) -> Option<u32> {
        self.tasks.iter().position(|n| n == name).map(|i| i as u32)
    }
}

/// The instance names of the tasks: "name" or "name.0" .. "name.{n-1}".
fn instance_names(tasks: &[TaskSpec]) -> Vec<String> {
    tasks.iter().flat_map(|t| (0..t.count).map(move |k| if t.count == 1 { t.name.clone() } else { format!("{}.{k}", t.name) })).collect()
}

/// How errors name the `[[channel]]` entry `i`: `channel[i].FIELD` for one
/// the scenario wrote (the first `written`), `channel `NAME` (from a
/// workload)` for one a macro made.
fn channel_key(sc: &Scenario, written: usize, i: usize, field: &str) -> String {
    if i < written {
        format!("channel[{i}].{field}")
    } else {
        format!("channel `{}` (from a workload)", sc.channels[i].name)
    }
}

/// Each used channel with its message size; a capacity that does not map
/// onto a pipe is refused where it was written (`[[channel]]` entries the
/// scenario wrote come first, then those of workload macros). A
/// `sync = false` channel becomes a signal queue to its one receiver.
fn channel_plans(sc: &Scenario, written_channels: usize, used: &[(String, u64)]) -> Result<Vec<ChannelPlan>, String> {
    let mut signals = SIGNALS;
    used.iter()
        .map(|(name, capacity)| {
            if let Some(i) = sc.channels.iter().position(|c| c.name == *name && !c.sync) {
                let (key, pos) = (channel_key(sc, written_channels, i, "sync"), sc.channels[i].pos);
                let receiver = signal_receiver(sc, name).map_err(|e| at(&key, pos, format!("channel `{name}`: {e}")))?;
                let signo = signals.next().ok_or_else(|| at(&key, pos, format!("more than {} signal queues (sync = false channels): one real-time signal each", SIGNALS.count())))?;
                return Ok(ChannelPlan { name: name.clone(), capacity: *capacity, pipe_bytes: 0, msg_bytes: 0, signals: Some(SignalQueue { receiver, signo }) });
            }
            let spec = sc.channels.iter().position(|c| c.name == *name);
            let pages = match spec.map(|i| (i, sc.channels[i].kind)) {
                Some((i, ChannelKind::Socket { .. })) => {
                    let msg = "kind = \"socket\" is modelled but cannot be validated yet: validation runs every channel as a pipe";
                    let msg = if i < written_channels { format!("channel `{name}`: {msg}") } else { msg.to_string() };
                    return Err(at(&channel_key(sc, written_channels, i, "kind"), sc.channels[i].pos, msg));
                }
                Some((_, ChannelKind::Pipe { pages })) => pages,
                None => 1,
            };
            let pipe_bytes = pages * PIPE_BYTES;
            let msg_bytes = message_bytes(pipe_bytes, *capacity).map_err(|e| match spec {
                Some(i) => at(&channel_key(sc, written_channels, i, "capacity"), sc.channels[i].pos, if i < written_channels { format!("channel `{name}`: {e}") } else { e }),
                None => format!("channel `{name}`: {e}"),
            })?;
            Ok(ChannelPlan { name: name.clone(), capacity: *capacity, pipe_bytes, msg_bytes, signals: None })
        })
        .collect()
}

/// The one instance that receives from signal queue `name`: a signal is
/// queued to a thread, so exactly one task may `recv` from it.
fn signal_receiver(sc: &Scenario, name: &str) -> Result<u32, String> {
    let recv = |k: &StmtKind| matches!(k, StmtKind::Recv { chan, .. } if chan == name);
    let mut first = 0;
    let mut receivers = Vec::new();
    for t in &sc.tasks {
        if any_stmt(&t.program.stmts, &recv) {
            receivers.extend(first..first + t.count);
        }
        first += t.count;
    }
    match (receivers.first(), receivers.get(1)) {
        (Some(&r), None) => Ok(r),
        (None, _) => Err("a signal queue (sync = false) needs a task that receives from it".into()),
        (Some(_), Some(_)) => Err("a signal queue (sync = false) is sent to one thread: only one task (instance) may receive from it".into()),
    }
}

/// `call`/`reply` (schbench's request lists) have no real counterpart in
/// the validator yet: refuse them, naming the workload that made them.
fn refuse_call_reply(sc: &Scenario, written: usize) -> Result<(), String> {
    let calls = |k: &StmtKind| matches!(k, StmtKind::Call(_) | StmtKind::Reply);
    for (i, t) in sc.tasks.iter().enumerate() {
        if let Some(stmt) = find_stmt(&t.program.stmts, &calls) {
            let from = if i < written { String::new() } else { " (made by a [[workload]] macro)".to_string() };
            return Err(at(
                &format!("{}.program", task_key(written, i, t)),
                stmt.pos,
                format!(
                    "call/reply cannot be validated yet{from}: the validator runs run/sleep/yield/nice/slice/exit, \
                     send/recv (pipes), wake/wait and futex_wake/futex_wait (futexes)"
                ),
            ));
        }
    }
    Ok(())
}

/// The scenario with its `[[workload]]` macros replaced by the tasks and
/// channels they expand to (for one CPU, the model's), as the model's build
/// would do. Returns it and how many tasks were written by hand.
fn expand(mut sc: Scenario) -> Result<(Scenario, usize), String> {
    let written = sc.tasks.len();
    if sc.workloads.is_empty() {
        return Ok((sc, written));
    }
    let (tasks, channels, _) = schedlab_engine::lab::workload::expand_all(&sc, 1).map_err(|e| e.to_string())?;
    sc.tasks = tasks;
    sc.channels = channels;
    sc.workloads.clear();
    Ok((sc, written))
}

/// The real threads make real system calls, so nothing is added for them
/// (`costs.channel_op` is the model's stand-in for those calls).
fn compile(key: &str, stmts: &[Stmt], names: &mut Resolver) -> Result<Arc<Program>, String> {
    Program::compile(stmts, names, 0).map(Arc::new).map_err(|u| at(&format!("{key}.program"), u.pos, format!("{} cannot be validated", u.what)))
}

/// Tasks of different `process`es: the model charges `costs.context_switch`
/// between them, while the real tasks are threads of one process.
fn process_note(sc: &Scenario, channels: bool, notes: &mut Vec<String>) {
    let talks = |k: &StmtKind| matches!(k, StmtKind::Wake(_) | StmtKind::Wait | StmtKind::FutexWake(_) | StmtKind::FutexWait(_));
    let interacts = channels || sc.tasks.iter().any(|t| any_stmt(&t.program.stmts, &talks));
    let first = sc.tasks.first().and_then(|t| t.process.clone());
    let one_process = first.is_some() && sc.tasks.iter().all(|t| t.process == first);
    if interacts && !one_process {
        notes.push(
            "the real tasks are threads of one process (a switch between them keeps the address space); the model charges \
             costs.context_switch between tasks of different `process`es, costs.thread_switch within one: give the tasks one `process` to compare like with like"
                .into(),
        );
    }
}

fn instances(sc: &Scenario, written: usize, names: &mut Resolver) -> Result<Vec<Instance>, String> {
    let mut out = Vec::new();
    for (i, t) in sc.tasks.iter().enumerate() {
        let program = compile(&task_key(written, i, t), &t.program.stmts, names)?;
        for k in 0..t.count {
            if out.len() == MAX_THREADS {
                return Err(format!("more than {MAX_THREADS} tasks: too many threads to validate"));
            }
            let name = if t.count == 1 { t.name.clone() } else { format!("{}.{k}", t.name) };
            let cpus = t.affinity.as_ref().map(|(l, _)| l.0.clone());
            out.push(Instance { name, nice: t.nice, policy: t.policy, slice: t.slice, start: t.start, program: program.clone(), cpus });
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
pub fn plan(sc: Scenario, version: (u32, u32), machine: &Machine, preset: &str, requested: Option<u64>) -> Result<Plan, String> {
    refuse_sim_overrides(&sc)?;
    let written_channels = sc.channels.len();
    let (sc, written) = expand(sc)?;
    let layout = layout(&sc, written, machine)?;
    refuse_call_reply(&sc, written)?;
    let mut names = Resolver { specs: &sc.channels, chans: Vec::new(), tasks: instance_names(&sc.tasks) };
    let instances = instances(&sc, written, &mut names)?;
    let channels = channel_plans(&sc, written_channels, &names.chans)?;
    refuse_custom_slice(&sc, written, version)?;
    let mut notes = Vec::new();
    let duration_ns = duration(&sc, requested, &mut notes)?;
    tunable_notes(&sc, preset, &mut notes);
    let pipes: Vec<String> = channels
        .iter()
        .filter(|c| c.signals.is_none())
        .map(|c| {
            let pages = c.pipe_bytes / PIPE_BYTES;
            let of_pages = if pages > 1 { format!(" in {pages} pages") } else { String::new() };
            format!("{} ({} × {} B{of_pages})", c.name, c.capacity, c.msg_bytes)
        })
        .collect();
    if !pipes.is_empty() {
        notes.push(format!("channels are pipes of {PIPE_BYTES}-byte pages, capacity × message size: {}", pipes.join(", ")));
    }
    let queues: Vec<String> = channels.iter().filter_map(|c| c.signals.map(|q| format!("{} (signal {})", c.name, q.signo))).collect();
    if !queues.is_empty() {
        notes.push(format!("sync = false channels are real-time signal queues (rt_tgsigqueueinfo() to the receiver, taken with sigwaitinfo()): {}", queues.join(", ")));
    }
    process_note(&sc, !channels.is_empty(), &mut notes);
    Ok(Plan { scenario: sc, instances, channels, layout, duration_ns, notes })
}

/// The local kernel's tunables, as the model takes them.
#[derive(Clone, Copy, Debug)]
pub struct Tuning<'a> {
    pub preset: &'a str,
    pub hz: u32,
    pub base_slice_ns: u64,
}

/// The scenario the model runs: the local kernel's preset, HZ and base
/// slice, this run's duration and seed, and one CPU (numbered 0) or the
/// scenario's own machine.
pub fn model_scenario(plan: &Plan, tuning: Tuning, seed: u64) -> Scenario {
    let mut sc = plan.scenario.clone();
    sc.sim.kernel = Named { name: tuning.preset.to_string(), key: "sim.kernel".into(), pos: Pos::START };
    sc.sim.hz = Some((tuning.hz, Pos::START));
    sc.sim.base_slice = Some((tuning.base_slice_ns, Pos::START));
    sc.sim.tunable_scaling = None;
    sc.sim.duration = plan.duration_ns;
    sc.sim.seed = seed;
    if let Layout::Machine(_) = plan.layout {
        return sc;
    }
    sc.topology = Topology { preset: None, sockets: None, llcs_per_socket: None, cores_per_llc: None, threads_per_core: None, pos: Pos::START };
    for t in &mut sc.tasks {
        t.affinity = t.affinity.take().map(|(_, pos)| (CpuList(vec![0]), pos));
    }
    sc
}

#[cfg(test)]
pub mod tests {
    use super::*;
    use schedlab_engine::lab::scenario::parse;

    const NICE: &str = "[sim]\nduration = \"2s\"\n[[task]]\nname = \"a\"\naffinity = \"1\"\nprogram = \"run\"\n\
                        [[task]]\nname = \"b\"\nnice = 5\ncount = 2\naffinity = \"1\"\nprogram = \"loop { sleep 10ms; run 1ms }\"\n";

    /// This machine: two cores of one LLC.
    pub fn vm() -> Machine {
        Machine { online: 2, shape: Ok(Shape { sockets: 1, llcs_per_socket: 1, cores_per_llc: 2, threads_per_core: 1 }) }
    }

    fn try_plan(text: &str) -> Result<Plan, String> {
        plan(parse(text).map_err(|e| e.to_string())?, (6, 18), &vm(), "6.18", None)
    }

    #[test]
    fn instances_are_named_like_the_engine() {
        let p = try_plan(NICE).unwrap();
        let names: Vec<&str> = p.instances.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["a", "b.0", "b.1"]);
        assert_eq!((p.layout, p.duration_ns), (Layout::OneCpu(1), 2_000_000_000));
        assert_eq!(p.instances[2].nice, 5);
    }

    #[test]
    fn refusals_name_the_reason() {
        let cases = [
            ("[[task]]\nname = \"a\"\nprogram = \"run\"\n", "must be pinned"),
            ("[[task]]\nname = \"a\"\naffinity = \"0-1\"\nprogram = \"run\"\n", "more than one CPU"),
            ("[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"run\"\n[[task]]\nname = \"b\"\naffinity = \"1\"\nprogram = \"run\"\n", "share one CPU"),
            ("[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"call b\"\n[[task]]\nname = \"b\"\naffinity = \"0\"\nprogram = \"reply\"\n", "task[0].program at line 4, column 12: call/reply cannot be validated yet"),
            ("[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"wake nobody\"\n", "no task named `nobody`"),
            ("[[channel]]\nname = \"c\"\ncapacity = 1000\n[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"send c\"\n", "channel[0].capacity at line 1, column 1: channel `c`: capacity 1000"),
            ("[[workload]]\nkind = \"schbench\"\naffinity = \"0\"\n", "made by a [[workload]] macro"),
            ("[[workload]]\nkind = \"netperf-stream\"\naffinity = \"0\"\n", "channel `netperf-stream-0` (from a workload) at line 1, column 1: kind = \"socket\" is modelled but cannot be validated yet"),
            ("[[workload]]\nkind = \"hackbench\"\nipc = \"pipe\"\nfds = 1\naffinity = \"0\"\n", "channel `hackbench-g0-0` (from a workload) at line 1, column 1: capacity 640 cannot be validated"),
            // Two pages of 3 messages: 3 does not divide a page.
            ("[[channel]]\nname = \"c\"\ncapacity = 6\npages = 2\n[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"send c\"\n", "channel[0].capacity at line 1, column 1: channel `c`: capacity 6 cannot be validated: a channel runs as a pipe of 8192 bytes"),
            ("[[channel]]\nname = \"x\"\n[[channel]]\nname = \"c\"\ncapacity = 5\n[[workload]]\nkind = \"pipe-test\"\n[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"send c\"\n", "channel[1].capacity at line 3, column 1"),
            ("[[workload]]\nkind = \"pipe-test\"\ncpu = -1\n", "task `pipe-test-a`.affinity"),
            ("[sim]\nfeatures = { RUN_TO_PARITY = false }\n[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"run\"\n", "feature flags"),
            ("[topology]\nsockets = 2\ncores_per_llc = 4\n[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"run\"\n", "this machine has 2"),
            ("[topology]\nsockets = 2\n[[task]]\nname = \"a\"\nprogram = \"run\"\n", "topology at line 1, column 1: a multi-CPU scenario must have this machine's topology to be run on it (1 sockets × 1 LLCs × 2 cores × 1 threads; the scenario has 2 × 1 × 1 × 1)"),
            ("[topology]\npreset = \"2cpu-vm\"\n[[task]]\nname = \"a\"\naffinity = \"1-2\"\nprogram = \"run\"\n", "task[0].affinity at line 5, column 12: CPU 2 is not one of the scenario's 2 CPUs"),
            ("[[channel]]\nname = \"q\"\nsync = false\n[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"send q\"\n", "channel[0].sync at line 1, column 1: channel `q`: a signal queue (sync = false) needs a task that receives"),
            ("[[channel]]\nname = \"q\"\nsync = false\n[[task]]\nname = \"a\"\naffinity = \"0\"\ncount = 2\nprogram = \"recv q\"\n", "only one task (instance) may receive"),
        ];
        for (text, want) in cases {
            let e = try_plan(text).unwrap_err();
            assert!(e.contains(want), "{want}: {e}");
        }
    }

    /// stress-ng sigrt: its 31 queues, one to each child, are signals 34 to
    /// 64, each sent to the child that receives it; and so is sigfd's one
    /// queue to its parent. Pipes beside them stay pipes.
    #[test]
    fn sync_false_channels_are_signal_queues_to_their_receiver() {
        let p = try_plan("[[workload]]\nkind = \"stress-sigrt\"\naffinity = \"0\"\n").unwrap();
        let queues: Vec<(String, Option<SignalQueue>)> = p.channels.iter().map(|c| (c.name.clone(), c.signals)).collect();
        assert_eq!(queues.len(), 31);
        for (k, (name, q)) in queues.iter().enumerate() {
            let receiver = p.instances.iter().position(|i| i.name == format!("stress-sigrt-0-c{k}")).unwrap() as u32;
            assert_eq!(*q, Some(SignalQueue { receiver, signo: 34 + k as i32 }), "{name}");
        }
        assert!(p.notes.iter().any(|n| n.contains("real-time signal queues") && n.contains("(signal 64)")), "{:?}", p.notes);
        let p = try_plan("[[workload]]\nkind = \"stress-sigfd\"\naffinity = \"0\"\n[[task]]\nname = \"x\"\naffinity = \"0\"\nprogram = \"send pp; recv pp\"\n").unwrap();
        let parent = p.instances.iter().position(|i| i.name == "stress-sigfd-0").unwrap() as u32;
        let kinds: Vec<(&str, Option<SignalQueue>)> = p.channels.iter().map(|c| (c.name.as_str(), c.signals)).collect();
        // Numbered on first use: the written task's pipe first.
        assert_eq!(kinds, [("pp", None), ("stress-sigfd-0-q", Some(SignalQueue { receiver: parent, signo: 34 }))]);
    }

    #[test]
    fn message_size_is_pipe_size_over_capacity() {
        assert_eq!(message_bytes(4096, 1), Ok(4096));
        assert_eq!(message_bytes(4096, 1024), Ok(4));
        assert_eq!(message_bytes(4096, 4096), Ok(1));
        assert_eq!(message_bytes(65536, 1024), Ok(64), "a bigger pipe than asked for: bigger messages");
        let under = message_bytes(4096, 8192).unwrap_err();
        assert!(under.contains("under 1 byte") && under.contains("must divide 4096"), "{under}");
        for c in [0, 3, 1000, 4095] {
            assert!(message_bytes(4096, c).unwrap_err().contains("does not divide 4096"), "{c}");
        }
    }

    const PING_PONG: &str = "[[channel]]\nname = \"ab\"\ncapacity = 1\n[[task]]\nname = \"ping\"\naffinity = \"0\"\n\
                             program = \"loop { run 5us; send ab; recv ba }\"\n[[task]]\nname = \"pong\"\naffinity = \"0\"\n\
                             program = \"loop { recv ab; run 5us; send ba 2; wake w.1 }\"\n\
                             [[task]]\nname = \"w\"\ncount = 2\naffinity = \"0\"\nprogram = \"loop { wait }\"\n";

    #[test]
    fn channels_are_numbered_like_the_model_and_sized() {
        use schedlab_engine::lab::program::Instr;
        let p = try_plan(PING_PONG).unwrap();
        let want = [ChannelPlan { name: "ab".into(), capacity: 1, pipe_bytes: 4096, msg_bytes: 4096, signals: None }, ChannelPlan { name: "ba".into(), capacity: 1024, pipe_bytes: 4096, msg_bytes: 4, signals: None }];
        assert_eq!(p.channels, want);
        assert_eq!(p.instances[1].program.code[1..], [Instr::Recv { ch: 0, n: 1 }, Instr::Run(schedlab_engine::lab::scenario::Dur::Fixed(5000)), Instr::Send { ch: 1, n: 2 }, Instr::Wake { task: 3 }, Instr::EndLoop { start: 0 }]);
        assert!(p.notes.iter().any(|n| n.contains("ab (1 × 4096 B), ba (1024 × 4 B)")), "{:?}", p.notes);
        assert!(p.notes.iter().any(|n| n.contains("threads of one process")), "{:?}", p.notes);
        // Two pages of 32 messages: a pipe of 8192 bytes, 128-byte messages.
        let two_pages = PING_PONG.replace("capacity = 1\n", "capacity = 64\npages = 2\n");
        let p = try_plan(&two_pages).unwrap();
        assert_eq!((p.channels[0].pipe_bytes, p.channels[0].msg_bytes), (8192, 128));
        assert!(p.notes.iter().any(|n| n.contains("ab (64 × 128 B in 2 pages)")), "{:?}", p.notes);
        let one_process = PING_PONG.replace("affinity = \"0\"\n", "affinity = \"0\"\nprocess = \"pp\"\n");
        assert!(!try_plan(&one_process).unwrap().notes.iter().any(|n| n.contains("threads of one process")));
        assert!(!try_plan(NICE).unwrap().notes.iter().any(|n| n.contains("process")), "no note without channels or wakes");
    }

    #[test]
    fn pipe_test_workload_expands_for_both_sides() {
        let p = try_plan("[sim]\nduration = \"1s\"\n[[workload]]\nkind = \"pipe-test\"\nmode = \"threads\"\n").unwrap();
        let names: Vec<&str> = p.instances.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["pipe-test-a", "pipe-test-b"]);
        assert_eq!(p.channels.iter().map(|c| (c.name.as_str(), c.msg_bytes)).collect::<Vec<_>>(), [("pipe-test-ab", 4096), ("pipe-test-ba", 4096)]);
        assert!(p.scenario.workloads.is_empty() && p.scenario.tasks.len() == 2);
        let sc = model_scenario(&p, Tuning { preset: "6.18", hz: 250, base_slice_ns: 1_400_000 }, 1);
        let (mut sim, cfg) = schedlab_engine::build(&sc, &Default::default(), schedlab_engine::LogMode::HashOnly).unwrap();
        sim.run();
        let res = sim.results(&cfg.kernel);
        assert!(res.tasks[0].ops > 1000, "{:?}", res.tasks[0]);
    }

    #[test]
    fn custom_slices_need_6_12() {
        let text = "[[task]]\nname = \"a\"\naffinity = \"0\"\nslice = \"300us\"\nprogram = \"run\"\n";
        assert!(plan(parse(text).unwrap(), (6, 12), &vm(), "6.12", None).is_ok());
        let e = plan(parse(text).unwrap(), (6, 8), &vm(), "6.6", None).unwrap_err();
        assert!(e.contains("6.12"), "{e}");
        let text = "[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"loop { slice 1ms; run 1ms }\"\n";
        assert!(plan(parse(text).unwrap(), (6, 6), &vm(), "6.6", None).is_err());
    }

    #[test]
    fn long_scenarios_are_capped_unless_asked() {
        let text = "[sim]\nduration = \"60s\"\n[[task]]\nname = \"a\"\naffinity = \"0\"\nprogram = \"run\"\n";
        let p = try_plan(text).unwrap();
        assert_eq!(p.duration_ns, DEFAULT_MAX_DURATION_NS);
        assert!(p.notes[0].contains("capped"));
        let p = plan(parse(text).unwrap(), (6, 18), &vm(), "6.18", Some(30_000_000_000)).unwrap();
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

    /// A scenario of this machine's shape runs on the whole machine: tasks
    /// without an affinity may run anywhere, pinned ones keep their CPUs,
    /// and the model gets the same two CPUs (a preset or counts alike).
    #[test]
    fn a_scenario_of_the_machines_shape_runs_on_the_whole_machine() {
        for topo in ["preset = \"2cpu-vm\"", "cores_per_llc = 2"] {
            let text = format!("[topology]\n{topo}\n[[task]]\nname = \"a\"\ncount = 2\nprogram = \"run\"\n[[task]]\nname = \"b\"\naffinity = \"1\"\nprogram = \"run\"\n");
            let p = try_plan(&text).unwrap();
            assert_eq!(p.layout, Layout::Machine(vm().shape.unwrap()));
            let cpus: Vec<Option<Vec<u32>>> = p.instances.iter().map(|i| i.cpus.clone()).collect();
            assert_eq!(cpus, [None, None, Some(vec![1])]);
            let sc = model_scenario(&p, Tuning { preset: "6.18", hz: 250, base_slice_ns: 2_800_000 }, 1);
            let (sim, _) = schedlab_engine::build(&sc, &Default::default(), schedlab_engine::LogMode::HashOnly).unwrap();
            assert_eq!(sim.sched().topo.nr_cpus(), 2);
        }
        let mut odd = vm();
        odd.shape = Err("asymmetric topology".into());
        let e = plan(parse("[topology]\ncores_per_llc = 2\n[[task]]\nname = \"a\"\nprogram = \"run\"\n").unwrap(), (6, 18), &odd, "6.18", None).unwrap_err();
        assert!(e.contains("cannot be modelled CPU for CPU (asymmetric topology)"), "{e}");
    }
}
