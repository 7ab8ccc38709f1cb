//! Each macro's expansion on a small case, checked by hand: task and
//! channel counts, programs (who wakes whom), processes; parameter errors.

use super::*;
use crate::lab::scenario::parse;

/// Expands the single workload of `text` (the last table) on a machine of
/// `cpus` CPUs, without cost jitter unless the text sets it.
fn expand1(text: &str, cpus: u32) -> Expanded {
    let text = if text.contains("jitter") { text.to_string() } else { format!("{text}jitter = 0\n") };
    let sc = parse(&text).unwrap();
    expand(&sc.workloads[0], 0, cpus).unwrap()
}

fn err(text: &str) -> ScenarioError {
    let sc = parse(text).unwrap();
    expand(&sc.workloads[0], 0, 8).unwrap_err()
}

fn task<'a>(e: &'a Expanded, name: &str) -> &'a TaskSpec {
    e.tasks.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no task {name}"))
}

fn prog(e: &Expanded, name: &str) -> String {
    task(e, name).program.to_string()
}

#[test]
fn hackbench_threads_pipe() {
    let e = expand1("[[workload]]\nkind = \"hackbench\"\ngroups = 2\nfds = 3\nloops = 4\nipc = \"pipe\"\nmode = \"threads\"\n", 8);
    // Per group: 3 receivers (one spec each, each with its own pipe) and
    // one spec of 3 senders.
    assert_eq!(e.tasks.len(), 2 * (3 + 1));
    assert_eq!(e.tasks.iter().map(|t| t.count).sum::<u32>(), 2 * 6);
    assert_eq!(e.channels.len(), 6);
    // A pipe holds 16 pages of 4096 bytes; 100-byte writes merge into a
    // page while they fit whole: 40 to a page (4000 + 100 > 4096), 640.
    assert!(e.channels.iter().all(|c| c.capacity == 16 * 40 && c.kind == ChannelKind::Pipe { pages: 16 }));
    // A receiver reads fds × loops = 12 messages from its own pipe.
    assert_eq!(prog(&e, "hackbench-g1-rx2"), "loop 12 { recv hackbench-g1-2; run 700ns }");
    // A sender writes one message to each receiver of its group per loop.
    let tx = task(&e, "hackbench-g0-tx");
    assert_eq!(tx.count, 3);
    assert_eq!(
        tx.program.to_string(),
        "loop 4 { run 800ns; send hackbench-g0-0; run 800ns; send hackbench-g0-1; run 800ns; send hackbench-g0-2 }"
    );
    // Threads: one process.
    assert!(e.tasks.iter().all(|t| t.process.as_deref() == Some("hackbench")));
    // The measure: time, over the receivers; 2 groups × 3 × 3 × 4 messages.
    assert_eq!(e.measure.metric, Metric::Time);
    assert_eq!((e.measure.case.as_str(), e.measure.load.as_str()), ("threads-pipe", "2 groups"));
    assert_eq!(e.measure.workers.len(), 6);
    assert_eq!(e.measure.total_ops, Some(72));
    // A group's 3 receivers are one unit of the job, listed together.
    assert_eq!(e.measure.unit, 3);
    assert_eq!(e.measure.workers[3..], ["hackbench-g1-rx0", "hackbench-g1-rx1", "hackbench-g1-rx2"]);
}

#[test]
fn hackbench_process_sockets_defaults() {
    let e = expand1("[[workload]]\nkind = \"hackbench\"\n", 8);
    // 1 group of 20 + 20. A 100-byte write is an skb of truesize 768: its
    // head of 128 + 320 (skb_shared_info) bytes rounds up to kmalloc's 512,
    // plus 256 for the sk_buff. Sends go on while sk_wmem_alloc - 1 <
    // 212992: 278 fit (277 × 768 = 212736). Writers wake once
    // (sk_wmem_alloc << 2) <= 212992, i.e. 768 n + 1 <= 53248: n <= 69.
    assert_eq!(e.tasks.iter().map(|t| t.count).sum::<u32>(), 40);
    assert!(e.channels.iter().all(|c| c.capacity == 278 && c.kind == ChannelKind::Socket { wake_at: 69 }));
    assert!(e.tasks.iter().all(|t| t.process.is_none()));
    assert_eq!(prog(&e, "hackbench-g0-rx0"), "loop 2000 { recv hackbench-g0-0; run 1.3us }");
    assert_eq!((e.measure.case.as_str(), e.measure.load.as_str()), ("process-sockets", "1 group"));
}

