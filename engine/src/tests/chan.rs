//! Channel, wake/wait and call/reply semantics, run through whole
//! simulations built from scenario text.

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::lab::sim::{LogMode, Simulation};
use crate::lab::trace::Record;
use crate::{from_text, Overrides};

const US: u64 = 1_000;

fn run(text: &str) -> Simulation {
    let (mut sim, _) = from_text(text, &Overrides::default(), LogMode::Full).unwrap();
    sim.run();
    sim
}

fn id(sim: &Simulation, name: &str) -> u32 {
    sim.info.task_names.iter().position(|n| n == name).unwrap() as u32
}

/// Every record of the run with its time.
fn records(sim: &Simulation) -> Vec<(u64, Record)> {
    sim.log.iter().map(|e| (e.time, e.record)).collect()
}

/// One CPU, no switch costs: times in the log are the programs' own.
const FREE: &str = "[sim]\nkernel = \"6.18\"\ncosts = { context_switch = \"0ns\", thread_switch = \"0ns\", migration = \"0ns\", scan = \"0ns\", wakeup = \"0ns\" }\n[topology]\npreset = \"1cpu\"\n";

#[test]
fn a_blocked_receiver_is_woken_by_a_send() {
    let sim = run(&format!(
        "{FREE}[[task]]\nname = \"rx\"\nprogram = \"recv c; run 1ms\"\n\
         [[task]]\nname = \"tx\"\nprogram = \"sleep 5ms; send c\"\n"
    ));
    let (rx, tx) = (id(&sim, "rx"), id(&sim, "tx"));
    let log = records(&sim);
    // rx blocks at t = 0 on the empty channel, having moved nothing.
    assert!(log.contains(&(0, Record::Chan { task: rx, ch: 0, send: false, n: 0, blocked: true })));
    // tx's send at 5 ms moves the message and wakes rx then.
    let send = log.iter().position(|r| *r == (5_000 * US, Record::Chan { task: tx, ch: 0, send: true, n: 1, blocked: false })).unwrap();
    assert!(log[send..].iter().any(|&(t, r)| t == 5_000 * US && matches!(r, Record::Wakeup { task, .. } if task == rx)));
    // rx then takes it and runs its 1 ms: both are done at 6 ms, and the
    // run ends there (every task exited) rather than at the 1 s duration.
    assert_eq!(sim.now(), 6_000 * US);
    assert_eq!((sim.sched().chans[0].sent, sim.sched().chans[0].received, sim.sched().chans[0].count), (1, 1, 0));
}

#[test]
fn capacity_blocks_the_sender_until_the_receiver_makes_room() {
    let sim = run(&format!(
        "{FREE}[[channel]]\nname = \"c\"\ncapacity = 2\n\
         [[task]]\nname = \"tx\"\nprogram = \"send c 5; run 1ms\"\n\
         [[task]]\nname = \"rx\"\nprogram = \"sleep 1ms; recv c 5\"\n"
    ));
    let (tx, rx) = (id(&sim, "tx"), id(&sim, "rx"));
    let log = records(&sim);
    // At t = 0 only 2 of the 5 fit: tx blocks with 3 to go.
    assert!(log.contains(&(0, Record::Chan { task: tx, ch: 0, send: true, n: 2, blocked: true })));
    // At 1 ms rx takes both, which wakes tx; rx blocks for the other 3.
    assert!(log.contains(&(1_000 * US, Record::Chan { task: rx, ch: 0, send: false, n: 2, blocked: true })));
    assert!(log.iter().any(|&(t, r)| t == 1_000 * US && matches!(r, Record::Wakeup { task, .. } if task == tx)));
    // The rest flows 2 + 1, and every message arrives exactly once.
    let c = &sim.sched().chans[0];
    assert_eq!((c.sent, c.received, c.count), (5, 5, 0));
    let moved: u32 = log.iter().filter_map(|(_, r)| match r { Record::Chan { send: true, n, .. } => Some(*n), _ => None }).sum();
    assert_eq!(moved, 5);
    // tx's 1 ms of work starts when its last message is in: at 1 ms.
    assert_eq!(sim.now(), 2_000 * US);
}

