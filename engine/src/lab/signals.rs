//! What a multi-CPU run looked like over time: per-CPU run-queue length
//! and PELT utilisation sampled on a fixed grid, each LLC's SIS_UTIL scan
//! budget, and counts of the decisions that shape placement (wake-up
//! preemption verdicts, reschedule causes, how wake-ups were placed).
//!
//! Sampling reads the state between events: nothing changes between two
//! events, so a sample at time t is the state left by the last event at or
//! before t. It adds no event and changes no schedule (the log hash of a
//! run with signals is that of the run without).
//!
//! Memory is bounded: at most `MAX_SAMPLES` sample times are kept (the
//! period is doubled and every other sample dropped when the buffer fills),
//! so a sample costs 8 bytes per CPU plus 4 per LLC.

use serde::Serialize;

use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::core::Sched;
use crate::kernel::sched::select::Placed;
use crate::lab::trace::{Cause, Record, Verdict};

/// The most sample times kept.
pub const MAX_SAMPLES: usize = 4096;

/// One CPU at one sample time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CpuSample {
    /// `rq->nr_running` (delayed tasks included).
    pub nr_running: u16,
    /// `cpu_util_cfs()` and `cpu_runnable()`, 0..=1024 (capacity).
    pub util: u16,
    pub runnable: u16,
    /// A task runs.
    pub busy: bool,
}

/// Counts of decisions, by kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Counters {
    /// check_preempt_wakeup_fair() verdicts, by name.
    pub wakeup_verdicts: Vec<(&'static str, u64)>,
    /// resched_curr() causes, by name.
    pub resched_causes: Vec<(&'static str, u64)>,
    /// Wake-up and fork placements, by the path that answered.
    pub placements: Vec<(&'static str, u64)>,
    /// Placements that moved the task to another CPU than its previous one.
    pub placed_away: u64,
    /// Balancer migrations (Migrate records).
    pub balance_migrations: u64,
    pub switches: u64,
    pub blocks: u64,
    pub wakeups: u64,
    /// Group entities reweighted while queued, and of those with a
    /// non-zero lag (the only ones the reweight fix changes).
    pub reweights: u64,
    pub reweights_nonzero_lag: u64,
    /// CPUs SIS_FILTER took out of select_idle_cpu() scans.
    pub cpus_filtered: u64,
}

fn bump(list: &mut Vec<(&'static str, u64)>, name: &'static str) {
    match list.iter_mut().find(|(n, _)| *n == name) {
        Some((_, c)) => *c += 1,
        None => list.push((name, 1)),
    }
}

fn verdict_name(v: Verdict) -> &'static str {
    match v {
        Verdict::Preempt => "preempt",
        Verdict::Disabled => "disabled",
        Verdict::WakeePolicy => "wakee_policy",
        Verdict::WakeeIdle => "wakee_idle",
        Verdict::NotPicked => "not_picked",
        Verdict::AlreadyPending => "already_pending",
        Verdict::SamePrio => "same_prio",
        Verdict::NoHint => "no_hint",
    }
}

fn cause_name(c: Cause) -> &'static str {
    match c {
        Cause::SliceExpired => "slice_expired",
        Cause::ProtectLapsed => "protect_lapsed",
        Cause::ShortPreempted => "short_preempted",
        Cause::WakeupPreempt { .. } => "wakeup_preempt",
        Cause::IdlePreempted { .. } => "idle_preempted",
        Cause::IdleCpu { .. } => "idle_cpu",
        Cause::PrioChanged => "prio_changed",
        Cause::ActiveBalance => "active_balance",
        Cause::VruntimeAhead => "vruntime_ahead",
        Cause::TickPick => "tick_pick",
    }
}

fn placed_name(p: Placed) -> &'static str {
    match p {
        Placed::Pinned => "pinned",
        Placed::TargetIdle => "target_idle",
        Placed::PrevIdle => "prev_idle",
        Placed::RecentIdle => "recent_idle",
        Placed::IdleSibling => "idle_sibling",
        Placed::IdleCore => "idle_core",
        Placed::IdleCpu => "idle_cpu",
        Placed::Target => "target",
        Placed::NoLlc => "no_llc",
        Placed::Idlest => "idlest",
    }
}

