//! The `schedlab` command line.

mod traces;
mod validate;

use std::process::ExitCode;

use schedlab_engine::kernel::sched::features::Feature;
use schedlab_engine::kernel::sched::presets;
use schedlab_engine::lab::scenario::parse_duration;
use schedlab_engine::{from_text, LogMode, Overrides};

const USAGE: &str = "\
usage:
  schedlab run SCENARIO [--kernel V] [--patch P]... [--feature F=on|off]...
                        [--seed N] [--duration D] [--json] [--log] [--tasks]
                        [--signals FILE.csv [--signals-period D]]
                        [--trace FILE]   (ftrace text that Perfetto UI opens)
  schedlab import TRACE [--fit] [--pin] [--kernel V] [-o SCENARIO] ...
                        perf sched script / trace-cmd report text or rt-app
                        JSON to a scenario that replays it (import --help)
  schedlab compare SCENARIO --base CONFIG --patch CONFIG [--runs N] [--json]
                        CONFIG is KERNEL[+PATCH...][,FLAG=on|off...],
                        e.g. --base 6.6 --patch 6.6+reweight-fix
  schedlab study SCENARIO [--runs N] [--json] [--sorted]
                        the scenario's [study]: loads x seeds x configurations,
                        as the seed mails' table (case load baseline(std%) compare%(std%))
  schedlab reproduce [SEED] [--runs N] [--threads N] [--json]
                        the seed mails' tables beside the model's, cell by cell, with agreement
  schedlab expand SCENARIO
                        the tasks and channels its [[workload]] macros become (TOML)
  schedlab workloads    every workload kind with its parameters
  schedlab explain SCENARIO [--events N]
                        what the first N events (default 40) did and why, in words
  schedlab patches      every patch with its source and what it changes
  schedlab validate SCENARIO [--reps N] [--duration D] [--cpu N|auto] [--json]
                        run it on this machine's kernel and in the model, compare
  schedlab presets      kernel presets and their feature flags
  schedlab features     every feature flag with its origin and meaning

SCENARIO is a TOML or JSON file (see README.md, \"Scenario format\"); `-` reads stdin.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
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

fn run(args: &[String]) -> Result<String, String> {
    match args.first().map(String::as_str) {
        Some("run") => cmd_run(&args[1..]),
        Some("import") => traces::cmd_import(&args[1..]),
        Some("validate") => validate::cmd(&args[1..]),
        Some("presets") => Ok(cmd_presets()),
        Some("patches") => Ok(cmd_patches()),
        Some("compare") => cmd_compare(&args[1..]),
        Some("features") => Ok(cmd_features()),
        Some("expand") => cmd_expand(&args[1..]),
        Some("workloads") => Ok(cmd_workloads()),
        Some("study") => cmd_study(&args[1..]),
        Some("reproduce") => cmd_reproduce(&args[1..]),
        Some("explain") => cmd_explain(&args[1..]),
        Some("-h" | "--help" | "help") | None => Ok(format!("{USAGE}\n")),
        Some(other) => Err(format!("unknown command `{other}`\n{USAGE}")),
    }
}

fn read_scenario(path: &str) -> Result<String, String> {
    if path == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s).map_err(|e| format!("stdin: {e}"))?;
        return Ok(s);
    }
    std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))
}

