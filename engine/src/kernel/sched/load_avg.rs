//! fair.c's PELT glue: keeping each entity's and each queue's averages up to
//! date at enqueue, dequeue, pick and tick, attaching and detaching tasks
//! that move between CPUs, and the CPU-level signals the balancer and
//! wakeup placement read (`cpu_util_cfs()`, `cpu_load()`, `cpu_runnable()`).
//!
//! Each queue's averages come from its own weight and running state; the
//! kernel's propagation of a child queue's attach/detach into the group
//! entity above (`propagate_entity_load_avg()`) is not modelled. The PELT
//! clock is `rq_clock_task()` (a symmetric machine without
//! frequency invariance, so `rq_clock_pelt()` equals it).

use crate::kernel::sched::features::Feature;
use crate::kernel::sched::pelt::{self, SchedAvg};
use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::core::Sched;
use crate::kernel::sched::topology::SCHED_CAPACITY_SCALE;

// update_load_avg() flags (fair.c).
pub const UPDATE_TG: u32 = 1 << 0;
pub const SKIP_AGE_LOAD: u32 = 1 << 1;
pub const DO_ATTACH: u32 = 1 << 2;
pub const DO_DETACH: u32 = 1 << 3;

/// Averages of tasks that left a queue while asleep (`cfs_rq->removed`),
/// subtracted at the queue's next update.
#[derive(Clone, Copy, Debug, Default)]
pub struct Removed {
    pub load_avg: u64,
    pub util_avg: u64,
    pub runnable_avg: u64,
    pub nr: u32,
}

impl Sched {
    /// Mirrors `se_runnable()` (sched.h, v6.12+; before, without the
    /// delayed test, which could not be true): a task is runnable while
    /// queued and not delayed; a group entity counts the runnable tasks
    /// `se_update_runnable()` last recorded.
    fn se_runnable(&self, se: u32) -> u64 {
        let e = &self.ents[se as usize];
        if e.sched_delayed {
            0
        } else if e.my_q == NIL {
            e.on_rq as u64
        } else {
            e.runnable_weight as u64
        }
    }

    /// Mirrors `se_update_runnable()` (sched.h): a group entity records its
    /// queue's tasks — `h_nr_running` in v5.15–v6.12, the runnable ones
    /// (`h_nr_running − h_nr_delayed`, v6.14 `h_nr_runnable`) with
    /// PELT_VS_DELAYED_DEQUEUE (v6.13+). Called where the kernel calls it:
    /// after the PELT update of the entity in enqueue/dequeue, so the
    /// interval just accounted still used the old count.
    pub(crate) fn se_update_runnable(&mut self, se: u32) {
        let my_q = self.ents[se as usize].my_q;
        if my_q != NIL {
            let gq = &self.cfs_rqs[my_q as usize];
            let n = if self.feat.has(Feature::PELT_VS_DELAYED_DEQUEUE) { gq.h_nr_runnable } else { gq.h_nr_queued };
            self.ents[se as usize].runnable_weight = n;
        }
    }

    /// Mirrors `__update_load_avg_se()` (pelt.c).
    fn update_load_avg_se(&mut self, now: u64, q: u32, se: u32) {
        let curr = self.cfs_rqs[q as usize].curr == se;
        let runnable = self.se_runnable(se);
        let e = &mut self.ents[se as usize];
        let on_rq = e.on_rq as u64;
        if e.avg.update_sum(now, on_rq, runnable, curr) {
            let w = e.weight();
            e.avg.update_avg(w);
            e.avg.util_changed();
        }
    }

    /// Mirrors `update_cfs_rq_load_avg()` (fair.c, v6.18): apply removed
    /// averages, then accumulate the queue's own signal
    /// (`__update_load_avg_cfs_rq()`, pelt.c), whose runnable input is
    /// `h_nr_running` up to v6.12 and excludes delayed tasks from v6.13
    /// (PELT_VS_DELAYED_DEQUEUE).
    pub(crate) fn update_cfs_rq_load_avg(&mut self, now: u64, q: u32) -> bool {
        let cfs = &mut self.cfs_rqs[q as usize];
        let mut decayed = false;
        if cfs.removed.nr > 0 {
            let r = std::mem::take(&mut cfs.removed);
            let d = cfs.avg.divider();
            pelt::subtract(&mut cfs.avg, r.load_avg, r.load_avg * d, r.util_avg, r.util_avg * d, r.runnable_avg, r.runnable_avg * d);
            decayed = true;
        }
        let load = crate::kernel::sched::weight::scale_load_down(cfs.load.weight);
        let nr = if self.feat.has(Feature::PELT_VS_DELAYED_DEQUEUE) { cfs.h_nr_runnable } else { cfs.h_nr_queued };
        let (runnable, running) = (nr as u64, cfs.curr != NIL);
        if cfs.avg.update_sum(now, load, runnable, running) {
            cfs.avg.update_avg(1);
            decayed = true;
        }
        decayed
    }

