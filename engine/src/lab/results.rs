//! What a run produced, as the CLI prints it (`schedlab run --json`).

use serde::Serialize;

use crate::lab::trace::hist::Percentiles;
use crate::kernel::sched::pick::PickStats;
use crate::lab::sim::{Simulation, WorkloadRun};
use crate::lab::workload::Metric;

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
    /// `futex_wait`s that ended by their timeout.
    pub futex_timeouts: u64,
    /// How often its program ran `SPIN_LIMIT` statements at one instant
    /// without using time and spun until the next tick (see `sim::SPIN_LIMIT`).
    pub spins: u32,
}

/// What a workload macro measured over its worker tasks.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct WorkloadResult {
    pub name: String,
    pub kind: &'static str,
    pub case: String,
    pub load: String,
    /// The workload's own figure (see `workload::Metric`), in `unit`.
    pub metric: Metric,
    pub unit: &'static str,
    pub value: f64,
    pub higher_is_better: bool,
    /// Operations the workers completed (loop iterations: messages read,
    /// transactions, requests, wakes handled).
    pub ops: u64,
    pub ops_per_sec: f64,
    /// Whether every task of the run finished its program.
    pub finished: bool,
    /// Time to completion (finished) or the simulated duration, ns.
    pub time_ns: u64,
    pub wakeup_latency_ns: Percentiles,
    /// From a `call` returning to the next `call` (schbench requests).
    pub request_latency_ns: Percentiles,
    pub nr_voluntary_switches: u64,
    pub nr_involuntary_switches: u64,
    pub nr_migrations: u64,
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
    /// Simulated time the results cover: from `measured_from_ns` (the end
    /// of the warm-up, 0 without one) to the end of the run.
    pub sim_time_ns: u64,
    pub measured_from_ns: u64,
    pub events: u64,
    pub records: u64,
    /// Hash of the event log (equal across hosts and wasm); empty when the
    /// run did not hash its records (`LogMode::Schedule`).
    pub log_hash: String,
    /// Hash of the schedule: every context switch with its time (see
    /// `Log::schedule`).
    pub schedule_hash: String,
    pub tasks: Vec<TaskResult>,
    pub workloads: Vec<WorkloadResult>,
    pub cpus: Vec<CpuResult>,
    pub pick: PickStats,
    /// select_idle_sibling() statistics: wakeups, CPUs scanned, idle found.
    pub sis: crate::kernel::sched::select::SisStats,
    /// Load-balancer activity.
    pub balance: crate::kernel::sched::balance::BalanceStats,
    pub topology: String,
    pub warnings: Vec<String>,
}

impl Simulation {
    /// Summarises the run so far (call after `run()` for the whole run).
    pub fn results(&self, kernel: &str) -> RunResult {
        let s = &self.state.sched;
        let sim_time = (s.now - self.measure_from).max(1);
        RunResult {
            kernel: kernel.to_string(),
            seed: self.info.seed,
            features: s.feat.enabled().map(|f| f.name()).collect(),
            sim_time_ns: s.now - self.measure_from,
            measured_from_ns: self.measure_from,
            events: self.state.events,
            records: self.log.count,
            log_hash: if self.log.mode == crate::lab::sim::LogMode::Schedule { String::new() } else { format!("{:016x}", self.log.hash.0) },
            schedule_hash: format!("{:016x}", self.log.schedule.0),
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
                        wakeup_latency_ns: s.wakeup_latency(i as u32).percentiles(),
                        ops: t.stats.ops,
                        futex_timeouts: t.stats.futex_timeouts,
                        spins: self.state.spins[i],
                    }
                })
                .collect(),
            workloads: self.info.workloads.iter().map(|w| self.workload_result(w)).collect(),
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

/// A workload's counters and latency histograms over its workers.
#[derive(Default)]
struct Gathered {
    secs: f64,
    time_ns: u64,
    finished: bool,
    total_ops: Option<u64>,
    ops: u64,
    /// The fewest ops of one unit (`Measure::unit` workers), and the
    /// number of units.
    min_ops: u64,
    units: u64,
    /// The run's end, from time 0 (a finished job's time).
    end_secs: f64,
    cpu_time: u64,
    nvcsw: u64,
    nivcsw: u64,
    migrations: u64,
    wakeup: crate::lab::trace::hist::Hist,
    request: crate::lab::trace::hist::Hist,
    /// For schbench (a workload that times only its replies' wake-ups),
    /// its wake-up and request latencies as schbench records them.
    schbench: Option<[crate::lab::trace::hist::Plat; 2]>,
}

