//! `schedlab validate`: the argument side; the work is in the
//! schedlab-validate crate.

use schedlab_validate::{CpuChoice, Options};

use crate::{progress, ScenarioArg};

pub const LONG_ABOUT: &str = "\
Runs SCENARIO as real threads on this machine's kernel and in the model
tuned like it (preset, HZ, base slice), and compares CPU shares, context
switches, run delay and wake-up latency. Every task must be pinned to the
same single CPU (the model has one CPU so far). Channels run as one-page
pipes (messages of 4096 / capacity bytes), wake/wait as futexes;
call/reply are refused. Linux only.

Test hook: SCHEDLAB_VALIDATE_INJECT=TASK@D makes task number TASK fail D
into each run.";

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub scenario: ScenarioArg,
    /// Real repetitions and model seeds
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub reps: u32,
    /// Repeat a repetition spoiled by other load or steal on the measured CPU, at most N times in all
    #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=1000))]
    pub retry: u32,
    /// Run length [default: the scenario's, at most 10s]
    #[arg(long, value_name = "D", value_parser = crate::duration)]
    pub duration: Option<u64>,
    /// Real CPU for the scenario's CPU; auto: the least busy right before the run [default: the same number]
    #[arg(long, value_name = "N|auto")]
    pub cpu: Option<CpuChoice>,
    /// As root, leave sched_autogroup_enabled alone (by default it is switched off for the run and restored)
    #[arg(long)]
    pub keep_autogroup: bool,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}

impl Args {
    pub fn options(&self, inject: Option<(usize, u64)>) -> Options {
        Options {
            path: self.scenario.path.clone(),
            reps: self.reps,
            retry: self.retry,
            duration: self.duration,
            cpu: self.cpu.unwrap_or(CpuChoice::Same),
            keep_autogroup: self.keep_autogroup,
            inject,
        }
    }
}

pub fn cmd(a: Args) -> Result<String, String> {
    let inject = std::env::var("SCHEDLAB_VALIDATE_INJECT").ok().map(|v| schedlab_validate::parse_inject(&v)).transpose()?;
    let opts = a.options(inject);
    let text = a.scenario.read()?;
    let sc = schedlab_engine::lab::scenario::parse(&text).map_err(|e| format!("{}: {e}", opts.path))?;
    let bar = progress::bar(a.reps as u64, format!("validate {}: real repetitions", opts.path), "done");
    let report = schedlab_validate::validate(sc, &opts, &mut |done, _| bar.set_position(done as u64))?;
    drop(bar);
    if a.json {
        return serde_json::to_string_pretty(&report).map(|s| s + "\n").map_err(|e| e.to_string());
    }
    Ok(schedlab_validate::render(&report))
}
