//! Each patch of the seed threads changes what it claims to change, on a
//! small scenario where it must matter.

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::lab::build::{from_text, Overrides};
use crate::lab::compare::{first_divergence, ConfigSpec};
use crate::kernel::lib::rbtree::NIL;
use crate::lab::results::RunResult;
use crate::lab::sim::{LogMode, Simulation};
use crate::lab::trace::{Cause, Record};

fn run(text: &str, config: &str, mode: LogMode) -> Simulation {
    let spec = ConfigSpec::parse(config).unwrap();
    let (mut sim, _) = from_text(text, &spec.overrides(None), mode).unwrap_or_else(|e| panic!("{config}: {e}"));
    sim.run();
    sim
}

fn results(text: &str, config: &str) -> RunResult {
    run(text, config, LogMode::HashOnly).results(config)
}

fn count(sim: &Simulation, f: impl Fn(&Record) -> bool) -> usize {
    sim.log.iter().filter(|e| f(&e.record)).count()
}

/// seed 000 1/4 (reweight-fix): on two CPUs, a group whose tasks sleep
/// and wake is reweighted while queued with non-zero lag; the fix changes
/// where it lands and so the schedule, on v6.6. (The exact arithmetic is in
/// oracles.rs: v' = 99, d' = 100.5.)
#[test]
fn reweight_fix_changes_group_schedule() {
    let text = "[sim]\nduration = \"500ms\"\n[topology]\npreset = \"2cpu-vm\"\n[[group]]\nname = \"web\"\n[[group]]\nname = \"batch\"\n\
        [[task]]\nname = \"w\"\ncount = 3\ngroup = \"web\"\nprogram = \"loop { run exp(2ms); sleep exp(3ms) }\"\n\
        [[task]]\nname = \"b\"\ncount = 2\ngroup = \"batch\"\nprogram = \"run\"\n";
    let a = run(text, "6.6", LogMode::Full);
    let b = run(text, "6.6+reweight-fix", LogMode::Full);
    assert!(first_divergence(&a, &b).is_some());
}

/// seed 000 2/4 (deadline-tree): "optimize out the fallback search on
/// best_left which doubles the cost in worst case": with the tree sorted by
/// deadline a pick is one descent, so the longest walk is at most the tree
/// height, while v6.6's second descent can make it longer.
#[test]
fn deadline_tree_bounds_the_walk() {
    // Three weight classes make deadline order differ from vruntime order,
    // which is when v6.6 has to go back into a left subtree.
    let mut text = String::from("[sim]\nduration = \"300ms\"\nhz = 1000\n");
    for (name, nice) in [("a", -10), ("b", 0), ("c", 15)] {
        text += &format!("[[task]]\nname = \"{name}\"\ncount = 40\nnice = {nice}\nprogram = \"loop {{ run exp(300us); sleep exp(100us) }}\"\n");
    }
    let a = results(&text, "6.6");
    let b = results(&text, "6.6+deadline-tree");
    // A red-black tree of n ≤ 120 nodes is at most 2·log2(121) < 14 deep.
    assert!(b.pick.max_walk <= 13, "{}", b.pick.max_walk);
    assert!(a.pick.max_walk > b.pick.max_walk, "{} vs {}", a.pick.max_walk, b.pick.max_walk);
}

/// seed 000 4/4 (pick-stats): the statistics are reported only with the
/// patch.
#[test]
fn pick_stats_flag() {
    let sim = run("[[task]]\nname = \"t\"\ncount = 3\nprogram = \"run\"\n", "6.18+pick-stats", LogMode::HashOnly);
    assert!(sim.sched().feat.has(crate::kernel::sched::features::Feature::PICK_STATS));
    assert!(sim.results("").pick.picks > 0);
}

