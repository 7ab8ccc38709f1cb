//! Host half of the determinism check (the wasm half is
//! wasm_determinism.rs): the event-log hashes of the shared scenarios must
//! equal the recorded ones, which the wasm build must reproduce bit for bit.
//! A change of behaviour changes the hashes: re-record them with
//! `SCHEDLAB_BLESS=1 cargo test -p schedlab-engine --test determinism`
//! and say why in the commit.

#![cfg(not(target_arch = "wasm32"))]

mod common;

#[test]
fn same_seed_same_log_twice() {
    assert_eq!(common::hashes(), common::hashes());
}

#[test]
fn hashes_match_the_recorded_ones() {
    let got = common::hashes();
    if std::env::var_os("SCHEDLAB_BLESS").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/determinism.hashes");
        let text = format!("# case@kernel log-hash events (written by SCHEDLAB_BLESS=1 cargo test --test determinism)\n{}\n", got.join("\n"));
        std::fs::write(path, text).unwrap();
        return;
    }
    assert_eq!(got, common::golden(), "behaviour changed: if intended, re-record with SCHEDLAB_BLESS=1");
}

#[test]
fn schedules_match_the_recorded_ones() {
    let got = common::schedules();
    if std::env::var_os("SCHEDLAB_BLESS").is_some() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/determinism.schedules");
        let text = format!("# case@kernel schedule-hash events, run with LogMode::Schedule (written by SCHEDLAB_BLESS=1 cargo test --test determinism)\n{}\n", got.join("\n"));
        std::fs::write(path, text).unwrap();
        return;
    }
    assert_eq!(got, common::schedules_golden(), "behaviour changed: if intended, re-record with SCHEDLAB_BLESS=1");
}

/// Skipping the records must not change the run: the same switches at the
/// same times and the same events in every log mode. And a hash-only run,
/// which keeps no pick or scan paths (it counts a scan's length instead),
/// must hash its records as a kept log does: the page shows the Full run's
/// hash, the CLI and the golden file the hash-only one.
#[test]
fn the_schedule_does_not_depend_on_the_log_mode() {
    use schedlab_engine::LogMode;
    for (name, text) in common::CASES {
        for kernel in schedlab_engine::kernel::sched::features::PRESET_NAMES {
            let fast = common::schedule(text, kernel, LogMode::Schedule);
            let (hashed, hash) = common::schedule_and_hash(text, kernel, LogMode::HashOnly);
            let (kept, kept_hash) = common::schedule_and_hash(text, kernel, LogMode::Full);
            assert_eq!(hashed, fast, "{name}@{kernel}");
            assert_eq!(kept, fast, "{name}@{kernel}");
            assert_eq!(hash, kept_hash, "{name}@{kernel}: the log hash depends on keeping the log");
        }
    }
}

#[test]
fn study_table_matches_the_recorded_one() {
    let got = common::study_table();
    if std::env::var_os("SCHEDLAB_BLESS").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/study.table"), &got).unwrap();
        return;
    }
    assert_eq!(got, common::STUDY_GOLDEN, "behaviour changed: if intended, re-record with SCHEDLAB_BLESS=1");
}

/// The CLI spreads a study over threads; the table must not depend on it.
/// Its progress bar hears of every run once: the counts 1..=N in some
/// order, each with N.
#[test]
fn a_threaded_study_equals_a_sequential_one() {
    let mut a = schedlab_engine::lab::study::Study::new(common::STUDY).unwrap();
    let calls = std::sync::Mutex::new(Vec::new());
    schedlab_engine::lab::study::run_many(&mut [&mut a], 2, &|done, of| calls.lock().unwrap().push((done, of))).unwrap();
    let n = a.runs.len();
    let mut calls = calls.into_inner().unwrap();
    calls.sort();
    assert_eq!(calls, (1..=n).map(|k| (k, n)).collect::<Vec<_>>());
    let mut b = schedlab_engine::lab::study::Study::new(common::STUDY).unwrap();
    while let Some(r) = b.run_next() {
        r.unwrap();
    }
    assert_eq!(a.table(), b.table());
    assert_eq!(a.values, b.values);
}
