//! The menu cpuidle governor (drivers/cpuidle/governors/menu.c), which
//! picks the idle state a CPU enters from a *prediction* of how long it
//! will stay idle, and whether the idle CPU keeps its tick.
//!
//! Two inputs make the prediction: the time until the next timer armed on
//! the CPU, scaled by a correction factor learnt per order of magnitude
//! (`correction_factor[bucket]`), and the CPU's last 8 idle intervals when
//! they repeat (`get_typical_interval()`). The versions differ in order
//! and outlier trimming, each behind a flag (`Feature::MENU_TYPICAL_FIRST`,
//! v6.7; `Feature::MENU_TWO_SIDED_OUTLIERS`, in v6.18 and not in v6.12).
//!
//! What the model leaves out: I/O waiters (the model has no I/O, so
//! v5.15–v6.12's `nr_iowaiters` is 0: their second row of buckets is never
//! used and `performance_multiplier()` is 1, so `interactivity_req` is the
//! prediction itself), PM QoS latency limits (none), and timer-wheel
//! timers (the model's timers are hrtimers: timed sleeps, futex timeouts
//! and the watchdog's).

use crate::kernel::sched::topology::IdleState;

const BUCKETS: usize = 6;
const INTERVALS: usize = 8;
const INTERVAL_SHIFT: u32 = 3;
const RESOLUTION: u64 = 1024;
const DECAY: u64 = 8;
const NSEC_PER_USEC: u64 = 1_000;
const MAX_INTERESTING: u64 = 50_000 * NSEC_PER_USEC;
/// drivers/cpuidle/governors/gov.h (v6.7+).
const RESIDENCY_THRESHOLD_NS: u64 = 15 * NSEC_PER_USEC;
/// `KTIME_MAX`: no timer looked at.
const KTIME_MAX: u64 = i64::MAX as u64;
/// include/linux/cpuidle.h: bounds of the polling state's time limit.
const CPUIDLE_POLL_MIN: u64 = 10_000;

/// `struct menu_device`, one per CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Menu {
    needs_update: bool,
    tick_wakeup: bool,
    next_timer_ns: u64,
    bucket: usize,
    correction_factor: [u32; BUCKETS],
    intervals: [u32; INTERVALS],
    interval_ptr: usize,
    /// `dev->last_state_idx`, `dev->last_residency_ns`,
    /// `dev->poll_time_limit`: how the last idle period ended.
    last_idx: usize,
    last_residency_ns: u64,
    poll_time_limit: bool,
}

/// What the governor is told about the CPU when it selects.
#[derive(Clone, Copy, Debug)]
pub struct SelectInput {
    /// `tick_nohz_get_sleep_length()`: until the next timer, as if the
    /// tick were stopped.
    pub sleep_length: u64,
    /// Its `delta_next`: until the next event of the CPU's clockevent
    /// device, the tick included.
    pub delta_tick: u64,
    /// `tick_nohz_tick_stopped()`.
    pub tick_stopped: bool,
    pub tick_nsec: u64,
    /// `Feature::MENU_TYPICAL_FIRST`.
    pub typical_first: bool,
    /// `Feature::MENU_TWO_SIDED_OUTLIERS`.
    pub two_sided_outliers: bool,
}

impl Default for Menu {
    fn default() -> Menu {
        Menu::new()
    }
}

impl Menu {
    /// `menu_enable_device()`: unity correction factors, no history.
    pub fn new() -> Menu {
        Menu {
            needs_update: false,
            tick_wakeup: false,
            next_timer_ns: 0,
            bucket: 0,
            correction_factor: [(RESOLUTION * DECAY) as u32; BUCKETS],
            intervals: [0; INTERVALS],
            interval_ptr: 0,
            last_idx: 0,
            last_residency_ns: 0,
            poll_time_limit: false,
        }
    }

    /// The governor of a CPU that has been idle for a long time, woken
    /// only by a timer every `interval_ns` (≥ 50 ms): every interval that
    /// long, every correction factor unity.
    pub fn long_idle(interval_ns: u64) -> Menu {
        Menu { intervals: [(interval_ns / NSEC_PER_USEC) as u32; INTERVALS], ..Menu::new() }
    }

    /// A governor whose last 8 idle intervals were `intervals_us`.
    #[cfg(test)]
    pub fn with_intervals(intervals_us: [u32; INTERVALS]) -> Menu {
        Menu { intervals: intervals_us, ..Menu::new() }
    }

    /// `menu_reflect()` with what `cpuidle_enter_state()` measured: the
    /// state entered, how long from entry to the end of its exit, whether
    /// the tick woke it, whether a polling state gave up.
    pub fn reflect(&mut self, idx: usize, residency_ns: u64, tick_wakeup: bool, poll_time_limit: bool) {
        self.last_idx = idx;
        self.last_residency_ns = residency_ns;
        self.poll_time_limit = poll_time_limit;
        self.needs_update = true;
        self.tick_wakeup = tick_wakeup;
    }

