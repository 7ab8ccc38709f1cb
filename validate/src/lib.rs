//! `schedlab validate SCENARIO`: runs a scenario on the real kernel of this
//! machine and in the model tuned like it, and compares what each reports.
//!
//! Why a crate of its own: this is the one part of schedlab that runs on
//! the host rather than in the model (real threads, sched_setattr, futexes,
//! pipes, /proc and sysfs, about 4 000 lines), so it is kept out of both the
//! engine (which must build for wasm32 and stay free of host code) and the
//! command line (which only parses arguments and prints). It depends on
//! the engine, not the other way round; the `schedlab` binary (cli/) calls
//! [`validate`] and [`render`].
//!
//! 1. [`facts`] reads the local kernel: version → preset, HZ, base slice,
//!    CPUs and topology, autogroup, preemption model.
//! 2. `plan` checks that the scenario can be run for real and modelled
//!    (one CPU for now), and builds the model's copy of it.
//! 3. [`measure`] runs the model; `real` runs each task as a thread
//!    (`worker`; channels are pipes and wake/wait futexes, `ipc`) and
//!    reads /proc before and after; both give [`measure::TaskMeasure`]s.
//! 4. [`report`] compares them metric by metric with stated tolerances.
//!
//! Everything that touches the live system is behind
//! `cfg(target_os = "linux")`; elsewhere only the parsers build (and are
//! tested), and [`validate`] says it needs Linux.

#![cfg_attr(not(target_os = "linux"), allow(dead_code, unused_imports))]

pub mod facts;
pub mod measure;
mod plan;
mod procfs;
pub mod report;
mod topology;
pub mod trace;

#[cfg(target_os = "linux")]
mod idle_wake;
#[cfg(target_os = "linux")]
mod ipc;
#[cfg(target_os = "linux")]
mod pipe_cost;
#[cfg(target_os = "linux")]
mod refill_cost;
#[cfg(target_os = "linux")]
mod real;
#[cfg(target_os = "linux")]
mod sys;
#[cfg(target_os = "linux")]
mod worker;

#[cfg(target_os = "linux")]
mod live;

#[cfg(all(test, target_os = "linux"))]
mod tests;

use serde::Serialize;

use schedlab_engine::lab::scenario::{format_duration, parse_duration, CpuList, Scenario};

use facts::Facts;
use measure::TaskMeasure;
use report::Row;

/// Which real CPU runs the scenario's CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuChoice {
    /// The CPU of the same number.
    Same,
    /// The least busy allowed CPU, sampled right before the run.
    Auto,
    Cpu(u32),
}

impl std::str::FromStr for CpuChoice {
    type Err = String;

    /// `auto` or a CPU number (`--cpu`).
    fn from_str(v: &str) -> Result<CpuChoice, String> {
        match v {
            "auto" => Ok(CpuChoice::Auto),
            n => n.parse().map(CpuChoice::Cpu).map_err(|_| format!("`{v}` is not a CPU number or `auto`")),
        }
    }
}

/// How to validate; the command line fills it in.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The scenario's file name, as reported.
    pub path: String,
    /// Real repetitions and model seeds.
    pub reps: u32,
    /// Disturbed repetitions that may be thrown away and run again.
    pub retry: u32,
    pub duration: Option<u64>,
    pub cpu: CpuChoice,
    pub keep_autogroup: bool,
    /// Hand the model what this machine's probes measure where the
    /// scenario sets no cost of its own: a pipe call (`costs.channel_op`)
    /// and a move within the LLC (`costs.migration_llc`).
    pub machine_costs: bool,
    /// Test hook: task `index` fails `ns` into each run.
    pub inject: Option<(usize, u64)>,
}

/// The test hook's `TASK@DURATION` (`SCHEDLAB_VALIDATE_INJECT=1@200ms`).
pub fn parse_inject(v: &str) -> Result<(usize, u64), String> {
    let bad = || format!("SCHEDLAB_VALIDATE_INJECT=`{v}`: expected TASK@DURATION, e.g. 1@200ms");
    let (task, d) = v.split_once('@').ok_or_else(bad)?;
    Ok((task.parse().map_err(|_| bad())?, parse_duration(d).map_err(|_| bad())?))
}

/// The model's configuration as run.
#[derive(Clone, Debug, Serialize)]
pub struct ModelSetup {
    pub preset: String,
    pub hz: u32,
    pub base_slice_ns: u64,
    pub cpus: u32,
    pub seeds: Vec<u64>,
}

