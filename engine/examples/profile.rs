//! Runs a scenario with the full event log and prints events/s: a target for
//! profilers (`valgrind --tool=callgrind`, `perf record`).
//!
//! `cargo run --release -p schedlab-engine --example profile -- SCENARIO [hash|schedule]`

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: profile SCENARIO [hash|schedule]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mode = match args.get(2).map(String::as_str) {
        Some("hash") => schedlab_engine::LogMode::HashOnly,
        Some("schedule") => schedlab_engine::LogMode::Schedule,
        _ => schedlab_engine::LogMode::Full,
    };
    let (mut sim, _) = schedlab_engine::from_text(&text, &Default::default(), mode).unwrap_or_else(|e| panic!("{e}"));
    let t = std::time::Instant::now();
    sim.run();
    let dt = t.elapsed().as_secs_f64();
    let switches: u64 = sim.sched().rqs.iter().map(|rq| rq.nr_switches).sum();
    println!(
        "{} events, {} switches, {} records in {:.3} s: {:.2} M events/s, {:.0} k switches/s",
        sim.state.events,
        switches,
        sim.log.count,
        dt,
        sim.state.events as f64 / dt / 1e6,
        switches as f64 / dt / 1e3
    );
}
