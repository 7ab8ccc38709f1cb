//! The patch registry: named, documented changes on top of a kernel
//! preset, each listing where it comes from. A patch sets feature flags
//! (which select the code paths it adds, see features.rs) and tunables.
//! `schedlab patches` lists them; scenarios name them in `[sim] patches`,
//! and `schedlab compare --base 6.6 --patch 6.6+reweight-fix` compares.
//!
//! Read from: the seed threads' mails in shared/seeds (000: Abel Wu's
//! "sched/eevdf: Optimize reweight and pick" series, patches 1-4; 001:
//! Venkatesh Pallipadi's next buddy hint; 002: SIS_FILTER, posted by Chen Yu;
//! 003: Ingo Molnar's same-prio wakeup preemption patch and Chen Yu's reply;
//! 004: the EEVDF RFC as Chen Yu tested it, and its PLACE_BONUS, patch
//! 15/17), with the mainline commit each became where it was merged; and,
//! for the two not in the seeds, the tip sched/core commits named in their
//! `source` (NEXT_BUDDY for EEVDF, late 2025; 2ae891b82695, the 0.70 ms base
//! slice). Each patch's `source` names its mail or commit.

use crate::kernel::sched::features::{Feature, Feature::*, Features};

/// One patch.
#[derive(Clone, Debug)]
pub struct Patch {
    pub name: &'static str,
    pub title: &'static str,
    pub source: &'static str,
    /// What it changes, in a sentence or two.
    pub summary: &'static str,
    /// Flags it sets.
    pub flags: &'static [(Feature, bool)],
    /// A new normalized base slice (ns), if it changes that tunable.
    pub base_slice_normalized: Option<u64>,
}

