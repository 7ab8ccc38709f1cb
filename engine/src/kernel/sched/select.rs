//! Wakeup and fork placement: `select_task_rq_fair()` and the idle-CPU
//! search behind it (kernel/sched/fair.c, v6.18; SIS_PROP as in v6.6;
//! SIS_FILTER as proposed in seeds/002).
//!
//! Every decision is recorded: which fast path answered, or which CPUs the
//! LLC scan looked at, in order, what it found on each, and why it stopped.

use serde::Serialize;

use crate::kernel::lib::cpumask::CpuMask;
use crate::kernel::sched::fair::{WF_FORK, WF_SYNC, WF_TTWU};
use crate::kernel::sched::features::Feature::*;
use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::core::Sched;
use crate::kernel::sched::topology::*;
use crate::lab::trace::Record;

/// How a wakeup or fork found its CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Placed {
    /// The task may run on one CPU only (`nr_cpus_allowed == 1`).
    Pinned,
    /// select_idle_sibling(): the target was idle.
    TargetIdle,
    /// select_idle_sibling(): the previous CPU shares the LLC and was idle.
    PrevIdle,
    /// select_idle_sibling(): the recently used CPU was idle.
    RecentIdle,
    /// select_idle_smt(): an idle SMT sibling of the previous CPU.
    IdleSibling,
    /// select_idle_cpu() found a fully idle core.
    IdleCore,
    /// select_idle_cpu() found an idle CPU.
    IdleCpu,
    /// Nothing idle found: the target.
    Target,
    /// The target has no LLC domain (one CPU per LLC).
    NoLlc,
    /// Fork: find_idlest_cpu() (sched_balance_find_dst_cpu()).
    Idlest,
}

/// Why the LLC scan stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ScanEnd {
    /// No scan happened.
    None,
    /// Found an idle CPU (or core).
    Found,
    /// SIS_UTIL: the LLC is busy, nr_idle_scan is 0 — no scan at all.
    Overloaded,
    /// The scan budget (SIS_UTIL / SIS_PROP) ran out.
    Budget,
    /// Every allowed CPU of the LLC was looked at.
    Exhausted,
}

/// What a scanned CPU was found to be (packed with its number in the
/// record's side buffer: `cpu << 2 | state`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Seen {
    Busy = 0,
    Idle = 1,
    /// Only SCHED_IDLE tasks on it.
    SchedIdle = 2,
    /// A whole core checked (select_idle_core) and found busy.
    BusyCore = 3,
}

/// select_idle_sibling() statistics ("sis" in the run's JSON).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SisStats {
    /// Wakeups that ran select_idle_sibling().
    pub wakeups: u64,
    /// Answered by a fast path (target, prev, recent, SMT sibling).
    pub fast_path: u64,
    /// select_idle_cpu() calls that scanned.
    pub scans: u64,
    /// Of those, scans for an idle core (`has_idle_core`): SIS_FILTER
    /// leaves them unfiltered, so the patch's mask is not even read.
    pub core_scans: u64,
    /// CPUs looked at by those scans.
    pub cpus_scanned: u64,
    /// CPUs SIS_FILTER removed from scans.
    pub cpus_filtered: u64,
    /// Of those, CPUs that were idle when filtered: their overloaded bit
    /// is stale, since update_overloaded_rq() runs only from the tick and
    /// an idle CPU's tick is stopped (NOHZ) until it gets work again.
    pub cpus_filtered_idle: u64,
    /// Scans skipped outright because nr_idle_scan was 0.
    pub skipped_overloaded: u64,
    /// select_idle_sibling() calls that found an idle CPU (any path).
    pub found_idle: u64,
    /// Fork placements through find_idlest_cpu().
    pub forks_balanced: u64,
}

/// Per-LLC `struct sched_domain_shared`.
#[derive(Clone, Debug)]
pub struct LlcShared {
    /// A fully idle core may exist (set when a core goes idle, cleared by a
    /// scan that found none).
    pub has_idle_cores: bool,
    /// SIS_UTIL's scan budget.
    pub nr_idle_scan: u32,
    /// SIS_FILTER's overloaded CPUs.
    pub overloaded: CpuMask,
    /// SIS_PROP's `sd_llc->avg_scan_cost` (ns).
    pub avg_scan_cost: u64,
    /// `nr_busy_cpus`: CPUs of the LLC not idle.
    pub nr_busy_cpus: u32,
}

