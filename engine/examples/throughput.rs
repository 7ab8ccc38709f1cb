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
}

#[cfg(target_arch = "wasm32")]
fn main() {}
