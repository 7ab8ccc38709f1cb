//! Task groups (`CONFIG_FAIR_GROUP_SCHED`, the cpu cgroup controller): a
//! group has, on every CPU, an entity queued on its parent's queue and a
//! queue of its own holding its children. The group's weight (`tg->shares`)
//! is split between its per-CPU entities in proportion to their queues'
//! load (`calc_group_shares()`), which is why a group entity is reweighted
//! while queued — the case the v6.7 reweight fix is about.

use crate::kernel::sched::cfs_rq::CfsRq;
use crate::kernel::sched::features::Feature;
use crate::kernel::sched::entity::SchedEntity;
use crate::kernel::sched::load_avg::UPDATE_TG;
use crate::kernel::lib::rbtree::{RbNode, NIL};
use crate::kernel::sched::core::Sched;
use crate::kernel::sched::weight::{scale_load, scale_load_down, LoadWeight, MIN_SHARES, NICE_0_LOAD, WEIGHT_IDLEPRIO};

/// `struct task_group` (kernel/sched/sched.h).
#[derive(Clone, Debug)]
pub struct TaskGroup {
    pub name: String,
    /// Parent group (NIL: the root group).
    pub parent: u32,
    /// `tg->shares`, scaled (`scale_load(1024)` = cpu.weight 100).
    pub shares: u64,
    /// `tg->load_avg`: Σ of the per-CPU queues' contributions.
    pub load_avg: i64,
    /// `cpu.idle`.
    pub idle: bool,
    /// Depth of the group's entities (0 for children of the root).
    pub depth: u32,
    /// Per CPU: the group's entity and its queue.
    pub se: Vec<u32>,
    pub cfs_rq: Vec<u32>,
}

/// Mirrors `sched_weight_from_cgroup()` (kernel/sched/core.c): cgroup v2
/// cpu.weight (default 100) to shares, DIV_ROUND_CLOSEST(weight·1024, 100).
pub fn shares_from_weight(weight: u32) -> u64 {
    scale_load((weight as u64 * 1024 + 50) / 100)
}

impl Sched {
    /// Adds a group under `parent` (NIL: root) with `shares` (scaled), with
    /// an entity and a queue on every CPU — `alloc_fair_sched_group()` and
    /// `init_tg_cfs_entry()`: group entities start at NICE_0_LOAD.
    ///
    /// An idle group (`cpu.idle` = 1) gets the weight of a SCHED_IDLE task
    /// whatever `shares` says, as `sched_group_set_idle()` (fair.c, v5.15 –
    /// v6.18: "Idle groups have minimum weight") sets
    /// `scale_load(WEIGHT_IDLEPRIO)`; the scenario parser refuses a weight
    /// on an idle group, as `sched_group_set_shares()` does (-EINVAL).
    pub fn add_group(&mut self, name: &str, parent: u32, shares: u64, idle: bool) -> u32 {
        let shares = if idle { scale_load(WEIGHT_IDLEPRIO) } else { shares };
        self.idle_entities += idle as u32;
        let id = self.groups.len() as u32;
        let depth = if parent == NIL { 0 } else { self.groups[parent as usize].depth + 1 };
        let mut g = TaskGroup { name: name.to_string(), parent, shares, load_avg: 0, idle, depth, se: Vec::new(), cfs_rq: Vec::new() };
        for cpu in 0..self.rqs.len() as u32 {
            let se = self.ents.len() as u32;
            let q = self.cfs_rqs.len() as u32;
            let (parent_q, parent_se) = if parent == NIL {
                (self.rqs[cpu as usize].cfs, NIL)
            } else {
                let pg = &self.groups[parent as usize];
                (pg.cfs_rq[cpu as usize], pg.se[cpu as usize])
            };
            let mut e = SchedEntity::new_task(NIL, LoadWeight::with_weight(NICE_0_LOAD), self.tun.base_slice, parent_q, idle);
            e.my_q = q;
            e.parent = parent_se;
            e.depth = depth;
            e.tg = id;
            self.ents.push(e);
            self.nodes.push(RbNode::detached());
            let mut cfs = CfsRq::new(cpu, se, self.feat.has(crate::kernel::sched::features::Feature::EXACT_MIN_SLICE));
            cfs.tg = id;
            cfs.idle = idle;
            self.cfs_rqs.push(cfs);
            g.se.push(se);
            g.cfs_rq.push(q);
        }
        self.groups.push(g);
        id
    }

    /// The queue a task of group `tg` (NIL: root) uses on `cpu`, with the
    /// parent entity and depth its own entity gets (`set_task_rq()`).
    pub(crate) fn group_queue(&self, tg: u32, cpu: u32) -> (u32, u32, u32) {
        if tg == NIL {
            (self.rqs[cpu as usize].cfs, NIL, 0)
        } else {
            let g = &self.groups[tg as usize];
            (g.cfs_rq[cpu as usize], g.se[cpu as usize], g.depth + 1)
        }
    }