#[test]
fn no_message_is_lost_or_duplicated_between_many_producers_and_consumers() {
    // 3 producers × 100 messages, 2 consumers × 150, a 4-message buffer on
    // two CPUs: lots of blocking on both sides, random work times. Also
    // through 4 pages of 3, where writers back from waiting leave pages
    // part empty behind the newest, woken by every read of a full pipe
    // (6.6) or only by a page freed (6.18).
    let pipes = [("6.18", 4, 1), ("6.6", 12, 4), ("6.18", 12, 4)];
    for (seed, (kernel, capacity, pages)) in (1..=8).flat_map(|s| pipes.map(|p| (s, p))) {
        let sim = run(&format!(
            "[sim]\nseed = {seed}\nkernel = \"{kernel}\"\nduration = \"10s\"\n[topology]\npreset = \"2cpu-vm\"\n\
             [[channel]]\nname = \"q\"\ncapacity = {capacity}\npages = {pages}\n\
             [[task]]\nname = \"p\"\ncount = 3\nprogram = \"loop 100 {{ run exp(20us); send q }}\"\n\
             [[task]]\nname = \"c\"\ncount = 2\nprogram = \"loop 150 {{ recv q; run exp(30us) }}\"\n"
        ));
        let q = &sim.sched().chans[0];
        assert_eq!((q.sent, q.received, q.count, q.pages), (300, 300, 0, 0), "seed {seed}, {kernel}, {pages} pages");
        assert!(q.senders.is_empty() && q.receivers.is_empty());
        // Every task finished (nobody was left waiting) and each consumer
        // did its 150 iterations.
        assert_eq!(sim.state.exited, 5, "seed {seed}, {kernel}, {pages} pages: {:?}", sim.warnings);
        for k in 0..2 {
            assert_eq!(sim.sched().tasks[id(&sim, &format!("c.{k}")) as usize].stats.ops, 150);
        }
    }
}

#[test]
fn ping_pong_round_trips_are_counted_and_cost_what_the_model_says() {
    // pipe-test, 1000 round trips on one CPU. The CPU is never idle (one of
    // the two is always runnable), so the simulated time is the two tasks'
    // CPU time: 2 × 1000 × 0.7 µs of work plus 1 µs per switch into a task
    // (two processes: the full context-switch cost) plus 1 µs per wakeup of
    // the blocked partner (costs.wakeup), paid by the writer or, when the
    // wakeup preempts it, by the task switched in (`Sched::wake_cost`).
    let sim = run("[sim]\nkernel = \"6.18\"\n[topology]\npreset = \"1cpu\"\n[[workload]]\nkind = \"pipe-test\"\nloops = 1000\njitter = 0\n");
    let (a, b) = (id(&sim, "pipe-test-a"), id(&sim, "pipe-test-b"));
    let s = sim.sched();
    assert_eq!((s.tasks[a as usize].stats.ops, s.tasks[b as usize].stats.ops), (1000, 1000));
    assert_eq!((s.chans[0].sent, s.chans[1].sent), (1000, 1000));
    let cpu_a = sim.task_cpu_time(a);
    let cpu_b = sim.task_cpu_time(b);
    assert_eq!(sim.now(), cpu_a + cpu_b);
    let switches_in = records(&sim).iter().filter(|(_, r)| matches!(r, Record::Switch { next, .. } if *next != crate::kernel::lib::rbtree::NIL)).count() as u64;
    assert!(switches_in >= 2000, "at least two switches per round trip, got {switches_in}");
    let wakeups = records(&sim).iter().filter(|(_, r)| matches!(r, Record::Wakeup { .. })).count() as u64;
    // A wakeup happens when the partner already blocked; with the writer
    // preempted at its wakeup, the partner sometimes has not.
    assert!(wakeups >= 1000, "at least one wakeup per round trip, got {wakeups}");
    assert_eq!(sim.now(), 2 * 1000 * 700 + switches_in * 1_000 + wakeups * 1_000);
    let w = &sim.results("6.18").workloads[0];
    assert!(w.finished);
    assert_eq!(w.ops, 1000);
    assert!((w.value - 1000.0 / (sim.now() as f64 / 1e9)).abs() < 1e-6);
}

#[test]
fn threads_of_one_process_switch_for_less() {
    // The same ping-pong as threads: each switch costs 0.6 µs (and each
    // wakeup 1 µs, as for processes).
    let sim = run("[sim]\nkernel = \"6.18\"\n[topology]\npreset = \"1cpu\"\n[[workload]]\nkind = \"pipe-test\"\nloops = 1000\nmode = \"threads\"\njitter = 0\n");
    let switches = records(&sim).iter().filter(|(_, r)| matches!(r, Record::Switch { prev, next, .. } if *next != crate::kernel::lib::rbtree::NIL && *prev != crate::kernel::lib::rbtree::NIL)).count() as u64;
    // The first switch comes from idle (a full switch); the rest are
    // thread to thread.
    let wakeups = records(&sim).iter().filter(|(_, r)| matches!(r, Record::Wakeup { .. })).count() as u64;
    assert_eq!(sim.now(), 2 * 1000 * 700 + 1_000 + switches * 600 + wakeups * 1_000);
}

#[test]
fn a_wake_before_the_wait_is_remembered_once() {
    // w wakes s twice at 1 ms while s sleeps (not in `wait`); s's first
    // wait at 3 ms returns at once (the word was set, once), its second at
    // 4 ms blocks until the wake at 5 ms.
    let sim = run(&format!(
        "{FREE}[[task]]\nname = \"s\"\nprogram = \"sleep 3ms; wait; run 1ms; wait; run 1ms\"\n\
         [[task]]\nname = \"w\"\nprogram = \"sleep 1ms; wake s; wake s; sleep 4ms; wake s\"\n"
    ));
    let s = id(&sim, "s");
    let log = records(&sim);
    let waits: Vec<(u64, bool)> = log.iter().filter_map(|&(t, r)| match r { Record::Wait { task, blocked } if task == s => Some((t, blocked)), _ => None }).collect();
    assert_eq!(waits, vec![(3_000 * US, false), (4_000 * US, true)]);
    // Woken at 5 ms, s runs its last 1 ms.
    assert_eq!(sim.now(), 6_000 * US);
}