/// seed 001 (next-buddy-hint): CFS with two groups of tasks that run and
/// sleep briefly; when a task sleeps while its group still has work the
/// group becomes the next buddy, so the CPU switches between groups less.
#[test]
fn next_buddy_hint_reduces_cross_group_switches() {
    let text = "[sim]\nduration = \"1s\"\nkernel = \"5.15\"\n[[group]]\nname = \"a\"\n[[group]]\nname = \"b\"\n\
        [[task]]\nname = \"a\"\ncount = 3\ngroup = \"a\"\nprogram = \"loop { run exp(500us); sleep exp(200us) }\"\n\
        [[task]]\nname = \"b\"\ncount = 3\ngroup = \"b\"\nprogram = \"loop { run exp(500us); sleep exp(200us) }\"\n";
    let cross = |sim: &Simulation| {
        count(sim, |r| match *r {
            Record::Switch { prev, next, .. } if prev != NIL && next != NIL => sim.sched().tasks[prev as usize].tg != sim.sched().tasks[next as usize].tg,
            _ => false,
        })
    };
    let without = run(text, "5.15,NEXT_BUDDY_HINT=off", LogMode::Full);
    let with = run(text, "5.15+next-buddy-hint", LogMode::Full);
    assert!(cross(&with) < cross(&without), "{} vs {}", cross(&with), cross(&without));
}

/// seed 002 (sis-filter): once the tick has marked the hogs' CPUs 0-49
/// overloaded (nr_running 2), select_idle_cpu()'s CPU-by-CPU scan no longer
/// looks at them; without the patch it does. (The patch leaves the
/// idle-core scan unfiltered: those visits, recorded as BusyCore, are not
/// counted.)
#[test]
fn sis_filter_skips_overloaded_cpus() {
    let text = include_str!("../../../assets/scenarios/sis-filter-overload.toml").replace("duration = \"1s\"", "duration = \"300ms\"");
    // Scan visits to CPUs 0-49 after the first 100 ms: the hogs' PELT
    // averages must first ramp up past capacity × imbalance_pct.
    let visits = |sim: &Simulation| -> usize {
        sim.log
            .iter()
            .filter(|e| e.time > 100_000_000)
            .map(|e| match e.record {
                Record::Placement { scan_start, scan_len, .. } => {
                    sim.log.paths[scan_start as usize..scan_start as usize + scan_len as usize].iter().filter(|&&v| v >> 2 < 50 && v & 3 != crate::kernel::sched::select::Seen::BusyCore as u32).count()
                }
                _ => 0,
            })
            .sum()
    };
    let without = run(&text, "6.18", LogMode::Full);
    let with = run(&text, "6.18+sis-filter", LogMode::Full);
    assert!(with.results("").sis.cpus_filtered > 0);
    assert!(visits(&without) > 100, "{}", visits(&without));
    assert_eq!(visits(&with), 0);
    // So each select_idle_cpu() scan looks at fewer CPUs (the patch's
    // "speed up select_idle_cpu()").
    let per_scan = |sim: &Simulation| {
        let s = sim.results("").sis;
        s.cpus_scanned as f64 / s.scans as f64
    };
    assert!(per_scan(&with) < per_scan(&without), "{} vs {}", per_scan(&with), per_scan(&without));
}

/// seed 002 (sis-filter), the issue's "visits per scan rise and fewer scans
/// find an idle CPU": update_overloaded_rq() runs only from
/// scheduler_tick(), and a CPU that goes idle stops its tick (NOHZ), so a
/// CPU marked overloaded keeps its bit after it drains and the filter hides
/// it from every scan while it is idle. Here the hogs exit at 150 ms: from
/// then on CPUs 0-49 are idle, and stay filtered until a wake-up lands on
/// one through a fast path and its tick runs again.
#[test]
fn sis_filter_hides_cpus_that_went_idle_after_the_tick_marked_them() {
    let text = include_str!("../../../assets/scenarios/sis-filter-overload.toml")
        .replace("duration = \"1s\"", "duration = \"300ms\"")
        .replace("program = \"run\"", "program = \"run 150ms\"");
    let with = run(&text, "6.18+sis-filter", LogMode::HashOnly).results("").sis;
    assert!(with.cpus_filtered_idle > 0, "{with:?}");
    assert!(with.cpus_filtered_idle <= with.cpus_filtered);
    // While the hogs run forever no marked CPU is ever idle.
    let text = include_str!("../../../assets/scenarios/sis-filter-overload.toml").replace("duration = \"1s\"", "duration = \"300ms\"");
    let forever = run(&text, "6.18+sis-filter", LogMode::HashOnly).results("").sis;
    assert!(forever.cpus_filtered > 0);
    assert!(forever.cpus_filtered_idle * 100 < forever.cpus_filtered, "{forever:?}");
}

