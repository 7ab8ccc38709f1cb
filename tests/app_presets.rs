//! The lecture presets show what their paragraphs claim: each test runs a
//! preset (and, for "X on vs off", the same with the flag toggled, as the
//! features panel does) and checks the numbers the paragraph quotes.
#![cfg(not(target_arch = "wasm32"))]

use schedlab_app::presets::{self, explanation, lecture_presets};
use schedlab_engine::lab::player::Player;
use schedlab_engine::lab::results::RunResult;
use schedlab_engine::kernel::sched::select::{Placed, ScanEnd};
use schedlab_engine::lab::trace::{Record, Verdict};
use schedlab_engine::{from_text, LogMode, Overrides};

fn text(id: &str) -> &'static str {
    presets::by_id(id)
        .unwrap_or_else(|| panic!("no preset {id}"))
        .text
}

fn with(features: &[(&str, bool)]) -> Overrides {
    Overrides {
        features: features.iter().map(|&(n, v)| (n.to_string(), v)).collect(),
        ..Default::default()
    }
}

fn run(id: &str, ov: &Overrides) -> (RunResult, Vec<Record>) {
    let (mut sim, cfg) =
        from_text(text(id), ov, LogMode::Full).unwrap_or_else(|e| panic!("{id}: {e}"));
    sim.run();
    let records = sim.log.records.clone();
    (sim.results(&cfg.kernel), records)
}

fn task<'a>(r: &'a RunResult, name: &str) -> &'a schedlab_engine::lab::results::TaskResult {
    r.tasks
        .iter()
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("no task {name}"))
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn every_preset_builds_and_explains_itself() {
    for p in lecture_presets() {
        assert!(
            Player::new(p.text, &Overrides::default()).is_ok(),
            "{}",
            p.id
        );
        let words: usize = explanation(p.text)
            .iter()
            .map(|s| s.split_whitespace().count())
            .sum();
        assert!(
            words >= 40,
            "{}: explanation too short ({words} words)",
            p.id
        );
    }
}

#[test]
fn three_equal_tasks_share_a_third_and_lags_sum_to_zero() {
    let (r, _) = run("three-equal-tasks", &Overrides::default());
    for t in &r.tasks {
        assert!(close(t.share, 1.0 / 3.0, 0.01), "{}: {}", t.name, t.share);
    }
    // At every event: Σ w·lag is zero up to the rounding of V, and V lies
    // between the smallest and largest vruntime.
    let (mut sim, _) = from_text(
        text("three-equal-tasks"),
        &Overrides::default(),
        LogMode::Full,
    )
    .unwrap();
    while sim.step() {
        let cv = sim.sched().cpu_view(0, &sim.info.task_names);
        assert!(
            cv.weighted_lag_sum.unsigned_abs() <= cv.load.max(1),
            "{cv:?}"
        );
        if !cv.entities.is_empty() {
            let rel = |x: u64| x.wrapping_sub(cv.v) as i64;
            assert!(cv.entities.iter().any(|e| rel(e.vruntime) <= 0));
            assert!(cv.entities.iter().any(|e| rel(e.vruntime) >= 0));
        }
    }
}

#[test]
fn nice_weights_share_in_proportion() {
    let (r, _) = run("nice-weights", &Overrides::default());
    let w = [1024.0, 335.0, 3121.0];
    let sum: f64 = w.iter().sum();
    for (t, w) in r.tasks.iter().zip(w) {
        assert!(
            close(t.share, w / sum, 0.015),
            "{}: {} vs {}",
            t.name,
            t.share,
            w / sum
        );
    }
}

