//! Issue 10's multi-CPU mechanisms: one test per kernel behaviour that the
//! model had wrong for a preset, each expected value derived by hand in
//! its comment from the kernel function it names.

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::rc::Rc;

use crate::kernel::lib::cpumask::CpuMask;
use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::core::{Policy, PrevState, Sched};
use crate::kernel::sched::features::{Features, PRESET_NAMES};
use crate::kernel::sched::presets::{self, Scaling, Tunables};
use crate::kernel::sched::topology::Topology;
use crate::lab::build::{from_text, Overrides};
use crate::lab::sim::LogMode;

/// A bare scheduler of `preset` on `topo`, HZ 250, for tests that drive
/// the kernel functions by hand.
fn sched_on(preset: &str, topo: Topology) -> Sched {
    let i = PRESET_NAMES.iter().position(|p| *p == preset).unwrap();
    let p = presets::preset(preset).unwrap();
    let cpus = topo.nr_cpus();
    Sched::new(Rc::new(topo), Features::preset(i), Tunables::new(250, p.base_slice_normalized, Scaling::Log, cpus, None))
}

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
/// none succeeds, so both maxima are still 0 under the bump: 3/2 × 0 = 0).
/// The next newidle balance of CPU 1 fails in both domains. v6.6: the
/// maxima stay (100, 400). v6.17–v6.18.4 (155213a2aed4, NEWIDLE_COST_BUMP;
/// the 6.18 preset with the bump on and NI_RANDOM off): each failed domain
/// records 3/2 of its max: SMT 3/2 × 0 = 0, package 3/2 × 400 = 600.
#[test]
fn in_v6_17_a_failed_newidle_balance_raises_the_cost_by_half() {
    assert_eq!(after_one_failed_newidle("6.6", &[]), (100, 400));
    let v6_18_0 = [("NEWIDLE_COST_BUMP".into(), true), ("NI_RANDOM".into(), false)];
    assert_eq!(after_one_failed_newidle("6.18", &v6_18_0), (0, 600));
}