/// The recorded signals of one run.
#[derive(Clone, Debug)]
pub struct Signals {
    /// Time between samples (ns); doubles when the buffer fills.
    pub period: u64,
    next: u64,
    pub cpus: usize,
    pub llcs: usize,
    /// Sample times, and per time `cpus` CPU samples and `llcs` scan budgets.
    pub times: Vec<u64>,
    pub cpu: Vec<CpuSample>,
    pub nr_idle_scan: Vec<u32>,
    pub counters: Counters,
}

impl Signals {
    /// Counts decisions only (no samples).
    pub fn counting_only() -> Signals {
        Signals::new(u64::MAX, 0, 0)
    }

    pub fn new(period: u64, cpus: usize, llcs: usize) -> Signals {
        Signals {
            period: period.max(1),
            next: 0,
            cpus,
            llcs,
            times: Vec::new(),
            cpu: Vec::new(),
            nr_idle_scan: Vec::new(),
            counters: Counters::default(),
        }
    }

    /// Samples every grid time up to (not including) `t`, from the state
    /// as it is now (the state since the last event).
    pub fn sample_until(&mut self, s: &Sched, t: u64) {
        while self.next < t && self.cpus > 0 {
            if self.times.len() == MAX_SAMPLES {
                self.thin();
                continue;
            }
            self.times.push(self.next);
            for c in 0..self.cpus as u32 {
                let rq = &s.rqs[c as usize];
                self.cpu.push(CpuSample {
                    nr_running: rq.nr_running.min(u16::MAX as u32) as u16,
                    util: s.cpu_util_cfs(c).min(u16::MAX as u64) as u16,
                    runnable: s.cpu_runnable(c).min(u16::MAX as u64) as u16,
                    busy: rq.curr != NIL,
                });
            }
            self.nr_idle_scan.extend(s.llc.iter().map(|l| l.nr_idle_scan));
            self.next = self.next.saturating_add(self.period);
        }
    }

    /// Keeps every other sample and doubles the period.
    fn thin(&mut self) {
        fn keep<T>(v: &mut Vec<T>, width: usize) {
            let mut out = 0;
            for i in (0..v.len() / width.max(1)).step_by(2) {
                for k in 0..width {
                    v.swap(out * width + k, i * width + k);
                }
                out += 1;
            }
            v.truncate(out * width);
        }
        keep(&mut self.times, 1);
        keep(&mut self.cpu, self.cpus);
        keep(&mut self.nr_idle_scan, self.llcs);
        self.period *= 2;
        self.next = self.times.last().map_or(0, |t| t + self.period);
    }

    /// Counts the decisions of one event's records.
    pub fn count(&mut self, records: &[Record]) {
        let c = &mut self.counters;
        for r in records {
            match *r {
                Record::WakeupCheck { verdict, .. } => bump(&mut c.wakeup_verdicts, verdict_name(verdict)),
                Record::Resched { cause, .. } => bump(&mut c.resched_causes, cause_name(cause)),
                Record::Placement { how, prev, cpu, filtered, .. } => {
                    bump(&mut c.placements, placed_name(how));
                    c.placed_away += (prev != cpu) as u64;
                    c.cpus_filtered += filtered as u64;
                }
                Record::Reweight { lag_before, .. } => {
                    c.reweights += 1;
                    c.reweights_nonzero_lag += (lag_before != 0) as u64;
                }
                Record::Migrate { .. } => c.balance_migrations += 1,
                Record::Switch { .. } => c.switches += 1,
                Record::Block { .. } => c.blocks += 1,
                Record::Wakeup { .. } => c.wakeups += 1,
                _ => {}
            }
        }
    }

