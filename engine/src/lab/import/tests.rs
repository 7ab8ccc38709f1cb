use super::*;

fn trace(text: &str) -> Trace {
    read_trace(text.as_bytes(), false).unwrap()
}

fn by_comm<'a>(t: &'a Trace, comm: &str) -> &'a Thread {
    t.threads.iter().find(|x| x.comm == comm).unwrap_or_else(|| panic!("no thread {comm}"))
}

/// A pipe ping-pong as perf sched script prints it: `a` runs 100 µs,
/// wakes `b` and blocks; `b` runs 50 µs, wakes `a` and blocks; twice.
const PINGPONG: &str = "\
               a   101 [000]     1.000000: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=101 next_prio=120
               a   101 [000]     1.000100: sched:sched_waking: comm=b pid=102 prio=120 target_cpu=000
               a   101 [000]     1.000101: sched:sched_switch: prev_comm=a prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=b next_pid=102 next_prio=120
               b   102 [000]     1.000150: sched:sched_waking: comm=a pid=101 prio=120 target_cpu=000
               b   102 [000]     1.000152: sched:sched_switch: prev_comm=b prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=a next_pid=101 next_prio=120
               a   101 [000]     1.000252: sched:sched_waking: comm=b pid=102 prio=120 target_cpu=000
               a   101 [000]     1.000253: sched:sched_switch: prev_comm=a prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=b next_pid=102 next_prio=120
               b   102 [000]     1.000303: sched:sched_waking: comm=a pid=101 prio=120 target_cpu=000
               b   102 [000]     1.000305: sched:sched_switch: prev_comm=b prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
";

#[test]
fn ping_pong_becomes_wake_and_wait() {
    let t = trace(PINGPONG);
    let (a, b) = (by_comm(&t, "a"), by_comm(&t, "b"));
    // a ran 1.000000–1.000101 and 1.000152–1.000253: 101 + 101 µs.
    assert_eq!(a.cpu_time, 202_000);
    // b ran 1.000101–1.000152 and 1.000253–1.000305: 51 + 52 µs.
    assert_eq!(b.cpu_time, 103_000);
    assert_eq!((a.nvcsw, a.nivcsw, b.nvcsw), (2, 0, 2));
    // a was woken once (at 1.000150, ran at 1.000152): 2 µs.
    assert_eq!((a.latency.count, a.latency.max), (1, 2_000));
    // Every wake-up of each came from the other: partners.
    let p = t.partners(true);
    let (ia, ib) = (t.threads.iter().position(|x| x.comm == "a").unwrap(), t.threads.iter().position(|x| x.comm == "b").unwrap());
    assert_eq!((p[ia], p[ib]), (ib as u32, ia as u32));
    let sc = t.to_scenario(&Options::default());
    // a: run 100 µs, wake b, run 1 µs (to its block), wait, ...; a
    // channel per woken thread.
    assert!(sc.contains("[[channel]]\nname = \"to_b-102\""), "{sc}");
    assert!(sc.contains("run 100000ns; send to_b-102; run 1000ns; recv to_a-101; run 100000ns; send to_b-102; run 1000ns"), "{sc}");
    assert!(sc.contains("[topology]\npreset = \"1cpu\""), "{sc}");
    // The scenario runs; in the model the two strictly alternate too.
    let (mut sim, _) = crate::from_text(&sc, &crate::Overrides::default(), crate::LogMode::HashOnly).unwrap();
    sim.run();
    let r = sim.results("6.18");
    let get = |n: &str| r.tasks.iter().find(|x| x.name == n).unwrap_or_else(|| panic!("{n} in {sc}")).clone();
    // The model charges a context switch (1 µs) per switch on top, so
    // CPU times are the trace's plus switch costs.
    assert!(get("a-101").cpu_time_ns >= 202_000 && get("a-101").cpu_time_ns <= 206_000, "{:?}", get("a-101"));
    assert_eq!(get("b-102").nr_voluntary_switches, 2);
    // Without waker inference every wait is a sleep.
    let sc2 = t.to_scenario(&Options { wakers: false, ..Options::default() });
    assert!(!sc2.contains("recv to_a") && !sc2.contains("send to_b") && sc2.contains("run 101000ns; sleep 49000ns; run 101000ns; sleep 50000ns"), "{sc2}");
}