/// seed 002 (sis-filter): the patch filters only the CPU-by-CPU scan,
/// `if (sched_feat(SIS_FILTER) && !has_idle_core && sd->shared)
/// cpumask_andnot(cpus, cpus, sdo_mask(sd->shared))`. On the i7-4790 (one
/// LLC of 4 cores × 2 threads) every CPU is busy but core 1's two, which
/// are idle with stale overloaded marks (as after NOHZ, above). Waking
/// from CPU 0 while the LLC may have an idle core, the scan ignores the
/// marks, finds core 1 idle and returns its first thread, CPU 1: nothing
/// filtered, one core scan. Without an idle core the marks remove both
/// idle CPUs from the scan (2 filtered), which then finds none.
#[test]
fn sis_filter_leaves_the_idle_core_scan_unfiltered() {
    use crate::kernel::sched::features::Feature;
    let mut s = crate::tests::audit::sched_on("6.5", "i7-4790", &[(Feature::SIS_FILTER, true)]);
    let all = std::rc::Rc::new(crate::kernel::lib::cpumask::CpuMask::full(8));
    let t = s.add_task(all, 0, crate::kernel::sched::core::Policy::Normal, None);
    let core1: Vec<u32> = (0..8).filter(|&c| s.topo.cpus[c as usize].core == s.topo.cpus[1].core).collect();
    assert_eq!(core1.len(), 2);
    for cpu in 0..8u32 {
        let busy = !core1.contains(&cpu);
        s.rqs[cpu as usize].curr = if busy { t } else { NIL };
        s.rqs[cpu as usize].nr_running = busy as u32;
        s.note_idle(cpu);
    }
    for &cpu in &core1 {
        s.llc[0].overloaded.set(cpu);
    }
    s.llc[0].nr_idle_scan = 8;
    let level = s.topo.sd_llc[0].unwrap() as usize;
    let mut idle_core = s.clone();
    assert_eq!(idle_core.select_idle_cpu(t, level, true, 0), Some(1));
    assert_eq!((idle_core.sis.scans, idle_core.sis.core_scans, idle_core.sis.cpus_filtered), (1, 1, 0));
    assert_eq!(s.select_idle_cpu(t, level, false, 0), None);
    assert_eq!((s.sis.scans, s.sis.core_scans, s.sis.cpus_filtered), (1, 0, 2));
}

/// seed 003 (no-same-prio-preempt): nice-0 wakers never preempt nice-0
/// hogs any more, so there are no wakeup preemptions at all and fewer
/// involuntary switches.
#[test]
fn no_same_prio_preempt_removes_wakeup_preemption() {
    let text = "[sim]\nduration = \"1s\"\nhz = 1000\n[[task]]\nname = \"hog\"\nprogram = \"run\"\n[[task]]\nname = \"w\"\ncount = 2\nprogram = \"loop { sleep exp(2ms); run exp(300us) }\"\n";
    for k in ["5.15", "6.6"] {
        let wakeup_preempts = |sim: &Simulation| count(sim, |r| matches!(r, Record::Resched { cause: Cause::WakeupPreempt { .. }, .. }));
        let a = run(text, k, LogMode::Full);
        let b = run(text, &format!("{k}+no-same-prio-preempt"), LogMode::Full);
        assert!(wakeup_preempts(&a) > 0, "{k}");
        assert_eq!(wakeup_preempts(&b), 0, "{k}");
        let invol = |s: &Simulation| s.results("").tasks[0].nr_involuntary_switches;
        assert!(invol(&b) < invol(&a), "{k}");
    }
}

/// seed 003 reply (preempt-hint): only a running task that asked for it is
/// wakeup-preempted.
#[test]
fn preempt_hint_limits_preemption_to_hinted_tasks() {
    let text = "[sim]\nduration = \"1s\"\nhz = 1000\nkernel = \"6.6\"\n[[task]]\nname = \"plain\"\nprogram = \"run\"\n\
        [[task]]\nname = \"hinted\"\nwant_preempt = true\nprogram = \"run\"\n[[task]]\nname = \"w\"\nprogram = \"loop { sleep exp(2ms); run exp(200us) }\"\n";
    let sim = run(text, "6.6+preempt-hint", LogMode::Full);
    let preempted = |curr: u32| count(&sim, |r| matches!(*r, Record::Resched { curr: c, cause: Cause::WakeupPreempt { .. }, .. } if c == curr));
    assert_eq!(preempted(0), 0);
    assert!(preempted(1) > 0);
}