fn after_one_failed_newidle(kernel: &str, features: &[(String, bool)]) -> (u64, u64) {
    let ov = Overrides { kernel: Some(kernel.into()), features: features.to_vec(), ..Default::default() };
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

/// NI_RANDOM (33cf66d88306, v6.19; the 6.18 preset, as 6.18.5 on):
/// sched_balance_newidle() runs a domain's balance only when a 1024-sided
/// die d ∈ [0, 1023] shows d ≤ 1 + newidle_ratio, and every attempt, run
/// or skipped, is counted by update_newidle_stats(): call += 1, success +=
/// weight if it pulled; at call = 1024 the ratio becomes success and both
/// halve. PINNED over 600 ms: CPU 1 goes idle N ≈ 1800 times (t's sleeps,
/// one per ~335 µs of run, sleep and switch costs)
/// and every balance fails, so each of its two domains sees N attempts
/// with no success. From (call, success, ratio) = (512, 256, 512) the
/// ratio halves every 512 attempts: 256 after 512, 128 after 1024, 64
/// after 1536 (success halving with it: 128, 64, 32), so after N attempts
/// (call, success, ratio) = (512 + (N − 1536), 32, 64). The balances run:
/// 512 × 514/1024 + 512 × 258/1024 + 512 × 130/1024 + (N − 1536) × 66/1024
/// ≈ 257 + 129 + 65 + 17 = 468 per domain for N = 1800, ~936 of 2N = 3600
/// for both (NO_NI_RANDOM: all 3600).
#[test]
fn from_v6_19_failing_newidle_balances_run_in_proportion_to_their_success() {
    let text = PINNED.replace("duration = \"50ms\"", "duration = \"600ms\"");
    let sim = run(&text, "6.18");
    let n = sim.sched().tasks[2].stats.nvcsw;
    assert!((1536..1536 + 512).contains(&n), "{n} idle entries");
    for (level, sd) in sim.sched().sd[1].iter().enumerate() {
        assert_eq!((sd.newidle_call, sd.newidle_success, sd.newidle_ratio), (512 + (n as u32 - 1536), 32, 64), "domain {level}");
    }
    let expected = 2.0 * (257.0 + 129.0 + 65.0 + (n - 1536) as f64 * 66.0 / 1024.0);
    let ran = sim.sched().balance_stats.newidle as f64;
    // Binomial spread: sqrt(Σ p(1 − p)) ≈ 24 for both domains; 4σ ≈ 100.
    assert!((ran - expected).abs() < 100.0, "{ran} newidle balances ran, expected {expected:.0}");
    let ov = Overrides { kernel: Some("6.18".into()), features: vec![("NI_RANDOM".into(), false)], ..Default::default() };
    let (mut all, _) = from_text(&text, &ov, LogMode::HashOnly).unwrap();
    all.run();
    assert_eq!(all.sched().balance_stats.newidle, 2 * all.sched().tasks[2].stats.nvcsw, "NO_NI_RANDOM: every idle entry balances both domains");
}

/// newidle_balance() of v5.15 skips the balance when "this_rq->avg_idle <
/// sysctl_sched_migration_cost" (0.5 ms; c5b0a7eefc70 made it the lowest
/// domain's max_newidle_lb_cost in v5.16). CPU 1 of PINNED idles ~200 µs
/// at a time; avg_idle starts at 2 × migration_cost = 1 ms and each wake-up
/// moves it 1/8 towards 200 µs: 1000, 900, 812, 736, 669, 610, 559, 514,
/// then 475 < 500. So v5.15 balances at the first 8 idle entries only, both
/// domains each time: 16 newidle balances in 50 ms (v6.5: 2 per sleep).
#[test]
fn v5_15_balances_a_newly_idle_cpu_only_after_half_a_millisecond_of_average_idle() {
    let sim = run(PINNED, "5.15");
    assert_eq!(sim.sched().balance_stats.newidle, 16);
    let sleeps = sim.sched().tasks[2].stats.nvcsw;
    assert!(sleeps > 100, "CPU 1 went idle {sleeps} times");
}

/// One task on one CPU runs 3 ms from fork, then sleeps; the run ends
/// during that sleep. A new task on an empty CPU starts at util_avg 512
/// (post_init_entity_util_avg(): half the spare capacity) and its last
/// PELT update before the sleep is its enqueue at fork (no tick until
/// 4 ms). util_est_update() at the sleep, fast-up (ewma ≤ sample → ewma =
/// sample): v5.15–v6.6.y call it after the dequeue, whose update_load_avg()
/// brought util_avg to 3 ms of running, so the estimate equals the task's
/// util_avg now (it sleeps, so nothing updates it since). v6.12+
/// (UTIL_EST_BEFORE_DEQUEUE) call it before, with the fork's 512.
/// (Also: a task forked at time 0 ages from its fork; its PELT stamp no
/// longer falls back to 0, the "not attached" mark.)
#[test]
fn util_est_samples_util_avg_after_the_dequeue_before_v6_12() {
    let text = "[sim]\nduration = \"10ms\"\n[topology]\npreset = \"1cpu\"\n\
        [[task]]\nname = \"t\"\nprogram = \"loop { run 3ms; sleep 20ms }\"\n";
    for (before, kernel) in [(false, "6.6"), (true, "6.6"), (true, "6.12")] {
        let features = vec![("UTIL_EST_BEFORE_DEQUEUE".to_string(), before)];
        let ov = Overrides { kernel: Some(kernel.into()), features, ..Default::default() };
        let (mut sim, _) = from_text(text, &ov, LogMode::HashOnly).unwrap();
        sim.run();
        let s = sim.sched();
        let a = &s.ents[s.tasks[0].se as usize].avg;
        let want = if before { 512 } else { a.util_avg as u32 };
        // 3 ms of running from 512: 512 + 512·(1 − 0.5^(3/32)) ≈ 543, less the
        // PELT period not yet completed.
        assert!((530..=545).contains(&a.util_avg), "{kernel}: util_avg {} after 3 ms of running", a.util_avg);
        assert_eq!(a.task_util_est(), want, "{kernel} before={before}");
    }
}

/// post_init_entity_util_avg() of a nice-0 task forked onto a queue with
/// util_avg U = 100 and load_avg L = 1023: cap = (1024 − U)/2 = 462, and
/// the util is min(U·w/(L + 1), cap). v6.12+ (se_weight(), w = 1024):
/// 100·1024/1024 = 100. Before (se->load.weight, w = 1024 << 10):
/// 100·1 048 576/1024 = 102 400, so the cap, 462: every new task starts at
/// half the spare capacity, however loaded the queue.
#[test]
fn a_forked_tasks_util_is_its_weights_share_from_v6_12() {
    for (kernel, want) in [("6.6", 462), ("6.12", 100), ("6.18", 100)] {
        let mut s = crate::tests::audit::sched_on(kernel, "1cpu", &[]);
        let t = s.add_task(std::rc::Rc::new(crate::kernel::lib::cpumask::CpuMask::full(1)), 0, crate::kernel::sched::core::Policy::Normal, None);
        let q = s.rqs[0].cfs as usize;
        s.cfs_rqs[q].avg.util_avg = 100;
        s.cfs_rqs[q].avg.load_avg = 1023;
        let se = s.tasks[t as usize].se;
        s.post_init_entity_util_avg(0, se);
        assert_eq!(s.ents[se as usize].avg.util_avg, want, "{kernel}");
    }
}

/// update_tg_load_avg(): a group queue's load moves 0 → 1000 at 5 ms and
/// 1000 → 2000 half a millisecond later; each move is more than 1/64 of
/// the published contribution. v5.15–v6.6.y publish both (tg->load_avg =
/// 2000); v6.7+ (1528c661c24b) skip the second, less than 1 ms after the
/// first (tg->load_avg stays 1000).
#[test]
fn tg_load_avg_is_published_at_most_once_per_ms_from_v6_7() {
    for (kernel, want) in [("6.5", 2000), ("6.6.y", 2000), ("6.12", 1000)] {
        let mut s = crate::tests::audit::sched_on(kernel, "1cpu", &[]);
        let tg = s.add_group("g", crate::kernel::lib::rbtree::NIL, crate::kernel::sched::weight::scale_load(1024), false);
        let q = s.groups[tg as usize].cfs_rq[0];
        for (now, load) in [(5_000_000, 1000), (5_500_000, 2000)] {
            s.now = now;
            s.cfs_rqs[q as usize].avg.load_avg = load;
            s.update_tg_load_avg(q);
        }
        assert_eq!(s.groups[tg as usize].load_avg, want, "{kernel}");
    }
}

/// 16 hogs on one LLC of 8 single-thread cores (one MC domain of 8 CPUs):
/// every CPU is busy from the start. get_sd_balance_interval(sd, busy)
/// (v6.18): 8 ms × busy_factor 16 = 128 ms = 32 jiffies at HZ 250, − 1 =
/// 31 jiffies. update_idle_cpu_scan() runs only from a periodic balance of
/// the LLC's domain, so until one comes due SIS_UTIL's budget stays the
/// idle machine's, 8 (`sis_util_budget_starts_at_an_idle_llc`).
/// - `balance_phases = "boot"`: every domain last balanced at jiffy 0, so
///   every CPU's first periodic balance is due at jiffy 31 (124 ms): at
///   120 ms none has run and the budget is still 8; at 125 ms all 8 have.
/// - `"spread"`: each CPU last balanced k ∈ [0, 30] jiffies before the
///   run (k spread evenly over the CPUs), due at jiffy 31 − k ∈ [1, 31]:
///   by 125 ms each CPU has balanced exactly once (the next is due 31
///   jiffies after its first, ≥ jiffy 32), so by 120 ms some have, and
///   each refresh saw
///   Σutil ≥ 8 × 512 (a forked task's util starts at half the idle CPU's
///   capacity and only grows while it runs): x ≥ 512, t ≥ 512² × 117² /
///   (10000 × 1024) = 350, budget ≤ (1024 − 350) × 8 / 1024 = 5 < 8.
#[test]
fn spread_balance_phases_refresh_the_scan_budget_within_one_busy_interval() {
    let text = |phases: &str| {
        format!(
            "[sim]\nduration = \"1s\"\nbalance_phases = \"{phases}\"\n\
             [topology]\nsockets = 1\nllcs_per_socket = 1\ncores_per_llc = 8\nthreads_per_core = 1\n\
             [[task]]\nname = \"hog\"\ncount = 16\nprogram = \"run\"\n"
        )
    };
    let at = |phases: &str, seed: u64, ms: u64| {
        let ov = Overrides { kernel: Some("6.18".into()), seed: Some(seed), ..Default::default() };
        let (mut sim, _) = from_text(&text(phases), &ov, LogMode::HashOnly).unwrap();
        sim.run_until(ms * 1_000_000);
        let s = sim.sched();
        assert_eq!(s.topo.domains[0].len(), 1, "one domain level");
        (s.balance_stats.periodic, s.llc[0].nr_idle_scan)
    };
    for seed in 1..=3 {
        assert_eq!(at("boot", seed, 120), (0, 8), "seed {seed}");
        assert_eq!(at("boot", seed, 125).0, 8, "seed {seed}");
        let (early, budget) = at("spread", seed, 120);
        assert!((1..=8).contains(&early) && budget <= 5, "seed {seed}: {early} balances, budget {budget}");
        assert_eq!(at("spread", seed, 125).0, 8, "seed {seed}");
    }
}

/// Two sockets of four cores (no SMT): a hog running alone on each CPU of
/// socket 0, socket 1 idle. CPU 4 balances its NUMA domain periodically
/// (should_we_balance(): the first idle CPU of its group {4..7}).
/// find_busiest_group(): the local group has spare capacity and its child
/// (MC) prefers siblings, so it spreads tasks: migrate_task, imbalance
/// (4 − 0) before adjust_numa_imbalance() (4 > NUMA_IMBALANCE_MIN, so
/// kept) and the final halving: 2. find_busiest_queue() takes CPU 0 (the
/// first with the most tasks, 1), which has nothing queued to detach, so
/// every balance fails and counts (sched_balance_rq(), v5.15–v6.18).
/// need_active_balance() → imbalanced_active_balance(): failures > NUMA's
/// cache_nice_tries (2) + 2, so the 5th failed balance queues the stopper
/// on CPU 0. The stopper is a task of CPU 0 as well, so
/// active_load_balance_cpu_stop()'s `nr_running <= 1` test passes with one
/// fair task, and detach_one_task() pushes the hog it preempted to CPU 4;
/// a push clears the failure count of CPU 4's domain spanning CPU 0. (The
/// model used to refuse a busiest CPU with one task, so no running task
/// was ever spread this way, and set the count to tries + 1 instead.)
#[test]
fn a_lone_running_task_is_pushed_to_an_idle_socket_after_five_failed_balances() {
    for preset in PRESET_NAMES {
        let mut s = sched_on(preset, Topology::new("2x4", 2, 1, 4, 1));
        let numa = s.topo.domains[4].len() - 1;
        assert_eq!(s.topo.domains[4][numa].span_weight, 8);
        let hogs: Vec<u32> = (0..4)
            .map(|cpu| {
                let t = s.add_task(Rc::new(CpuMask::from_cpus(8, [cpu])), 0, Policy::Normal, None);
                s.wake_up_new_task(t);
                s.schedule(cpu, PrevState::Running);
                s.tasks[t as usize].affinity = Rc::new(CpuMask::full(8));
                s.tasks[t as usize].nr_cpus_allowed = 8;
                t
            })
            .collect();
        let mut now = 0;
        for failures in 1..=5 {
            now += 20_000_000;
            s.set_now(now);
            s.sched_balance_trigger(4);
            assert_eq!(s.sd[4][numa].nr_balance_failed, failures, "{preset}");
            let kicked = s.rqs[0].push_cpu == 4;
            assert_eq!(kicked, failures == 5, "{preset}: the stopper is queued after the 5th failure only");
        }
        assert_eq!(s.balance_stats.active, 1, "{preset}");
        s.schedule(0, PrevState::Running);
        assert_eq!(s.tasks[hogs[0] as usize].cpu, 4, "{preset}: the hog the stopper preempted went to CPU 4");
        assert_eq!((s.rqs[0].curr, s.rqs[0].push_cpu), (NIL, NIL), "{preset}");
        assert_eq!(s.sd[4][numa].nr_balance_failed, 0, "{preset}: a push clears the count");
    }
}

/// A move's cache refill, charged to the moved task's first run, follows
/// where its lines are (a cost, `Sched::refill_cost()`): on two sockets of
/// two cores of two threads, CPU 0's SMT sibling is CPU 4 (same core: L1
/// and L2 shared, nothing to refill), CPU 1 shares its LLC (L1 and L2 from
/// L3: `costs.migration_llc`, 500 ns by default) and CPU 2 is on the other
/// socket (cold: `costs.migration`, 10 µs). Moves 0 → 4 → 1 → 2 cost
/// 0, 500 and 10 000 ns.
#[test]
fn a_move_costs_the_refill_of_the_caches_it_leaves() {
    let mut s = sched_on("6.18", Topology::new("2x2x2", 2, 1, 2, 2));
    let c = &s.topo.cpus;
    assert_eq!((c[4].core, c[1].llc, c[2].llc), (0, 0, 1));
    let t = s.add_task(Rc::new(CpuMask::full(8)), 0, Policy::Normal, None);
    let mut costs = Vec::new();
    for cpu in [4, 1, 2] {
        let before = s.tasks[t as usize].overhead;
        s.set_task_cpu(t, cpu, false);
        costs.push(s.tasks[t as usize].overhead - before);
    }
    assert_eq!(costs, [0, 500, 10_000]);
    assert_eq!(s.tasks[t as usize].stats.nr_migrations, 3);
}