#[test]
fn short_slice_cuts_wakeup_latency_and_custom_slice_off_undoes_it() {
    let (on, _) = run("short-slice", &Overrides::default());
    let (off, _) = run("short-slice", &with(&[("CUSTOM_SLICE", false)]));
    let (a, b) = (task(&on, "short"), task(&off, "short"));
    assert_eq!(a.wakeup_latency_ns.p50, 0);
    assert!(
        a.wakeup_latency_ns.mean < 50_000,
        "{:?}",
        a.wakeup_latency_ns
    );
    assert!(
        b.wakeup_latency_ns.p50 > 400_000,
        "{:?}",
        b.wakeup_latency_ns
    );
    assert!(a.nr_involuntary_switches >= 20 && b.nr_involuntary_switches == 0);
}

#[test]
fn place_lag_keeps_the_sleepers_lag() {
    let (on, _) = run("place-lag", &Overrides::default());
    let (off, _) = run("place-lag", &with(&[("PLACE_LAG", false)]));
    let (a, b) = (task(&on, "sleeper"), task(&off, "sleeper"));
    assert!(
        close(a.share, 0.268, 0.01) && close(b.share, 0.165, 0.01),
        "{} {}",
        a.share,
        b.share
    );
    assert_eq!(a.wakeup_latency_ns.p50, 0);
    assert!(
        b.wakeup_latency_ns.p50 > 1_500_000,
        "{:?}",
        b.wakeup_latency_ns
    );
}

#[test]
fn run_to_parity_trades_latency_for_fewer_switches() {
    let count = |r: &RunResult| -> (u64, u64, u64) {
        let invol = r.tasks.iter().map(|t| t.nr_involuntary_switches).sum();
        let cs = r.cpus.iter().map(|c| c.nr_switches).sum();
        let lat = r
            .tasks
            .iter()
            .filter(|t| t.name != "hog")
            .map(|t| t.wakeup_latency_ns.mean)
            .sum::<u64>()
            / 4;
        (invol, cs, lat)
    };
    let (on, _) = run("run-to-parity", &Overrides::default());
    let (off, _) = run("run-to-parity", &with(&[("RUN_TO_PARITY", false)]));
    let (i1, c1, l1) = count(&on);
    let (i0, c0, l0) = count(&off);
    assert_eq!((i1, c1), (178, 257), "on");
    assert_eq!((i0, c0), (221, 298), "off");
    assert!(
        close(l1 as f64 / 1e6, 1.76, 0.01) && close(l0 as f64 / 1e6, 1.13, 0.01),
        "{l1} {l0}"
    );
    // On 6.18 (VPROT) the toggle changes nothing here.
    let k618 = |f: bool| Overrides {
        kernel: Some("6.18".into()),
        ..with(&[("RUN_TO_PARITY", f)])
    };
    let (a, _) = run("run-to-parity", &k618(true));
    let (b, _) = run("run-to-parity", &k618(false));
    assert_eq!(a.log_hash, b.log_hash);
}

#[test]
fn delay_dequeue_keeps_negative_lag_sleepers_queued() {
    let (on, rec) = run("delay-dequeue", &Overrides::default());
    let (off, rec_off) = run("delay-dequeue", &with(&[("DELAY_DEQUEUE", false)]));
    let delayed = |r: &[Record]| {
        r.iter()
            .filter(|r| matches!(r, Record::Block { delayed: true, .. }))
            .count()
    };
    assert_eq!(delayed(&rec), 158);
    assert_eq!(delayed(&rec_off), 0);
    let requeued = rec
        .iter()
        .filter(|r| matches!(r, Record::Wakeup { delayed: true, .. }))
        .count();
    assert_eq!(requeued, 158);
    assert!(
        close(task(&on, "hog").share, 0.348, 0.002) && close(task(&off, "hog").share, 0.378, 0.002)
    );
    assert!(
        close(task(&on, "sleepy.0").share, 0.326, 0.002)
            && close(task(&off, "sleepy.0").share, 0.311, 0.002)
    );
}

