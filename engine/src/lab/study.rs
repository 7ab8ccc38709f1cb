//! Studies: one workload at several load levels × seeds × configurations,
//! reduced to the result table of the seed mails:
//!
//! ```text
//! case            	load    	baseline(std%)	compare%( std%)
//! process-pipe    	1 group 	 1.00 (  0.59)	 -1.35 (  0.88)
//! ```
//!
//! The baseline column is normalised to 1.00; std% is the sample standard
//! deviation over the seeds as a percentage of the mean. compare% is the
//! change against the baseline mean with the mails' sign convention: a
//! positive number is an improvement, whichever way the metric points
//! (throughput: higher is better; time and latency: lower is better).
//!
//! Runs are independent: `run_one` is pure, so the CLI spreads them over
//! threads and the page runs them one at a time in a web worker, with
//! progress and cancellation. A run's value depends only on its scenario,
//! configuration and seed, so the table is the same on the host and in wasm.

use serde::Serialize;

use crate::lab::build::{self, Overrides};
use crate::lab::compare::{mean_std, ConfigSpec};
use crate::lab::scenario::{self, Named, Param, Scenario, ScenarioError, StudySpec};
use crate::lab::sim::LogMode;
use crate::lab::workload::{self, Metric};

type R<T> = Result<T, ScenarioError>;

/// A row of the table: one case at one load.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    pub case: String,
    pub load: String,
    /// The workload parameters this row sets.
    #[serde(skip)]
    params: Vec<(Named, Param)>,
}

/// One planned run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RunKey {
    pub row: usize,
    pub config: usize,
    pub seed: u64,
}

/// What a run produced.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunValue {
    /// The study's metric.
    pub value: f64,
    pub events: u64,
    /// The run's schedule hash (`Log::schedule`): a study run skips its
    /// records, and the same run opened in the timeline shows this hash.
    pub schedule_hash: String,
    /// The workload's wakeup latency (ns) at the quantiles `CDF_QUANTILES`
    /// (for CDF plots).
    pub wakeup_cdf: Vec<u64>,
    /// Context switches of the workload's tasks per simulated second.
    pub switches_per_sec: f64,
    pub ops_per_sec: f64,
    /// How often the mechanisms the seed patches change came into play.
    pub engagement: Engagement,
}

/// How often a run met the mechanisms the seed patches change: a patch
/// that changes nothing in a study shows here why (none of its
/// situations arose).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Engagement {
    /// reweight-fix: group entities reweighted while queued with a
    /// non-zero lag (of `reweights`).
    pub reweights: u64,
    pub reweights_nonzero_lag: u64,
    /// sis-filter: CPUs SIS_FILTER removed from select_idle_cpu() scans,
    /// the scans over the run, and of those the scans for an idle core,
    /// which the patch leaves unfiltered. (Only the CLI's reproduction
    /// prints the scans; the page does not read them back from its study
    /// worker's messages, which keeps the page's .wasm inside its budget.)
    pub cpus_filtered: u64,
    #[serde(skip_deserializing)]
    pub scans: u64,
    #[serde(skip_deserializing)]
    pub core_scans: u64,
    /// Wake-ups that preempted the running task, and wake-ups that would
    /// have been checked but the same-priority rule skipped.
    pub wakeup_preemptions: u64,
    pub same_prio_skips: u64,
    pub wakeups: u64,
}

impl Engagement {
    fn of(c: &crate::lab::signals::Counters, sis: &crate::kernel::sched::select::SisStats) -> Engagement {
        let verdict = |name| c.wakeup_verdicts.iter().find(|(n, _)| *n == name).map_or(0, |(_, k)| *k);
        Engagement {
            reweights: c.reweights,
            reweights_nonzero_lag: c.reweights_nonzero_lag,
            cpus_filtered: c.cpus_filtered,
            scans: sis.scans,
            core_scans: sis.core_scans,
            wakeup_preemptions: verdict("preempt"),
            same_prio_skips: verdict("same_prio"),
            wakeups: c.wakeups,
        }
    }
}

/// The quantiles of `RunValue::wakeup_cdf`: 1 % steps, then the tail.
pub const CDF_QUANTILES: [f64; 24] =
    [0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 0.99, 0.995, 0.999, 1.0];