/// The scan of the wakeup in progress (written into the Placement record).
#[derive(Clone, Debug, Default)]
pub struct ScanTrace {
    /// The CPUs visited, in order, if `Sched::keep_paths`.
    pub seen: Vec<u32>,
    /// How many were visited (`seen.len()` when they are kept).
    pub len: u32,
    pub end: Option<ScanEnd>,
    pub filtered: u32,
}

impl ScanTrace {
    /// Empty again, keeping `seen`'s buffer: a fresh one would allocate
    /// at the first traced visit of every wake-up.
    fn reset(&mut self) {
        let mut seen = std::mem::take(&mut self.seen);
        seen.clear();
        *self = ScanTrace { seen, ..ScanTrace::default() };
    }
}

impl Sched {
    /// Is `cpu` allowed for task `p`?
    #[inline]
    pub fn cpu_allowed(&self, p: u32, cpu: u32) -> bool {
        self.tasks[p as usize].affinity.test(cpu)
    }

    /// Mirrors `idle_cpu()` / `available_idle_cpu()` (core.c): the idle
    /// task runs, nothing is queued and no wake-up is pending on its wake
    /// list (no vCPU preemption modelled).
    #[inline]
    pub fn available_idle_cpu(&self, cpu: u32) -> bool {
        let idle = self.idle_mask.test(cpu);
        let rq = &self.rqs[cpu as usize];
        debug_assert_eq!(idle, rq.curr == NIL && rq.nr_running == 0 && rq.wake_list.is_empty(), "idle_mask of cpu {cpu}");
        idle
    }

    /// Mirrors `sched_idle_cpu()` (fair.c): only SCHED_IDLE tasks queued.
    #[inline]
    pub fn sched_idle_cpu(&self, cpu: u32) -> bool {
        let rq = &self.rqs[cpu as usize];
        self.idle_entities > 0 && rq.nr_running > 0 && rq.nr_running == self.cfs_rqs[rq.cfs as usize].h_nr_idle
    }

    #[inline]
    fn idle_or_sched_idle(&self, cpu: u32) -> bool {
        self.available_idle_cpu(cpu) || self.sched_idle_cpu(cpu)
    }

    fn llc_id(&self, cpu: u32) -> usize {
        self.topo.cpus[cpu as usize].llc as usize
    }

    fn smt_active(&self) -> bool {
        self.topo.threads_per_core > 1
    }

    /// Mirrors `record_wakee()` (fair.c): the waker counts how often it
    /// switches between wakees, halved once a second.
    fn record_wakee(&mut self, this_cpu: u32, p: u32) {
        let jiffies = self.jiffies();
        let hz = self.tun.hz as u64;
        let w = self.waker_mut(this_cpu);
        if jiffies > w.wakee_flip_decay_ts + hz {
            w.wakee_flips >>= 1;
            w.wakee_flip_decay_ts = jiffies;
        }
        if w.last_wakee != p {
            w.last_wakee = p;
            w.wakee_flips += 1;
        }
    }

    /// Mirrors `wake_wide()` (fair.c): many-to-one wakeup patterns (a waker
    /// flipping between more wakees than an LLC has CPUs) spread wide
    /// instead of being pulled next to the waker.
    fn wake_wide(&self, this_cpu: u32, p: u32) -> bool {
        let mut master = self.waker(this_cpu).wakee_flips;
        let mut slave = self.tasks[p as usize].waker.wakee_flips;
        let factor = self.topo.llc_size(this_cpu);
        if master < slave {
            std::mem::swap(&mut master, &mut slave);
        }
        !(slave < factor || master < slave * factor)
    }

    /// Mirrors `wake_affine_idle()` (fair.c): a sync wakeup stays with a
    /// waker that is alone on its CPU — counting delayed tasks as there
    /// (v5.15–v6.14, `nr_running == 1`) or not (WAKE_SYNC_VS_DELAYED,
    /// v6.18: `nr_running − cfs_h_nr_delayed() == 1`).
    pub(crate) fn wake_affine_idle(&self, this_cpu: u32, prev_cpu: u32, sync: bool) -> Option<u32> {
        if self.available_idle_cpu(this_cpu) && self.topo.share_cache(this_cpu, prev_cpu) {
            return Some(if self.available_idle_cpu(prev_cpu) { prev_cpu } else { this_cpu });
        }
        if sync {
            let rq = &self.rqs[this_cpu as usize];
            let cfs = &self.cfs_rqs[rq.cfs as usize];
            let delayed = if self.feat.has(WAKE_SYNC_VS_DELAYED) { cfs.h_nr_queued - cfs.h_nr_runnable } else { 0 };
            if rq.nr_running - delayed == 1 {
                return Some(this_cpu);
            }
        }
        if self.available_idle_cpu(prev_cpu) {
            return Some(prev_cpu);
        }
        None
    }

