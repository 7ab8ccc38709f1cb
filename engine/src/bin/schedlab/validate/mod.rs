//! `schedlab validate SCENARIO`: runs a scenario on the real kernel of this
//! machine and in the model tuned like it, and compares what each reports.
//!
//! 1. [`facts`] reads the local kernel: version → preset, HZ, base slice,
//!    CPUs and topology, autogroup, preemption model.
//! 2. [`plan`] checks that the scenario can be run for real and modelled
//!    (one CPU for now), and builds the model's copy of it.
//! 3. [`measure`] runs the model; [`real`] runs each task as a thread
//!    ([`worker`]; channels are pipes and wake/wait futexes, [`ipc`]) and
//!    reads /proc before and after; both give [`measure::TaskMeasure`]s.
//! 4. [`report`] compares them metric by metric with stated tolerances.
//!
//! Elsewhere than Linux only the parsers build (and are tested); the
//! command says it needs Linux.

#![cfg_attr(not(target_os = "linux"), allow(dead_code, unused_imports))]

mod facts;
mod gunzip;
mod measure;
mod plan;
mod procfs;
mod report;
mod topology;
mod trace;

#[cfg(target_os = "linux")]
mod ipc;
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

use schedlab_engine::lab::scenario::{format_duration, parse_duration, CpuList};

use facts::Facts;
use measure::TaskMeasure;
use report::Row;

const USAGE: &str = "\
usage: schedlab validate SCENARIO [--reps N] [--retry N] [--duration D] [--cpu N|auto]
                                  [--keep-autogroup] [--json]
  Runs SCENARIO as real threads on this machine's kernel and in the model
  tuned like it (preset, HZ, base slice), and compares CPU shares, context
  switches, run delay and wake-up latency. Every task must be pinned to the
  same single CPU (the model has one CPU so far). Channels run as one-page
  pipes (messages of 4096 / capacity bytes), wake/wait as futexes;
  call/reply are refused.
  --reps N           real repetitions and model seeds (default 3)
  --retry N          repeat a repetition spoiled by other load or steal on
                     the measured CPU, at most N times in all (default 0)
  --duration D       run length (default: the scenario's, at most 10s)
  --cpu N|auto       real CPU for the scenario's CPU (default: the same
                     number; auto: the least busy CPU right before the run)
  --keep-autogroup   as root, leave sched_autogroup_enabled alone (by
                     default it is switched off for the run and restored)
  --json             print the report as JSON
  Test hook: SCHEDLAB_VALIDATE_INJECT=TASK@D makes task number TASK fail D
  into each run.";

/// Which real CPU runs the scenario's CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CpuChoice {
    /// The CPU of the same number.
    Same,
    /// The least busy allowed CPU, sampled right before the run.
    Auto,
    Cpu(u32),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    pub path: String,
    pub reps: u32,
    /// Disturbed repetitions that may be thrown away and run again.
    pub retry: u32,
    pub json: bool,
    pub duration: Option<u64>,
    pub cpu: CpuChoice,
    pub keep_autogroup: bool,
    /// Test hook: task `index` fails `ns` into each run.
    pub inject: Option<(usize, u64)>,
}

fn parse_inject(v: &str) -> Result<(usize, u64), String> {
    let bad = || format!("SCHEDLAB_VALIDATE_INJECT=`{v}`: expected TASK@DURATION, e.g. 1@200ms");
    let (task, d) = v.split_once('@').ok_or_else(bad)?;
    Ok((task.parse().map_err(|_| bad())?, parse_duration(d).map_err(|_| bad())?))
}

fn parse_cpu(v: &str) -> Result<CpuChoice, String> {
    match v {
        "auto" => Ok(CpuChoice::Auto),
        n => n.parse().map(CpuChoice::Cpu).map_err(|_| format!("--cpu: `{v}` is not a CPU number or `auto`")),
    }
}

