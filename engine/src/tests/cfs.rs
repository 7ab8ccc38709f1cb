//! CFS (v5.15) oracles, computed by hand.

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::{queue, MS};
use crate::lab::build::{from_text, Overrides};
use crate::lab::sim::LogMode;

fn cfs_sched() -> crate::kernel::sched::core::Sched {
    super::sched("5.15", &[])
}

/// sched_slice() of three equal nice-0 tasks on one CPU: the period is the
/// latency, 6 ms (3 ≤ sched_nr_latency = 8; factor 1 on one CPU), and each
/// gets 6 ms · 1024/3072. __calc_delta() divides with the queue's computed
/// inverse 0xFFFFFFFF/3072 = 1 398 101: 6 000 000 · (1024 · 1 398 101) >> 32
/// = 6 000 000 · 1 431 655 424 / 2^32 = 1 999 999 ns (not 2 000 000).
#[test]
fn sched_slice_of_three_equal_tasks() {
    let mut s = cfs_sched();
    let a = queue(&mut s, 1024, 0, 0);
    queue(&mut s, 1024, 0, 0);
    queue(&mut s, 1024, 0, 0);
    assert_eq!(s.tun.latency, 6 * MS);
    assert_eq!(s.sched_slice(0, a), 1_999_999);
}

/// wakeup_preempt_entity(): the wakee must be more than wakeup_gran —
/// 1 ms for a nice-0 wakee on one CPU — behind the running entity. At a
/// lead of exactly 1 ms it does not preempt (0), 1 ns more and it does (1);
/// no lead at all gives −1.
#[test]
fn wakeup_preempt_entity_boundary_is_wakeup_gran() {
    let mut s = cfs_sched();
    let curr = queue(&mut s, 1024, 10 * MS, 0);
    let w = queue(&mut s, 1024, 9 * MS, 0);
    assert_eq!(s.wakeup_preempt_entity(curr, w), 0);
    s.ents[w as usize].vruntime = 9 * MS - 1;
    assert_eq!(s.wakeup_preempt_entity(curr, w), 1);
    s.ents[w as usize].vruntime = 10 * MS;
    assert_eq!(s.wakeup_preempt_entity(curr, w), -1);
    // A light wakee (nice 5, weight 335) needs a bigger lead: wakeup_gran =
    // calc_delta_fair(1 ms) = 3 056 716 ns.
    s.ents[w as usize].load = crate::kernel::sched::weight::LoadWeight::for_task(5, false);
    s.ents[w as usize].vruntime = 10 * MS - 3_056_716;
    assert_eq!(s.wakeup_preempt_entity(curr, w), 0);
    s.ents[w as usize].vruntime -= 1;
    assert_eq!(s.wakeup_preempt_entity(curr, w), 1);
}

/// place_entity() for a wakeup: with GENTLE_FAIR_SLEEPERS a long sleeper
/// lands half a latency (3 ms) before min_vruntime; without it, a full
/// latency (6 ms). A short sleeper whose own vruntime is later keeps it.
#[test]
fn sleeper_gets_half_a_latency_of_credit() {
    for (gentle, credit) in [(true, 3 * MS), (false, 6 * MS)] {
        let mut s = super::sched("5.15", &[(crate::kernel::sched::features::Feature::GENTLE_FAIR_SLEEPERS, gentle)]);
        queue(&mut s, 1024, 50 * MS, 0);
        s.cfs_rqs[0].min_vruntime = 50 * MS;
        let t = s.add_task(super::one_cpu(), 0, crate::kernel::sched::core::Policy::Normal, None);
        let se = s.tasks[t as usize].se;
        s.ents[se as usize].vruntime = 10 * MS;
        s.cfs_place_entity(0, se, false);
        assert_eq!(s.ents[se as usize].vruntime, 50 * MS - credit);
        s.ents[se as usize].vruntime = 49 * MS;
        s.cfs_place_entity(0, se, false);
        assert_eq!(s.ents[se as usize].vruntime, 49 * MS);
    }
}

/// A periodic task against two hogs: CFS's sleeper credit lets it run
/// whenever it wakes (it never waits behind a hog for a full slice), so it
/// gets its whole 1 ms every 11 ms: 1/11 = 9.09 % of the CPU, and every
/// switch away from it is voluntary.
#[test]
fn cfs_sleeper_gets_its_demand() {
    let text = "[sim]\nduration = \"2s\"\nkernel = \"5.15\"\n[[task]]\nname = \"hog\"\ncount = 2\nprogram = \"run\"\n\
        [[task]]\nname = \"tick\"\nprogram = \"loop { sleep 10ms; run 1ms }\"\n";
    let (mut sim, _) = from_text(text, &Overrides::default(), LogMode::HashOnly).unwrap();
    sim.run();
    let r = sim.results("5.15");
    let tick = &r.tasks[2];
    assert!((tick.share - 1.0 / 11.0).abs() < 0.002, "{}", tick.share);
    assert_eq!(tick.nr_involuntary_switches, 0);
}
