//! A picture of the scheduler at one instant, for the views: per CPU the
//! red-black tree as it is (colours, keys, augmented values), V, and every
//! queued entity's vruntime, deadline, lag, weight, slice and eligibility.
//! Everything here is read from engine state; views never recompute it.

use serde::Serialize;

use crate::kernel::sched::features::Feature;
use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::core::{Sched, TaskState};
use crate::lab::sim::Simulation;
use crate::kernel::sched::weight::sdiff;

/// One node of a run queue's red-black tree.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TreeNode {
    /// The entity this node is (its id).
    pub entity: u32,
    pub parent: Option<u32>,
    pub left: Option<u32>,
    pub right: Option<u32>,
    pub red: bool,
    /// The sort key: deadline (v6.8+) or vruntime (v6.6).
    pub key: u64,
    /// The augmented minimum: min vruntime (v6.8+) or min deadline (v6.6)
    /// of the subtree.
    pub aug_min: u64,
    /// Minimum slice of the subtree (v6.12+).
    pub min_slice: u64,
}

/// One queued entity of a run queue (curr included).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EntityView {
    pub entity: u32,
    /// The task this entity is (None for a group entity).
    pub task: Option<u32>,
    pub name: String,
    pub vruntime: u64,
    pub deadline: u64,
    /// Virtual lag V − v (ns of virtual time).
    pub vlag: i64,
    /// Lag in ns of service: w·(V − v) with w relative to nice 0.
    pub lag: i64,
    /// `scale_load_down(weight)` (1024 = nice 0).
    pub weight: u64,
    pub slice: u64,
    pub eligible: bool,
    pub curr: bool,
    /// Asleep but still queued (DELAY_DEQUEUE).
    pub delayed: bool,
    /// The running entity is protected from preemption (RUN_TO_PARITY).
    pub protected: bool,
    /// Whether it is the next buddy.
    pub next_buddy: bool,
    /// CFS (v5.15, EEVDF off) only, else 0 / false: the entity's share of
    /// the period, `sched_slice()`; how much of it curr has run since it
    /// was picked (`sum_exec_runtime − prev_sum_exec_runtime`, what
    /// check_preempt_tick() compares); the wakeup granularity in its own
    /// virtual time (`wakeup_gran()`: a waking entity preempts curr when
    /// curr's vruntime is ahead by more than this); the last and skip
    /// buddies.
    pub cfs_slice: u64,
    pub cfs_ran: u64,
    pub wakeup_gran: u64,
    pub last_buddy: bool,
    pub skip_buddy: bool,
}

