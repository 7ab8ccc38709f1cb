//! Waking an idle CPU costs its idle state's exit latency.

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::kernel::cpuidle::{cpuidle_poll_time, Menu, SelectInput};
use crate::kernel::sched::topology::IDLE_STATES;
use crate::lab::sim::LogMode;
use crate::lab::trace::Record;
use crate::{from_text, Overrides};

const MENU: &str = "features = { CPUIDLE_MENU = true }";

/// The wakeup latencies (ns) of a task on the i7-4790 that sleeps `sleep`
/// between short runs, alone on the machine (`sim`: more `[sim]` keys).
fn latencies(sleep: &str, sim: &str) -> Vec<u64> {
    let text = format!(
        "[sim]\nduration = \"20ms\"\n{sim}\n[topology]\npreset = \"i7-4790\"\n[[task]]\nname = \"t\"\naffinity = \"2\"\nprogram = \"loop 3 {{ sleep {sleep}; run 100us }}\"\n"
    );
    let (mut sim, _) = from_text(&text, &Overrides::default(), LogMode::Full).unwrap();
    sim.run();
    sim.log.iter().filter_map(|e| match e.record { Record::IdleExit { latency, .. } => Some(latency), _ => None }).collect()
}

#[test]
fn the_ideal_governor_picks_the_state_the_idle_period_pays_off_for() {
    // hsw_cstates after POLL: C1 2us/2us, C1E 10us/20us, C3 33us/100us,
    // C6 133us/400us, C7s 166us/500us (exit latency / target residency).
    // CPU 2 idles for the whole sleep each time; the first start finds it
    // idle since 0 ns (POLL, no latency).
    assert_eq!(latencies("1ms", ""), vec![166_000; 3]);
    assert_eq!(latencies("450us", ""), vec![133_000; 3]);
    assert_eq!(latencies("50us", ""), vec![10_000; 3]);
    assert_eq!(latencies("15us", ""), vec![2_000; 3]);
    // A fixed latency overrides the states, for every wakeup of an idle
    // CPU (the first start too); zero turns it off.
    assert_eq!(latencies("1ms", "costs = { idle_exit = \"5us\" }"), vec![5_000; 4]);
    assert!(latencies("1ms", "costs = { idle_exit = \"0ns\" }").is_empty());
}

#[test]
fn the_menu_governor_picks_the_state_from_the_sleep_timer() {
    // hsw_cstates after POLL: C1 2us/2us, C1E 10us/20us, C3 33us/100us,
    // C6 133us/400us, C7s 166us/500us (exit latency / target residency);
    // 6.18's menu governor, HZ 250. CPU 2 has been idle since before the
    // run, woken only by its 4 s watchdog, so it sits in C7s and the start
    // pays 166 us. Each sleep then arms its timer on CPU 2; the first
    // interval after the start (83 us: half the 166 us residency, shorter
    // than twice the exit latency) is discarded as an outlier against the
    // seven 4 s ones, which repeat, so the prediction is the timer's
    // (unity correction factor): the deepest state whose residency fits
    // the sleep. The tick is kept (the prediction is under 4 ms), but it
    // comes after the timer.
    assert_eq!(latencies("1ms", MENU), vec![166_000; 4]);
    assert_eq!(latencies("450us", MENU), vec![166_000, 133_000, 133_000, 133_000]);
    assert_eq!(latencies("50us", MENU), vec![166_000, 10_000, 10_000, 10_000]);
    assert_eq!(latencies("15us", MENU), vec![166_000, 2_000, 2_000, 2_000]);
    // A fixed latency overrides the governor too.
    assert_eq!(latencies("1ms", &format!("{MENU}\ncosts = {{ idle_exit = \"5us\" }}")), vec![5_000; 4]);
}

/// The exit latency of the last wake-up of a task on CPU 2 of the i7-4790
/// (6.18) that sleeps 150 us 20 times, then waits on a futex (no timer)
/// until a task on CPU 0 wakes it at `at`.
fn last_latency(at: &str) -> u64 {
    let text = format!(
        "[sim]\nduration = \"50ms\"\n{MENU}\n[topology]\npreset = \"i7-4790\"\n\
         [[task]]\nname = \"t\"\naffinity = \"2\"\nprogram = \"loop 20 {{ sleep 150us; run 10us }}; futex_wait; run 10us\"\n\
         [[task]]\nname = \"w\"\naffinity = \"0\"\nprogram = \"sleep {at}; futex_wake t\"\n"
    );
    let (mut sim, _) = from_text(&text, &Overrides::default(), LogMode::Full).unwrap();
    sim.run();
    sim.log.iter().filter_map(|e| match e.record { Record::IdleExit { cpu: 2, latency } => Some(latency), _ => None }).last().unwrap()
}