/// The waits of `task` that woke up, with their times.
fn wakeups_of(sim: &Simulation, task: u32) -> Vec<u64> {
    records(sim).iter().filter_map(|&(t, r)| matches!(r, Record::Wakeup { task: w, .. } if w == task).then_some(t)).collect()
}

#[test]
fn a_futex_wake_without_a_waiter_is_lost_and_the_wait_times_out_after_its_slack() {
    // w futex_wakes s at 1 ms while s sleeps: lost (FUTEX_WAKE finds no
    // waiter; the word has no memory). s's futex_wait at 3 ms then blocks
    // until its hrtimer: 5 µs asked + 50 µs timer slack (futex_wait() →
    // futex_setup_timer(..., current->timer_slack_ns), v6.6), i.e. at
    // 3 ms + 55 µs, and s runs its 1 ms from there. A timed-out wait is
    // not an operation: the loop's one iteration counts 0 ops.
    let sim = run(&format!(
        "{FREE}[[task]]\nname = \"s\"\nprogram = \"sleep 3ms; loop 1 {{ futex_wait 5us }}; run 1ms\"\n\
         [[task]]\nname = \"w\"\nprogram = \"sleep 1ms; futex_wake s\"\n"
    ));
    let s = id(&sim, "s");
    assert!(records(&sim).contains(&(1_000 * US, Record::Signal { task: id(&sim, "w"), target: s, woke: false })));
    assert_eq!(wakeups_of(&sim, s), [3_000 * US, 3_055 * US]);
    assert_eq!(sim.now(), 4_055 * US);
    let st = &sim.sched().tasks[s as usize].stats;
    assert_eq!((st.futex_timeouts, st.ops), (1, 0));
}

#[test]
fn a_futex_wake_ends_the_wait_and_its_stale_timer_ends_nothing_later() {
    // s futex_waits (1 ms timeout) at 0; w's futex_wake at 20 µs ends it:
    // one op, no timeout. s then blocks in a plain `wait` that nobody
    // wakes: the old hrtimer (due at 1.05 ms) belongs to the finished
    // futex_wait and must not end it, so s is still asleep at the end.
    let sim = run(&format!(
        "{}[[task]]\nname = \"s\"\nprogram = \"loop 1 {{ futex_wait 1ms }}; wait\"\n\
         [[task]]\nname = \"w\"\nprogram = \"sleep 20us; futex_wake s\"\n",
        FREE.replacen("[sim]\n", "[sim]\nduration = \"5ms\"\n", 1)
    ));
    let s = id(&sim, "s");
    assert_eq!(wakeups_of(&sim, s), [20 * US]);
    let st = &sim.sched().tasks[s as usize].stats;
    assert_eq!((st.futex_timeouts, st.ops), (0, 1));
    assert_eq!(sim.task_state(s), crate::kernel::sched::core::TaskState::Sleeping);
}

#[test]
fn a_futex_timeout_that_a_wake_cancelled_is_not_an_event() {
    // As above: s's futex_wait at 0 arms its hrtimer for 1 ms + 50 µs of
    // slack; w's futex_wake at 20 µs ends the wait, and futex_wait()
    // cancels the timer on its way out (hrtimer_cancel(), v5.15–v6.18).
    // Events: the three starts at 0 and w's sleep timer at 20 µs (the wake,
    // s's run and w's exit all happen within it: no costs). Nothing is
    // due at 1.05 ms. A timer that no wake cancels still fires: t's
    // futex_wait at 0 times out at 2 ms + 50 µs.
    let (mut sim, _) = from_text(
        &format!(
            "{}[[task]]\nname = \"s\"\nprogram = \"loop 1 {{ futex_wait 1ms }}; wait\"\n\
             [[task]]\nname = \"w\"\nprogram = \"sleep 20us; futex_wake s\"\n\
             [[task]]\nname = \"t\"\nprogram = \"futex_wait 2ms\"\n",
            FREE.replacen("[sim]\n", "[sim]\nduration = \"5ms\"\n", 1)
        ),
        &Overrides::default(),
        LogMode::Full,
    )
    .unwrap();
    let mut times = Vec::new();
    while sim.step() {
        times.push(sim.now());
    }
    assert_eq!(times, [0, 0, 0, 20 * US, 2_050 * US]);
}

