//! The validation run on this machine: facts → plan → model → real
//! repetitions → comparison, with the machine-wide settings it touches
//! (autogroup, SIGINT) put back however it ends.

use std::time::Duration;

use schedlab_engine::kernel::sched::features::Feature;
use schedlab_engine::kernel::sched::presets::{self, Scaling, DEFAULT_MIGRATION_LLC_COST};
use schedlab_engine::lab::scenario::{format_duration, CpuList, Scenario};

use super::facts::{self, Facts, Host};
use super::measure::{self, TaskMeasure};
use super::idle_wake;
use super::pipe_cost;
use super::refill_cost;
use super::plan::{self, Layout, Plan, Tuning};
use super::procfs::{self, CpuTimes};
use super::real::{self, Disturbance, RealConfig, RepOutcome};
use super::report;
use super::sys;
use super::{CpuChoice, ModelSetup, Options, Report};

const AUTOGROUP: &str = "/proc/sys/kernel/sched_autogroup_enabled";

/// Switches autogroup off for the run (as root) and puts the old value
/// back when dropped — on success, error, panic and Ctrl-C alike.
pub struct AutogroupGuard {
    restore: Option<String>,
}

impl AutogroupGuard {
    /// Returns the guard and a sentence for the report.
    pub fn disable(keep: bool) -> (AutogroupGuard, String) {
        let none = AutogroupGuard { restore: None };
        let Ok(old) = std::fs::read_to_string(AUTOGROUP).map(|s| s.trim().to_string()) else {
            return (none, "not available (kernel without CONFIG_SCHED_AUTOGROUP)".into());
        };
        if old == "0" {
            return (none, "off".into());
        }
        if keep || !sys::is_root() {
            let why = if keep { "--keep-autogroup" } else { "not root" };
            return (none, format!("on ({why}): the tasks share one autogroup; other sessions' load competes as whole groups"));
        }
        match std::fs::write(AUTOGROUP, "0") {
            Ok(()) => (AutogroupGuard { restore: Some(old) }, "switched off for the run (tasks in the root group, like the model), restored after".into()),
            Err(e) => (none, format!("on (could not switch it off: {e})")),
        }
    }
}

impl Drop for AutogroupGuard {
    fn drop(&mut self) {
        if let Some(old) = self.restore.take() {
            if let Err(e) = std::fs::write(AUTOGROUP, &old) {
                eprintln!("schedlab: could not restore {AUTOGROUP} to {old}: {e}");
            }
        }
    }
}

/// The local kernel's tunables for the model, with a note for each one
/// that had to be assumed.
fn tuning<'a>(f: &Facts, preset: &'a str, notes: &mut Vec<String>) -> Tuning<'a> {
    let hz = f.hz.value.unwrap_or_else(|| {
        notes.push("HZ could not be read; the model assumes 250".into());
        250
    });
    let base_slice_ns = f.base_slice_ns.value.unwrap_or_else(|| {
        let p = presets::preset(preset).map_or(750_000, |p| p.base_slice_normalized);
        let v = p * presets::sysctl_factor(Scaling::Log, f.online_cpus.len() as u32);
        notes.push(format!("the base slice could not be read; the model assumes the preset's {p} ns × the log factor for {} CPUs = {v} ns", f.online_cpus.len()));
        v
    });
    Tuning { preset, hz, base_slice_ns }
}

/// On a machine-wide run, a note of how long a wake-up onto an idle CPU
/// takes here (`idle_wake`), after a short and a long idle period. It is
/// not handed to the model: one fixed `costs.idle_exit` cannot be both,
/// and the waker's side of the same wake-up (sending the IPI, a VM exit in
/// a guest) has no cost of its own in the model; a scenario that wants
/// them sets `costs.idle_exit` and `costs.wakeup` from these figures.
fn idle_wake_note(plan: &Plan, cpus: &[u32], notes: &mut Vec<String>) -> Result<(), String> {
    let (Layout::Machine(_), [waker, wakee, ..]) = (plan.layout, cpus) else { return Ok(()) };
    let us = |ns: u64| format!("{:.1}", ns as f64 / 1e3);
    let mut after = Vec::new();
    for idle in [idle_wake::SHORT_IDLE, idle_wake::LONG_IDLE] {
        let w = idle_wake::measure(*waker, *wakee, idle)?;
        after.push(format!("{} µs after {} idle (p10 {}, p90 {})", us(w.median_ns), format_duration(idle.as_nanos() as u64), us(w.quantile(0.1)), us(w.quantile(0.9))));
    }
    let model = match plan.scenario.sim.costs.idle_exit {
        Some(own) => format!("the model charges the scenario's costs.idle_exit, {}", format_duration(own)),
        None => "the model charges the idle states of its topology (none for a custom one or 2cpu-vm), or [sim] costs.idle_exit".into(),
    };
    notes.push(format!("a wake-up from CPU {waker} onto idle CPU {wakee} takes {} here (medians of {} wake-ups); {model}", after.join(", "), idle_wake::SAMPLES));
    Ok(())
}

