//! `struct cfs_rq` and the virtual-time bookkeeping of one fair run queue:
//! the zero-lag point V, eligibility and lag.
//!
//! Lag is what an entity is owed: lag_i = S - s_i = w_i·(V - v_i), with S the
//! service an ideal fluid scheduler would have given it. Fairness conserves
//! lag (Σ lag_i = 0), so Σ w_i·(V - v_i) = 0 and
//!
//! ```text
//!     V = Σ w_i·v_i / Σ w_i = Σ w_i·(v_i - v0) / W + v0
//! ```
//!
//! Storing `v_i - v0` against an offset v0 keeps the products small (the
//! differences are of the order of the largest lag). The queue keeps
//! `avg_vruntime = Σ (v_i - v0)·w_i` and `avg_load = Σ w_i` over the entities
//! in the tree; the running entity (`curr`, kept out of the tree as the kernel
//! does) is added on the fly. v0 is `min_vruntime` (monotonic, v6.6–v6.18) or
//! `zero_vruntime` (re-based to V at every enqueue and dequeue, v6.19).

use crate::kernel::sched::features::Feature;
use crate::kernel::lib::rbtree::{RbRoot, NIL};
use crate::kernel::sched::core::Sched;
use crate::kernel::sched::weight::{before, min_time, sdiff, LoadWeight};

/// `vruntime_eligible()` with the queue's sums taken once.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Eligibility {
    avg: i64,
    load: i64,
    v0: u64,
}

impl Eligibility {
    #[inline]
    pub(crate) fn eligible(&self, vruntime: u64) -> bool {
        self.avg >= sdiff(vruntime, self.v0) * self.load
    }
}

/// Mirrors `struct cfs_rq` (kernel/sched/sched.h, v6.18).
#[derive(Clone, Debug)]
pub struct CfsRq {
    /// Σ weight of queued entities, curr included (`cfs_rq->load`).
    pub load: LoadWeight,
    /// Queued entities on this queue, curr included (`nr_queued`, named
    /// `nr_running` before v6.14).
    pub nr_queued: u32,
    /// Tasks queued in this hierarchy (`h_nr_queued`), runnable ones (not
    /// delayed, `h_nr_runnable`) and SCHED_IDLE ones (`h_nr_idle`).
    pub h_nr_queued: u32,
    pub h_nr_runnable: u32,
    pub h_nr_idle: u32,
    /// Idle entities (SCHED_IDLE tasks, idle groups) queued directly on
    /// this queue (`idle_nr_running`, v5.16–v6.5; CFS's sched_idle_cfs_rq()).
    pub nr_idle: u32,
    /// Σ (v_i - v0)·w_i over the tree.
    pub avg_vruntime: i64,
    /// Σ w_i over the tree.
    pub avg_load: i64,
    /// v0: `min_vruntime`, or `zero_vruntime` with ZERO_VRUNTIME.
    pub min_vruntime: u64,
    pub tree: RbRoot,
    /// The running entity of this queue (not in the tree), or NIL.
    pub curr: u32,
    /// The next buddy, or NIL.
    pub next: u32,
    /// CFS only: the last and skip buddies, or NIL.
    pub last: u32,
    pub skip: u32,
    pub cpu: u32,
    /// The group entity that owns this queue (NIL for the root queue).
    pub owner: u32,
    /// PELT averages of the queue (`cfs_rq->avg`).
    pub avg: crate::kernel::sched::pelt::SchedAvg,
    /// Averages of tasks that left while asleep, not yet subtracted.
    pub removed: crate::kernel::sched::load_avg::Removed,
    /// The task group this queue belongs to (NIL: root).
    pub tg: u32,
    /// The group is `cpu.idle` (`cfs_rq_is_idle()`).
    pub idle: bool,
    /// What this queue last added to `tg->load_avg`, and when.
    pub tg_load_avg_contrib: i64,
    pub last_update_tg_load_avg: u64,
}

impl CfsRq {
    /// Mirrors `init_cfs_rq()` (fair.c): v0 starts at -(1 << 20) so that
    /// wrap-around bugs show early. `exact_min_slice` is the EXACT_MIN_SLICE
    /// flag: how the tree keeps `min_slice` through rotations.
    pub fn new(cpu: u32, owner: u32, exact_min_slice: bool) -> CfsRq {
        let mut tree = RbRoot::default();
        tree.set_exact_min_slice(exact_min_slice);
        CfsRq {
            load: LoadWeight::default(),
            nr_queued: 0,
            h_nr_queued: 0,
            h_nr_runnable: 0,
            h_nr_idle: 0,
            nr_idle: 0,
            avg_vruntime: 0,
            avg_load: 0,
            min_vruntime: (-(1i64 << 20)) as u64,
            tree,
            curr: NIL,
            next: NIL,
            last: NIL,
            skip: NIL,
            cpu,
            owner,
            avg: Default::default(),
            removed: Default::default(),
            tg: NIL,
            idle: false,
            tg_load_avg_contrib: 0,
            last_update_tg_load_avg: 0,
        }
    }
}

