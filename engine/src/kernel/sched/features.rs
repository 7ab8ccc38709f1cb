//! Scheduler feature flags: one list, expanded into the flag set, the names
//! the UI and CLI show, and the default of every kernel preset.
//!
//! Mirrors the idea of kernel/sched/features.h (`SCHED_FEAT(NAME, default)`
//! expanded into `sysctl_sched_features`): each row below is one flag with its
//! default per preset, where it comes from and what it changes. Flags that
//! exist in features.h keep the kernel's spelling. Behaviour that changed
//! between kernel versions without a features.h flag gets a flag of its own
//! (origin "schedlab"), named after what the commit changed, so that a preset
//! is nothing but a set of flags plus tunables, and a patch is a delta.

/// Kernel presets, in the column order of the table below.
pub const PRESET_NAMES: [&str; 6] = ["5.15", "6.5", "6.6", "6.6.y", "6.12", "6.18"];

macro_rules! sched_features {
    ($( $(#[doc = $doc:literal])* $name:ident = [$($d:literal),*], $origin:literal; )*) => {
        /// One scheduler feature flag.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[allow(non_camel_case_types)]
        #[repr(u8)]
        pub enum Feature { $($name),* }

        impl Feature {
            /// Every flag, in declaration order.
            pub const ALL: &'static [Feature] = &[$(Feature::$name),*];

            /// The flag's name as written in features.h and scenarios.
            pub const fn name(self) -> &'static str {
                match self { $(Feature::$name => stringify!($name)),* }
            }

            /// What the flag changes (one paragraph).
            pub fn doc(self) -> &'static str {
                match self { $(Feature::$name => concat!($($doc, "\n"),*).trim_ascii()),* }
            }

            /// Where the flag comes from: "features.h" or the commit it models.
            pub const fn origin(self) -> &'static str {
                match self { $(Feature::$name => $origin),* }
            }

            /// Default per preset, in `PRESET_NAMES` order.
            pub const fn defaults(self) -> [bool; PRESET_NAMES.len()] {
                match self { $(Feature::$name => [$($d != 0),*]),* }
            }
        }
    };
}