/// seed 004 (place-bonus): "it becomes possible for a 50 % task to compete
/// equally with a 100 % task" — a task that sleeps as long as it runs gets
/// more CPU against a hog with the sleeper bonus than without.
#[test]
fn place_bonus_favours_the_sleeper() {
    let text = "[sim]\nduration = \"2s\"\n[[task]]\nname = \"hog\"\nprogram = \"run\"\n[[task]]\nname = \"half\"\nprogram = \"loop { run 500us; sleep 500us }\"\n";
    let a = results(text, "6.6").tasks[1].share;
    let b = results(text, "6.6+place-bonus").tasks[1].share;
    assert!(b > a + 0.02, "{b} vs {a}");
}

/// seed 004 (eevdf-rfc): the EEVDF branch Chen Yu tested preempts at the
/// tick whenever pick_eevdf() would not pick the running task. Two nice-0
/// hogs on one CPU, HZ 1000, a 3 ms slice. With equal weights V is the
/// midpoint of the two vruntimes, so a hog is eligible while it is not
/// ahead of the other. The second forks at V, level with the first and
/// with the same deadline (a full request from the same vruntime).
/// - eevdf-rfc (v6.6's pick, which keeps the running entity on a deadline
///   tie): the first hog runs one tick, is then 1 ms ahead and gives way
///   (1 ms). From then on the incoming hog starts 1 ms behind: after one
///   tick the two are level with equal deadlines (both renewed on the same
///   1 ms grid), and the tie keeps it; after the second it is 1 ms ahead,
///   not eligible, and the tick hands over: at 1, 3, 5, … 99 ms, 50 times.
/// - with the branch's own pick (NO_PICK_BEST_LEFT), which gives a tie to
///   the queued entity: the second hog preempts at its fork (a wake-up
///   preemption at 0), and every tick hands over, as the hog that ran is
///   either ahead or level: at 1, 2, … 100 ms, 100 times, 101 in all.
/// - v6.6 (update_deadline() reschedules when the request is used up)
///   switches at 3 ms, when the first hog is 3 ms ahead; the second then
///   runs its 3 ms request to level and gets a new deadline equal to the
///   first's: the tie keeps it for a second request. At 3, 9, 15, … 99
///   ms: 17, none of them by the tick rule.
#[test]
fn eevdf_rfc_preempts_at_every_tick_where_curr_is_not_the_pick() {
    let text = "[sim]\nduration = \"100ms\"\nhz = 1000\nbase_slice = \"3ms\"\n[[task]]\nname = \"hog\"\ncount = 2\nprogram = \"run\"\n";
    let switches = |config: &str| {
        let sim = run(text, config, LogMode::Full);
        let by_tick = count(&sim, |r| matches!(r, Record::Resched { cause: Cause::TickPick, .. }));
        let r = sim.results(config);
        (r.tasks.iter().map(|t| t.nr_involuntary_switches).sum::<u64>(), by_tick)
    };
    assert_eq!(switches("6.5+eevdf-rfc"), (50, 50));
    assert_eq!(switches("6.5+eevdf-rfc,PICK_BEST_LEFT=off"), (101, 100));
    assert_eq!(switches("6.6,RUN_TO_PARITY=off"), (17, 0));
}

/// NEXT_BUDDY for EEVDF (tip, late 2025): woken tasks that preempt become
/// the next buddy and the pick honours it.
#[test]
fn eevdf_next_buddy_is_honoured() {
    let text = "[sim]\nduration = \"500ms\"\nhz = 1000\n[[task]]\nname = \"hog\"\ncount = 3\nprogram = \"run\"\n[[task]]\nname = \"w\"\ncount = 2\nprogram = \"loop { sleep exp(1ms); run exp(200us) }\"\n";
    assert_eq!(results(text, "6.18").pick.buddy_picks, 0);
    assert!(results(text, "6.18+eevdf-next-buddy").pick.buddy_picks > 0);
}

