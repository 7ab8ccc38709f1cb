//! Waking an idle CPU costs its idle state's exit latency.

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::lab::sim::LogMode;
use crate::lab::trace::Record;
use crate::{from_text, Overrides};

/// The wakeup latencies (ns) of a task on the i7-4790 that sleeps `sleep`
/// between short runs, alone on the machine.
fn latencies(sleep: &str, costs: &str) -> Vec<u64> {
    let text = format!(
        "[sim]\nduration = \"20ms\"\n{costs}\n[topology]\npreset = \"i7-4790\"\n[[task]]\nname = \"t\"\naffinity = \"2\"\nprogram = \"loop 3 {{ sleep {sleep}; run 100us }}\"\n"
    );
    let (mut sim, _) = from_text(&text, &Overrides::default(), LogMode::Full).unwrap();
    sim.run();
    sim.log.iter().filter_map(|e| match e.record { Record::IdleExit { latency, .. } => Some(latency), _ => None }).collect()
}

#[test]
fn the_idle_period_picks_the_state_and_its_exit_latency() {
    // hsw_cstates: C1 2us/2us, C1E 10us/20us, C3 33us/100us, C6 133us/400us,
    // C7s 166us/500us (exit latency / target residency). CPU 2 idles for
    // the whole sleep each time; the first start finds it idle since 0 ns
    // (no state, no latency).
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
fn the_exit_latency_is_part_of_the_wakeup_latency() {
    let text = "[sim]\nduration = \"20ms\"\n[topology]\npreset = \"i7-4790\"\n[[task]]\nname = \"t\"\naffinity = \"2\"\nprogram = \"loop 3 { sleep 1ms; run 100us }\"\n";
    let (mut sim, _) = from_text(text, &Overrides::default(), LogMode::HashOnly).unwrap();
    sim.run();
    let st = &sim.sched().tasks[0].stats;
    assert_eq!((st.wakeup_latency.count, st.wakeup_latency.max), (3, 166_000));
}
