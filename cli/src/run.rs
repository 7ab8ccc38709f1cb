//! `schedlab run`: one scenario, its per-task, per-workload and per-CPU results.

use std::io::{BufWriter, Write};

use schedlab_engine::kernel::sched::features::Feature;
use schedlab_engine::lab::perfetto::FtraceExport;
use schedlab_engine::lab::sim::{Log, Simulation};
use schedlab_engine::{from_text, LogMode, Overrides};

use crate::{progress, ScenarioArg};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub scenario: ScenarioArg,
    /// Kernel preset instead of the scenario's (`schedlab presets`)
    #[arg(long, value_name = "V")]
    pub kernel: Option<String>,
    /// Run with this patch (`schedlab patches`) instead of the scenario's; repeatable
    #[arg(long = "patch", value_name = "P")]
    pub patches: Vec<String>,
    /// Set a feature flag (`schedlab features`); repeatable
    #[arg(long = "feature", value_name = "F=on|off", value_parser = crate::feature)]
    pub features: Vec<(String, bool)>,
    /// Seed of the run's one random source
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
    /// Simulated time, e.g. 500ms
    #[arg(long, value_name = "D", value_parser = crate::duration)]
    pub duration: Option<u64>,
    /// Print every result as JSON
    #[arg(long)]
    pub json: bool,
    /// Print the event log too (in the JSON as "log")
    #[arg(long)]
    pub log: bool,
    /// List every task (by default the first 32)
    #[arg(long)]
    pub tasks: bool,
    /// Sample per-CPU signals (run-queue length, utilisation, scan budgets) into this CSV file; --json adds their summary
    #[arg(long, value_name = "FILE.csv")]
    pub signals: Option<String>,
    /// How often --signals samples
    #[arg(long, value_name = "D", default_value = "1ms", value_parser = crate::positive_duration, requires = "signals")]
    pub signals_period: u64,
    /// Write the run as ftrace text, which Perfetto UI opens (README, "Traces")
    #[arg(long, value_name = "FILE")]
    pub trace: Option<String>,
}

impl Args {
    pub fn overrides(&self) -> Overrides {
        Overrides {
            kernel: self.kernel.clone(),
            patches: (!self.patches.is_empty()).then(|| self.patches.clone()),
            features: self.features.clone(),
            seed: self.seed,
            duration: self.duration,
        }
    }
}

pub fn cmd(a: Args) -> Result<String, String> {
    let text = a.scenario.read()?;
    let path = &a.scenario.path;
    let (json, log, all_tasks) = (a.json, a.log, a.tasks);
    let mode = if log || a.trace.is_some() { LogMode::Full } else { LogMode::HashOnly };
    let (mut sim, cfg) = from_text(&text, &a.overrides(), mode).map_err(|e| format!("{path}: {e}"))?;
    if a.signals.is_some() {
        sim.enable_signals(a.signals_period);
    }
    let busy = progress::busy(format!("running {path}"));
    let title = format!("{path}: kernel {} seed {}", cfg.kernel, cfg.seed);
    let stdout = std::io::stdout();
    let mut log_out = log.then(|| LogStream::new(BufWriter::with_capacity(1 << 16, stdout.lock()), json));
    let reader_left = stream(&mut sim, a.trace.as_deref(), &title, log_out.as_mut())?;
    drop(busy);
    if reader_left {
        return Ok(String::new());
    }
    let res = sim.results(&cfg.kernel);
    if let (Some(file), Some(sig)) = (&a.signals, &sim.signals) {
        std::fs::write(file, sig.to_csv()).map_err(|e| format!("{file}: {e}"))?;
    }
    // The log, if any, is on stdout already: what follows completes it.
    let log_written = log_out.map(LogStream::finish).transpose().map_err(|e| format!("stdout: {e}"))?;
    if json {
        let mut v = serde_json::to_value(&res).map_err(|e| e.to_string())?;
        if let Some(sig) = &sim.signals {
            v["signals"] = serde_json::to_value(sig.summary(sim.measure_from)).map_err(|e| e.to_string())?;
        }
        let pretty = serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?;
        // After a streamed `"log": [...]`, the object's other members
        // follow it: drop the result's own opening brace.
        return Ok(match log_written {
            Some(_) => format!(",{}\n", &pretty[1..]),
            None => format!("{pretty}\n"),
        });
    }
    let mut out = String::new();
    out += &format!(
        "kernel {}  seed {}  simulated {}  events {}  log hash {}\n",
        res.kernel,
        res.seed,
        schedlab_engine::lab::scenario::format_duration(res.sim_time_ns),
        res.events,
        res.log_hash
    );
    out += &format!(
        "{:<16} {:>12} {:>7} {:>8} {:>8} {:>10} {:>10} {:>10}\n",
        "task", "cpu_time", "share", "vol_sw", "invol_sw", "lat_p50", "lat_p99", "lat_max"
    );
    let shown = if all_tasks || res.tasks.len() <= MAX_TASK_LINES { res.tasks.len() } else { MAX_TASK_LINES };
    for t in &res.tasks[..shown] {
        out += &format!(
            "{:<16} {:>12} {:>6.2}% {:>8} {:>8} {:>10} {:>10} {:>10}\n",
            t.name,
            schedlab_engine::lab::scenario::format_duration(t.cpu_time_ns),
            t.share * 100.0,
            t.nr_voluntary_switches,
            t.nr_involuntary_switches,
            t.wakeup_latency_ns.p50,
            t.wakeup_latency_ns.p99,
            t.wakeup_latency_ns.max
        );
    }
    if shown < res.tasks.len() {
        out += &format!("... {} more tasks (--tasks lists them all)\n", res.tasks.len() - shown);
    }
    for w in &res.workloads {
        let better = if w.higher_is_better { "higher" } else { "lower" };
        out += &format!(
            "workload {} ({}, {}, {}): {} = {:.4} {} ({better} is better); {} ops, {:.0} ops/s{}\n",
            w.name,
            w.kind,
            w.case,
            w.load,
            w.metric.name(),
            w.value,
            w.unit,
            w.ops,
            w.ops_per_sec,
            if w.finished { ", finished" } else { "" }
        );
        out += &format!("  {}", latency("wakeup", &w.wakeup_latency_ns));
        if w.request_latency_ns.count > 0 {
            out += &format!("; {}", latency("request", &w.request_latency_ns));
        }
        out += &format!(
            "\n  switches: {} voluntary, {} involuntary; {} migrations\n",
            w.nr_voluntary_switches, w.nr_involuntary_switches, w.nr_migrations
        );
    }
    let busy: u64 = res.cpus.iter().map(|c| c.busy_ns).sum();
    let idle: u64 = res.cpus.iter().map(|c| c.idle_ns).sum();
    out += &format!(
        "cpus: {:.1} % busy; select_idle_sibling: {} wakeups, {:.2} CPUs scanned per wakeup\n",
        100.0 * busy as f64 / (busy + idle).max(1) as f64,
        res.sis.wakeups,
        res.sis.cpus_scanned as f64 / res.sis.wakeups.max(1) as f64
    );
    if sim.sched().feat.has(Feature::PICK_STATS) {
        let p = res.pick;
        out += &format!(
            "pick_eevdf: {} picks, {} fast path ({:.1} %), {} tree walks visiting {} nodes ({:.2} per walk), {} protected, {} single, {} buddy\n",
            p.picks,
            p.fastpath,
            100.0 * p.fastpath as f64 / p.picks.max(1) as f64,
            p.slowpath,
            p.nodes_visited,
            p.nodes_visited as f64 / p.slowpath.max(1) as f64,
            p.protected,
            p.single,
            p.buddy_picks
        );
    }
    for w in &res.warnings {
        out += &format!("warning: {w}\n");
    }
    Ok(out)
}