fn cmd_run(args: &[String]) -> Result<String, String> {
    let mut ov = Overrides::default();
    let (mut path, mut json, mut log, mut all_tasks, mut trace) = (None, false, false, false, None);
    let (mut signals, mut period) = (None::<String>, 1_000_000u64);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match a.as_str() {
            "--kernel" => ov.kernel = Some(value("--kernel")?),
            "--patch" => ov.patches.get_or_insert_with(Vec::new).push(value("--patch")?),
            "--seed" => {
                let v = value("--seed")?;
                ov.seed = Some(v.parse().map_err(|_| format!("--seed: `{v}` is not a non-negative integer"))?);
            }
            "--duration" => {
                let v = value("--duration")?;
                ov.duration = Some(parse_duration(&v).map_err(|e| format!("--duration: {e}"))?);
            }
            "--feature" => {
                let v = value("--feature")?;
                ov.features.push(parse_feature(&v)?);
            }
            "--json" => json = true,
            "--log" => log = true,
            "--tasks" => all_tasks = true,
            "--signals" => signals = Some(value("--signals")?),
            "--signals-period" => {
                let v = value("--signals-period")?;
                period = parse_duration(&v).ok().filter(|&p| p > 0).ok_or_else(|| format!("--signals-period: `{v}` is not a positive duration"))?;
            }
            "--trace" => trace = Some(value("--trace")?),
            s if s.starts_with("--") => return Err(format!("unknown option `{s}`\n{USAGE}")),
            s => {
                if path.replace(s.to_string()).is_some() {
                    return Err(format!("more than one scenario given (`{s}`)"));
                }
            }
        }
    }
    let path = path.ok_or_else(|| format!("run: no scenario given\n{USAGE}"))?;
    let text = read_scenario(&path)?;
    let mode = if log || trace.is_some() { LogMode::Full } else { LogMode::HashOnly };
    let (mut sim, cfg) = from_text(&text, &ov, mode).map_err(|e| format!("{path}: {e}"))?;
    if signals.is_some() {
        sim.enable_signals(period);
    }
    match &trace {
        Some(t) => traces::run_with_trace(&mut sim, t, &format!("{path}: kernel {} seed {}", cfg.kernel, cfg.seed), log)?,
        None => sim.run(),
    }
    let res = sim.results(&cfg.kernel);
    if let (Some(file), Some(sig)) = (&signals, &sim.signals) {
        std::fs::write(file, sig.to_csv()).map_err(|e| format!("{file}: {e}"))?;
    }
    if json {
        let mut v = serde_json::to_value(&res).map_err(|e| e.to_string())?;
        if let Some(sig) = &sim.signals {
            v["signals"] = serde_json::to_value(sig.summary(sim.measure_from)).map_err(|e| e.to_string())?;
        }
        if log {
            v["log"] = serde_json::to_value(sim.log.iter().collect::<Vec<_>>()).map_err(|e| e.to_string())?;
        }
        return Ok(format!("{}\n", serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?));
    }
    let mut out = String::new();
    if log {
        for e in sim.log.iter() {
            out += &format!("{:>14} #{:<8} {:?}\n", e.time, e.event, e.record);
        }
    }
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
        let us = |ns: u64| ns as f64 / 1e3;
        out += &format!(
            "  wakeup latency us: p50 {:.1} p90 {:.1} p99 {:.1} max {:.1}",
            us(w.wakeup_latency_ns.p50),
            us(w.wakeup_latency_ns.p90),
            us(w.wakeup_latency_ns.p99),
            us(w.wakeup_latency_ns.max)
        );
        if w.request_latency_ns.count > 0 {
            out += &format!(
                "; request latency us: p50 {:.1} p90 {:.1} p99 {:.1} max {:.1}",
                us(w.request_latency_ns.p50),
                us(w.request_latency_ns.p90),
                us(w.request_latency_ns.p99),
                us(w.request_latency_ns.max)
            );
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

/// Beyond this many tasks `run` prints only the first (and the workloads).
const MAX_TASK_LINES: usize = 32;

fn only_path(cmd: &str, args: &[String]) -> Result<String, String> {
    match args {
        [p] if !p.starts_with("--") || p == "-" => Ok(p.clone()),
        _ => Err(format!("{cmd}: expected exactly one SCENARIO\n{USAGE}")),
    }
}

fn cmd_expand(args: &[String]) -> Result<String, String> {
    let path = only_path("expand", args)?;
    let text = read_scenario(&path)?;
    let sc = schedlab_engine::lab::scenario::parse(&text).map_err(|e| format!("{path}: {e}"))?;
    let cfg = schedlab_engine::lab::build::config(&sc, &Overrides::default()).map_err(|e| format!("{path}: {e}"))?;
    let (tasks, channels, measures) = schedlab_engine::lab::workload::expand_all(&sc, cfg.cpus).map_err(|e| format!("{path}: {e}"))?;
    Ok(schedlab_engine::lab::workload::to_toml(&tasks, &channels, &measures))
}

fn cmd_study(args: &[String]) -> Result<String, String> {
    use schedlab_engine::lab::study::Study;
    let (mut path, mut json, mut sorted, mut runs, mut threads) = (None, false, false, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match a.as_str() {
            "--json" => json = true,
            "--sorted" => sorted = true,
            "--runs" => {
                let v = value("--runs")?;
                runs = Some(v.parse().ok().filter(|&n: &u64| (1..=1000).contains(&n)).ok_or_else(|| format!("--runs: `{v}` is not a number in 1..=1000"))?);
            }
            "--threads" => {
                let v = value("--threads")?;
                threads = Some(v.parse().ok().filter(|&n: &usize| (1..=256).contains(&n)).ok_or_else(|| format!("--threads: `{v}` is not a number in 1..=256"))?);
            }
            s if s.starts_with("--") => return Err(format!("unknown option `{s}`\n{USAGE}")),
            s => {
                if path.replace(s.to_string()).is_some() {
                    return Err(format!("more than one scenario given (`{s}`)"));
                }
            }
        }
    }
    let path = path.ok_or_else(|| format!("study: no scenario given\n{USAGE}"))?;
    let mut text = read_scenario(&path)?;
    if let Some(n) = runs {
        // `--runs N` replaces the study's seeds with 1..=N.
        let mut sc = schedlab_engine::lab::scenario::parse(&text).map_err(|e| format!("{path}: {e}"))?;
        if let Some(st) = &mut sc.study {
            st.seeds = (1..=n).collect();
        }
        let mut study = Study::from_scenario(sc).map_err(|e| format!("{path}: {e}"))?;
        return finish_study(&mut study, threads, json, sorted);
    }
    let mut study = Study::new(&std::mem::take(&mut text)).map_err(|e| format!("{path}: {e}"))?;
    finish_study(&mut study, threads, json, sorted)
}

fn cmd_reproduce(args: &[String]) -> Result<String, String> {
    use schedlab_engine::lab::reproduce::{self, Reproduction};
    let (mut seed, mut json, mut runs, mut threads) = (None, false, None, None);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match a.as_str() {
            "--json" => json = true,
            "--runs" => {
                let v = value("--runs")?;
                runs = Some(v.parse().ok().filter(|&n: &u64| (1..=1000).contains(&n)).ok_or_else(|| format!("--runs: `{v}` is not a number in 1..=1000"))?);
            }
            "--threads" => {
                let v = value("--threads")?;
                threads = Some(v.parse().ok().filter(|&n: &usize| (1..=256).contains(&n)).ok_or_else(|| format!("--threads: `{v}` is not a number in 1..=256"))?);
            }
            s if s.starts_with("--") => return Err(format!("unknown option `{s}`\n{USAGE}")),
            s => {
                if seed.replace(s.to_string()).is_some() {
                    return Err(format!("more than one seed given (`{s}`)"));
                }
            }
        }
    }
    let mut r = Reproduction::plan(seed.as_deref(), runs)?;
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let tty = std::io::IsTerminal::is_terminal(&std::io::stderr());
    r.run(threads, &|done, total| {
        if tty {
            eprint!("\rreproduce: {done}/{total} runs");
        }
    })?;
    if tty {
        eprintln!();
    }
    let reports = r.reports();
    if json {
        return serde_json::to_string_pretty(&reports).map(|s| s + "\n").map_err(|e| e.to_string());
    }
    Ok(reproduce::format(&reports))
}