#[test]
fn hackbench_runs_to_completion_with_every_message_read() {
    let text = "[sim]\nduration = \"10s\"\n[topology]\npreset = \"i7-4790\"\n[[workload]]\nkind = \"hackbench\"\ngroups = 2\nfds = 3\nloops = 4\nipc = \"pipe\"\n";
    let (mut sim, _) = crate::from_text(text, &crate::Overrides::default(), crate::LogMode::HashOnly).unwrap();
    sim.run();
    let r = sim.results("6.18");
    let w = &r.workloads[0];
    assert!(w.finished);
    assert_eq!(w.ops, 72);
    assert_eq!(w.value, r.sim_time_ns as f64 / 1e9);
    assert!(sim.sched().chans.iter().all(|c| c.sent == 12 && c.received == 12 && c.count == 0));
}

#[test]
fn schbench_message_threads_and_workers() {
    let e = expand1("[[workload]]\nkind = \"schbench\"\nmessage_threads = 2\n", 4);
    // Each message thread gets ceil(4 / 2) = 2 workers (schbench's default).
    assert_eq!(e.tasks.len(), 4);
    assert_eq!(prog(&e, "schbench-m1"), "loop { reply; wait }");
    let w = task(&e, "schbench-m1-w");
    assert_eq!(w.count, 2);
    // A worker asks its own message thread, sleeps 100 us, works 1 ms.
    assert_eq!(w.program.to_string(), "loop { call schbench-m1; sleep 100us; run 1ms }");
    assert!(e.tasks.iter().all(|t| t.process.as_deref() == Some("schbench")));
    assert!(e.channels.is_empty());
    assert_eq!(e.measure.workers, vec!["schbench-m0-w", "schbench-m1-w"]);
    assert_eq!((e.measure.metric, e.measure.load.as_str()), (Metric::WakeupP99, "2 mthreads"));
}

#[test]
fn netperf_rr_pairs_from_a_percentage() {
    let e = expand1("[[workload]]\nkind = \"netperf-rr\"\nthreads = \"50%\"\nproto = \"udp\"\n", 8);
    // 50 % of 8 CPUs: 4 client/server pairs, each with a request and a
    // response channel.
    assert_eq!(e.tasks.len(), 8);
    assert_eq!(e.channels.len(), 8);
    // UDP: 4 us send + 1.5 us recv per side and transaction.
    assert_eq!(prog(&e, "netperf-rr-c3"), "loop { run 5.5us; send netperf-rr-3-req; recv netperf-rr-3-resp }");
    assert_eq!(prog(&e, "netperf-rr-s3"), "loop { recv netperf-rr-3-req; run 5.5us; send netperf-rr-3-resp }");
    assert_eq!((e.measure.case.as_str(), e.measure.load.as_str()), ("UDP_RR", "4 threads"));
    assert_eq!(e.measure.workers.len(), 4);
}

/// netserver and tbench_srv fork a server when its client connects, so a
/// request/response benchmark's clients start first (and a stream's
/// senders before their receivers). On two sockets of four
/// CPUs, 4 pairs: sched_balance_find_dst_cpu() keeps the first two clients
/// on the forking socket 0 (find_idlest_group(): sum_nr_running + 1 ≤
/// imb_numa_nr = 2 LLCs), then puts the other two on socket 1 (more idle
/// CPUs), and the servers after them on whichever socket has more idle
/// CPUs; a server on the other socket than its client is pulled into the
/// client's LLC by its first (sync) request, onto an idle CPU there. Every
/// CPU ends with one task of one pair, whatever the seed. Forked in pairs
/// (c0, s0, c1, …), each server went to the other socket than its client
/// and stacked on its client's CPU, and how many pairs later got away
/// depended on the seed.
#[test]
fn request_response_clients_start_before_their_servers() {
    let e = expand1("[[workload]]\nkind = \"netperf-rr\"\nthreads = 4\n", 8);
    let names: Vec<&str> = e.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names[..4], ["netperf-rr-c0", "netperf-rr-c1", "netperf-rr-c2", "netperf-rr-c3"]);
    // A stream's receiver is netserver's child too.
    let e = expand1("[[workload]]\nkind = \"netperf-stream\"\nthreads = 2\n", 8);
    let names: Vec<&str> = e.tasks.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["netperf-stream-tx0", "netperf-stream-tx1", "netperf-stream-rx0", "netperf-stream-rx1"]);
    let text = "[sim]\nkernel = \"6.5\"\nduration = \"20ms\"\n[topology]\nsockets = 2\nllcs_per_socket = 1\ncores_per_llc = 4\nthreads_per_core = 1\n[[workload]]\nkind = \"netperf-rr\"\nthreads = 4\n";
    for seed in 1..=3 {
        let ov = crate::Overrides { seed: Some(seed), ..Default::default() };
        let (mut sim, _) = crate::from_text(text, &ov, crate::LogMode::HashOnly).unwrap();
        sim.run();
        let r = sim.results("6.5");
        let busy: Vec<u64> = r.cpus.iter().map(|c| c.busy_ns).collect();
        let (lo, hi) = (*busy.iter().min().unwrap(), *busy.iter().max().unwrap());
        assert!(hi - lo < hi / 50, "seed {seed}: every CPU runs one task of a pair: {busy:?}");
    }
}

