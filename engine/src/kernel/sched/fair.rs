//! The fair scheduling class: kernel/sched/fair.c's entity and task
//! operations (update_curr, place_entity, enqueue/dequeue, pick, wakeup
//! preemption, yield, reweight), one Rust function per kernel function.
//!
//! Differences between kernel versions are selected by feature flags (see
//! features.rs); each function's doc names the kernel function and the
//! versions whose behaviour it reproduces.

use crate::kernel::sched::features::Feature::*;
use crate::kernel::sched::load_avg::{DO_ATTACH, DO_DETACH, UPDATE_TG};
use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::core::{Policy, Sched};
use crate::lab::trace::{Cause, PickReason, Record, Verdict};
use crate::kernel::sched::weight::{before, calc_delta_fair, min_time, sdiff, LoadWeight};

// Enqueue flags (kernel/sched/sched.h). The kernel's bit values changed over
// releases; only their meaning matters here.
pub const ENQUEUE_WAKEUP: u32 = 1 << 0;
pub const ENQUEUE_RESTORE: u32 = 1 << 1;
pub const ENQUEUE_MOVE: u32 = 1 << 2;
pub const ENQUEUE_INITIAL: u32 = 1 << 3;
pub const ENQUEUE_MIGRATED: u32 = 1 << 4;
pub const ENQUEUE_DELAYED: u32 = 1 << 5;
// Dequeue flags.
pub const DEQUEUE_SLEEP: u32 = 1 << 0;
pub const DEQUEUE_SAVE: u32 = 1 << 1;
pub const DEQUEUE_MOVE: u32 = 1 << 2;
pub const DEQUEUE_SPECIAL: u32 = 1 << 3;
pub const DEQUEUE_DELAYED: u32 = 1 << 4;
/// The task is being moved by the balancer (`TASK_ON_RQ_MIGRATING`): its
/// averages are detached from the queue.
pub const DEQUEUE_MIGRATING: u32 = 1 << 5;
// Wake flags.
pub const WF_FORK: u32 = 1 << 2;
pub const WF_TTWU: u32 = 1 << 3;
pub const WF_SYNC: u32 = 1 << 4;

impl Sched {
    /// Mirrors `update_deadline()` (fair.c, v6.12–v6.18; v6.6 also rescheds
    /// here, which `update_curr()` reproduces): once vruntime reaches the
    /// deadline the request is used up; a new one of `slice` starts at the
    /// *current* vruntime. Returns true when the deadline moved.
    pub(crate) fn update_deadline(&mut self, se: u32) -> bool {
        let base = self.tun.base_slice;
        let e = &mut self.ents[se as usize];
        if before(e.vruntime, e.deadline) {
            return false;
        }
        if !e.custom_slice {
            e.slice = base;
        }
        e.deadline = e.vruntime.wrapping_add(calc_delta_fair(e.slice, &e.load));
        true
    }

    /// Mirrors `update_curr()` (fair.c): charge the running entity for the
    /// time since `exec_start`, advance its vruntime by the weighted delta,
    /// renew its deadline when the request is used up, and ask for a
    /// reschedule:
    /// - v6.6–v6.11: when the deadline was renewed and others are queued;
    /// - v6.12–v6.16: the same, or when a shorter-slice wakeup cancelled the
    ///   protection and curr is no longer eligible (`did_preempt_short()`);
    /// - v6.17+ (VPROT): when the deadline was renewed or protection lapsed.
    pub(crate) fn update_curr(&mut self, q: u32) {
        let curr = self.cfs_rqs[q as usize].curr;
        if curr == NIL {
            return;
        }
        let now = self.now;
        let e = &mut self.ents[curr as usize];
        let delta = sdiff(now, e.exec_start);
        if delta <= 0 {
            return;
        }
        e.exec_start = now;
        e.sum_exec_runtime += delta as u64;
        e.vruntime = e.vruntime.wrapping_add(calc_delta_fair(delta as u64, &e.load));
        if !self.feat.has(EEVDF) {
            // CFS decides at the tick (check_preempt_tick()), not here.
            self.update_min_vruntime(q);
            return;
        }
        let renewed = self.update_deadline(curr);
        self.update_min_vruntime(q);

        // The EEVDF RFC (TICK_PICK_PREEMPT) reschedules only at the tick.
        if self.cfs_rqs[q as usize].nr_queued == 1 || self.feat.has(TICK_PICK_PREEMPT) {
            return;
        }
        let cause = if renewed {
            Some(Cause::SliceExpired)
        } else if self.feat.has(VPROT) {
            (!self.protect_slice(curr)).then_some(Cause::ProtectLapsed)
        } else {
            self.did_preempt_short(q, curr).then_some(Cause::ShortPreempted)
        };
        if let Some(cause) = cause {
            let cpu = self.cfs_rqs[q as usize].cpu;
            self.resched_curr(cpu, cause);
            self.clear_buddies(q, curr);
        }
    }

    /// Mirrors `did_preempt_short()` (fair.c, v6.12–v6.16): protection was
    /// cancelled by a shorter-slice wakeup (`vlag != deadline`) and curr is no
    /// longer eligible.
    fn did_preempt_short(&self, q: u32, curr: u32) -> bool {
        if !self.feat.has(PREEMPT_SHORT) {
            return false;
        }
        let e = &self.ents[curr as usize];
        if e.vlag as u64 == e.deadline {
            return false;
        }
        !self.entity_eligible(q, curr)
    }

    /// Mirrors `do_preempt_short()` (fair.c, v6.12–v6.16): the wakee has a
    /// shorter slice, is eligible, and either has the earlier deadline or
    /// curr is not eligible.
    fn do_preempt_short(&self, q: u32, pse: u32, se: u32) -> bool {
        if !self.feat.has(PREEMPT_SHORT) {
            return false;
        }
        if self.ents[pse as usize].slice >= self.ents[se as usize].slice {
            return false;
        }
        if !self.entity_eligible(q, pse) {
            return false;
        }
        before(self.ents[pse as usize].deadline, self.ents[se as usize].deadline) || !self.entity_eligible(q, se)
    }

    /// Mirrors `set_protect_slice()` (fair.c, v6.17+): protect the running
    /// entity up to `vprot`, its deadline, lowered to `vruntime + the
    /// shortest queued slice` (RUN_TO_PARITY) or `+ the normalized base
    /// slice` (NO_RUN_TO_PARITY) when that is shorter than its own slice.
    fn set_protect_slice(&mut self, q: u32, se: u32) {
        let mut slice = self.tun.base_slice_normalized;
        if self.feat.has(RUN_TO_PARITY) {
            slice = self.cfs_rq_min_slice(q);
        }
        let e = &self.ents[se as usize];
        slice = slice.min(e.slice);
        let mut vprot = e.deadline;
        if slice != e.slice {
            vprot = min_time(vprot, e.vruntime.wrapping_add(calc_delta_fair(slice, &e.load)));
        }
        self.ents[se as usize].set_vprot(vprot);
    }