    /// Mirrors `update_load_avg()` (fair.c, v6.18).
    pub(crate) fn update_load_avg(&mut self, q: u32, se: u32, flags: u32) {
        let now = self.now;
        if self.ents[se as usize].avg.last_update_time != 0 && flags & SKIP_AGE_LOAD == 0 {
            self.update_load_avg_se(now, q, se);
        }
        let decayed = self.update_cfs_rq_load_avg(now, q);
        if self.ents[se as usize].avg.last_update_time == 0 && flags & DO_ATTACH != 0 {
            self.attach_entity_load_avg(q, se);
            self.update_tg_load_avg(q);
        } else if flags & DO_DETACH != 0 {
            self.detach_entity_load_avg(q, se);
            self.update_tg_load_avg(q);
        } else if decayed && flags & UPDATE_TG != 0 {
            self.update_tg_load_avg(q);
        }
    }

    /// Mirrors `attach_entity_load_avg()` (fair.c, v6.18): a task arriving
    /// (new, or migrated) joins the queue's averages with its own, re-based
    /// onto the queue's period.
    fn attach_entity_load_avg(&mut self, q: u32, se: u32) {
        let cfs_avg = self.cfs_rqs[q as usize].avg;
        let divider = cfs_avg.divider();
        let e = &mut self.ents[se as usize];
        let w = e.weight();
        let a = &mut e.avg;
        a.last_update_time = cfs_avg.last_update_time.max(1);
        a.period_contrib = cfs_avg.period_contrib;
        a.util_sum = a.util_avg * divider;
        a.runnable_sum = a.runnable_avg * divider;
        a.load_sum = a.load_avg * divider;
        a.load_sum = if w < a.load_sum { a.load_sum / w } else { 1 };
        let a = *a;
        let cfs = &mut self.cfs_rqs[q as usize].avg;
        cfs.load_avg += a.load_avg;
        cfs.load_sum += w * a.load_sum;
        cfs.util_avg += a.util_avg;
        cfs.util_sum += a.util_sum;
        cfs.runnable_avg += a.runnable_avg;
        cfs.runnable_sum += a.runnable_sum;
    }

    /// Mirrors `detach_entity_load_avg()` (fair.c, v6.18).
    fn detach_entity_load_avg(&mut self, q: u32, se: u32) {
        let e = &self.ents[se as usize];
        let (a, w) = (e.avg, e.weight());
        let cfs = &mut self.cfs_rqs[q as usize].avg;
        pelt::subtract(cfs, a.load_avg, w * a.load_sum, a.util_avg, a.util_sum, a.runnable_avg, a.runnable_sum);
    }

    /// Mirrors `dequeue_load_avg()` (fair.c, v5.15–v6.18): take the
    /// entity's load out of its queue's load average, keeping the queue's
    /// sum at least avg × the minimum divider.
    fn dequeue_load_avg(&mut self, q: u32, se: u32) {
        let e = &self.ents[se as usize];
        let (load_avg, load_sum) = (e.avg.load_avg, e.weight() * e.avg.load_sum);
        let cfs = &mut self.cfs_rqs[q as usize].avg;
        cfs.load_avg = cfs.load_avg.saturating_sub(load_avg);
        cfs.load_sum = cfs.load_sum.saturating_sub(load_sum).max(cfs.load_avg * pelt::PELT_MIN_DIVIDER);
    }

    /// Mirrors `enqueue_load_avg()` (fair.c, v5.15–v6.18).
    fn enqueue_load_avg(&mut self, q: u32, se: u32) {
        let e = &self.ents[se as usize];
        let (load_avg, load_sum) = (e.avg.load_avg, e.weight() * e.avg.load_sum);
        let cfs = &mut self.cfs_rqs[q as usize].avg;
        cfs.load_avg += load_avg;
        cfs.load_sum += load_sum;
    }

    /// The PELT half of `reweight_entity()` (fair.c, every version from
    /// v5.15 to v6.18): the entity's load leaves its queue's average at the
    /// old weight, `se->load` takes the new weight, `load_avg` is
    /// re-derived as `se_weight · load_sum / get_pelt_divider()` and joins
    /// the queue's average again — so a group's load follows its shares at
    /// once instead of at the next period boundary.
    pub(crate) fn reweight_load_avg(&mut self, q: u32, se: u32, lw: crate::kernel::sched::weight::LoadWeight) {
        self.dequeue_load_avg(q, se);
        let e = &mut self.ents[se as usize];
        e.load = lw;
        let (w, divider) = (e.weight(), e.avg.divider());
        e.avg.load_avg = w * e.avg.load_sum / divider;
        self.enqueue_load_avg(q, se);
    }

