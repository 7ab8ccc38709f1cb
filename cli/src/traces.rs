//! Traces at the command line: `schedlab import TRACE`, the `--trace FILE`
//! of `schedlab run`, and the import options `validate --trace` shares.

use std::io::BufReader;

use schedlab_engine::lab::import::{self, Options};

pub const IMPORT_ABOUT: &str = "\
Reads TRACE, `perf sched script` or `trace-cmd report` text (or the ftrace
`trace` file, or schedlab's own export) or an rt-app JSON workload, and
writes a scenario (TOML) that replays it: one task per thread that ran, its
program the observed CPU bursts and sleeps (`run`, `sleep`), a channel per
thread that one other thread kept waking (`send`/`recv`). `-` reads stdin.
The trace is streamed, never read whole.";

/// How a trace becomes a scenario (`import`, `validate --trace`).
#[derive(clap::Args)]
pub struct ImportOptions {
    /// Pin threads that spent 95 % of their CPU time on one CPU to it
    #[arg(long)]
    pub pin: bool,
    /// Every wake-up is a sleep (no send/recv pairs)
    #[arg(long)]
    pub no_wakers: bool,
    /// Kernel preset of the scenario
    #[arg(long, value_name = "V", default_value = "6.18")]
    pub kernel: String,
    /// HZ of the scenario
    #[arg(long, value_name = "N", default_value_t = 250, value_parser = hz)]
    pub hz: u32,
    /// Topology preset instead of one guessed from the CPU count
    #[arg(long, value_name = "PRESET")]
    pub topology: Option<String>,
}

impl ImportOptions {
    pub fn options(&self, source: &str, fit: bool) -> Options {
        Options {
            fit,
            pin: self.pin,
            wakers: !self.no_wakers,
            kernel: self.kernel.clone(),
            hz: self.hz,
            topology: self.topology.clone(),
            source: if source == "-" { "stdin".into() } else { source.into() },
        }
    }
}

fn hz(s: &str) -> Result<u32, String> {
    s.parse().ok().filter(|h| [100, 250, 300, 1000].contains(h)).ok_or_else(|| format!("`{s}`: expected 100, 250, 300 or 1000"))
}

#[derive(clap::Args)]
pub struct Args {
    /// perf sched script / trace-cmd report text or rt-app JSON; `-` reads stdin
    #[arg(value_name = "TRACE", value_hint = clap::ValueHint::FilePath)]
    pub trace: String,
    /// Fitted distributions in a loop instead of the observed sequence
    #[arg(long)]
    pub fit: bool,
    #[command(flatten)]
    pub import: ImportOptions,
    /// Write the scenario there instead of stdout
    #[arg(short = 'o', value_name = "SCENARIO")]
    pub out: Option<String>,
}

/// Opens a trace for streaming.
pub fn open(path: &str) -> Result<Box<dyn std::io::BufRead>, String> {
    if path == "-" {
        return Ok(Box::new(BufReader::with_capacity(1 << 16, std::io::stdin())));
    }
    let f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    Ok(Box::new(BufReader::with_capacity(1 << 16, f)))
}

/// `schedlab import`.
pub fn cmd(a: Args) -> Result<String, String> {
    let path = &a.trace;
    let o = a.import.options(path, a.fit);
    let (sc, _) = import::import(open(path)?, &o).map_err(|e| format!("{path}: {e}"))?;
    // What was written must load: a scenario the model refuses is a bug
    // of the importer, said here rather than at the next `run`. Checked a
    // piece at a time: parsed whole, a long trace's scenario takes several
    // times the memory of the import itself.
    import::check_scenario(&sc).map_err(|e| format!("{path}: the imported scenario does not load ({e}); please report it"))?;
    match a.out {
        Some(f) => {
            std::fs::write(&f, &sc).map_err(|e| format!("{f}: {e}"))?;
            Ok(String::new())
        }
        None => Ok(sc),
    }
}