#[test]
fn netperf_stream_window() {
    let e = expand1("[[workload]]\nkind = \"netperf-stream\"\nthreads = 2\nwindow = 8\n", 8);
    assert_eq!(e.tasks.len(), 4);
    assert!(e.channels.iter().all(|c| c.capacity == 8));
    assert_eq!(prog(&e, "netperf-stream-tx1"), "loop { run 12us; send netperf-stream-1 }");
    assert_eq!(e.measure.case, "TCP_STREAM");
}

#[test]
fn tbench_defaults_to_one_client_per_cpu() {
    let e = expand1("[[workload]]\nkind = \"tbench\"\n", 3);
    assert_eq!(e.tasks.len(), 6);
    assert_eq!(prog(&e, "tbench-c0"), "loop { run exp(6us); send tbench-0-req; recv tbench-0-resp }");
    assert_eq!(prog(&e, "tbench-s2"), "loop { recv tbench-2-req; run exp(10us); send tbench-2-resp }");
}

#[test]
fn pipe_test_is_pinned_to_one_cpu() {
    let e = expand1("[[workload]]\nkind = \"pipe-test\"\ncpu = 3\n", 8);
    assert_eq!(e.tasks.len(), 2);
    assert!(e.tasks.iter().all(|t| t.affinity.as_ref().map(|a| a.0 .0.clone()) == Some(vec![3])));
    assert_eq!(prog(&e, "pipe-test-a"), "loop { run 700ns; send pipe-test-ab; recv pipe-test-ba }");
    assert_eq!(prog(&e, "pipe-test-b"), "loop { recv pipe-test-ab; run 700ns; send pipe-test-ba }");
    let e = expand1("[[workload]]\nkind = \"pipe-test\"\ncpu = -1\n", 8);
    assert!(e.tasks.iter().all(|t| t.affinity.is_none()));
}

#[test]
fn stress_ng_wake_patterns() {
    let e = expand1("[[workload]]\nkind = \"stress-sigsuspend\"\ninstances = 2\n", 8);
    // 2 parents × 4 children; a parent signals each of its own children.
    assert_eq!(e.tasks.len(), 10);
    assert_eq!(
        prog(&e, "stress-sigsuspend-1"),
        "loop { run 500ns; wake stress-sigsuspend-1-c0; run 500ns; wake stress-sigsuspend-1-c1; run 500ns; wake stress-sigsuspend-1-c2; run 500ns; wake stress-sigsuspend-1-c3 }"
    );
    assert_eq!(prog(&e, "stress-sigsuspend-1-c2"), "loop { wait; run 800ns }");
    assert_eq!(e.measure.workers.len(), 8);
    let e = expand1("[[workload]]\nkind = \"stress-futex\"\ninstances = 3\n", 8);
    assert_eq!(e.tasks.len(), 6);
    assert_eq!(prog(&e, "stress-futex-2"), "loop { run 400ns; futex_wake stress-futex-2-w }");
    assert_eq!(prog(&e, "stress-futex-2-w"), "loop { run 500ns; futex_wait 5us }");
    // stress-ng's bogo ops are the waiter's.
    assert_eq!(e.measure.workers, ["stress-futex-0-w", "stress-futex-1-w", "stress-futex-2-w"]);
}