#[test]
fn reply_wakes_every_caller_in_order_and_request_latency_is_call_to_call() {
    // Two workers call m; m replies to both at once. Each worker's request
    // (call return -> next call) is its 1 ms sleep + 2 ms run. m answers
    // from `wait`, so every `call` blocks until the reply wakes it: 3
    // wake-ups by a reply per worker, and 3 more by the end of each
    // `sleep 1ms`. schbench's msg_and_wait() times only the first kind.
    let sim = run(&format!(
        "{FREE}[[task]]\nname = \"m\"\nprogram = \"loop {{ reply; wait }}\"\n\
         [[task]]\nname = \"w\"\ncount = 2\nprogram = \"loop 3 {{ call m; sleep 1ms; run 2ms }}\"\n"
    ));
    let m = id(&sim, "m");
    let log = records(&sim);
    let first_reply: Vec<u32> = log.iter().filter_map(|&(_, r)| match r { Record::Signal { task, target, .. } if task == m => Some(target), _ => None }).take(2).collect();
    assert_eq!(first_reply, vec![id(&sim, "w.0"), id(&sim, "w.1")]);
    for k in 0..2 {
        let st = &sim.sched().tasks[id(&sim, &format!("w.{k}")) as usize].stats;
        assert_eq!(st.ops, 3);
        // Three calls: the 2nd and 3rd each close a request; on one CPU the
        // two workers' runs interleave, so a request takes at least 3 ms.
        assert_eq!(st.request_latency.count, 2);
        assert!(st.request_latency.max >= 3_000 * US, "{}", st.request_latency.max);
        let w = id(&sim, &format!("w.{k}"));
        assert_eq!((sim.sched().wakeup_latency(w).count, sim.sched().reply_latency(w).count), (6, 3), "w.{k}");
    }
    // m is woken by calls, never by a reply.
    assert_eq!(sim.sched().reply_latency(m).count, 0);
    // m never exits: the run goes on to the duration, m waiting.
    assert_eq!(sim.now(), 1_000_000 * US);
}

#[test]
fn schbench_2023_measures_the_reply_wakeups_not_the_think_time_sleep() {
    // One message thread, 2 workers of `call; sleep 100us; run 1ms` on
    // 2 CPUs: the workload's latency count is the workers' reply wake-ups
    // only, about one per 1.1 ms cycle each, not the two per cycle (reply
    // and timer) a task's own wakeup_latency counts.
    let (mut sim, _) = from_text(
        "[sim]\nkernel = \"6.6\"\nduration = \"50ms\"\n[topology]\npreset = \"2cpu-vm\"\n\
         [[workload]]\nkind = \"schbench\"\nworkers = 2\n",
        &Overrides::default(),
        LogMode::Schedule,
    )
    .unwrap();
    sim.run();
    let result = sim.workload_result(&sim.info.workloads[0]);
    let (mut replies, mut all) = (0, 0);
    for k in 0..2 {
        let t = id(&sim, &format!("schbench-m0-w.{k}"));
        replies += sim.sched().reply_latency(t).count;
        all += sim.sched().wakeup_latency(t).count;
    }
    assert_eq!(result.wakeup_latency_ns.count, replies);
    assert!(replies > 0 && all >= 2 * replies - 2, "{replies} of {all}");
}

#[test]
fn a_deadlock_is_reported_by_name() {
    let sim = run(&format!("{FREE}[[task]]\nname = \"lonely\"\nprogram = \"recv nobody\"\n"));
    assert!(sim.warnings.iter().any(|w| w.contains("deadlock") && w.contains("lonely")), "{:?}", sim.warnings);
}

/// A signal queue (`sync = false`) wakes its receiver without WF_SYNC, and
/// that decides where the wakee runs when the waker goes on running.
/// Two LLCs of one CPU each; the sender hogs CPU 0 and sends every 1 ms,
/// the receiver blocks between messages on CPU 1 (its previous CPU, idle).
/// wake_affine_idle() (fair.c, v5.15–v6.18): CPU 0 is busy; with WF_SYNC
/// and the waker alone on it (`sync && nr_running == 1`) it returns CPU 0,
/// and select_idle_sibling() keeps CPU 0 (prev does not share its cache,
/// the LLC scan finds no idle CPU): the receiver is pulled to the sender.
/// Without WF_SYNC it returns the idle prev CPU 1, where the receiver stays.
#[test]
fn a_signal_queue_wakes_without_wf_sync_and_the_wakee_stays_on_its_idle_cpu() {
    let text = |sync: bool| {
        format!(
            "[sim]\nkernel = \"6.18\"\nduration = \"20ms\"\n\
             [topology]\nsockets = 2\nllcs_per_socket = 1\ncores_per_llc = 1\nthreads_per_core = 1\n\
             [[channel]]\nname = \"q\"\ncapacity = 100\nsync = {sync}\n\
             [[task]]\nname = \"tx\"\naffinity = \"0\"\nprogram = \"sleep 1ms; loop {{ run 1ms; send q }}\"\n\
             [[task]]\nname = \"rx\"\nprogram = \"loop {{ recv q; run 10us }}\"\n"
        )
    };
    let cpus_of_rx = |sim: &Simulation| -> Vec<u32> {
        let rx = id(sim, "rx");
        records(sim).iter().filter_map(|&(_, r)| match r { Record::Wakeup { task, cpu, .. } if task == rx => Some(cpu), _ => None }).collect()
    };
    // Fork balancing puts rx on the idle CPU 1, where it first blocks.
    let first_block = |sim: &Simulation| {
        let rx = id(sim, "rx");
        records(sim).iter().find_map(|&(_, r)| match r { Record::Block { task, cpu, .. } if task == rx => Some(cpu), _ => None })
    };
    let signals = run(&text(false));
    assert_eq!(first_block(&signals), Some(1));
    let woken_on = cpus_of_rx(&signals);
    assert!(woken_on.len() >= 15, "{woken_on:?}");
    assert!(woken_on.iter().all(|&c| c == 1), "a signal queue's wakee stays on its idle CPU: {woken_on:?}");
    let pipe = run(&text(true));
    let woken_on = cpus_of_rx(&pipe);
    assert_eq!(first_block(&pipe), Some(1));
    // Pulled next to the hog, rx waits for CPU 0 and finds messages
    // queued, so it blocks (and is woken) less often.
    assert!(woken_on.len() >= 4, "{woken_on:?}");
    assert!(woken_on.iter().all(|&c| c == 0), "a pipe's wakee is pulled to its waker: {woken_on:?}");
}

