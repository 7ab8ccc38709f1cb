//! Issue 10's multi-CPU mechanisms: one test per kernel behaviour that the
//! model had wrong for a preset, each expected value derived by hand in
//! its comment from the kernel function it names.

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::lab::build::{from_text, Overrides};
use crate::lab::sim::LogMode;

fn run(text: &str, kernel: &str) -> crate::lab::sim::Simulation {
    let ov = Overrides { kernel: Some(kernel.into()), ..Default::default() };
    let (mut sim, _) = from_text(text, &ov, LogMode::HashOnly).unwrap();
    sim.run();
    sim
}

/// Two hogs pinned to CPU 0 keep the root domain overloaded; a task pinned
/// to CPU 1 runs 100 µs and sleeps 200 µs, so CPU 1 goes newly idle every
/// 300 µs with avg_idle ≈ 200 µs and every newidle balance fails (the only
/// work to pull is pinned).
const PINNED: &str = "[sim]\nduration = \"50ms\"\n[topology]\npreset = \"i7-4790\"\n\
[[task]]\nname = \"hog\"\ncount = 2\naffinity = \"0\"\nprogram = \"run\"\n\
[[task]]\nname = \"t\"\naffinity = \"1\"\nprogram = \"loop { run 100us; sleep 200us }\"\n";

/// sched_balance_newidle() → update_newidle_cost(). v6.6
/// (newidle_balance()): a domain's cost is what its balance took, here
/// the model's probe of every CPU of the span at `costs.scan` (50 ns):
/// CPU 1's SMT domain {1,5} costs 2 × 50 = 100 ns and its package domain
/// (8 CPUs) 8 × 50 = 400 ns, and failures change nothing, so after 50 ms
/// of failing balances the maxima are exactly (100, 400).
#[test]
fn before_v6_17_a_domain_costs_what_its_balance_took() {
    for kernel in ["6.5", "6.6", "6.12"] {
        let sim = run(PINNED, kernel);
        let sd = &sim.sched().sd[1];
        assert_eq!((sd[0].max_newidle_lb_cost, sd[1].max_newidle_lb_cost), (100, 400), "{kernel}");
        // Every idle entry of CPU 1 (each sleep of t) balances both domains.
        let sleeps = sim.sched().tasks[2].stats.nvcsw;
        assert_eq!(sim.sched().balance_stats.newidle, 2 * sleeps, "{kernel}: a newidle balance at every idle entry");
    }
}

/// The same machine after 5 ms, with the package domain's max set to
/// 400 ns as a successful balance would have left it (in this scenario
/// none succeeds, so both maxima are still 0 under v6.18: 3/2 × 0 = 0).
/// The next newidle balance of CPU 1 fails in both domains. v6.6: the
/// maxima stay (100, 400). v6.17+ (155213a2aed4, NEWIDLE_COST_BUMP): each
/// failed domain records 3/2 of its max: SMT 3/2 × 0 = 0, package
/// 3/2 × 400 = 600.
#[test]
fn from_v6_17_a_failed_newidle_balance_raises_the_cost_by_half() {
    assert_eq!(after_one_failed_newidle("6.6"), (100, 400));
    assert_eq!(after_one_failed_newidle("6.18"), (0, 600));
}

fn after_one_failed_newidle(kernel: &str) -> (u64, u64) {
    let ov = Overrides { kernel: Some(kernel.into()), ..Default::default() };
    let (mut sim, _) = from_text(PINNED, &ov, LogMode::HashOnly).unwrap();
    sim.run_until(5_000_000);
    sim.state.sched.sd[1][1].max_newidle_lb_cost = 400;
    let n0 = sim.sched().balance_stats.newidle;
    while sim.sched().balance_stats.newidle < n0 + 2 {
        assert!(sim.step());
    }
    let sd = &sim.sched().sd[1];
    (sd[0].max_newidle_lb_cost, sd[1].max_newidle_lb_cost)
}