fn finish_study(study: &mut schedlab_engine::lab::study::Study, threads: Option<usize>, json: bool, sorted: bool) -> Result<String, String> {
    let threads = threads.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    study.run_all(threads)?;
    let table = study.table();
    if json {
        return serde_json::to_string_pretty(&table).map(|s| s + "\n").map_err(|e| e.to_string());
    }
    let mut out = table.format(false);
    if sorted {
        out += "\nsorted, worst first:\n";
        out += &table.format(true);
    }
    Ok(out)
}

fn cmd_explain(args: &[String]) -> Result<String, String> {
    use schedlab_engine::lab::player::Player;
    let (mut path, mut n) = (None, 40u64);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--events" => {
                let v = it.next().ok_or("--events needs a value")?;
                n = v.parse().ok().filter(|&k: &u64| k >= 1).ok_or_else(|| format!("--events: `{v}` is not a positive number"))?;
            }
            s if s.starts_with("--") => return Err(format!("unknown option `{s}`\n{USAGE}")),
            s => path = Some(s.to_string()),
        }
    }
    let path = path.ok_or_else(|| format!("explain: no scenario given\n{USAGE}"))?;
    let text = read_scenario(&path)?;
    let mut p = Player::new(&text, &Overrides::default()).map_err(|e| format!("{path}: {e}"))?;
    let mut out = String::new();
    for _ in 0..n {
        if !p.step() {
            break;
        }
        let k = p.event();
        let ex = schedlab_engine::lab::explain::explain_event(p.sim(), p.log(), &p.entries(k));
        out += &format!("#{k} {}: {}\n", schedlab_engine::lab::scenario::format_duration(p.time()), ex.headline);
        for l in &ex.lines {
            out += &format!("    {l}\n");
        }
    }
    Ok(out)
}

fn cmd_workloads() -> String {
    let mut out = String::new();
    for k in schedlab_engine::lab::workload::KINDS {
        out += &format!("{}\n  {}\n", k.name, k.about);
        for p in k.params.iter().chain(schedlab_engine::lab::workload::COMMON) {
            out += &format!("  {:<16} {:<28} {}\n", p.name, format!("(default {})", p.default), p.about);
        }
        out += "\n";
    }
    out
}