    /// Mirrors `update_protect_slice()` (fair.c, v6.17+): a shorter-slice
    /// wakeup can only shorten the protection.
    fn update_protect_slice(&mut self, q: u32, se: u32) {
        let slice = self.cfs_rq_min_slice(q);
        let e = &self.ents[se as usize];
        let vprot = min_time(e.vprot(), e.vruntime.wrapping_add(calc_delta_fair(slice, &e.load)));
        self.ents[se as usize].set_vprot(vprot);
    }

    /// Mirrors `protect_slice()` (fair.c, v6.17+).
    #[inline]
    pub(crate) fn protect_slice(&self, se: u32) -> bool {
        let e = &self.ents[se as usize];
        sdiff(e.vprot(), e.vruntime) > 0
    }

    /// Mirrors `cancel_protect_slice()` (fair.c, v6.17+).
    fn cancel_protect_slice(&mut self, se: u32) {
        if self.protect_slice(se) {
            let v = self.ents[se as usize].vruntime;
            self.ents[se as usize].set_vprot(v);
        }
    }

    /// Is the running entity still protected from preemption?
    /// v6.17+: `protect_slice()`; v6.6–v6.16: RUN_TO_PARITY and the deadline
    /// stashed in vlag at pick time has not moved.
    pub(crate) fn curr_protected(&self, se: u32) -> bool {
        if self.feat.has(VPROT) {
            self.protect_slice(se)
        } else {
            let e = &self.ents[se as usize];
            self.feat.has(RUN_TO_PARITY) && e.vlag as u64 == e.deadline
        }
    }

    /// Mirrors `place_entity()` (fair.c, v6.18): put an entity that joins the
    /// queue at V minus the lag it left with. Joining moves V itself
    /// (V' = V − w_i·vl_i/(W + w_i)), so the stored lag is inflated by
    /// (W + w_i)/W first to make the lag measured after insertion equal the
    /// lag measured at departure. A relative deadline (PLACE_REL_DEADLINE)
    /// is made absolute again; otherwise the deadline is one request later —
    /// half a request for a new task with PLACE_DEADLINE_INITIAL.
    pub(crate) fn place_entity(&mut self, q: u32, se: u32, flags: u32) {
        let vruntime = self.avg_vruntime(q);
        let base = self.tun.base_slice;
        let e = &mut self.ents[se as usize];
        if !e.custom_slice {
            e.slice = base;
        }
        let mut vslice = calc_delta_fair(e.slice, &e.load);
        let mut lag: i64 = 0;
        let cfs = &self.cfs_rqs[q as usize];
        if self.feat.has(PLACE_LAG) && cfs.nr_queued > 0 && e.vlag != 0 {
            let mut load = cfs.avg_load;
            if cfs.curr != NIL && self.ents[cfs.curr as usize].on_rq {
                load += self.ents[cfs.curr as usize].weight() as i64;
            }
            let e = &self.ents[se as usize];
            lag = e.vlag * (load + e.weight() as i64);
            if load == 0 {
                // WARN_ON_ONCE(!load) in the kernel; divide by 1 as it does.
                load = 1;
            }
            lag /= load;
        }
        let e = &mut self.ents[se as usize];
        let old = e.vruntime;
        let placed = vruntime.wrapping_sub(lag as u64);
        e.vruntime = placed;
        // PLACE_BONUS (seed 004, EEVDF RFC): a sleeper that did not migrate
        // gets up to half a (wall-clock) slice of credit, never more than
        // its old vruntime; the deadline stays based on the lag placement.
        if self.feat.has(PLACE_BONUS) && flags & ENQUEUE_WAKEUP != 0 && flags & ENQUEUE_MIGRATED == 0 && before(old, placed) {
            let bonus = placed.wrapping_sub(e.slice / 2);
            e.vruntime = crate::kernel::sched::weight::max_time(old, bonus);
        }
        if e.rel_deadline {
            e.deadline = e.deadline.wrapping_add(e.vruntime);
            e.rel_deadline = false;
            return;
        }
        if self.feat.has(PLACE_DEADLINE_INITIAL) && flags & ENQUEUE_INITIAL != 0 {
            vslice /= 2;
        }
        e.deadline = placed.wrapping_add(vslice);
    }

    /// Mirrors `account_entity_enqueue()` (fair.c).
    pub(crate) fn account_entity_enqueue(&mut self, q: u32, se: u32) {
        let w = self.ents[se as usize].load.weight;
        let cfs = &mut self.cfs_rqs[q as usize];
        cfs.load = LoadWeight::with_weight(cfs.load.weight + w);
        cfs.nr_queued += 1;
        cfs.nr_idle += self.ents[se as usize].idle as u32;
        let task = self.ents[se as usize].task;
        if task != NIL {
            let cpu = self.cfs_rqs[q as usize].cpu;
            self.cfs_tasks_add(cpu, task);
        }
    }

    /// Mirrors `account_entity_dequeue()` (fair.c).
    fn account_entity_dequeue(&mut self, q: u32, se: u32) {
        let w = self.ents[se as usize].load.weight;
        let cfs = &mut self.cfs_rqs[q as usize];
        cfs.load = LoadWeight::with_weight(cfs.load.weight - w);
        cfs.nr_queued -= 1;
        cfs.nr_idle -= self.ents[se as usize].idle as u32;
        let task = self.ents[se as usize].task;
        if task != NIL {
            let cpu = self.cfs_rqs[q as usize].cpu;
            self.cfs_tasks_del(cpu, task);
        }
    }

    /// `list_add(&se->group_node, &rq->cfs_tasks)`: the CPU's fair tasks,
    /// most recently queued or run first (the balancer takes from the tail).
    fn cfs_tasks_add(&mut self, cpu: u32, task: u32) {
        let head = self.rqs[cpu as usize].cfs_tasks_head;
        let t = &mut self.tasks[task as usize];
        t.lru_prev = NIL;
        t.lru_next = head;
        if head != NIL {
            self.tasks[head as usize].lru_prev = task;
        } else {
            self.rqs[cpu as usize].cfs_tasks_tail = task;
        }
        self.rqs[cpu as usize].cfs_tasks_head = task;
    }

    /// `list_del_init(&se->group_node)`.
    fn cfs_tasks_del(&mut self, cpu: u32, task: u32) {
        let (prev, next) = (self.tasks[task as usize].lru_prev, self.tasks[task as usize].lru_next);
        if prev != NIL {
            self.tasks[prev as usize].lru_next = next;
        } else {
            self.rqs[cpu as usize].cfs_tasks_head = next;
        }
        if next != NIL {
            self.tasks[next as usize].lru_prev = prev;
        } else {
            self.rqs[cpu as usize].cfs_tasks_tail = prev;
        }
        let t = &mut self.tasks[task as usize];
        t.lru_prev = NIL;
        t.lru_next = NIL;
    }

    /// Mirrors `enqueue_entity()` (fair.c, v6.18). The running entity is
    /// placed before `update_curr()` ("renormalise"), every other one after.
    pub(crate) fn enqueue_entity(&mut self, q: u32, se: u32, flags: u32) {
        if !self.feat.has(EEVDF) {
            return self.cfs_enqueue_entity(q, se, flags);
        }
        let is_curr = self.cfs_rqs[q as usize].curr == se;
        if is_curr {
            self.place_entity(q, se, flags);
        }
        self.update_curr(q);
        self.update_load_avg(q, se, UPDATE_TG | DO_ATTACH);
        self.se_update_runnable(se);
        self.update_cfs_group(se);
        if !is_curr {
            self.place_entity(q, se, flags);
        }
        self.account_entity_enqueue(q, se);
        if flags & ENQUEUE_MIGRATED != 0 {
            self.ents[se as usize].exec_start = 0;
        }
        if !is_curr {
            self.__enqueue_entity(q, se);
        }
        self.ents[se as usize].on_rq = true;
    }