/// A study, planned and partly or fully run.
#[derive(Clone, Debug)]
pub struct Study {
    sc: Scenario,
    pub kind: &'static str,
    pub configs: Vec<ConfigSpec>,
    pub seeds: Vec<u64>,
    pub metric: Metric,
    pub rows: Vec<Row>,
    /// In order: row, then seed, then configuration.
    pub runs: Vec<RunKey>,
    pub values: Vec<Option<RunValue>>,
    /// Count how often each patch's mechanism engaged ([`Engagement`]):
    /// the counts come from the decision records, so the runs build them
    /// (slower than a schedule-only run); off by default.
    pub count_engagement: bool,
}

/// The change from `base` to `new` in %, positive when `new` is better.
pub fn change_pct(base: f64, new: f64, higher_is_better: bool) -> f64 {
    if base == 0.0 {
        return 0.0;
    }
    let up = (new - base) / base * 100.0;
    // `+ 0.0` turns a negated zero into +0.00 in the table.
    (if higher_is_better { up } else { -up }) + 0.0
}

/// Standard deviation as a percentage of the mean.
pub fn std_pct(xs: &[f64]) -> f64 {
    let (mean, std) = mean_std(xs);
    if mean == 0.0 {
        0.0
    } else {
        (std / mean * 100.0).abs()
    }
}

fn config_spec(n: &Named) -> R<ConfigSpec> {
    ConfigSpec::parse(&n.name).map_err(|m| ScenarioError::at(n, m))
}

/// Sets (or adds) a workload parameter.
fn set_param(w: &mut scenario::WorkloadSpec, named: &Named, value: &Param) {
    match w.params.iter_mut().find(|(n, _)| n.name == named.name) {
        Some(slot) => *slot = (named.clone(), value.clone()),
        None => w.params.push((named.clone(), value.clone())),
    }
}

impl Study {
    /// Plans the study of a scenario with a `[study]` table, checking
    /// every configuration and every row before anything runs.
    pub fn new(text: &str) -> R<Study> {
        Study::from_scenario(scenario::parse(text)?)
    }

    /// Plans the study of an already parsed scenario.
    pub fn from_scenario(sc: Scenario) -> R<Study> {
        let Some(spec) = sc.study.clone() else {
            return Err(ScenarioError::new("study", None, "the scenario has no [study] table (see README, \"Studies\")"));
        };
        Study::plan(sc, &spec)
    }

    fn plan(mut sc: Scenario, spec: &StudySpec) -> R<Study> {
        sc.study = None;
        if sc.workloads.len() != 1 {
            return Err(ScenarioError::new(
                "study",
                Some(spec.pos),
                format!("a study varies one [[workload]]; this scenario has {}", sc.workloads.len()),
            ));
        }
        let mut configs = vec![config_spec(&spec.base)?];
        for c in &spec.compare {
            configs.push(config_spec(c)?);
        }
        // Every configuration must resolve (kernel, patches, flags).
        let mut cpus = 0;
        for (named, c) in std::iter::once(&spec.base).chain(&spec.compare).zip(&configs) {
            let cfg = build::config(&sc, &c.overrides(None)).map_err(|e| ScenarioError::at(named, format!("`{}`: {}", named.name, e.msg)))?;
            cpus = cfg.cpus;
        }
        let cases: Vec<Vec<(Named, Param)>> = if spec.cases.is_empty() { vec![Vec::new()] } else { spec.cases.clone() };
        let mut rows = Vec::new();
        let mut kind = "";
        let mut own_metric = Metric::Throughput;
        for case in &cases {
            let loads: Vec<Option<&(Param, scenario::Pos)>> = if spec.loads.is_empty() { vec![None] } else { spec.loads.iter().map(Some).collect() };
            for load in loads {
                let mut params = case.clone();
                if let (Some(name), Some((value, pos))) = (&spec.load, load) {
                    params.push((Named { name: name.name.clone(), key: format!("study.loads ({})", name.name), pos: *pos }, value.clone()));
                }
                let mut w = sc.workloads[0].clone();
                for (n, v) in &params {
                    set_param(&mut w, n, v);
                }
                let e = workload::expand(&w, 0, cpus)?;
                kind = e.measure.kind;
                own_metric = e.measure.metric;
                let load = e.measure.load_label(spec.load.as_ref().map(|n| n.name.as_str())).to_string();
                rows.push(Row { case: e.measure.case, load, params });
            }
        }
        let metric = match &spec.metric {
            None => own_metric,
            Some(n) => Metric::from_name(&n.name).ok_or_else(|| {
                let names: Vec<&str> = Metric::ALL.iter().map(|m| m.name()).collect();
                ScenarioError::at(n, format!("unknown metric `{}` (known: {})", n.name, names.join(", ")))
            })?,
        };
        let mut runs = Vec::new();
        for row in 0..rows.len() {
            for &seed in &spec.seeds {
                for config in 0..configs.len() {
                    runs.push(RunKey { row, config, seed });
                }
            }
        }
        let values = vec![None; runs.len()];
        Ok(Study { sc, kind, configs, seeds: spec.seeds.clone(), metric, rows, runs, values, count_engagement: false })
    }