#[test]
fn a_kept_tick_wakes_an_idle_cpu_until_the_governor_learns_it_is_long() {
    // After 20 sleeps of 150 us the last 8 intervals repeat (150 us): the
    // governor predicts 150 us, picks C3 (100 us residency, 33 us exit) and
    // keeps the tick (150 us < 4 ms). The wait starts at 4.05 ms (20 ×
    // 150 us of sleep, 33 us of exit, 10 us of run, 1 us of switch); its CPU's
    // only timer is the watchdog's, seconds away. Each tick (every 4 ms)
    // wakes the CPU and records 45 ms (9/10 of MAX_INTERESTING: the timer
    // was more than a tick away). With k such intervals and 8 − k of
    // 150 us, v6.18's get_typical_interval() discards the 45 ms ones while
    // average − min ≤ max − average (k ≤ 4: the rest, 150 us, repeat) and
    // the 150 us ones from k = 5 on, when 45 ms repeats and exceeds the
    // tick: C7s (500 us ≤ 45 ms), tick stopped.
    // Woken at 14 ms, after the ticks at 8 and 12 ms: still C3.
    assert_eq!(last_latency("14ms"), 33_000);
    // At 22 ms, after 4 ticks (8–20 ms), still C3.
    assert_eq!(last_latency("22ms"), 33_000);
    // At 26 ms: the 5th tick (24 ms) moved it to C7s.
    assert_eq!(last_latency("26ms"), 166_000);
}

#[test]
fn the_exit_latency_is_part_of_the_wakeup_latency() {
    let text = "[sim]\nduration = \"20ms\"\n[topology]\npreset = \"i7-4790\"\n[[task]]\nname = \"t\"\naffinity = \"2\"\nprogram = \"loop 3 { sleep 1ms; run 100us }\"\n";
    let (mut sim, _) = from_text(text, &Overrides::default(), LogMode::HashOnly).unwrap();
    sim.run();
    let st = &sim.sched().tasks[0].stats;
    assert_eq!((st.wakeup_latency.count, st.wakeup_latency.max), (3, 166_000));
}

/// xeon-8260-2s (skx_cstates): POLL, C1 2us/2us, C1E 10us/20us, C6
/// 133us/600us.
fn skx() -> &'static [crate::kernel::sched::topology::IdleState] {
    IDLE_STATES.iter().find(|p| p.0 == "xeon-8260-2s").unwrap().1
}

/// The menu governor of `kernel` (5.15–6.6, 6.12 or 6.18) asked, tick
/// running at HZ 250, with the next timer `timer_ns` away.
fn select(kernel: &str, intervals_us: [u32; 8], timer_ns: u64) -> (usize, bool) {
    let inp = SelectInput {
        sleep_length: timer_ns,
        delta_tick: timer_ns.min(4_000_000),
        tick_stopped: false,
        tick_nsec: 4_000_000,
        typical_first: kernel != "6.6",
        two_sided_outliers: kernel == "6.18",
    };
    Menu::with_intervals(intervals_us).select(skx(), &inp)
}