    /// Mirrors `wake_affine_weight()` (fair.c, v6.18): compare the loads the
    /// two CPUs would have, biased towards prev by half the imbalance pct.
    fn wake_affine_weight(&self, sd_imbalance_pct: u32, p: u32, this_cpu: u32, prev_cpu: u32, sync: bool) -> Option<u32> {
        let mut this_eff = self.cpu_load(this_cpu) as i64;
        if sync {
            let curr = self.rqs[this_cpu as usize].curr;
            let current_load = if curr == NIL { 0 } else { self.task_h_load(curr) as i64 };
            if current_load > this_eff {
                return Some(this_cpu);
            }
            this_eff -= current_load;
        }
        let task_load = self.task_h_load(p) as i64;
        this_eff += task_load;
        if self.feat.has(WA_BIAS) {
            this_eff *= 100;
        }
        this_eff *= SCHED_CAPACITY_SCALE as i64;
        let mut prev_eff = self.cpu_load(prev_cpu) as i64 - task_load;
        if self.feat.has(WA_BIAS) {
            prev_eff *= 100 + (sd_imbalance_pct as i64 - 100) / 2;
        }
        prev_eff *= SCHED_CAPACITY_SCALE as i64;
        if sync {
            prev_eff += 1;
        }
        (this_eff < prev_eff).then_some(this_cpu)
    }

    /// Mirrors `wake_affine()` (fair.c, v6.18): the waking CPU if it is the
    /// better target, else the previous CPU.
    fn wake_affine(&self, sd_imbalance_pct: u32, p: u32, this_cpu: u32, prev_cpu: u32, sync: bool) -> u32 {
        let mut target = None;
        if self.feat.has(WA_IDLE) {
            target = self.wake_affine_idle(this_cpu, prev_cpu, sync);
        }
        if self.feat.has(WA_WEIGHT) && target.is_none() {
            target = self.wake_affine_weight(sd_imbalance_pct, p, this_cpu, prev_cpu, sync);
        }
        if target == Some(this_cpu) {
            this_cpu
        } else {
            prev_cpu
        }
    }

    /// Mirrors `select_task_rq()` (core.c) → `select_task_rq_fair()`
    /// (fair.c, v6.18): where a waking (WF_TTWU) or new (WF_FORK) task goes.
    /// `this_cpu` is where the wakeup runs (the waker's CPU; for a timer,
    /// the CPU the task slept on). Energy-aware placement does not apply
    /// (symmetric capacities).
    pub(crate) fn select_task_rq(&mut self, p: u32, prev_cpu: u32, wake_flags: u32, this_cpu: u32) -> (u32, Placed) {
        self.scan.reset();
        if self.tasks[p as usize].nr_cpus_allowed == 1 || self.topo.nr_cpus() == 1 {
            let cpu = self.tasks[p as usize].affinity.first();
            return (cpu, Placed::Pinned);
        }
        let sync = wake_flags & WF_SYNC != 0;
        let sd_flag = if wake_flags & WF_FORK != 0 { SD_BALANCE_FORK } else { SD_BALANCE_WAKE };
        let mut new_cpu = prev_cpu;
        let mut want_affine = false;
        if wake_flags & WF_TTWU != 0 {
            self.record_wakee(this_cpu, p);
            want_affine = !self.wake_wide(this_cpu, p) && self.cpu_allowed(p, this_cpu);
        }
        let topo = self.topo.clone();
        let mut sd: Option<usize> = None;
        for (i, d) in topo.domains[this_cpu as usize].iter().enumerate() {
            if want_affine && d.flags & SD_WAKE_AFFINE != 0 && topo.spans[d.span as usize].test(prev_cpu) {
                if this_cpu != prev_cpu {
                    new_cpu = self.wake_affine(d.imbalance_pct, p, this_cpu, prev_cpu, sync);
                }
                sd = None;
                break;
            }
            if d.flags & sd_flag != 0 {
                sd = Some(i);
            } else if !want_affine {
                break;
            }
        }
        let (cpu, how) = if let Some(level) = sd {
            self.sis.forks_balanced += 1;
            (self.find_idlest_cpu(this_cpu, level, p, this_cpu, prev_cpu, sd_flag), Placed::Idlest)
        } else if wake_flags & WF_TTWU != 0 {
            self.select_idle_sibling(p, prev_cpu, new_cpu)
        } else {
            (new_cpu, Placed::Target)
        };
        if self.cpu_allowed(p, cpu) {
            (cpu, how)
        } else {
            // select_fallback_rq(): any allowed CPU.
            (self.tasks[p as usize].affinity.first(), how)
        }
    }

