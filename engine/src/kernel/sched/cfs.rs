//! CFS, the Completely Fair Scheduler as in v5.15 (kernel preset "5.15",
//! flag EEVDF off): run the entity with the smallest vruntime, give it a
//! slice of the scheduling period in proportion to its weight, let wakeups
//! preempt when the wakee is more than a wakeup granularity behind, and
//! bend the pick with next/last/skip buddies.
//!
//! Only what differs from EEVDF lives here; the queue, tree (sorted by
//! vruntime), PELT, placement on CPUs and balancing are shared.

use crate::kernel::sched::features::Feature::*;
use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::core::{Policy, Sched};
use crate::lab::trace::{Cause, PickReason, Verdict};
use crate::kernel::sched::weight::{before, calc_delta, calc_delta_fair, max_time, sdiff, LoadWeight};

/// `sysctl_sched_idle_min_granularity` (fair.c, v6.5): 0.75 ms, not
/// scaled by the CPU count.
pub const IDLE_MIN_GRANULARITY: u64 = 750_000;

impl Sched {
    /// Mirrors `__sched_period()` (fair.c, v5.15): the latency target, or
    /// min_granularity per task once more than sched_nr_latency are
    /// runnable.
    fn sched_period(&self, nr_running: u64) -> u64 {
        if nr_running > self.tun.nr_latency {
            nr_running * self.tun.min_granularity
        } else {
            self.tun.latency
        }
    }

    /// Mirrors `sched_slice()` (fair.c, v5.15): the entity's share of the
    /// period, weight by weight up the hierarchy (a dequeued entity counts
    /// as if it were queued), at least min_granularity with BASE_SLICE.
    pub fn sched_slice(&self, q: u32, se: u32) -> u64 {
        let mut nr = self.cfs_rqs[q as usize].nr_queued as u64;
        if self.feat.has(ALT_PERIOD) {
            let cpu = self.cfs_rqs[q as usize].cpu;
            nr = self.cfs_rqs[self.rqs[cpu as usize].cfs as usize].h_nr_queued as u64;
        }
        let on_rq = self.ents[se as usize].on_rq;
        let mut slice = self.sched_period(nr + !on_rq as u64);
        let mut s = se;
        while s != NIL {
            let e = &self.ents[s as usize];
            let mut load = self.cfs_rqs[e.cfs_rq as usize].load;
            if !e.on_rq {
                load = LoadWeight::with_weight(load.weight + e.load.weight);
            }
            slice = calc_delta(slice, e.load.weight, &load);
            s = e.parent;
        }
        if self.feat.has(BASE_SLICE) {
            let min_gran = if self.feat.has(CFS_IDLE_MIN_GRAN) && self.ents[se as usize].idle && !self.sched_idle_cfs_rq(q) {
                IDLE_MIN_GRANULARITY
            } else {
                self.tun.min_granularity
            };
            slice = slice.max(min_gran);
        }
        slice
    }

    /// Mirrors `sched_idle_cfs_rq()` (fair.c, v6.5): every entity queued on
    /// this queue is idle.
    fn sched_idle_cfs_rq(&self, q: u32) -> bool {
        let cfs = &self.cfs_rqs[q as usize];
        cfs.nr_queued > 0 && cfs.nr_queued == cfs.nr_idle
    }

    /// Mirrors `place_entity()` (fair.c, v5.15; v6.5 with CFS_IDLE_MIN_GRAN):
    /// a new task starts a virtual slice after min_vruntime (START_DEBIT); a
    /// waking one at most a latency (half with GENTLE_FAIR_SLEEPERS) before
    /// it; nobody moves backwards. (v6.5 also places a task that slept over
    /// 2^63/1024 ns, about 104 days, at the threshold outright, so its
    /// vruntime cannot wrap; simulated runs are far shorter.)
    pub(crate) fn cfs_place_entity(&mut self, q: u32, se: u32, initial: bool) {
        let mut vruntime = self.cfs_rqs[q as usize].min_vruntime;
        if initial && self.feat.has(START_DEBIT) {
            vruntime = vruntime.wrapping_add(calc_delta_fair(self.sched_slice(q, se), &self.ents[se as usize].load));
        }
        if !initial {
            // v6.5: an idle entity's sleeper credit is a min_granularity.
            let idle = self.feat.has(CFS_IDLE_MIN_GRAN) && self.ents[se as usize].idle;
            let mut thresh = if idle { self.tun.min_granularity } else { self.tun.latency };
            if self.feat.has(GENTLE_FAIR_SLEEPERS) {
                thresh >>= 1;
            }
            vruntime = vruntime.wrapping_sub(thresh);
        }
        let e = &mut self.ents[se as usize];
        e.vruntime = max_time(e.vruntime, vruntime);
    }