#[test]
fn jitter_spreads_every_fixed_cost() {
    // 10 % (the default) of hackbench's 0.8 us pipe write: 720..880 ns.
    let e = expand1("[[workload]]\nkind = \"hackbench\"\nfds = 1\nipc = \"pipe\"\njitter = \"10%\"\n", 8);
    assert_eq!(prog(&e, "hackbench-g0-tx"), "loop 100 { run uniform(720ns, 880ns); send hackbench-g0-0 }");
    let e = expand1("[[workload]]\nkind = \"schbench\"\njitter = \"50%\"\n", 2);
    assert_eq!(prog(&e, "schbench-m0-w"), "loop { call schbench-m0; sleep 100us; run uniform(500us, 1.5ms) }");
    let sc = parse("[[workload]]\nkind = \"hogs\"\njitter = \"lots\"\n").unwrap();
    assert_eq!(expand(&sc.workloads[0], 0, 2).unwrap_err().key, "workload[0].jitter");
}

#[test]
fn hogs_and_common_parameters() {
    let e = expand1("[[workload]]\nkind = \"hogs\"\ncount = 3\nnice = 5\naffinity = \"0-1\"\nname = \"bg\"\nstart = \"2ms\"\n", 8);
    assert_eq!(e.tasks.len(), 1);
    let t = &e.tasks[0];
    assert_eq!((t.name.as_str(), t.count, t.nice, t.start), ("bg", 3, 5, 2_000_000));
    assert_eq!(t.affinity.as_ref().unwrap().0 .0, vec![0, 1]);
    assert_eq!(t.program.to_string(), "run");
}

#[test]
fn expansion_prints_as_toml_that_parses_back_to_the_same_tasks() {
    for kind in KINDS {
        let text = format!("[[workload]]\nkind = \"{}\"\n", kind.name);
        let sc = parse(&text).unwrap();
        let (tasks, chans, measures) = expand_all(&sc, 4).unwrap();
        let toml = to_toml(&tasks, &chans, &measures);
        let back = parse(&toml).unwrap_or_else(|e| panic!("{}: {e}\n{toml}", kind.name));
        let strip = |t: &TaskSpec| (t.name.clone(), t.count, t.nice, t.program.to_string(), t.process.clone(), t.affinity.as_ref().map(|a| a.0.clone()));
        assert_eq!(back.tasks.iter().map(strip).collect::<Vec<_>>(), tasks.iter().map(strip).collect::<Vec<_>>(), "{}", kind.name);
        assert_eq!(back.channels.iter().map(|c| (&c.name, c.capacity)).collect::<Vec<_>>(), chans.iter().map(|c| (&c.name, c.capacity)).collect::<Vec<_>>());
    }
}

#[test]
fn bad_parameters_are_named() {
    let e = err("[[workload]]\nkind = \"hackbenhc\"\n");
    assert!(e.msg.contains("did you mean `hackbench`"), "{e}");
    let e = err("[[workload]]\nkind = \"hackbench\"\ngruops = 2\n");
    assert_eq!(e.key, "workload[0].gruops");
    assert!(e.msg.contains("did you mean `groups`"), "{e}");
    let e = err("[[workload]]\nkind = \"hackbench\"\nipc = \"pipes\"\n");
    assert!(e.msg.contains("did you mean \"pipe\""), "{e}");
    let e = err("[[workload]]\nkind = \"schbench\"\nwork = 5\n");
    assert!(e.msg.contains("needs a unit"), "{e}");
    let e = err("[[workload]]\nkind = \"netperf-rr\"\nthreads = \"lots%\"\n");
    assert!(e.msg.contains("percentage"), "{e}");
    let e = err("[[workload]]\nkind = \"tbench\"\nclient_work = \"exp(6)\"\n");
    assert_eq!(e.key, "workload[0].client_work");
}

#[test]
fn workload_tasks_may_not_clash_with_hand_written_ones() {
    let sc = parse("[[task]]\nname = \"hogs\"\nprogram = \"run\"\n[[workload]]\nkind = \"hogs\"\n").unwrap();
    let e = expand_all(&sc, 2).unwrap_err();
    assert!(e.msg.contains("clashes"), "{e}");
}

