//! `struct sched_entity`: what the fair class schedules (a task, or a task
//! group on one CPU).

use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::weight::LoadWeight;

/// Mirrors `struct sched_entity` (include/linux/sched.h, v6.18), the fields
/// the fair class uses. Entities live in one arena indexed by id; the red-black
/// tree node of entity `i` is node `i` of the shared tree arena.
#[derive(Clone, Debug)]
pub struct SchedEntity {
    pub load: LoadWeight,
    /// Queued on `cfs_rq` (in the tree, or running as its `curr`).
    pub on_rq: bool,
    /// DELAY_DEQUEUE: asleep but still queued until it is picked or woken.
    pub sched_delayed: bool,
    /// `deadline` currently holds `deadline - vruntime` (PLACE_REL_DEADLINE).
    pub rel_deadline: bool,
    /// The slice was set by sched_setattr() and is not the base slice.
    pub custom_slice: bool,
    pub vruntime: u64,
    pub deadline: u64,
    /// Virtual lag `V - vruntime`, stored at dequeue. While the entity runs
    /// the kernel reuses this word: v6.6–v6.16 stash the deadline at pick
    /// here for RUN_TO_PARITY, v6.17+ keep `vprot` here (a union). schedlab
    /// keeps the aliasing, because reweight_entity() on the running entity
    /// overwrites protection exactly as the kernel does.
    pub vlag: i64,
    /// The request size r_i, in wall-clock ns.
    pub slice: u64,
    pub exec_start: u64,
    pub sum_exec_runtime: u64,
    pub prev_sum_exec_runtime: u64,
    /// The cfs_rq this entity is queued on (or was last queued on).
    pub cfs_rq: u32,
    /// The cfs_rq this entity represents, for group entities (NIL for tasks).
    pub my_q: u32,
    /// The group entity one level up (NIL at the root level).
    pub parent: u32,
    pub depth: u32,
    /// The task this entity is (NIL for group entities).
    pub task: u32,
    /// SCHED_IDLE task or idle group (`se_is_idle()`).
    pub idle: bool,
    /// PELT averages (`se->avg`).
    pub avg: crate::kernel::sched::pelt::SchedAvg,
    /// A group entity's runnable tasks as last recorded by
    /// `se_update_runnable()` (its queue's `h_nr_running`, or from v6.13
    /// the runnable ones only): the group's PELT runnable input.
    pub runnable_weight: u32,
    /// For a group entity, its task group (NIL for tasks).
    pub tg: u32,
}

impl SchedEntity {
    /// A task entity as `__sched_fork()` leaves it: zero vruntime, zero lag,
    /// base slice.
    pub fn new_task(task: u32, load: LoadWeight, slice: u64, cfs_rq: u32, idle: bool) -> SchedEntity {
        SchedEntity {
            load,
            on_rq: false,
            sched_delayed: false,
            rel_deadline: false,
            custom_slice: false,
            vruntime: 0,
            deadline: 0,
            vlag: 0,
            slice,
            exec_start: 0,
            sum_exec_runtime: 0,
            prev_sum_exec_runtime: 0,
            cfs_rq,
            my_q: NIL,
            parent: NIL,
            depth: 0,
            task,
            idle,
            avg: Default::default(),
            runnable_weight: 0,
            tg: NIL,
        }
    }

    /// `scale_load_down(se->load.weight)`, the weight of the lag sums.
    #[inline]
    pub fn weight(&self) -> u64 {
        self.load.unscaled()
    }

    /// `se->vprot` (v6.17+), which shares storage with `vlag`.
    #[inline]
    pub fn vprot(&self) -> u64 {
        self.vlag as u64
    }

    #[inline]
    pub fn set_vprot(&mut self, v: u64) {
        self.vlag = v as i64;
    }

    #[inline]
    pub fn is_task(&self) -> bool {
        self.task != NIL
    }
}