/// Sets a cost the scenario leaves to its default to what this machine
/// measured, when `hand` (`--machine-costs`); says whether it did.
fn hand_cost(slot: &mut Option<u64>, measured_ns: u64, hand: bool) -> bool {
    let handed = hand && slot.is_none();
    if handed {
        *slot = Some(measured_ns);
    }
    handed
}

/// When the scenario has pipes, a note of what a write() and a read() of
/// its first pipe's message cost here (`pipe_cost`), beside what the model
/// charges for them: the scenario's `costs.channel_op`. Handed to the
/// model (their mean, charged for each send and each recv) only with
/// `--machine-costs`: it is this machine's figure, not the modelled
/// kernel's.
fn pipe_cost_note(plan: &mut Plan, cpus: &[u32], hand: bool, notes: &mut Vec<String>) -> Result<(), String> {
    let (Some(pipe), Some(&cpu)) = (plan.channels.iter().find(|c| c.msg_bytes > 0), cpus.first()) else { return Ok(()) };
    let c = pipe_cost::measure(cpu, pipe.msg_bytes as usize)?;
    let us = |ns: u64| format!("{:.2}", ns as f64 / 1e3);
    let mean = (c.write_ns + c.read_ns) / 2;
    let handed = hand_cost(&mut plan.scenario.sim.costs.channel_op, mean, hand);
    let model = match plan.scenario.sim.costs.channel_op {
        _ if handed => {
            format!("--machine-costs hands the model their mean, {}, as costs.channel_op for each send and recv", format_duration(mean))
        }
        Some(own) => format!("the model charges the scenario's costs.channel_op, {}, for each send and recv", format_duration(own)),
        None => "the model charges nothing for the calls themselves (give [sim] costs.channel_op, or --machine-costs)".into(),
    };
    notes.push(format!(
        "a {}-byte pipe write() takes {} µs and a read() {} µs on CPU {cpu} here (medians of {} calls that neither block nor wake); {model}",
        pipe.msg_bytes,
        us(c.write_ns),
        us(c.read_ns),
        pipe_cost::CALLS
    ));
    Ok(())
}

/// When the run has two CPUs of one LLC, a note of what a move between
/// them costs the moved task here (`refill_cost`), beside what the model
/// charges for it: `costs.migration_llc`. Handed to the model only with
/// `--machine-costs`, as the pipe's calls.
fn refill_cost_note(plan: &mut Plan, f: &Facts, cpus: &[u32], hand: bool, notes: &mut Vec<String>) -> Result<(), String> {
    let [a, b, ..] = cpus[..] else { return Ok(()) };
    let shared = f.topology.as_ref().and_then(|t| t.cpu(a)).and_then(|c| c.llc_cpus.as_ref()).is_some_and(|l| l.contains(&b));
    if !shared {
        return Ok(());
    }
    let ns = refill_cost::measure(a, b)?;
    let handed = hand_cost(&mut plan.scenario.sim.costs.migration_llc, ns, hand);
    let model = match plan.scenario.sim.costs.migration_llc {
        _ if handed => format!("--machine-costs hands it to the model as costs.migration_llc, in place of the default {}", format_duration(DEFAULT_MIGRATION_LLC_COST)),
        Some(own) => format!("the model charges the scenario's costs.migration_llc, {}", format_duration(own)),
        None => format!("the model charges costs.migration_llc, {} by default", format_duration(DEFAULT_MIGRATION_LLC_COST)),
    };
    notes.push(format!(
        "a move from CPU {a} to CPU {b} (one LLC) costs the moved task {:.2} µs here (its first loop after the move — a {}-byte pipe write and read, {} KB of its own data — against one that stayed; medians of {} moves); {model}",
        ns as f64 / 1e3,
        refill_cost::MESSAGE,
        refill_cost::DATA / 1024,
        refill_cost::MOVES
    ));
    Ok(())
}