    /// Mirrors `enqueue_entity()` (fair.c, v5.15, CFS): a vruntime kept
    /// relative to min_vruntime while off the queue (fork, migration,
    /// save/restore — anything but a plain wakeup) is made absolute; a
    /// waking entity gets its sleeper credit (`place_entity(.., 0)`).
    fn cfs_enqueue_entity(&mut self, q: u32, se: u32, flags: u32) {
        let renorm = flags & ENQUEUE_WAKEUP == 0 || flags & ENQUEUE_MIGRATED != 0;
        let is_curr = self.cfs_rqs[q as usize].curr == se;
        let min = |s: &Sched| s.cfs_rqs[q as usize].min_vruntime;
        if renorm && is_curr {
            let m = min(self);
            self.ents[se as usize].vruntime = self.ents[se as usize].vruntime.wrapping_add(m);
        }
        self.update_curr(q);
        if renorm && !is_curr {
            let m = min(self);
            self.ents[se as usize].vruntime = self.ents[se as usize].vruntime.wrapping_add(m);
        }
        self.update_load_avg(q, se, UPDATE_TG | DO_ATTACH);
        self.se_update_runnable(se);
        self.update_cfs_group(se);
        self.account_entity_enqueue(q, se);
        if flags & ENQUEUE_WAKEUP != 0 {
            self.cfs_place_entity(q, se, false);
        }
        if flags & ENQUEUE_MIGRATED != 0 {
            self.ents[se as usize].exec_start = 0;
        }
        if !is_curr {
            self.__enqueue_entity(q, se);
        }
        self.ents[se as usize].on_rq = true;
    }

    /// Mirrors `dequeue_entity()` (fair.c, v5.15, CFS): leaving for any
    /// reason but sleep keeps the vruntime relative to min_vruntime.
    fn cfs_dequeue_entity(&mut self, q: u32, se: u32, flags: u32) -> bool {
        self.update_curr(q);
        let action = if flags & DEQUEUE_MIGRATING != 0 { UPDATE_TG | DO_DETACH } else { UPDATE_TG };
        self.update_load_avg(q, se, action);
        self.se_update_runnable(se);
        self.clear_buddies(q, se);
        if se != self.cfs_rqs[q as usize].curr {
            self.__dequeue_entity(q, se);
        }
        self.ents[se as usize].on_rq = false;
        self.account_entity_dequeue(q, se);
        if flags & DEQUEUE_SLEEP == 0 {
            let m = self.cfs_rqs[q as usize].min_vruntime;
            let e = &mut self.ents[se as usize];
            e.vruntime = e.vruntime.wrapping_sub(m);
        }
        self.update_cfs_group(se);
        if flags & (DEQUEUE_SAVE | DEQUEUE_MOVE) != DEQUEUE_SAVE {
            self.update_min_vruntime(q);
        }
        true
    }

    /// Mirrors `clear_buddies()` (fair.c, v6.18: next only; v5.15/v6.5 also
    /// last and skip): each role `se` holds on its queue is dropped up the
    /// hierarchy for as long as the ancestor holds that same role
    /// (`__clear_buddies_last/next/skip()`, one walk per role).
    pub(crate) fn clear_buddies(&mut self, q: u32, se: u32) {
        let cfs = &self.cfs_rqs[q as usize];
        let roles = [cfs.last == se, cfs.next == se, cfs.skip == se];
        for (role, held) in roles.into_iter().enumerate() {
            if !held {
                continue;
            }
            let mut s = se;
            while s != NIL {
                let c = &mut self.cfs_rqs[self.ents[s as usize].cfs_rq as usize];
                let b = match role {
                    0 => &mut c.last,
                    1 => &mut c.next,
                    _ => &mut c.skip,
                };
                if *b != s {
                    break;
                }
                *b = NIL;
                s = self.ents[s as usize].parent;
            }
        }
    }

    /// Mirrors `set_next_buddy()` (fair.c, v6.18): mark the entity and its
    /// ancestors as `next`, stopping at an idle entity.
    pub(crate) fn set_next_buddy(&mut self, se: u32) {
        let mut s = se;
        while s != NIL {
            let e = &self.ents[s as usize];
            if !e.on_rq || e.idle {
                return;
            }
            self.cfs_rqs[e.cfs_rq as usize].next = s;
            s = e.parent;
        }
    }

    /// Mirrors `set_delayed()` (fair.c, v6.12+): a delayed task no longer
    /// counts as runnable anywhere up the hierarchy.
    fn set_delayed(&mut self, se: u32) {
        self.ents[se as usize].sched_delayed = true;
        if !self.ents[se as usize].is_task() {
            return;
        }
        let mut s = se;
        while s != NIL {
            let q = self.ents[s as usize].cfs_rq;
            self.cfs_rqs[q as usize].h_nr_runnable -= 1;
            s = self.ents[s as usize].parent;
        }
    }

    /// Mirrors `clear_delayed()` (fair.c, v6.12+).
    fn clear_delayed(&mut self, se: u32) {
        self.ents[se as usize].sched_delayed = false;
        if !self.ents[se as usize].is_task() {
            return;
        }
        let mut s = se;
        while s != NIL {
            let q = self.ents[s as usize].cfs_rq;
            self.cfs_rqs[q as usize].h_nr_runnable += 1;
            s = self.ents[s as usize].parent;
        }
    }

    /// Mirrors `dequeue_entity()` (fair.c, v6.18). With DELAY_DEQUEUE a
    /// sleeping entity that is not eligible (negative lag) is not removed:
    /// it keeps competing until it would be picked, so sleeping cannot erase
    /// a debt. Returns false in that case.
    pub(crate) fn dequeue_entity(&mut self, q: u32, se: u32, flags: u32) -> bool {
        if !self.feat.has(EEVDF) {
            return self.cfs_dequeue_entity(q, se, flags);
        }
        let sleep = flags & DEQUEUE_SLEEP != 0;
        self.update_curr(q);
        self.clear_buddies(q, se);

        if flags & DEQUEUE_DELAYED == 0 {
            let delay = sleep && flags & DEQUEUE_SPECIAL == 0;
            if self.feat.has(DELAY_DEQUEUE) && delay && !self.entity_eligible(q, se) {
                self.update_load_avg(q, se, 0);
                self.set_delayed(se);
                return false;
            }
        }

        let action = if flags & DEQUEUE_MIGRATING != 0 { UPDATE_TG | DO_DETACH } else { UPDATE_TG };
        self.update_load_avg(q, se, action);
        self.se_update_runnable(se);
        self.update_entity_lag(q, se);
        if self.feat.has(PLACE_REL_DEADLINE) && !sleep {
            let e = &mut self.ents[se as usize];
            e.deadline = e.deadline.wrapping_sub(e.vruntime);
            e.rel_deadline = true;
        }
        if se != self.cfs_rqs[q as usize].curr {
            self.__dequeue_entity(q, se);
        }
        self.ents[se as usize].on_rq = false;
        self.account_entity_dequeue(q, se);
        self.update_cfs_group(se);

        // v0 may advance now that this entity no longer holds it back —
        // except for a save/restore round trip, which would be penalised.
        if flags & (DEQUEUE_SAVE | DEQUEUE_MOVE) != DEQUEUE_SAVE {
            self.update_min_vruntime(q);
        }
        if flags & DEQUEUE_DELAYED != 0 {
            self.finish_delayed_dequeue_entity(se);
        }
        true
    }