/// 2ae891b82695 (base-slice-0.70): on a 4-CPU machine (factor 3) the base
/// slice becomes 3 × 0.70 = 2.10 ms instead of 2.25 ms.
#[test]
fn base_slice_070() {
    let text = "[topology]\ncores_per_llc = 4\n[[task]]\nname = \"t\"\nprogram = \"run\"\n";
    let (a, _) = from_text(text, &ConfigSpec::parse("6.12").unwrap().overrides(None), LogMode::HashOnly).unwrap();
    let (b, _) = from_text(text, &ConfigSpec::parse("6.12+base-slice-0.70").unwrap().overrides(None), LogMode::HashOnly).unwrap();
    assert_eq!(a.sched().tun.base_slice, 2_250_000);
    assert_eq!(b.sched().tun.base_slice, 2_100_000);
}

/// An unknown feature flag is named with a suggestion and where the flags
/// are listed, not all fifty-odd of them: with a 40 000-character name (a
/// fuzz case) the message stays short.
#[test]
fn unknown_feature_flag_names_a_suggestion_not_every_flag() {
    let e = from_text("[sim]\nfeatures = { RUN_TO_PARTY = false }\n", &Overrides::default(), LogMode::HashOnly).err().unwrap();
    assert_eq!(e.key, "sim.features.RUN_TO_PARTY");
    assert!(e.msg.contains("did you mean `RUN_TO_PARITY`") && e.msg.contains("`schedlab features` lists them"), "{}", e.msg);
    assert!(!e.msg.contains("DELAY_DEQUEUE"), "{}", e.msg);
    let long = format!("[sim]\nfeatures = {{ {} = false }}\n", "x".repeat(40_000));
    let e = from_text(&long, &Overrides::default(), LogMode::HashOnly).err().unwrap();
    assert!(e.to_string().len() < 600, "{} bytes: {e}", e.to_string().len());
}

/// Unknown patches are errors naming the patch, with a suggestion.
#[test]
fn unknown_patch_is_an_error() {
    let e = from_text("[sim]\npatches = [\"sis-filtr\"]\n", &Overrides::default(), LogMode::HashOnly).err().unwrap();
    assert_eq!(e.key, "sim.patches[0]");
    assert!(e.msg.contains("did you mean `sis-filter`"), "{}", e.msg);
}

/// seed 003 (no-same-prio-preempt) on stress-ng sigfd, one instance on one
/// CPU at HZ 250: a child sigqueue()s in a loop and its parent reads the
/// signals from a signalfd. On v6.6 the parent wakes with the lag it kept
/// by blocking, left of V, while the sending child has run past V, so it
/// is not eligible, RUN_TO_PARITY does not protect it, and pick_eevdf()
/// picks the parent: every wake preempts the sender
/// (check_preempt_wakeup_fair()), and every block of the parent hands the
/// CPU back, so the child's involuntary switches equal the parent's
/// voluntary ones. With the patch no wake-up preempts; the sender runs on
/// until a tick finds its slice (0.75 ms) used up (update_deadline()), so
/// it loses the CPU once per tick: 25 times in 100 ms. The parent then
/// reads a tick's worth of signals per wake, and reads more in all.
#[test]
fn no_same_prio_preempt_leaves_a_signal_sender_to_the_tick() {
    let text = "[sim]\nduration = \"100ms\"\nhz = 250\n[topology]\npreset = \"1cpu\"\n\
        [[workload]]\nkind = \"stress-sigfd\"\ninstances = 1\njitter = 0\n";
    let (a, b) = (results(text, "6.6"), results(text, "6.6+no-same-prio-preempt"));
    let (parent, child) = (0, 1);
    assert_eq!(b.tasks[child].name, "stress-sigfd-0-c");
    assert!(a.tasks[child].nr_involuntary_switches > 1000, "{:?}", a.tasks[child]);
    assert!(a.tasks[child].nr_involuntary_switches.abs_diff(a.tasks[parent].nr_voluntary_switches) <= 1);
    assert_eq!(b.tasks[child].nr_involuntary_switches, 25);
    assert!(b.workloads[0].ops > a.workloads[0].ops, "{} vs {}", b.workloads[0].ops, a.workloads[0].ops);
}
