//! Kernel-derived expected values, each computed by hand in the comments.

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use super::{queue, sched, MS};
use crate::lab::build::{from_text, Overrides};
use crate::kernel::sched::features::Feature::*;
use crate::lab::sim::LogMode;
use crate::kernel::sched::weight::{scale_load, LoadWeight};

/// place_entity() with PLACE_LAG, W = 2048 (two nice-0 entities at
/// v = 10 ms, so V = 10 ms), joining entity w = 1024 with stored lag 1 ms:
///   inflated lag = 1 ms · (W + w) / W = 1 ms · 3072 / 2048 = 1.5 ms
///   v = V − 1.5 ms = 8.5 ms
///   V' = (1024·10 + 1024·10 + 1024·8.5) / 3072 = 9.5 ms
///   lag after joining = V' − v = 1.0 ms, exactly the lag it left with.
#[test]
fn place_lag_preserves_lag_through_insertion() {
    let mut s = sched("6.18", &[]);
    queue(&mut s, 1024, 10 * MS, 11 * MS);
    queue(&mut s, 1024, 10 * MS, 11 * MS);
    assert_eq!(s.avg_vruntime(0), 10 * MS);
    let t = s.add_task(super::one_cpu(), 0, crate::kernel::sched::core::Policy::Normal, None);
    let se = s.tasks[t as usize].se;
    s.ents[se as usize].vlag = MS as i64;
    s.place_entity(0, se, 0);
    assert_eq!(s.ents[se as usize].vruntime, 8_500_000);
    s.__enqueue_entity(0, se);
    s.account_entity_enqueue(0, se);
    assert_eq!(s.avg_vruntime(0), 9_500_000);
    assert_eq!(s.entity_vlag(0, se), MS as i64);
}

/// Without PLACE_LAG the joining entity lands on V with no lag.
#[test]
fn no_place_lag_places_at_v() {
    let mut s = sched("6.18", &[(PLACE_LAG, false)]);
    queue(&mut s, 1024, 10 * MS, 11 * MS);
    let t = s.add_task(super::one_cpu(), 0, crate::kernel::sched::core::Policy::Normal, None);
    let se = s.tasks[t as usize].se;
    s.ents[se as usize].vlag = MS as i64;
    s.place_entity(0, se, 0);
    assert_eq!(s.ents[se as usize].vruntime, 10 * MS);
}

/// The reweight oracle of seed 000 patch 1/4: an entity e with v = 98,
/// d = 101 in a queue whose V = 100 (e and f at v = 102, both w = 1024),
/// reweighted from 1024 to 2048 (units: ms).
struct Reweight {
    v: u64,
    d: u64,
}

fn reweight(preset: &str, flags: &[(crate::kernel::sched::features::Feature, bool)]) -> Reweight {
    let mut s = sched(preset, flags);
    let e = queue(&mut s, 1024, 98 * MS, 101 * MS);
    queue(&mut s, 1024, 102 * MS, 110 * MS);
    assert_eq!(s.avg_vruntime(0), 100 * MS);
    s.reweight_entity(0, e, LoadWeight::with_weight(scale_load(2048)));
    let ent = &s.ents[e as usize];
    Reweight { v: ent.vruntime, d: ent.deadline }
}

/// With the fix (REWEIGHT_EEVDF, V taken before removal, v6.9–v6.12):
///   v' = V − (V − v)·w/w' = 100 − 2·1024/2048 = 99
///   d' = V + (d − V)·w/w' = 100 + 1·1024/2048 = 100.5
/// so the lag w·(V − v) = 1024·2 = 2048·1 is preserved.
#[test]
fn reweight_fix_keeps_lag() {
    let r = reweight("6.12", &[]);
    assert_eq!((r.v, r.d), (99 * MS, 100_500_000));
}

/// v6.13+ reweights through place_entity(): update_entity_lag() gives
/// vlag = 2, the relative deadline is 3; both scale by 1024/2048 to 1 and
/// 1.5; the entity leaves (V of f alone = 102, W = 1024) and is placed with
/// lag 1·(1024 + 2048)/1024 = 3: v' = 102 − 3 = 99, d' = 99 + 1.5 = 100.5 —
/// the same answer as the v6.9 formula.
#[test]
fn reweight_via_place_entity_agrees() {
    let r = reweight("6.18", &[]);
    assert_eq!((r.v, r.d), (99 * MS, 100_500_000));
}