#[test]
fn a_workload_too_big_to_run_is_an_error() {
    // 1024 groups × 1024 fds × 2 = 2 097 152 tasks: refused before any
    // task is generated, naming the workload.
    let text = "[[workload]]\nkind = \"hackbench\"\ngroups = 1024\nfds = 1024\n";
    let e = crate::from_text(text, &crate::Overrides::default(), crate::LogMode::HashOnly).err().unwrap();
    assert_eq!(e.key, "workload[0]", "{e}");
    assert!(e.msg.contains("make 2097152 tasks"), "{e}");
    // schbench: 4096 × (1 + 65536).
    let text = "[[workload]]\nkind = \"schbench\"\nmessage_threads = 4096\nworkers = 65536\n";
    let e = crate::from_text(text, &crate::Overrides::default(), crate::LogMode::HashOnly).err().unwrap();
    assert!(e.msg.contains("make 268439552 tasks"), "{e}");
    // stress-ng: 65 536 sigrt instances would be 2 M tasks, 31-statement
    // parents among them; 60 000 sigsuspend instances 300 000.
    let e = err("[[workload]]\nkind = \"stress-sigrt\"\ninstances = 65536\n");
    assert!(e.msg.contains("65536 instances × (1 + 31 children) make 2097152 tasks"), "{e}");
    let e = err("[[workload]]\nkind = \"stress-sigsuspend\"\ninstances = 60000\n");
    assert!(e.msg.contains("make 300000 tasks"), "{e}");
}

#[test]
fn workloads_that_fit_alone_can_overflow_together() {
    // Two hackbenches of 128 × 512 × 2 = 131 072 tasks each: 262 144 fit,
    // a third hand-written task does not.
    let w = "[[workload]]\nkind = \"hackbench\"\ngroups = 128\nfds = 512\nloops = 1\n";
    let text = format!("[[task]]\nname = \"t\"\nprogram = \"run 1ms\"\n{w}{}", w.replace("hackbench\"", "hackbench\"\nname = \"hb2\""));
    let sc = parse(&text).unwrap();
    let e = expand_all(&sc, 2).unwrap_err();
    assert_eq!(e.key, "workload[1]", "{e}");
    assert!(e.msg.contains("262145 tasks"), "{e}");
}

/// schbench as it was before the April 2023 rewrite (masoncl/schbench
/// 8d075b3): run_msg_thread() wakes every worker on its list, fwait()s for
/// the next post and usleeps sleeptime + rand() % (sleeptime / 4); a
/// worker spins cputime, then msg_and_wait()s. Defaults: 16 workers per
/// message thread, 30 ms each way. The study varies workers: rows are
/// labelled by them.
#[test]
fn schbench_2019_spins_then_waits_for_a_sleeping_message_thread() {
    let e = expand1("[[workload]]\nkind = \"schbench\"\nversion = \"2019\"\nmessage_threads = 2\n", 96);
    assert_eq!(prog(&e, "schbench-m0"), "loop { reply; wait; sleep uniform(30ms, 37.5ms) }");
    assert_eq!(prog(&e, "schbench-m0-w"), "loop { run 30ms; call schbench-m0 }");
    assert_eq!(task(&e, "schbench-m1-w").count, 16);
    assert_eq!(e.measure.load, "2 mthreads");
    assert_eq!(e.measure.load_label(Some("workers")), "16 workers");
    let e = expand1("[[workload]]\nkind = \"schbench\"\nversion = \"2019\"\nsleeptime = \"0ns\"\ncputime = \"5ms\"\nworkers = \"25%\"\n", 96);
    assert_eq!(prog(&e, "schbench-m0"), "loop { reply; wait }");
    assert_eq!(prog(&e, "schbench-m0-w"), "loop { run 5ms; call schbench-m0 }");
    assert_eq!(task(&e, "schbench-m0-w").count, 24);
}

/// UnixBench pipe: a copy never blocks and wakes nobody, so each is a
/// hog that counts its loops.
#[test]
fn unixbench_pipe_copies_are_counting_hogs() {
    let e = expand1("[[workload]]\nkind = \"unixbench-pipe\"\ntasks = \"50%\"\njitter = 0\n", 96);
    assert_eq!(prog(&e, "unixbench-pipe"), "loop { run 2us }");
    assert_eq!(task(&e, "unixbench-pipe").count, 48);
    assert_eq!((e.measure.case.as_str(), e.measure.load.as_str()), ("pipe", "48 tasks"));
}

/// Issue 15: a cost at the duration limit (1 000 000 s) with 100 % jitter
/// would spread to uniform(0 s, 2 000 000 s), which no program may name.
/// The spread stops at the limit: lo = 1e15 − 1e15·1000/1000 = 0,
/// hi = min(2e15, 1e15) ns = 1 000 000 s.
#[test]
fn jittered_costs_stop_at_the_duration_limit() {
    let e = expand1("[[workload]]\nkind = \"schbench\"\nworkers = 1\nwork = \"1000000s\"\njitter = \"100%\"\n", 2);
    assert_eq!(prog(&e, "schbench-m0-w"), "loop { call schbench-m0; sleep 100us; run uniform(0s, 1000000s) }");
    // netperf-rr charges send + recv per side: 2 × 1 000 000 s is clamped
    // to 1 000 000 s, then ±10 %: uniform(900 000 s, 1 000 000 s).
    let e = expand1("[[workload]]\nkind = \"netperf-rr\"\nthreads = 1\nsend_cost = \"1000000s\"\nrecv_cost = \"1000000s\"\njitter = \"10%\"\n", 2);
    assert_eq!(prog(&e, "netperf-rr-c0"), "loop { run uniform(900000s, 1000000s); send netperf-rr-0-req; recv netperf-rr-0-resp }");
}

