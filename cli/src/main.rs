//! The `schedlab` command line: clap parses, one module per command does
//! the work and returns what to print.
//!
//! To add a command: a variant of [`Command`] holding its `clap::Args`
//! struct (its doc comment is the command's help), a module with
//! `pub fn cmd(args) -> Result<String, String>`, and the arm in
//! [`Command::exec`]. Options shared by several commands live here
//! ([`ScenarioArg`], the value parsers); progress bars in [`progress`].

mod compare;
mod explain;
mod lists;
mod progress;
mod reproduce;
mod run;
mod study;
mod traces;
mod validate;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "schedlab",
    version,
    about = "A Linux fair-scheduler laboratory: EEVDF and CFS, simulated deterministically",
    after_help = "SCENARIO is a TOML or JSON file (README.md, \"Scenario format\"); `-` reads stdin.\n\
                  `schedlab help COMMAND` or `schedlab COMMAND --help` explains a command."
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scenario: per-task, per-workload and per-CPU results
    Run(run::Args),
    /// Run a scenario under two configurations: per-task deltas and the first divergence
    Compare(compare::Args),
    /// The scenario's `[study]`: loads × seeds × configurations, as the seed mails' table
    Study(study::Args),
    /// The seed mails' tables beside the model's, cell by cell, with agreement
    Reproduce(reproduce::Args),
    /// A recorded trace (perf sched / trace-cmd text, rt-app JSON) as a scenario that replays it
    #[command(long_about = traces::IMPORT_ABOUT)]
    Import(traces::Args),
    /// The tasks and channels the scenario's `[[workload]]` macros become (TOML)
    Expand(explain::ExpandArgs),
    /// What the first events did and why, in words
    Explain(explain::Args),
    /// Run the scenario on this machine's kernel and in the model, and compare
    #[command(long_about = validate::LONG_ABOUT)]
    Validate(validate::Args),
    /// Every workload kind with its parameters
    Workloads,
    /// Every patch with its source and what it changes
    Patches,
    /// Kernel presets and their feature flags
    Presets,
    /// Every feature flag with its origin and meaning
    Features {
        /// Instead: every kernel behaviour the model leaves out, and what a user sees differ
        #[arg(long)]
        missing: bool,
    },
    /// A shell completion script, e.g. `schedlab completions bash > /etc/bash_completion.d/schedlab`
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

impl Command {
    /// Runs the command; the text is for stdout.
    fn exec(self) -> Result<String, String> {
        match self {
            Command::Run(a) => run::cmd(a),
            Command::Compare(a) => compare::cmd(a),
            Command::Study(a) => study::cmd(a),
            Command::Reproduce(a) => reproduce::cmd(a),
            Command::Import(a) => traces::cmd(a),
            Command::Expand(a) => explain::expand(a),
            Command::Explain(a) => explain::cmd(a),
            Command::Validate(a) => validate::cmd(a),
            Command::Workloads => Ok(lists::workloads()),
            Command::Patches => Ok(lists::patches()),
            Command::Presets => Ok(lists::presets()),
            Command::Features { missing: false } => Ok(lists::features()),
            Command::Features { missing: true } => Ok(lists::missing()),
            Command::Completions { shell } => Ok(completions(shell)),
        }
    }
}