    /// The scenario of a row (the workload with the row's parameters).
    pub fn row_scenario(&self, row: usize) -> Scenario {
        let mut sc = self.sc.clone();
        for (n, v) in &self.rows[row].params {
            set_param(&mut sc.workloads[0], n, v);
        }
        sc
    }

    /// The scenario of one run with its configuration and seed written in,
    /// as TOML: what a table cell opens in the timeline.
    pub fn run_scenario_text(&self, key: RunKey) -> String {
        let mut sc = self.row_scenario(key.row);
        let c = &self.configs[key.config];
        let ov = c.overrides(Some(key.seed));
        sc.sim.seed = key.seed;
        let here = |name: &str| Named { name: name.to_string(), key: "study".into(), pos: scenario::Pos::START };
        if let Some(k) = &ov.kernel {
            sc.sim.kernel = here(k);
        }
        if let Some(p) = &ov.patches {
            sc.sim.patches = p.iter().map(|n| here(n)).collect();
        }
        for (f, on) in &ov.features {
            sc.sim.features.retain(|(n, _)| n.name != *f);
            sc.sim.features.push((here(f), *on));
        }
        scenario::to_toml(&sc)
    }

    /// Runs one planned run (does not record it).
    pub fn run_one(&self, i: usize) -> Result<RunValue, String> {
        let key = self.runs[i];
        let sc = self.row_scenario(key.row);
        let ov: Overrides = self.configs[key.config].overrides(Some(key.seed));
        let (mut sim, _) = build::build(&sc, &ov, LogMode::Schedule).map_err(|e| e.to_string())?;
        if self.count_engagement {
            sim.enable_counters();
        }
        sim.run();
        let w = &sim.info.workloads[0];
        let hist = sim.workload_wakeup_hist(w);
        let r = sim.workload_result(w);
        let secs = r.time_ns as f64 / 1e9;
        Ok(RunValue {
            value: sim.workload_metric(w, self.metric),
            events: sim.state.events,
            schedule_hash: format!("{:016x}", sim.log.schedule.0),
            wakeup_cdf: CDF_QUANTILES.iter().map(|&q| hist.quantile(q)).collect(),
            switches_per_sec: (r.nr_voluntary_switches + r.nr_involuntary_switches) as f64 / secs,
            ops_per_sec: r.ops_per_sec,
            engagement: sim.signals.as_ref().map_or_else(Engagement::default, |s| Engagement::of(&s.counters, &sim.sched().sis)),
        })
    }

    pub fn record(&mut self, i: usize, v: RunValue) {
        self.values[i] = Some(v);
    }

    /// Runs the next run not yet done; returns how many are done, or None
    /// when all are.
    pub fn run_next(&mut self) -> Option<Result<usize, String>> {
        let i = self.values.iter().position(Option::is_none)?;
        Some(self.run_one(i).map(|v| {
            self.record(i, v);
            self.done()
        }))
    }