    /// Mirrors `select_idle_sibling()` (fair.c, v6.18) without clusters:
    /// cheap checks of the target, the previous CPU and the recently used
    /// CPU, then an idle SMT sibling of prev, then the LLC scan.
    fn select_idle_sibling(&mut self, p: u32, prev: u32, target: u32) -> (u32, Placed) {
        self.sis.wakeups += 1;
        let (cpu, how) = self.select_idle_sibling_inner(p, prev, target);
        match how {
            Placed::TargetIdle | Placed::PrevIdle | Placed::RecentIdle | Placed::IdleSibling => {
                self.sis.fast_path += 1;
                self.sis.found_idle += 1;
            }
            Placed::IdleCore | Placed::IdleCpu => self.sis.found_idle += 1,
            _ => {}
        }
        (cpu, how)
    }

    fn select_idle_sibling_inner(&mut self, p: u32, prev: u32, target: u32) -> (u32, Placed) {
        if self.idle_or_sched_idle(target) {
            return (target, Placed::TargetIdle);
        }
        if prev != target && self.topo.share_cache(prev, target) && self.idle_or_sched_idle(prev) {
            return (prev, Placed::PrevIdle);
        }
        let recent = self.tasks[p as usize].recent_used_cpu;
        self.tasks[p as usize].recent_used_cpu = prev;
        if recent != NIL
            && recent != prev
            && recent != target
            && self.topo.share_cache(recent, target)
            && self.idle_or_sched_idle(recent)
            && self.cpu_allowed(p, recent)
        {
            return (recent, Placed::RecentIdle);
        }
        let Some(llc_level) = self.topo.sd_llc[target as usize] else {
            return (target, Placed::NoLlc);
        };
        let mut has_idle_core = false;
        if self.smt_active() {
            has_idle_core = self.llc[self.llc_id(target)].has_idle_cores;
            if !has_idle_core && self.topo.share_cache(prev, target) {
                if let Some(cpu) = self.select_idle_smt(p, prev) {
                    return (cpu, Placed::IdleSibling);
                }
            }
        }
        match self.select_idle_cpu(p, llc_level as usize, has_idle_core, target) {
            Some(cpu) => (cpu, if has_idle_core { Placed::IdleCore } else { Placed::IdleCpu }),
            None => (target, Placed::Target),
        }
    }

    /// Mirrors `select_idle_smt()` (fair.c, v6.18): an idle sibling of prev.
    fn select_idle_smt(&self, p: u32, prev: u32) -> Option<u32> {
        let smt = &self.topo.spans[self.topo.smt_span[prev as usize] as usize];
        smt.iter().find(|&c| c != prev && self.cpu_allowed(p, c) && self.idle_or_sched_idle(c))
    }