/// Flags the kernel runs with (debugfs) that differ from the preset's.
fn feature_notes(f: &Facts, preset: &str, notes: &mut Vec<String>) {
    let (Some(text), Some(p)) = (f.sched_features.value.as_deref(), presets::preset(preset)) else { return };
    for (name, on) in procfs::parse_features(text) {
        if let Some(feat) = Feature::from_name(name).filter(|&x| p.features.has(x) != on) {
            notes.push(format!("the kernel runs with {}{name}, preset {preset} with {}{}", if on { "" } else { "NO_" }, if on { "NO_" } else { "" }, feat.name()));
        }
    }
}

fn context_notes(f: &Facts, notes: &mut Vec<String>) {
    if !f.cmdline_sched.is_empty() {
        notes.push(format!("the kernel command line sets {}: the model knows nothing of it", f.cmdline_sched.join(" ")));
    }
    if let Some(cg) = f.cpu_cgroup.value.as_deref().filter(|cg| *cg != "/") {
        notes.push(format!("this process runs in cpu cgroup {cg}: one more level of group scheduling than the model"));
    }
    if matches!(f.preempt.value.as_deref(), Some("lazy")) {
        notes.push("lazy preemption: the kernel defers wake-up preemption of fair tasks to the next tick; the model preempts at once".into());
    }
}

fn cpu_times() -> Vec<CpuTimes> {
    Host::live().read("/proc/stat").map(|t| procfs::parse_proc_stat(&t)).unwrap_or_default()
}

/// Busy (incl. stolen) fraction of each CPU over `window`.
fn cpu_load(window: Duration) -> Vec<(u32, f64)> {
    let a = cpu_times();
    std::thread::sleep(window);
    let b = cpu_times();
    b.iter()
        .filter_map(|y| {
            let x = a.iter().find(|x| x.cpu == y.cpu)?;
            let (busy, steal) = (y.busy() - x.busy().min(y.busy()), y.steal.saturating_sub(x.steal));
            let all = busy + steal + (y.idle + y.iowait).saturating_sub(x.idle + x.iowait);
            Some((y.cpu, if all == 0 { 0.0 } else { (busy + steal) as f64 / all as f64 }))
        })
        .collect()
}

fn usable(cpu: u32, f: &Facts, allowed: &[u32]) -> Result<u32, String> {
    if !f.online_cpus.contains(&cpu) {
        return Err(format!("CPU {cpu} does not exist on this machine (online: {})", CpuList(f.online_cpus.clone())));
    }
    if !allowed.contains(&cpu) {
        return Err(format!("CPU {cpu} is not among this process's allowed CPUs ({})", CpuList(allowed.to_vec())));
    }
    Ok(cpu)
}

/// The real CPUs for the scenario's, and how they were chosen: the one
/// CPU of a one-CPU plan (`--cpu`), or every CPU of a machine-wide one.
fn choose_cpus(plan: &Plan, f: &Facts, choice: CpuChoice) -> Result<(Vec<u32>, String), String> {
    let allowed: Vec<u32> = sys::get_affinity(0).map_err(|e| format!("sched_getaffinity: {e}"))?.into_iter().filter(|c| f.online_cpus.contains(c)).collect();
    let load = cpu_load(Duration::from_millis(300));
    let pct = |c: u32| load.iter().find(|(x, _)| *x == c).map_or("?".into(), |(_, l)| format!("{:.0}%", l * 100.0));
    let busy: Vec<String> = allowed.iter().map(|&c| format!("cpu{c} {}", pct(c))).collect();
    let busy = format!("busy in the 300 ms before: {}", busy.join(", "));
    let Some(want) = plan.one_cpu() else {
        if choice != CpuChoice::Same {
            return Err("--cpu chooses the CPU of a one-CPU scenario; this one has the machine's topology and runs on all its CPUs".into());
        }
        if allowed != f.online_cpus {
            return Err(format!("the scenario runs on every CPU, but this process may only use {} of {}", CpuList(allowed), CpuList(f.online_cpus.clone())));
        }
        return Ok((allowed, format!("the whole machine, each scenario CPU the real CPU of its number; {busy}")));
    };
    let (cpu, how) = match choice {
        CpuChoice::Same => (usable(want, f, &allowed)?, "same number"),
        CpuChoice::Cpu(n) => (usable(n, f, &allowed)?, "--cpu"),
        CpuChoice::Auto => {
            let best = load.iter().filter(|(c, _)| allowed.contains(c)).min_by(|a, b| a.1.total_cmp(&b.1).then((a.0 != want).cmp(&(b.0 != want))));
            (best.map(|b| b.0).ok_or("no allowed CPU could be sampled in /proc/stat")?, "auto: least busy")
        }
    };
    Ok((vec![cpu], format!("{how}; {busy}")))
}