fn completions(shell: clap_complete::Shell) -> String {
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "schedlab", &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

fn main() -> ExitCode {
    // Usage errors (unknown command or option, bad value) print the
    // command's usage and exit 2; --help and --version exit 0.
    let cli = Cli::parse();
    let result = match cli.command {
        Some(c) => c.exec(),
        None => Ok(Cli::command().render_help().to_string()),
    };
    match result {
        Ok(out) => {
            // A closed pipe (`schedlab run x | head`) is not an error.
            let _ = std::io::Write::write_all(&mut std::io::stdout(), out.as_bytes());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("schedlab: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The scenario every simulating command takes.
#[derive(clap::Args)]
pub struct ScenarioArg {
    /// A TOML or JSON scenario file; `-` reads stdin
    #[arg(value_name = "SCENARIO", value_hint = clap::ValueHint::FilePath)]
    pub path: String,
}

impl ScenarioArg {
    pub fn read(&self) -> Result<String, String> {
        let path = &self.path;
        let bytes = if path == "-" {
            let mut b = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut b).map_err(|e| format!("stdin: {e}"))?;
            b
        } else {
            std::fs::read(path).map_err(|e| format!("{path}: {e}"))?
        };
        let name = if path == "-" { "stdin" } else { path };
        String::from_utf8(bytes).map_err(|e| not_utf8(name, e.as_bytes(), e.utf8_error().valid_up_to()))
    }
}

/// "FILE: line L, column C (byte B): not UTF-8" for the first bad byte.
fn not_utf8(name: &str, bytes: &[u8], at: usize) -> String {
    let before = &bytes[..at];
    let line_start = before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    // The bytes before `at` are valid UTF-8: count characters, not bytes.
    let column = String::from_utf8_lossy(&before[line_start..]).chars().count() + 1;
    format!("{name}: line {line}, column {column} (byte {at}): the file is not UTF-8 text (byte 0x{:02x})", bytes[at])
}

/// How studies run (`study`, `reproduce`).
#[derive(clap::Args)]
pub struct StudyRuns {
    /// Replace the seeds of every study with 1..=N
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub runs: Option<u64>,
    /// Threads to run on [default: one per CPU]
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=256))]
    pub threads: Option<usize>,
    /// Set a feature flag in every configuration (`schedlab features`), to
    /// see what a mechanism changes; repeatable
    #[arg(long = "feature", value_name = "F=on|off", value_parser = crate::feature)]
    pub features: Vec<(String, bool)>,
}

impl StudyRuns {
    /// The seeds and feature flags asked for, set in a planned study.
    pub fn apply(&self, study: &mut schedlab_engine::lab::study::Study) -> Result<(), String> {
        if let Some(n) = self.runs {
            study.set_seeds((1..=n).collect());
        }
        for (f, on) in &self.features {
            study.set_feature(f, *on)?;
        }
        Ok(())
    }

    pub fn threads(&self) -> usize {
        self.threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }
}

/// `750us`, `4ms`, `2s` → ns.
pub fn duration(s: &str) -> Result<u64, String> {
    schedlab_engine::lab::scenario::parse_duration(s)
}

/// A duration above 0.
pub fn positive_duration(s: &str) -> Result<u64, String> {
    duration(s).and_then(|d| if d > 0 { Ok(d) } else { Err("must be above 0".into()) })
}

/// `NAME=on|off` (also true/false, 1/0).
pub fn feature(s: &str) -> Result<(String, bool), String> {
    let (name, val) = s.split_once('=').ok_or("expected NAME=on|off")?;
    let on = match val {
        "on" | "true" | "1" => true,
        "off" | "false" | "0" => false,
        _ => return Err("the value must be on or off".into()),
    };
    Ok((name.to_string(), on))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("schedlab").chain(line.split_whitespace()))
    }

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn run_options() {
        let Some(Command::Run(a)) = parse("run x.toml --patch a --patch b --feature RUN_TO_PARITY=off --seed 7 --duration 2ms --json").unwrap().command else {
            panic!("not run")
        };
        let ov = a.overrides();
        assert_eq!(ov.patches, Some(vec!["a".to_string(), "b".to_string()]));
        assert_eq!(ov.features, vec![("RUN_TO_PARITY".to_string(), false)]);
        assert_eq!((ov.seed, ov.duration, a.json, a.log), (Some(7), Some(2_000_000), true, false));
        // No --patch keeps the scenario's patches.
        let Some(Command::Run(a)) = parse("run -").unwrap().command else { panic!() };
        assert_eq!((a.scenario.path.as_str(), a.overrides().patches), ("-", None));
        let Some(Command::Run(a)) = parse("run x --signals s.csv --signals-period 250us").unwrap().command else { panic!() };
        assert_eq!((a.signals.as_deref(), a.signals_period), (Some("s.csv"), 250_000));
        let Some(Command::Run(a)) = parse("run x --signals s.csv").unwrap().command else { panic!() };
        assert_eq!(a.signals_period, 1_000_000);
        for bad in ["run x --signals s.csv --signals-period 0ns", "run x --signals-period 1ms", "run", "run x --seed -1", "run x --duration 5", "run x --feature RUN_TO_PARITY", "run x --feature X=maybe", "run x y", "run x --frob"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ranges_are_checked() {
        assert!(parse("study x --runs 1000 --threads 256").is_ok());
        assert!(parse("reproduce --runs 2 --threads 1").is_ok() && parse("reproduce 002 --json").is_ok());
        for bad in ["study x --runs 0", "study x --runs 1001", "study x --threads 0", "reproduce 000 002", "reproduce --runs 0", "compare x --base 6.6 --patch 6.6 --runs 0", "explain x --events 0"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        // compare needs both configurations, and they must parse.
        assert!(parse("compare x --base 6.6").is_err());
        assert!(parse("compare x --base 6.6+ --patch 6.6").is_err());
    }

    #[test]
    fn validate_options() {
        let Some(Command::Validate(a)) = parse("validate x.toml --reps 5 --retry 4 --duration 2s --cpu auto --json").unwrap().command else {
            panic!("not validate")
        };
        let o = a.options(None);
        assert_eq!((o.path.as_str(), o.reps, o.retry, o.duration, o.cpu, a.json), ("x.toml", 5, 4, Some(2_000_000_000), schedlab_validate::CpuChoice::Auto, true));
        let Some(Command::Validate(a)) = parse("validate x --cpu 1").unwrap().command else { panic!() };
        assert_eq!((a.options(None).cpu, a.options(None).reps), (schedlab_validate::CpuChoice::Cpu(1), 3));
        for bad in ["validate", "validate x --reps 0", "validate x --reps 101", "validate x --reps", "validate x --cpu one", "validate x y", "validate x --frob", "validate x --duration 5"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert_eq!(schedlab_validate::parse_inject("1@200ms"), Ok((1, 200_000_000)));
        assert!(schedlab_validate::parse_inject("1").is_err() && schedlab_validate::parse_inject("x@1ms").is_err());
    }
}