#[test]
fn sched_batch_waits_for_the_tick() {
    let (r, rec) = run("sched-batch", &Overrides::default());
    let (n, b) = (task(&r, "normal"), task(&r, "batch"));
    assert_eq!(n.wakeup_latency_ns.p50, 0);
    assert!(
        close(n.wakeup_latency_ns.mean as f64 / 1e6, 0.13, 0.01),
        "{:?}",
        n.wakeup_latency_ns
    );
    assert!(
        close(b.wakeup_latency_ns.p50 as f64 / 1e6, 0.39, 0.01),
        "{:?}",
        b.wakeup_latency_ns
    );
    assert!(
        close(b.wakeup_latency_ns.mean as f64 / 1e6, 0.40, 0.01),
        "{:?}",
        b.wakeup_latency_ns
    );
    assert!(close(n.share, b.share, 0.01));
    let batch = 3;
    assert!(rec.iter().any(|r| matches!(r, Record::WakeupCheck { wakee, verdict: Verdict::WakeePolicy, .. } if *wakee == batch)));
    assert!(!rec.iter().any(|r| matches!(r, Record::WakeupCheck { wakee, verdict: Verdict::Preempt, .. } if *wakee == batch)));
}

#[test]
fn wakeup_placement_shows_every_path() {
    let (_, rec) = run("wakeup-placement", &Overrides::default());
    let seen = |how: Placed, end: Option<ScanEnd>| {
        rec.iter().any(|r| matches!(*r, Record::Placement { how: h, end: e, .. } if h == how && end.is_none_or(|x| x == e)))
    };
    for how in [
        Placed::TargetIdle,
        Placed::RecentIdle,
        Placed::IdleSibling,
        Placed::IdleCore,
        Placed::IdleCpu,
    ] {
        assert!(seen(how, None), "{how:?}");
    }
    assert!(seen(Placed::Target, Some(ScanEnd::Budget)));
    assert!(seen(Placed::Target, Some(ScanEnd::Overloaded)));
}

#[test]
fn xeon_preset_is_about_a_million_events() {
    // "About a million" is the page's promise (a few seconds to compute);
    // the waker's wake-up cost (costs.wakeup) added about 0.2 M events.
    let (r, _) = run("xeon-96-busy", &Overrides::default());
    assert!(r.events > 1_000_000 && r.events < 1_300_000, "{}", r.events);
}

/// Every comparison preset (assets/compare) shows a difference: its two
/// configurations, run on the same scenario and seed, produce event logs
/// that part somewhere (a preset whose runs never differ would show a
/// comparison page with nothing to see).
#[test]
fn every_comparison_preset_diverges() {
    use schedlab_engine::lab::compare::{first_divergence, ConfigSpec};
    for p in presets::compare_presets() {
        let st = schedlab_engine::lab::scenario::parse(p.text).unwrap().study.unwrap();
        let runs: Vec<_> = [&st.base, &st.compare[0]]
            .iter()
            .map(|c| {
                let cfg = ConfigSpec::parse(&c.name).unwrap_or_else(|e| panic!("{}: {e}", p.id));
                let (mut sim, _) = from_text(p.text, &cfg.overrides(None), LogMode::Full)
                    .unwrap_or_else(|e| panic!("{}: {e}", p.id));
                sim.run();
                sim
            })
            .collect();
        let d = first_divergence(&runs[0], &runs[1]);
        assert!(d.is_some(), "{}: {} and {} give the same log", p.id, st.base.name, st.compare[0].name);
    }
}