    /// Mirrors `select_idle_cpu()` (fair.c, v6.18; SIS_PROP from v6.6;
    /// SIS_FILTER from seeds/002): scan the LLC from the CPU after the
    /// target, wrapping, for an idle core (when one may exist — unlimited)
    /// or an idle CPU (limited by SIS_UTIL's nr_idle_scan or SIS_PROP's
    /// estimate). Each CPU looked at costs `scan_cost` of CPU time.
    pub(crate) fn select_idle_cpu(&mut self, p: u32, llc_level: usize, has_idle_core: bool, target: u32) -> Option<u32> {
        let topo = self.topo.clone();
        let sd = &topo.domains[target as usize][llc_level];
        let llc = self.llc_id(target);
        let mut nr: i64 = i64::MAX;
        let this_cpu = self.waking_cpu;
        if self.feat.has(SIS_PROP) && !has_idle_core {
            nr = self.sis_prop_budget(this_cpu, sd.span_weight);
        }
        if self.feat.has(SIS_UTIL) {
            nr = self.llc[llc].nr_idle_scan as i64 + 1;
            if nr == 1 {
                self.sis.skipped_overloaded += 1;
                self.scan.end = Some(ScanEnd::Overloaded);
                return None;
            }
        }
        // The kernel's per-CPU select_rq_mask: a scratch mask, not an
        // allocation per wakeup.
        let mut cpus = std::mem::take(&mut self.select_mask);
        cpus.copy_from(&topo.spans[sd.span as usize]);
        cpus.and(&self.tasks[p as usize].affinity);
        if cpus.is_empty() {
            self.select_mask = cpus;
            return None;
        }
        if self.feat.has(SIS_FILTER) && !has_idle_core {
            let before = cpus.weight();
            let stale = self.llc[llc].overloaded.iter().filter(|&c| cpus.test(c) && self.available_idle_cpu(c)).count();
            self.sis.cpus_filtered_idle += stale as u64;
            cpus.andnot(&self.llc[llc].overloaded);
            let filtered = before - cpus.weight();
            self.scan.filtered = filtered;
            self.sis.cpus_filtered += filtered as u64;
        }
        self.sis.scans += 1;
        self.sis.core_scans += has_idle_core as u64;
        let start = if target + 1 >= topo.nr_cpus() { 0 } else { target + 1 };
        if !has_idle_core {
            let (found, scanned, end) =
                if self.idle_entities == 0 { self.scan_idle_mask(&cpus, start, nr) } else { self.scan_idle_loop(&cpus, start, nr) };
            // Out of budget, the scan returns before SIS_PROP charges its
            // time to wake_avg_idle and avg_scan_cost.
            if self.feat.has(SIS_PROP) && end != ScanEnd::Budget {
                self.sis_prop_account(this_cpu, scanned);
            }
            self.finish_scan(scanned, end);
            self.select_mask = cpus;
            return found;
        }
        let mut idle_cpu: Option<u32> = None;
        let mut scanned = 0u64;
        let mut cursor = Wrap::new(start, topo.nr_cpus());
        while let Some(cpu) = cursor.next(&cpus) {
            scanned += 1;
            if let Some(core) = self.select_idle_core(cpu, &mut cpus, &mut idle_cpu) {
                self.finish_scan(scanned, ScanEnd::Found);
                self.select_mask = cpus;
                return Some(core);
            }
        }
        // set_idle_cores(target, false): the scan found no idle core.
        self.llc[llc].has_idle_cores = false;
        self.finish_scan(scanned, if idle_cpu.is_some() { ScanEnd::Found } else { ScanEnd::Exhausted });
        self.select_mask = cpus;
        idle_cpu
    }

    /// select_idle_cpu()'s loop for an idle CPU (no idle core): visit
    /// `cpus` in wrap order from `start`, at most `nr − 1` of them, and
    /// stop at the first idle or SCHED_IDLE-only one. Returns the CPU, how
    /// many were looked at and how the scan ended.
    pub(crate) fn scan_idle_loop(&mut self, cpus: &CpuMask, start: u32, mut nr: i64) -> (Option<u32>, u64, ScanEnd) {
        let mut scanned = 0u64;
        let mut cursor = Wrap::new(start, self.topo.nr_cpus());
        while let Some(cpu) = cursor.next(cpus) {
            // `if (!--nr) return -1;` (v5.15–v6.6; `--nr <= 0` in v6.12+).
            nr -= 1;
            if nr <= 0 {
                return (None, scanned, ScanEnd::Budget);
            }
            scanned += 1;
            let idle = self.available_idle_cpu(cpu);
            let sched_idle = !idle && self.sched_idle_cpu(cpu);
            self.note_seen(cpu, if idle { Seen::Idle } else if sched_idle { Seen::SchedIdle } else { Seen::Busy });
            if idle || sched_idle {
                return (Some(cpu), scanned, ScanEnd::Found);
            }
        }
        (None, scanned, ScanEnd::Exhausted)
    }

