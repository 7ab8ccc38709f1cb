//! A warm-up (`[sim] warmup`) changes what is counted, never what happens.

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::lab::sim::LogMode;
use crate::{from_text, Overrides};

const MS: u64 = 1_000_000;

fn run(text: &str) -> crate::lab::results::RunResult {
    let (mut sim, cfg) = from_text(text, &Overrides::default(), LogMode::HashOnly).unwrap();
    sim.run();
    sim.results(&cfg.kernel)
}

const BODY: &str = "[[task]]\nname = \"hog\"\nprogram = \"run\"\n[[task]]\nname = \"tick\"\nprogram = \"loop { sleep 3ms; run 1ms }\"\n";

/// The same run with and without a warm-up has the same log; the window
/// covers the duration minus the warm-up, and every counter restarts.
#[test]
fn a_warmup_resets_counters_not_the_schedule() {
    let whole = run(&format!("[sim]\nduration = \"100ms\"\n[topology]\npreset = \"1cpu\"\n{BODY}"));
    let window = run(&format!("[sim]\nduration = \"100ms\"\nwarmup = \"40ms\"\n[topology]\npreset = \"1cpu\"\n{BODY}"));
    assert_eq!(whole.log_hash, window.log_hash);
    assert_eq!((window.sim_time_ns, window.measured_from_ns), (60 * MS, 40 * MS));
    // One CPU, never idle (the hog is always runnable): busy = the window,
    // and the two tasks' CPU times share it.
    assert_eq!((window.cpus[0].busy_ns, window.cpus[0].idle_ns), (60 * MS, 0));
    let cpu: u64 = window.tasks.iter().map(|t| t.cpu_time_ns).sum();
    assert_eq!(cpu, 60 * MS);
    for (w, t) in window.tasks.iter().zip(&whole.tasks) {
        assert!(w.ops <= t.ops && w.nr_switches < t.nr_switches, "{}: counters restart at the warm-up", w.name);
    }
}

/// Alone on a CPU, `sleep 3ms; run 1ms` completes an iteration at every
/// 4 ms. With a 40 ms warm-up of a 100 ms run the window counts the
/// iterations ending at 40, 44, ..., 100 ms (an event at the warm-up's end
/// and one at the duration both count): (100 - 40) / 4 + 1 = 16, and its CPU
/// time in the window is the 15 whole runs that start after 40 ms plus
/// nothing of the one that ended at 40 ms: 15 ms.
#[test]
fn the_window_counts_from_the_warmups_end() {
    let r = run("[sim]\nduration = \"100ms\"\nwarmup = \"40ms\"\ncosts = { context_switch = \"0ns\", wakeup = \"0ns\" }\n[topology]\npreset = \"1cpu\"\n\
                 [[task]]\nname = \"tick\"\nprogram = \"loop { sleep 3ms; run 1ms }\"\n");
    let t = &r.tasks[0];
    assert_eq!(t.ops, 16);
    assert_eq!(t.cpu_time_ns, 15 * MS);
}

/// A warm-up as long as the run is an error naming the key.
#[test]
fn a_warmup_must_end_before_the_run() {
    let e = from_text("[sim]\nduration = \"10ms\"\nwarmup = \"10ms\"\n", &Overrides::default(), LogMode::HashOnly).err().unwrap();
    assert_eq!(e.key, "sim.warmup");
    assert!(e.msg.contains("shorter than the duration"), "{}", e.msg);
}
