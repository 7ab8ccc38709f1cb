//! Engine throughput: simulated scheduler events per wall-clock second.
//!
//! `cargo bench -p schedlab-engine --bench engine` (criterion). One CPU with
//! N tasks that run and sleep in short bursts (mostly runnable: each sleeps
//! a quarter as long as it runs), so every event is a wakeup, a block, a
//! tick or a preemption with a pick. Reported per event; the README gives
//! events/s.

use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use schedlab_engine::{from_text, LogMode, Overrides, Simulation};

fn scenario(tasks: u32) -> String {
    format!(
        "[sim]\nduration = \"10s\"\nhz = 1000\n[[task]]\nname = \"w\"\ncount = {tasks}\n\
         program = \"loop {{ run exp(200us); sleep exp(50us) }}\"\n"
    )
}

fn sim(text: &str, duration: u64, mode: LogMode) -> Simulation {
    let ov = Overrides { duration: Some(duration), ..Default::default() };
    from_text(text, &ov, mode).unwrap().0
}

fn events(text: &str, duration: u64) -> u64 {
    let mut s = sim(text, duration, LogMode::HashOnly);
    s.run();
    s.state.events
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("one_cpu");
    g.sample_size(10);
    for tasks in [2u32, 16, 256, 4096] {
        let text = scenario(tasks);
        // Simulate long enough for ~300k events (building the simulation
        // is not measured).
        let per_sec = events(&text, 1_000_000_000);
        let duration = 300_000 * 1_000_000_000 / per_sec;
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

/// Whole machines: hackbench on the seed machines (8 groups = 320 tasks
/// on xeon-8260-2s; 4 groups on spr-2s-224) and the peer-comparison
/// machines (64 CPUs / 1024 tasks, 256 CPUs / 8192 tasks, run 100 us /
/// sleep 400 us), with the full model: placement scans, balancing, PELT,
/// idle states.
fn machines(c: &mut Criterion) {
    let hackbench = |preset: &str, groups: u32| {
        format!("[sim]\nduration = \"1s\"\n[topology]\npreset = \"{preset}\"\n[[workload]]\nkind = \"hackbench\"\ngroups = {groups}\nipc = \"pipe\"\nloops = 100000\n")
    };
    let peer = |llcs: u32, tasks: u32| {
        format!(
            "[sim]\nduration = \"1s\"\n[topology]\nsockets = 2\nllcs_per_socket = {llcs}\ncores_per_llc = 16\nthreads_per_core = 2\n\
             [[task]]\nname = \"w\"\ncount = {tasks}\nprogram = \"loop {{ run exp(100us); sleep exp(400us) }}\"\n"
        )
    };
    let cases = [
        ("hackbench-xeon-8260-2s-320", hackbench("xeon-8260-2s", 8)),
        ("hackbench-spr-2s-224-160", hackbench("spr-2s-224", 4)),
        ("peer-64cpu-1024", peer(1, 1024)),
        ("peer-256cpu-8192", peer(4, 8192)),
    ];
    let mut g = c.benchmark_group("machines");
    g.sample_size(10);
    for (name, text) in cases {
        let per_sec = events(&text, 20_000_000) * 50;
        let duration = 300_000 * 1_000_000_000 / per_sec.max(1);
        let n = events(&text, duration);
        g.throughput(Throughput::Elements(n));
        for (label, mode) in [("log", LogMode::Full), ("hash", LogMode::HashOnly)] {
            g.bench_with_input(BenchmarkId::new(label, name), &text, |b, text| {
                b.iter_batched(|| sim(text, duration, mode), |mut s| s.run(), BatchSize::LargeInput)
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench, machines);
criterion_main!(benches);