    /// Mirrors `finish_delayed_dequeue_entity()` (fair.c, v6.12+): with
    /// DELAY_ZERO a delayed entity leaves with at most zero lag.
    fn finish_delayed_dequeue_entity(&mut self, se: u32) {
        self.clear_delayed(se);
        let e = &mut self.ents[se as usize];
        if self.feat.has(DELAY_ZERO) && e.vlag > 0 {
            e.vlag = 0;
        }
    }

    /// Mirrors `requeue_delayed_entity()` (fair.c, v6.18): a delayed entity
    /// woken before it was picked stays where it is; with DELAY_ZERO, if its
    /// lag became positive meanwhile it is re-placed at V with zero lag.
    pub(crate) fn requeue_delayed_entity(&mut self, se: u32) {
        let q = self.ents[se as usize].cfs_rq;
        if self.feat.has(DELAY_ZERO) {
            self.update_entity_lag(q, se);
            if self.ents[se as usize].vlag > 0 {
                let is_curr = self.cfs_rqs[q as usize].curr == se;
                self.cfs_rqs[q as usize].nr_queued -= 1;
                if !is_curr {
                    self.__dequeue_entity(q, se);
                }
                self.ents[se as usize].vlag = 0;
                self.place_entity(q, se, 0);
                if !is_curr {
                    self.__enqueue_entity(q, se);
                }
                self.cfs_rqs[q as usize].nr_queued += 1;
            }
        }
        self.update_load_avg(q, se, 0);
        self.clear_delayed(se);
    }

    /// Mirrors `set_next_entity()` (fair.c, v6.18): take the picked entity
    /// out of the tree and make it `curr`. This is where slice protection
    /// starts: v6.17+ compute `vprot`; v6.6–v6.16 stash the deadline in
    /// `vlag` (the "HACK" RUN_TO_PARITY tests against).
    pub(crate) fn set_next_entity(&mut self, q: u32, se: u32) {
        self.clear_buddies(q, se);
        if self.ents[se as usize].on_rq {
            self.__dequeue_entity(q, se);
            self.update_load_avg(q, se, UPDATE_TG);
            if self.feat.has(VPROT) {
                self.set_protect_slice(q, se);
            } else {
                let e = &mut self.ents[se as usize];
                e.vlag = e.deadline as i64;
            }
        }
        let now = self.now;
        let e = &mut self.ents[se as usize];
        e.exec_start = now;
        e.prev_sum_exec_runtime = e.sum_exec_runtime;
        self.cfs_rqs[q as usize].curr = se;
    }

    /// Mirrors `put_prev_entity()` (fair.c, v6.18): charge the outgoing
    /// entity and, if it is still queued, put it back into the tree.
    pub(crate) fn put_prev_entity(&mut self, q: u32, prev: u32) {
        if self.ents[prev as usize].on_rq {
            self.update_curr(q);
            self.__enqueue_entity(q, prev);
            self.update_load_avg(q, prev, 0);
        }
        self.cfs_rqs[q as usize].curr = NIL;
    }

    /// Does pick_next_entity() honour `cfs_rq->next`? v6.14+: PICK_BUDDY;
    /// before, the NEXT_BUDDY flag gated both setting and honouring it.
    fn buddy_pick_enabled(&self) -> bool {
        if self.feat.has(BUDDY_UNTANGLED) {
            self.feat.has(PICK_BUDDY)
        } else {
            self.feat.has(NEXT_BUDDY)
        }
    }

