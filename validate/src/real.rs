//! One real repetition of a scenario: start a thread per task behind a
//! gate, snapshot each task's counters, open the gate, wait out the run,
//! snapshot again, stop and join every thread — on success, on error and on
//! Ctrl-C alike (the [`Crew`] guard stops and joins whatever it started).

use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::Duration;

use serde::Serialize;

use super::facts::Host;
use super::ipc::Ipc;
use super::measure::TaskMeasure;
use super::plan::{Instance, Layout, Plan};
use super::procfs::{self, CpuTimes, SchedStat, TaskSched};
use super::sys;
use super::worker::{self, Ready, Shared, WorkerReport, WorkerSpec};

/// How the repetitions run on this machine.
#[derive(Clone, Debug)]
pub struct RealConfig {
    /// The real CPUs measured: the one the scenario's CPU maps to, or
    /// (a `Layout::Machine` plan) every CPU, numbered as the scenario
    /// numbers them.
    pub cpus: Vec<u32>,
    /// CPUs the controlling thread may use (the others, when there are).
    pub controller_cpus: Vec<u32>,
    /// Test hook: worker `index` fails this many ns into the run.
    pub inject: Option<(usize, u64)>,
    /// How long workers may take to get ready.
    pub setup_timeout: Duration,
}

/// What else happened on the measured CPUs during a repetition.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Disturbance {
    pub wall_ns: u64,
    /// The CPUs' busy time per /proc/stat, ns (USER_HZ resolution).
    pub busy_ns: u64,
    /// CPU time of the scenario's tasks, ns.
    pub ours_ns: u64,
    /// busy − ours: time other tasks and interrupts took, ns.
    pub other_ns: u64,
    /// Time the hypervisor ran something else (/proc/stat steal), ns.
    pub steal_ns: u64,
}

#[derive(Clone, Debug, Serialize)]
pub struct RepOutcome {
    pub tasks: Vec<TaskMeasure>,
    pub disturbance: Disturbance,
    /// The size the kernel gave each channel's pipe, bytes (asked: one page).
    pub pipe_bytes: Vec<u64>,
}

/// The threads of one run. Dropping it stops and joins all of them.
struct Crew {
    shared: Arc<Shared>,
    handles: Vec<JoinHandle<WorkerReport>>,
}

impl Crew {
    fn spawn(&mut self, spec: WorkerSpec, tx: mpsc::Sender<Result<Ready, String>>) -> Result<(), String> {
        let shared = self.shared.clone();
        let name = format!("{}{}", worker::THREAD_PREFIX, spec.name);
        let h = std::thread::Builder::new()
            .name(name)
            .stack_size(256 * 1024)
            .spawn(move || worker::main(spec, shared, tx))
            .map_err(|e| format!("cannot start a thread: {e}"))?;
        self.handles.push(h);
        Ok(())
    }