    /// Mirrors `task_fork_fair()` (fair.c, v5.15): the child starts at its
    /// parent's vruntime (the task running on the forking CPU; with none, at
    /// min_vruntime), is placed with START_DEBIT and kept relative to
    /// min_vruntime until its first enqueue.
    pub(crate) fn task_fork_fair(&mut self, p: u32, cpu: u32) {
        let q = self.rqs[cpu as usize].cfs;
        let curr = self.cfs_rqs[q as usize].curr;
        let se = self.tasks[p as usize].se;
        let start = if curr != NIL {
            self.update_curr(q);
            self.ents[curr as usize].vruntime
        } else {
            self.cfs_rqs[q as usize].min_vruntime
        };
        self.ents[se as usize].vruntime = start;
        self.cfs_place_entity(q, se, true);
        let min = self.cfs_rqs[q as usize].min_vruntime;
        let e = &mut self.ents[se as usize];
        e.vruntime = e.vruntime.wrapping_sub(min);
    }

    /// Mirrors `wakeup_preempt_entity()` (fair.c, v5.15): −1 if `curr` is
    /// not ahead of `se`, 1 if it is ahead by more than se's wakeup
    /// granularity (weighted by se, so light tasks need a bigger lead), else 0.
    pub fn wakeup_preempt_entity(&self, curr: u32, se: u32) -> i32 {
        let vdiff = sdiff(self.ents[curr as usize].vruntime, self.ents[se as usize].vruntime);
        if vdiff <= 0 {
            return -1;
        }
        let gran = calc_delta_fair(self.tun.wakeup_granularity, &self.ents[se as usize].load) as i64;
        (vdiff > gran) as i32
    }

    /// Mirrors `pick_next_entity()` (fair.c, v5.15, same in v6.5): the
    /// leftmost of the tree and curr, unless the skip buddy would be picked
    /// and a second entity is close enough; then an eligible-enough next
    /// buddy, else last buddy. The pick clears nothing: buddies are cleared
    /// by `set_next_entity()`, so a task picked again while it runs (no
    /// set_next_entity() on the group-scheduling path) keeps them.
    pub(crate) fn cfs_pick_next_entity(&mut self, q: u32) -> u32 {
        let cfs = &self.cfs_rqs[q as usize];
        let curr = if cfs.curr != NIL && self.ents[cfs.curr as usize].on_rq { cfs.curr } else { NIL };
        let first = cfs.tree.first();
        let mut left = first;
        self.pick_trace.reset(PickReason::Leftmost);
        if left == NIL || (curr != NIL && before(self.ents[curr as usize].vruntime, self.ents[left as usize].vruntime)) {
            left = curr;
            self.pick_trace.reason = PickReason::Curr;
        }
        let mut se = left;
        let (skip, next, last) = (cfs.skip, cfs.next, cfs.last);
        if skip != NIL && skip == se {
            let second = if se == curr {
                first
            } else {
                let n = self.cfs_rqs[q as usize].tree.next(&self.nodes, se);
                if n == NIL || (curr != NIL && before(self.ents[curr as usize].vruntime, self.ents[n as usize].vruntime)) {
                    curr
                } else {
                    n
                }
            };
            if second != NIL && self.wakeup_preempt_entity(second, left) < 1 {
                se = second;
                self.pick_trace.reason = PickReason::SkipAvoided;
            }
        }
        if next != NIL && self.wakeup_preempt_entity(next, left) < 1 {
            se = next;
            self.pick_trace.reason = PickReason::Buddy;
            self.stats.buddy_picks += 1;
        } else if last != NIL && self.wakeup_preempt_entity(last, left) < 1 {
            se = last;
            self.pick_trace.reason = PickReason::LastBuddy;
            self.stats.buddy_picks += 1;
        }
        se
    }

    /// Mirrors `check_preempt_tick()` (fair.c, v5.15; v6.5 caps the ideal
    /// runtime at sched_latency with CFS_SLICE_CAP): at a tick, preempt
    /// the running entity once it has run its sched_slice, or when it is
    /// more than a slice of vruntime ahead of the leftmost (after at least
    /// min_granularity).
    pub(crate) fn check_preempt_tick(&mut self, q: u32, curr: u32) {
        let mut ideal = self.sched_slice(q, curr);
        if self.feat.has(CFS_SLICE_CAP) {
            ideal = ideal.min(self.tun.latency);
        }
        let e = &self.ents[curr as usize];
        let ran = e.sum_exec_runtime - e.prev_sum_exec_runtime;
        let cpu = self.cfs_rqs[q as usize].cpu;
        if ran > ideal {
            self.resched_curr(cpu, Cause::SliceExpired);
            self.clear_buddies(q, curr);
            return;
        }
        if ran < self.tun.min_granularity {
            return;
        }
        let first = self.cfs_rqs[q as usize].tree.first();
        if first == NIL {
            return;
        }
        let delta = sdiff(self.ents[curr as usize].vruntime, self.ents[first as usize].vruntime);
        // A vruntime difference compared with a wall-clock slice, as in
        // the source.
        if delta > 0 && delta as u64 > ideal {
            self.resched_curr(cpu, Cause::VruntimeAhead);
        }
    }

