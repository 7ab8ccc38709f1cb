//! Kernel presets: a kernel version is a set of feature flags plus tunables.
//!
//! Read from (the trees of section 0 of docs/kernel-scheduler-reference.md):
//! - the default flags: `kernel/sched/features.h` of v5.15, v6.5, v6.6.9
//!   (presets "6.6" and "6.6.y"), v6.12 and v6.18.2, one `SCHED_FEAT` line
//!   each (the flags themselves are in features.rs);
//! - the base slice: `normalized_sysctl_sched_min_granularity` (5.15, 6.5)
//!   and `normalized_sysctl_sched_base_slice` (6.6.9: 750000, 6.12: 750000,
//!   6.18.2: 700000) in `kernel/sched/fair.c` of the same trees;
//! - the CPU scaling: `sysctl_sched_tunable_scaling` and
//!   `get_update_sysctl_factor()` in fair.c, `TICK_NSEC` in
//!   include/linux/jiffies.h.
//!
//! "6.6" differs from the v6.6.9 tree only in reweight_entity(), which is
//! v6.6.0's (before eab03c23c2a1); v6.6.0 itself was not read.

use crate::kernel::sched::features::{Features, PRESET_NAMES};

/// `sysctl_sched_tunable_scaling` (fair.c): how tunables grow with CPUs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scaling {
    /// SCHED_TUNABLESCALING_NONE: factor 1.
    None,
    /// SCHED_TUNABLESCALING_LOG (the default): factor 1 + ilog2(cpus).
    Log,
    /// SCHED_TUNABLESCALING_LINEAR: factor = cpus.
    Linear,
}

/// A kernel preset: its name, default flags and tunables.
#[derive(Clone, Debug)]
pub struct Preset {
    pub name: &'static str,
    pub summary: &'static str,
    pub source: &'static str,
    pub features: Features,
    /// `normalized_sysctl_sched_base_slice` (ns, before CPU scaling).
    pub base_slice_normalized: u64,
}

/// Every preset: what it models and which source tree it was read from.
pub fn presets() -> Vec<Preset> {
    PRESET_NAMES
        .iter()
        .enumerate()
        .map(|(i, &name)| {
            let (summary, source, base) = match name {
                "5.15" => (
                    "CFS: vruntime-ordered pick with next/last/skip buddies, sched_latency/min_granularity slices, check_preempt_tick(), GENTLE_FAIR_SLEEPERS and START_DEBIT placement, SIS_PROP",
                    "v5.15.0 source (features.h of 5.15)",
                    750_000,
                ),
                "6.5" => (
                    "the last CFS: as 5.15, but select_idle_cpu() limited by SIS_UTIL instead of SIS_PROP, an idle entity's own minimum slice and sleeper credit, the tick's slice capped at sched_latency (stands in for 6.0-6.5, e.g. seed 004's 6.3-rc6)",
                    "v6.5.0 source (features.h of 6.5)",
                    750_000,
                ),
                "6.6" => (
                    "EEVDF as first merged (v6.6.0): tree sorted by vruntime with min_deadline, no custom slices, no delayed dequeue. Reweighting a queued entity (a nice change, a cgroup's per-CPU share) keeps its vruntime and only rescales its relative deadline, so its lag changes with the weight; this is the only difference from 6.6.y",
                    "v6.6.9 source with v6.6.0's reweight_entity() (before eab03c23c2a1); 6.6.0 itself was not read",
                    750_000,
                ),
                "6.6.y" => (
                    "v6.6 stable as of 6.6.9: as 6.6, but reweight_eevdf() keeps a queued entity's lag (v' = V - (V - v)·w/w', V taken after removing the entity, no lag clamp) and a reweighted queued entity that is not running updates min_vruntime; the same as 6.6 + reweight-fix",
                    "v6.6.9 source",
                    750_000,
                ),
                "6.12" => (
                    "deadline-sorted tree with O(1) leftmost pick, custom slices, PREEMPT_SHORT, DELAY_DEQUEUE, PLACE_REL_DEADLINE; a delayed task still counts as runnable for PELT, load balancing and sync wake-ups, and can be migrated (the 6.13/6.14 fixes are off)",
                    "v6.12.0 source",
                    750_000,
                ),
                _ => (
                    "v6.18.5: vprot slice protection, PICK_BUDDY, reweight via place_entity(), 0.70 ms base slice, yield forfeits vruntime (6.18.y backport), delayed tasks not runnable anywhere and moved only to migrate load, proportional newidle balance",
                    "v6.18.2 source + 6.18.5's newidle patches",
                    700_000,
                ),
            };
            Preset { name, summary, source, features: Features::preset(i), base_slice_normalized: base }
        })
        .collect()
}