/// The patch as first merged (v6.7/6.8) took V after removing e from the
/// sums: V = 102 (f alone), so v' = 102 − (102 − 98)/2 = 100 and
/// d' = 102 + (101 − 102)/2 = 101.5 — the miscalculation fixed in v6.9.
#[test]
fn reweight_as_first_merged_takes_v_after_removal() {
    let r = reweight("6.12", &[(REWEIGHT_V_FIX, false)]);
    assert_eq!((r.v, r.d), (100 * MS, 101_500_000));
}

/// v6.6.0 before the fix keeps v = 98 and scales only the relative
/// deadline: d' = 98 + 3·1024/2048 = 99.5. V becomes (1024·102 +
/// 2048·98)/3072 = 99.33, so the lag w'·(V' − v) = 2048·1.33 ≠ 2048: the
/// entity gained lag by being reweighted.
#[test]
fn reweight_before_fix_changes_lag() {
    let r = reweight("6.6", &[]);
    assert_eq!((r.v, r.d), (98 * MS, 99_500_000));
}

fn run_shares(text: &str) -> Vec<f64> {
    let (mut sim, _) = from_text(text, &Overrides::default(), LogMode::HashOnly).unwrap();
    sim.run();
    sim.results("").tasks.iter().map(|t| t.share).collect()
}

/// Two CPU hogs at nice 0 and nice 1 on one CPU share it by weight:
/// 1024 / (1024 + 820) = 55.53 %, 820 / 1844 = 44.47 %.
#[test]
fn nice0_vs_nice1_shares() {
    for kernel in ["5.15", "6.6", "6.12", "6.18"] {
        let s = run_shares(&format!(
            "[sim]\nduration = \"10s\"\nkernel = \"{kernel}\"\n[[task]]\nname = \"a\"\nprogram = \"run\"\n[[task]]\nname = \"b\"\nnice = 1\nprogram = \"run\"\n"
        ));
        assert!((s[0] - 1024.0 / 1844.0).abs() < 0.002, "{kernel}: {s:?}");
        assert!((s[1] - 820.0 / 1844.0).abs() < 0.002, "{kernel}: {s:?}");
    }
}

/// nice 0 vs nice 5: 1024 : 335, i.e. 75.35 % and 24.65 %.
#[test]
fn nice0_vs_nice5_shares() {
    for kernel in ["5.15", "6.6", "6.12", "6.18"] {
        let s = run_shares(&format!(
            "[sim]\nduration = \"10s\"\nkernel = \"{kernel}\"\n[[task]]\nname = \"a\"\nprogram = \"run\"\n[[task]]\nname = \"b\"\nnice = 5\nprogram = \"run\"\n"
        ));
        assert!((s[0] / s[1] - 1024.0 / 335.0).abs() < 0.02, "{kernel}: {s:?}");
    }
}

/// The LWN example ("An EEVDF CPU scheduler for Linux"): three equal tasks
/// with 30 ms requests. At start all lags are 0. A runs 30 ms: V = (30 + 0 +
/// 0)/3 = 10, so lag A = 10 − 30 = −20 ms, B = C = +10 ms. Then B (earliest
/// deadline among the eligible) runs 30 ms: V = 20, lags A = −10, B = −10,
/// C = +20 ms. HZ=1000 makes the tick land exactly on the 30 ms boundary;
/// PLACE_DEADLINE_INITIAL is off so every first deadline is a full 30 ms.
#[test]
fn lwn_three_task_lags() {
    let text = "[sim]\nduration = \"100ms\"\nhz = 1000\nkernel = \"6.18\"\nfeatures = { PLACE_DEADLINE_INITIAL = false }\n\
        [[task]]\nname = \"A\"\nslice = \"30ms\"\nprogram = \"run\"\n\
        [[task]]\nname = \"B\"\nslice = \"30ms\"\nprogram = \"run\"\n\
        [[task]]\nname = \"C\"\nslice = \"30ms\"\nprogram = \"run\"\n";
    let (mut sim, _) = from_text(text, &Overrides::default(), LogMode::Full).unwrap();
    let lags = |sim: &crate::Simulation| {
        let snap = sim.snapshot();
        let mut l: Vec<(String, i64)> = snap.cpus[0].entities.iter().map(|e| (e.name.clone(), e.lag)).collect();
        l.sort();
        l.into_iter().map(|(_, lag)| lag).collect::<Vec<_>>()
    };
    sim.run_until(30 * MS);
    assert_eq!(lags(&sim), vec![-20 * MS as i64, 10 * MS as i64, 10 * MS as i64]);
    assert_eq!(sim.snapshot().cpus[0].curr, Some(1), "B runs next");
    sim.run_until(60 * MS);
    assert_eq!(lags(&sim), vec![-10 * MS as i64, -10 * MS as i64, 20 * MS as i64]);
    assert_eq!(sim.snapshot().cpus[0].curr, Some(2), "then C");
}