    /// Mirrors `calc_group_shares()` (fair.c, v6.18): this CPU's part of
    /// the group's shares, tg->shares · load / Σload, where this queue's
    /// load is max(its weight, its load_avg) and the others' is their
    /// load_avg contribution; clamped to [MIN_SHARES, tg->shares].
    fn calc_group_shares(&self, q: u32) -> u64 {
        let cfs = &self.cfs_rqs[q as usize];
        let tg = &self.groups[cfs.tg as usize];
        let tg_shares = tg.shares as i64;
        let load = (scale_load_down(cfs.load.weight) as i64).max(cfs.avg.load_avg as i64);
        let tg_weight = tg.load_avg - cfs.tg_load_avg_contrib + load;
        let mut shares = tg_shares * load;
        if tg_weight != 0 {
            shares /= tg_weight;
        }
        shares.clamp(MIN_SHARES as i64, tg_shares) as u64
    }

    /// Mirrors `update_cfs_group()` (fair.c): re-derive a group entity's
    /// weight from its queue. v6.13+ (UPDATE_CFS_GROUP_VS_DELAYED): an
    /// empty queue keeps its weight, because the group entity may stay
    /// queued as delayed; v5.15–v6.12 reweight it to the shares of an empty
    /// queue.
    pub(crate) fn update_cfs_group(&mut self, se: u32) {
        let gq = self.ents[se as usize].my_q;
        if gq == NIL {
            return;
        }
        if self.feat.has(crate::kernel::sched::features::Feature::UPDATE_CFS_GROUP_VS_DELAYED) && self.cfs_rqs[gq as usize].load.weight == 0 {
            return;
        }
        let shares = self.calc_group_shares(gq);
        // v5.15–v6.5 reweight unconditionally (re-deriving the entity's
        // PELT load even at an unchanged weight); v6.6+ only on a change.
        let cfs = !self.feat.has(crate::kernel::sched::features::Feature::EEVDF);
        if cfs || self.ents[se as usize].load.weight != shares {
            let q = self.ents[se as usize].cfs_rq;
            self.reweight_entity(q, se, LoadWeight::with_weight(shares));
        }
    }

    /// Mirrors `update_tg_load_avg()` (fair.c, v6.18): publish this queue's
    /// load_avg into the group's sum when it moved by more than 1/64, at
    /// most once per ms (TG_LOAD_AVG_RATELIMIT, v6.7+).
    pub(crate) fn update_tg_load_avg(&mut self, q: u32) {
        let now = self.now;
        let ratelimit = self.feat.has(Feature::TG_LOAD_AVG_RATELIMIT);
        let cfs = &mut self.cfs_rqs[q as usize];
        if cfs.tg == NIL || (ratelimit && now.saturating_sub(cfs.last_update_tg_load_avg) < 1_000_000) {
            return;
        }
        let delta = cfs.avg.load_avg as i64 - cfs.tg_load_avg_contrib;
        if delta.abs() > cfs.tg_load_avg_contrib / 64 {
            cfs.tg_load_avg_contrib = cfs.avg.load_avg as i64;
            cfs.last_update_tg_load_avg = now;
            let tg = cfs.tg;
            self.groups[tg as usize].load_avg += delta;
        }
    }

    /// `cfs_rq->h_load` (update_cfs_rq_h_load(), fair.c): the share of the
    /// CPU's load this queue represents, propagated down from the root.
    fn cfs_rq_h_load(&self, q: u32) -> u64 {
        let owner = self.cfs_rqs[q as usize].owner;
        if owner == NIL {
            return self.cfs_rqs[q as usize].avg.load_avg;
        }
        let parent_q = self.ents[owner as usize].cfs_rq;
        let parent_h = self.cfs_rq_h_load(parent_q);
        self.ents[owner as usize].avg.load_avg * parent_h / (self.cfs_rqs[parent_q as usize].avg.load_avg + 1)
    }

    /// Mirrors `task_h_load()` (fair.c): the task's load as seen from the
    /// root, load_avg · h_load / (queue load_avg + 1).
    pub fn task_h_load(&self, task: u32) -> u64 {
        let se = self.tasks[task as usize].se;
        let q = self.ents[se as usize].cfs_rq;
        let h = self.cfs_rq_h_load(q);
        self.ents[se as usize].avg.load_avg * h / (self.cfs_rqs[q as usize].avg.load_avg + 1)
    }

    /// The per-level tail of enqueue/dequeue for ancestors (fair.c:
    /// `update_load_avg(cfs_rq, se, UPDATE_TG); se_update_runnable(se);
    /// update_cfs_group(se);`).
    pub(crate) fn update_group_entity(&mut self, se: u32) {
        let q = self.ents[se as usize].cfs_rq;
        self.update_load_avg(q, se, UPDATE_TG);
        self.se_update_runnable(se);
        self.update_cfs_group(se);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cgroup_weight_to_shares() {
        // cpu.weight 100 → 1024, 1 → 10 (10.24 rounds down), 10000 → 102400.
        assert_eq!(shares_from_weight(100), scale_load(1024));
        assert_eq!(shares_from_weight(1), scale_load(10));
        assert_eq!(shares_from_weight(10000), scale_load(102_400));
    }
}