impl Sched {
    /// Mirrors `entity_key()` (fair.c, v6.18): the entity's vruntime relative
    /// to v0.
    #[inline]
    pub(crate) fn entity_key(&self, q: u32, se: u32) -> i64 {
        sdiff(self.ents[se as usize].vruntime, self.cfs_rqs[q as usize].min_vruntime)
    }

    /// Mirrors `avg_vruntime_add()` (fair.c, v6.18).
    #[inline]
    pub(crate) fn avg_vruntime_add(&mut self, q: u32, se: u32) {
        let w = self.ents[se as usize].weight() as i64;
        let key = self.entity_key(q, se);
        let cfs = &mut self.cfs_rqs[q as usize];
        cfs.avg_vruntime += key * w;
        cfs.avg_load += w;
    }

    /// Mirrors `avg_vruntime_sub()` (fair.c, v6.18).
    #[inline]
    pub(crate) fn avg_vruntime_sub(&mut self, q: u32, se: u32) {
        let w = self.ents[se as usize].weight() as i64;
        let key = self.entity_key(q, se);
        let cfs = &mut self.cfs_rqs[q as usize];
        cfs.avg_vruntime -= key * w;
        cfs.avg_load -= w;
    }

    /// The two sums with the running entity added, as `avg_vruntime()` and
    /// `vruntime_eligible()` both compute them.
    #[inline]
    fn sums_with_curr(&self, q: u32) -> (i64, i64) {
        let cfs = &self.cfs_rqs[q as usize];
        let (mut avg, mut load) = (cfs.avg_vruntime, cfs.avg_load);
        if cfs.curr != NIL && self.ents[cfs.curr as usize].on_rq {
            let w = self.ents[cfs.curr as usize].weight() as i64;
            avg += self.entity_key(q, cfs.curr) * w;
            load += w;
        }
        (avg, load)
    }

    /// Mirrors `avg_vruntime()` (fair.c, v6.18): V, rounded towards minus
    /// infinity ("left bias") so that an entity at exactly V is eligible.
    pub fn avg_vruntime(&self, q: u32) -> u64 {
        let (mut avg, load) = self.sums_with_curr(q);
        if load != 0 {
            if avg < 0 {
                avg -= load - 1;
            }
            avg /= load;
        }
        self.cfs_rqs[q as usize].min_vruntime.wrapping_add(avg as u64)
    }

    /// The eligibility test of one queue with its sums computed once, for
    /// callers that test many entities against an unchanging queue (the
    /// pick). Same arithmetic as `vruntime_eligible()`.
    #[inline]
    pub(crate) fn eligibility(&self, q: u32) -> Eligibility {
        let (avg, load) = self.sums_with_curr(q);
        Eligibility { avg, load, v0: self.cfs_rqs[q as usize].min_vruntime }
    }

    /// Mirrors `vruntime_eligible()` (fair.c, v6.8+; open-coded in
    /// `entity_eligible()` in v6.6): v ≤ V, tested as
    /// `Σ (v_i - v0)·w_i ≥ (v - v0)·Σ w_i` so that no division rounds.
    #[inline]
    pub fn vruntime_eligible(&self, q: u32, vruntime: u64) -> bool {
        let (avg, load) = self.sums_with_curr(q);
        avg >= sdiff(vruntime, self.cfs_rqs[q as usize].min_vruntime) * load
    }

    /// Mirrors `entity_eligible()` (fair.c, v6.18).
    #[inline]
    pub fn entity_eligible(&self, q: u32, se: u32) -> bool {
        self.vruntime_eligible(q, self.ents[se as usize].vruntime)
    }

    /// Mirrors `__update_min_vruntime()` + `avg_vruntime_update()` (fair.c,
    /// v6.18): moving v0 forward by d shifts every key down by d, so the
    /// weighted sum drops by d·Σw.
    fn advance_min_vruntime(&mut self, q: u32, vruntime: u64) {
        let cfs = &mut self.cfs_rqs[q as usize];
        let delta = sdiff(vruntime, cfs.min_vruntime);
        if delta > 0 {
            cfs.avg_vruntime -= cfs.avg_load * delta;
            cfs.min_vruntime = vruntime;
        }
    }

    /// The smallest vruntime in the tree: the leftmost entity when the tree
    /// is sorted by vruntime (v6.6), the root's augmented `min_vruntime` when
    /// it is sorted by deadline (v6.8+).
    fn tree_min_vruntime(&self, q: u32) -> Option<u64> {
        let tree = &self.cfs_rqs[q as usize].tree;
        if self.feat.has(Feature::DEADLINE_TREE) {
            let root = tree.root();
            (root != NIL).then(|| self.nodes[root as usize].min_val)
        } else {
            let first = tree.first();
            (first != NIL).then(|| self.ents[first as usize].vruntime)
        }
    }