    /// Mirrors `menu_select()` (v5.15–v6.6, and v6.7+ with
    /// `typical_first`): the state to enter, and whether to stop the tick.
    pub fn select(&mut self, states: &[IdleState], inp: &SelectInput) -> (usize, bool) {
        if self.needs_update {
            self.update(states, inp.tick_nsec);
            self.needs_update = false;
        }
        let mut delta_tick = inp.delta_tick;
        let mut predicted_ns;
        if inp.typical_first {
            predicted_ns = self.typical_interval(None, inp.two_sided_outliers) as u64 * NSEC_PER_USEC;
            if predicted_ns > RESIDENCY_THRESHOLD_NS {
                self.next_timer_ns = inp.sleep_length;
                self.bucket = which_bucket(self.next_timer_ns);
                let timer_us = self.timer_us();
                predicted_ns = predicted_ns.min(timer_us * NSEC_PER_USEC);
            } else {
                // No timer looked at: assume it is far and the tick half a
                // tick away.
                self.next_timer_ns = KTIME_MAX;
                delta_tick = inp.tick_nsec / 2;
                self.bucket = BUCKETS - 1;
            }
        } else {
            self.next_timer_ns = inp.sleep_length;
            self.bucket = which_bucket(self.next_timer_ns);
            predicted_ns = 0; // set below, after the early return
        }
        if states.len() <= 1 || self.next_timer_ns < states[1].target_residency_ns {
            // state[0] whatever happens: keep the tick if it polls.
            return (0, !states[0].polling);
        }
        if !inp.typical_first {
            let predicted_us = self.timer_us();
            let typical = self.typical_interval(Some(predicted_us.min(u32::MAX as u64) as u32), inp.two_sided_outliers);
            predicted_ns = predicted_us.min(typical as u64) * NSEC_PER_USEC;
        }
        if inp.tick_stopped && predicted_ns < inp.tick_nsec {
            // A shallow state could last long with the tick stopped: trust
            // the timer.
            predicted_ns = self.next_timer_ns;
        }
        // v5.15–v6.12 cap the exit latency at the prediction while the tick
        // runs (`interactivity_req`); v6.18 only at the PM QoS limit, which
        // the model does not have.
        let latency_req = if inp.two_sided_outliers || inp.tick_stopped { u64::MAX } else { predicted_ns };
        let mut idx = 0;
        for (i, s) in states.iter().enumerate() {
            if s.target_residency_ns <= predicted_ns {
                if s.exit_latency_ns > latency_req {
                    break;
                }
                idx = i;
                continue;
            }
            let exit_ok = if inp.two_sided_outliers { s.exit_latency_ns <= predicted_ns } else { s.exit_latency_ns <= latency_req };
            if states[idx].polling && s.target_residency_ns <= self.next_timer_ns && exit_ok {
                predicted_ns = s.target_residency_ns;
                idx = i;
                break;
            }
            if predicted_ns < inp.tick_nsec {
                break;
            }
            if !inp.tick_stopped {
                // Shallow so far: keep the tick and look again at it.
                predicted_ns = states[idx].target_residency_ns;
                break;
            }
            if states[idx].target_residency_ns < inp.tick_nsec && s.target_residency_ns <= delta_tick {
                idx = i;
            }
            return (idx, true);
        }
        let mut stop_tick = true;
        if (states[idx].polling || predicted_ns < inp.tick_nsec) && !inp.tick_stopped {
            stop_tick = false;
            // The tick stays: no state longer than the time until it.
            while idx > 0 && states[idx].target_residency_ns > delta_tick {
                idx -= 1;
            }
        }
        (idx, stop_tick)
    }

    /// The next timer scaled by its bucket's correction factor, in µs
    /// rounded to nearest (the timer is at most the watchdog's 4 s away,
    /// so the product fits in 64 bits, as the kernel computes it).
    fn timer_us(&self) -> u64 {
        let unit = RESOLUTION * DECAY * NSEC_PER_USEC;
        (unit / 2 + self.next_timer_ns * self.correction_factor[self.bucket] as u64) / unit
    }