/// One CPU's root run queue.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CpuView {
    pub cpu: u32,
    /// The running task (None: idle).
    pub curr: Option<u32>,
    /// V, the zero-lag point (`avg_vruntime()`).
    pub v: u64,
    /// v0, the offset the sums are kept against (min_vruntime).
    pub min_vruntime: u64,
    pub nr_queued: u32,
    pub nr_running: u32,
    /// Σ w of the queue (scaled down).
    pub load: u64,
    /// The tree sorts by deadline (v6.8+) or by vruntime (v6.6).
    pub sorted_by_deadline: bool,
    pub root: Option<u32>,
    pub leftmost: Option<u32>,
    /// Tree nodes in in-order (sorted) order.
    pub tree: Vec<TreeNode>,
    /// Queued entities, curr first, then in tree order.
    pub entities: Vec<EntityView>,
    /// Σ w_i·(V − v_i) over the entities (weights scaled down): zero up to
    /// the rounding of V (at most Σ w).
    pub weighted_lag_sum: i64,
    /// EEVDF is on (false: v5.15 CFS, where the tree is keyed by vruntime,
    /// there is no eligibility or deadline, and the tunables below apply).
    pub eevdf: bool,
    /// CFS tunables (scaled by the CPU count as the kernel does):
    /// `sysctl_sched_latency`, `sysctl_sched_min_granularity`,
    /// `sysctl_sched_wakeup_granularity`, `sched_nr_latency`.
    pub sched_latency: u64,
    pub min_granularity: u64,
    pub wakeup_granularity: u64,
    pub nr_latency: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TaskView {
    pub task: u32,
    pub name: String,
    pub state: TaskState,
    pub cpu: u32,
    pub nice: i32,
    pub cpu_time_ns: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Snapshot {
    pub time: u64,
    pub events: u64,
    pub cpus: Vec<CpuView>,
    pub tasks: Vec<TaskView>,
}

fn opt(id: u32) -> Option<u32> {
    (id != NIL).then_some(id)
}

impl Sched {
    fn entity_view(&self, q: u32, se: u32, v: u64, names: &[String]) -> EntityView {
        let e = &self.ents[se as usize];
        let cfs = &self.cfs_rqs[q as usize];
        let vlag = sdiff(v, e.vruntime);
        let is_curr = cfs.curr == se;
        let cfs_mode = !self.feat.has(Feature::EEVDF);
        EntityView {
            entity: se,
            task: opt(e.task),
            name: match names.get(e.task as usize) {
                Some(n) => n.clone(),
                None if e.tg != NIL => format!("[{}]", self.groups[e.tg as usize].name),
                None => format!("se {se}"),
            },
            vruntime: e.vruntime,
            deadline: e.deadline,
            vlag,
            lag: crate::kernel::sched::fair::service_lag(vlag, e.weight()),
            weight: e.weight(),
            slice: e.slice,
            eligible: self.entity_eligible(q, se),
            curr: is_curr,
            delayed: e.sched_delayed,
            protected: is_curr && self.curr_protected(se),
            next_buddy: cfs.next == se,
            cfs_slice: if cfs_mode { self.sched_slice(q, se) } else { 0 },
            cfs_ran: if cfs_mode && is_curr { e.sum_exec_runtime.saturating_sub(e.prev_sum_exec_runtime) } else { 0 },
            wakeup_gran: if cfs_mode { crate::kernel::sched::weight::calc_delta_fair(self.tun.wakeup_granularity, &e.load) } else { 0 },
            last_buddy: cfs_mode && cfs.last == se,
            skip_buddy: cfs_mode && cfs.skip == se,
        }
    }

    /// The view of one CPU's root queue.
    pub fn cpu_view(&self, cpu: u32, names: &[String]) -> CpuView {
        self.queue_view(self.rqs[cpu as usize].cfs, names)
    }

    /// The view of any fair run queue: a CPU's root queue, or the queue a
    /// group entity owns on one CPU (`q` indexes `cfs_rqs`; see
    /// [`Sched::entity_queue`]). `cpu`, `curr` and `nr_running` are those
    /// of the queue's CPU.
    pub fn queue_view(&self, q: u32, names: &[String]) -> CpuView {
        let cfs = &self.cfs_rqs[q as usize];
        let cpu = cfs.cpu;
        let rq = &self.rqs[cpu as usize];
        let v = self.avg_vruntime(q);
        let mut entities = Vec::with_capacity(cfs.nr_queued as usize);
        if cfs.curr != NIL && self.ents[cfs.curr as usize].on_rq {
            entities.push(self.entity_view(q, cfs.curr, v, names));
        }
        let tree: Vec<TreeNode> = cfs
            .tree
            .iter(&self.nodes)
            .map(|id| {
                let n = &self.nodes[id as usize];
                TreeNode {
                    entity: id,
                    parent: opt(n.parent),
                    left: opt(n.left),
                    right: opt(n.right),
                    red: n.red,
                    key: n.key,
                    aug_min: n.min_val,
                    min_slice: n.min_slice,
                }
            })
            .collect();
        entities.extend(tree.iter().map(|n| self.entity_view(q, n.entity, v, names)));
        let weighted_lag_sum = entities.iter().map(|e| e.vlag * e.weight as i64).sum();
        CpuView {
            cpu,
            curr: opt(rq.curr),
            v,
            min_vruntime: cfs.min_vruntime,
            nr_queued: cfs.nr_queued,
            nr_running: rq.nr_running,
            load: crate::kernel::sched::weight::scale_load_down(cfs.load.weight),
            sorted_by_deadline: self.feat.has(Feature::DEADLINE_TREE),
            root: opt(cfs.tree.root()),
            leftmost: opt(cfs.tree.first()),
            tree,
            entities,
            weighted_lag_sum,
            eevdf: self.feat.has(Feature::EEVDF),
            sched_latency: self.tun.latency,
            min_granularity: self.tun.min_granularity,
            wakeup_granularity: self.tun.wakeup_granularity,
            nr_latency: self.tun.nr_latency,
        }
    }
}

impl Sched {
    /// The queue a group entity owns (its `my_q`); None for a task.
    pub fn entity_queue(&self, se: u32) -> Option<u32> {
        self.ents.get(se as usize).and_then(|e| opt(e.my_q))
    }
}

impl Simulation {
    /// The scheduler as it is now.
    pub fn snapshot(&self) -> Snapshot {
        let s = &self.state.sched;
        let names = &self.info.task_names;
        Snapshot {
            time: s.now,
            events: self.state.events,
            cpus: (0..s.rqs.len() as u32).map(|c| s.cpu_view(c, names)).collect(),
            tasks: s
                .tasks
                .iter()
                .enumerate()
                .map(|(i, t)| TaskView {
                    task: i as u32,
                    name: names[i].clone(),
                    state: t.state,
                    cpu: t.cpu,
                    nice: t.nice,
                    cpu_time_ns: self.task_cpu_time(i as u32),
                })
                .collect(),
        }
    }

    /// CPU time of a task up to now (including the running stretch).
    /// A task's CPU time since the results' start (the warm-up's end).
    pub fn task_cpu_time(&self, task: u32) -> u64 {
        self.task_cpu_time_total(task) - self.cpu_base.get(task as usize).copied().unwrap_or(0)
    }

    /// A task's CPU time since it was created.
    pub fn task_cpu_time_total(&self, task: u32) -> u64 {
        let s = &self.state.sched;
        let t = &s.tasks[task as usize];
        let e = &s.ents[t.se as usize];
        if t.state == TaskState::Running {
            e.sum_exec_runtime + s.now.saturating_sub(e.exec_start)
        } else {
            e.sum_exec_runtime
        }
    }
}