/// The exit of each task, by name.
fn exit_time(sim: &Simulation, name: &str) -> u64 {
    let t = id(sim, name);
    records(sim).iter().find_map(|&(time, r)| matches!(r, Record::Exit { task, .. } if task == t).then_some(time)).unwrap()
}

/// Who pays for a wake-up (`costs.wakeup`, 7 µs here), on one CPU without
/// switch costs. `w` runs 100 µs, wakes `r` (blocked in `wait` since t = 0)
/// and runs 100 µs more; `r` then runs 50 µs.
/// - A wake-up that preempts its waker: wakeup_preempt() (core.c, v6.18;
///   check_preempt_curr() in v5.15–v6.6) calls rq_clock_skip_update(), so
///   the next __schedule() does not read the clock and the task switched
///   in starts its accounting where the wake-up's update_curr() stopped:
///   the waker's 7 µs become the wakee's. With `w` SCHED_IDLE a normal
///   wakee preempts it (v6.18 cancels its slice protection; CFS picks
///   the leftmost, `r`): `r` runs 7 + 50 µs from 100 µs and exits at
///   157 µs, `w` runs its 100 µs after that: CPU time 57 and 200 µs.
/// - v6.6 reschedules too, but its pick_eevdf() returns the running `w`,
///   still protected by RUN_TO_PARITY (its vlag is the deadline it was
///   picked with): the clock was not read, so `w` is charged its 7 µs
///   itself and goes on; it exits at 207 µs, `r` at 257: 50 and 207 µs.
/// - A wake-up that does not preempt (a SCHED_BATCH wakee never does, in
///   any version): `w` pays its 7 µs and goes on, as in v6.6 above.
#[test]
fn a_waker_preempted_by_its_wakee_hands_it_the_wake_up_cost() {
    let (handed, kept) = ((57 * US, 200 * US, 157 * US), (50 * US, 207 * US, 257 * US));
    for (kernel, idle_waker) in [("6.18", handed), ("6.6", kept), ("6.5", handed), ("5.15", handed)] {
        let free = FREE.replace("wakeup = \"0ns\"", "wakeup = \"7us\"").replace("kernel = \"6.18\"", &format!("kernel = \"{kernel}\""));
        let pair = |w_policy: &str, r_policy: &str| {
            let sim = run(&format!(
                "{free}[[task]]\nname = \"r\"\npolicy = \"{r_policy}\"\nprogram = \"wait; run 50us\"\n\
                 [[task]]\nname = \"w\"\npolicy = \"{w_policy}\"\nprogram = \"run 100us; wake r; run 100us\"\n"
            ));
            let (r, w) = (id(&sim, "r"), id(&sim, "w"));
            assert_eq!(sim.now(), 257 * US, "{kernel}");
            (sim.task_cpu_time(r), sim.task_cpu_time(w), exit_time(&sim, "r"))
        };
        assert_eq!(pair("idle", "normal"), idle_waker, "{kernel}");
        assert_eq!(pair("normal", "batch"), kept, "{kernel}");
    }
}

