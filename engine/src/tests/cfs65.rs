//! The last CFS (v6.5): what differs from v5.15, computed by hand from
//! v6.5.0's fair.c.

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::{queue, MS};
use crate::kernel::sched::core::Policy;
use crate::kernel::sched::features::Feature::*;
use crate::kernel::sched::weight::LoadWeight;

/// sched_slice() (v6.5) of a SCHED_IDLE task (weight 3) next to a nice-0
/// one on one CPU: the period is the 6 ms latency and its share
/// 6 ms · 3/(1024 + 3) ≈ 17.5 µs, which BASE_SLICE raises to a minimum.
/// v5.15 raises it to min_granularity (0.75 ms on one CPU); v6.5, the queue
/// not being all idle, to sysctl_sched_idle_min_granularity — also 0.75 ms,
/// but not scaled by the CPU count, which a 4-CPU machine shows: there
/// min_granularity is 0.75 · 3 = 2.25 ms. With only idle entities queued
/// (sched_idle_cfs_rq()) min_granularity applies again.
#[test]
fn an_idle_entity_gets_the_idle_min_granularity() {
    for (preset, expect) in [("5.15", 2_250_000), ("6.5", 750_000)] {
        let mut s = super::sched(preset, &[]);
        s.tun.min_granularity = 2_250_000; // 4 CPUs: 0.75 ms × (1 + ilog2(4))
        queue(&mut s, 1024, 0, 0);
        let idle = queue(&mut s, 3, 0, 0);
        s.ents[idle as usize].idle = true;
        s.cfs_rqs[0].nr_idle = 1;
        assert_eq!(s.sched_slice(0, idle), expect, "{preset}");
    }
    // All idle (three idle entities: period 6 ms, a share of 2 ms each):
    // v6.5's sched_idle_cfs_rq() is true, so min_granularity, 2.25 ms.
    let mut s = super::sched("6.5", &[]);
    s.tun.min_granularity = 2_250_000;
    let idle: Vec<u32> = (0..3).map(|_| queue(&mut s, 3, 0, 0)).collect();
    for &e in &idle {
        s.ents[e as usize].idle = true;
    }
    s.cfs_rqs[0].nr_idle = 3;
    assert_eq!(s.sched_slice(0, idle[0]), 2_250_000);
}

/// place_entity() (v6.5) of a waking idle entity: its sleeper credit is
/// min_granularity (halved by GENTLE_FAIR_SLEEPERS: 0.375 ms on one CPU),
/// not half a latency (3 ms) as for a normal task, or as in v5.15.
#[test]
fn an_idle_sleeper_gets_a_min_granularity_of_credit() {
    for (preset, credit) in [("5.15", 3 * MS), ("6.5", 375_000)] {
        let mut s = super::sched(preset, &[]);
        queue(&mut s, 1024, 50 * MS, 0);
        s.cfs_rqs[0].min_vruntime = 50 * MS;
        let t = s.add_task(super::one_cpu(), 0, Policy::Idle, None);
        let se = s.tasks[t as usize].se;
        s.ents[se as usize].vruntime = 0;
        s.cfs_place_entity(0, se, false);
        assert_eq!(s.ents[se as usize].vruntime, 50 * MS - credit, "{preset}");
    }
}

/// check_preempt_tick() (v6.5) caps the ideal runtime at sched_latency: a
/// nice-0 task next to a nice-19 one (weight 15) has a slice of
/// 6 ms · 1024/1039 ≈ 5.91 ms, under the cap; but alone with a heavier
/// queue weight a slice can exceed it. With 9 nice-0 tasks queued the period
/// is 9 · 0.75 = 6.75 ms (more than sched_nr_latency = 8) and a nice -10
/// task (weight 9548) gets 6.75 ms · 9548/(9548 + 8·1024) = 3.63 ms; give it
/// weight 88761 (nice -20) and its share is 6.75 · 88761/96953 = 6.18 ms,
/// above the 6 ms latency: v6.5 preempts it after 6 ms of running, v5.15
/// only after 6.18 ms.
#[test]
fn the_tick_caps_a_slice_at_the_latency() {
    for (preset, preempted_at_6_1ms) in [("5.15", false), ("6.5", true)] {
        let mut s = super::sched(preset, &[(ALT_PERIOD, false)]);
        let heavy = queue(&mut s, 88761, 0, 0);
        for _ in 0..8 {
            queue(&mut s, 1024, 0, 0);
        }
        let ideal = s.sched_slice(0, heavy);
        assert!((6_170_000..6_190_000).contains(&ideal), "{ideal}");
        let e = &mut s.ents[heavy as usize];
        e.sum_exec_runtime = 6_100_000;
        e.prev_sum_exec_runtime = 0;
        e.load = LoadWeight::for_task(-20, false);
        s.check_preempt_tick(0, heavy);
        assert_eq!(s.rqs[0].resched, preempted_at_6_1ms, "{preset}");
    }
}
