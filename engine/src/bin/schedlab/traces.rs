//! The command line of traces: `schedlab import TRACE` and the
//! `--trace FILE` of `schedlab run` (kept here, apart from the option
//! parsing of the other commands).

use std::io::{BufReader, BufWriter, Write};

use schedlab_engine::lab::import::{self, Options};
use schedlab_engine::lab::perfetto;
use schedlab_engine::Simulation;

pub const USAGE: &str = "\
usage: schedlab import TRACE [--fit] [--pin] [--no-wakers] [--kernel V] [--hz N]
                             [--topology PRESET] [-o SCENARIO]
  TRACE is `perf sched script` or `trace-cmd report` text (or the ftrace
  `trace` file, or schedlab's own export), or an rt-app JSON workload; `-`
  reads stdin. Writes a scenario (TOML) that replays it: one task per thread
  that ran, its program the observed CPU bursts and sleeps (`run`, `sleep`),
  a channel per thread that one other thread kept waking (`send`/`recv`).
  --fit          fitted distributions in a loop instead of the sequence
  --pin          pin threads that spent 95 % of their CPU time on one CPU to it
  --no-wakers    every wake-up is a sleep (no send/recv pairs)
  --kernel V     kernel preset of the scenario (default 6.18)
  --hz N         HZ of the scenario (default 250)
  --topology P   topology preset instead of one guessed from the CPU count
  -o FILE        write the scenario there instead of stdout";

/// Parsed `import` options: the trace path, the output path, the options.
pub fn parse_import(args: &[String]) -> Result<(String, Option<String>, Options), String> {
    let mut o = Options::default();
    let (mut path, mut out) = (None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match a.as_str() {
            "--fit" => o.fit = true,
            "--pin" => o.pin = true,
            "--no-wakers" => o.wakers = false,
            "--kernel" => o.kernel = value("--kernel")?,
            "--hz" => {
                let v = value("--hz")?;
                o.hz = v.parse().ok().filter(|h| [100, 250, 300, 1000].contains(h)).ok_or_else(|| format!("--hz: `{v}`: expected 100, 250, 300 or 1000"))?;
            }
            "--topology" => o.topology = Some(value("--topology")?),
            "-o" => out = Some(value("-o")?),
            "-" => path = Some("-".to_string()),
            s if s.starts_with('-') => return Err(format!("unknown option `{s}`\n{USAGE}")),
            s => {
                if path.replace(s.to_string()).is_some() {
                    return Err(format!("more than one trace given (`{s}`)"));
                }
            }
        }
    }
    let path = path.ok_or_else(|| format!("import: no trace given\n{USAGE}"))?;
    o.source = if path == "-" { "stdin".into() } else { path.clone() };
    Ok((path, out, o))
}

/// Opens a trace for streaming (never read whole).
pub fn open(path: &str) -> Result<Box<dyn std::io::BufRead>, String> {
    if path == "-" {
        return Ok(Box::new(BufReader::with_capacity(1 << 16, std::io::stdin())));
    }
    let f = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    Ok(Box::new(BufReader::with_capacity(1 << 16, f)))
}

/// `schedlab import`.
pub fn cmd_import(args: &[String]) -> Result<String, String> {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return Ok(format!("{USAGE}\n"));
    }
    let (path, out, o) = parse_import(args)?;
    let (sc, _) = import::import(open(&path)?, &o).map_err(|e| format!("{path}: {e}"))?;
    // What was written must load: a scenario the model refuses is a bug
    // of the importer, said here rather than at the next `run`.
    schedlab_engine::lab::scenario::parse(&sc).map_err(|e| format!("{path}: the imported scenario does not load ({e}); please report it"))?;
    match out {
        Some(f) => {
            std::fs::write(&f, &sc).map_err(|e| format!("{f}: {e}"))?;
            Ok(String::new())
        }
        None => Ok(sc),
    }
}

/// `run --trace FILE`: runs `sim` to its end writing the trace (the log
/// is dropped as it is written unless `keep_log`).
pub fn run_with_trace(sim: &mut Simulation, path: &str, title: &str, keep_log: bool) -> Result<(), String> {
    let f = std::fs::File::create(path).map_err(|e| format!("{path}: {e}"))?;
    let w = perfetto::run_exporting(sim, BufWriter::with_capacity(1 << 16, f), title, true, keep_log).map_err(|e| format!("{path}: {e}"))?;
    w.into_inner().map_err(|e| format!("{path}: {e}"))?.flush().map_err(|e| format!("{path}: {e}"))
}