    /// `scan_idle_loop()` without visiting each CPU, where no task or group
    /// is SCHED_IDLE: the CPU it stops at is the first of `cpus` in wrap
    /// order from `start` that is in `idle_mask`, and the CPUs it looked at
    /// are those up to it, or `nr − 1` of them when the budget runs out
    /// first, or all of them (two popcounts instead of reading two run-queue
    /// cache lines per CPU). A traced run still gets the path, every CPU
    /// before the one found busy. `the_mask_scan_is_the_loop` checks both
    /// give the same.
    pub(crate) fn scan_idle_mask(&mut self, cpus: &CpuMask, start: u32, nr: i64) -> (Option<u32>, u64, ScanEnd) {
        let n = cpus.weight() as u64;
        let before_start = cpus.count_below(start) as u64;
        let first = cpus.next_common_from(&self.idle_mask, start).or_else(|| cpus.next_common_from(&self.idle_mask, 0).filter(|&c| c < start));
        let budget = (nr - 1).max(0) as u64;
        let (found, scanned, end) = match first {
            Some(cpu) => {
                let upto = cpus.count_below(cpu + 1) as u64;
                let k = if cpu >= start { upto - before_start } else { n - before_start + upto };
                if k <= budget {
                    (Some(cpu), k, ScanEnd::Found)
                } else {
                    (None, budget, ScanEnd::Budget)
                }
            }
            None if n > budget => (None, budget, ScanEnd::Budget),
            None => (None, n, ScanEnd::Exhausted),
        };
        if self.tracing && !self.keep_paths {
            self.scan.len += scanned as u32;
        } else if self.tracing {
            let mut cursor = Wrap::new(start, self.topo.nr_cpus());
            for _ in 0..scanned {
                let Some(cpu) = cursor.next(cpus) else { break };
                self.note_seen(cpu, if Some(cpu) == found { Seen::Idle } else { Seen::Busy });
            }
        }
        (found, scanned, end)
    }

    fn note_seen(&mut self, cpu: u32, seen: Seen) {
        if self.tracing {
            self.scan.len += 1;
            if self.keep_paths {
                self.scan.seen.push(cpu << 2 | seen as u32);
            }
        }
    }

    fn finish_scan(&mut self, scanned: u64, end: ScanEnd) {
        self.sis.cpus_scanned += scanned;
        self.scan.end = Some(end);
        // The scan runs in the waker's context and costs it CPU time.
        self.scan_cost_pending += scanned * self.tun.cost_scan;
    }

    /// Mirrors `select_idle_core()` (fair.c, v6.18): is the whole core of
    /// `core` idle? Remembers the first idle (or sched-idle) CPU seen as a
    /// fallback and drops the core's siblings from the scan.
    fn select_idle_core(&mut self, core: u32, cpus: &mut CpuMask, idle_cpu: &mut Option<u32>) -> Option<u32> {
        let topo = self.topo.clone();
        let smt = &topo.spans[topo.smt_span[core as usize] as usize];
        let mut idle = true;
        for cpu in smt.iter() {
            if !self.available_idle_cpu(cpu) {
                idle = false;
                if idle_cpu.is_none() {
                    if self.sched_idle_cpu(cpu) && cpus.test(cpu) {
                        *idle_cpu = Some(cpu);
                        break;
                    }
                    continue;
                }
                break;
            }
            if idle_cpu.is_none() && cpus.test(cpu) {
                *idle_cpu = Some(cpu);
            }
        }
        self.note_seen(core, if idle { Seen::Idle } else { Seen::BusyCore });
        if idle {
            return Some(core);
        }
        cpus.andnot(smt);
        None
    }

    /// SIS_PROP's budget (fair.c v6.6 `select_idle_cpu()`): the waking
    /// CPU's recent idle time, aged by a halving per jiffy, over the LLC's
    /// average scan cost, times the LLC's span; at least 4.
    fn sis_prop_budget(&mut self, this_cpu: u32, span_weight: u32) -> i64 {
        let now = self.jiffies();
        let llc = self.llc_id(this_cpu);
        let rq = &mut self.rqs[this_cpu as usize];
        while rq.wake_stamp < now && rq.wake_avg_idle > 0 {
            rq.wake_stamp += 1;
            rq.wake_avg_idle >>= 1;
        }
        let avg_idle = rq.wake_avg_idle;
        let avg_cost = self.llc[llc].avg_scan_cost + 1;
        let span_avg = span_weight as u64 * avg_idle;
        if span_avg > 4 * avg_cost {
            (span_avg / avg_cost) as i64
        } else {
            4
        }
    }