#[test]
fn stress_ng_real_time_signals_queue() {
    // sigrt: per instance 31 children (SIGRTMIN..SIGRTMAX), each with its
    // own queue; the parent sigqueue()s to each in turn and never blocks.
    let e = expand1("[[workload]]\nkind = \"stress-sigrt\"\ninstances = 2\n", 8);
    assert_eq!(e.tasks.len(), 2 * 32);
    assert_eq!(e.channels.len(), 2 * 31);
    let parent = prog(&e, "stress-sigrt-1");
    assert!(parent.starts_with("loop { run 1.5us; send stress-sigrt-1-q0; run 1.5us; send stress-sigrt-1-q1; "), "{parent}");
    assert!(parent.ends_with("run 1.5us; send stress-sigrt-1-q30 }"), "{parent}");
    assert_eq!(prog(&e, "stress-sigrt-1-c30"), "loop { recv stress-sigrt-1-q30; run 2.6us }");
    // Its bogo ops are the parent's calls: 31 per loop.
    assert_eq!(e.measure.workers, ["stress-sigrt-0", "stress-sigrt-1"]);
    assert_eq!(e.measure.ops_per_loop, 31);
    // sigfd: the child sends, the parent reads and counts.
    let f = expand1("[[workload]]\nkind = \"stress-sigfd\"\ninstances = 2\n", 8);
    assert_eq!(prog(&f, "stress-sigfd-1-c"), "loop { run 1.5us; send stress-sigfd-1-q }");
    assert_eq!(prog(&f, "stress-sigfd-1"), "loop { recv stress-sigfd-1-q; run 650ns }");
    assert_eq!((f.measure.workers.len(), f.measure.ops_per_loop), (2, 1));
    // Every queue is a signal queue: no WF_SYNC, RLIMIT_SIGPENDING deep.
    for c in e.channels.iter().chain(&f.channels) {
        assert!(!c.sync && c.capacity == SIGPENDING, "{c:?}");
    }
}

/// sigrt's ops are its parents' sigqueue() calls, 31 to a loop: as many as
/// its queues received messages, short of the loops still under way. And
/// the model's queues never fill: at seed 003's heaviest load (16
/// instances on the i7-4790) in both configurations, the signals queued at
/// once (sampled every 50 µs: at most 21 k and 22 k) stay below
/// RLIMIT_SIGPENDING, so sigqueue()'s EAGAIN, which the model does not
/// have (a full channel blocks its sender), never happens; no one queue
/// comes near it either.
#[test]
fn sigrt_counts_every_sigqueue_and_its_queues_never_fill() {
    let text = "[sim]\nkernel = \"6.6\"\nduration = \"250ms\"\n[topology]\npreset = \"i7-4790\"\n\
        [[workload]]\nkind = \"stress-sigrt\"\ninstances = 16\n";
    for config in ["6.6", "6.6+no-same-prio-preempt"] {
        let spec = crate::lab::compare::ConfigSpec::parse(config).unwrap();
        let (mut sim, _) = crate::from_text(text, &spec.overrides(None), crate::LogMode::HashOnly).unwrap();
        let mut queued_at_once = 0;
        for t in (50_000..=250_000_000).step_by(50_000) {
            sim.run_until(t);
            queued_at_once = queued_at_once.max(sim.sched().chans.iter().map(|c| c.count).sum::<u64>());
        }
        sim.run();
        let ops = sim.results(config).workloads[0].ops;
        let sent: u64 = sim.sched().chans.iter().map(|c| c.sent).sum();
        assert!(ops <= sent && sent < ops + 16 * 31, "{config}: {ops} ops, {sent} sent");
        assert!(queued_at_once > 1_000 && queued_at_once < SIGPENDING / 2, "{config}: {queued_at_once}");
        assert!(sim.sched().chans.iter().all(|c| c.peak < SIGPENDING / 64), "{config}");
    }
}