    /// The samples as CSV: `time_ns,cpu,nr_running,util,runnable,busy`, then
    /// the LLC scan budgets as `time_ns,llc,nr_idle_scan`.
    pub fn to_csv(&self) -> String {
        let mut s = String::from("time_ns,cpu,nr_running,util,runnable,busy\n");
        for (i, &t) in self.times.iter().enumerate() {
            for (c, x) in self.cpu[i * self.cpus..(i + 1) * self.cpus].iter().enumerate() {
                s += &format!("{t},{c},{},{},{},{}\n", x.nr_running, x.util, x.runnable, x.busy as u8);
            }
        }
        s += "\ntime_ns,llc,nr_idle_scan\n";
        for (i, &t) in self.times.iter().enumerate() {
            for (l, n) in self.nr_idle_scan[i * self.llcs..(i + 1) * self.llcs].iter().enumerate() {
                s += &format!("{t},{l},{n}\n");
            }
        }
        s
    }

    /// Averages over the samples taken at or after `from` (ns).
    pub fn summary(&self, from: u64) -> Summary {
        let mut sum = Summary { counters: self.counters.clone(), period_ns: self.period, ..Default::default() };
        let first = self.times.iter().position(|&t| t >= from).unwrap_or(self.times.len());
        let n = self.times.len() - first;
        sum.samples = n;
        if n == 0 || self.cpus == 0 {
            return sum;
        }
        let mut hist = [0u64; 6];
        let (mut busy, mut util, mut nr, mut idle_while_queued, mut scan) = (0u64, 0u64, 0u64, 0u64, 0u64);
        for i in first..self.times.len() {
            let row = &self.cpu[i * self.cpus..(i + 1) * self.cpus];
            let waiting = row.iter().filter(|x| x.nr_running >= 2).count() > 0;
            for x in row {
                busy += x.busy as u64;
                util += x.util as u64;
                nr += x.nr_running as u64;
                hist[(x.nr_running as usize).min(5)] += 1;
                idle_while_queued += (!x.busy && waiting) as u64;
            }
            scan += self.nr_idle_scan[i * self.llcs..(i + 1) * self.llcs].iter().map(|&v| v as u64).sum::<u64>();
        }
        let cpu_samples = (n * self.cpus) as f64;
        sum.busy_pct = busy as f64 * 100.0 / cpu_samples;
        sum.util_avg = util as f64 / cpu_samples;
        sum.nr_running_avg = nr as f64 / cpu_samples;
        sum.nr_running_hist_pct = hist.map(|h| h as f64 * 100.0 / cpu_samples);
        sum.idle_while_others_queue_pct = idle_while_queued as f64 * 100.0 / cpu_samples;
        sum.nr_idle_scan_avg = if self.llcs == 0 { 0.0 } else { scan as f64 / (n * self.llcs) as f64 };
        sum
    }
}

/// The signals of a run, averaged.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    pub samples: usize,
    pub period_ns: u64,
    /// CPU samples with a task running, in %.
    pub busy_pct: f64,
    pub util_avg: f64,
    pub nr_running_avg: f64,
    /// CPU samples with 0, 1, 2, 3, 4, 5+ tasks queued, in %.
    pub nr_running_hist_pct: [f64; 6],
    /// CPU samples idle while some CPU had a task waiting: capacity lost to
    /// placement, in %.
    pub idle_while_others_queue_pct: f64,
    /// The LLCs' SIS_UTIL scan budget, averaged.
    pub nr_idle_scan_avg: f64,
    pub counters: Counters,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Thinning keeps samples 0, 2, 4, ... and doubles the period, so the
    /// kept times stay on the (new) grid.
    #[test]
    fn thinning_keeps_every_other_sample() {
        let mut s = Signals::new(10, 2, 1);
        for i in 0..6u16 {
            s.times.push(i as u64 * 10);
            s.cpu.push(CpuSample { nr_running: i, ..Default::default() });
            s.cpu.push(CpuSample { nr_running: 100 + i, ..Default::default() });
            s.nr_idle_scan.push(i as u32);
        }
        s.thin();
        assert_eq!(s.times, [0, 20, 40]);
        assert_eq!(s.cpu.iter().map(|c| c.nr_running).collect::<Vec<_>>(), [0, 100, 2, 102, 4, 104]);
        assert_eq!(s.nr_idle_scan, [0, 2, 4]);
        assert_eq!((s.period, s.next), (20, 60));
    }
}
