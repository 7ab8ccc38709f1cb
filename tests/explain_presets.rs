//! The explainer tells the true cause first, on the lecture presets: each
//! test steps a preset event by event (as the page does, through the
//! engine's Player) and checks the headline of the events that matter in
//! it against the engine's written rule (`explain::headline_rank`): a task
//! going to sleep is told as that, even when DELAY_DEQUEUE keeps it queued
//! and its slice also ended; a load-balance pull is told as the pull, not
//! as the preemption it caused; a preemption's numbers come from the one
//! queue where the two entities met, named.
#![cfg(not(target_arch = "wasm32"))]

use schedlab_app::presets;
use schedlab_engine::lab::explain::{explain_event, Explanation};
use schedlab_engine::lab::player::Player;
use schedlab_engine::lab::trace::{Cause, Record, Verdict};
use schedlab_engine::Overrides;

/// Every event of the first `n` of preset `id`: its records and explanation.
fn events(id: &str, n: u64, ov: &Overrides) -> Vec<(u64, Vec<Record>, Explanation)> {
    let text = presets::by_id(id).unwrap_or_else(|| panic!("no preset {id}")).text;
    let mut p = Player::new(text, ov).unwrap();
    p.compute(n + 1);
    let mut out = Vec::new();
    for k in 1..=n.min(p.computed()) {
        p.seek(k);
        let entries = p.entries(k);
        if entries.is_empty() {
            continue;
        }
        let ex = explain_event(p.sim(), p.log(), &entries);
        out.push((k, entries.iter().map(|e| e.record).collect(), ex));
    }
    out
}

fn has(records: &[Record], f: impl Fn(&Record) -> bool) -> bool {
    records.iter().any(f)
}

#[test]
fn a_balance_pull_is_told_as_the_pull() {
    // wakeup-placement (i7-4790) and reweight-lag both have load-balance
    // moves in their first events, some with a preemption after them.
    for id in ["wakeup-placement", "reweight-lag"] {
        let evs = events(id, 3000, &Overrides::default());
        let pulls: Vec<_> = evs.iter().filter(|e| has(&e.1, |r| matches!(r, Record::Migrate { .. }))).collect();
        assert!(!pulls.is_empty(), "{id}: no balance move in 3000 events");
        let mut with_preemption = 0;
        for (k, records, ex) in &pulls {
            let blocked = has(records, |r| matches!(r, Record::Block { .. } | Record::Exit { .. }));
            let preempts = has(records, |r| matches!(r, Record::WakeupCheck { verdict: Verdict::Preempt, .. }));
            // The newly idle CPU's pull after a task blocked: the block is
            // the cause, the pull next, the pulled task's "preemption" of
            // the task that is leaving last.
            assert!(!ex.headline.contains(" preempted "), "{id} event {k}: {records:?}\n{ex:?}");
            if blocked {
                assert!(ex.headline.contains("went to sleep") || ex.headline.contains("exited"), "{id} event {k}: {ex:?}");
                assert!(ex.lines.iter().any(|l| l.starts_with("The load balancer moved")), "{id} event {k}: {ex:?}");
            } else {
                assert!(ex.headline.starts_with("The load balancer moved"), "{id} event {k}: {records:?}\n{ex:?}");
            }
            with_preemption += preempts as u32;
        }
        assert!(with_preemption > 0, "{id}: no pull that preempted in 3000 events");
    }
}

#[test]
fn going_to_sleep_is_told_first_even_when_delayed() {
    // DELAY_DEQUEUE: a task that sleeps with negative lag stays queued.
    for id in ["delay-dequeue", "place-lag"] {
        let evs = events(id, 3000, &Overrides::default());
        let mut delayed = 0;
        for (k, records, ex) in &evs {
            if let Some(Record::Block { delayed: d, .. }) = records.iter().find(|r| matches!(r, Record::Block { .. })) {
                assert!(ex.headline.contains("went to sleep"), "{id} event {k}: {records:?}\n{ex:?}");
                if *d {
                    delayed += 1;
                    assert!(ex.headline.contains("DELAY_DEQUEUE keeps it queued"), "{id} event {k}: {ex:?}");
                    // Even when the slice also ended in this event.
                    assert!(!ex.headline.contains("used up its request"), "{id} event {k}: {ex:?}");
                }
            }
        }
        if id == "delay-dequeue" {
            assert!(delayed > 0, "{id}: no delayed dequeue in 3000 events");
        }
    }
}

#[test]
fn a_preemption_quotes_one_queue_and_names_it() {
    // reweight-lag runs tasks in cgroups: a wakeup preemption compares the
    // two entities where they meet (find_matching_se()), in a group's
    // queue or the root; the headline says which, and its numbers and the
    // note name the same queue.
    let evs = events("reweight-lag", 3000, &Overrides::default());
    let mut seen = 0;
    for (k, records, ex) in &evs {
        if !has(records, |r| matches!(r, Record::WakeupCheck { verdict: Verdict::Preempt, .. })) {
            continue;
        }
        if has(records, |r| matches!(r, Record::Block { .. } | Record::Exit { .. } | Record::Migrate { .. })) {
            continue;
        }
        seen += 1;
        assert!(ex.headline.contains(" preempted "), "event {k}: {ex:?}");
        assert!(!ex.note.is_empty(), "event {k}: no frame of reference: {ex:?}");
        if ex.headline.contains("'s queue") {
            let q = ex.headline.split(" in [").nth(1).and_then(|s| s.split(']').next()).unwrap();
            assert!(ex.note.contains(&format!("[{q}]")), "event {k}: headline in [{q}] but note {:?}", ex.note);
        } else {
            assert!(ex.note.contains("root queue"), "event {k}: {:?}", ex.note);
        }
    }
    assert!(seen > 0, "no wakeup preemption in reweight-lag's first 3000 events");
}

