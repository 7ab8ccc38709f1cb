//! Programs that cannot advance time spin: they keep their CPU, are
//! charged for it as the kernel charges a task looping on system calls,
//! and are reported per task (issue 15).

// The same tests run in headless Chromium (`wasm-pack test engine`).
#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use crate::lab::build::{from_text, Overrides};
use crate::lab::sim::{LogMode, SPIN_LIMIT};
use crate::lab::trace::Record;

fn run(text: &str) -> crate::lab::sim::Simulation {
    let (mut sim, _) = from_text(text, &Overrides::default(), LogMode::Full).unwrap();
    sim.run();
    sim
}

/// `loop { yield }` alone on one CPU at HZ 250 for 100 ms. sched_yield()
/// picks the same task again, no switch, no cost: once the 1 us switch
/// into it is paid, its CPU runs SPIN_LIMIT statements at t = 1 us and it
/// spins until the tick at 4 ms, then again at every tick: at 1 us, 4, 8,
/// ..., 100 ms (the tick at the end of the duration still runs) = 26 spins. It runs the whole 100 ms: CPU time 100 ms, the
/// CPU 100 % busy, as a yield loop is in the kernel.
#[test]
fn a_lone_yield_loop_spins_and_is_charged() {
    let sim = run("[sim]\nduration = \"100ms\"\nhz = 250\n[[task]]\nname = \"y\"\nprogram = \"loop { yield }\"\n");
    let res = sim.results("6.18");
    assert_eq!(res.tasks[0].cpu_time_ns, 100_000_000);
    assert_eq!(res.cpus[0].busy_ns, 100_000_000);
    assert_eq!(res.tasks[0].spins, 26);
    let livelocks = sim.log.iter().filter(|e| matches!(e.record, Record::Livelock { .. })).count();
    assert_eq!(livelocks, 26);
    assert_eq!(res.warnings.len(), 1, "{:?}", res.warnings);
    assert!(res.warnings[0].contains("1 task(s)") && res.warnings[0].contains("(y; first y at 1000 ns)"), "{}", res.warnings[0]);
    // Between two spins the program ran exactly SPIN_LIMIT statements:
    // the yields of the log, a record each.
    let yields = sim.log.iter().filter(|e| matches!(e.record, Record::Yield { .. })).count();
    assert_eq!(yields, 26 * SPIN_LIMIT as usize);
}

/// A task sending to itself through a channel that never fills (capacity
/// 1024, one message in flight) never blocks: it spins like the yield loop
/// (HZ 1000, 10 ms: spins at 0, 1, ..., 10 ms = 11), is charged the whole
/// 10 ms, and a hog on the other CPU is not disturbed.
#[test]
fn send_recv_that_never_blocks_spins() {
    let sim = run(
        "[sim]\nduration = \"10ms\"\nhz = 1000\n[topology]\npreset = \"2cpu-vm\"\n\
         [[task]]\nname = \"echo\"\naffinity = \"0\"\nprogram = \"loop { send ch; recv ch }\"\n\
         [[task]]\nname = \"hog\"\naffinity = \"1\"\nprogram = \"run\"\n",
    );
    let res = sim.results("6.18");
    assert_eq!((res.tasks[0].cpu_time_ns, res.tasks[0].spins), (10_000_000, 11));
    assert_eq!((res.tasks[1].cpu_time_ns, res.tasks[1].spins), (10_000_000, 0));
}

/// A yield loop that has someone to yield to is not a spin: every yield
/// switches to the other task, and a context switch costs time (1 us by
/// default), so time advances and nothing is reported.
#[test]
fn a_yield_loop_with_company_does_not_spin() {
    let sim = run("[sim]\nduration = \"20ms\"\n[[task]]\nname = \"y\"\nprogram = \"loop { yield }\"\n[[task]]\nname = \"hog\"\nprogram = \"run\"\n");
    let res = sim.results("6.18");
    assert_eq!(res.tasks[0].spins + res.tasks[1].spins, 0);
    assert!(res.tasks[0].cpu_time_ns > 0 && res.tasks[1].cpu_time_ns > 0);
    assert!(res.warnings.is_empty(), "{:?}", res.warnings);
}

/// Loop bookkeeping alone (empty loops a billion times) reaches no
/// statement within STATEMENT_BUDGET instructions: a spin too, not an
/// exit — the task keeps running (HZ 1000, 10 ms: spins at 1 us, 1, ...,
/// 10 ms = 11) and is charged all of it.
#[test]
fn loop_bookkeeping_alone_spins() {
    let sim = run("[sim]\nduration = \"10ms\"\nhz = 1000\n[[task]]\nname = \"busy\"\nprogram = \"loop 1000000000 { loop 3 { } }; exit\"\n");
    let res = sim.results("6.18");
    assert_eq!((res.tasks[0].cpu_time_ns, res.tasks[0].spins), (10_000_000, 11));
    assert_eq!(sim.state.exited, 0);
}
