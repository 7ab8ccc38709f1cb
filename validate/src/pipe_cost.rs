//! What a pipe write() and read() cost on this machine, measured for the
//! report: the system calls behind a scenario's `send` and `recv`, which
//! the model charges only as the scenario's `costs.channel_op` (0 unless
//! given).
//!
//! Why measured: a real send is a write() and a receive a read(), and in a
//! guest every kernel entry is dearer than on bare metal (this VM: about
//! 1 µs each for 64 bytes). Left out of the model, those microseconds
//! change more than the CPU shares: a receiver that costs nothing per
//! message preempts its sender, reads the one message there is and blocks
//! again, where the kernel's receiver waits, finds a batch and runs past
//! its lag (README, "What differs").
//!
//! The probe: the calling thread, pinned to one of the run's CPUs, writes
//! one message into a pipe of its own and reads it back, `CALLS` times,
//! reading CLOCK_MONOTONIC around each call; the medians are the costs.
//! Neither call blocks or wakes anyone (the pipe is never full, and never
//! empty when read), so this is the call itself — entry, pipe lock, copy,
//! return — not the wake-up a send may also do (`costs.wakeup`).

use super::sys;
use std::os::fd::AsRawFd;

/// Write/read pairs timed.
pub const CALLS: usize = 2000;

/// Median nanoseconds of one write() and of one read() of the message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipeCost {
    pub write_ns: u64,
    pub read_ns: u64,
}

/// Measures `CALLS` write/read pairs of `message` bytes on `cpu`. The
/// calling thread's affinity is restored after.
pub fn measure(cpu: u32, message: usize) -> Result<PipeCost, String> {
    let old = sys::get_affinity(0).map_err(|e| format!("sched_getaffinity: {e}"))?;
    sys::set_affinity(0, &[cpu]).map_err(|e| format!("pin the pipe probe to CPU {cpu}: {e}"))?;
    let timed = time_calls(message);
    let _ = sys::set_affinity(0, &old);
    let (mut writes, mut reads) = timed?;
    Ok(PipeCost { write_ns: median(&mut writes), read_ns: median(&mut reads) })
}

fn time_calls(message: usize) -> Result<(Vec<u64>, Vec<u64>), String> {
    let (rx, tx) = sys::pipe().map_err(|e| format!("pipe2: {e}"))?;
    let mut buf = vec![0u8; message.max(1)];
    let (mut writes, mut reads) = (Vec::with_capacity(CALLS), Vec::with_capacity(CALLS));
    for _ in 0..CALLS {
        let t0 = sys::monotonic_ns();
        sys::write(tx.as_raw_fd(), &buf).map_err(|e| format!("write to the probe's pipe: {e}"))?;
        let t1 = sys::monotonic_ns();
        sys::read(rx.as_raw_fd(), &mut buf).map_err(|e| format!("read from the probe's pipe: {e}"))?;
        let t2 = sys::monotonic_ns();
        writes.push(t1 - t0);
        reads.push(t2 - t1);
    }
    Ok((writes, reads))
}

/// The median of `v` (sorted in place): the upper one of an even count.
pub(crate) fn median(v: &mut [u64]) -> u64 {
    v.sort_unstable();
    v[v.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64-byte write and read of one's own pipe: each a system call, so
    /// more than the ~20 ns of a vDSO clock read around it, and far under
    /// the 1 ms a call that blocked or was preempted away would show.
    #[test]
    fn a_pipe_write_and_read_are_timed_on_the_cpu_asked_for() {
        let cpus = sys::get_affinity(0).unwrap();
        let c = measure(cpus[0], 64).unwrap();
        assert!((50..1_000_000).contains(&c.write_ns) && (50..1_000_000).contains(&c.read_ns), "{c:?}");
        assert_eq!(sys::get_affinity(0).unwrap(), cpus, "affinity restored");
    }
}