#[test]
fn run_to_parity_says_when_the_preempted_task_became_ineligible() {
    let evs = events("run-to-parity", 3000, &Overrides::default());
    let mut told = 0;
    for (k, records, ex) in &evs {
        if has(records, |r| matches!(r, Record::WakeupCheck { verdict: Verdict::Preempt, .. }))
            && !has(records, |r| matches!(r, Record::Block { .. } | Record::Exit { .. } | Record::Migrate { .. }))
        {
            assert!(ex.headline.contains(" preempted "), "event {k}: {ex:?}");
            told += ex.headline.contains("ineligible") as u32;
        }
    }
    assert!(told > 0, "run-to-parity: no preemption of a task that had become ineligible");
}

#[test]
fn a_slice_end_heads_an_event_only_without_a_sleep_or_a_preemption() {
    for p in presets::lecture_presets() {
        for (k, records, ex) in events(p.id, 1500, &Overrides::default()) {
            let slice_end = has(&records, |r| matches!(r, Record::Resched { cause: Cause::SliceExpired, .. }));
            let sleep = has(&records, |r| matches!(r, Record::Block { .. }));
            if slice_end && sleep {
                assert!(ex.headline.contains("went to sleep"), "{} event {k}: {ex:?}", p.id);
            }
            // The kernel's words, not the engine's enum names.
            for l in &ex.lines {
                for internal in ["HeapSearch", "Leftmost (", "SkipAvoided", "LastBuddy", "Some("] {
                    assert!(!l.contains(internal), "{} event {k}: {l}", p.id);
                }
            }
        }
    }
}

#[test]
fn cfs_speaks_cfs() {
    let ov = Overrides { kernel: Some("5.15".into()), ..Default::default() };
    let evs = events("three-equal-tasks", 400, &ov);
    let mut picks = 0;
    for (k, records, ex) in &evs {
        for l in &ex.lines {
            assert!(!l.contains("pick_eevdf") && !l.contains("deadline") && !l.contains("eligible"), "event {k}: {l}");
        }
        if has(records, |r| matches!(r, Record::Pick { .. })) {
            picks += 1;
            assert!(ex.lines.iter().any(|l| l.starts_with("pick_next_entity() (CFS)")), "event {k}: {ex:?}");
        }
    }
    assert!(picks > 10);
}

/// The key event of every lecture preset, headed by what the preset is
/// there to show: for each preset, the events whose headline record (the
/// rule's choice, `explain::headline_index`) is of the preset's kind must
/// say so in the kernel's words, and the preset must have some in its
/// first 1 500 events.
#[test]
fn every_preset_heads_its_key_event_with_the_kernel_mechanism() {
    use schedlab_engine::kernel::sched::select::Placed;
    use schedlab_engine::lab::explain::headline_index;
    type Key = (&'static str, fn(&Record) -> bool, &'static [&'static str]);
    let slice_end: fn(&Record) -> bool = |r| matches!(r, Record::Resched { cause: Cause::SliceExpired, .. });
    let keys: [Key; 10] = [
        // Equal tasks take turns: each turn ends when update_deadline()
        // finds the request used up.
        ("three-equal-tasks", slice_end, &["used up its request", "update_deadline()"]),
        ("nice-weights", slice_end, &["used up its request", "update_deadline()"]),
        // A short-slice wakee has the earlier deadline and preempts.
        ("short-slice", |r| matches!(r, Record::WakeupCheck { verdict: Verdict::Preempt, .. }), &[" preempted ", "deadline", "eligible"]),
        // A sleeper that kept its (negative) lag is requeued in place.
        ("place-lag", |r| matches!(r, Record::Wakeup { delayed: true, .. }), &["while still queued as a delayed entity (DELAY_DEQUEUE)"]),
        // A wakee that does not preempt a task still within its request.
        ("run-to-parity", |r| matches!(r, Record::WakeupCheck { verdict: Verdict::NotPicked, .. }), &["does not preempt"]),
        ("delay-dequeue", |r| matches!(r, Record::Block { delayed: true, .. }), &["went to sleep", "DELAY_DEQUEUE keeps it queued"]),
        // SCHED_BATCH wakeups never preempt.
        ("sched-batch", |r| matches!(r, Record::WakeupCheck { verdict: Verdict::WakeePolicy, .. }), &["SCHED_BATCH", "never preempt"]),
        // Where a wakeup lands: select_idle_sibling()'s steps.
        ("wakeup-placement", |r| matches!(r, Record::Placement { how, .. } if !matches!(how, Placed::Pinned | Placed::Idlest)), &["select_idle_sibling()"]),
        // Forks spread over the machine by find_idlest_cpu().
        ("xeon-96-busy", |r| matches!(r, Record::Placement { how: Placed::Idlest, .. }), &["find_idlest_cpu()"]),
        // A group entity's weight follows its tasks while it is queued.
        ("reweight-lag", |r| matches!(r, Record::Reweight { .. }), &["was reweighted from", "calc_group_shares()"]),
    ];
    assert_eq!(keys.len(), presets::lecture_presets().len(), "a preset without a key event here");
    for (id, is_key, words) in keys {
        let mut seen = 0;
        for (k, records, ex) in events(id, 1500, &Overrides::default()) {
            let Some(i) = headline_index(&records) else { continue };
            if !is_key(&records[i]) {
                continue;
            }
            seen += 1;
            for w in words {
                assert!(ex.headline.contains(w), "{id} event {k}: headline lacks {w:?}: {}\n{records:?}", ex.headline);
            }
        }
        assert!(seen > 0, "{id}: its key event never heads an event in 1 500 events");
    }
}