    /// Mirrors `check_preempt_wakeup()` (fair.c, v5.15).
    pub(crate) fn cfs_wakeup_verdict(&mut self, cpu: u32, se: u32, pse: u32, p: u32, wake_flags: u32) -> Verdict {
        let curr_task = self.rqs[cpu as usize].curr;
        let task_q = self.ents[se as usize].cfs_rq;
        let scale = self.cfs_rqs[task_q as usize].nr_queued as u64 >= self.tun.nr_latency;
        let mut next_buddy_marked = false;
        if self.feat.has(NEXT_BUDDY) && scale && wake_flags & crate::kernel::sched::fair::WF_FORK == 0 {
            self.set_next_buddy(pse);
            next_buddy_marked = true;
        }
        if self.rqs[cpu as usize].resched {
            return Verdict::AlreadyPending;
        }
        let (curr_idle, p_idle) = (self.tasks[curr_task as usize].policy == Policy::Idle, self.tasks[p as usize].policy == Policy::Idle);
        if curr_idle && !p_idle {
            self.resched_curr(cpu, Cause::IdlePreempted { wakee: p });
            return Verdict::Preempt;
        }
        if self.tasks[p as usize].policy != Policy::Normal {
            return Verdict::WakeePolicy;
        }
        if !self.feat.has(WAKEUP_PREEMPTION) {
            return Verdict::Disabled;
        }
        if self.feat.has(NO_SAME_PRIO_PREEMPT) && self.tasks[p as usize].nice == self.tasks[curr_task as usize].nice {
            return Verdict::SamePrio;
        }
        if self.feat.has(PREEMPT_HINT) && !self.tasks[curr_task as usize].want_preempt {
            return Verdict::NoHint;
        }
        let (se, pse) = self.find_matching_se_pub(se, pse);
        let (cse_idle, pse_idle) = (self.ents[se as usize].idle, self.ents[pse as usize].idle);
        if cse_idle && !pse_idle {
            self.resched_curr(cpu, Cause::IdlePreempted { wakee: p });
            return Verdict::Preempt;
        }
        if cse_idle != pse_idle {
            return Verdict::WakeeIdle;
        }
        self.update_curr(self.ents[se as usize].cfs_rq);
        if self.wakeup_preempt_entity(se, pse) != 1 {
            return Verdict::NotPicked;
        }
        // Bias the next pick towards the entity that preempts (seed 001).
        if !next_buddy_marked && self.feat.has(NEXT_BUDDY_HINT) {
            self.set_next_buddy(pse);
        }
        self.resched_curr(cpu, Cause::WakeupPreempt { wakee: p });
        if self.ents[se as usize].on_rq && self.feat.has(LAST_BUDDY) && scale && self.ents[se as usize].is_task() {
            self.set_last_buddy(se);
        }
        Verdict::Preempt
    }

    /// Mirrors `set_last_buddy()` (fair.c, v5.15).
    fn set_last_buddy(&mut self, se: u32) {
        let mut s = se;
        while s != NIL {
            let e = &self.ents[s as usize];
            if !e.on_rq || e.idle {
                return;
            }
            self.cfs_rqs[e.cfs_rq as usize].last = s;
            s = e.parent;
        }
    }

    /// Mirrors `set_skip_buddy()` (fair.c, v5.15).
    fn set_skip_buddy(&mut self, se: u32) {
        let mut s = se;
        while s != NIL {
            let q = self.ents[s as usize].cfs_rq;
            self.cfs_rqs[q as usize].skip = s;
            s = self.ents[s as usize].parent;
        }
    }

    /// Mirrors `yield_task_fair()` (fair.c, v5.15): become the skip buddy
    /// (SCHED_BATCH tasks are not even charged first).
    pub(crate) fn cfs_yield_task(&mut self, task: u32) {
        let se = self.tasks[task as usize].se;
        let q = self.ents[se as usize].cfs_rq;
        self.clear_buddies(q, se);
        if self.tasks[task as usize].policy != Policy::Batch {
            self.update_curr(q);
        }
        self.set_skip_buddy(se);
    }
}