    /// The engagement of one configuration summed over the runs done in
    /// the rows named by (case, load).
    pub fn engagement(&self, config: &str, rows: &[(&str, &str)]) -> Engagement {
        let mut e = Engagement::default();
        let Some(c) = self.configs.iter().position(|s| s.text == config) else { return e };
        for (k, v) in self.runs.iter().zip(&self.values) {
            let row = &self.rows[k.row];
            if k.config != c || !rows.iter().any(|&(case, load)| row.case == case && row.load == load) {
                continue;
            }
            if let Some(v) = v {
                let g = v.engagement;
                e.reweights += g.reweights;
                e.reweights_nonzero_lag += g.reweights_nonzero_lag;
                e.cpus_filtered += g.cpus_filtered;
                e.scans += g.scans;
                e.core_scans += g.core_scans;
                e.wakeup_preemptions += g.wakeup_preemptions;
                e.same_prio_skips += g.same_prio_skips;
                e.wakeups += g.wakeups;
            }
        }
        e
    }

    pub fn done(&self) -> usize {
        self.values.iter().filter(|v| v.is_some()).count()
    }

    /// Replaces the seeds (and with them the planned runs); results so far
    /// are dropped.
    /// Sets a feature flag in every configuration, beneath what a
    /// configuration sets itself (`--feature` of `study` and `reproduce`:
    /// a mechanism switched on for the whole study).
    pub fn set_feature(&mut self, name: &str, on: bool) -> Result<(), String> {
        if !crate::kernel::sched::features::Feature::ALL.iter().any(|f| f.name() == name) {
            return Err(format!("--feature: unknown feature flag `{name}` (`schedlab features` lists them)"));
        }
        self.sc.sim.features.retain(|(n, _)| n.name != name);
        self.sc.sim.features.push((Named { name: name.to_string(), key: "--feature".into(), pos: scenario::Pos::START }, on));
        Ok(())
    }

    pub fn set_seeds(&mut self, seeds: Vec<u64>) {
        self.seeds = seeds;
        self.runs.clear();
        for row in 0..self.rows.len() {
            for &seed in &self.seeds {
                for config in 0..self.configs.len() {
                    self.runs.push(RunKey { row, config, seed });
                }
            }
        }
        self.values = vec![None; self.runs.len()];
    }

    /// Drops the configurations and rows (case, load) not named, with
    /// their runs (and every result so far): a reproduction runs only what
    /// its mail tables read. The baseline stays, named or not, so that
    /// every change is still taken against it.
    pub fn keep(&mut self, configs: &[&str], rows: &[(&str, &str)]) {
        let base = self.configs[0].text.clone();
        self.configs.retain(|c| c.text == base || configs.contains(&c.text.as_str()));
        self.rows.retain(|r| rows.iter().any(|&(case, load)| r.case == case && r.load == load));
        self.set_seeds(self.seeds.clone());
    }

    /// Runs everything, one run after the other (wasm has no threads; the
    /// page runs studies in a web worker instead).
    #[cfg(target_arch = "wasm32")]
    pub fn run_all(&mut self, _threads: usize) -> Result<(), String> {
        while let Some(r) = self.run_next() {
            r?;
        }
        Ok(())
    }