fn cmd_patches() -> String {
    let mut out = String::new();
    for p in schedlab_engine::kernel::patches::PATCHES {
        let flags: Vec<String> = p.flags.iter().map(|(f, on)| format!("{}{}", if *on { "" } else { "NO_" }, f.name())).collect();
        let mut changes = flags.join(" ");
        if let Some(b) = p.base_slice_normalized {
            changes += &format!("{}base_slice (normalized) = {b} ns", if changes.is_empty() { "" } else { " " });
        }
        out += &format!("{}\n  {}\n  source: {}\n  {}\n  sets: {}\n\n", p.name, p.title, p.source, p.summary, changes);
    }
    out
}

fn cmd_compare(args: &[String]) -> Result<String, String> {
    use schedlab_engine::lab::compare::{compare, ConfigSpec};
    let (mut path, mut base, mut patch, mut runs, mut json) = (None, None, None, 1u32, false);
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |flag: &str| it.next().cloned().ok_or_else(|| format!("{flag} needs a value"));
        match a.as_str() {
            "--base" => base = Some(ConfigSpec::parse(&value("--base")?)?),
            "--patch" => patch = Some(ConfigSpec::parse(&value("--patch")?)?),
            "--runs" => {
                let v = value("--runs")?;
                runs = v.parse().ok().filter(|&n: &u32| (1..=1000).contains(&n)).ok_or_else(|| format!("--runs: `{v}` is not a number in 1..=1000"))?;
            }
            "--json" => json = true,
            s if s.starts_with("--") => return Err(format!("unknown option `{s}`\n{USAGE}")),
            s => path = Some(s.to_string()),
        }
    }
    let path = path.ok_or_else(|| format!("compare: no scenario given\n{USAGE}"))?;
    let base = base.ok_or("compare: --base CONFIG is required")?;
    let patch = patch.ok_or("compare: --patch CONFIG is required")?;
    let text = read_scenario(&path)?;
    let c = compare(&text, &base, &patch, runs).map_err(|e| format!("{path}: {e}"))?;
    if json {
        return serde_json::to_string_pretty(&c).map(|s| s + "\n").map_err(|e| e.to_string());
    }
    let mut out = format!("base: {}   patch: {}   runs: {}\n", c.base.text, c.patch.text, c.runs);
    out += &format!("{:<16} {:<14} {:>14} {:>8} {:>14} {:>8} {:>9}\n", "task", "metric", "base", "(std)", "patch", "(std)", "change");
    for d in &c.deltas {
        out += &format!(
            "{:<16} {:<14} {:>14.3} {:>8.3} {:>14.3} {:>8.3} {:>+8.2}%\n",
            d.task, d.metric, d.base_mean, d.base_std, d.patch_mean, d.patch_std, d.change_pct
        );
    }
    match &c.divergence {
        None => out += "the two runs are identical (no divergence)\n",
        Some(d) => {
            let at = d.base.or(d.patch).map(|e| (e.time, e.event)).unwrap_or((0, 0));
            out += &format!(
                "first divergence: record {} (event {}, t = {} ns)\n  base:  {:?}\n  patch: {:?}\n",
                d.index,
                at.1,
                at.0,
                d.base.map(|e| e.record),
                d.patch.map(|e| e.record)
            );
        }
    }
    Ok(out)
}

fn parse_feature(s: &str) -> Result<(String, bool), String> {
    let (name, val) = s.split_once('=').ok_or_else(|| format!("--feature `{s}`: expected NAME=on|off"))?;
    let on = match val {
        "on" | "true" | "1" => true,
        "off" | "false" | "0" => false,
        _ => return Err(format!("--feature `{s}`: value must be on or off")),
    };
    Ok((name.to_string(), on))
}

fn cmd_presets() -> String {
    let mut out = String::new();
    for p in presets::presets() {
        out += &format!("{}\n  {}\n  source: {}\n  base_slice (normalized): {} ns\n  features:", p.name, p.summary, p.source, p.base_slice_normalized);
        for f in Feature::ALL {
            let on = p.features.has(*f);
            out += &format!(" {}{}", if on { "" } else { "NO_" }, f.name());
        }
        out += "\n\n";
    }
    out
}

fn cmd_features() -> String {
    let mut out = String::new();
    for f in Feature::ALL {
        let d = f.defaults();
        let defaults: Vec<String> =
            schedlab_engine::kernel::sched::features::PRESET_NAMES.iter().zip(d).map(|(p, on)| format!("{p}:{}", if on { "on" } else { "off" })).collect();
        out += &format!("{}  [{}]\n  origin: {}\n  {}\n\n", f.name(), defaults.join(" "), f.origin(), f.doc().replace('\n', "\n  "));
    }
    out
}
