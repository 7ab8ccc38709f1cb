//! The comparison's delta table: per task, CPU time, switches (voluntary,
//! involuntary) and wakeup latency p50/p99 under both configurations over
//! N seeds (mean, sample std, change %), and the run-wide pick and
//! wakeup-placement counters. The numbers are the engine's `RunResult`s;
//! this only averages them over the seeds.

use schedlab_engine::lab::compare::mean_std;
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
    DeltaTable {
        runs: runs.len(),
        seeds,
        tasks,
        run_wide,
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
    }
}