    /// Runs everything, on up to `threads` threads.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run_all(&mut self, threads: usize) -> Result<(), String> {
        run_many(&mut [self], threads, &|_, _| {})
    }

    /// The result table from the runs done so far.
    pub fn table(&self) -> Table {
        let hib = self.metric.higher_is_better();
        let rows = self
            .rows
            .iter()
            .enumerate()
            .map(|(r, row)| {
                // runs[config][seed index]
                let runs: Vec<Vec<Option<&RunValue>>> = (0..self.configs.len())
                    .map(|c| {
                        self.seeds
                            .iter()
                            .map(|&seed| {
                                let i = self.runs.iter().position(|k| *k == RunKey { row: r, config: c, seed })?;
                                self.values[i].as_ref()
                            })
                            .collect()
                    })
                    .collect();
                let per_config: Vec<Vec<Option<f64>>> = runs.iter().map(|rs| rs.iter().map(|v| v.map(|v| v.value)).collect()).collect();
                let base: Vec<f64> = per_config[0].iter().flatten().copied().collect();
                let (base_mean, _) = mean_std(&base);
                let cells = per_config
                    .iter()
                    .enumerate()
                    .map(|(c, vals)| {
                        let xs: Vec<f64> = vals.iter().flatten().copied().collect();
                        let (mean, _) = mean_std(&xs);
                        // The seed that fares worst: against the baseline
                        // of the same seed (compare columns) or the mean.
                        let worst = self
                            .seeds
                            .iter()
                            .zip(vals)
                            .zip(&per_config[0])
                            .filter_map(|((&seed, v), b)| {
                                let v = (*v)?;
                                let against = if c == 0 { base_mean } else { (*b)? };
                                Some((seed, change_pct(against, v, hib)))
                            })
                            .min_by(|a, b| a.1.total_cmp(&b.1))
                            .map(|(s, _)| s);
                        Cell {
                            runs: xs.len(),
                            mean,
                            std_pct: std_pct(&xs),
                            change_pct: if c == 0 { None } else { Some(change_pct(base_mean, mean, hib)) },
                            values: vals.clone(),
                            worst_seed: worst,
                            same_schedules: c > 0 && same_schedules(&runs[0], &runs[c]),
                            switched_like: (0..c).find(|&b| same_schedules(&runs[b], &runs[c])).unwrap_or(c),
                        }
                    })
                    .collect();
                TableRow { case: row.case.clone(), load: row.load.clone(), cells }
            })
            .collect();
        Table {
            workload: self.kind,
            metric: self.metric,
            unit: self.metric.unit(),
            higher_is_better: hib,
            configs: self.configs.iter().map(|c| c.text.clone()).collect(),
            seeds: self.seeds.clone(),
            rows,
            complete: self.done() == self.runs.len(),
        }
    }
}

/// Runs every run not yet done of several studies on up to `threads`
/// threads, in plan order;
/// `progress(done, total)` after each run.
#[cfg(not(target_arch = "wasm32"))]
pub fn run_many(studies: &mut [&mut Study], threads: usize, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<(), String> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let jobs: Vec<(usize, usize)> =
        studies.iter().enumerate().flat_map(|(s, st)| (0..st.runs.len()).filter(|&i| st.values[i].is_none()).map(move |i| (s, i))).collect();
    let (next, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let shared: Vec<&Study> = studies.iter().map(|s| &**s).collect();
    let results: Vec<Vec<((usize, usize), Result<RunValue, String>)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    while let Some(&(s, i)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        out.push(((s, i), shared[s].run_one(i)));
                        progress(done.fetch_add(1, Ordering::Relaxed) + 1, jobs.len());
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap_or_default()).collect()
    });
    for ((s, i), r) in results.into_iter().flatten() {
        studies[s].record(i, r?);
    }
    Ok(())
}

/// One configuration's figures in one row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Seeds run so far.
    pub runs: usize,
    pub mean: f64,
    pub std_pct: f64,
    /// Against the baseline (None in the baseline column).
    pub change_pct: Option<f64>,
    /// Per seed, in the study's seed order (None: not run yet).
    pub values: Vec<Option<f64>>,
    /// The seed to open when drilling into this cell.
    pub worst_seed: Option<u64>,
    /// A compare column whose every run switched exactly as the baseline's
    /// run of the same seed (equal schedule hashes): the change never
    /// altered a scheduling decision on this load, so its 0.00 says the
    /// load does not reach the code it changes, not that it is neutral.
    pub same_schedules: bool,
    /// The first configuration (this one's index if none before it) whose
    /// every run switched exactly as this one's: two configurations of a
    /// row switched alike when their `switched_like` agree, whichever is
    /// a mail table's baseline (seed 004's PLACE_BONUS tables compare two
    /// configurations neither of which is the study's first).
    pub switched_like: usize,
}

/// What a `same_schedules` cell means, in the table's footnote and the
/// page's titles.
pub const SAME_SCHEDULES_MEANS: &str = "the same schedule as the baseline on every seed: the change never altered a scheduling decision on that load";