/// A pipe ping-pong on one CPU (`validate/tests/data/pipe-ping-pong.toml`:
/// 5 µs of work a side, threads of one process, this machine's 1.4 ms base
/// slice) splits its switches between blocking and preemption as this
/// machine's 6.18 kernel does: there each task is preempted at its wake-up
/// in 46–48 % of round trips (README, "This machine"; the model 45 %). At a
/// wake-up the two vruntimes differ by less than a microsecond, so whether
/// the waker is still eligible depends on what each side was charged; an
/// earlier model locked into one pattern (ping preempted on every round
/// trip, pong never). Each task must be preempted in a quarter to three
/// quarters of its round trips, and leave the CPU once per round trip.
#[test]
fn a_pipe_ping_pong_neither_always_blocks_nor_is_always_preempted() {
    let sim = run("[sim]\nkernel = \"6.18\"\nduration = \"200ms\"\nbase_slice = \"1400us\"\n[topology]\npreset = \"1cpu\"\n\
         [[task]]\nname = \"ping\"\nprocess = \"pp\"\nprogram = \"loop { run 5us; send ab; recv ba }\"\n\
         [[task]]\nname = \"pong\"\nprocess = \"pp\"\nprogram = \"loop { recv ab; run 5us; send ba }\"\n");
    let s = sim.sched();
    let round_trips = s.chans[0].sent as f64;
    for t in &s.tasks {
        let (vol, invol) = (t.stats.nvcsw as f64, t.stats.nivcsw as f64);
        assert!((vol + invol - round_trips).abs() <= 2.0, "{vol} + {invol} switches for {round_trips} round trips");
        let preempted = invol / (vol + invol);
        assert!((0.25..=0.75).contains(&preempted), "preempted in {:.1} % of round trips", 100.0 * preempted);
    }
}

/// The clock skip covers all the waker does until its switch, more
/// wake-ups of the same system call included. Two CPUs without idle states
/// or switch costs, `costs.wakeup` 7 µs: SCHED_IDLE `w` on CPU 0 runs
/// 100 µs, then one `send c 2` on a unix stream socket wakes both blocked
/// readers (sock_def_readable() wakes every waiter; a pipe would wake one):
/// `r0` (blocked in `recv c` on CPU 0), which preempts it, and `r1`
/// (blocked on idle CPU 1); then it runs 100 µs
/// more. The first wake-up finds `w` due to be preempted
/// (rq_clock_skip_update() on CPU 0); the second goes to CPU 1 but is still
/// `w`'s work before its switch on CPU 0, so both 7 µs are charged to
/// `r0`: it runs 14 + 50 µs and exits at 164 µs, `w` exits at 264 µs with
/// 200 µs of CPU time, and `r1` runs its 50 µs on CPU 1 from 100 µs (exit
/// at 150 µs). A second statement would come after `w`'s switch, at the
/// return to user space, and cost `w` itself.
#[test]
fn a_preempted_wakers_later_wake_ups_are_charged_to_the_task_switched_in() {
    let two = FREE.replace("wakeup = \"0ns\"", "wakeup = \"7us\"").replace("preset = \"1cpu\"", "preset = \"2cpu-vm\"");
    let sim = run(&format!(
        "{two}[[channel]]\nname = \"c\"\nkind = \"socket\"\n\
         [[task]]\nname = \"r0\"\naffinity = \"0\"\nprogram = \"recv c; run 50us\"\n\
         [[task]]\nname = \"r1\"\naffinity = \"1\"\nprogram = \"recv c; run 50us\"\n\
         [[task]]\nname = \"w\"\naffinity = \"0\"\npolicy = \"idle\"\nprogram = \"run 100us; send c 2; run 100us\"\n"
    ));
    let cpu = |name: &str| sim.task_cpu_time(id(&sim, name));
    assert_eq!((cpu("r0"), cpu("r1"), cpu("w")), (64 * US, 50 * US, 200 * US));
    assert_eq!((exit_time(&sim, "r0"), exit_time(&sim, "r1"), exit_time(&sim, "w")), (164 * US, 150 * US, 264 * US));
}

/// `costs.channel_op` (5 µs here, every other cost 0, one CPU) is the
/// system call behind each send and recv: pipe_write() copies, then wakes;
/// pipe_read() copies once there is a message. `rx` blocks in `recv c` at
/// t = 0, costing nothing yet; `tx` wakes at 1 ms, spends 5 µs in the
/// write and sends at 1.005 ms, which wakes `rx`; `rx` spends its 5 µs of
/// read and its 10 µs `run`, and exits at 1.005 + 0.015 = 1.020 ms,
/// whichever of the two runs first after the send (`tx` has nothing left
/// to run). CPU time: `tx` 5 µs, `rx` 15 µs. Without the cost: woken at
/// 1.000 ms, exit at 1.010 ms, `tx` 0 and `rx` 10 µs.
#[test]
fn a_channel_operation_costs_its_system_call_before_a_send_and_after_a_recv() {
    let tasks = "[[task]]\nname = \"rx\"\nprogram = \"recv c; run 10us\"\n\
                 [[task]]\nname = \"tx\"\nprogram = \"sleep 1ms; send c\"\n";
    let costly = run(&format!("{}{tasks}", FREE.replace("wakeup = \"0ns\"", "wakeup = \"0ns\", channel_op = \"5us\"")));
    let (rx, tx) = (id(&costly, "rx"), id(&costly, "tx"));
    assert_eq!(first_wakeup(&costly, rx), Some(1_005 * US));
    assert_eq!(exit_time(&costly, "rx"), 1_020 * US);
    assert_eq!((costly.task_cpu_time(tx), costly.task_cpu_time(rx)), (5 * US, 15 * US));
    let free = run(&format!("{FREE}{tasks}"));
    assert_eq!(first_wakeup(&free, rx), Some(1_000 * US));
    assert_eq!(exit_time(&free, "rx"), 1_010 * US);
    assert_eq!((free.task_cpu_time(tx), free.task_cpu_time(rx)), (0, 10 * US));
}