/// The fewest operations of one unit of `unit` consecutive workers, and
/// the number of units (`u64::MAX` and 0 without workers).
fn slowest_unit(ops: &[u64], unit: u32) -> (u64, u64) {
    ops.chunks(unit.max(1) as usize).fold((u64::MAX, 0), |(min, n), u| (min.min(u.iter().sum()), n + 1))
}

impl Gathered {
    /// How long the whole job takes. A job of fixed work (hackbench,
    /// pipe-test with loops) ends when its slowest unit has done its share
    /// (hackbench's time is when the last group's receivers have read
    /// everything): cut short by the duration, the time is extrapolated
    /// from the slowest unit's rate over the measured window, its share
    /// being total / units. Without a fixed amount, the measured window.
    fn job_secs(&self) -> f64 {
        match self.total_ops {
            Some(_) if self.finished => self.end_secs,
            Some(total) if self.units > 0 => {
                let share = total as f64 / self.units as f64;
                self.secs * share / (self.min_ops as f64).max(1.0)
            }
            _ => self.secs,
        }
    }

    /// A latency percentile in µs (`request`: request latency, else
    /// wake-up latency): schbench's figure where the workload is
    /// schbench, else the histogram's bucket.
    fn latency_us(&self, request: bool, pct: f64) -> f64 {
        match &self.schbench {
            Some(plats) => plats[request as usize].percentile(pct) as f64,
            None => if request { &self.request } else { &self.wakeup }.quantile(pct / 100.0) as f64 / 1e3,
        }
    }

    fn value(&self, metric: Metric) -> f64 {
        match metric {
            Metric::Time => self.job_secs(),
            // A job of fixed work reports work over its time (lkp's
            // hackbench throughput: bytes over the run's time).
            Metric::Throughput => match self.total_ops {
                Some(total) => total as f64 / self.job_secs(),
                None => self.ops as f64 / self.secs,
            },
            Metric::WakeupP90 => self.latency_us(false, 90.0),
            Metric::WakeupP99 => self.latency_us(false, 99.0),
            Metric::RequestP99 => self.latency_us(true, 99.0),
            Metric::CpuTime => self.cpu_time as f64 / 1e9 / self.secs,
        }
    }
}

impl Simulation {
    /// Sums the counters and merges the histograms of a workload's workers.
    fn gather(&self, w: &WorkloadRun) -> Gathered {
        let s = &self.state.sched;
        let time_ns = (s.now - self.measure_from).max(1);
        let mut g = Gathered {
            secs: time_ns as f64 / 1e9,
            time_ns,
            finished: self.state.exited as usize == s.tasks.len(),
            total_ops: w.measure.total_ops,
            ops: 0,
            min_ops: u64::MAX,
            units: 0,
            end_secs: s.now.max(1) as f64 / 1e9,
            cpu_time: 0,
            nvcsw: 0,
            nivcsw: 0,
            migrations: 0,
            wakeup: Default::default(),
            request: Default::default(),
            schbench: w.measure.reply_wakeups.then(Default::default),
        };
        let mut ops = Vec::with_capacity(w.workers.len());
        for &t in &w.workers {
            let st = &s.tasks[t as usize].stats;
            let st_ops = st.ops * w.measure.ops_per_loop;
            ops.push(st_ops);
            let wakeups = if w.measure.reply_wakeups { s.reply_latency(t) } else { s.wakeup_latency(t) };
            g.wakeup.merge(&wakeups);
            g.request.merge(&st.request_latency);
            if let Some([wakeup, request]) = &mut g.schbench {
                wakeup.merge(&s.reply_plat(t));
                request.merge(&st.request_plat);
            }
            g.ops += st_ops;
            g.nvcsw += st.nvcsw;
            g.nivcsw += st.nivcsw;
            g.migrations += st.nr_migrations;
            g.cpu_time += self.task_cpu_time(t);
        }
        (g.min_ops, g.units) = slowest_unit(&ops, w.measure.unit);
        g
    }

    /// The merged wakeup-latency histogram of a workload's workers.
    pub fn workload_wakeup_hist(&self, w: &WorkloadRun) -> crate::lab::trace::hist::Hist {
        self.gather(w).wakeup
    }

    /// One metric of a workload (a study may compare another figure than
    /// the workload's own).
    pub fn workload_metric(&self, w: &WorkloadRun, metric: Metric) -> f64 {
        self.gather(w).value(metric)
    }