#[test]
fn preemption_does_not_split_a_burst_and_timers_are_sleeps() {
    // h runs 0–4 ms, is preempted by p (woken from idle context), p runs
    // 1 ms and sleeps, h runs on to 10 ms.
    let text = "\
  <idle>-0     [000] d..2  0.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=h next_pid=7 next_prio=125
       h-7     [000] d.h2  0.003000: sched_waking: comm=p pid=8 prio=120 target_cpu=000
       h-7     [000] d..2  0.004000: sched_switch: prev_comm=h prev_pid=7 prev_prio=125 prev_state=R+ ==> next_comm=p next_pid=8 next_prio=120
       p-8     [000] d..2  0.005000: sched_switch: prev_comm=p prev_pid=8 prev_prio=120 prev_state=S ==> next_comm=h next_pid=7 next_prio=125
       h-7     [000] d..2  0.010000: sched_switch: prev_comm=h prev_pid=7 prev_prio=125 prev_state=R ==> next_comm=h next_pid=7 next_prio=125
";
    let t = trace(text);
    let h = by_comm(&t, "h");
    // 4 ms + 5 ms, one burst (the preemption is the model's to decide).
    assert_eq!(h.cpu_time, 9_000_000);
    assert_eq!(h.nivcsw, 2);
    assert_eq!(h.segs, vec![Seg::Run(9_000_000)]);
    let p = by_comm(&t, "p");
    // p was asleep from the trace start until its (hardirq) wake-up at
    // 3 ms: a sleep, not a wake from h; latency 4 − 3 = 1 ms.
    assert_eq!(p.segs, vec![Seg::Block { ns: 3_000_000, waker: NIL }, Seg::Run(1_000_000), Seg::Block { ns: 5_000_000, waker: NIL }]);
    assert_eq!(p.latency.max, 1_000_000);
    let sc = t.to_scenario(&Options { pin: true, ..Options::default() });
    assert!(sc.contains("name = \"h-7\"\nnice = 5\naffinity = \"0\""), "{sc}");
    assert!(sc.contains("sleep 3000000ns; run 1000000ns; sleep 5000000ns"), "{sc}");
}

#[test]
fn fit_summarises_bursts() {
    let t = read_trace(PINGPONG.as_bytes(), true).unwrap();
    let a = by_comm(&t, "a");
    assert!(a.segs.is_empty());
    // Bursts of a: 101 µs and 101 µs (the wake splits nothing in a fit).
    assert_eq!((a.fit.bursts.n, a.fit.bursts.mean as u64), (2, 101_000));
    let sc = t.to_scenario(&Options { fit: true, ..Options::default() });
    assert!(sc.contains("loop { run 101000ns; send to_b-102; recv to_a-101 }"), "{sc}");
    crate::from_text(&sc, &crate::Overrides::default(), crate::LogMode::HashOnly).unwrap();
}

#[test]
fn distributions() {
    let mut a = Acc::default();
    for v in [100, 100, 100] {
        a.add(v);
    }
    assert_eq!(dist(&a), "100ns");
    // 0, 100, 200: mean 100, sd 100 (CV 1) → exponential.
    let mut a = Acc::default();
    for v in [0, 100, 200] {
        a.add(v);
    }
    assert_eq!(dist(&a), "exp(100ns)");
    // 90, 100, 110: mean 100, sd 10 (CV 0.1) → uniform(100 − √3·10, 100 + √3·10) = (83, 117), clamped to [90, 110].
    let mut a = Acc::default();
    for v in [90, 100, 110] {
        a.add(v);
    }
    assert_eq!(dist(&a), "uniform(90ns, 110ns)");
}

#[test]
fn errors_name_the_line() {
    let text = "# tracer: nop\n  a-1 [000] 1.000000: sched_switch: prev_comm=a prev_pid=1 prev_prio=120 prev_state=S ==> next_comm=b next_pid=2 next_prio=120\n  a-1 [000] 1.000001: sched_switch: prev_comm=a prev_pid=1\n";
    let e = read_trace(text.as_bytes(), false).unwrap_err();
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.to_string().starts_with("line 3: sched_switch: expected `prev_prio=`"), "{e}");
    let e = read_trace("just words\n".as_bytes(), false).unwrap_err();
    assert_eq!(e.line, Some(1));
    let e = read_trace("# tracer: nop\n".as_bytes(), false).unwrap_err();
    assert!(e.to_string().contains("no scheduler events"), "{e}");
    let e = read_trace("  a-1 [99999] 1.0: sched_switch: x\n".as_bytes(), false).unwrap_err();
    assert_eq!(e.line, Some(1));
}