/// When the first wake-up of `task` was, if any.
fn first_wakeup(sim: &Simulation, task: u32) -> Option<u64> {
    records(sim).iter().find(|(_, r)| matches!(r, Record::Wakeup { task: t, .. } if *t == task)).map(|&(t, _)| t)
}

/// A pipe makes room a page at a time: pipe_read() frees a page with its
/// last message and only then, if the pipe was full, wakes a writer
/// (fs/pipe.c, v6.14+; FREE runs 6.18). Capacity 4 over `pages` pages; `tx` fills
/// the pipe at t = 0 and blocks on the 5th message; `rx` reads one every
/// 100 µs from 1 ms, at 1.0, 1.1, 1.2, 1.3 ms. One page of 4 is free after
/// the 4th read (1.3 ms), the first of two pages of 2 after the 2nd
/// (1.1 ms), the first of four pages of 1 after the 1st (1.0 ms).
#[test]
fn a_pipe_wakes_its_writer_only_once_a_page_is_free() {
    for (pages, woken) in [(1, 1_300 * US), (2, 1_100 * US), (4, 1_000 * US)] {
        let sim = run(&format!(
            "{FREE}[[channel]]\nname = \"c\"\ncapacity = 4\npages = {pages}\n\
             [[task]]\nname = \"tx\"\nprogram = \"send c 5\"\n\
             [[task]]\nname = \"rx\"\nprogram = \"sleep 1ms; loop 5 {{ recv c; run 100us }}\"\n"
        ));
        let tx = id(&sim, "tx");
        assert!(records(&sim).contains(&(0, Record::Chan { task: tx, ch: 0, send: true, n: 4, blocked: true })), "{pages} pages");
        assert_eq!(first_wakeup(&sim, tx), Some(woken), "{pages} pages");
        let c = &sim.sched().chans[0];
        assert_eq!((c.sent, c.received, c.count, c.pages), (5, 5, 0, 0), "{pages} pages");
    }
}

/// Up to v6.13 pipe_read() wakes a writer after every read that began
/// with every page taken (`was_full`), freed or not; the writer finds no
/// room and waits again. As above, `tx` fills 4 messages and blocks on
/// the 5th; `rx` reads one at 1.0, 1.1, 1.2, 1.3 and 1.4 ms, sleeping in
/// between, so `tx` runs at once when woken. One page of 4: full before
/// each of the first four reads (the 4th frees it), so `tx` is woken at
/// 1.0, 1.1, 1.2 and 1.3 ms and writes only at 1.3. Two pages of 2: full
/// at 1.0 (woken, no room) and 1.1 (a page freed: woken, writes). Four
/// pages of 1: the 1st read frees a page: one wake-up at 1.0. On 6.18
/// (PIPE_WAKE_WAS_FULL off) only the reads that free a page wake it.
#[test]
fn before_v6_14_every_read_of_a_full_pipe_wakes_a_writer() {
    for (kernel, pages, woken) in [
        ("6.6", 1, vec![1_000, 1_100, 1_200, 1_300]),
        ("6.6", 2, vec![1_000, 1_100]),
        ("6.6", 4, vec![1_000]),
        ("6.18", 1, vec![1_300]),
        ("6.18", 2, vec![1_100]),
    ] {
        let sim = run(&format!(
            "{}[[channel]]\nname = \"c\"\ncapacity = 4\npages = {pages}\n\
             [[task]]\nname = \"tx\"\nprogram = \"send c 5\"\n\
             [[task]]\nname = \"rx\"\nprogram = \"sleep 1ms; loop 5 {{ recv c; sleep 100us }}\"\n",
            FREE.replace("6.18", kernel)
        ));
        let tx = id(&sim, "tx");
        let wakeups: Vec<u64> = records(&sim).iter().filter(|(_, r)| matches!(r, Record::Wakeup { task, .. } if *task == tx)).map(|&(t, _)| t / US).collect();
        assert_eq!(wakeups, woken, "{kernel}, {pages} pages");
        let c = &sim.sched().chans[0];
        assert_eq!((c.sent, c.received, c.count), (5, 5, 0), "{kernel}, {pages} pages");
    }
}