    /// A workload's figures, summed (counters) and merged (latency
    /// histograms) over its worker tasks.
    pub fn workload_result(&self, w: &WorkloadRun) -> WorkloadResult {
        let m = &w.measure;
        let g = self.gather(w);
        WorkloadResult {
            name: m.name.clone(),
            kind: m.kind,
            case: m.case.clone(),
            load: m.load.clone(),
            metric: m.metric,
            unit: m.metric.unit(),
            value: g.value(m.metric),
            higher_is_better: m.metric.higher_is_better(),
            ops: g.ops,
            ops_per_sec: g.ops as f64 / g.secs,
            finished: g.finished,
            time_ns: g.time_ns,
            wakeup_latency_ns: g.wakeup.percentiles(),
            request_latency_ns: g.request.percentiles(),
            nr_voluntary_switches: g.nvcsw,
            nr_involuntary_switches: g.nivcsw,
            nr_migrations: g.migrations,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// hackbench's time is when its last receiver is done. 4 workers
    /// share 1000 messages (250 each); in a 0.1 s window they did 400, the
    /// slowest 50: that one needs 0.1 × 250 / 50 = 0.5 s, so the job takes
    /// 0.5 s and its throughput is 1000 / 0.5 = 2000 msgs/s — not the mean
    /// rate 400 / 0.1 = 4000. A finished job takes its end time (0.3 s:
    /// 3333.3 msgs/s); a job without a fixed amount reports its rate.
    #[test]
    fn a_fixed_work_job_ends_with_its_slowest_worker() {
        let g = Gathered { secs: 0.1, total_ops: Some(1000), ops: 400, min_ops: 50, units: 4, ..Default::default() };
        assert!((g.value(Metric::Time) - 0.5).abs() < 1e-12);
        assert!((g.value(Metric::Throughput) - 2000.0).abs() < 1e-9);
        let done = Gathered { finished: true, end_secs: 0.3, ..g };
        assert!((done.value(Metric::Time) - 0.3).abs() < 1e-12);
        assert!((done.value(Metric::Throughput) - 1000.0 / 0.3).abs() < 1e-9);
        let open = Gathered { secs: 0.1, ops: 400, units: 4, ..Default::default() };
        assert!((open.value(Metric::Throughput) - 4000.0).abs() < 1e-9);
        assert!((open.value(Metric::Time) - 0.1).abs() < 1e-12);
    }

    /// hackbench's unit is a group: its senders keep the group's receivers
    /// within a pipe of each other, so a group ends as one. Receivers of
    /// two groups of 2 did 10, 30 | 25, 25 ops in the window: by group the
    /// slowest unit did 40 of its 1000 / 2 = 500, so the job takes
    /// 0.1 × 500 / 40 = 1.25 s; counted one receiver at a time the
    /// slowest did 10 of 250 and the job would take 2.5 s.
    #[test]
    fn a_groups_receivers_finish_together() {
        let ops = [10, 30, 25, 25];
        assert_eq!(slowest_unit(&ops, 2), (40, 2));
        assert_eq!(slowest_unit(&ops, 1), (10, 4));
        assert_eq!(slowest_unit(&[], 2), (u64::MAX, 0));
        let (min_ops, units) = slowest_unit(&ops, 2);
        let g = Gathered { secs: 0.1, total_ops: Some(1000), ops: 90, min_ops, units, ..Default::default() };
        assert!((g.value(Metric::Time) - 1.25).abs() < 1e-12);
        let (min_ops, units) = slowest_unit(&ops, 1);
        assert!((Gathered { min_ops, units, ..g }.value(Metric::Time) - 2.5).abs() < 1e-12);
    }

    /// schbench's percentiles are the ones schbench prints (its wake-up
    /// and request histograms alike). Nine wake-ups of 9 ms and one of
    /// 9.1 ms: p90 needs 9 of 10 samples, so it is the 9 ms bucket. In
    /// schbench's histogram that bucket is [8992, 9023] µs, printed as its
    /// middle, 9008 (`plat_buckets_are_schbenchs`); in the engine's own
    /// (1/32 per octave) it is [8912.896, 9175.039] µs, reported as its
    /// upper edge capped at the largest sample, 9100.
    #[test]
    fn schbench_reports_its_own_percentile() {
        let mut g = Gathered::default();
        let mut plat = crate::lab::trace::hist::Plat::default();
        for ns in [9_000_000u64; 9].into_iter().chain([9_100_000]) {
            g.wakeup.record(ns);
            plat.record(ns);
        }
        assert_eq!(g.value(Metric::WakeupP90), 9100.0);
        // The same samples as request latencies: request p99 needs 9.9 of
        // 10, the 9.1 ms sample: schbench's bucket for 9100 µs is [9088,
        // 9119] (error_bits 5, offset 255 & 284 = 28), printed as 9104.
        g.schbench = Some([plat.clone(), plat]);
        assert_eq!(g.value(Metric::WakeupP90), 9008.0);
        assert_eq!(g.value(Metric::RequestP99), 9104.0);
    }
}
