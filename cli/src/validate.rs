//! `schedlab validate`: the argument side; the work is in the
//! schedlab-validate crate.

use schedlab_validate::{CpuChoice, Options};

use crate::{progress, ScenarioArg};

pub const LONG_ABOUT: &str = "\
Runs SCENARIO as real threads on this machine's kernel and in the model
tuned like it (preset, HZ, base slice), and compares CPU shares, context
switches, migrations, run delay and wake-up latency. Either every task is
pinned to the same single CPU, which the model runs alone, or the
scenario's [topology] is this machine's (the report's header gives its
shape; its CPUs numbered as the model numbers them) and it runs on all
its CPUs, tasks keeping their affinities. Channels run as one-page
pipes (messages of 4096 / capacity bytes), wake/wait as futexes;
call/reply are refused. Linux only.

Test hook: SCHEDLAB_VALIDATE_INJECT=TASK@D makes task number TASK fail D
into each run.

With --trace TRACE instead of SCENARIO: imports the recorded trace as
`schedlab import` does (--pin, --no-wakers, --kernel, --hz, --topology),
replays it in the model over --reps seeds and compares, per thread that
used at least --min-share % of one CPU, what the trace measured with what
the replay did: CPU share, switches, migrations, run delay, wake-up latency.";

#[derive(clap::Args)]
pub struct Args {
    /// A TOML or JSON scenario file; `-` reads stdin
    #[arg(value_name = "SCENARIO", value_hint = clap::ValueHint::FilePath, required_unless_present = "trace", conflicts_with = "trace")]
    pub scenario: Option<String>,
    /// A recorded trace (perf sched script / trace-cmd report text) against the model's replay of it
    #[arg(long, value_name = "TRACE", value_hint = clap::ValueHint::FilePath)]
    pub trace: Option<String>,
    /// With --trace: compare the threads that used at least PCT % of one CPU
    #[arg(long, value_name = "PCT", default_value_t = 1.0, value_parser = percent, requires = "trace")]
    pub min_share: f64,
    #[command(flatten)]
    pub import: crate::traces::ImportOptions,
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
    /// Give the model this machine's measured costs where the scenario sets none: a pipe write()/read() (costs.channel_op) and a move within the LLC (costs.migration_llc)
    #[arg(long, conflicts_with = "trace")]
    pub machine_costs: bool,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}

impl Args {
    pub fn options(&self, inject: Option<(usize, u64)>) -> Options {
        Options {
            path: self.scenario.clone().unwrap_or_default(),
            reps: self.reps,
            retry: self.retry,
            duration: self.duration,
            cpu: self.cpu.unwrap_or(CpuChoice::Same),
            keep_autogroup: self.keep_autogroup,
            machine_costs: self.machine_costs,
            inject,
        }
    }
}

fn percent(s: &str) -> Result<f64, String> {
    s.parse().ok().filter(|p: &f64| (0.0..=100.0).contains(p)).ok_or_else(|| format!("`{s}` is not a percentage"))
}

pub fn cmd(a: Args) -> Result<String, String> {
    if let Some(path) = &a.trace {
        let o = a.import.options(path, false);
        let (rows, head) = schedlab_validate::trace::validate(crate::traces::open(path)?, path, &o, a.reps as u64, a.min_share)?;
        return schedlab_validate::trace::render(&rows, &head, a.json);
    }
    let inject = std::env::var("SCHEDLAB_VALIDATE_INJECT").ok().map(|v| schedlab_validate::parse_inject(&v)).transpose()?;
    let opts = a.options(inject);
    let text = ScenarioArg { path: opts.path.clone() }.read()?;
    let sc = schedlab_engine::lab::scenario::parse(&text).map_err(|e| format!("{}: {e}", opts.path))?;
    let bar = progress::bar(a.reps as u64, format!("validate {}: real repetitions", opts.path), "done");
    let report = schedlab_validate::validate(sc, &opts, &mut |done, _| bar.set_position(done as u64))?;
    drop(bar);
    if a.json {
        return serde_json::to_string_pretty(&report).map(|s| s + "\n").map_err(|e| e.to_string());
    }
    Ok(schedlab_validate::render(&report))
}