    /// Mirrors `remove_entity_load_avg()` (fair.c, v6.18): a sleeping task
    /// woken onto another CPU leaves its old queue's averages lazily.
    /// (`migrate_se_pelt_lag()`'s estimate of time an idle CPU's clock
    /// missed is not modelled: idle CPUs' clocks are exact here.)
    pub(crate) fn remove_entity_load_avg(&mut self, se: u32) {
        let q = self.ents[se as usize].cfs_rq;
        // sync_entity_load_avg(): bring the task to the queue's last update.
        let last = self.cfs_rqs[q as usize].avg.last_update_time;
        let e = &mut self.ents[se as usize];
        if e.avg.update_sum(last, 0, 0, false) {
            let w = e.weight();
            e.avg.update_avg(w);
        }
        let a = self.ents[se as usize].avg;
        let r = &mut self.cfs_rqs[q as usize].removed;
        r.load_avg += a.load_avg;
        r.util_avg += a.util_avg;
        r.runnable_avg += a.runnable_avg;
        r.nr += 1;
    }

    /// Mirrors `post_init_entity_util_avg()` (fair.c, v6.18): a new task
    /// starts with half of the CPU's spare capacity, or its weight's share
    /// of the queue's utilisation if that is smaller. Before v6.12
    /// (POST_INIT_UNSCALED_WEIGHT off) the share used the scaled weight,
    /// `se->load.weight` (weight << SCHED_FIXEDPOINT_SHIFT on 64-bit).
    pub(crate) fn post_init_entity_util_avg(&mut self, cpu: u32, se: u32) {
        let q = self.rqs[cpu as usize].cfs;
        let cfs = self.cfs_rqs[q as usize].avg;
        let cap = (SCHED_CAPACITY_SCALE as i64 - cfs.util_avg as i64) / 2;
        let unscaled = self.feat.has(Feature::POST_INIT_UNSCALED_WEIGHT);
        let e = &mut self.ents[se as usize];
        // init_entity_runnable_average(): tasks start with full load.
        e.avg = SchedAvg { load_avg: e.weight(), ..Default::default() };
        if cap > 0 {
            let weight = if unscaled { e.weight() } else { e.load.weight };
            let util = if cfs.util_avg != 0 { cfs.util_avg * weight / (cfs.load_avg + 1) } else { cap as u64 };
            e.avg.util_avg = util.min(cap as u64);
        }
        e.avg.runnable_avg = e.avg.util_avg;
    }

    /// Mirrors `util_est_enqueue()` (fair.c).
    pub(crate) fn util_est_enqueue(&mut self, cpu: u32, se: u32) {
        if !self.feat.has(Feature::UTIL_EST) {
            return;
        }
        let est = self.ents[se as usize].avg.task_util_est();
        let q = self.rqs[cpu as usize].cfs;
        self.cfs_rqs[q as usize].avg.util_est += est;
    }

    /// Mirrors `util_est_dequeue()` (fair.c).
    pub(crate) fn util_est_dequeue(&mut self, cpu: u32, se: u32) {
        if !self.feat.has(Feature::UTIL_EST) {
            return;
        }
        let est = self.ents[se as usize].avg.task_util_est();
        let q = self.rqs[cpu as usize].cfs;
        let u = &mut self.cfs_rqs[q as usize].avg.util_est;
        *u -= (*u).min(est);
    }

    /// Mirrors `util_est_update()` (fair.c) at a task's sleep.
    pub(crate) fn util_est_update(&mut self, se: u32) {
        if self.feat.has(Feature::UTIL_EST) {
            self.ents[se as usize].avg.util_est_update();
        }
    }

    /// Mirrors `cpu_util_cfs()` (v6.6+ `cpu_util(cpu, NULL, -1, 0)`): the
    /// CPU's utilisation, the larger of util_avg and the estimate, capped at
    /// its capacity.
    pub fn cpu_util_cfs(&self, cpu: u32) -> u64 {
        let a = &self.cfs_rqs[self.rqs[cpu as usize].cfs as usize].avg;
        let mut util = a.util_avg;
        if self.feat.has(Feature::UTIL_EST) {
            util = util.max(a.util_est as u64);
        }
        util.min(SCHED_CAPACITY_SCALE)
    }

    /// `cpu_load()`: the root queue's load_avg.
    pub fn cpu_load(&self, cpu: u32) -> u64 {
        self.cfs_rqs[self.rqs[cpu as usize].cfs as usize].avg.load_avg
    }

    /// `cpu_runnable()`: the root queue's runnable_avg.
    pub fn cpu_runnable(&self, cpu: u32) -> u64 {
        self.cfs_rqs[self.rqs[cpu as usize].cfs as usize].avg.runnable_avg
    }

    /// Decays an idle CPU's averages to now: what the periodic
    /// `update_blocked_averages()` of the balancer (and NOHZ idle balance)
    /// keeps doing for idle CPUs.
    pub(crate) fn update_blocked_averages(&mut self, cpu: u32) {
        let q = self.rqs[cpu as usize].cfs;
        let now = self.now;
        self.update_cfs_rq_load_avg(now, q);
    }

}