#[test]
fn the_menu_governor_predicts_from_repeating_intervals_as_each_kernel_does() {
    const C1: usize = 1;
    const C1E: usize = 2;
    const C6: usize = 3;
    // Eight idle periods of 100 us, the next timer the watchdog's (4 s):
    // the intervals repeat (variance 0), so 100 us is predicted in every
    // version (v5.15–v6.6: min(4 s × unity factor, 100 us)); C1E is the
    // deepest state whose residency (20 us) fits, C6's 600 us does not, and
    // the tick stays (100 us < 4 ms). The ideal governor the model had
    // before entered C6 for any idle period of 600 us or more.
    for k in ["6.6", "6.12", "6.18"] {
        assert_eq!(select(k, [100; 8], 4_000_000_000), (C1E, false), "{k}");
    }
    // Five kept ticks (45 ms each) and three 100 us periods: v6.18 discards
    // the three short ones (average − min 28 062 > max − average 16 838)
    // and predicts 45 ms: C6, tick stopped. v6.12 discards only from the
    // top, keeps predicting 100 us and the tick.
    let h = [45_000, 45_000, 45_000, 45_000, 45_000, 100, 100, 100];
    assert_eq!(select("6.18", h, 4_000_000_000), (C6, true));
    assert_eq!(select("6.12", h, 4_000_000_000), (C1E, false));
    // Periods of 10 us and a timer 1 us away: v6.7+ do not look at the
    // timer when the intervals predict 15 us or less, and pick C1 (2 us
    // residency ≤ 10 us); v5.15–v6.6 see the timer closer than C1's
    // residency and poll.
    assert_eq!(select("6.18", [10; 8], 1_000), (C1, false));
    assert_eq!(select("6.6", [10; 8], 1_000), (0, false));
    // Intervals of UINT_MAX − 1 µs (over an hour idle) and 0, v6.18: the
    // sum of squares, 4 (2^32 − 2)^2, wraps in 64 bits as the kernel's
    // does; the wrapped variance is not typical, the four largest are
    // discarded (average − min = max − average), and the zeros left have
    // a maximum of 0: no typical interval, so the watchdog's timer (4 s)
    // decides: C6, tick stopped.
    let h = [u32::MAX - 1, 0, u32::MAX - 1, 0, u32::MAX - 1, 0, u32::MAX - 1, 0];
    assert_eq!(select("6.18", h, 4_000_000_000), (C6, true));
    // The polling state spins for the first deeper residency of at least
    // 10 us (skx: C1E's 20 us; spr: C6's 800 us, capped at a sixteenth of
    // the tick, 250 us).
    assert_eq!(cpuidle_poll_time(skx(), 4_000_000), 20_000);
    let spr = IDLE_STATES.iter().find(|p| p.0 == "spr-2s-224").unwrap().1;
    assert_eq!(cpuidle_poll_time(spr, 4_000_000), 250_000);
}

/// A wake-up onto another idle CPU of the waker's LLC goes on that CPU's
/// wake list in v6.5–v6.18 (ttwu_queue_cond(), TTWU_QUEUE_IDLE): the CPU
/// enqueues the task itself once the IPI has brought it out of idle, so
/// the exit counts in the task's wake-up latency but not in its run delay
/// (sched_info_enqueue() runs at the enqueue). v5.15 enqueues it at the
/// wake-up, and the exit is run delay too.
///
/// Two CPUs of one LLC, no switch or wake-up costs, a fixed 50 µs idle
/// exit: `r` (CPU 1) and `w` (CPU 0) start at 0 and each CPU leaves idle
/// for them (new tasks are enqueued at once: 50 µs of run delay each).
/// `r` blocks in `recv` at 50 µs; `w` runs 100 µs and sends at 150 µs;
/// CPU 1 leaves idle again and `r` runs at 200 µs: a latency of 50 µs,
/// and run delay 50 + 0 µs on 6.18, 50 + 50 µs on 5.15.
#[test]
fn a_wakee_of_an_idle_cpu_is_enqueued_once_the_cpu_is_out_of_idle() {
    for (kernel, run_delay) in [("6.18", 50_000), ("6.6", 50_000), ("6.5", 50_000), ("5.15", 100_000)] {
        let text = format!(
            "[sim]\nkernel = \"{kernel}\"\ncosts = {{ context_switch = \"0ns\", thread_switch = \"0ns\", migration = \"0ns\", scan = \"0ns\", wakeup = \"0ns\", idle_exit = \"50us\" }}\n\
             [topology]\npreset = \"2cpu-vm\"\n\
             [[task]]\nname = \"r\"\naffinity = \"1\"\nprogram = \"recv c; run 10us\"\n\
             [[task]]\nname = \"w\"\naffinity = \"0\"\nprogram = \"run 100us; send c; run 100us\"\n"
        );
        let (mut sim, _) = from_text(&text, &Overrides::default(), LogMode::Full).unwrap();
        sim.run();
        let r = &sim.sched().tasks[0];
        assert_eq!((r.stats.wakeup_latency.count, r.stats.wakeup_latency.max), (1, 50_000), "{kernel}");
        assert_eq!(r.stats.run_delay, run_delay, "{kernel}");
        assert_eq!(sim.now(), 250_000, "{kernel}: w runs 50..250 µs");
    }
}