/// A writer back from waiting takes a free page and never merges into
/// the newest one: pipe_write() merges only on a write's first try, then
/// waits on pipe_writable(), which is !pipe_full() (fs/pipe.c, v5.15–v6.18).
/// 6.6, capacity 4 in two pages of 2: `w` fills both at t = 0; `a` and `b`
/// block at 0.5 and 0.6 ms. `rx` reads at 1.0, 1.1, 1.2, 1.3 ms (sleeping
/// in between). 1.0: no page freed, but the pipe was full, so `a` is woken
/// and waits again (at the back: b, a). 1.1 frees a page: `b` is woken
/// and takes it (1 message in a page of 2; every page taken again). 1.2:
/// full, `a` is woken; the newest page has room, but no page is free, so
/// `a` waits again. 1.3 frees a page: `a` takes it. So `a` is woken at
/// 1.0, 1.2 and 1.3 ms and `b` at 1.1 ms; a merge at 1.2 would have ended
/// `a`'s write there.
#[test]
fn a_writer_back_from_waiting_takes_a_free_page_and_never_merges() {
    let sim = run(&format!(
        "{}[[channel]]\nname = \"c\"\ncapacity = 4\npages = 2\n\
         [[task]]\nname = \"w\"\nprogram = \"send c 4\"\n\
         [[task]]\nname = \"a\"\nprogram = \"sleep 500us; send c\"\n\
         [[task]]\nname = \"b\"\nprogram = \"sleep 600us; send c\"\n\
         [[task]]\nname = \"rx\"\nprogram = \"sleep 1ms; loop 6 {{ recv c; sleep 100us }}\"\n",
        FREE.replace("6.18", "6.6")
    ));
    let log = records(&sim);
    let woken = |name: &str| -> Vec<u64> {
        let p = id(&sim, name);
        // From 1 ms on: the wake-ups from the pipe, not from the sleeps.
        log.iter().filter(|&&(t, r)| t >= 1_000 * US && matches!(r, Record::Wakeup { task, .. } if task == p)).map(|&(t, _)| t / US).collect()
    };
    assert_eq!(woken("a"), vec![1_000, 1_200, 1_300]);
    assert_eq!(woken("b"), vec![1_100]);
    assert_eq!(exit_time(&sim, "a"), 1_300 * US);
    let c = &sim.sched().chans[0];
    assert_eq!((c.sent, c.received, c.count), (6, 6, 0));
}

/// One write of two messages into an empty pipe wakes one reader
/// (pipe_write(): `was_empty`, an exclusive wait); that reader, back from
/// waiting and leaving a message behind, wakes the next (pipe_read()'s
/// `wake_next_reader`). A unix stream socket's send wakes every blocked
/// reader itself (sock_def_readable(); unix_stream_data_wait() waits
/// non-exclusively). `r0` and `r1` block at t = 0; `w` sends at 1 ms.
#[test]
fn a_pipe_write_wakes_one_reader_and_a_socket_send_wakes_them_all() {
    for kind in ["pipe", "socket"] {
        let sim = run(&format!(
            "{FREE}[[channel]]\nname = \"c\"\nkind = \"{kind}\"\n\
             [[task]]\nname = \"r\"\ncount = 2\nprogram = \"recv c; run 50us\"\n\
             [[task]]\nname = \"w\"\nprogram = \"sleep 1ms; send c 2; run 1ms\"\n"
        ));
        let (r0, r1) = (id(&sim, "r.0"), id(&sim, "r.1"));
        let log = records(&sim);
        let at = |want: &dyn Fn(&Record) -> bool| log.iter().position(|(_, r)| want(r)).unwrap();
        let r1_woken = at(&|r| matches!(r, Record::Wakeup { task, .. } if *task == r1));
        let r0_read = at(&|r| *r == Record::Chan { task: r0, ch: 0, send: false, n: 1, blocked: false });
        assert_eq!(first_wakeup(&sim, r0), Some(1_000 * US), "{kind}");
        assert_eq!(r1_woken > r0_read, kind == "pipe", "{kind}: r1 woken by r0's read (pipe) or by the send (socket)");
        assert_eq!(sim.sched().chans[0].received, 2, "{kind}");
    }
}

/// A unix stream socket wakes its blocked writers only once the queue is
/// down to `wake_at` (unix_write_space(): sk_wmem_alloc at a quarter of
/// sk_sndbuf). Capacity 8, wake_at 2: `tx` blocks on its 9th message at
/// t = 0; `rx` reads one every 100 µs from 1 ms; after the 6th read, at
/// 1.5 ms, 2 are left and `tx` is woken.
#[test]
fn a_socket_wakes_its_writers_once_the_queue_is_down_to_wake_at() {
    let sim = run(&format!(
        "{FREE}[[channel]]\nname = \"c\"\nkind = \"socket\"\ncapacity = 8\nwake_at = 2\n\
         [[task]]\nname = \"tx\"\nprogram = \"send c 9\"\n\
         [[task]]\nname = \"rx\"\nprogram = \"sleep 1ms; loop 9 {{ recv c; run 100us }}\"\n"
    ));
    assert_eq!(first_wakeup(&sim, id(&sim, "tx")), Some(1_500 * US));
    assert_eq!(sim.sched().chans[0].received, 9);
}