    /// Stops and joins every thread; a thread that panicked is an error.
    fn finish(&mut self) -> Result<Vec<WorkerReport>, String> {
        self.shared.stop();
        let joined: Vec<_> = self.handles.drain(..).map(JoinHandle::join).collect();
        joined.into_iter().map(|r| r.map_err(|_| "a worker thread panicked".to_string())).collect()
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// Pins the calling (controlling) thread away from the measured CPU (when
/// there is a CPU that is not measured) and restores its affinity when
/// dropped.
struct ControllerPin {
    old: Option<Vec<u32>>,
}

impl ControllerPin {
    fn new(cpus: &[u32]) -> ControllerPin {
        let old = sys::get_affinity(0).ok();
        if cpus.is_empty() || sys::set_affinity(0, cpus).is_err() {
            return ControllerPin { old: None };
        }
        ControllerPin { old }
    }
}

impl Drop for ControllerPin {
    fn drop(&mut self) {
        if let Some(old) = &self.old {
            let _ = sys::set_affinity(0, old);
        }
    }
}

/// Counters of one task at one instant.
#[derive(Clone, Copy, Debug)]
struct Snap {
    cpu_ns: u64,
    sched: TaskSched,
    stat: Option<SchedStat>,
}

/// Reads every task's CPU clock first (the figures compared most closely),
/// then its /proc files.
fn snapshot(ready: &[Ready]) -> Result<Vec<Snap>, String> {
    let clocks: Vec<u64> = ready.iter().map(|r| sys::clock_ns(r.clock).map_err(|e| format!("CPU clock of tid {}: {e}", r.tid))).collect::<Result<_, _>>()?;
    ready
        .iter()
        .zip(clocks)
        .map(|(r, cpu_ns)| {
            let dir = format!("/proc/self/task/{}", r.tid);
            let sched = std::fs::read_to_string(format!("{dir}/sched")).map_err(|e| format!("{dir}/sched: {e}"))?;
            let stat = std::fs::read_to_string(format!("{dir}/schedstat")).ok().and_then(|t| procfs::parse_schedstat(&t).ok());
            Ok(Snap { cpu_ns, sched: procfs::parse_task_sched(&sched)?, stat })
        })
        .collect()
}

/// Waits for every worker to be set up; the first setup error ends the run.
fn collect_ready(rx: &mpsc::Receiver<Result<Ready, String>>, n: usize, timeout: Duration) -> Result<Vec<Ready>, String> {
    let mut ready: Vec<Ready> = Vec::with_capacity(n);
    while ready.len() < n {
        match rx.recv_timeout(timeout) {
            Ok(Ok(r)) => ready.push(r),
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err("workers did not get ready in time".into()),
        }
    }
    ready.sort_by_key(|r| r.index);
    Ok(ready)
}

/// Sleeps through the run, watching for Ctrl-C and worker failures every
/// 50 ms: on a machine-wide run the controller shares the measured CPUs,
/// so it wakes rarely (20 times a second, a few µs each).
fn wait_out(shared: &Shared, end: u64) -> Result<(), String> {
    loop {
        if sys::INTERRUPTED.load(std::sync::atomic::Ordering::SeqCst) {
            return Err("interrupted".into());
        }
        if let Some(f) = shared.failure() {
            return Err(f);
        }
        let now = sys::monotonic_ns();
        if now >= end {
            return Ok(());
        }
        std::thread::sleep(Duration::from_nanos((end - now).min(50_000_000)));
    }
}

/// The measured CPUs' /proc/stat lines.
fn proc_stat_cpus(cpus: &[u32]) -> Vec<CpuTimes> {
    let text = Host::live().read("/proc/stat").unwrap_or_default();
    procfs::parse_proc_stat(&text).into_iter().filter(|c| cpus.contains(&c.cpu)).collect()
}

/// Busy and stolen time over the measured CPUs between two reads, ns.
fn disturbance(before: &[CpuTimes], after: &[CpuTimes], wall_ns: u64, ours_ns: u64) -> Disturbance {
    let tick = 1_000_000_000 / sys::user_hz();
    let (mut busy, mut steal) = (0, 0);
    for b in after {
        if let Some(a) = before.iter().find(|a| a.cpu == b.cpu) {
            busy += b.busy().saturating_sub(a.busy()) * tick;
            steal += b.steal.saturating_sub(a.steal) * tick;
        }
    }
    Disturbance { wall_ns, busy_ns: busy, ours_ns, other_ns: busy.saturating_sub(ours_ns), steal_ns: steal }
}

fn measure(name: &str, a: &Snap, b: &Snap, report: &WorkerReport) -> TaskMeasure {
    TaskMeasure {
        name: name.to_string(),
        cpu_time_ns: b.cpu_ns.saturating_sub(a.cpu_ns),
        nr_voluntary_switches: b.sched.nr_voluntary_switches.saturating_sub(a.sched.nr_voluntary_switches),
        nr_involuntary_switches: b.sched.nr_involuntary_switches.saturating_sub(a.sched.nr_involuntary_switches),
        nr_migrations: b.sched.nr_migrations.saturating_sub(a.sched.nr_migrations),
        run_delay_ns: a.stat.zip(b.stat).map(|(a, b)| b.run_delay_ns.saturating_sub(a.run_delay_ns)),
        wakeup_latency_ns: report.latency.percentiles(),
        wakeup_latency_deciles_ns: super::measure::deciles(&report.latency),
        ops: report.ops,
    }
}

/// A worker's CPUs: the measured CPU of a one-CPU plan; on the whole
/// machine, the task's affinity (the scenario's CPU numbers are the
/// machine's), or every measured CPU.
fn worker_cpus(plan: &Plan, cfg: &RealConfig, inst: &Instance) -> Vec<u32> {
    match (plan.layout, &inst.cpus) {
        (Layout::Machine(_), Some(cpus)) => cpus.clone(),
        _ => cfg.cpus.clone(),
    }
}

fn specs(plan: &Plan, cfg: &RealConfig, seed: u64) -> Vec<WorkerSpec> {
    plan.instances
        .iter()
        .enumerate()
        .map(|(i, inst)| WorkerSpec {
            index: i,
            name: inst.name.clone(),
            cpus: worker_cpus(plan, cfg, inst),
            nice: inst.nice,
            policy: inst.policy,
            slice: inst.slice,
            start: inst.start,
            program: inst.program.clone(),
            seed: seed ^ (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
            fail_after: cfg.inject.filter(|(w, _)| *w == i).map(|(_, ns)| ns),
        })
        .collect()
}

/// Runs the plan once on the real kernel.
pub fn run_rep(plan: &Plan, cfg: &RealConfig, seed: u64) -> Result<RepOutcome, String> {
    let _pin = ControllerPin::new(&cfg.controller_cpus);
    let ipc = Ipc::new(&plan.channels, plan.instances.len())?;
    let pipe_bytes = ipc.pipe_bytes();
    let shared = Arc::new(Shared::new(ipc));
    let mut crew = Crew { shared: shared.clone(), handles: Vec::new() };
    let (tx, rx) = mpsc::channel();
    for spec in specs(plan, cfg, seed) {
        crew.spawn(spec, tx.clone())?;
    }
    drop(tx);
    let ready = collect_ready(&rx, plan.instances.len(), cfg.setup_timeout)?;
    for r in &ready {
        shared.ipc.set_tid(r.index as u32, r.tid);
    }
    let before = snapshot(&ready)?;
    let stat0 = proc_stat_cpus(&cfg.cpus);
    let t0 = sys::monotonic_ns();
    shared.open_gate(t0, plan.duration_ns);
    wait_out(&shared, t0 + plan.duration_ns)?;
    let after = snapshot(&ready)?;
    let (stat1, wall) = (proc_stat_cpus(&cfg.cpus), sys::monotonic_ns() - t0);
    let reports = crew.finish()?;
    if let Some(f) = shared.failure() {
        return Err(f);
    }
    let tasks: Vec<TaskMeasure> =
        plan.instances.iter().enumerate().map(|(i, inst)| measure(&inst.name, &before[i], &after[i], &reports[i])).collect();
    let ours = tasks.iter().map(|t| t.cpu_time_ns).sum();
    Ok(RepOutcome { disturbance: disturbance(&stat0, &stat1, wall, ours), tasks, pipe_bytes })
}

/// Names of this process's threads that are validation workers.
#[cfg(test)]
pub fn worker_threads() -> Vec<String> {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else { return Vec::new() };
    dir.flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("comm")).ok())
        .map(|c| c.trim().to_string())
        .filter(|c| c.starts_with(worker::THREAD_PREFIX))
        .collect()
}