sched_features! {
    /// The EEVDF scheduler (v6.6+): pick the eligible entity with the
    /// earliest virtual deadline, place by lag. Off: CFS (v5.15–v6.5): pick
    /// the smallest vruntime, with buddies, sleeper credit and
    /// check_preempt_tick().
    EEVDF = [0, 0, 1, 1, 1, 1], "schedlab (147f3efaa241 \"sched/fair: Implement an EEVDF-like scheduling policy\", v6.6)";
    /// CFS: a waking task's vruntime is at most half a latency behind
    /// min_vruntime (off: a full latency of sleeper credit).
    GENTLE_FAIR_SLEEPERS = [1, 1, 0, 0, 0, 0], "features.h (CFS; removed by e0c2ff903c32 in v6.6)";
    /// CFS: a new task starts one virtual slice after min_vruntime, so it
    /// does not immediately preempt the tasks already promised this period.
    START_DEBIT = [1, 1, 0, 0, 0, 0], "features.h (CFS; removed in v6.6)";
    /// CFS: after a wakeup preemption, prefer to run the preempted task next
    /// (the last buddy), for cache locality.
    LAST_BUDDY = [1, 1, 0, 0, 0, 0], "features.h (CFS; removed in v6.6)";
    /// CFS: sched_slice() counts the whole CPU's runnable tasks
    /// (h_nr_running), not just this queue's.
    ALT_PERIOD = [1, 1, 0, 0, 0, 0], "features.h (0c2de3f054a5, v5.13; CFS)";
    /// CFS: a slice is never shorter than sched_min_granularity.
    BASE_SLICE = [1, 1, 0, 0, 0, 0], "features.h (0c2de3f054a5, v5.13; CFS)";
    /// CFS: an idle entity (SCHED_IDLE task or cpu.idle group) on a queue
    /// that is not all idle gets sysctl_sched_idle_min_granularity (0.75
    /// ms, unscaled) as its minimum slice, and min_granularity instead of a
    /// latency as its sleeper credit (sched_slice(), place_entity(), v6.5).
    CFS_IDLE_MIN_GRAN = [0, 1, 0, 0, 0, 0], "schedlab (\"sched: reduce sched slice for SCHED_IDLE entities\", v5.16; in v6.5.0, not in v5.15.0)";
    /// CFS: check_preempt_tick() caps the ideal runtime at sched_latency,
    /// so that many light tasks cannot blow up a slice (v6.5).
    CFS_SLICE_CAP = [0, 1, 0, 0, 0, 0], "schedlab (in v6.5.0's check_preempt_tick(), not in v5.15.0)";
    /// Place a waking task at V minus the lag it had when it went to sleep
    /// (inflated so the lag survives its own insertion). Off: every wakeup
    /// starts at V with zero lag.
    PLACE_LAG = [0, 0, 1, 1, 1, 1], "features.h (86bfbb7ce4f6, v6.6)";
    /// A newly forked task starts with half a slice of virtual deadline
    /// ("existing tasks are on average halfway through their slice").
    PLACE_DEADLINE_INITIAL = [0, 0, 1, 1, 1, 1], "features.h (v6.6)";
    /// A task dequeued for a non-sleep reason (migration, nice or slice
    /// change) keeps its deadline relative to its vruntime and gets it back
    /// when enqueued again, instead of a fresh deadline.
    PLACE_REL_DEADLINE = [0, 0, 0, 0, 1, 1], "features.h (82e9d0456e06, v6.12)";
    /// Slice protection: an eligible running task keeps the CPU until it has
    /// used its request (6.6–6.16: until its deadline moves; 6.17+: until
    /// vprot, at most the shortest queued slice), so wakeups cannot preempt
    /// it early.
    RUN_TO_PARITY = [0, 0, 1, 1, 1, 1], "features.h (63304558ba5d, v6.6)";
    /// EEVDF as first posted (the sched/eevdf branch of March 2023 until
    /// 2023-04-20): at every tick check_preempt_tick() reschedules when
    /// pick_eevdf() would not pick the running entity, and a used-up
    /// request only moves the deadline. Off (v6.6, from Peter Zijlstra's
    /// fixlet in "Re: schbench v1.0"): update_deadline() reschedules when
    /// the request is used up.
    TICK_PICK_PREEMPT = [0, 0, 0, 0, 0, 0], "schedlab (EEVDF RFC v1 check_preempt_tick(), Mar 2023; replaced before v6.6)";
    /// pick_eevdf() on the vruntime-sorted tree starts from the running
    /// entity and remembers the eligible left subtree with the earliest
    /// min_deadline, so it always finds the earliest eligible deadline and
    /// a deadline tie keeps the running entity. Off (the EEVDF RFC and
    /// v6.6-rc1..rc5): one descent that can end at a later deadline than
    /// the earliest eligible one, and a tie goes to the queued entity. On
    /// in the CFS presets too, so that EEVDF patched onto them picks as
    /// v6.6 does.
    PICK_BEST_LEFT = [1, 1, 1, 1, 1, 1], "schedlab (b01db23d5923 \"sched/eevdf: Fix pick_eevdf()\", v6.6-rc6)";
    /// A waking task with a shorter slice than the running one may cancel the
    /// running task's protection and preempt it.
    PREEMPT_SHORT = [0, 0, 0, 0, 1, 1], "features.h (v6.12)";
    /// Set the woken task as next buddy on wakeup preemption (off by default
    /// in every release; enabled in tip late 2025 and reverted early 2026).
    NEXT_BUDDY = [0, 0, 0, 0, 0, 0], "features.h";
    /// pick_next_entity() prefers cfs_rq->next when it is eligible. Before
    /// v6.14 that preference was gated by NEXT_BUDDY itself (see
    /// BUDDY_UNTANGLED).
    PICK_BUDDY = [0, 0, 0, 0, 0, 1], "features.h (2a77e4be12cb, v6.14)";
    /// v6.14 split "who sets next" (NEXT_BUDDY) from "pick honours next"
    /// (PICK_BUDDY). Off: the pick honours next only when NEXT_BUDDY is on.
    BUDDY_UNTANGLED = [0, 0, 0, 0, 0, 1], "schedlab (2a77e4be12cb, v6.14)";
    /// The task that is next buddy counts as cache-hot for migration.
    CACHE_HOT_BUDDY = [1, 1, 1, 1, 1, 1], "features.h";
    /// A task that sleeps while not eligible (negative lag) stays queued,
    /// "delayed", until it would have been picked, so it cannot shed its
    /// negative lag by sleeping.
    DELAY_DEQUEUE = [0, 0, 0, 0, 1, 1], "features.h (152e11f6df29, v6.12)";
    /// A delayed task that completes its dequeue, or is requeued by a
    /// wakeup, has positive lag clamped to zero.
    DELAY_ZERO = [0, 0, 0, 0, 1, 1], "features.h (54a58a787791, v6.12)";
    /// Track each task's utilisation estimate (an EWMA of its util_avg at
    /// sleep) and let a CPU's utilisation be the larger of util_avg and the
    /// sum of its tasks' estimates.
    UTIL_EST = [1, 1, 1, 1, 1, 1], "features.h";
    /// wake_affine(): prefer the waking CPU when it is idle (or a sync
    /// wakeup leaves it with one task).
    WA_IDLE = [1, 1, 1, 1, 1, 1], "features.h";
    /// wake_affine(): otherwise compare the two CPUs' loads.
    WA_WEIGHT = [1, 1, 1, 1, 1, 1], "features.h";
    /// wake_affine_weight(): bias the comparison towards the previous CPU by
    /// half the domain's imbalance percentage.
    WA_BIAS = [1, 1, 1, 1, 1, 1], "features.h";
    /// select_idle_cpu(): limit the scan by the CPU's average idle time over
    /// the average scan cost (off since v6.0, removed in v6.8).
    SIS_PROP = [1, 0, 0, 0, 0, 0], "features.h (removed in v6.8)";
    /// select_idle_cpu(): limit the scan by the LLC's utilisation
    /// (nr_idle_scan, recomputed at LLC load balancing).
    SIS_UTIL = [0, 1, 1, 1, 1, 1], "features.h (70fb5ccf2ebb, v6.0)";
    /// select_idle_cpu(): skip CPUs in the LLC's overloaded mask, which each
    /// CPU updates at its tick (seed 002; never merged).
    SIS_FILTER = [0, 0, 0, 0, 0, 0], "patch (seeds/002, Abel Wu, 2022)";
    /// Idle CPUs run the menu cpuidle governor: the state comes from a
    /// prediction (repeating idle intervals, the next timer) and a short
    /// one keeps the tick. Off (every preset): an ideal governor that
    /// knows each idle period's length (README, "Idle states and the menu
    /// governor").
    CPUIDLE_MENU = [0, 0, 0, 0, 0, 0], "schedlab (drivers/cpuidle/governors/menu.c)";
    /// menu: the idle intervals first, the next timer only if they predict
    /// over 15 µs. Off: the timer first.
    MENU_TYPICAL_FIRST = [0, 0, 0, 0, 1, 1], "schedlab (\"cpuidle: menu: Skip tick_nohz_get_sleep_length() call in some cases\", v6.7)";
    /// menu: outliers of the idle intervals are discarded at either end,
    /// and the exit latency is not capped at the prediction. Off: only
    /// the longest are discarded.
    MENU_TWO_SIDED_OUTLIERS = [0, 0, 0, 0, 0, 1], "schedlab (menu.c of v6.18, not v6.12)";
    /// sched_balance_newidle(): a newidle balance of a domain that pulled
    /// nothing counts as 1.5× the domain's largest cost so far, and
    /// update_newidle_cost() caps that cost at migration_cost + 200 ns, so
    /// that failing newidle balances become rare. Off: the domain's cost is
    /// what the balance took.
    NEWIDLE_COST_BUMP = [0, 0, 0, 0, 0, 0], "schedlab (155213a2aed4, v6.17–v6.18.4; reverted by d206fbad9328)";
    /// sched_balance_newidle(): a domain's newidle balance runs when a
    /// per-CPU die (0–1023) shows at most 1 + its recent success rate out
    /// of 1024 (512 at boot). Off: whenever the cost gate allows.
    NI_RANDOM = [0, 0, 0, 0, 0, 1], "features.h (33cf66d88306, v6.19, 6.18.5)";
    /// ttwu_queue_cond(): a wake-up onto an idle CPU of the waker's LLC goes
    /// on that CPU's wake list, as one across LLCs always did, so the CPU
    /// enqueues the task once out of idle. Off (v5.15): the waker enqueues
    /// it at once and the CPU then leaves idle. (Upstream probably v6.0,
    /// unverified.)
    TTWU_QUEUE_IDLE = [0, 1, 1, 1, 1, 1], "schedlab (ttwu_queue_cond(): absent in v5.15, present from v6.5)";
    /// newidle_balance(): a CPU about to go idle skips balancing when its
    /// average idle time is below the lowest domain's max_newidle_lb_cost.
    /// Off (v5.15): below sysctl_sched_migration_cost (0.5 ms), so a CPU
    /// that idles briefly never pulls.
    NEWIDLE_LB_COST_GATE = [0, 1, 1, 1, 1, 1], "schedlab (c5b0a7eefc70, newidle_balance(), v5.16)";
    /// The load balancer classifies a non-local SMT core running more than
    /// one task as group_smt_balance, so a (newly) idle CPU pulls one of
    /// them, and a CPU of a core without SMT siblings may pull from such a
    /// core even when both groups have spare capacity. Off (v5.15, v6.5):
    /// no such group type.
    LB_SMT_BALANCE = [0, 0, 1, 1, 1, 1], "schedlab (fee1759e4f04 \"sched/fair: Determine active load balance for SMT sched groups\", v6.6)";
    /// prefer_sibling balancing uses sibling_imbalance(): busy CPUs never
    /// force it, and task counts are compared per core. Off (v5.15, v6.5):
    /// find_busiest_group() forces a balance whenever the busiest group runs
    /// two tasks more than the local one, even when this CPU is busy, and
    /// moves half the difference.
    LB_SIBLING_IMBALANCE = [0, 0, 1, 1, 1, 1], "schedlab (7ff1693236f5 \"sched/fair: Implement prefer sibling imbalance calculation between asymmetric groups\", v6.6)";
    /// should_we_balance(): above the SMT level the balancing CPU is the
    /// first idle CPU of an idle core, before the first idle CPU of a busy
    /// core. Off (v5.15, v6.5): the group's first idle CPU.
    SWB_IDLE_CORE = [0, 0, 1, 1, 1, 1], "schedlab (b1bfeab9b002 \"sched/fair: Consider the idle state of the whole core for load balance\", v6.6)";
    /// update_tg_load_avg() publishes a queue's load into its group's sum at
    /// most once per ms. Off (v5.15–v6.6.y): at every update that moved the
    /// load by more than 1/64.
    TG_LOAD_AVG_RATELIMIT = [0, 0, 0, 0, 1, 1], "schedlab (1528c661c24b \"sched/fair: Ratelimit update to tg->load_avg\", v6.7)";
    /// detach_tasks(): a task moved for a utilisation imbalance may be
    /// larger than the imbalance by 2^nr_balance_failed, as for load. Off
    /// (v5.15–v6.6.y): its util must fit the imbalance.
    LB_UTIL_FAILED_SHIFT = [0, 0, 0, 0, 1, 1], "schedlab (3af7524b1419, detach_tasks() shr_bound(util, nr_balance_failed), v6.8)";
    /// dequeue_task_fair(): a sleeping task's util_est is updated before the
    /// dequeue, from the util_avg of its last PELT update. Off (v5.15–v6.6.y):
    /// after the dequeue, from the util_avg the dequeue just brought to now.
    UTIL_EST_BEFORE_DEQUEUE = [0, 0, 0, 0, 1, 1], "schedlab (dequeue_task_fair() of the delayed-dequeue series, v6.12)";
    /// post_init_entity_util_avg(): a new task's util is its weight's share
    /// of the queue's, se_weight() (unscaled). Off (v5.15–v6.8): the scaled
    /// se->load.weight (1024 times larger), so the share always exceeds the
    /// cap and a new task starts at half the spare capacity.
    POST_INIT_UNSCALED_WEIGHT = [0, 0, 0, 0, 1, 1], "schedlab (post_init_entity_util_avg() uses se_weight() in v6.12; se->load.weight in v6.8)";
    /// The load balancer leaves tasks that are not eligible on their queue
    /// alone (unless balancing already failed), when the destination has
    /// tasks queued.
    LB_PREFER_ELIGIBLE = [0, 0, 0, 0, 0, 1], "schedlab (873199d27bb2 \"sched/core: Prioritize migrating eligible tasks in sched_balance_rq()\", v6.14)";
    /// Set the next buddy when a task sleeps and its group still has work
    /// (so the CPU stays in the group), and — under CFS — when a wakeup
    /// preempts ("sched: Next buddy hint on sleep and preempt path", seed
    /// 001; in mainline since v3.0).
    NEXT_BUDDY_HINT = [1, 1, 1, 1, 1, 1], "seeds/001 (Venkatesh Pallipadi, 2011; v3.0)";
    /// Do not wakeup-preempt a SCHED_OTHER task of the same priority (seed
    /// 003, Ingo Molnar, 2023; never merged).
    NO_SAME_PRIO_PREEMPT = [0, 0, 0, 0, 0, 0], "patch (seeds/003, Ingo Molnar, 2023)";
    /// Wakeup preemption only of tasks that asked for it (`want_preempt`,
    /// the "negative slice" hint of Chen Yu's reply in seed 003; never
    /// merged).
    PREEMPT_HINT = [0, 0, 0, 0, 0, 0], "patch (seeds/003 reply, Chen Yu, 2023)";
    /// EEVDF RFC sleeper bonus: a waking task (not migrated) is placed up
    /// to half a slice further left than lag placement puts it (seed 004;
    /// RFC only, default off there too).
    PLACE_BONUS = [0, 0, 0, 0, 0, 0], "patch (seeds/004, \"[RFC] sched/eevdf: Sleeper bonus\", Peter Zijlstra, 2023)";
    /// Report pick_eevdf() statistics (seed 000 patch 4/4, "not intended
    /// to upstream"): `schedlab run` prints the fast/slow path counters.
    PICK_STATS = [0, 0, 0, 0, 0, 0], "patch (seeds/000 4/4, Abel Wu, 2023)";
    /// Wakeups may preempt the running task at all (otherwise only ticks do).
    WAKEUP_PREEMPTION = [1, 1, 1, 1, 1, 1], "features.h";
    /// sched_setattr(sched_runtime) sets a custom slice for a fair task.
    /// Off (v6.6–v6.11): the request is accepted and ignored; every task
    /// uses the base slice.
    CUSTOM_SLICE = [0, 0, 0, 0, 1, 1], "schedlab (857b158dc5e8 \"sched/eevdf: Use sched_attr::sched_runtime to set request/slice suggestion\", v6.12)";
    /// The run queue tree is sorted by virtual deadline and augmented with
    /// the subtree's minimum vruntime (v6.8+). Off: sorted by vruntime and
    /// augmented with min_deadline, as in v6.6.
    DEADLINE_TREE = [0, 0, 0, 0, 1, 1], "schedlab (2227a957e1d5 \"sched/eevdf: Sort the rbtree by virtual deadline\", v6.8)";
    /// With the deadline-sorted tree, pick the leftmost entity directly when
    /// it is eligible, before the heap search.
    PICK_FASTPATH = [0, 0, 0, 0, 1, 1], "schedlab (ee4373dc902c \"sched/eevdf: O(1) fastpath for task selection\", v6.8)";
    /// reweight_entity() of a queued entity keeps its lag and rescales its
    /// deadline around V (v' = V − (V − v)·w/w', d' = V + (d − V)·w/w').
    /// Off: only the relative deadline is rescaled, vruntime is kept, so lag
    /// jumps (v6.6.0).
    REWEIGHT_EEVDF = [0, 0, 0, 1, 1, 1], "schedlab (eab03c23c2a1 \"sched/eevdf: Fix vruntime adjustment on reweight\", v6.7)";
    /// With REWEIGHT_EEVDF: always update_curr(), take V before removing a
    /// non-running entity from the sums, and clamp the lag (v6.9). Off: V is
    /// taken after removal, as in the patch as first merged.
    REWEIGHT_V_FIX = [0, 0, 0, 0, 1, 1], "schedlab (\"sched/eevdf: Fix miscalculation in reweight_entity() when se is not curr\", v6.9)";
    /// reweight_entity() goes through update_entity_lag() and place_entity()
    /// with a relative deadline (v6.13+).
    REWEIGHT_PLACE = [0, 0, 0, 0, 0, 1], "schedlab (6d71a9c61604 \"sched/fair: Fix EEVDF entity placement bug causing scheduling lag\", v6.13)";
    /// A new task is placed when first enqueued, with ENQUEUE_INITIAL, so
    /// PLACE_DEADLINE_INITIAL's half slice takes effect. Off (v6.6–v6.11):
    /// the fork-time placement is overwritten by the first enqueue with a
    /// full slice.
    INITIAL_ENQUEUE = [0, 0, 0, 0, 1, 1], "schedlab (c40dd90ac045 \"sched/fair: Initialize the vruntime of a new task when it is first enqueued\", v6.12)";
    /// Slice protection through se->vprot (v6.17+): protection ends at the
    /// shortest queued slice, every update_curr() after it lapses asks for a
    /// resched, and NO_RUN_TO_PARITY still protects a minimum quantum.
    /// Off: the v6.6–v6.16 "vlag == deadline" protection.
    VPROT = [0, 0, 0, 0, 0, 1], "schedlab (0b9ca2dcabc3..9cdb4fe20cd2 run-to-parity series, v6.17)";
    /// sched_yield() forfeits the rest of the request: an eligible yielder's
    /// vruntime jumps to its deadline. Off: only the deadline moves one slice.
    YIELD_FORFEIT = [0, 0, 0, 0, 0, 1], "schedlab (79104becf42b \"sched/fair: Forfeit vruntime on yield\", v6.19, in 6.18.y)";
    /// The avg_vruntime offset is zero_vruntime, re-based to V at every
    /// enqueue and dequeue, instead of the monotonic min_vruntime (v6.19).
    ZERO_VRUNTIME = [0, 0, 0, 0, 0, 0], "schedlab (\"sched/eevdf: Fix min_vruntime vs avg_vruntime\", v6.19)";
    /// schedlab's deliberate fix: the augmented tree's rotations carry
    /// `min_slice` along with `min_vruntime`, so cfs_rq_min_slice() always
    /// sees the shortest queued slice. Off: the kernel's callbacks
    /// (v6.12–v6.18) copy only `min_vruntime`, so after a rotation a node
    /// may report a stale, longer slice until a later propagate.
    EXACT_MIN_SLICE = [1, 1, 1, 1, 1, 1], "schedlab (fix of fair.c's min_vruntime_cb, v6.12-v6.18)";
    /// A delayed task is not runnable in its queues' PELT signals: the
    /// cfs_rq's runnable input and a group entity's `runnable_weight` count
    /// `h_nr_running − h_nr_delayed` (v6.14+: `h_nr_runnable`). Off
    /// (v6.12.0): they count `h_nr_running`, delayed tasks included (a
    /// delayed task's own signal is 0 in both).
    PELT_VS_DELAYED_DEQUEUE = [0, 0, 0, 0, 0, 1], "schedlab (76f2f783294d \"sched/eevdf: More PELT vs DELAYED_DEQUEUE\", v6.13)";
    /// update_cfs_group() leaves a group entity whose queue has emptied
    /// (the last task delayed or gone) at its weight, so a delayed group
    /// keeps competing with the weight it slept with. Off (v6.12.0): it is
    /// reweighted to calc_group_shares() of an empty queue (its load_avg
    /// share, often MIN_SHARES).
    UPDATE_CFS_GROUP_VS_DELAYED = [0, 0, 0, 0, 0, 1], "schedlab (66951e4860d3 \"sched/fair: Fix update_cfs_group() vs DELAY_DEQUEUE\", v6.13)";
    /// The load balancer counts runnable tasks (`rq->cfs.h_nr_runnable`)
    /// in its group statistics (sum_h_nr_running) and when choosing the
    /// busiest queue. Off (v6.12, v6.13): it counts `h_nr_running`, so
    /// delayed tasks look like work to pull.
    LB_H_NR_RUNNABLE = [0, 0, 0, 0, 0, 1], "schedlab (\"sched/fair: Use the new cfs_rq.h_nr_runnable\", v6.14)";
    /// can_migrate_task() leaves delayed tasks where they are unless the
    /// balancer is migrating load. Off (v6.12, v6.13): a delayed task can be
    /// detached like any queued task and finishes its dequeue on the
    /// destination CPU.
    LB_NO_DELAYED = [0, 0, 0, 0, 0, 1], "schedlab (\"sched/fair: Do not try to migrate delayed dequeue task\", v6.14)";
    /// wake_affine_idle(): a sync wakeup stays on the waker's CPU when the
    /// waker is its only *runnable* task (`nr_running − cfs_h_nr_delayed()
    /// == 1`). Off (v6.12–v6.14): `nr_running == 1`, so a delayed task on
    /// the waker's CPU sends the wakee elsewhere.
    WAKE_SYNC_VS_DELAYED = [0, 0, 0, 0, 0, 1], "schedlab (aa3ee4f \"sched/fair: Fixup wake_up_sync() vs delayed dequeue\", after v6.14)";
    /// check_preempt_wakeup_fair() compares idle and non-idle on the
    /// matched entities (after find_matching_se()), then tests the wakee's
    /// policy. Off (v6.6.9, v6.8): a SCHED_IDLE curr is preempted by any
    /// non-idle wakee first, and a BATCH/IDLE wakee or NO_WAKEUP_PREEMPTION
    /// returns before the group rule.
    IDLE_STRICT_HIERARCHY = [0, 0, 0, 0, 1, 1], "schedlab (faa42d29419d \"sched/fair: Make SCHED_IDLE entity be preempted in strict hierarchy\", v6.11)";
    /// Only set_next_task_fair() moves a task to the head of `cfs_tasks`,
    /// so a task re-picked while it runs keeps its place. Off
    /// (v5.15–v6.11): every pick moves it there (pick_next_task_fair()'s
    /// `done:`), which changes what detach_tasks() takes first from the
    /// tail.
    CFS_TASKS_SET_NEXT = [0, 0, 0, 0, 1, 1], "schedlab (pick_next_task_fair()/put_prev_set_next_task() rework, v6.12)";
    /// pipe_read() wakes a writer after every read of a full pipe, though
    /// no page was freed (the writer waits again). Off (v6.14+): only a
    /// read that frees a page wakes one.
    PIPE_WAKE_WAS_FULL = [1, 1, 1, 1, 1, 0], "schedlab (fs/pipe.c; aaec5a95d596, v6.14)";
}

