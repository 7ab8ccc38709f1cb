//! The comparison's delta table: per task, CPU time, switches (voluntary,
//! involuntary) and wakeup latency p50/p99 under both configurations over
//! N seeds (mean, sample std, change %), and the run-wide pick and
//! wakeup-placement counters. The numbers are the engine's `RunResult`s;
//! this only averages them over the seeds.

use schedlab_engine::lab::compare::{mean_std, welch};
use schedlab_engine::lab::study::csv_field;
use schedlab_engine::lab::results::RunResult;

/// One figure under both configurations.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    pub metric: &'static str,
    pub unit: &'static str,
    pub base_mean: f64,
    pub base_std: f64,
    pub patch_mean: f64,
    pub patch_std: f64,
    /// (patch − base) / base in % (None when the base is 0: no ratio).
    pub change_pct: Option<f64>,
    /// Welch's t test over the seeds: the two-sided p-value (None with
    /// fewer than two seeds).
    pub p: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct TaskDeltas {
    pub task: String,
    pub figures: Vec<Figure>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct DeltaTable {
    pub runs: usize,
    pub seeds: Vec<u64>,
    pub tasks: Vec<TaskDeltas>,
    /// Counters of the whole run (pick_eevdf(), select_idle_sibling()).
    pub run_wide: Vec<Figure>,
    /// Per workload (tasks grouped by the name before their first `.`:
    /// `hog.0`, `hog.1` → `hog`), the sums of the additive figures (CPU
    /// time, voluntary and involuntary switches), per seed.
    pub totals: Vec<TaskDeltas>,
}

/// The figures a workload total sums (indices into [`TASK_METRICS`]).
pub const ADDITIVE: [usize; 3] = [0, 1, 2];

/// The workload a task belongs to, by its name.
pub fn workload_of(task: &str) -> &str {
    task.split('.').next().unwrap_or(task)
}

/// The per-task figures of one run, in the table's order.
pub const TASK_METRICS: [(&str, &str); 5] = [
    ("CPU time", "ms"),
    ("voluntary switches", ""),
    ("involuntary switches", ""),
    ("wakeup latency p50", "µs"),
    ("wakeup latency p99", "µs"),
];

fn task_values(r: &RunResult) -> Vec<(String, [f64; 5])> {
    r.tasks
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                [
                    t.cpu_time_ns as f64 / 1e6,
                    t.nr_voluntary_switches as f64,
                    t.nr_involuntary_switches as f64,
                    t.wakeup_latency_ns.p50 as f64 / 1e3,
                    t.wakeup_latency_ns.p99 as f64 / 1e3,
                ],
            )
        })
        .collect()
}

/// Run-wide counters, in the table's order.
pub const RUN_METRICS: [&str; 8] = [
    "picks",
    "picks by the O(1) fast path",
    "picks that walked the tree",
    "tree nodes visited",
    "longest walk (nodes)",
    "next-buddy picks",
    "CPUs scanned for an idle one",
    "CPUs skipped by SIS_FILTER",
];

fn run_values(r: &RunResult) -> [f64; 8] {
    let p = &r.pick;
    [
        p.picks as f64,
        p.fastpath as f64,
        p.slowpath as f64,
        p.nodes_visited as f64,
        p.max_walk as f64,
        p.buddy_picks as f64,
        r.sis.cpus_scanned as f64,
        r.sis.cpus_filtered as f64,
    ]
}

fn figure(metric: &'static str, unit: &'static str, xs: &[f64], ys: &[f64]) -> Figure {
    let (bm, bs) = mean_std(xs);
    let (pm, ps) = mean_std(ys);
    Figure {
        metric,
        unit,
        base_mean: bm,
        base_std: bs,
        patch_mean: pm,
        patch_std: ps,
        change_pct: (bm != 0.0).then(|| (pm - bm) / bm * 100.0),
        p: welch(xs, ys).map(|w| w.p),
    }
}

/// The table over runs `(base, patch)`, one pair per seed. Tasks are
/// matched by position (the same scenario builds the same tasks).
pub fn table(runs: &[(RunResult, RunResult)], seeds: Vec<u64>) -> DeltaTable {
    let per: Vec<(Vec<(String, [f64; 5])>, Vec<(String, [f64; 5])>)> = runs
        .iter()
        .map(|(a, b)| (task_values(a), task_values(b)))
        .collect();
    let names: Vec<String> = per
        .first()
        .map(|p| p.0.iter().map(|t| t.0.clone()).collect())
        .unwrap_or_default();
    let tasks = names
        .iter()
        .enumerate()
        .map(|(ti, name)| TaskDeltas {
            task: name.clone(),
            figures: TASK_METRICS
                .iter()
                .enumerate()
                .map(|(mi, &(metric, unit))| {
                    let xs: Vec<f64> = per.iter().filter_map(|r| Some(r.0.get(ti)?.1[mi])).collect();
                    let ys: Vec<f64> = per.iter().filter_map(|r| Some(r.1.get(ti)?.1[mi])).collect();
                    figure(metric, unit, &xs, &ys)
                })
                .collect(),
        })
        .collect();
    let run_wide = RUN_METRICS
        .iter()
        .enumerate()
        .map(|(mi, &metric)| {
            let xs: Vec<f64> = runs.iter().map(|r| run_values(&r.0)[mi]).collect();
            let ys: Vec<f64> = runs.iter().map(|r| run_values(&r.1)[mi]).collect();
            figure(metric, "", &xs, &ys)
        })
        .collect();
    let mut groups: Vec<String> = Vec::new();
    for n in &names {
        let w = workload_of(n).to_string();
        if !groups.contains(&w) {
            groups.push(w);
        }
    }
    let totals = groups
        .iter()
        .map(|w| TaskDeltas {
            task: w.clone(),
            figures: ADDITIVE
                .iter()
                .map(|&mi| {
                    let sum = |side: &Vec<(String, [f64; 5])>| side.iter().filter(|t| workload_of(&t.0) == w).map(|t| t.1[mi]).sum::<f64>();
                    let xs: Vec<f64> = per.iter().map(|r| sum(&r.0)).collect();
                    let ys: Vec<f64> = per.iter().map(|r| sum(&r.1)).collect();
                    figure(TASK_METRICS[mi].0, TASK_METRICS[mi].1, &xs, &ys)
                })
                .collect(),
        })
        .collect();
    DeltaTable {
        runs: runs.len(),
        seeds,
        tasks,
        run_wide,
        totals,
    }
}

