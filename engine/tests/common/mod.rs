//! Shared by the host and the wasm determinism tests: the same scenarios,
//! run under every kernel preset, must produce the same event-log hash on
//! every target. The expected hashes are in `data/determinism.hashes`,
//! written by the host (`SCHEDLAB_BLESS=1 cargo test --test determinism`).

use schedlab_engine::kernel::sched::features::PRESET_NAMES;
use schedlab_engine::{from_text, LogMode, Overrides};

pub const CASES: &[(&str, &str)] = &[
    ("three-equal", include_str!("../data/determinism/three-equal.toml")),
    ("sleepers", include_str!("../data/determinism/sleepers.toml")),
    ("nice-and-slices", include_str!("../data/determinism/nice-and-slices.toml")),
    ("churn", include_str!("../data/determinism/churn.toml")),
    ("multi-cpu", include_str!("../data/determinism/multi-cpu.toml")),
    ("numa", include_str!("../data/determinism/numa.toml")),
    ("channels", include_str!("../data/determinism/channels.toml")),
];

/// A small study; its table must be identical on every target.
pub const STUDY: &str = include_str!("../data/study.toml");
pub const STUDY_GOLDEN: &str = include_str!("../data/study.table");

/// The study's table and every run's log hash, run one at a time (as the
/// web worker does).
pub fn study_table() -> String {
    let mut study = schedlab_engine::lab::study::Study::new(STUDY).unwrap();
    while let Some(r) = study.run_next() {
        r.unwrap();
    }
    let mut out = study.table().format(false);
    for (k, v) in study.runs.iter().zip(&study.values) {
        let v = v.as_ref().unwrap();
        out += &format!("row {} config {} seed {}: {:?} {} {}\n", k.row, k.config, k.seed, v.value, v.schedule_hash, v.events);
    }
    out
}

pub const GOLDEN: &str = include_str!("../data/determinism.hashes");

/// "case@kernel hash events" for every case and preset.
pub fn hashes() -> Vec<String> {
    let mut out = Vec::new();
    for (name, text) in CASES {
        for kernel in PRESET_NAMES {
            let ov = Overrides { kernel: Some(kernel.to_string()), ..Default::default() };
            let (mut sim, _) = from_text(text, &ov, LogMode::HashOnly).expect(name);
            sim.run();
            out.push(format!("{name}@{kernel} {:016x} {}", sim.log.hash.0, sim.state.events));
        }
    }
    out
}

/// The golden lines, without comments.
pub fn golden() -> Vec<String> {
    lines(GOLDEN)
}

fn lines(text: &str) -> Vec<String> {
    text.lines().filter(|l| !l.trim().is_empty() && !l.starts_with('#')).map(str::to_string).collect()
}

pub const SCHEDULES_GOLDEN: &str = include_str!("../data/determinism.schedules");

/// One case under one preset in one log mode: (schedule hash, events).
pub fn schedule(text: &str, kernel: &str, mode: LogMode) -> (u64, u64) {
    schedule_and_hash(text, kernel, mode).0
}

/// [`schedule`] and the run's log hash (in `LogMode::Schedule`, which
/// hashes no records, the hash's initial value).
pub fn schedule_and_hash(text: &str, kernel: &str, mode: LogMode) -> ((u64, u64), u64) {
    let ov = Overrides { kernel: Some(kernel.to_string()), ..Default::default() };
    let (mut sim, _) = from_text(text, &ov, mode).expect(kernel);
    sim.run();
    ((sim.log.schedule.0, sim.state.events), sim.log.hash.0)
}

/// "case@kernel schedule-hash events" for every case and preset, run as
/// studies run (`LogMode::Schedule`: no records built or hashed).
pub fn schedules() -> Vec<String> {
    let mut out = Vec::new();
    for (name, text) in CASES {
        for kernel in PRESET_NAMES {
            let (hash, events) = schedule(text, kernel, LogMode::Schedule);
            out.push(format!("{name}@{kernel} {hash:016x} {events}"));
        }
    }
    out
}

pub fn schedules_golden() -> Vec<String> {
    lines(SCHEDULES_GOLDEN)
}