/// Every patch.
pub const PATCHES: &[Patch] = &[
    Patch {
        name: "reweight-fix",
        title: "sched/eevdf: Fix vruntime adjustment on reweight",
        source: "seeds/000 patch 1/4 (Abel Wu, Nov 2023); mainline eab03c23c2a1 (v6.7)",
        summary: "Reweighting a queued entity keeps its lag: v' = V − (V − v)·w/w', d' = V + (d − V)·w/w' (V taken after removing the entity, as posted).",
        flags: &[(REWEIGHT_EEVDF, true), (REWEIGHT_V_FIX, false), (REWEIGHT_PLACE, false)],
        base_slice_normalized: None,
    },
    Patch {
        name: "deadline-tree",
        title: "sched/eevdf: Sort the rbtree by virtual deadline",
        source: "seeds/000 patch 2/4 (Abel Wu); mainline 2227a957e1d5 (v6.8)",
        summary: "The run queue tree is keyed by deadline and augmented with min vruntime; the pick needs one descent instead of two.",
        flags: &[(DEADLINE_TREE, true)],
        base_slice_normalized: None,
    },
    Patch {
        name: "pick-fastpath",
        title: "sched/eevdf: O(1) fastpath for task selection",
        source: "seeds/000 patch 3/4 (Abel Wu); mainline ee4373dc902c (v6.8)",
        summary: "With the deadline-sorted tree, pick the cached leftmost entity when it is eligible (includes deadline-tree).",
        flags: &[(DEADLINE_TREE, true), (PICK_FASTPATH, true)],
        base_slice_normalized: None,
    },
    Patch {
        name: "pick-stats",
        title: "sched/stats: Add statistics for pick_eevdf()",
        source: "seeds/000 patch 4/4 (Abel Wu; not intended upstream)",
        summary: "Counts fast-path hits, tree walks and nodes visited per pick; `schedlab run` prints them.",
        flags: &[(PICK_STATS, true)],
        base_slice_normalized: None,
    },
    Patch {
        name: "next-buddy-hint",
        title: "sched: Next buddy hint on sleep and preempt path",
        source: "seeds/001 (Venkatesh Pallipadi, tip sched/core 2011-04-19; v3.0)",
        summary: "When a task sleeps while its group still has work, make the group the next buddy; under CFS also set the wakee as next buddy when it preempts. Fewer cross-group switches.",
        flags: &[(NEXT_BUDDY_HINT, true)],
        base_slice_normalized: None,
    },
    Patch {
        name: "sis-filter",
        title: "sched/fair: Introduce SIS_FILTER to skip overloaded CPUs during SIS",
        source: "seeds/002 (Abel Wu, posted by Chen Yu, 2022; not merged)",
        summary: "Each CPU marks itself overloaded in its LLC's mask at every tick; select_idle_cpu() skips those CPUs.",
        flags: &[(SIS_FILTER, true)],
        base_slice_normalized: None,
    },
    Patch {
        name: "no-same-prio-preempt",
        title: "sched/fair: Do not wakeup-preempt same-prio SCHED_OTHER tasks",
        source: "seeds/003 (Ingo Molnar, Sep 2023; not merged)",
        summary: "A waking SCHED_OTHER task never preempts a running one of the same priority (nice); only ticks switch between them.",
        flags: &[(NO_SAME_PRIO_PREEMPT, true)],
        base_slice_normalized: None,
    },
    Patch {
        name: "preempt-hint",
        title: "negative se->slice: \"wants to be wakeup-preempted\"",
        source: "seeds/003 reply (Chen Yu, Sep 2023; proposal)",
        summary: "Wakeup preemption only of running tasks that carry the hint (task key want_preempt = true); all others run until the tick.",
        flags: &[(PREEMPT_HINT, true)],
        base_slice_normalized: None,
    },
    Patch {
        name: "eevdf-rfc",
        title: "sched: EEVDF using latency-nice (RFC, the sched/eevdf branch of April 2023)",
        source: "seeds/004 (Chen Yu tested Peter Zijlstra's queue sched/eevdf at 8c59a975d5ee, on 6.3-rc; posted as [PATCH 00/17] 2023-03-28; its tick rule replaced by the fixlet in \"Re: schbench v1.0\", 2023-04-20; merged as v6.6)",
        summary: "EEVDF on a 6.3-era kernel (apply it to 6.5, the last CFS): v6.6's pick, lag placement and half-slice start, without RUN_TO_PARITY (August 2023); the tick reschedules whenever pick_eevdf() would not pick the running task, and a used-up request only moves the deadline. (The branch's own pick_eevdf(), before its October 2023 fix, is NO_PICK_BEST_LEFT: README, \"Reproducing the seed threads\".)",
        flags: &[
            (EEVDF, true),
            (PLACE_LAG, true),
            (PLACE_DEADLINE_INITIAL, true),
            (RUN_TO_PARITY, false),
            (TICK_PICK_PREEMPT, true),
            // "sched/fair: Commit to EEVDF" removed CFS's placement, buddies and slices.
            (GENTLE_FAIR_SLEEPERS, false),
            (START_DEBIT, false),
            (LAST_BUDDY, false),
            (ALT_PERIOD, false),
            (BASE_SLICE, false),
            (CFS_IDLE_MIN_GRAN, false),
            (CFS_SLICE_CAP, false),
        ],
        base_slice_normalized: None,
    },
    Patch {
        name: "place-bonus",
        title: "[RFC] sched/eevdf: Sleeper bonus",
        source: "seeds/004 (Peter Zijlstra, EEVDF RFC patch 15/17, Mar 2023; Chen Yu's PLACE_BONUS vs NO_PLACE_BONUS tests)",
        summary: "A waking task that did not migrate is placed up to half a slice left of its lag placement (never left of its old vruntime).",
        flags: &[(PLACE_BONUS, true)],
        base_slice_normalized: None,
    },
    Patch {
        name: "eevdf-next-buddy",
        title: "sched/fair: Enable scheduler feature NEXT_BUDDY",
        source: "tip sched/core late 2025, reverted early 2026",
        summary: "A waking task that preempts becomes the next buddy, and the pick honours an eligible next buddy.",
        flags: &[(NEXT_BUDDY, true), (PICK_BUDDY, true)],
        base_slice_normalized: None,
    },
    Patch {
        name: "base-slice-0.70",
        title: "sched: Reduce the default slice to avoid tasks getting an extra tick",
        source: "2ae891b82695 (tip sched/core 2025-02-14; v6.15)",
        summary: "normalized_sysctl_sched_base_slice 0.75 ms → 0.70 ms, so a 3 ms (4-CPU-scaled 2.8 ms) slice ends before the third 1 ms tick.",
        flags: &[],
        base_slice_normalized: Some(700_000),
    },
];

/// Looks a patch up by name.
pub fn patch(name: &str) -> Option<&'static Patch> {
    PATCHES.iter().find(|p| p.name == name)
}

impl Patch {
    /// Applies the patch's flags.
    pub fn apply(&self, f: &mut Features) {
        for &(flag, on) in self.flags {
            f.set(flag, on);
        }
    }
}