/// Looks a preset up by name ("5.15", "6.5", "6.6", "6.6.y", "6.12", "6.18").
pub fn preset(name: &str) -> Option<Preset> {
    presets().into_iter().find(|p| p.name == name)
}

/// The tunables a simulation runs with, derived from a preset, the CPU count
/// and scenario overrides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tunables {
    pub hz: u32,
    /// `TICK_NSEC` = (NSEC_PER_SEC + HZ/2) / HZ.
    pub tick_nsec: u64,
    /// `normalized_sysctl_sched_base_slice`.
    pub base_slice_normalized: u64,
    /// `sysctl_sched_base_slice` = normalized × factor.
    pub base_slice: u64,
    pub scaling: Scaling,
    /// `sysctl_sched_migration_cost` (0.5 ms).
    pub migration_cost: u64,
    /// CFS: `sysctl_sched_latency` (6 ms), `sysctl_sched_min_granularity`
    /// (0.75 ms) and `sysctl_sched_wakeup_granularity` (1 ms), each ×
    /// factor; `sched_nr_latency` = 8.
    pub latency: u64,
    pub min_granularity: u64,
    pub wakeup_granularity: u64,
    pub nr_latency: u64,
    /// Costs, in CPU time, charged so placement matters (schedlab's own
    /// model, not kernel tunables): a context switch (charged to the task
    /// switched in), the first run after a migration (cache refill), and
    /// each CPU select_idle_cpu() or a balance pass looks at (charged to
    /// the waker, or the balancing CPU's idle time).
    pub cost_context_switch: u64,
    /// A switch between threads of one process (no mm switch).
    pub cost_thread_switch: u64,
    /// A move to a CPU of another LLC: the task restarts cache-cold.
    pub cost_migration: u64,
    /// A move within one LLC (`costs.migration_llc`): L1 and L2 refill
    /// from the shared L3. A move to an SMT sibling, which shares L1 and
    /// L2, costs nothing.
    pub cost_migration_llc: u64,
    pub cost_scan: u64,
    /// try_to_wake_up() from a task (a pipe write, futex_wake, kill) and
    /// the rest of its system call, charged to the waker when it wakes a
    /// sleeping task (to the next task when the wakee preempts it:
    /// `Sched::wake_cost`).
    pub cost_wakeup: u64,
    /// A fixed idle-exit latency for every wakeup of an idle CPU (None: the
    /// topology's idle states decide; Some(0): none).
    pub idle_exit: Option<u64>,
    /// The system call of each channel operation (`costs.channel_op`):
    /// compiled into the programs as a `run` before each send and after
    /// each recv.
    pub cost_channel_op: u64,
}

/// Default costs: a context switch ≈ 1 µs (lmbench lat_ctx on recent x86;
/// 0.6 µs between threads of one process), a cache-cold restart ≈ 10 µs,
/// probing one CPU's run queue ≈ 50 ns.
pub const DEFAULT_COSTS: [u64; 3] = [1_000, 10_000, 50];

/// A move within one LLC: what the first loop after a move costs a
/// process that writes and reads 100 bytes through a pipe and touches
/// 16 KB of its own data per loop, against a loop on the same CPU
/// (measured on this project's 2-vCPU EPYC VM, whose vCPUs share one L3:
/// 0.36–0.73 µs over four runs, 0.24–0.45 µs with no data of its own):
/// the benchmarks' tasks are such loops.
pub const DEFAULT_MIGRATION_LLC_COST: u64 = 500;

/// What try_to_wake_up() costs the task that calls it, in its system call
/// (pipe_write()'s wake_up, futex_wake(), kill()): taking the wakee's
/// pi_lock and run-queue lock, select_task_rq_fair() (whose run-queue
/// probes are `costs.scan` apart), enqueue_task_fair() with its PELT
/// updates, check_preempt_wakeup(), and for another CPU the IPI or the
/// remote lock's cache-line transfer: about 1 µs on a recent server
/// (a futex_wake() that wakes a waiter against one that finds none).
pub const DEFAULT_WAKEUP_COST: u64 = 1_000;