/// Whether every seed that ran in `cmp` ran in `base` too, with the same
/// schedule hash, and at least one did.
fn same_schedules(base: &[Option<&RunValue>], cmp: &[Option<&RunValue>]) -> bool {
    let mut ran = false;
    for (b, c) in base.iter().zip(cmp) {
        match (b, c) {
            (_, None) => {}
            (Some(b), Some(c)) if !b.schedule_hash.is_empty() && b.schedule_hash == c.schedule_hash => ran = true,
            _ => return false,
        }
    }
    ran
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TableRow {
    pub case: String,
    pub load: String,
    pub cells: Vec<Cell>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Table {
    pub workload: &'static str,
    pub metric: Metric,
    pub unit: &'static str,
    pub higher_is_better: bool,
    /// Baseline first.
    pub configs: Vec<String>,
    pub seeds: Vec<u64>,
    pub rows: Vec<TableRow>,
    pub complete: bool,
}

impl Table {
    /// Row order for the sorted view: worst change first (by the first
    /// compare column), as asked for in seed 003.
    pub fn sorted_rows(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.rows.len()).collect();
        let key = |r: usize| self.rows[r].cells.get(1).and_then(|c| c.change_pct).unwrap_or(0.0);
        order.sort_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
        order
    }

    /// The table as CSV (RFC 4180): one line per row and configuration,
    /// with the mean, std% and change% the mail prints and every seed's
    /// value, in the study's seed order (empty where not run yet).
    pub fn csv(&self, sorted: bool) -> String {
        let mut s = String::from("case,load,config,role,runs,mean,std_pct,change_pct,same_schedules");
        for seed in &self.seeds {
            s += &format!(",seed {seed}");
        }
        s += "\n";
        let order: Vec<usize> = if sorted { self.sorted_rows() } else { (0..self.rows.len()).collect() };
        for r in order {
            let row = &self.rows[r];
            for (c, cell) in row.cells.iter().enumerate() {
                let role = if c == 0 { "baseline".to_string() } else { format!("compare {c}") };
                s += &[csv_field(&row.case), csv_field(&row.load), csv_field(self.configs.get(c).map_or("", |x| x.as_str())), role].join(",");
                s += &format!(",{},{},{},{},{}", cell.runs, cell.mean, cell.std_pct, cell.change_pct.map_or(String::new(), |x| x.to_string()), cell.same_schedules);
                for v in &cell.values {
                    s += &format!(",{}", v.map_or(String::new(), |x| x.to_string()));
                }
                s += "\n";
            }
        }
        s
    }

    /// The table as the mails print it (tab separated, fixed widths).
    pub fn format(&self, sorted: bool) -> String {
        let mut s = format!("{}\n{}\n", self.workload, "=".repeat(self.workload.len()));
        s += &format!(
            "metric: {} ({}, {} is better); {} seed{}; positive compare% is better\n",
            self.metric.name(),
            self.unit,
            if self.higher_is_better { "higher" } else { "lower" },
            self.seeds.len(),
            if self.seeds.len() == 1 { "" } else { "s" }
        );
        s += &format!("{:<16}\t{:<8}\tbaseline(std%)", "case", "load");
        for _ in 1..self.configs.len() {
            s += "\tcompare%( std%)";
        }
        s += "\n";
        let order: Vec<usize> = if sorted { self.sorted_rows() } else { (0..self.rows.len()).collect() };
        for r in order {
            let row = &self.rows[r];
            s += &format!("{:<16}\t{:<8}\t{:>5.2} ({:>6.2})", row.case, row.load, 1.0, row.cells[0].std_pct);
            for c in &row.cells[1..] {
                s += &format!("\t{:>+6.2} ({:>6.2}){}", c.change_pct.unwrap_or(0.0), c.std_pct, if c.same_schedules { " =" } else { "" });
            }
            s += "\n";
        }
        if self.rows.iter().any(|r| r.cells.iter().any(|c| c.same_schedules)) {
            s += &format!("\n= {SAME_SCHEDULES_MEANS}\n");
        }
        s += "\nconfigurations:";
        for (i, c) in self.configs.iter().enumerate() {
            s += &format!(" [{}] {c}", if i == 0 { "baseline".to_string() } else { format!("compare {i}") });
        }
        s += "\n";
        s
    }
}

/// One CSV field (RFC 4180): quoted when it holds a comma, a quote or a
/// line break, with quotes doubled.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

#[cfg(test)]
pub(crate) mod tests;