    /// Mirrors `pick_next_entity()` (fair.c, v6.18): an eligible next buddy,
    /// else the EEVDF pick. A delayed entity that gets picked completes its
    /// dequeue instead of running, and NIL tells the caller to pick again.
    pub(crate) fn pick_next_entity(&mut self, cpu: u32, q: u32) -> u32 {
        if !self.feat.has(EEVDF) {
            return self.cfs_pick_next_entity(q);
        }
        let next = self.cfs_rqs[q as usize].next;
        if self.buddy_pick_enabled() && next != NIL && self.entity_eligible(q, next) {
            self.pick_trace.reset(PickReason::Buddy);
            self.stats.buddy_picks += 1;
            return next;
        }
        let se = self.pick_eevdf(q);
        if self.ents[se as usize].sched_delayed {
            let task = self.ents[se as usize].task;
            self.trace(Record::DelayedDequeue { task, cpu });
            self.dequeue_entities(cpu, se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
            return NIL;
        }
        se
    }

    /// Mirrors `enqueue_task_fair()` (fair.c, v6.18): enqueue the task's
    /// entity and every ancestor not yet queued; a delayed task is requeued
    /// in place. Group entities take the shortest slice of their queue
    /// (min_slice propagation, with custom slices, v6.12+).
    pub(crate) fn enqueue_task_fair(&mut self, cpu: u32, task: u32, flags: u32) {
        let se = self.tasks[task as usize].se;
        if !self.ents[se as usize].sched_delayed || flags & ENQUEUE_DELAYED != 0 {
            self.util_est_enqueue(cpu, se);
        }
        if flags & ENQUEUE_DELAYED != 0 {
            self.requeue_delayed_entity(se);
            return;
        }
        let mut h_nr_idle = (self.tasks[task as usize].policy == Policy::Idle) as u32;
        // A delayed task enqueued without ENQUEUE_WAKEUP (moved by the
        // balancer, or put back after a nice/slice change) stays delayed and
        // adds nothing to h_nr_runnable (v6.14+ `task_new &&
        // se->sched_delayed`; v6.12 had no such counter).
        let h_nr_runnable = !(flags & ENQUEUE_WAKEUP == 0 && self.ents[se as usize].sched_delayed) as u32;
        let mut flags = flags;
        let mut slice = 0u64;
        let mut s = se;
        while s != NIL {
            if self.ents[s as usize].on_rq {
                if self.ents[s as usize].sched_delayed {
                    self.requeue_delayed_entity(s);
                }
                break;
            }
            let q = self.ents[s as usize].cfs_rq;
            if slice != 0 {
                let e = &mut self.ents[s as usize];
                e.slice = slice;
                e.custom_slice = true;
            }
            self.enqueue_entity(q, s, flags);
            if self.feat.has(CUSTOM_SLICE) {
                slice = self.cfs_rq_min_slice(q);
            }
            let cfs = &mut self.cfs_rqs[q as usize];
            cfs.h_nr_runnable += h_nr_runnable;
            cfs.h_nr_queued += 1;
            cfs.h_nr_idle += h_nr_idle;
            if cfs.idle {
                h_nr_idle = 1;
            }
            flags = ENQUEUE_WAKEUP;
            s = self.ents[s as usize].parent;
        }
        while s != NIL {
            let q = self.ents[s as usize].cfs_rq;
            self.update_group_entity(s);
            if slice != 0 {
                self.ents[s as usize].slice = slice;
                if self.cfs_rqs[q as usize].curr != s {
                    self.nodes[s as usize].slice = slice;
                    self.cfs_rqs[q as usize].tree.update_aug(&mut self.nodes, s);
                }
                slice = self.cfs_rq_min_slice(q);
            }
            let cfs = &mut self.cfs_rqs[q as usize];
            cfs.h_nr_runnable += h_nr_runnable;
            cfs.h_nr_queued += 1;
            cfs.h_nr_idle += h_nr_idle;
            if cfs.idle {
                h_nr_idle = 1;
            }
            s = self.ents[s as usize].parent;
        }
        self.add_nr_running(cpu, 1);
    }

    /// Mirrors `dequeue_entities()` (fair.c, v6.18). Returns false when the
    /// task's own dequeue was delayed (DELAY_DEQUEUE): it stays queued and
    /// still counts in `nr_running`.
    pub(crate) fn dequeue_entities(&mut self, cpu: u32, se: u32, flags: u32) -> bool {
        let task_sleep = flags & DEQUEUE_SLEEP != 0;
        let task_delayed = flags & DEQUEUE_DELAYED != 0;
        let is_task = self.ents[se as usize].is_task();
        let task = self.ents[se as usize].task;
        let (h_nr_queued, mut h_nr_idle, h_nr_runnable) = if is_task {
            let idle = (self.tasks[task as usize].policy == Policy::Idle) as u32;
            let runnable = (task_sleep || task_delayed || !self.ents[se as usize].sched_delayed) as u32;
            (1, idle, runnable)
        } else {
            (0, 0, 0)
        };
        let mut flags = flags;
        let mut slice = 0u64;
        let mut s = se;
        while s != NIL {
            let q = self.ents[s as usize].cfs_rq;
            if !self.dequeue_entity(q, s, flags) {
                if s == se && is_task {
                    return false;
                }
                slice = self.cfs_rq_min_slice(q);
                break;
            }
            let cfs = &mut self.cfs_rqs[q as usize];
            cfs.h_nr_runnable -= h_nr_runnable;
            cfs.h_nr_queued -= h_nr_queued;
            cfs.h_nr_idle -= h_nr_idle;
            if cfs.idle {
                h_nr_idle = h_nr_queued;
            }
            if cfs.load.weight != 0 {
                slice = self.cfs_rq_min_slice(q);
                s = self.ents[s as usize].parent;
                // Bias the next pick towards this group: the task sleeps
                // within its slice ("next buddy hint on sleep").
                if task_sleep && s != NIL && self.feat.has(NEXT_BUDDY_HINT) {
                    self.set_next_buddy(s);
                }
                break;
            }
            flags |= DEQUEUE_SLEEP;
            flags &= !(DEQUEUE_DELAYED | DEQUEUE_SPECIAL);
            s = self.ents[s as usize].parent;
        }
        while s != NIL {
            let q = self.ents[s as usize].cfs_rq;
            self.update_group_entity(s);
            if self.feat.has(CUSTOM_SLICE) {
                self.ents[s as usize].slice = slice;
                if self.cfs_rqs[q as usize].curr != s {
                    self.nodes[s as usize].slice = slice;
                    self.cfs_rqs[q as usize].tree.update_aug(&mut self.nodes, s);
                }
                slice = self.cfs_rq_min_slice(q);
            }
            let cfs = &mut self.cfs_rqs[q as usize];
            cfs.h_nr_runnable -= h_nr_runnable;
            cfs.h_nr_queued -= h_nr_queued;
            cfs.h_nr_idle -= h_nr_idle;
            if cfs.idle {
                h_nr_idle = h_nr_queued;
            }
            s = self.ents[s as usize].parent;
        }
        self.sub_nr_running(cpu, h_nr_queued);
        if is_task && task_delayed {
            // __block_task(): the task is finally off the run queue.
            self.tasks[task as usize].on_rq = false;
        }
        true
    }

    /// Mirrors `dequeue_task_fair()` (fair.c, v6.18): the sleeping task's
    /// util_est is updated before the dequeue (UTIL_EST_BEFORE_DEQUEUE,
    /// v6.12+), or after it, from the util_avg the dequeue brought up to
    /// date (v5.15–v6.6.y).
    pub(crate) fn dequeue_task_fair(&mut self, cpu: u32, task: u32, flags: u32) -> bool {
        let se = self.tasks[task as usize].se;
        if !self.ents[se as usize].sched_delayed {
            self.util_est_dequeue(cpu, se);
        }
        let before = self.feat.has(UTIL_EST_BEFORE_DEQUEUE);
        if flags & DEQUEUE_SLEEP != 0 && before {
            self.util_est_update(se);
        }
        let done = self.dequeue_entities(cpu, se, flags);
        if flags & DEQUEUE_SLEEP != 0 && !before {
            self.util_est_update(se);
        }
        done
    }

    /// Mirrors `pick_task_fair()` (fair.c, v6.18): walk down from the root
    /// queue, picking one entity per level, until a task. Restarts when a
    /// delayed entity was picked (and dequeued).
    pub(crate) fn pick_task_fair(&mut self, cpu: u32) -> u32 {
        let root = self.rqs[cpu as usize].cfs;
        'again: loop {
            if self.cfs_rqs[root as usize].nr_queued == 0 {
                return NIL;
            }
            let mut q = root;
            loop {
                let curr = self.cfs_rqs[q as usize].curr;
                if curr != NIL && self.ents[curr as usize].on_rq {
                    self.update_curr(q);
                }
                let se = self.pick_next_entity(cpu, q);
                if se == NIL {
                    continue 'again;
                }
                if q == root {
                    self.note_root_pick(cpu, root, se);
                }
                let my_q = self.ents[se as usize].my_q;
                if my_q == NIL {
                    return self.ents[se as usize].task;
                }
                q = my_q;
            }
        }
    }