/// The measured CPU's SMT siblings (they share its core's execution units).
fn siblings(f: &Facts, cpu: u32) -> Vec<u32> {
    let core = f.topology.as_ref().and_then(|t| t.cpu(cpu)).map(|c| c.core_cpus.clone()).unwrap_or_default();
    core.into_iter().filter(|&c| c != cpu).collect()
}

/// Where the controlling thread runs: off the measured CPU, and off its
/// SMT siblings when there is a choice; on a machine-wide run, anywhere.
fn controller_cpus(f: &Facts, measured: &[u32], notes: &mut Vec<String>) -> Vec<u32> {
    let &[cpu] = measured else {
        notes.push("the controlling thread shares the measured CPUs: it sleeps through the run, waking 20 times a second".into());
        return measured.to_vec();
    };
    let sib = siblings(f, cpu);
    if !sib.is_empty() {
        notes.push(format!("CPU {cpu} shares its core with CPU {}: load there slows the measured tasks down (SMT)", CpuList(sib.clone())));
    }
    let others: Vec<u32> = f.online_cpus.iter().copied().filter(|&c| c != cpu).collect();
    let apart: Vec<u32> = others.iter().copied().filter(|c| !sib.contains(c)).collect();
    if apart.is_empty() {
        others
    } else {
        apart
    }
}

/// What spoiled a repetition, in words: thresholds and percentages are of
/// the measured CPUs' time together.
fn judge(rep: usize, cpus: &[u32], d: &Disturbance) -> Vec<String> {
    let wall = d.wall_ns.max(1) as f64 * cpus.len() as f64;
    let pct = |ns: u64| 100.0 * ns as f64 / wall;
    let which = if cpus.len() == 1 { format!("CPU {}", CpuList(cpus.to_vec())) } else { format!("CPUs {}", CpuList(cpus.to_vec())) };
    let mut out = Vec::new();
    if d.other_ns as f64 > (0.03 * wall).max(30e6) {
        out.push(format!("rep {}: other tasks/interrupts used {:.0} ms ({:.1} %) of {which}", rep + 1, d.other_ns as f64 / 1e6, pct(d.other_ns)));
    }
    if d.steal_ns as f64 > (0.01 * wall).max(20e6) {
        out.push(format!("rep {}: the hypervisor stole {:.0} ms ({:.1} %) of {which}", rep + 1, d.steal_ns as f64 / 1e6, pct(d.steal_ns)));
    }
    out
}

/// The real repetitions, as run.
struct RealRuns {
    runs: Vec<RepOutcome>,
    /// How autogroup was handled.
    autogroup: String,
    /// Disturbed repetitions thrown away (`--retry`), with why.
    discarded: Vec<String>,
}

/// Runs the real repetitions with SIGINT turned into a stop flag and
/// autogroup switched off; both are restored by their guards. With
/// `--retry`, a repetition that `judge` finds disturbed is run again.
fn real_runs(plan: &Plan, cfg: &RealConfig, opts: &Options, progress: &mut dyn FnMut(u32, u32)) -> Result<RealRuns, String> {
    let _sigint = sys::SigintGuard::install().map_err(|e| format!("cannot install the SIGINT handler: {e}"))?;
    let (_autogroup, autogroup) = AutogroupGuard::disable(opts.keep_autogroup);
    let (mut runs, mut discarded) = (Vec::new(), Vec::new());
    while runs.len() < opts.reps as usize {
        let r = runs.len();
        progress(r as u32, opts.reps);
        let seed = plan.scenario.sim.seed.wrapping_add(r as u64);
        let run = real::run_rep(plan, cfg, seed)?;
        let spoiled = judge(r, &cfg.cpus, &run.disturbance);
        if spoiled.is_empty() || discarded.len() >= opts.retry as usize {
            runs.push(run);
        } else {
            discarded.push(format!("discarded and repeated: {}", spoiled.join("; ")));
        }
    }
    progress(opts.reps, opts.reps);
    Ok(RealRuns { runs, autogroup, discarded })
}

