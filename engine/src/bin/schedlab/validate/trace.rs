//! `schedlab validate --trace TRACE`: a recorded trace against the model's
//! replay of it. The trace is imported as `schedlab import` does; the
//! trace's own figures per thread (CPU time, switches, migrations, run
//! delay, wake-up latency) are the kernel side, the replay's the model
//! side, compared with the tolerances of [`super::report`].

use schedlab_engine::lab::import::{self, Options, Thread};
use schedlab_engine::lab::scenario::format_duration;
use schedlab_engine::lab::trace::hist::Hist;

use super::measure::{deciles, TaskMeasure};
use super::report;

pub const USAGE: &str = "\
usage: schedlab validate --trace TRACE [--reps N] [--min-share PCT] [--pin] [--no-wakers]
                         [--kernel V] [--hz N] [--topology PRESET] [--json]
  Imports TRACE (perf sched script / trace-cmd report text) as
  `schedlab import` does, replays it in the model over N seeds (default 3)
  and compares, per thread that used at least PCT % of one CPU (default 1),
  what the trace measured with what the replay did: CPU share, switches,
  migrations, run delay, wake-up latency. --kernel/--hz default to 6.18/250.";

fn measure(t: &Thread) -> TaskMeasure {
    TaskMeasure {
        name: import::task_name(&t.comm, t.pid),
        cpu_time_ns: t.cpu_time,
        nr_voluntary_switches: t.nvcsw,
        nr_involuntary_switches: t.nivcsw,
        nr_migrations: t.nr_migrations,
        run_delay_ns: Some(t.run_delay),
        wakeup_latency_ns: t.latency.percentiles(),
        wakeup_latency_deciles_ns: deciles(&t.latency),
        ops: 0,
    }
}

/// The comparison's rows and its header lines.
pub fn validate(args: &[String]) -> Result<(Vec<report::Row>, String, bool), String> {
    let mut o = Options::default();
    let (mut path, mut reps, mut min_share, mut json) = (None, 3u64, 1.0f64, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match a.as_str() {
            "--trace" => path = Some(value("--trace")?),
            "--reps" => {
                let v = value("--reps")?;
                reps = v.parse().ok().filter(|n| (1..=100).contains(n)).ok_or_else(|| format!("--reps: `{v}` is not in 1..=100"))?;
            }
            "--min-share" => {
                let v = value("--min-share")?;
                min_share = v.parse().ok().filter(|p: &f64| (0.0..=100.0).contains(p)).ok_or_else(|| format!("--min-share: `{v}` is not a percentage"))?;
            }
            "--pin" => o.pin = true,
            "--no-wakers" => o.wakers = false,
            "--kernel" => o.kernel = value("--kernel")?,
            "--hz" => o.hz = value("--hz")?.parse().map_err(|_| "--hz: expected 100, 250, 300 or 1000".to_string())?,
            "--topology" => o.topology = Some(value("--topology")?),
            "--json" => json = true,
            s => return Err(format!("unknown argument `{s}`\n{USAGE}")),
        }
    }
    let path = path.ok_or_else(|| format!("validate: --trace needs a file\n{USAGE}"))?;
    o.source = path.clone();
    let tr = import::read_trace(crate::traces::open(&path)?, false).map_err(|e| format!("{path}: {e}"))?;
    let sc = tr.to_scenario(&o);
    let dur = tr.duration();
    let chosen: Vec<&Thread> = tr.replayed().map(|(_, t)| t).filter(|t| t.cpu_time as f64 >= min_share / 100.0 * dur as f64).collect();
    if chosen.is_empty() {
        return Err(format!("{path}: no thread used {min_share} % of a CPU (lower --min-share)"));
    }
    let kernel = vec![chosen.iter().map(|t| measure(t)).collect::<Vec<_>>()];
    let mut model = Vec::new();
    for seed in 1..=reps {
        let ov = schedlab_engine::Overrides { seed: Some(seed), ..Default::default() };
        let (mut sim, cfg) = schedlab_engine::from_text(&sc, &ov, schedlab_engine::LogMode::HashOnly).map_err(|e| format!("{path}: replay: {e}"))?;
        sim.run();
        let res = sim.results(&cfg.kernel);
        let run: Result<Vec<TaskMeasure>, String> = kernel[0]
            .iter()
            .map(|k| {
                let i = res.tasks.iter().position(|t| t.name == k.name).ok_or_else(|| format!("replay has no task {}", k.name))?;
                let lat: &Hist = &sim.sched().tasks[i].stats.wakeup_latency;
                Ok(TaskMeasure::from_model(&res.tasks[i], lat))
            })
            .collect();
        model.push(run?);
    }
    let rows = report::compare(&kernel, &model, dur);
    let mut head = format!(
        "schedlab validate --trace {path}\n  trace      {} ({} lines, {} events), {} CPUs, {} threads, {} of them replayed; {}\n  replay     kernel {}, HZ {}, {} seed(s); compared: {} thread(s) with at least {min_share} % of a CPU\n",
        tr.format,
        tr.lines,
        tr.events,
        tr.cpus,
        tr.threads.len(),
        tr.replayed().count(),
        format_duration(dur),
        o.kernel,
        o.hz,
        reps,
        chosen.len()
    );
    for w in &tr.warnings {
        head += &format!("  warning:   {w}\n");
    }
    Ok((rows, head, json))
}

pub fn cmd(args: &[String]) -> Result<String, String> {
    let (rows, head, json) = validate(args)?;
    let within = rows.iter().filter(|r| r.within).count();
    if json {
        let v = serde_json::json!({ "header": head, "rows": rows, "within": within });
        return serde_json::to_string_pretty(&v).map(|s| s + "\n").map_err(|e| e.to_string());
    }
    Ok(format!("{head}\n{}\n{within} of {} within tolerance.\n", report::table(&rows), rows.len()))
}