    /// Mirrors `pick_next_task_fair()` (fair.c, v6.18, CONFIG_FAIR_GROUP_SCHED
    /// as distributions build it): when the pick is the task already running
    /// nothing is put back or set — so its slice protection is *not*
    /// refreshed; otherwise put_prev/set_next only on the levels that differ.
    /// `prev` is NIL when the CPU was idle. Returns NIL when nothing is
    /// runnable (the caller then puts prev and goes idle).
    pub(crate) fn pick_next_task_fair(&mut self, cpu: u32, prev: u32) -> u32 {
        let mut p = self.pick_task_fair(cpu);
        // idle: sched_balance_newidle() may pull work, then pick again.
        if p == NIL && self.sched_balance_newidle(cpu) {
            p = self.pick_task_fair(cpu);
        }
        if p == NIL {
            if prev != NIL {
                self.put_prev_task_fair(prev);
            }
            return NIL;
        }
        if p != prev || !self.feat.has(CFS_TASKS_SET_NEXT) {
            // The task about to run moves to the front of cfs_tasks (most
            // recently used): v6.12+ in __set_next_task_fair(), i.e. only
            // when it is set as next; v5.15–v6.11 at the `done:` label of
            // every pick, so a running task picked again moves too.
            self.cfs_tasks_del(cpu, p);
            self.cfs_tasks_add(cpu, p);
        }
        if prev == NIL {
            self.set_next_task_fair(p);
            return p;
        }
        if prev != p {
            let mut se = self.tasks[p as usize].se;
            let mut pse = self.tasks[prev as usize].se;
            loop {
                let (sq, pq) = (self.ents[se as usize].cfs_rq, self.ents[pse as usize].cfs_rq);
                if sq == pq {
                    self.put_prev_entity(pq, pse);
                    self.set_next_entity(sq, se);
                    break;
                }
                let (sd, pd) = (self.ents[se as usize].depth, self.ents[pse as usize].depth);
                if sd <= pd {
                    self.put_prev_entity(pq, pse);
                    pse = self.ents[pse as usize].parent;
                }
                if sd >= pd {
                    self.set_next_entity(sq, se);
                    se = self.ents[se as usize].parent;
                }
            }
        }
        p
    }

    /// Mirrors `put_prev_task_fair()` (fair.c, v6.18).
    pub(crate) fn put_prev_task_fair(&mut self, prev: u32) {
        let mut se = self.tasks[prev as usize].se;
        while se != NIL {
            let q = self.ents[se as usize].cfs_rq;
            self.put_prev_entity(q, se);
            se = self.ents[se as usize].parent;
        }
    }

    /// Mirrors `set_next_task_fair()` (fair.c, v6.18).
    pub(crate) fn set_next_task_fair(&mut self, p: u32) {
        let mut se = self.tasks[p as usize].se;
        while se != NIL {
            let q = self.ents[se as usize].cfs_rq;
            self.set_next_entity(q, se);
            se = self.ents[se as usize].parent;
        }
    }

    pub(crate) fn find_matching_se_pub(&self, se: u32, pse: u32) -> (u32, u32) {
        self.find_matching_se(se, pse)
    }

    /// Mirrors `find_matching_se()` (fair.c, every version): walk both
    /// entities up until they are siblings on one cfs_rq. Two tasks of one
    /// CPU always meet at its root cfs_rq at the latest; the kernel walks
    /// on regardless, and so would this past the root (NIL) if a caller
    /// ever passed entities of two CPUs: it stops at the roots instead.
    fn find_matching_se(&self, mut se: u32, mut pse: u32) -> (u32, u32) {
        let (mut sd, mut pd) = (self.ents[se as usize].depth, self.ents[pse as usize].depth);
        while sd > pd {
            se = self.ents[se as usize].parent;
            sd -= 1;
        }
        while pd > sd {
            pse = self.ents[pse as usize].parent;
            pd -= 1;
        }
        while self.ents[se as usize].cfs_rq != self.ents[pse as usize].cfs_rq {
            let (up, pup) = (self.ents[se as usize].parent, self.ents[pse as usize].parent);
            if up == NIL || pup == NIL {
                break;
            }
            (se, pse) = (up, pup);
        }
        (se, pse)
    }

    /// Mirrors `check_preempt_wakeup_fair()` (fair.c, v6.18; v6.12 with
    /// PREEMPT_SHORT's vlag form when VPROT is off) and, without
    /// IDLE_STRICT_HIERARCHY, v6.6.9's `check_preempt_wakeup()`, which
    /// tests the running *task's* SCHED_IDLE policy and the wakee's policy
    /// before matching the hierarchy: does the woken task `p` preempt the
    /// running one? It does when it becomes the EEVDF pick; BATCH/IDLE
    /// wakees never do; a non-idle wakee always preempts an idle entity.
    pub(crate) fn check_preempt_wakeup_fair(&mut self, cpu: u32, p: u32, wake_flags: u32) {
        let curr_task = self.rqs[cpu as usize].curr;
        let se = self.tasks[curr_task as usize].se;
        let pse = self.tasks[p as usize].se;
        if se == pse {
            return;
        }
        let verdict = if self.feat.has(EEVDF) {
            if self.feat.has(NEXT_BUDDY) && wake_flags & WF_FORK == 0 && !self.ents[pse as usize].sched_delayed {
                self.set_next_buddy(pse);
            }
            self.wakeup_verdict(cpu, se, pse, p)
        } else {
            self.cfs_wakeup_verdict(cpu, se, pse, p, wake_flags)
        };
        self.trace(Record::WakeupCheck { cpu, curr: curr_task, wakee: p, verdict });
    }

    fn wakeup_verdict(&mut self, cpu: u32, se: u32, pse: u32, p: u32) -> Verdict {
        if self.rqs[cpu as usize].resched {
            return Verdict::AlreadyPending;
        }
        let strict = self.feat.has(IDLE_STRICT_HIERARCHY);
        let curr = self.rqs[cpu as usize].curr;
        if !strict {
            // v6.6.9's order (check_preempt_wakeup()): a SCHED_IDLE curr task
            // is preempted by any non-idle wakee, before anything else is
            // looked at; then BATCH/IDLE wakees and NO_WAKEUP_PREEMPTION
            // return, before the group rule.
            let (curr_idle, p_idle) = (self.tasks[curr as usize].policy == Policy::Idle, self.tasks[p as usize].policy == Policy::Idle);
            if curr_idle && !p_idle {
                self.resched_curr(cpu, Cause::IdlePreempted { wakee: p });
                return Verdict::Preempt;
            }
            if self.tasks[p as usize].policy != Policy::Normal {
                return Verdict::WakeePolicy;
            }
        }
        if !self.feat.has(WAKEUP_PREEMPTION) {
            return Verdict::Disabled;
        }
        let (se, pse) = self.find_matching_se(se, pse);
        let (cse_idle, pse_idle) = (self.ents[se as usize].idle, self.ents[pse as usize].idle);
        if cse_idle && !pse_idle {
            if self.feat.has(VPROT) {
                self.cancel_protect_slice(se);
            }
            self.resched_curr(cpu, Cause::IdlePreempted { wakee: p });
            return Verdict::Preempt;
        }
        if cse_idle != pse_idle {
            return Verdict::WakeeIdle;
        }
        if strict && self.tasks[p as usize].policy != Policy::Normal {
            return Verdict::WakeePolicy;
        }
        if self.feat.has(NO_SAME_PRIO_PREEMPT) && self.tasks[p as usize].nice == self.tasks[curr as usize].nice {
            return Verdict::SamePrio;
        }
        if self.feat.has(PREEMPT_HINT) && !self.tasks[curr as usize].want_preempt {
            return Verdict::NoHint;
        }
        let q = self.ents[se as usize].cfs_rq;
        self.update_curr(q);
        let preempt = if self.feat.has(VPROT) {
            let short = self.feat.has(PREEMPT_SHORT) && self.ents[pse as usize].slice < self.ents[se as usize].slice;
            let picked = self.__pick_eevdf(q, !short) == pse;
            if picked && short {
                self.cancel_protect_slice(se);
            } else if !picked && short && self.feat.has(RUN_TO_PARITY) {
                self.update_protect_slice(q, se);
            }
            picked
        } else {
            if self.do_preempt_short(q, pse, se) && self.ents[se as usize].vlag as u64 == self.ents[se as usize].deadline {
                let e = &mut self.ents[se as usize];
                e.vlag = e.deadline.wrapping_add(1) as i64;
            }
            self.__pick_eevdf(q, true) == pse
        };
        if !preempt {
            return Verdict::NotPicked;
        }
        self.resched_curr(cpu, Cause::WakeupPreempt { wakee: p });
        Verdict::Preempt
    }

