//! Engine throughput, the same cases natively and in wasm, so that the two
//! can be compared as a ratio (scripts/bench runs both).
//!
//! Native: `cargo run --release -p schedlab-engine --example throughput`
//! (`-- FILTER` runs the cases whose label contains FILTER). wasm: built
//! for wasm32 and driven by scripts/wasm-bench.mjs in Node, which times the
//! exported `run_case()` (std::time::Instant does not exist on
//! wasm32-unknown-unknown) over the same `case_*()` list.
//!
//! The cases:
//! - one CPU with N tasks running short bursts and sleeping a quarter as
//!   long (mostly runnable), with the full log and hash-only;
//! - the peer workload (scx_simulator's rt-app comparison): half the tasks
//!   hogs, half `run 0.5 ms / sleep 4.5 ms`, HZ 250, 10 s simulated, on a
//!   flat machine (one LLC, no SMT, as the peer's `--cpus N`) of 4 CPUs /
//!   32 tasks, 64 / 1024 and 256 / 8192, hash-only and `LogMode::Schedule`;
//! - hackbench, 4 groups, process-pipe on xeon-8260-2s, 100 ms simulated
//!   (the browser's study workload), `LogMode::Schedule`.

use schedlab_engine::{from_text, LogMode, Overrides};

/// A benchmark case: its label, scenario, log mode and how many times it
/// runs (the best time counts).
pub struct Case {
    pub label: String,
    pub text: String,
    pub mode: LogMode,
    pub reps: u32,
}

/// One CPU, `tasks` tasks that run and sleep in short bursts, HZ=1000.
pub fn one_cpu(tasks: u32, ms: u32) -> String {
    format!(
        "[sim]\nduration = \"{ms}ms\"\nhz = 1000\n[[task]]\nname = \"w\"\ncount = {tasks}\n\
         program = \"loop {{ run exp(200us); sleep exp(50us) }}\"\n"
    )
}

/// The peer workload on `cpus` CPUs with `tasks` tasks for `secs` s.
pub fn peer(cpus: u32, tasks: u32, secs: u32) -> String {
    let half = tasks / 2;
    format!(
        "[sim]\nduration = \"{secs}s\"\nhz = 250\n[topology]\nsockets = 1\nllcs_per_socket = 1\ncores_per_llc = {cpus}\nthreads_per_core = 1\n\
         [[task]]\nname = \"hog\"\ncount = {half}\nprogram = \"run\"\n\
         [[task]]\nname = \"periodic\"\ncount = {}\nprogram = \"loop {{ run 500us; sleep 4500us }}\"\n",
        tasks - half
    )
}

/// hackbench, process-pipe, `groups` groups on xeon-8260-2s for `ms` ms.
pub fn hackbench(groups: u32, ms: u32) -> String {
    format!(
        "[sim]\nkernel = \"6.6\"\nduration = \"{ms}ms\"\n[topology]\npreset = \"xeon-8260-2s\"\n\
         [[workload]]\nkind = \"hackbench\"\nmode = \"process\"\nipc = \"pipe\"\ngroups = {groups}\nloops = 1000000\n"
    )
}

/// (CPUs, tasks) of the peer comparison.
pub const PEER: [(u32, u32); 3] = [(4, 32), (64, 1024), (256, 8192)];

fn mode_name(m: LogMode) -> &'static str {
    match m {
        LogMode::Full => "log",
        LogMode::HashOnly => "hash",
        LogMode::Schedule => "schedule",
    }
}

pub fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    // About 300 000 events each.
    for tasks in [2u32, 16, 256, 4096] {
        for mode in [LogMode::Full, LogMode::HashOnly] {
            out.push(Case { label: format!("1cpu tasks={tasks} {}", mode_name(mode)), text: one_cpu(tasks, 27_000), mode, reps: 5 });
        }
    }
    for (cpus, tasks) in PEER {
        for mode in [LogMode::HashOnly, LogMode::Schedule] {
            // The large machines run long; once is what the shared build
            // machine affords. The small one runs for 15–45 ms: in wasm its
            // first runs still execute V8's baseline (Liftoff) code while
            // the optimising tier compiles in the background, so it runs
            // often enough for the best to be optimised code.
            let reps = if cpus <= 4 { 20 } else { 1 };
            out.push(Case { label: format!("peer cpus={cpus} tasks={tasks} {}", mode_name(mode)), text: peer(cpus, tasks, 10), mode, reps });
        }
    }
    out.push(Case { label: "hackbench-4g xeon-8260-2s 100ms schedule".into(), text: hackbench(4, 100), mode: LogMode::Schedule, reps: 1 });
    out
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen::prelude::wasm_bindgen)]
pub fn case_count() -> u32 {
    cases().len() as u32
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen::prelude::wasm_bindgen)]
pub fn case_label(i: u32) -> String {
    cases().swap_remove(i as usize).label
}

#[cfg_attr(target_arch = "wasm32", wasm_bindgen::prelude::wasm_bindgen)]
pub fn case_reps(i: u32) -> u32 {
    cases()[i as usize].reps
}

/// Runs case `i` once; returns (events, context switches, simulated ns).
/// Building the simulation is included (it is small against the run).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen::prelude::wasm_bindgen)]
pub fn run_case(i: u32) -> Vec<f64> {
    let c = cases().swap_remove(i as usize);
    let (mut sim, _) = from_text(&c.text, &Overrides::default(), c.mode).expect("benchmark scenario");
    sim.run();
    let switches: u64 = sim.sched().rqs.iter().map(|rq| rq.nr_switches).sum();
    vec![sim.state.events as f64, switches as f64, sim.now() as f64]
}

/// The report line of case `i` from `run_case()`'s figures and the best
/// wall time in seconds (both harnesses print it).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen::prelude::wasm_bindgen)]
pub fn report(harness: &str, i: u32, r: Vec<f64>, best: f64) -> String {
    line(harness, &case_label(i), &r, best)
}

fn line(harness: &str, label: &str, r: &[f64], best: f64) -> String {
    let (events, switches, sim_s) = (r[0], r[1], r[2] / 1e9);
    format!(
        "{harness:<6} {label:<42} events={events:<9} switches={switches:<9} best {best:.3} s  {:.2} M events/s  {:.0} ns/event  {:.0} k switches/s  {:.2} sim s/s",
        events / best / 1e6,
        best * 1e9 / events,
        switches / best / 1e3,
        sim_s / best
    )
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let filter = std::env::args().nth(1).unwrap_or_default();
    for i in 0..case_count() {
        let label = case_label(i);
        if !label.contains(&filter) {
            continue;
        }
        let mut best = f64::MAX;
        let mut r = Vec::new();
        for _ in 0..case_reps(i) {
            let t = std::time::Instant::now();
            r = run_case(i);
            best = best.min(t.elapsed().as_secs_f64());
        }
        println!("{}", report("native", i, r, best));
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}