    /// Mirrors `menu_update()`: learn from how the last idle period ended.
    fn update(&mut self, states: &[IdleState], tick_nsec: u64) {
        let target = &states[self.last_idx];
        let mut measured_ns = if self.tick_wakeup && self.next_timer_ns > tick_nsec {
            // The tick, kept after all, woke a CPU predicted to sleep
            // longer: count it as long, not forever.
            9 * MAX_INTERESTING / 10
        } else if target.polling && self.poll_time_limit {
            // Polling gave up: the timer would have woken it.
            self.next_timer_ns
        } else if self.last_residency_ns > 2 * target.exit_latency_ns {
            self.last_residency_ns - target.exit_latency_ns
        } else {
            self.last_residency_ns / 2
        };
        measured_ns = measured_ns.min(self.next_timer_ns);
        let mut new_factor = self.correction_factor[self.bucket] as u64;
        new_factor -= new_factor / DECAY;
        if self.next_timer_ns > 0 && measured_ns < MAX_INTERESTING {
            new_factor += RESOLUTION * measured_ns / self.next_timer_ns;
        } else {
            new_factor += RESOLUTION;
        }
        self.correction_factor[self.bucket] = new_factor as u32;
        // ktime_to_us(), stored in an unsigned int.
        self.intervals[self.interval_ptr] = (measured_ns / NSEC_PER_USEC) as u32;
        self.interval_ptr = (self.interval_ptr + 1) % INTERVALS;
    }

    /// Mirrors `get_typical_interval()`: the average of the last 8 idle
    /// intervals (µs) if they repeat, after discarding outliers down to 6 of
    /// them; `u32::MAX` if they do not. v5.15–v6.6 are given the timer's
    /// prediction (`predicted_us`) and give up when even the shortest
    /// interval is not below it; v5.15–v6.12 discard from the top only,
    /// v6.18 whichever end lies further from the average.
    fn typical_interval(&self, predicted_us: Option<u32>, two_sided_outliers: bool) -> u32 {
        let (mut min_thresh, mut max_thresh) = (-1i64, u32::MAX as i64);
        if !two_sided_outliers {
            max_thresh = i32::MAX as i64 + 1; // `value <= thresh`, thresh = INT_MAX
        }
        loop {
            let (mut max, mut min, mut divisor) = (0u64, u32::MAX as u64, 0u64);
            let (mut sum, mut sq) = (0u64, 0u64);
            for &v in &self.intervals {
                let v = v as i64;
                if v <= min_thresh || v >= max_thresh {
                    continue;
                }
                let v = v as u64;
                divisor += 1;
                sum += v;
                // u64 sums of squares, wrapping as the kernel's do for
                // intervals near UINT_MAX (over an hour idle).
                sq = sq.wrapping_add(v * v);
                max = max.max(v);
                min = min.min(v);
            }
            match predicted_us {
                // v5.15–v6.6: not worth computing if the timer predicts less.
                Some(p) if min >= p as u64 => return u32::MAX,
                // v6.7+: no history yet.
                None if max == 0 => return u32::MAX,
                _ => {}
            }
            let avg = if divisor == INTERVALS as u64 { sum >> INTERVAL_SHIFT } else { sum / divisor };
            let variance = if two_sided_outliers {
                // E[v²] − avg², as v6.18 computes it in one pass.
                let m = if divisor == INTERVALS as u64 { sq >> INTERVAL_SHIFT } else { sq / divisor };
                m.wrapping_sub(avg * avg)
            } else {
                let mut var = 0u64;
                for &v in &self.intervals {
                    if (v as i64) < max_thresh {
                        let d = v as i64 - avg as i64;
                        var = var.wrapping_add(d.wrapping_mul(d) as u64);
                    }
                }
                if divisor == INTERVALS as u64 { var >> INTERVAL_SHIFT } else { var / divisor }
            };
            // Repeating: stddev ≤ 20 µs, or the average above 6 stddev.
            if variance <= u64::MAX / 36 && ((avg * avg > variance * 36 && divisor * 4 >= INTERVALS as u64 * 3) || variance <= 400) {
                return avg as u32;
            }
            if divisor * 4 <= INTERVALS as u64 * 3 {
                return u32::MAX;
            }
            if !two_sided_outliers {
                max_thresh = max as i64; // thresh = max - 1, `value <= thresh`
            } else if avg - min > max - avg {
                min_thresh = min as i64;
            } else {
                max_thresh = max as i64;
            }
        }
    }
}

/// Mirrors `which_bucket()` (v6.12+; v5.15–v6.11 with no I/O waiters).
fn which_bucket(duration_ns: u64) -> usize {
    match duration_ns {
        d if d < 10 * NSEC_PER_USEC => 0,
        d if d < 100 * NSEC_PER_USEC => 1,
        d if d < 1_000 * NSEC_PER_USEC => 2,
        d if d < 10_000 * NSEC_PER_USEC => 3,
        d if d < 100_000 * NSEC_PER_USEC => 4,
        _ => 5,
    }
}

/// Mirrors `cpuidle_poll_time()` (v5.15–v6.18): how long the polling state
/// spins before the governor looks again: the first deeper state's target
/// residency of at least 10 µs, at most a sixteenth of a tick.
pub fn cpuidle_poll_time(states: &[IdleState], tick_nsec: u64) -> u64 {
    let max = tick_nsec / 16;
    states.iter().skip(1).map(|s| s.target_residency_ns).find(|&r| r >= CPUIDLE_POLL_MIN).map_or(max, |r| r.min(max))
}
