//! What is measured per task, on both sides: the figures the model's
//! `TaskResult` reports and the kernel's /proc files expose.

use serde::Serialize;

use schedlab_engine::lab::trace::hist::{Hist, Percentiles};
use schedlab_engine::lab::results::TaskResult;

use super::plan::{self, Plan, Tuning};

/// One task over one run (a model seed or a real repetition).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TaskMeasure {
    pub name: String,
    /// CPU time in the measured window (CLOCK_THREAD_CPUTIME_ID / the
    /// model's sum_exec_runtime), ns.
    pub cpu_time_ns: u64,
    pub nr_voluntary_switches: u64,
    pub nr_involuntary_switches: u64,
    pub nr_migrations: u64,
    /// schedstat run_delay, ns; None when the kernel does not expose it.
    pub run_delay_ns: Option<u64>,
    /// From the intended wake-up time (kernel) / from the wake-up (model)
    /// to running again, ns.
    pub wakeup_latency_ns: Percentiles,
    /// The latency's 10th, 20th, … 90th percentiles, ns (empty without
    /// wake-ups), to compare whole distributions.
    pub wakeup_latency_deciles_ns: Vec<u64>,
    /// Completed iterations of the program's outermost loops.
    pub ops: u64,
}

/// The 10th … 90th percentiles of a latency histogram.
pub fn deciles(h: &Hist) -> Vec<u64> {
    if h.count == 0 {
        return Vec::new();
    }
    (1..10).map(|d| h.quantile(d as f64 / 10.0)).collect()
}

impl TaskMeasure {
    /// The model's figures for one task, with its latency histogram.
    pub fn from_model(t: &TaskResult, latency: &Hist) -> Self {
        TaskMeasure {
            name: t.name.clone(),
            cpu_time_ns: t.cpu_time_ns,
            nr_voluntary_switches: t.nr_voluntary_switches,
            nr_involuntary_switches: t.nr_involuntary_switches,
            nr_migrations: t.nr_migrations,
            run_delay_ns: Some(t.run_delay_ns),
            wakeup_latency_ns: t.wakeup_latency_ns,
            wakeup_latency_deciles_ns: deciles(latency),
            ops: t.ops,
        }
    }
}

/// Runs the model once per seed (the scenario's seed, +1, …), tuned like
/// the local kernel.
pub fn run_model(plan: &Plan, tuning: Tuning, reps: u32) -> Result<Vec<Vec<TaskMeasure>>, String> {
    (0..reps as u64)
        .map(|r| {
            let sc = plan::model_scenario(plan, tuning, plan.scenario.sim.seed.wrapping_add(r));
            let (mut sim, cfg) = schedlab_engine::build(&sc, &Default::default(), schedlab_engine::LogMode::HashOnly).map_err(|e| format!("model: {e}"))?;
            sim.run();
            let res = sim.results(&cfg.kernel);
            Ok(res.tasks.iter().zip(&sim.sched().tasks).map(|(t, s)| TaskMeasure::from_model(t, &s.stats.wakeup_latency)).collect())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use schedlab_engine::lab::scenario::parse;

    /// The model side of the validation test: nice 0 vs nice 5 on one CPU,
    /// tuned like a 2-CPU HZ=250 6.18 machine, shares CPU time 1024 : 335.
    #[test]
    fn model_nice_ratio() {
        let text = std::fs::read_to_string(crate::test_data("nice-0-vs-5.toml")).unwrap();
        let p = plan::plan(parse(&text).unwrap(), (6, 18), &plan::tests::vm(), "6.18", Some(2_000_000_000)).unwrap();
        let runs = run_model(&p, Tuning { preset: "6.18", hz: 250, base_slice_ns: 1_400_000 }, 2).unwrap();
        assert_eq!(runs.len(), 2);
        let t = &runs[0];
        let ratio = t[0].cpu_time_ns as f64 / t[1].cpu_time_ns as f64;
        assert!((ratio / (1024.0 / 335.0) - 1.0).abs() < 0.02, "{ratio}");
        assert_eq!(runs[0], runs[1], "no distributions: every seed gives the same run");
    }
}
