//! How long a wake-up onto an idle CPU of this machine takes, measured for
//! a machine-wide validation's report: the cost the model's idle states
//! (`costs.idle_exit`) stand for.
//!
//! Why measured: the model knows the idle states of its preset machines
//! (intel_idle's tables), not this one's. A guest's idle vCPU halts (HLT
//! exits to the hypervisor; with `haltpoll.guest_halt_poll_ns=0`, as this
//! VM boots, it never polls first), and waking it takes an IPI, the host
//! waking the vCPU's thread and a VM entry: tens of µs, where the 1 µs
//! exit latency cpuidle-haltpoll reports for its state stands for none of
//! that. On bare metal the same probe measures the C-state exit and the
//! IPI. The host also halt-polls a vCPU that halted (KVM's
//! halt_poll_ns, 200 µs by default) before it puts its thread to sleep,
//! so a wake-up after a short idle period is cheaper than after a long
//! one: the probe measures both.
//!
//! The probe: a thread pinned to the wakee CPU blocks in a futex; the
//! controller, pinned to another CPU, spins for the idle period (the
//! wakee's CPU idles meanwhile), reads CLOCK_MONOTONIC, sets the word and calls FUTEX_WAKE; the
//! woken thread reads the clock as soon as it runs. The median over the
//! samples is what a wake-up costs. It includes the futex system call on both
//! sides and the switch from idle (about a µs together), which the model
//! charges apart — an overestimate of that much.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use super::sys;

/// Wake-ups measured per idle length.
pub const SAMPLES: usize = 100;
/// Idle periods before a wake-up: within the host's halt-polling window,
/// and well past it.
pub const SHORT_IDLE: Duration = Duration::from_micros(30);
pub const LONG_IDLE: Duration = Duration::from_millis(2);

/// The wake-to-run latencies, sorted, and their median.
#[derive(Clone, Debug, PartialEq)]
pub struct IdleWake {
    pub samples_ns: Vec<u64>,
    pub median_ns: u64,
}

impl IdleWake {
    fn of(mut samples_ns: Vec<u64>) -> Option<IdleWake> {
        samples_ns.sort_unstable();
        let median_ns = *samples_ns.get(samples_ns.len() / 2)?;
        Some(IdleWake { samples_ns, median_ns })
    }

    /// The sample at quantile `q` (0..=1).
    pub fn quantile(&self, q: f64) -> u64 {
        let i = ((self.samples_ns.len() - 1) as f64 * q).round() as usize;
        self.samples_ns[i]
    }
}

/// The woken thread's side: waits for the word to become 1, records when
/// it ran, clears the word; 2 ends it.
fn wakee(cpu: u32, word: &AtomicU32, ran_at: &AtomicU64) -> Result<(), String> {
    sys::set_affinity(0, &[cpu]).map_err(|e| format!("pin the probe to CPU {cpu}: {e}"))?;
    loop {
        sys::futex_wait_until(word, 0, None);
        let now = sys::monotonic_ns();
        match word.swap(0, Ordering::AcqRel) {
            2 => return Ok(()),
            1 => ran_at.store(now, Ordering::Release),
            _ => {}
        }
    }
}

/// Measures wake-ups from `waker` onto the `wakee` CPU after it idled for
/// `idle`. The calling thread runs on `waker` meanwhile; its affinity is
/// restored after.
pub fn measure(waker: u32, wakee_cpu: u32, idle: Duration) -> Result<IdleWake, String> {
    let old = sys::get_affinity(0).map_err(|e| format!("sched_getaffinity: {e}"))?;
    sys::set_affinity(0, &[waker]).map_err(|e| format!("pin the prober to CPU {waker}: {e}"))?;
    let (word, ran_at) = (Arc::new(AtomicU32::new(0)), Arc::new(AtomicU64::new(0)));
    let (w, r) = (word.clone(), ran_at.clone());
    let thread = std::thread::Builder::new().name("idle-probe".into()).spawn(move || wakee(wakee_cpu, &w, &r));
    let samples = thread.as_ref().map_err(|e| e.to_string()).and_then(|_| probe(&word, &ran_at, idle));
    word.store(2, Ordering::Release);
    sys::futex_wake(&word, 1);
    let joined = thread.map_err(|e| format!("cannot start the probe thread: {e}")).and_then(|h| h.join().map_err(|_| "the probe thread panicked".to_string()));
    let _ = sys::set_affinity(0, &old);
    joined??;
    IdleWake::of(samples?).ok_or_else(|| "no wake-up measured".into())
}

fn probe(word: &AtomicU32, ran_at: &AtomicU64, idle: Duration) -> Result<Vec<u64>, String> {
    let mut out = Vec::with_capacity(SAMPLES);
    while out.len() < SAMPLES {
        let wake_at = sys::monotonic_ns() + idle.as_nanos() as u64;
        while sys::monotonic_ns() < wake_at {
            std::hint::spin_loop();
        }
        ran_at.store(0, Ordering::Release);
        let t0 = sys::monotonic_ns();
        word.store(1, Ordering::Release);
        sys::futex_wake(word, 1);
        let give_up = t0 + 100_000_000;
        let ran = loop {
            match ran_at.load(Ordering::Acquire) {
                0 if sys::monotonic_ns() > give_up => return Err("the probe thread did not run within 100 ms of its wake-up".into()),
                0 => std::hint::spin_loop(),
                t => break t,
            }
        };
        out.push(ran.saturating_sub(t0));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_quantiles_of_the_samples() {
        let w = IdleWake::of(vec![30, 10, 20, 50, 40]).unwrap();
        assert_eq!((w.median_ns, w.quantile(0.0), w.quantile(1.0)), (30, 10, 50));
        assert!(IdleWake::of(Vec::new()).is_none());
    }

    /// The probe measures a wake-up from one CPU onto another (this
    /// machine and CI's have two): positive, and under the 100 ms it gives
    /// up at.
    #[test]
    fn a_wake_up_onto_another_cpu_is_measured() {
        let cpus = sys::get_affinity(0).unwrap();
        let [a, b, ..] = cpus[..] else { panic!("the probe needs two CPUs; this process may use {cpus:?}") };
        let w = measure(a, b, SHORT_IDLE).unwrap();
        assert_eq!(w.samples_ns.len(), SAMPLES);
        assert!(w.median_ns > 0 && w.median_ns < 100_000_000, "{w:?}");
        assert_eq!(sys::get_affinity(0).unwrap(), cpus, "affinity restored");
    }
}