/// A kernel scheduler behaviour the engine leaves out: its name, what it
/// is in the kernel, and what a user of schedlab sees differently because
/// of it (`schedlab features --missing`, README "What is left out").
#[derive(Clone, Copy, Debug)]
pub struct Missing {
    pub name: &'static str,
    pub kernel: &'static str,
    pub difference: &'static str,
}

/// Every kernel behaviour of the scheduler that no flag or preset models.
pub const MISSING: &[Missing] = &[
    Missing {
        name: "CFS bandwidth control",
        kernel: "cpu.max quotas (CONFIG_CFS_BANDWIDTH): throttle_cfs_rq() takes a group off the CPU when its quota for the period is used up, unthrottle at the refill; HZ_BW in 6.6",
        difference: "a group is never throttled: a cgroup with a quota runs as if it had none, and no throttled time, periods or bursts appear",
    },
    Missing {
        name: "RT and deadline classes, the dl_server",
        kernel: "SCHED_FIFO/SCHED_RR (rt.c) and SCHED_DEADLINE (deadline.c) above the fair class, RT throttling, and from 6.12 the fair_server dl_server that reserves fair tasks 50 ms/s under RT load",
        difference: "every task is a fair task: nothing but another fair task preempts one, rq->nr_running counts fair tasks only, and there is no RT starvation for the fair server to relieve",
    },
    Missing {
        name: "TTWU_QUEUE IPIs to busy CPUs",
        kernel: "a wakeup onto a CPU of another LLC, busy or not, is queued on its wake list and finished by an IPI there (ttwu_queue_cond(), ttwu_queue_wakelist()), a microsecond or more later",
        difference: "a busy CPU of another LLC gets its wakee at once, without the IPI's delivery time: it is enqueued, and may preempt, that much early (wakeups onto an idle CPU use its wake list)",
    },
    Missing {
        name: "lazy preemption",
        kernel: "PREEMPT_LAZY (6.13+): resched_curr_lazy() only sets TIF_NEED_RESCHED_LAZY for a fair wakeup or slice end, and the next tick (or return to user) makes it a real preemption; PREEMPT_NONE/VOLUNTARY wait for a preemption point",
        difference: "every resched takes effect at once (full preemption): under the lazy model a 6.13+ kernel lets the running task go on until the next tick, which the model's wakeup latencies do not include",
    },
    Missing {
        name: "HRTICK",
        kernel: "HRTICK/HRTICK_DL (off by default): hrtick_start_fair() arms an hrtimer for the end of the running task's slice",
        difference: "a slice only ends at a tick or an update_curr() (as in the default kernel); turning HRTICK on in a kernel would end slices shorter than a tick on time, the model cannot",
    },
    Missing {
        name: "NUMA balancing",
        kernel: "task_numa_fault()/task_numa_migrate(): page-fault sampling of where a task's memory is, preferred nodes, numa_group, and the NUMA-aware checks in load balancing (migrate_degrades_locality())",
        difference: "there is no memory: on the two-socket topologies tasks never move towards their data and the balancer never refuses a move for locality (the allowed NUMA imbalance, adjust_numa_imbalance(), is modelled)",
    },
    Missing {
        name: "EAS and asymmetric capacity",
        kernel: "energy-aware wakeup placement (find_energy_efficient_cpu()), capacity < 1024 and big.LITTLE (select_idle_capacity(), misfit tasks, asym packing, overutilized), capacity lost to RT/IRQ pressure",
        difference: "every CPU has capacity 1024: no heterogeneous topologies, no misfit migration or energy model, and capacity_of() never shrinks",
    },
    Missing {
        name: "uclamp",
        kernel: "cpu.uclamp.min/max and sched_setattr() util clamps, which bias frequency selection, EAS and capacity fitting",
        difference: "clamps cannot be set and nothing depends on them (there is no frequency model either)",
    },
    Missing {
        name: "clusters",
        kernel: "the CLS domain level (SD_CLUSTER, CONFIG_SCHED_CLUSTER) for CPUs sharing an L2 and select_idle_sibling()'s cluster passes (sched_cluster_active())",
        difference: "topologies are built without a cluster level: wakeups do not prefer an idle CPU of the same cluster, and balancing has one level fewer on cluster machines",
    },
    Missing {
        name: "core scheduling",
        kernel: "CONFIG_SCHED_CORE: SMT siblings only run tasks with the same cookie (sched_core_*), forced idle, and the cookie tests in task_hot() and __select_idle_cpu()",
        difference: "any two tasks may share a core: no forced idle, and no cookie ever makes a task cache-hot or skips an idle sibling",
    },
    Missing {
        name: "proxy execution",
        kernel: "CONFIG_SCHED_PROXY_EXEC (6.18): a task blocked on a mutex stays queued and lends its scheduling context (rq->donor) to the lock owner",
        difference: "a task that waits leaves the queue (rq->donor is always rq->curr): a lock owner never runs on a waiter's slice or lag",
    },
    Missing {
        name: "autogroup, sched_ext, cpufreq, IRQ/steal time",
        kernel: "autogroup's per-session task groups, the sched_ext BPF class, frequency invariance (schedutil), IRQ and steal time left out of rq_clock_task()",
        difference: "tasks are only grouped by the scenario's [[group]]s; PELT runs at full speed on every CPU; all CPU time goes to tasks (costs.* stand in for overheads)",
    },
];