/// Runs `sim` to its end, streaming the trace file and the log as it
/// goes: kept records are dropped after each event, so memory stays flat
/// however long the run (README, "Memory"). Returns true if stdout was
/// closed (`schedlab run --log x | head`): nobody reads the rest.
fn stream<W: Write>(sim: &mut Simulation, trace: Option<&str>, title: &str, mut log: Option<&mut LogStream<W>>) -> Result<bool, String> {
    let file_err = |e: std::io::Error| format!("{}: {e}", trace.unwrap_or("trace"));
    let mut ex = match trace {
        Some(t) => {
            let f = std::fs::File::create(t).map_err(file_err)?;
            Some(FtraceExport::new(sim, BufWriter::with_capacity(1 << 16, f), title, true).map_err(file_err)?)
        }
        None => None,
    };
    if ex.is_none() && log.is_none() {
        sim.run();
        return Ok(false);
    }
    loop {
        let more = sim.step();
        if let Some(ex) = &mut ex {
            ex.ingest(&sim.log, Some(sim.sched())).map_err(file_err)?;
        }
        if let Some(l) = log.as_deref_mut() {
            match l.write(&sim.log) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(true),
                r => r.map_err(|e| format!("stdout: {e}"))?,
            }
        }
        match &mut ex {
            // Everything is read: this only empties the log for both.
            Some(ex) => ex.drain(&mut sim.log, None).map_err(file_err)?,
            None => sim.log.clear_kept(),
        }
        if !more {
            break;
        }
    }
    if let Some(mut ex) = ex {
        ex.end_at(sim.now(), sim.sched()).map_err(file_err)?;
        ex.finish().map_err(file_err)?.into_inner().map_err(|e| file_err(e.into_error()))?.flush().map_err(file_err)?;
    }
    Ok(false)
}

/// The event log written as the run makes it: text lines, or the opening
/// `{"log": [` of the JSON result, one entry per line (the rest of the
/// object follows the run).
struct LogStream<W: Write> {
    w: W,
    json: bool,
    entries: u64,
}

impl<W: Write> LogStream<W> {
    fn new(w: W, json: bool) -> Self {
        LogStream { w, json, entries: 0 }
    }

    fn write(&mut self, log: &Log) -> std::io::Result<()> {
        for e in log.iter() {
            if self.json {
                let sep = if self.entries == 0 { "{\n  \"log\": [\n    " } else { ",\n    " };
                self.w.write_all(sep.as_bytes())?;
                serde_json::to_writer(&mut self.w, &e)?;
            } else {
                writeln!(self.w, "{:>14} #{:<8} {:?}", e.time, e.event, e.record)?;
            }
            self.entries += 1;
        }
        Ok(())
    }

    /// Closes the JSON array; returns the number of entries written.
    fn finish(mut self) -> std::io::Result<u64> {
        if self.json {
            let open = if self.entries == 0 { "{\n  \"log\": [" } else { "" };
            write!(self.w, "{open}\n  ]")?;
        }
        self.w.flush()?;
        Ok(self.entries)
    }
}

/// Beyond this many tasks `run` prints only the first (and the workloads).
const MAX_TASK_LINES: usize = 32;

/// "NAME latency us: p50 … p90 … p99 … max …".
fn latency(name: &str, p: &schedlab_engine::lab::trace::hist::Percentiles) -> String {
    let us = |ns: u64| ns as f64 / 1e3;
    format!("{name} latency us: p50 {:.1} p90 {:.1} p99 {:.1} max {:.1}", us(p.p50), us(p.p90), us(p.p99), us(p.max))
}
