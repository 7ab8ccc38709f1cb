//! kernel/sched/: one file per kernel file or per part of fair.c.
//!
//! | module | kernel source |
//! | --- | --- |
//! | [`core`] | core.c: try_to_wake_up(), __schedule(), sched_tick(), set_user_nice(), sched_setattr(), sched_yield(), exit; `struct rq` |
//! | [`fair`] | fair.c: update_curr(), place_entity(), enqueue/dequeue, pick, wake-up preemption, yield, reweight |
//! | [`pick`] | fair.c: pick_eevdf() in both tree layouts |
//! | [`cfs_rq`] | fair.c/sched.h: `struct cfs_rq`, avg_vruntime(), eligibility, lag |
//! | [`entity`] | include/linux/sched.h: `struct sched_entity` |
//! | [`cfs`] | fair.c as of v5.15: CFS pick, check_preempt_tick(), buddies |
//! | [`weight`] | core.c/fair.c: sched_prio_to_weight, __calc_delta() |
//! | [`pelt`] | pelt.c, sched-pelt.h |
//! | [`load_avg`] | fair.c: update_load_avg() and the PELT glue |
//! | [`group`] | fair.c: task groups, calc_group_shares() |
//! | [`select`] | fair.c: select_task_rq_fair(), select_idle_sibling() |
//! | [`balance`] | fair.c: sched_balance_rq(), newidle and NOHZ balancing |
//! | [`topology`] | topology.c: sched domains |
//! | [`features`] | features.h |
//! | [`presets`] | the feature defaults and tunables of each kernel version |

pub mod balance;
pub mod cfs;
pub mod cfs_rq;
pub mod core;
pub mod entity;
pub mod fair;
pub mod features;
pub mod group;
pub mod load_avg;
pub mod pelt;
pub mod pick;
pub mod presets;
pub mod select;
pub mod topology;
pub mod weight;