    /// SIS_PROP's accounting after a scan that did not run out of budget
    /// (select_idle_cpu(), v5.15–v6.6): charge the scan time against the
    /// predicted idle time and fold it into the LLC's average
    /// (`update_avg()`: avg += (sample − avg) / 8).
    fn sis_prop_account(&mut self, this_cpu: u32, scanned: u64) {
        let time = scanned * self.tun.cost_scan;
        let llc = self.llc_id(this_cpu);
        let rq = &mut self.rqs[this_cpu as usize];
        rq.wake_avg_idle -= rq.wake_avg_idle.min(time);
        let avg = &mut self.llc[llc].avg_scan_cost;
        *avg = (*avg as i64 + (time as i64 - *avg as i64) / 8) as u64;
    }

    /// Mirrors `__update_idle_core()` (fair.c): when a CPU goes idle and
    /// all its SMT siblings are idle too, its LLC has an idle core.
    pub(crate) fn update_idle_core(&mut self, cpu: u32) {
        if !self.smt_active() {
            return;
        }
        let llc = self.llc_id(cpu);
        if self.llc[llc].has_idle_cores {
            return;
        }
        let smt = &self.topo.spans[self.topo.smt_span[cpu as usize] as usize];
        if smt.iter().all(|c| c == cpu || self.available_idle_cpu(c)) {
            self.llc[llc].has_idle_cores = true;
        }
    }

    /// Mirrors `rq_overloaded()` + `update_overloaded_rq()` (seeds/002,
    /// called from scheduler_tick()): mark the CPU in its LLC's overloaded
    /// mask when more than one non-idle task is queued and its util or
    /// runnable average exceeds capacity by the LLC's imbalance pct.
    pub(crate) fn update_overloaded_rq(&mut self, cpu: u32) {
        if !self.feat.has(SIS_FILTER) {
            return;
        }
        let Some(level) = self.topo.sd_llc[cpu as usize] else { return };
        let pct = self.topo.domains[cpu as usize][level as usize].imbalance_pct as u64;
        let rq = &self.rqs[cpu as usize];
        let h_nr_idle = self.cfs_rqs[rq.cfs as usize].h_nr_idle;
        let overloaded = rq.nr_running - h_nr_idle > 1
            && (SCHED_CAPACITY_SCALE * 100 < self.cpu_util_cfs(cpu) * pct || SCHED_CAPACITY_SCALE * pct < self.cpu_runnable(cpu) * 100);
        let llc = self.llc_id(cpu);
        if overloaded {
            self.llc[llc].overloaded.set(cpu);
        } else {
            self.llc[llc].overloaded.clear(cpu);
        }
    }

    /// Records a placement decision (and resets the scan trace).
    pub(crate) fn trace_placement(&mut self, task: u32, this_cpu: u32, prev: u32, cpu: u32, how: Placed) {
        if !self.tracing {
            return;
        }
        let start = self.paths.len() as u32;
        let len = self.scan.len as u16;
        self.paths.extend_from_slice(&self.scan.seen);
        let end = self.scan.end.unwrap_or(ScanEnd::None);
        let filtered = self.scan.filtered as u16;
        self.records.push(Record::Placement { task, waker_cpu: this_cpu, prev, cpu, how, end, scan_start: start, scan_len: len, filtered });
    }
}

/// `for_each_cpu_wrap()` over a mask that may shrink while iterating
/// (select_idle_core() removes the siblings it checked).
struct Wrap {
    start: u32,
    next: u32,
    wrapped: bool,
}

impl Wrap {
    fn new(start: u32, _nr: u32) -> Wrap {
        Wrap { start, next: start, wrapped: false }
    }

    fn next(&mut self, mask: &CpuMask) -> Option<u32> {
        loop {
            if !self.wrapped {
                match mask.next_from(self.next) {
                    Some(c) => {
                        self.next = c + 1;
                        return Some(c);
                    }
                    None => {
                        self.wrapped = true;
                        self.next = 0;
                    }
                }
            } else {
                let c = mask.next_from(self.next)?;
                if c >= self.start {
                    return None;
                }
                self.next = c + 1;
                return Some(c);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_visits_each_once_and_tolerates_removal() {
        let mut m = CpuMask::from_cpus(10, [0, 2, 3, 5, 7, 9]);
        let mut w = Wrap::new(5, 10);
        let mut seen = Vec::new();
        while let Some(c) = w.next(&m) {
            seen.push(c);
            if c == 7 {
                m.clear(2);
            }
        }
        assert_eq!(seen, vec![5, 7, 9, 0, 3]);
    }
}