impl DeltaTable {
    /// The table as CSV (RFC 4180): one line per task (or workload total,
    /// or run-wide counter) and figure.
    pub fn csv(&self) -> String {
        let mut s = String::from("scope,name,figure,unit,runs,base_mean,base_std,patch_mean,patch_std,change_pct,welch_p\n");
        let rows = self
            .tasks
            .iter()
            .map(|t| ("task", t))
            .chain(self.totals.iter().map(|t| ("workload total", t)))
            .flat_map(|(scope, t)| t.figures.iter().map(move |f| (scope, t.task.as_str(), f)))
            .chain(self.run_wide.iter().map(|f| ("run", "", f)));
        for (scope, name, f) in rows {
            let opt = |x: Option<f64>| x.map_or(String::new(), |v| v.to_string());
            s += &format!(
                "{scope},{},{},{},{},{},{},{},{},{},{}\n",
                csv_field(name),
                csv_field(f.metric),
                csv_field(f.unit),
                self.runs,
                f.base_mean,
                f.base_std,
                f.patch_mean,
                f.patch_std,
                opt(f.change_pct),
                opt(f.p)
            );
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_engine::lab::compare::{compare, ConfigSpec};
    use schedlab_engine::{from_text, LogMode};

    const SC: &str = "[sim]\nduration = \"100ms\"\nseed = 4\n[[task]]\nname = \"hog\"\nprogram = \"run\"\n\
        [[task]]\nname = \"w\"\ncount = 2\nprogram = \"loop { sleep exp(2ms); run exp(300us) }\"\n";

    fn run(spec: &str, seed: u64) -> RunResult {
        let spec = ConfigSpec::parse(spec).unwrap();
        let (mut sim, cfg) = from_text(SC, &spec.overrides(Some(seed)), LogMode::HashOnly).unwrap();
        sim.run();
        sim.results(&cfg.kernel)
    }

    /// The figures the engine's own `compare` reports (CPU time, all and
    /// involuntary switches, p50, p99) agree with this table's over the
    /// same seeds; voluntary = all − involuntary.
    #[test]
    fn agrees_with_the_engines_compare() {
        let (base, patch) = ("6.6", "6.6+no-same-prio-preempt");
        let runs: Vec<(RunResult, RunResult)> = (4..7).map(|s| (run(base, s), run(patch, s))).collect();
        let t = table(&runs, vec![4, 5, 6]);
        let c = compare(SC, &ConfigSpec::parse(base).unwrap(), &ConfigSpec::parse(patch).unwrap(), 3).unwrap();
        let engine = |task: &str, metric: &str| c.deltas.iter().find(|d| d.task == task && d.metric == metric).unwrap().clone();
        assert_eq!(t.tasks.len(), 3);
        for td in &t.tasks {
            let f = |m: &str| td.figures.iter().find(|f| f.metric == m).unwrap().clone();
            let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * a.abs().max(1.0);
            let cpu = engine(&td.task, "cpu_time_ms");
            assert!(close(f("CPU time").base_mean, cpu.base_mean) && close(f("CPU time").patch_std, cpu.patch_std));
            let inv = engine(&td.task, "involuntary");
            assert!(close(f("involuntary switches").patch_mean, inv.patch_mean));
            let all = engine(&td.task, "switches");
            assert!(close(f("voluntary switches").base_mean + inv.base_mean, all.base_mean));
            let p99 = engine(&td.task, "wakeup_p99_us");
            assert!(close(f("wakeup latency p99").patch_mean, p99.patch_mean));
        }
        // The patch removes the hog's wakeup preemptions: fewer involuntary switches.
        let hog = &t.tasks[0];
        assert!(hog.figures[2].change_pct.unwrap() < 0.0, "{hog:?}");
        assert_eq!(t.run_wide.len(), RUN_METRICS.len());
        // A zero base has no ratio.
        assert_eq!(figure("x", "", &[0.0], &[1.0]).change_pct, None);
        // Three seeds: every figure has a p-value in [0, 1].
        assert!(t.tasks.iter().flat_map(|t| &t.figures).all(|f| f.p.is_some_and(|p| (0.0..=1.0).contains(&p))));
        // Workload totals: hog (one task) and w (w.0 + w.1), CPU time summed.
        assert_eq!(t.totals.iter().map(|w| w.task.as_str()).collect::<Vec<_>>(), ["hog", "w"]);
        let w_cpu = t.totals[1].figures[0].base_mean;
        let sum = t.tasks[1].figures[0].base_mean + t.tasks[2].figures[0].base_mean;
        assert!((w_cpu - sum).abs() < 1e-9, "{w_cpu} vs {sum}");
        // The CSV: a header and one line per figure.
        let csv = t.csv();
        assert_eq!(csv.lines().count(), 1 + 3 * TASK_METRICS.len() + 2 * ADDITIVE.len() + RUN_METRICS.len());
        assert!(csv.lines().nth(1).unwrap().starts_with("task,hog,CPU time,ms,3,"), "{csv}");
    }
}