/// A set of feature flags (a bitmask, like `sysctl_sched_features`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Features(u128);

// One bit per flag: a flag past the mask's width would alias bit 0 (a shift
// by the width wraps in release builds).
const _: () = assert!(Feature::ALL.len() <= u128::BITS as usize);

impl Features {
    /// The defaults of the preset at `PRESET_NAMES[preset]`.
    pub fn preset(preset: usize) -> Features {
        let mut f = Features(0);
        for &flag in Feature::ALL {
            f.set(flag, flag.defaults()[preset]);
        }
        f
    }

    #[inline]
    pub fn has(self, flag: Feature) -> bool {
        self.0 & (1u128 << flag as u8) != 0
    }

    pub fn set(&mut self, flag: Feature, on: bool) {
        if on {
            self.0 |= 1u128 << flag as u8;
        } else {
            self.0 &= !(1u128 << flag as u8);
        }
    }

    /// The raw bitmask (stable across builds as long as the list order is).
    pub fn bits(self) -> u128 {
        self.0
    }

    /// Every flag that is on, in list order.
    pub fn enabled(self) -> impl Iterator<Item = Feature> {
        Feature::ALL.iter().copied().filter(move |&f| self.has(f))
    }
}

impl Feature {
    /// Looks a flag up by name; accepts the kernel's `NO_` prefix as "off"
    /// only through [`Feature::parse_setting`].
    pub fn from_name(name: &str) -> Option<Feature> {
        Feature::ALL.iter().copied().find(|f| f.name() == name)
    }