impl Tunables {
    /// Mirrors `update_sysctl()`/`sched_init_granularity()` (fair.c, v6.18):
    /// scale the normalized base slice by `get_update_sysctl_factor()`.
    /// `base_slice_override` is a value written to debugfs `base_slice_ns`,
    /// which the kernel takes as is (and re-derives the normalized value from).
    pub fn new(hz: u32, base_slice_normalized: u64, scaling: Scaling, cpus: u32, base_slice_override: Option<u64>) -> Tunables {
        let factor = sysctl_factor(scaling, cpus);
        let (normalized, base) = match base_slice_override {
            Some(v) => (v / factor, v),
            None => (base_slice_normalized, base_slice_normalized * factor),
        };
        Tunables {
            hz,
            tick_nsec: tick_nsec(hz),
            base_slice_normalized: normalized,
            base_slice: base,
            scaling,
            migration_cost: 500_000,
            latency: 6_000_000 * factor,
            min_granularity: 750_000 * factor,
            wakeup_granularity: 1_000_000 * factor,
            nr_latency: 8,
            cost_context_switch: DEFAULT_COSTS[0],
            cost_thread_switch: DEFAULT_COSTS[0] * 6 / 10,
            cost_migration: DEFAULT_COSTS[1],
            cost_migration_llc: DEFAULT_MIGRATION_LLC_COST,
            cost_scan: DEFAULT_COSTS[2],
            cost_wakeup: DEFAULT_WAKEUP_COST,
            idle_exit: None,
            cost_channel_op: 0,
        }
    }
}

/// `TICK_NSEC` (include/linux/jiffies.h): the tick period rounded to the
/// nearest ns (4 000 000 at HZ=250, 3 333 333 at HZ=300).
pub fn tick_nsec(hz: u32) -> u64 {
    (1_000_000_000 + hz as u64 / 2) / hz as u64
}

/// Mirrors `get_update_sysctl_factor()` (fair.c, v6.18): CPUs beyond 8 do
/// not scale further.
pub fn sysctl_factor(scaling: Scaling, online_cpus: u32) -> u64 {
    let cpus = online_cpus.clamp(1, 8) as u64;
    match scaling {
        Scaling::None => 1,
        Scaling::Linear => cpus,
        Scaling::Log => 1 + cpus.ilog2() as u64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference §2.4: default factors 1 CPU → 1, 2–3 → 2, 4–7 → 3, ≥8 → 4;
    /// base slice 0.75/1.5/2.25/3.0 ms before v6.15 and 0.70/1.40/2.10/2.80
    /// ms after.
    #[test]
    fn base_slice_scales_with_cpus() {
        let cases = [(1, 1), (2, 2), (3, 2), (4, 3), (7, 3), (8, 4), (224, 4)];
        for (cpus, factor) in cases {
            assert_eq!(sysctl_factor(Scaling::Log, cpus), factor, "{cpus} cpus");
        }
        let t = Tunables::new(250, 750_000, Scaling::Log, 4, None);
        assert_eq!(t.base_slice, 2_250_000);
        let t = Tunables::new(250, preset("6.18").unwrap().base_slice_normalized, Scaling::Log, 96, None);
        assert_eq!(t.base_slice, 2_800_000);
        assert_eq!(Tunables::new(1000, 750_000, Scaling::None, 96, None).base_slice, 750_000);
        assert_eq!(Tunables::new(1000, 750_000, Scaling::Linear, 6, None).base_slice, 4_500_000);
    }

    #[test]
    fn tick_nsec_rounds() {
        assert_eq!(tick_nsec(250), 4_000_000);
        assert_eq!(tick_nsec(1000), 1_000_000);
        assert_eq!(tick_nsec(300), 3_333_333);
    }

    #[test]
    fn base_slice_override_is_taken_as_written() {
        let t = Tunables::new(250, 700_000, Scaling::Log, 8, Some(3_000_000));
        assert_eq!(t.base_slice, 3_000_000);
        assert_eq!(t.base_slice_normalized, 750_000);
    }
}