/// pick_eevdf() before b01db23d5923 (the EEVDF RFC, PICK_BEST_LEFT off)
/// descends the vruntime-sorted tree once. Three nice-0 entities: L (v 0,
/// d 50 ms), R (v 10, d 60), X (v 40, d 45). V = 50/3 ≈ 16.7 ms, so L and R
/// are eligible and X is not. R is the root; its subtree's min_deadline is
/// X's 45. The old walk takes R (eligible, the first best; 60 is not its
/// subtree's minimum), goes left only if the left subtree holds that
/// minimum (L's 50 ≠ 45), so right to X (not eligible), then X's empty
/// left: R, deadline 60. The fixed walk remembers L's subtree as the best
/// eligible one and returns L, deadline 50, the earliest eligible.
#[test]
fn pick_before_its_fix_can_miss_the_earliest_eligible_deadline() {
    for (best_left, want) in [(true, 0), (false, 1)] {
        let mut s = sched("6.6", &[(RUN_TO_PARITY, false), (PICK_BEST_LEFT, best_left)]);
        let ents = [queue(&mut s, 1024, 0, 50 * MS), queue(&mut s, 1024, 10 * MS, 60 * MS), queue(&mut s, 1024, 40 * MS, 45 * MS)];
        assert_eq!(s.cfs_rqs[0].tree.root(), ents[1]);
        assert!(s.entity_eligible(0, ents[1]) && !s.entity_eligible(0, ents[2]));
        assert_eq!(s.__pick_eevdf(0, true), ents[want], "PICK_BEST_LEFT {best_left}");
    }
}

/// A deadline tie between the running entity and a queued one goes to the
/// running entity in v6.6's __pick_eevdf() (`best = curr`, replaced only
/// if `deadline_gt(deadline, best, se)`, strictly later) and to the queued
/// one from v6.8's deadline tree on (`found:` keeps the leftmost unless
/// `entity_before(curr, best)`, strictly earlier; "Tiebreak on vruntime
/// seems unnecessary since it can hardly happen", v6.18). It happens on
/// every wake-up that finds a lone running task whose slice the wake-up's
/// update_curr() has just renewed (deadline = vruntime + vslice) and a
/// wakee that slept alone on its queue (vlag 0), placed at V, which is the
/// running task's vruntime: the same deadline. So seed 000's p3 (deadline
/// tree + O(1) pick) preempts there and p1 does not. a runs at v = 0, d =
/// 3 ms; b is queued at v = 0, d = 3 ms; V = 0, both eligible; the renewal
/// has ended any slice protection (protect = false).
#[test]
fn a_deadline_tie_keeps_the_running_entity_in_v6_6_and_goes_to_the_queued_one_from_v6_8() {
    let tree = [(DEADLINE_TREE, true), (PICK_FASTPATH, true)];
    for (kernel, flags, running_wins) in [("6.6", &[][..], true), ("6.6", &tree[..], false), ("6.12", &[][..], false), ("6.18", &[][..], false)] {
        let mut s = sched(kernel, flags);
        let a = queue(&mut s, 1024, 0, 3 * MS);
        let b = queue(&mut s, 1024, 0, 3 * MS);
        let ta = s.ents[a as usize].task;
        s.rqs[0].curr = ta;
        s.set_next_task_fair(ta);
        assert_eq!(s.cfs_rqs[0].curr, a);
        assert!(s.entity_eligible(0, a) && s.entity_eligible(0, b), "{kernel} {flags:?}");
        assert_eq!(s.__pick_eevdf(0, false), if running_wins { a } else { b }, "{kernel} {flags:?}");
    }
}