/// `schedlab validate` on the live system.
pub fn validate(sc: Scenario, opts: &Options, progress: &mut dyn FnMut(u32, u32)) -> Result<Report, String> {
    let f = facts::gather(&Host::live());
    let preset = f.preset.value.ok_or_else(|| format!("cannot validate: {}", f.preset.source))?;
    let version = f.release.value.as_deref().and_then(procfs::parse_release).ok_or("cannot read the kernel version")?;
    let machine = plan::Machine {
        online: f.online_cpus.len(),
        shape: f.topology.as_ref().ok_or_else(|| f.shape.source.clone()).and_then(|t| t.model_shape()),
    };
    let mut plan = plan::plan(sc, version, &machine, preset, opts.duration)?;
    let mut notes = plan.notes.clone();
    let tuning = tuning(&f, preset, &mut notes);
    feature_notes(&f, preset, &mut notes);
    context_notes(&f, &mut notes);
    let (cpus, cpu_choice) = choose_cpus(&plan, &f, opts.cpu)?;
    idle_wake_note(&plan, &cpus, &mut notes)?;
    pipe_cost_note(&mut plan, &cpus, opts.machine_costs, &mut notes)?;
    refill_cost_note(&mut plan, &f, &cpus, opts.machine_costs, &mut notes)?;
    let model_runs = measure::run_model(&plan, tuning, opts.reps)?;
    let cfg = RealConfig {
        controller_cpus: controller_cpus(&f, &cpus, &mut notes),
        cpus,
        inject: opts.inject,
        setup_timeout: Duration::from_secs(10),
    };
    let RealRuns { runs: kernel_runs, autogroup, discarded } = real_runs(&plan, &cfg, opts, progress)?;
    notes.extend(discarded);
    if let Some(r) = kernel_runs.first() {
        for (c, &bytes) in plan.channels.iter().zip(&r.pipe_bytes).filter(|(c, &b)| c.signals.is_none() && b != c.pipe_bytes) {
            notes.push(format!("channel `{}`: the kernel made its pipe {bytes} bytes (asked for {}): messages of {} bytes", c.name, c.pipe_bytes, bytes / c.capacity));
        }
    }
    let measured: Vec<Vec<TaskMeasure>> = kernel_runs.iter().map(|r| r.tasks.clone()).collect();
    let rows = report::compare(&measured, &model_runs, plan.duration_ns);
    let disturbances = kernel_runs.iter().enumerate().flat_map(|(i, r)| judge(i, &cfg.cpus, &r.disturbance)).collect();
    Ok(Report {
        scenario: opts.path.clone(),
        model: ModelSetup {
            preset: preset.to_string(),
            hz: tuning.hz,
            base_slice_ns: tuning.base_slice_ns,
            cpus: match plan.layout {
                Layout::OneCpu(_) => 1,
                Layout::Machine(shape) => shape.cpus(),
            },
            seeds: (0..opts.reps as u64).map(|r| plan.scenario.sim.seed.wrapping_add(r)).collect(),
        },
        scenario_cpu: plan.one_cpu(),
        real_cpus: cfg.cpus.clone(),
        cpu_choice,
        duration_ns: plan.duration_ns,
        reps: opts.reps,
        autogroup,
        notes,
        disturbances,
        within: rows.iter().filter(|r| r.within).count(),
        rows,
        kernel_runs,
        model_runs,
        facts: f,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This VM's flags (its sched/debug mask, decoded) agree with preset
    /// 6.18 on every flag the model has, NI_RANDOM included: no note. A
    /// 6.18.0–6.18.4 kernel has no NI_RANDOM bit, so its mask reads
    /// NO_NI_RANDOM, and the report says what the preset does differently.
    #[test]
    fn a_flag_the_kernel_runs_without_is_a_note() {
        let mut f = facts::gather(&Host::captured(&crate::test_data("host-6.18")));
        let mut notes = Vec::new();
        feature_notes(&f, "6.18", &mut notes);
        assert!(notes.is_empty(), "{notes:?}");
        let text = f.sched_features.value.take().unwrap();
        f.sched_features.value = Some(text.replace(" NI_RANDOM", " NO_NI_RANDOM"));
        feature_notes(&f, "6.18", &mut notes);
        assert_eq!(notes, ["the kernel runs with NO_NI_RANDOM, preset 6.18 with NI_RANDOM"]);
    }
}