    /// Parses "NAME", "NO_NAME" (as written to /sys/kernel/debug/sched/features)
    /// into a flag and its value.
    pub fn parse_setting(s: &str) -> Option<(Feature, bool)> {
        match s.strip_prefix("NO_") {
            Some(rest) => Feature::from_name(rest).map(|f| (f, false)),
            None => Feature::from_name(s).map(|f| (f, true)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // That every flag has a bit of the mask is checked at compile time,
    // next to `Features`.
    #[test]
    fn names_unique_and_documented() {
        for (i, a) in Feature::ALL.iter().enumerate() {
            assert_eq!(*a as usize, i);
            assert_eq!(Feature::from_name(a.name()), Some(*a));
            assert!(!a.doc().is_empty(), "{} has no doc", a.name());
        }
    }

    #[test]
    fn preset_defaults_follow_features_h() {
        // features.h of 6.5: CFS with SIS_UTIL.
        let v65 = Features::preset(1);
        assert!(!v65.has(Feature::EEVDF) && v65.has(Feature::SIS_UTIL) && !v65.has(Feature::SIS_PROP));
        // features.h of 6.6.9: no DELAY_DEQUEUE / PREEMPT_SHORT yet.
        let v66 = Features::preset(2);
        assert!(v66.has(Feature::RUN_TO_PARITY) && v66.has(Feature::PLACE_LAG));
        assert!(!v66.has(Feature::DELAY_DEQUEUE) && !v66.has(Feature::PREEMPT_SHORT));
        assert!(!v66.has(Feature::DEADLINE_TREE));
        // 6.6.y has the reweight fix backported.
        assert!(!v66.has(Feature::REWEIGHT_EEVDF) && Features::preset(3).has(Feature::REWEIGHT_EEVDF));
        // features.h of 6.18.2.
        let v618 = Features::preset(5);
        assert!(v618.has(Feature::DELAY_DEQUEUE) && v618.has(Feature::PICK_BUDDY));
        assert!(!v618.has(Feature::NEXT_BUDDY));
        assert!(v618.has(Feature::VPROT));
    }

    /// README's "What is left out" has a row for every entry of MISSING,
    /// and MISSING names every behaviour issue 11 asks for.
    #[test]
    fn missing_list_matches_readme() {
        let readme = include_str!("../../../../README.md");
        for m in MISSING {
            assert!(readme.contains(&format!("| {}", m.name)), "README lacks a row for {}", m.name);
            assert!(!m.kernel.is_empty() && !m.difference.is_empty());
        }
        let names: Vec<&str> = MISSING.iter().map(|m| m.name).collect();
        for want in ["bandwidth", "dl_server", "TTWU_QUEUE", "lazy preemption", "HRTICK", "NUMA balancing", "EAS", "uclamp", "clusters", "core scheduling", "proxy execution"] {
            assert!(names.iter().any(|n| n.contains(want)), "{want} missing from MISSING");
        }
    }

    #[test]
    fn no_prefix_parses_as_off() {
        assert_eq!(Feature::parse_setting("NO_RUN_TO_PARITY"), Some((Feature::RUN_TO_PARITY, false)));
        assert_eq!(Feature::parse_setting("PLACE_LAG"), Some((Feature::PLACE_LAG, true)));
        assert_eq!(Feature::parse_setting("BOGUS"), None);
    }
}