/// The reweight preset's numbers: every reweight of a queued [web] entity
/// is logged with its lag before and after. v6.6.0 keeps v, so
/// lag = w·(V − v) moves (mean over 20 µs, max over 0.35 ms);
/// with the fix (REWEIGHT_EEVDF + REWEIGHT_V_FIX, as in v6.9) v' = V −
/// (V − v)·w/w' keeps it, up to integer rounding (1.3 µs at most).
#[test]
fn reweight_fix_keeps_the_group_entitys_lag() {
    let changes = |rec: &[Record]| -> Vec<i64> {
        rec.iter()
            .filter_map(|r| match *r {
                Record::Reweight { old, new, lag_before, lag_after, .. } => {
                    assert_ne!(old, new);
                    Some((lag_after - lag_before).abs())
                }
                _ => None,
            })
            .collect()
    };
    let (_, rec) = run("reweight-lag", &Overrides::default());
    let (_, rec_fix) = run(
        "reweight-lag",
        &with(&[("REWEIGHT_EEVDF", true), ("REWEIGHT_V_FIX", true)]),
    );
    let (before, after) = (changes(&rec), changes(&rec_fix));
    let mean = |v: &[i64]| v.iter().sum::<i64>() / v.len() as i64;
    // About a hundred reweights of a queued [web] entity in 300 ms (one
    // per wake-up or sleep of a web task: 3 tasks × 300 ms / ~5 ms period
    // ≈ 180 state changes, half of them while the entity stays queued).
    assert!(before.len() >= 80 && after.len() >= 80, "{} {}", before.len(), after.len());
    assert!(mean(&before) > 20_000 && *before.iter().max().unwrap() > 350_000, "{before:?}");
    assert!(*after.iter().max().unwrap() < 1_500, "{after:?}");
}

/// The explainer says which reweight_entity() ran and what it did to the
/// lag, in the kernel's own terms.
#[test]
fn the_explainer_names_the_reweight_variant() {
    let sentence = |ov: &Overrides| {
        let (mut sim, _) = from_text(text("reweight-lag"), ov, LogMode::Full).unwrap();
        sim.run();
        let entry = sim
            .log
            .iter()
            .find(|e| matches!(e.record, Record::Reweight { .. }))
            .expect("a reweight");
        schedlab_engine::lab::explain::explain(&sim, &entry)
    };
    let old = sentence(&Overrides::default());
    assert!(old.starts_with("[web]'s entity on CPU "), "{old}");
    assert!(old.contains("v6.6.0 keeps the vruntime"), "{old}");
    let fixed = sentence(&with(&[("REWEIGHT_EEVDF", true), ("REWEIGHT_V_FIX", true)]));
    assert!(fixed.contains("reweight_eevdf() (eab03c23c2a1, v6.7) rescales V − v"), "{fixed}");
    let v618 = sentence(&Overrides { kernel: Some("6.18".into()), ..Default::default() });
    assert!(v618.contains("through update_entity_lag() and place_entity()"), "{v618}");
}

