//! Engine throughput: simulated scheduler events per wall-clock second.
//!
//! `cargo bench -p schedlab-engine --bench engine` (criterion), the same
//! workloads as scripts/bench (engine/examples/throughput.rs). `one_cpu`:
//! one CPU with N tasks that run and sleep in short bursts (mostly
//! runnable: each sleeps a quarter as long as it runs), so every event is a
//! wakeup, a block, a tick or a preemption with a pick; reported per
//! event. `machines`: the peer workload and hackbench, per context switch.

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use schedlab_engine::{from_text, LogMode, Overrides, Simulation};

/// A simulation of `text`, for `duration` ns if given.
fn sim(text: &str, duration: Option<u64>, mode: LogMode) -> Simulation {
    let ov = Overrides { duration, ..Default::default() };
    from_text(text, &ov, mode).unwrap().0
}

fn events(text: &str, duration: Option<u64>) -> u64 {
    let mut s = sim(text, duration, LogMode::HashOnly);
    s.run();
    s.state.events
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("one_cpu");
    g.sample_size(10);
    for tasks in [2u32, 16, 256, 4096] {
        let text = throughput::one_cpu(tasks, 10_000);
        // Simulate long enough for ~300k events (building the simulation
        // is not measured).
        let per_sec = events(&text, Some(1_000_000_000));
        let duration = Some(300_000 * 1_000_000_000 / per_sec);
        let n = events(&text, duration);
        g.throughput(Throughput::Elements(n));
        for (label, mode) in [("log", LogMode::Full), ("hash", LogMode::HashOnly)] {
            g.bench_with_input(BenchmarkId::new(label, tasks), &text, |b, text| {
                b.iter_batched(|| sim(text, duration, mode), |mut s| s.run(), BatchSize::LargeInput)
            });
        }
    }
    g.finish();
}

/// The scenarios of the throughput harness (one source for both).
#[allow(dead_code)]
#[path = "../examples/throughput.rs"]
mod throughput;

/// Whole machines, per context switch: the peer workload of the
/// scx_simulator comparison (half hogs, half run 0.5 ms / sleep 4.5 ms,
/// HZ 250; 4 CPUs / 32 tasks, 64 / 1024, 256 / 8192) for 1 simulated
/// second (scripts/bench runs 10), hash-only and `LogMode::Schedule`; and
/// hackbench, 4 groups, process-pipe on xeon-8260-2s, 20 ms. The full
/// model: placement scans, balancing, PELT, idle states.
fn machines(c: &mut Criterion) {
    let mut cases: Vec<(String, String)> = throughput::PEER.iter().map(|&(cpus, tasks)| (format!("peer-{cpus}cpu-{tasks}"), throughput::peer(cpus, tasks, 1))).collect();
    cases.push(("hackbench-4g-xeon-8260-2s".into(), throughput::hackbench(4, 20)));
    let mut g = c.benchmark_group("machines");
    g.sample_size(10);
    for (name, text) in cases {
        let mut s = sim(&text, None, LogMode::Schedule);
        s.run();
        let switches: u64 = s.sched().rqs.iter().map(|rq| rq.nr_switches).sum();
        g.throughput(Throughput::Elements(switches));
        for (label, mode) in [("hash", LogMode::HashOnly), ("schedule", LogMode::Schedule)] {
            g.bench_with_input(BenchmarkId::new(label, &name), &text, |b, text| {
                b.iter_batched(|| sim(text, None, mode), |mut s| s.run(), BatchSize::LargeInput)
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench, machines);
criterion_main!(benches);