    /// Mirrors `yield_task_fair()` (fair.c): give up the rest of the current
    /// request. v6.6–v6.18.0 push the deadline out by one slice; with
    /// YIELD_FORFEIT (v6.19, 6.18.y) an eligible yielder's vruntime jumps to
    /// its deadline (it gives up its positive lag too).
    pub(crate) fn yield_task_fair(&mut self, cpu: u32, task: u32) {
        if self.rqs[cpu as usize].nr_running == 1 {
            return;
        }
        if !self.feat.has(EEVDF) {
            return self.cfs_yield_task(task);
        }
        let se = self.tasks[task as usize].se;
        let q = self.ents[se as usize].cfs_rq;
        self.clear_buddies(q, se);
        self.update_curr(q);
        if self.feat.has(YIELD_FORFEIT) {
            if self.entity_eligible(q, se) {
                let e = &mut self.ents[se as usize];
                e.vruntime = e.deadline;
                e.deadline = e.deadline.wrapping_add(calc_delta_fair(e.slice, &e.load));
                self.update_min_vruntime(q);
            }
        } else {
            let e = &mut self.ents[se as usize];
            e.deadline = e.deadline.wrapping_add(calc_delta_fair(e.slice, &e.load));
        }
    }

    /// Mirrors `task_tick_fair()` → `entity_tick()` (fair.c, v6.18): charge
    /// the running entity at every level; the resched decision is
    /// update_curr()'s (EEVDF has no check_preempt_tick()).
    pub(crate) fn task_tick_fair(&mut self, task: u32) {
        let mut se = self.tasks[task as usize].se;
        while se != NIL {
            let q = self.ents[se as usize].cfs_rq;
            self.update_curr(q);
            self.update_load_avg(q, se, UPDATE_TG);
            self.update_cfs_group(se);
            if self.cfs_rqs[q as usize].nr_queued > 1 {
                if !self.feat.has(EEVDF) {
                    self.check_preempt_tick(q, se);
                } else if self.feat.has(TICK_PICK_PREEMPT) {
                    self.check_preempt_tick_pick(q, se);
                }
            }
            se = self.ents[se as usize].parent;
        }
    }

    /// Mirrors `check_preempt_tick()` of the EEVDF RFC (fair.c of the
    /// sched/eevdf branch, March–April 2023, "sched/fair: Commit to
    /// EEVDF"): `if (pick_eevdf(cfs_rq) != curr) { resched_curr();
    /// clear_buddies(); }`. Without RUN_TO_PARITY (which came later) the
    /// pick drops a running entity that is no longer eligible, so a task
    /// that has run past V gives way at the next tick, before its request
    /// is used up.
    fn check_preempt_tick_pick(&mut self, q: u32, curr: u32) {
        if self.__pick_eevdf(q, true) != curr {
            let cpu = self.cfs_rqs[q as usize].cpu;
            self.resched_curr(cpu, Cause::TickPick);
            self.clear_buddies(q, curr);
        }
    }

    /// Mirrors `reweight_entity()` (fair.c) in the version the flags select:
    /// - REWEIGHT_PLACE (v6.13+): update_entity_lag(), make the deadline
    ///   relative, scale lag and relative deadline by w/w', place_entity().
    /// - REWEIGHT_EEVDF (v6.7–v6.12, `reweight_eevdf()`): keep the lag
    ///   w·(V − v) and scale the virtual deadline around V:
    ///   v' = V − (V − v)·w/w', d' = V + (d − V)·w/w'. With REWEIGHT_V_FIX
    ///   (v6.9) V is taken before a non-running entity leaves the sums and
    ///   the lag is clamped; without it (the patch as merged) V is taken
    ///   after removal.
    /// - neither (v6.6.0): vruntime is kept and only the relative deadline
    ///   is scaled, so the entity's lag changes by the weight ratio.
    ///
    /// A dequeued entity only has its stored lag scaled (lag_i = w_i·vlag_i
    /// must not change with w_i). `lw` carries the inverse weight: a task
    /// gets the table's (`reweight_task_fair()`), a group entity a computed
    /// one (`update_load_set()`).
    ///
    /// A queued group entity's reweight is logged (`Record::Reweight`) with
    /// its lag on both sides, which is what the fix is about. The lag
    /// before is read after the update_curr() every variant starts with
    /// (for the running entity, or for all with REWEIGHT_V_FIX /
    /// REWEIGHT_PLACE), so both sides see the same clock; a second
    /// update_curr() at the same instant does nothing.
    pub fn reweight_entity(&mut self, q: u32, se: u32, lw: LoadWeight) {
        let e = &self.ents[se as usize];
        let logged = self.feat.has(EEVDF) && e.on_rq && e.my_q != NIL;
        let before = if logged {
            let is_curr = self.cfs_rqs[q as usize].curr == se;
            let v_fix = self.feat.has(REWEIGHT_EEVDF) && self.feat.has(REWEIGHT_V_FIX);
            if is_curr || v_fix || self.feat.has(REWEIGHT_PLACE) {
                self.update_curr(q);
            }
            Some((self.ents[se as usize].load.weight, self.service_lag(q, se)))
        } else {
            None
        };
        if self.feat.has(REWEIGHT_PLACE) {
            self.reweight_entity_place(q, se, lw);
        } else if !self.feat.has(REWEIGHT_EEVDF) && !self.feat.has(DEADLINE_TREE) {
            self.reweight_entity_v66(q, se, lw);
        } else {
            self.reweight_entity_eevdf(q, se, lw);
        }
        if let Some((old, lag_before)) = before {
            let e = &self.ents[se as usize];
            let r = Record::Reweight {
                cpu: self.cfs_rqs[q as usize].cpu,
                group: e.tg,
                old: old as u32,
                new: e.load.weight as u32,
                lag_before,
                lag_after: self.service_lag(q, se),
            };
            self.trace(r);
        }
    }

    /// An entity's lag in ns of nice-0 service: w·(V − v) with w relative
    /// to nice 0 (the kernel's lag_i, scaled down by 1024).
    pub fn service_lag(&self, q: u32, se: u32) -> i64 {
        let e = &self.ents[se as usize];
        service_lag(sdiff(self.avg_vruntime(q), e.vruntime), e.weight())
    }