/// A whole validation, as printed.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub scenario: String,
    pub facts: Facts,
    pub model: ModelSetup,
    /// The one CPU of a one-CPU scenario; None: the whole machine.
    pub scenario_cpu: Option<u32>,
    /// The real CPUs it ran on.
    pub real_cpus: Vec<u32>,
    /// How the real CPUs were chosen, and how busy they were before the run.
    pub cpu_choice: String,
    pub duration_ns: u64,
    pub reps: u32,
    pub autogroup: String,
    pub notes: Vec<String>,
    /// What spoiled a measurement (other load, steal), per repetition.
    pub disturbances: Vec<String>,
    pub rows: Vec<Row>,
    pub within: usize,
    #[cfg(target_os = "linux")]
    pub kernel_runs: Vec<real::RepOutcome>,
    pub model_runs: Vec<Vec<TaskMeasure>>,
}

/// Validates `sc` on this machine. `progress(done, of)` is called before
/// each real repetition (`done` of them finished) and once at the end.
#[cfg(target_os = "linux")]
pub fn validate(sc: Scenario, opts: &Options, progress: &mut dyn FnMut(u32, u32)) -> Result<Report, String> {
    live::validate(sc, opts, progress)
}

#[cfg(not(target_os = "linux"))]
pub fn validate(_: Scenario, _: &Options, _: &mut dyn FnMut(u32, u32)) -> Result<Report, String> {
    Err("validate runs the scenario as real threads and reads /proc: it needs Linux".into())
}

fn fact_line<T: std::fmt::Display>(f: &facts::Fact<T>) -> String {
    match &f.value {
        Some(v) => format!("{v} ({})", f.source),
        None => format!("unknown ({})", f.source),
    }
}

/// The header: what the kernel is, how the model was set up, how it ran.
fn render_header(r: &Report) -> String {
    let f = &r.facts;
    let slice = f.base_slice_ns.value.map_or("unknown".into(), format_duration);
    let mut out = format!("schedlab validate {}\n", r.scenario);
    out += &format!("  kernel     {} → model preset {}\n", fact_line(&f.release), r.model.preset);
    out += &format!("  HZ         {}\n", fact_line(&f.hz));
    out += &format!("  base slice {slice} ({})\n", f.base_slice_ns.source);
    out += &format!("  CPUs       {} online; {}\n", CpuList(f.online_cpus.clone()), fact_line(&f.shape));
    out += &format!("  preemption {}\n", fact_line(&f.preempt));
    out += &format!("  autogroup  {}\n", r.autogroup);
    if let Some(text) = &f.sched_features.value {
        let n = text.split_whitespace().count();
        out += &format!("  features   {n} flags ({}); a note names each the model has that differs from preset {}\n", f.sched_features.source, r.model.preset);
    }
    let cpus = match r.scenario_cpu {
        Some(c) => format!("scenario CPU {c} → real CPU {}", CpuList(r.real_cpus.clone())),
        None => format!("CPUs {}", CpuList(r.real_cpus.clone())),
    };
    out += &format!(
        "  run        {cpus} ({}); {} rep(s) × {}; model: {} CPU(s), HZ {}, base slice {}, seeds {:?}\n",
        r.cpu_choice,
        r.reps,
        format_duration(r.duration_ns),
        r.model.cpus,
        r.model.hz,
        format_duration(r.model.base_slice_ns),
        r.model.seeds
    );
    for u in &f.unread {
        out += &format!("  not read:  {u}\n");
    }
    for n in &r.notes {
        out += &format!("  note:      {n}\n");
    }
    out
}

/// The report as text: the header, the table, the disturbances.
pub fn render(r: &Report) -> String {
    let mut out = render_header(r);
    out += "\n";
    out += &report::table(&r.rows);
    out += &format!("\n{} of {} within tolerance.\n", r.within, r.rows.len());
    if r.disturbances.is_empty() {
        out += "disturbances: none detected (other load and steal on the measured CPUs stayed below 3 % / 1 %)\n";
    } else {
        out += "disturbances:\n";
        for d in &r.disturbances {
            out += &format!("  {d}\n");
        }
    }
    out
}

/// A file under validate/tests/data/.
#[cfg(test)]
pub fn test_data(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(rel)
}