    /// Mirrors `update_min_vruntime()` (fair.c, v6.6–v6.18): v0 follows the
    /// smallest vruntime of curr and the tree, but never moves backwards.
    /// With ZERO_VRUNTIME (v6.19) the function does not exist.
    pub(crate) fn update_min_vruntime(&mut self, q: u32) {
        if self.feat.has(Feature::ZERO_VRUNTIME) {
            return;
        }
        let cfs = &self.cfs_rqs[q as usize];
        let mut vruntime = cfs.min_vruntime;
        let curr = (cfs.curr != NIL && self.ents[cfs.curr as usize].on_rq).then_some(cfs.curr);
        if let Some(c) = curr {
            vruntime = self.ents[c as usize].vruntime;
        }
        if let Some(tree_min) = self.tree_min_vruntime(q) {
            vruntime = if curr.is_some() { min_time(vruntime, tree_min) } else { tree_min };
        }
        self.advance_min_vruntime(q, vruntime);
    }

    /// Mirrors `update_zero_vruntime()` (fair.c, v6.19): re-base v0 to V so
    /// the keys stay small without a monotonic minimum.
    fn update_zero_vruntime(&mut self, q: u32) {
        let v = self.avg_vruntime(q);
        let cfs = &mut self.cfs_rqs[q as usize];
        let delta = sdiff(v, cfs.min_vruntime);
        cfs.avg_vruntime -= cfs.avg_load * delta;
        cfs.min_vruntime = v;
    }

    /// Mirrors `cfs_rq_min_slice()` (fair.c, v6.12+): the shortest slice of
    /// curr and the tree (the augmented `min_slice` at the root).
    pub fn cfs_rq_min_slice(&self, q: u32) -> u64 {
        let cfs = &self.cfs_rqs[q as usize];
        let mut min_slice = u64::MAX;
        if cfs.curr != NIL && self.ents[cfs.curr as usize].on_rq {
            min_slice = self.ents[cfs.curr as usize].slice;
        }
        let root = cfs.tree.root();
        if root != NIL {
            min_slice = min_slice.min(self.nodes[root as usize].min_slice);
        }
        min_slice
    }

    /// Mirrors `__enqueue_entity()` (fair.c, v6.18): add to the lag sums and
    /// insert into the augmented tree. The tree is keyed by deadline and
    /// augmented with min vruntime (v6.8+), or keyed by vruntime and augmented
    /// with min deadline (v6.6).
    pub(crate) fn __enqueue_entity(&mut self, q: u32, se: u32) {
        if self.feat.has(Feature::ZERO_VRUNTIME) {
            self.update_zero_vruntime(q);
        }
        self.avg_vruntime_add(q, se);
        let e = &self.ents[se as usize];
        let node = &mut self.nodes[se as usize];
        if self.feat.has(Feature::DEADLINE_TREE) {
            node.key = e.deadline;
            node.val = e.vruntime;
        } else {
            node.key = e.vruntime;
            node.val = e.deadline;
        }
        node.slice = e.slice;
        self.cfs_rqs[q as usize].tree.insert(&mut self.nodes, se);
    }

    /// Mirrors `__dequeue_entity()` (fair.c, v6.18).
    pub(crate) fn __dequeue_entity(&mut self, q: u32, se: u32) {
        if self.feat.has(Feature::ZERO_VRUNTIME) {
            self.update_zero_vruntime(q);
        }
        self.cfs_rqs[q as usize].tree.erase(&mut self.nodes, se);
        self.avg_vruntime_sub(q, se);
    }

    /// Mirrors `entity_before()` (fair.c): the sort order of the tree —
    /// earlier deadline (v6.8+) or smaller vruntime (v6.6).
    #[inline]
    pub(crate) fn entity_before(&self, a: u32, b: u32) -> bool {
        let (a, b) = (&self.ents[a as usize], &self.ents[b as usize]);
        if self.feat.has(Feature::DEADLINE_TREE) {
            before(a.deadline, b.deadline)
        } else {
            before(a.vruntime, b.vruntime)
        }
    }

    /// Lag limit of `update_entity_lag()` (fair.c, v6.18):
    /// `calc_delta_fair(max(2·slice, TICK_NSEC))` — twice the request, but at
    /// least a tick, the granularity at which service is handed out.
    pub(crate) fn lag_limit(&self, se: u32) -> i64 {
        let e = &self.ents[se as usize];
        let limit = (2 * e.slice).max(self.tun.tick_nsec);
        crate::kernel::sched::weight::calc_delta_fair(limit, &e.load) as i64
    }

    /// Mirrors `update_entity_lag()` (fair.c, v6.6–v6.18): store the virtual
    /// lag V - v, clamped.
    pub(crate) fn update_entity_lag(&mut self, q: u32, se: u32) {
        let vlag = sdiff(self.avg_vruntime(q), self.ents[se as usize].vruntime);
        let limit = self.lag_limit(se);
        self.ents[se as usize].vlag = vlag.clamp(-limit, limit);
    }

    /// The current virtual lag V - v of a queued entity (what the views
    /// show; the stored `vlag` is only meaningful while dequeued).
    pub fn entity_vlag(&self, q: u32, se: u32) -> i64 {
        sdiff(self.avg_vruntime(q), self.ents[se as usize].vruntime)
    }
}
