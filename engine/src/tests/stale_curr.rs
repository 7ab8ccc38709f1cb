//! Issue 15 (a): `find_matching_se()` reached with NIL from
//! `sched_balance_rq()` → `wakeup_preempt()`.
//!
//! Active balancing pushes a CPU's running task away inside `__schedule()`
//! (schedlab folds the stopper into the next schedule of that CPU). When
//! the rest of that CPU's queue is only delayed entities (DELAY_DEQUEUE,
//! 6.12+), the pick dequeues them, finds nothing and balances newly idle;
//! the task it pulls is checked for preemption against the CPU's `curr` —
//! still the pushed task, whose entities now hang off the other CPU's
//! queues. The two hierarchies share no cfs_rq, and find_matching_se()
//! walked past the roots. The kernel never looks: `__schedule()` clears
//! TIF_NEED_RESCHED only after pick_next_task(), so the pulled task finds
//! the resched pending (`test_tsk_need_resched(rq->curr)`) and returns, as
//! schedlab now does too.

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::rc::Rc;

use crate::kernel::lib::cpumask::CpuMask;
use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::core::{Policy, PrevState, Sched};
use crate::kernel::sched::features::{Features, PRESET_NAMES};
use crate::kernel::sched::presets::{self, Scaling, Tunables};
use crate::kernel::sched::topology::Topology;
use crate::lab::trace::{Cause, Record, Verdict};

const MS: u64 = 1_000_000;

fn two_cpus(preset: &str) -> Sched {
    let i = PRESET_NAMES.iter().position(|p| *p == preset).unwrap();
    let p = presets::preset(preset).unwrap();
    let topo = Rc::new(Topology::preset("2cpu-vm").unwrap());
    let mut s = Sched::new(topo, Features::preset(i), Tunables::new(250, p.base_slice_normalized, Scaling::Log, 2, None));
    s.tracing = true;
    s
}

fn task(s: &mut Sched, cpus: &[u32]) -> u32 {
    s.add_task(Rc::new(CpuMask::from_cpus(2, cpus.iter().copied())), 0, Policy::Normal, None)
}

fn widen(s: &mut Sched, t: u32) {
    s.tasks[t as usize].affinity = Rc::new(CpuMask::full(2));
    s.tasks[t as usize].nr_cpus_allowed = 2;
}

#[test]
fn a_pull_after_an_active_push_does_not_look_at_the_pushed_task() {
    for preset in ["6.12", "6.18"] {
        let mut s = two_cpus(preset);
        // CPU 0: a (movable) and b (pinned); CPU 1: d (pinned) running and
        // c (movable) queued behind it.
        let (a, b, c, d) = (task(&mut s, &[0]), task(&mut s, &[0]), task(&mut s, &[1]), task(&mut s, &[1]));
        for t in [b, a, d, c] {
            s.wake_up_new_task(t);
        }
        assert_eq!((s.tasks[a as usize].cpu, s.tasks[b as usize].cpu, s.tasks[c as usize].cpu, s.tasks[d as usize].cpu), (0, 0, 1, 1));
        s.schedule(0, PrevState::Running);
        s.schedule(1, PrevState::Running);
        // b runs 5 ms on CPU 0 and blocks with negative lag (it ran ahead
        // of a): its dequeue is delayed. a runs.
        let b_runs = s.rqs[0].curr == b;
        if !b_runs {
            s.set_now(s.now + MS);
            s.schedule(0, PrevState::Running);
        }
        s.set_now(s.now + 5 * MS);
        assert_eq!(s.rqs[0].curr, b);
        s.schedule(0, PrevState::Blocking);
        assert_eq!(s.rqs[0].curr, a, "{preset}");
        assert!(s.ents[s.tasks[b as usize].se as usize].sched_delayed, "{preset}: b's dequeue is delayed");
        if s.rqs[1].curr != d {
            s.schedule(1, PrevState::Running);
        }
        widen(&mut s, a);
        widen(&mut s, c);
        // 0.3 ms later (a's first deadline, half a slice after its fork, is
        // not reached; c never ran, so it is not cache-hot) the balancer on
        // CPU 1 asks for a's push (active_balance()).
        s.set_now(s.now + 300_000);
        s.rqs[0].push_cpu = 1;
        s.resched_curr(0, Cause::ActiveBalance);
        s.records.clear();
        let (next, _) = s.schedule(0, PrevState::Running);
        // a went to CPU 1, b's delayed dequeue finished, and the newly idle
        // balance pulled c, finding the resched still pending.
        assert_eq!(s.tasks[a as usize].cpu, 1, "{preset}");
        assert_eq!((next, s.tasks[c as usize].cpu), (c, 0), "{preset}");
        let check = s.records.iter().find_map(|r| match *r {
            Record::WakeupCheck { cpu: 0, wakee, verdict, .. } if wakee == c => Some(verdict),
            _ => None,
        });
        assert_eq!(check, Some(Verdict::AlreadyPending), "{preset}: {:?}", s.records);
        assert!(!s.rqs[0].resched && s.rqs[0].curr == c && s.rqs[1].curr != NIL);
    }
}

/// find_matching_se() itself stops at the roots when given entities of two
/// CPUs (no caller does that any more, above): a task on each CPU of
/// 2cpu-vm, both at depth 0 on their CPU's root cfs_rq, come back as they
/// went in instead of walking up into NIL.
#[test]
fn find_matching_se_stops_at_the_roots_of_two_cpus() {
    let mut s = two_cpus("6.18");
    let (a, b) = (task(&mut s, &[0]), task(&mut s, &[1]));
    s.wake_up_new_task(a);
    s.wake_up_new_task(b);
    let (sa, sb) = (s.tasks[a as usize].se, s.tasks[b as usize].se);
    assert_ne!(s.ents[sa as usize].cfs_rq, s.ents[sb as usize].cfs_rq);
    assert_eq!(s.find_matching_se_pub(sa, sb), (sa, sb));
}
