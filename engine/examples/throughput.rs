//! Events per wall-clock second, the same harness natively and in wasm, so
//! the two can be compared as a ratio (scripts/bench runs both).
//!
//! Native: `cargo run --release -p schedlab-engine --example throughput`.
//! wasm: built for wasm32 and driven by scripts/wasm-bench.mjs in Node; the
//! exported `run_scenario()` returns the number of events and JavaScript
//! times it (std::time::Instant does not exist on wasm32-unknown-unknown).

use schedlab_engine::{from_text, LogMode, Overrides};

/// The benchmark workload: one CPU, `tasks` tasks running short bursts and
/// sleeping a quarter as long (mostly runnable), HZ=1000.
pub fn scenario(tasks: u32) -> String {
    format!(
        "[sim]\nduration = \"10s\"\nhz = 1000\n[[task]]\nname = \"w\"\ncount = {tasks}\n\
         program = \"loop {{ run exp(200us); sleep exp(50us) }}\"\n"
    )
}

/// Runs `tasks` for `sim_ms` simulated milliseconds; returns the events.
#[cfg_attr(target_arch = "wasm32", wasm_bindgen::prelude::wasm_bindgen)]
pub fn run_scenario(tasks: u32, sim_ms: u32, full_log: bool) -> f64 {
    let ov = Overrides { duration: Some(sim_ms as u64 * 1_000_000), ..Default::default() };
    let mode = if full_log { LogMode::Full } else { LogMode::HashOnly };
    let (mut sim, _) = from_text(&scenario(tasks), &ov, mode).expect("benchmark scenario");
    sim.run();
    sim.state.events as f64
}

/// The peer comparison (scx_simulator's figures): a machine of `cpus`
/// CPUs (2 sockets × LLCs of 16 cores × 2 threads, with idle states) and
/// `tasks` tasks that run and sleep in short bursts, the full model
/// (SIS, balancing, PELT, groups off). Returns (events, context switches).
#[cfg_attr(target_arch = "wasm32", wasm_bindgen::prelude::wasm_bindgen)]
pub fn run_machine(cpus: u32, tasks: u32, sim_ms: u32, full_log: bool) -> Vec<f64> {
    let llcs = cpus / 64;
    let text = format!(
        "[sim]\nduration = \"{sim_ms}ms\"\n[topology]\nsockets = 2\nllcs_per_socket = {llcs}\ncores_per_llc = 16\nthreads_per_core = 2\n\
         [[task]]\nname = \"w\"\ncount = {tasks}\nprogram = \"loop {{ run exp(100us); sleep exp(400us) }}\"\n"
    );
    let mode = if full_log { LogMode::Full } else { LogMode::HashOnly };
    let (mut sim, _) = from_text(&text, &Overrides::default(), mode).expect("machine scenario");
    sim.run();
    let switches: u64 = sim.sched().rqs.iter().map(|rq| rq.nr_switches).sum();
    vec![sim.state.events as f64, switches as f64]
}

/// (CPUs, tasks, simulated ms) of the peer comparison.
pub const MACHINES: [(u32, u32, u32); 2] = [(64, 1024, 400), (256, 8192, 100)];

/// Simulated milliseconds that give about 300 000 events per run.
pub const SIM_MS: [(u32, u32); 4] = [(2, 27_000), (16, 27_000), (256, 27_000), (4096, 27_000)];

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    for (tasks, ms) in SIM_MS {
        for full in [true, false] {
            let mut best = f64::MAX;
            let mut events = 0.0;
            for _ in 0..5 {
                let t = std::time::Instant::now();
                events = run_scenario(tasks, ms, full);
                best = best.min(t.elapsed().as_secs_f64());
            }
            println!("native tasks={tasks:<5} log={:<5} events={events:<8} best {:.3} s  {:.2} M events/s", full, best, events / best / 1e6);
        }
    }
    for (cpus, tasks, ms) in MACHINES {
        for full in [true, false] {
            let mut best = f64::MAX;
            let mut r = vec![0.0, 0.0];
            for _ in 0..3 {
                let t = std::time::Instant::now();
                r = run_machine(cpus, tasks, ms, full);
                best = best.min(t.elapsed().as_secs_f64());
            }
            println!(
                "native cpus={cpus:<4} tasks={tasks:<5} log={:<5} events={:<8} switches={:<8} best {:.3} s  {:.2} M events/s  {:.0} k switches/s",
                full,
                r[0],
                r[1],
                best,
                r[0] / best / 1e6,
                r[1] / best / 1e3
            );
        }
    }
}

#[cfg(target_arch = "wasm32")]
fn main() {}
