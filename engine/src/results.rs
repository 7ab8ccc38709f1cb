//! What a run produced, as the CLI prints it (`schedlab run --json`).

use serde::Serialize;

use crate::hist::Percentiles;
use crate::pick::PickStats;
use crate::sim::Simulation;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskResult {
    pub name: String,
    pub cpu_time_ns: u64,
    /// cpu_time / sim_time.
    pub share: f64,
    pub nr_switches: u64,
    pub nr_voluntary_switches: u64,
    pub nr_involuntary_switches: u64,
    pub nr_migrations: u64,
    pub nr_wakeups: u64,
    /// Time runnable but not running (schedstat run_delay).
    pub run_delay_ns: u64,
    pub wakeup_latency_ns: Percentiles,
    /// Completed iterations of the program's outermost loops.
    pub ops: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CpuResult {
    pub cpu: u32,
    pub busy_ns: u64,
    pub idle_ns: u64,
    pub nr_switches: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RunResult {
    pub kernel: String,
    pub seed: u64,
    pub features: Vec<&'static str>,
    pub sim_time_ns: u64,
    pub events: u64,
    pub records: u64,
    /// Hash of the event log (equal across hosts and wasm).
    pub log_hash: String,
    pub tasks: Vec<TaskResult>,
    pub cpus: Vec<CpuResult>,
    pub pick: PickStats,
    /// select_idle_sibling() statistics: wakeups, CPUs scanned, idle found.
    pub sis: crate::select::SisStats,
    /// Load-balancer activity.
    pub balance: crate::balance::BalanceStats,
    pub topology: String,
    pub warnings: Vec<String>,
}

impl Simulation {
    /// Summarises the run so far (call after `run()` for the whole run).
    pub fn results(&self, kernel: &str) -> RunResult {
        let s = &self.state.sched;
        let sim_time = s.now.max(1);
        RunResult {
            kernel: kernel.to_string(),
            seed: self.info.seed,
            features: s.feat.enabled().map(|f| f.name()).collect(),
            sim_time_ns: s.now,
            events: self.state.events,
            records: self.log.count,
            log_hash: format!("{:016x}", self.log.hash.0),
            tasks: s
                .tasks
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let cpu_time = self.task_cpu_time(i as u32);
                    TaskResult {
                        name: self.info.task_names[i].clone(),
                        cpu_time_ns: cpu_time,
                        share: cpu_time as f64 / sim_time as f64,
                        nr_switches: t.stats.nvcsw + t.stats.nivcsw,
                        nr_voluntary_switches: t.stats.nvcsw,
                        nr_involuntary_switches: t.stats.nivcsw,
                        nr_migrations: t.stats.nr_migrations,
                        nr_wakeups: t.stats.nr_wakeups,
                        run_delay_ns: t.stats.run_delay,
                        wakeup_latency_ns: t.stats.wakeup_latency.percentiles(),
                        ops: t.stats.ops,
                    }
                })
                .collect(),
            cpus: s
                .rqs
                .iter()
                .map(|rq| CpuResult { cpu: rq.cpu, busy_ns: rq.busy_ns, idle_ns: rq.idle_ns, nr_switches: rq.nr_switches })
                .collect(),
            pick: s.stats,
            sis: s.sis,
            balance: s.balance_stats,
            topology: format!("{} ({})", s.topo.name, s.topo.describe()),
            warnings: self.warnings.clone(),
        }
    }
}