/// What each comparison preset's text (assets/compare/*.toml, its last
/// paragraph) says about the first behavioural difference the page marks:
/// which fields differ, what each run did (the record kinds of
/// `lab::compare::behaviour`), when (ms, as the text words it), and for a
/// different pick which task each run took. Written from the texts: a
/// change of the model that moves the difference fails here, and the text
/// must be reread.
#[test]
fn comparison_texts_tell_their_first_behavioural_difference() {
    use schedlab_engine::lab::compare::{behaviour, first_behavioural_divergence, ConfigSpec};
    type Side = (&'static str, (f64, f64), Option<&'static str>);
    // (preset, fields, base: (kind, time range in ms, task picked), patch: the same)
    let claims: [(&str, &[&str], Side, Side); 11] = [
        // "They part at the 1 ms tick: on the right the tick ends sleeper.1's
        // request and CPU 1 switches to a hog; on the left nothing changes then."
        ("eevdf-vs-cfs", &["kind"], ("placement", (1.001, 2.0), None), ("pick", (1.0, 1.0), Some("hog.1"))),
        // "at CPU 1's tick at 64 ms: on the left the [batch] entity is picked
        // again and b.0 runs on, on the right ... w.1 runs"
        ("reweight-fix", &["task"], ("pick", (64.0, 64.0), Some("b.0")), ("pick", (64.0, 64.0), Some("w.1"))),
        // "the pick after a.0 first sleeps (0.654 ms): a walk on the left takes
        // a.4, the O(1) fast path on the right takes a.1"
        ("deadline-tree-fastpath", &["task"], ("pick", (0.6535, 0.6545), Some("a.4")), ("pick", (0.6535, 0.6545), Some("a.1"))),
        // "the pick after a.1 first sleeps (0.285 ms): the left takes b.2 ...
        // the right a.2 through [a]"
        ("next-buddy-hint", &["task"], ("pick", (0.2845, 0.2855), Some("b.2")), ("pick", (0.2845, 0.2855), Some("a.2"))),
        // "The runs first differ at 20.55 ms: CPU 158 takes waker.21 on the
        // left, CPU 160 goes idle on the right"
        ("sis-filter", &["time", "cpu", "task"], ("pick", (20.55, 20.56), Some("waker.21")), ("pick", (20.55, 20.56), None)),
        // "(1.6 ms) w.1's wakeup preempts the hog on the left; on the right w.1
        // runs when the hog's request ends at the 2 ms tick"
        ("no-same-prio-preempt", &["kind"], ("preemption", (1.55, 1.65), None), ("pick", (2.0, 2.0), Some("w.1"))),
        // "(4.1 ms) w wakes while the plain hog runs: it preempts on the left
        // and waits for the 5 ms tick on the right"
        ("preempt-hint", &["kind"], ("preemption", (4.05, 4.15), None), ("pick", (5.0, 5.0), Some("w"))),
        // "the sleeper wakes at 12 ms: on the right its wakeup preempts the hog
        // at once; on the left it waits until ... the 16 ms tick"
        ("place-bonus", &["kind"], ("pick", (16.0, 16.0), Some("half")), ("preemption", (12.0, 12.1), None)),
        // "the first pick that takes the buddy (7.5 ms): the left takes the
        // leftmost entity, w.1, the right the buddy, w.0"
        ("eevdf-next-buddy", &["task"], ("pick", (7.45, 7.55), Some("w.1")), ("pick", (7.45, 7.55), Some("w.0"))),
        // "(23.5 ms) w wakes: on the left it preempts hog.1, on the right
        // hog.1's shorter request ends right then and w is picked"
        ("base-slice-0.70", &["kind"], ("preemption", (23.45, 23.55), None), ("pick", (23.45, 23.55), Some("w"))),
        // "the second hog is picked: at the 1 ms tick on the right ...; on the
        // left only at 3 ms, when the first hog's request ends"
        ("eevdf-rfc", &["time"], ("pick", (3.0, 3.0), Some("second")), ("pick", (1.0, 1.0), Some("second"))),
    ];
    for (id, fields, base, patch) in claims {
        let p = presets::compare_by_id(id).unwrap_or_else(|| panic!("no comparison preset {id}"));
        let st = schedlab_engine::lab::scenario::parse(p.text).unwrap().study.unwrap();
        let sims: Vec<_> = [&st.base, &st.compare[0]]
            .iter()
            .map(|c| {
                let (mut sim, _) = from_text(p.text, &ConfigSpec::parse(&c.name).unwrap().overrides(None), LogMode::Full).unwrap();
                sim.run();
                sim
            })
            .collect();
        let d = first_behavioural_divergence(&sims[0], &sims[1]).unwrap_or_else(|| panic!("{id}: no behavioural difference"));
        assert_eq!(d.fields, fields, "{id}: {d:?}");
        for ((kind, (t0, t1), picked), (entry, sim)) in [base, patch].into_iter().zip([(&d.base, &sims[0]), (&d.patch, &sims[1])]) {
            let e = entry.as_ref().unwrap_or_else(|| panic!("{id}: a log ended"));
            let (k, _) = behaviour(&e.record).expect("a behavioural record");
            let ms = e.time as f64 / 1e6;
            assert!(k == kind && ms >= t0 && ms <= t1, "{id}: {k} at {ms} ms, the text says {kind} in [{t0}, {t1}] ms");
            if let (Some(name), Record::Pick { task, .. }) = (picked, &e.record) {
                assert_eq!(sim.info.task_names[*task as usize], name, "{id}: the task picked");
            }
        }
    }
}