#[test]
fn rtapp_subset() {
    let json = r#"/* two tasks */ {
      "global": { "duration": 2, "default_policy": "SCHED_OTHER" },
      "tasks": {
        "producer": { "priority": -5, "loop": -1, "run": 5000, "resume": "consumer", "run": 5000, "sleep": 10000, "cpus": [0, 1] },
        "consumer": { "instance": 1, "suspend": "consumer", "run": 2000, "taskgroup": "/bg/low" },
        "ticker": { "instance": 2, "phases": { "p1": { "loop": 3, "run": 1000, "timer": { "ref": "t", "period": 4000 } }, "p2": { "sleep": 1000 } }, "delay": 500 }
      }
    }"#;
    let sc = rtapp::to_scenario(json, &Options::default()).unwrap();
    // Duplicate keys keep their order: run, resume, run, sleep.
    assert!(sc.contains("program = \"loop { run 5000us; wake consumer; run 5000us; sleep 10000us }\""), "{sc}");
    assert!(sc.contains("nice = -5"));
    assert!(sc.contains("affinity = \"0,1\""));
    assert!(sc.contains("[[group]]\nname = \"bg\"\n\n[[group]]\nname = \"bg_low\"\nparent = \"bg\""), "{sc}");
    // timer: 4000 µs period less the 1000 µs run before it.
    assert!(sc.contains("count = 2") && sc.contains("loop { loop 3 { run 1000us; sleep 3000us }; sleep 1000us }"), "{sc}");
    assert!(sc.contains("start = \"500us\""));
    assert!(sc.contains("duration = \"2000ms\""));
    let (mut sim, _) = crate::from_text(&sc, &crate::Overrides::default(), crate::LogMode::HashOnly).unwrap();
    sim.run();
    // Errors name the key.
    let e = rtapp::to_scenario(r#"{"tasks": {"t": {"run": "x"}}}"#, &Options::default()).unwrap_err();
    assert_eq!(e.to_string(), "tasks.t.run: expected an integer, found a string");
    let e = rtapp::to_scenario(r#"{"tasks": {"t": {"resume": "nobody"}}}"#, &Options::default()).unwrap_err();
    assert!(e.to_string().starts_with("tasks.t.resume: no task named `nobody`"), "{e}");
    let e = rtapp::to_scenario("{\"tasks\": \n {\"t\": }}", &Options::default()).unwrap_err();
    assert_eq!(e.line, Some(2), "{e}");
    let e = rtapp::to_scenario(r#"{"tasks": {"t": {"frobnicate": 1}}}"#, &Options::default()).unwrap_err();
    assert!(e.to_string().contains("tasks.t.frobnicate: unknown rt-app event"), "{e}");
}

/// The traces recorded on this machine (scripts/record-traces).
fn recorded(name: &str) -> Trace {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces").join(name);
    read_trace(std::io::BufReader::new(std::fs::File::open(p).unwrap()), false).unwrap()
}

#[test]
fn recorded_traces_are_consistent() {
    for name in ["nice.perf.txt", "periodic.perf.txt", "pingpong.perf.txt"] {
        let t = recorded(name);
        assert_eq!((t.format, t.cpus), ("perf sched script", 2), "{name}");
        // Slices of one CPU cannot overlap: per CPU the threads' CPU time
        // adds up to at most the trace's length.
        for cpu in 0..2u32 {
            let busy: u64 = t.threads.iter().flat_map(|th| th.cpus.iter()).filter(|c| c.0 == cpu).map(|c| c.1).sum();
            assert!(busy <= t.duration(), "{name}: CPU {cpu} busy {busy} > {}", t.duration());
        }
        let sc = t.to_scenario(&Options { pin: true, ..Options::default() });
        crate::lab::scenario::parse(&sc).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

#[test]
fn recorded_nice_hogs_share_by_weight() {
    // Two hogs pinned to CPU 0 at nice 0 and 5, beside other load: whoever
    // else ran, each got CPU in proportion to its weight while both were
    // runnable: 1024 : 335 (sched_prio_to_weight) = 3.06, within 5 %.
    let t = recorded("nice.perf.txt");
    let hogs: Vec<&Thread> = t.threads.iter().filter(|x| x.comm == "python3" && x.home_cpu() == Some(0) && x.nvcsw <= 2).collect();
    assert_eq!(hogs.len(), 2, "{:?}", hogs.iter().map(|h| (h.pid, h.prio, h.cpu_time)).collect::<Vec<_>>());
    let (n0, n5) = if hogs[0].prio == 120 { (hogs[0], hogs[1]) } else { (hogs[1], hogs[0]) };
    assert_eq!((n0.prio, n5.prio), (120, 125));
    let ratio = n0.cpu_time as f64 / n5.cpu_time as f64;
    assert!((ratio / (1024.0 / 335.0) - 1.0).abs() < 0.05, "{ratio}");
}

#[test]
fn recorded_ping_pong_pairs_up() {
    // Each of the two processes reads until the other writes: pong blocks
    // in read() every round, ping mostly finds the reply there, because
    // pong, woken by its request, preempted it at once and replied while
    // it waited runnable (thousands of involuntary switches). Every
    // wake-up of one comes from the other, so they are partners and the
    // replay passes messages between them.
    let t = recorded("pingpong.perf.txt");
    let p = t.partners(true);
    let busy: Vec<usize> = (0..t.threads.len()).filter(|&i| t.threads[i].comm == "python3" && t.threads[i].nvcsw + t.threads[i].nivcsw > 1000).collect();
    assert_eq!(busy.len(), 2);
    assert_eq!(p[busy[0]], busy[1] as u32);
    assert_eq!(p[busy[1]], busy[0] as u32);
    let sc = t.to_scenario(&Options::default());
    let name = |i: usize| task_name(&t.threads[i].comm, t.threads[i].pid);
    assert!(sc.contains(&format!("send to_{}", name(busy[0]))) && sc.contains(&format!("recv to_{}", name(busy[1]))));
}

/// A request/reply round that b's wake-up preemption cut short: a (the
/// client) wakes b, blocks; b replies by waking a and is preempted by it
/// at once (prev_state R); a writes its next request to b, which is not
/// waiting, so the trace shows no wake-up, and blocks; b runs on, reads
/// the request without blocking, replies and blocks.
const CUT_SHORT: &str = "\
               a   101 [000]     1.000000: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=a next_pid=101 next_prio=120
               a   101 [000]     1.000100: sched:sched_waking: comm=b pid=102 prio=120 target_cpu=000
               a   101 [000]     1.000101: sched:sched_switch: prev_comm=a prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=b next_pid=102 next_prio=120
               b   102 [000]     1.000150: sched:sched_waking: comm=a pid=101 prio=120 target_cpu=000
               b   102 [000]     1.000151: sched:sched_switch: prev_comm=b prev_pid=102 prev_prio=120 prev_state=R ==> next_comm=a next_pid=101 next_prio=120
               a   101 [000]     1.000251: sched:sched_switch: prev_comm=a prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=b next_pid=102 next_prio=120
               b   102 [000]     1.000301: sched:sched_waking: comm=a pid=101 prio=120 target_cpu=000
               b   102 [000]     1.000302: sched:sched_switch: prev_comm=b prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
";

#[test]
fn a_request_to_a_preempted_partner_is_inferred() {
    let t = trace(CUT_SHORT);
    let (a, b) = (by_comm(&t, "a"), by_comm(&t, "b"));
    let (ia, ib) = (t.threads.iter().position(|x| x.comm == "a").unwrap() as u32, t.threads.iter().position(|x| x.comm == "b").unwrap() as u32);
    // a: runs 1.000000–1.000100, wakes b, runs 1 µs to its block; asleep
    // 1.000101–1.000150 (49 µs, woken by b); runs 1.000151–1.000251
    // (100 µs), then blocks while b, whose last act was to wake a, waits
    // preempted: the inferred request to b; asleep 1.000251–1.000301.
    assert_eq!(
        a.segs,
        vec![Seg::Run(100_000), Seg::Wake(ib), Seg::Run(1_000), Seg::Block { ns: 49_000, waker: ib }, Seg::Run(100_000), Seg::Send(ib), Seg::Block { ns: 50_000, waker: ib }]
    );
    // b: asleep from the start to a's wake at 1.000100; runs 49 µs, wakes
    // a, runs 1 µs and is preempted; takes a's request where it was
    // preempted; runs 1.000251–1.000301 (50 µs), wakes a, 1 µs to its block.
    assert_eq!(b.segs, vec![Seg::Block { ns: 100_000, waker: ia }, Seg::Run(49_000), Seg::Wake(ia), Seg::Run(1_000), Seg::Recv(ia), Seg::Run(50_000), Seg::Wake(ia), Seg::Run(1_000)]);
    // Two sends and two receives each way: the channels balance, and b's
    // second burst waits for a's second request as it did in the trace.
    let sc = t.to_scenario(&Options::default());
    // a, woken by b's last reply 1 µs before the trace ends, still wants
    // the CPU there: its program ends in `run`.
    assert!(sc.contains("run 100000ns; send to_b-102; run 1000ns; recv to_a-101; run 100000ns; send to_b-102; recv to_a-101; run\n"), "{sc}");
    assert!(sc.contains("recv to_b-102; run 49000ns; send to_a-101; run 1000ns; recv to_b-102; run 50000ns; send to_a-101; run 1000ns\n"), "{sc}");
    let (mut sim, _) = crate::from_text(&sc, &crate::Overrides::default(), crate::LogMode::HashOnly).unwrap();
    sim.run();
    let r = sim.results("6.18");
    let get = |n: &str| r.tasks.iter().find(|x| x.name == n).unwrap().clone();
    // The replay charges no switch or wake-up costs on top of the trace's
    // run times (they are in them): a's 100 + 1 + 100 µs, b's 49 + 1 + 50 + 1 µs.
    assert_eq!((get("a-101").cpu_time_ns, get("b-102").cpu_time_ns), (201_000, 101_000));
    assert!(sc.contains("costs = { context_switch = \"0ns\", thread_switch = \"0ns\", migration = \"0ns\", scan = \"0ns\", wakeup = \"0ns\" }"), "{sc}");
}

#[test]
fn a_wait_for_an_exit_is_a_join() {
    // p forks c and waits for it; c runs 500 µs, passes
    // sched_process_exit, wakes p on its way out and dies (Z).
    let text = "\
               p   201 [000]     1.000000: sched:sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=p next_pid=201 next_prio=120
               p   201 [000]     1.000010: sched:sched_wakeup_new: comm=c pid=202 prio=120 target_cpu=000
               p   201 [000]     1.000020: sched:sched_switch: prev_comm=p prev_pid=201 prev_prio=120 prev_state=S ==> next_comm=c next_pid=202 next_prio=120
               c   202 [000]     1.000520: sched:sched_process_exit: comm=c pid=202 prio=120 group_dead=true
               c   202 [000]     1.000530: sched:sched_waking: comm=p pid=201 prio=120 target_cpu=000
               c   202 [000]     1.000540: sched:sched_switch: prev_comm=c prev_pid=202 prev_prio=120 prev_state=Z ==> next_comm=p next_pid=201 next_prio=120
               p   201 [000]     1.000600: sched:sched_switch: prev_comm=p prev_pid=201 prev_prio=120 prev_state=S ==> next_comm=swapper/0 next_pid=0 next_prio=120
";
    let t = trace(text);
    let (p, c) = (by_comm(&t, "p"), by_comm(&t, "c"));
    let (ip, ic) = (t.threads.iter().position(|x| x.comm == "p").unwrap() as u32, t.threads.iter().position(|x| x.comm == "c").unwrap() as u32);
    // p: 20 µs, asleep 1.000020–1.000530 (510 µs) until c's exit, 60 µs.
    assert_eq!(p.segs, vec![Seg::Run(20_000), Seg::Join { ns: 510_000, waker: ic }, Seg::Run(60_000)]);
    // c: 1.000020–1.000530 (510 µs), the exit's wake of p, 10 µs, dead.
    assert_eq!(c.segs, vec![Seg::Run(510_000), Seg::ExitWake(ip), Seg::Run(10_000), Seg::Exit]);
    // The replay's p waits for the replayed c's exit, however long c
    // takes there, instead of sleeping the 510 µs c took in the trace.
    let sc = t.to_scenario(&Options::default());
    assert!(sc.contains("[[channel]]\nname = \"to_p-201\""), "{sc}");
    assert!(sc.contains("run 20000ns; recv to_p-201; run 60000ns\n"), "{sc}");
    assert!(sc.contains("start = \"10000ns\"\nprogram = \"\"\"\nrun 510000ns; send to_p-201; run 10000ns; exit\n"), "{sc}");
    crate::from_text(&sc, &crate::Overrides::default(), crate::LogMode::HashOnly).unwrap();
    let sc2 = t.to_scenario(&Options { wakers: false, ..Options::default() });
    assert!(sc2.contains("run 20000ns; sleep 510000ns; run 60000ns\n") && !sc2.contains("send to_p"), "{sc2}");
}

#[test]
fn recorded_hogs_are_preempted_at_the_tick() {
    // The workloads spin on the vDSO clock (scripts/trace-workload.py),
    // as `run` does: a hog's used-up slice (0.7 ms × (1 + ilog2(2 CPUs))
    // = 1.4 ms) ends at the next 4 ms tick (HZ=250) or an earlier wake-up
    // preemption, not the moment it is used up as for a thread that polls
    // its CPU clock (task_sched_runtime() → update_curr()). So a hog runs
    // well over twice the slice per involuntary switch; when it polled,
    // it ran 1.4 ms.
    let t = recorded("nice.perf.txt");
    let hogs: Vec<&Thread> = t.threads.iter().filter(|x| x.comm == "python3" && x.home_cpu() == Some(0) && x.nvcsw <= 2).collect();
    assert_eq!(hogs.len(), 2);
    for h in hogs {
        let per = h.cpu_time / h.nivcsw.max(1);
        assert!(per > 2 * 1_400_000, "pid {}: {per} ns per involuntary switch", h.pid);
    }
}

/// `check_scenario()` answers as a whole parse does: the expected answer
/// is not written down but is `scenario::parse()`'s, the same error text
/// (key, line, column, message) or success. On the recorded traces'
/// scenarios (sequences and `--fit` loops), and on a scenario made here
/// with programs longer than `CHECK_LINES` lines, with one fault put in
/// each time: in a task's keys, in a program's first lines, on both sides
/// of a piece boundary and far into the last program.
#[test]
fn the_piecewise_check_answers_as_the_whole_parse() {
    let whole = |sc: &str| crate::lab::scenario::parse(sc).map(|_| ()).map_err(|e| e.to_string());
    let piecewise = |sc: &str| check_scenario(sc).map_err(|e| e.to_string());
    for name in ["nice.perf.txt", "periodic.perf.txt", "pingpong.perf.txt"] {
        for fit in [false, true] {
            let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/traces").join(name);
            let t = read_trace(std::io::BufReader::new(std::fs::File::open(p).unwrap()), fit).unwrap();
            let sc = t.to_scenario(&Options { pin: true, fit, ..Options::default() });
            assert_eq!(piecewise(&sc), Ok(()), "{name}");
            assert_eq!(whole(&sc), Ok(()), "{name}");
        }
    }
    // Three tasks of 20 000 lines each (two statements a line, as the
    // importer writes them, only more per line there).
    let lines = 20_000;
    let mut sc = String::from("[sim]\nduration = \"1s\"\n[[channel]]\nname = \"to_t1\"\ncapacity = 1099511627776\n");
    for t in 0..3 {
        sc += &format!("\n[[task]]\nname = \"t{t}\"\nnice = {t}\nprogram = \"\"\"\n");
        for i in 0..lines {
            sc += &format!("run {}ns; {}\n", i + 1, if t == 1 { "recv to_t1" } else { "sleep 3ns" });
        }
        sc += "\"\"\"\n";
    }
    assert_eq!(piecewise(&sc), Ok(()));
    assert_eq!(whole(&sc), Ok(()));
    let program_line = |t: usize, i: usize| format!("run {}ns; {}", i + 1, if t == 1 { "recv to_t1" } else { "sleep 3ns" });
    // Whole lines: (the line, what it becomes).
    let faults: Vec<(String, String)> = vec![
        ("nice = 1".into(), "nice = 99".into()),
        ("name = \"t2\"".into(), "name = \"t0\"".into()),
        (program_line(0, 2), "run 3ns; slep 3ns".into()),
        (program_line(1, CHECK_LINES - 1), "run 1ns; recv".into()),
        (program_line(1, CHECK_LINES), "run -4ns; recv to_t1".into()),
        (program_line(2, lines - 7), "run 12993ns; sleep 3ns; loop { run 1ns".into()),
    ];
    for (from, to) in faults {
        let at = sc.find(&format!("\n{from}\n")).unwrap() + 1;
        let bad = format!("{}{}{}", &sc[..at], to, &sc[at + from.len()..]);
        let want = whole(&bad);
        assert!(want.is_err(), "{to}: the fault loads");
        assert_eq!(piecewise(&bad), want, "{to}");
    }
}