impl Options {
    pub fn parse(args: &[String]) -> Result<Options, String> {
        let mut o = Options { path: String::new(), reps: 3, retry: 0, json: false, duration: None, cpu: CpuChoice::Same, keep_autogroup: false, inject: None };
        let mut it = args.iter();
        while let Some(a) = it.next() {
            let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
            match a.as_str() {
                "--reps" => {
                    let v = value("--reps")?;
                    o.reps = v.parse().ok().filter(|n| (1..=100).contains(n)).ok_or_else(|| format!("--reps: `{v}` is not in 1..=100"))?;
                }
                "--retry" => {
                    let v = value("--retry")?;
                    o.retry = v.parse().ok().filter(|n| *n <= 1000).ok_or_else(|| format!("--retry: `{v}` is not in 0..=1000"))?;
                }
                "--duration" => o.duration = Some(parse_duration(&value("--duration")?).map_err(|e| format!("--duration: {e}"))?),
                "--cpu" => o.cpu = parse_cpu(&value("--cpu")?)?,
                "--keep-autogroup" => o.keep_autogroup = true,
                "--json" => o.json = true,
                s if s.starts_with("--") => return Err(format!("unknown option `{s}`\n{USAGE}")),
                s if o.path.is_empty() => o.path = s.to_string(),
                s => return Err(format!("more than one scenario given (`{s}`)")),
            }
        }
        if o.path.is_empty() {
            return Err(format!("validate: no scenario given\n{USAGE}"));
        }
        if let Ok(v) = std::env::var("SCHEDLAB_VALIDATE_INJECT") {
            o.inject = Some(parse_inject(&v)?);
        }
        Ok(o)
    }
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
    pub scenario_cpu: u32,
    pub real_cpu: u32,
    /// How the real CPU was chosen, and how busy it was before the run.
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

/// Runs `schedlab validate` with command-line arguments.
pub fn cmd(args: &[String]) -> Result<String, String> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return Ok(format!("{USAGE}\n{}\n", trace::USAGE));
    }
    if args.iter().any(|a| a == "--trace") {
        return trace::cmd(args);
    }
    let opts = Options::parse(args)?;
    let text = if opts.path == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|e| format!("stdin: {e}"))?;
        s
    } else {
        std::fs::read_to_string(&opts.path).map_err(|e| format!("{}: {e}", opts.path))?
    };
    let sc = schedlab_engine::lab::scenario::parse(&text).map_err(|e| format!("{}: {e}", opts.path))?;
    let report = run(sc, &opts)?;
    if opts.json {
        return serde_json::to_string_pretty(&report).map(|s| s + "\n").map_err(|e| e.to_string());
    }
    Ok(render(&report))
}

#[cfg(target_os = "linux")]
fn run(sc: schedlab_engine::lab::scenario::Scenario, opts: &Options) -> Result<Report, String> {
    live::validate(sc, opts)
}

#[cfg(not(target_os = "linux"))]
fn run(_: schedlab_engine::lab::scenario::Scenario, _: &Options) -> Result<Report, String> {
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
    out += &format!(
        "  run        scenario CPU {} → real CPU {} ({}); {} rep(s) × {}; model: 1 CPU, HZ {}, base slice {}, seeds {:?}\n",
        r.scenario_cpu,
        r.real_cpu,
        r.cpu_choice,
        r.reps,
        format_duration(r.duration_ns),
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

fn render(r: &Report) -> String {
    let mut out = render_header(r);
    out += "\n";
    out += &report::table(&r.rows);
    out += &format!("\n{} of {} within tolerance.\n", r.within, r.rows.len());
    if r.disturbances.is_empty() {
        out += "disturbances: none detected (other load and steal on the measured CPU stayed below 3 % / 1 %)\n";
    } else {
        out += "disturbances:\n";
        for d in &r.disturbances {
            out += &format!("  {d}\n");
        }
    }
    out
}

/// A file under engine/tests/data/validate/.
#[cfg(test)]
pub fn test_data(rel: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/validate").join(rel)
}

#[cfg(test)]
mod option_tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn options() {
        let o = Options::parse(&args("x.toml --reps 5 --retry 4 --duration 2s --cpu auto --json")).unwrap();
        assert_eq!((o.path.as_str(), o.reps, o.retry, o.duration, o.cpu, o.json), ("x.toml", 5, 4, Some(2_000_000_000), CpuChoice::Auto, true));
        assert_eq!(Options::parse(&args("x --cpu 1")).unwrap().cpu, CpuChoice::Cpu(1));
        for bad in ["", "x --reps 0", "x --reps", "x --cpu one", "x y", "x --frob", "x --duration 5"] {
            assert!(Options::parse(&args(bad)).is_err(), "{bad}");
        }
        assert_eq!(parse_inject("1@200ms"), Ok((1, 200_000_000)));
        assert!(parse_inject("1").is_err() && parse_inject("x@1ms").is_err());
    }
}