/// V rounds towards minus infinity, so an entity exactly at V is eligible
/// and V − 1 ns is the largest vruntime that is: weights 1024 and 2048 at
/// v = 0 and 1: V = 2048/3072 = 0.67 → 0.
#[test]
fn eligibility_is_exact_without_division() {
    let mut s = sched("6.18", &[]);
    queue(&mut s, 1024, 0, 10);
    let b = queue(&mut s, 2048, 1, 10);
    assert_eq!(s.avg_vruntime(0), 0);
    assert!(s.vruntime_eligible(0, 0));
    // v = 1: is 1 ≤ 0.67? No, although V rounds to 0 — the product form
    // Σ(v_i−v0)w_i = 2048 ≥ (1−0)·3072 is false.
    assert!(!s.entity_eligible(0, b));
}

/// Group scheduling: two groups of equal weight on one CPU, one with a
/// single hog and one with four. Each group entity weighs its group's
/// shares (1024 when alone on the CPU), so the two group entities split the
/// CPU 50/50, and inside the second group the four equal tasks split its
/// half: 12.5 % each.
#[test]
fn groups_share_by_weight_then_tasks_within() {
    for kernel in ["5.15", "6.6", "6.12", "6.18"] {
        let s = run_shares(&format!(
            "[sim]\nduration = \"10s\"\nkernel = \"{kernel}\"\n[[group]]\nname = \"a\"\n[[group]]\nname = \"b\"\n\
             [[task]]\nname = \"solo\"\ngroup = \"a\"\nprogram = \"run\"\n[[task]]\nname = \"many\"\ncount = 4\ngroup = \"b\"\nprogram = \"run\"\n"
        ));
        assert!((s[0] - 0.5).abs() < 0.002, "{kernel}: {s:?}");
        for x in &s[1..] {
            assert!((x - 0.125).abs() < 0.002, "{kernel}: {s:?}");
        }
    }
}

/// cpu.weight 300 vs 100: the groups split 3:1 (75 % / 25 %), whatever the
/// number of tasks inside.
#[test]
fn group_weights_split_the_cpu() {
    let s = run_shares(
        "[sim]\nduration = \"10s\"\n[[group]]\nname = \"heavy\"\nweight = 300\n[[group]]\nname = \"light\"\n\
         [[task]]\nname = \"h\"\ncount = 2\ngroup = \"heavy\"\nprogram = \"run\"\n[[task]]\nname = \"l\"\ncount = 3\ngroup = \"light\"\nprogram = \"run\"\n",
    );
    let heavy: f64 = s[..2].iter().sum();
    let light: f64 = s[2..].iter().sum();
    assert!((heavy - 0.75).abs() < 0.003 && (light - 0.25).abs() < 0.003, "{s:?}");
}

/// A run starts on a machine that has been up and idle: SIS_UTIL's budget
/// is what update_idle_cpu_scan() (v6.18) leaves for Σutil = 0: x = 0,
/// t = 0, y = 1024, nr_idle_scan = 1024·llc/1024 = the LLC's CPU count —
/// 48 on each of xeon-8260-2s's two LLCs, 112 on spr-2s-224's. The first
/// wake-up of a fresh run therefore scans; at boot (budget 0) it could not.
#[test]
fn sis_util_budget_starts_at_an_idle_llc() {
    for (preset, llc) in [("xeon-8260-2s", 48), ("spr-2s-224", 112)] {
        let (sim, _) = crate::from_text(
            &format!("[topology]\npreset = \"{preset}\"\n[[task]]\nname = \"t\"\nprogram = \"run\"\n"),
            &crate::Overrides::default(),
            crate::LogMode::HashOnly,
        )
        .unwrap();
        let s = sim.sched();
        assert!(s.llc.iter().all(|l| l.nr_idle_scan == llc), "{preset}: {:?}", s.llc.iter().map(|l| l.nr_idle_scan).collect::<Vec<_>>());
        assert_eq!(crate::kernel::sched::balance::sis_util_scan(llc as u64, 117, 0), llc as u64);
    }
}
