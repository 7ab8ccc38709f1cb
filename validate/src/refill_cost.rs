//! What a move to another CPU of the same LLC costs the task that moved,
//! measured for the report: the model charges it as `costs.migration_llc`
//! (README, "Scenario format": costs).
//!
//! Why measured: a task that moves finds its lines in the old CPU's L1 and
//! L2 and fetches them again from the shared L3. For the benchmarks' small
//! loops that is a fraction of a microsecond, far from the cold restart of
//! a move across LLCs (`costs.migration`); which of the two a model
//! charges decides whether tasks that keep changing CPUs are cheap or
//! ruinous, and so which steady state a loaded machine settles in.
//!
//! The probe: the calling thread runs units of work like a benchmark's
//! loop — a `MESSAGE`-byte pipe write and read back, then a pass over
//! `DATA` bytes of its own — and after every `SETTLE` units either pins
//! itself again to the CPU it is on (the same sched_setaffinity() call,
//! no move) or moves to the other CPU, and times the next unit with
//! CLOCK_MONOTONIC. The median moved unit less the median unmoved one is
//! the refill.

use super::pipe_cost::median;
use super::sys;
use std::os::fd::AsRawFd;

/// Moves timed (and as many units timed without a move).
pub const MOVES: usize = 2000;
/// Units run between two timed ones, so each starts from a warm cache.
const SETTLE: usize = 20;
/// The pipe message of each unit, hackbench's default size.
pub const MESSAGE: usize = 100;
/// The task's own data touched each unit.
pub const DATA: usize = 16 * 1024;

/// Median nanoseconds a unit takes more right after a move from `a` to
/// `b` (or back) than right after a call that did not move. The calling
/// thread's affinity is restored after.
pub fn measure(a: u32, b: u32) -> Result<u64, String> {
    if a == b {
        return Err(format!("a move needs two CPUs, not CPU {a} twice"));
    }
    let old = sys::get_affinity(0).map_err(|e| format!("sched_getaffinity: {e}"))?;
    let timed = time_units(a, b);
    let _ = sys::set_affinity(0, &old);
    let (mut stayed, mut moved) = timed?;
    Ok(median(&mut moved).saturating_sub(median(&mut stayed)))
}

fn time_units(a: u32, b: u32) -> Result<(Vec<u64>, Vec<u64>), String> {
    let (rx, tx) = sys::pipe().map_err(|e| format!("pipe2: {e}"))?;
    let mut msg = [1u8; MESSAGE];
    let mut data = vec![0u8; DATA];
    let mut unit = || -> Result<(), String> {
        sys::write(tx.as_raw_fd(), &msg).map_err(|e| format!("write to the probe's pipe: {e}"))?;
        sys::read(rx.as_raw_fd(), &mut msg).map_err(|e| format!("read from the probe's pipe: {e}"))?;
        for line in data.iter_mut().step_by(64) {
            *line = line.wrapping_add(1);
        }
        std::hint::black_box(&data);
        Ok(())
    };
    let pin = |cpu: u32| sys::set_affinity(0, &[cpu]).map_err(|e| format!("pin the refill probe to CPU {cpu}: {e}"));
    let (mut stayed, mut moved) = (Vec::with_capacity(MOVES), Vec::with_capacity(MOVES));
    let mut cpu = a;
    pin(cpu)?;
    for _ in 0..MOVES {
        for (to, times) in [(cpu, &mut stayed), (if cpu == a { b } else { a }, &mut moved)] {
            for _ in 0..SETTLE {
                unit()?;
            }
            pin(to)?;
            cpu = to;
            let t0 = sys::monotonic_ns();
            unit()?;
            times.push(sys::monotonic_ns() - t0);
        }
    }
    Ok((stayed, moved))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Between two CPUs this process may use the refill is timed, and
    /// bounded far below the milliseconds a unit preempted away would
    /// show; the thread's affinity comes back. With one CPU there is no
    /// move to time, and the probe says so.
    #[test]
    fn a_move_between_two_cpus_is_timed_against_one_that_stays() {
        let cpus = sys::get_affinity(0).unwrap();
        let (a, b) = (cpus[0], cpus[cpus.len() - 1]);
        match measure(a, b) {
            Ok(ns) => assert!(a != b && ns < 100_000, "refill {ns} ns"),
            Err(e) => assert!(a == b && e.contains("two CPUs"), "{e}"),
        }
        assert_eq!(sys::get_affinity(0).unwrap(), cpus, "affinity restored");
    }
}
