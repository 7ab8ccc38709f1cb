//! `schedlab validate --trace TRACE`: a recorded trace against the model's
//! replay of it. The trace is imported as `schedlab import` does; the
//! trace's own figures per thread (CPU time, switches, migrations, run
//! delay, wake-up latency) are the kernel side, the replay's the model
//! side, compared with the tolerances of [`crate::report`].

use schedlab_engine::lab::import::{self, Options, Thread};
use schedlab_engine::lab::scenario::format_duration;
use schedlab_engine::lab::trace::hist::Hist;

use crate::measure::{deciles, TaskMeasure};
use crate::report;

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

/// The comparison's rows and its header lines: `trace` (read from `path`)
/// imported with `o`, replayed over seeds 1..=`reps`, for the threads that
/// used at least `min_share` % of one CPU.
pub fn validate(trace: impl std::io::BufRead, path: &str, o: &Options, reps: u64, min_share: f64) -> Result<(Vec<report::Row>, String), String> {
    let tr = import::read_trace(trace, false).map_err(|e| format!("{path}: {e}"))?;
    let sc = tr.to_scenario(o);
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
    Ok((rows, head))
}

/// The comparison as text (or JSON).
pub fn render(rows: &[report::Row], head: &str, json: bool) -> Result<String, String> {
    let within = rows.iter().filter(|r| r.within).count();
    if json {
        let v = serde_json::json!({ "header": head, "rows": rows, "within": within });
        return serde_json::to_string_pretty(&v).map(|s| s + "\n").map_err(|e| e.to_string());
    }
    Ok(format!("{head}\n{}\n{within} of {} within tolerance.\n", report::table(rows), rows.len()))
}