    /// `reweight_entity()` of v6.13+ (6d71a9c61604).
    fn reweight_entity_place(&mut self, q: u32, se: u32, lw: LoadWeight) {
        let weight = lw.weight;
        let is_curr = self.cfs_rqs[q as usize].curr == se;
        let on_rq = self.ents[se as usize].on_rq;
        if on_rq {
            self.update_curr(q);
            self.update_entity_lag(q, se);
            let e = &mut self.ents[se as usize];
            e.deadline = e.deadline.wrapping_sub(e.vruntime);
            e.rel_deadline = true;
            self.cfs_rqs[q as usize].nr_queued -= 1;
            if !is_curr {
                self.__dequeue_entity(q, se);
            }
            let w = self.ents[se as usize].load.weight;
            let cfs = &mut self.cfs_rqs[q as usize];
            cfs.load = LoadWeight::with_weight(cfs.load.weight - w);
        }
        let e = &mut self.ents[se as usize];
        let old = e.load.weight as i64;
        e.vlag = scale_s64(e.vlag, old, weight as i64);
        if e.rel_deadline {
            e.deadline = scale_s64(e.deadline as i64, old, weight as i64) as u64;
        }
        self.reweight_load_avg(q, se, lw);
        if on_rq {
            self.place_entity(q, se, 0);
            let cfs = &mut self.cfs_rqs[q as usize];
            cfs.load = LoadWeight::with_weight(cfs.load.weight + weight);
            if !is_curr {
                self.__enqueue_entity(q, se);
            }
            self.cfs_rqs[q as usize].nr_queued += 1;
            self.update_min_vruntime(q);
        }
    }

    /// `reweight_entity()` of v6.6.0 (before eab03c23c2a1) — and of CFS,
    /// which only moves the weight — adjusting a queued entity in place: its key in the vruntime-sorted tree does not
    /// change, only its weight in the sums and its deadline (the augmented
    /// min_deadline is propagated).
    fn reweight_entity_v66(&mut self, q: u32, se: u32, lw: LoadWeight) {
        let is_curr = self.cfs_rqs[q as usize].curr == se;
        let on_rq = self.ents[se as usize].on_rq;
        if on_rq {
            if is_curr {
                self.update_curr(q);
            } else {
                self.avg_vruntime_sub(q, se);
            }
            let w = self.ents[se as usize].load.weight;
            let cfs = &mut self.cfs_rqs[q as usize];
            cfs.load = LoadWeight::with_weight(cfs.load.weight - w);
        }
        let old = self.ents[se as usize].load.weight as i64;
        let new = lw.weight as i64;
        let eevdf = self.feat.has(EEVDF);
        let e = &mut self.ents[se as usize];
        if !eevdf {
            // CFS (v5.15) only moves the weight; there is no lag or deadline.
        } else if !on_rq {
            e.vlag = scale_s64(e.vlag, old, new);
        } else {
            // "When the weight changes, the virtual time slope changes and we
            // should adjust the relative virtual deadline accordingly."
            let rel = scale_s64(sdiff(e.deadline, e.vruntime), old, new);
            e.deadline = e.vruntime.wrapping_add(rel as u64);
        }
        self.reweight_load_avg(q, se, lw);
        if on_rq {
            let cfs = &mut self.cfs_rqs[q as usize];
            cfs.load = LoadWeight::with_weight(cfs.load.weight + lw.weight);
            if !is_curr {
                self.avg_vruntime_add(q, se);
                self.nodes[se as usize].val = self.ents[se as usize].deadline;
                self.cfs_rqs[q as usize].tree.update_aug(&mut self.nodes, se);
            }
        }
    }

    /// `reweight_entity()` of v6.7 – v6.12 (see [`Sched::reweight_entity`]);
    /// also used when the deadline-sorted tree is combined with the v6.6.0
    /// rescaling, which then needs a real dequeue to re-sort.
    fn reweight_entity_eevdf(&mut self, q: u32, se: u32, lw: LoadWeight) {
        let weight = lw.weight;
        let is_curr = self.cfs_rqs[q as usize].curr == se;
        let on_rq = self.ents[se as usize].on_rq;
        let v_fix = self.feat.has(REWEIGHT_EEVDF) && self.feat.has(REWEIGHT_V_FIX);
        let mut avruntime = 0;
        if on_rq {
            if is_curr || v_fix {
                self.update_curr(q);
            }
            if v_fix {
                avruntime = self.avg_vruntime(q);
            }
            if !is_curr {
                self.__dequeue_entity(q, se);
            }
            let w = self.ents[se as usize].load.weight;
            let cfs = &mut self.cfs_rqs[q as usize];
            cfs.load = LoadWeight::with_weight(cfs.load.weight - w);
        }
        let old = self.ents[se as usize].load.weight as i64;
        let new = weight as i64;
        if !on_rq {
            let e = &mut self.ents[se as usize];
            e.vlag = scale_s64(e.vlag, old, new);
        } else if self.feat.has(REWEIGHT_EEVDF) {
            if !v_fix {
                avruntime = self.avg_vruntime(q);
            }
            let mut vlag = sdiff(avruntime, self.ents[se as usize].vruntime);
            if v_fix {
                let limit = self.lag_limit(se);
                vlag = vlag.clamp(-limit, limit);
            }
            let e = &mut self.ents[se as usize];
            if vlag != 0 {
                e.vruntime = avruntime.wrapping_sub(scale_s64(vlag, old, new) as u64);
            }
            let vslice = scale_s64(sdiff(e.deadline, avruntime), old, new);
            e.deadline = avruntime.wrapping_add(vslice as u64);
        } else {
            let e = &mut self.ents[se as usize];
            let rel = scale_s64(sdiff(e.deadline, e.vruntime), old, new);
            e.deadline = e.vruntime.wrapping_add(rel as u64);
        }
        self.reweight_load_avg(q, se, lw);
        if on_rq {
            let cfs = &mut self.cfs_rqs[q as usize];
            cfs.load = LoadWeight::with_weight(cfs.load.weight + weight);
            if !is_curr {
                self.__enqueue_entity(q, se);
            }
            // update_min_vruntime() at the end, "since the calculations
            // above require stable min_vruntime": v6.6.9 (the fix as
            // backported) only for an entity that went back into the tree;
            // v6.8+ ("Update min_vruntime for reweight_entity() correctly",
            // folded into REWEIGHT_V_FIX here: no preset sits between) for
            // the running one too; v6.6.0 not at all.
            if self.feat.has(REWEIGHT_EEVDF) && (!is_curr || v_fix) {
                self.update_min_vruntime(q);
            }
        }
    }
}

/// Lag in ns of nice-0 service from virtual lag `vlag` = V − v and a
/// scale_load_down() weight: w·vlag / 1024.
pub fn service_lag(vlag: i64, weight: u64) -> i64 {
    ((vlag as i128 * weight as i128) / 1024) as i64
}

/// `div_s64(a * old, new)` of reweight_entity() and reweight_eevdf()
/// (fair.c, v6.6–v6.18) as the kernel computes it: the s64 product wraps
/// (the kernel builds with -fno-strict-overflow), then truncating division.
/// It only wraps for values no queue reaches (a deadline left stale by a
/// CFS kernel and rescaled by a patch for EEVDF), where Rust's checked
/// arithmetic panicked.
fn scale_s64(a: i64, old: i64, new: i64) -> i64 {
    a.wrapping_mul(old) / new
}
