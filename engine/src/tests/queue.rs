//! The event queue stays bounded however long a run is.

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::lab::sim::LogMode;
use crate::{from_text, Overrides};

/// A hog and a periodic task on one CPU at HZ 250: the hog is switched
/// back in after every period of the other task (and at slice ends), each
/// time owing its switch cost.
const HOG_AND_PERIODIC: &str = "[sim]\nduration = \"600s\"\nhz = 250\n[[task]]\nname = \"hog\"\nprogram = \"run\"\n\
     [[task]]\nname = \"periodic\"\nprogram = \"loop { run 1ms; sleep 4ms }\"\n";

#[test]
fn the_event_queue_stays_bounded_over_a_long_hog_run() {
    let (mut sim, _) = from_text(HOG_AND_PERIODIC, &Overrides::default(), LogMode::HashOnly).unwrap();
    // What can be pending at once: per task one start or one sleep timer
    // (a task is either not started yet or sleeping, never both), per CPU
    // one burst end, one tick and one idle exit: 2 + 3 = 5 here.
    let bound = 2 + 3;
    let mut most = 0;
    let mut hog_switch_ins = 0;
    let mut curr = u32::MAX;
    while sim.step() {
        most = most.max(sim.state.pending_events());
        let now = sim.sched().rqs[0].curr;
        if now != curr && now == 0 {
            hog_switch_ins += 1;
        }
        curr = now;
    }
    // The hog is switched in once per 5 ms period: ~120 000 times. Each
    // switch-in used to leave a burst end armed at "never" in the queue.
    assert!(hog_switch_ins > 100_000, "{hog_switch_ins}");
    assert!(most <= bound, "{most} events pending at once, more than {bound}");
}

#[test]
fn hash_only_memory_is_flat_in_simulated_time() {
    let run = |secs: u64| {
        let ov = Overrides { duration: Some(secs * 1_000_000_000), ..Default::default() };
        let (mut sim, _) = from_text(HOG_AND_PERIODIC, &ov, LogMode::HashOnly).unwrap();
        let capacity = sim.state.queue_capacity();
        sim.run();
        assert!(sim.log.records.is_empty() && sim.log.marks.is_empty() && sim.log.paths.is_empty());
        (capacity, sim.state.queue_capacity(), sim.sched().records.capacity(), sim.sched().paths.capacity())
    };
    // The queue's heap is sized for the bound above (tasks + CPUs + 16)
    // when the run is built and never grows; the per-event record buffers
    // keep their capacity. 10 s and 600 s need the same memory.
    let (built, short, short_rec, short_paths) = run(10);
    let (_, long, long_rec, long_paths) = run(600);
    assert_eq!((short, long), (built, built));
    assert_eq!((long_rec, long_paths), (short_rec, short_paths));
}
