//! Per-Entity Load Tracking (kernel/sched/pelt.c, sched-pelt.h, v6.18).
//!
//! Time is cut into 1024 µs periods (1024·1024 ns); a period's contribution
//! decays by y per period with y^32 = 1/2, so a signal half-decays in ~32 ms.
//! `*_sum` accumulate the geometric series, `*_avg = *_sum / divider` where
//! the divider is the series' maximum (LOAD_AVG_MAX − 1024 + the current
//! period's part). util_avg of an always-running task converges to 1024.

use serde::Serialize;

/// `LOAD_AVG_PERIOD`: periods for y^n to halve.
pub const LOAD_AVG_PERIOD: u64 = 32;
/// `LOAD_AVG_MAX`: Σ 1024·y^n, the sum of an always-running signal.
pub const LOAD_AVG_MAX: u64 = 47742;
/// `PELT_MIN_DIVIDER`.
pub const PELT_MIN_DIVIDER: u64 = LOAD_AVG_MAX - 1024;
/// `SCHED_CAPACITY_SHIFT`.
const CAP_SHIFT: u32 = 10;
/// `UTIL_AVG_UNCHANGED`: flag bit in util_est.
pub const UTIL_AVG_UNCHANGED: u32 = 1 << 31;
/// `UTIL_EST_WEIGHT_SHIFT`: new samples weigh 1/4.
const UTIL_EST_WEIGHT_SHIFT: u32 = 2;
/// `UTIL_EST_MARGIN`: 1 % of capacity.
const UTIL_EST_MARGIN: u32 = 1024 / 100;

/// `runnable_avg_yN_inv[]` (kernel/sched/sched-pelt.h): ⌊(2^32 − 1)·y^n⌋.
const RUNNABLE_AVG_YN_INV: [u32; 32] = [
    0xffffffff, 0xfa83b2da, 0xf5257d14, 0xefe4b99a, 0xeac0c6e6, 0xe5b906e6, 0xe0ccdeeb, 0xdbfbb796, 0xd744fcc9, 0xd2a81d91,
    0xce248c14, 0xc9b9bd85, 0xc5672a10, 0xc12c4cc9, 0xbd08a39e, 0xb8fbaf46, 0xb504f333, 0xb123f581, 0xad583ee9, 0xa9a15ab4,
    0xa5fed6a9, 0xa2704302, 0x9ef5325f, 0x9b8d39b9, 0x9837f050, 0x94f4efa8, 0x91c3d373, 0x8ea4398a, 0x8b95c1e3, 0x88980e80,
    0x85aac367, 0x82cd8698,
];

/// Mirrors `struct sched_avg` (include/linux/sched.h).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SchedAvg {
    pub last_update_time: u64,
    pub load_sum: u64,
    pub runnable_sum: u64,
    pub util_sum: u64,
    pub period_contrib: u32,
    pub load_avg: u64,
    pub runnable_avg: u64,
    pub util_avg: u64,
    /// Task: EWMA of util at dequeue (+ UNCHANGED flag); cfs_rq: Σ of the
    /// enqueued tasks' estimates.
    pub util_est: u32,
}

/// Mirrors `decay_load()` (pelt.c): val·y^n.
pub fn decay_load(val: u64, n: u64) -> u64 {
    if n > LOAD_AVG_PERIOD * 63 {
        return 0;
    }
    let mut val = val;
    let mut local_n = n;
    if local_n >= LOAD_AVG_PERIOD {
        val >>= local_n / LOAD_AVG_PERIOD;
        local_n %= LOAD_AVG_PERIOD;
    }
    crate::kernel::lib::math64::mul_u64_u32_shr(val, RUNNABLE_AVG_YN_INV[local_n as usize], 32)
}

/// Mirrors `__accumulate_pelt_segments()` (pelt.c): d1 (the rest of the
/// first period) decayed p periods, the p−1 full periods in between, and d3
/// (the start of the current one).
fn accumulate_pelt_segments(periods: u64, d1: u32, d3: u32) -> u32 {
    let c1 = decay_load(d1 as u64, periods) as u32;
    let c2 = (LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, periods) - 1024) as u32;
    c1 + c2 + d3
}

impl SchedAvg {
    /// `get_pelt_divider()`.
    #[inline]
    pub fn divider(&self) -> u64 {
        PELT_MIN_DIVIDER + self.period_contrib as u64
    }

    /// Mirrors `accumulate_sum()` (pelt.c). Returns the periods crossed.
    fn accumulate_sum(&mut self, delta: u64, load: u64, runnable: u64, running: bool) -> u64 {
        let mut contrib = delta as u32;
        let delta = delta + self.period_contrib as u64;
        let periods = delta / 1024;
        let rest = delta % 1024;
        if periods > 0 {
            self.load_sum = decay_load(self.load_sum, periods);
            self.runnable_sum = decay_load(self.runnable_sum, periods);
            self.util_sum = decay_load(self.util_sum, periods);
            if load != 0 {
                contrib = accumulate_pelt_segments(periods, 1024 - self.period_contrib, rest as u32);
            }
            self.period_contrib = rest as u32;
        } else {
            self.period_contrib = delta as u32;
        }
        if load != 0 {
            self.load_sum += load * contrib as u64;
        }
        if runnable != 0 {
            self.runnable_sum += (runnable * contrib as u64) << CAP_SHIFT;
        }
        if running {
            self.util_sum += (contrib as u64) << CAP_SHIFT;
        }
        periods
    }

    /// Mirrors `___update_load_sum()` (pelt.c): accumulate whole µs (1024 ns
    /// units) since the last update. Returns true when a period boundary was
    /// crossed (the averages must be recomputed).
    pub fn update_sum(&mut self, now: u64, load: u64, runnable: u64, running: bool) -> bool {
        let delta = now.wrapping_sub(self.last_update_time);
        if (delta as i64) < 0 {
            // The kernel's clock never reads 0, and last_update_time == 0
            // means "not attached" (update_load_avg()'s DO_ATTACH test).
            // The model's starts at 0: an entity attached at time 0 (stamped
            // 1 by attach_entity_load_avg()) and updated again at time 0
            // would land on the sentinel, skip its own ageing and attach a
            // second time at its next enqueue.
            self.last_update_time = now.max(1);
            return false;
        }
        let delta = delta >> 10;
        if delta == 0 {
            return false;
        }
        self.last_update_time += delta << 10;
        let (runnable, running) = if load == 0 { (0, false) } else { (runnable, running) };
        self.accumulate_sum(delta, load, runnable, running) != 0
    }

    /// Mirrors `___update_load_avg()` (pelt.c).
    pub fn update_avg(&mut self, load: u64) {
        let divider = self.divider();
        self.load_avg = load * self.load_sum / divider;
        self.runnable_avg = self.runnable_sum / divider;
        self.util_avg = self.util_sum / divider;
    }

    /// Mirrors `cfs_se_util_change()` (pelt.h): util_avg moved, so the
    /// estimate may be updated at the next dequeue.
    pub fn util_changed(&mut self) {
        self.util_est &= !UTIL_AVG_UNCHANGED;
    }

    /// `_task_util_est()`.
    pub fn task_util_est(&self) -> u32 {
        self.util_est & !UTIL_AVG_UNCHANGED
    }

    /// Mirrors `util_est_update()` (fair.c, v6.18) at a task's sleep:
    /// `dequeued` is its util_avg, `runnable` its runnable_avg.
    pub fn util_est_update(&mut self) {
        let mut ewma = self.util_est;
        if ewma & UTIL_AVG_UNCHANGED != 0 {
            return;
        }
        let dequeued = self.util_avg as u32;
        let runnable = self.runnable_avg as u32;
        if ewma <= dequeued {
            ewma = dequeued;
        } else {
            let diff = ewma - dequeued;
            if diff >= UTIL_EST_MARGIN && dequeued + UTIL_EST_MARGIN >= runnable {
                ewma = ((ewma << UTIL_EST_WEIGHT_SHIFT) - diff) >> UTIL_EST_WEIGHT_SHIFT;
            }
        }
        self.util_est = ewma | UTIL_AVG_UNCHANGED;
    }
}

/// Removes a detached entity's averages from a queue's, clamping at zero
/// and keeping sum ≥ avg·min divider (`detach_entity_load_avg()`,
/// `update_cfs_rq_load_avg()`'s removed path).
pub fn subtract(cfs: &mut SchedAvg, load_avg: u64, load_sum: u64, util_avg: u64, util_sum: u64, runnable_avg: u64, runnable_sum: u64) {
    cfs.load_avg = cfs.load_avg.saturating_sub(load_avg);
    cfs.load_sum = cfs.load_sum.saturating_sub(load_sum).max(cfs.load_avg * PELT_MIN_DIVIDER);
    cfs.util_avg = cfs.util_avg.saturating_sub(util_avg);
    cfs.util_sum = cfs.util_sum.saturating_sub(util_sum).max(cfs.util_avg * PELT_MIN_DIVIDER);
    cfs.runnable_avg = cfs.runnable_avg.saturating_sub(runnable_avg);
    cfs.runnable_sum = cfs.runnable_sum.saturating_sub(runnable_sum).max(cfs.runnable_avg * PELT_MIN_DIVIDER);
}

#[cfg(test)]
mod tests {
    use super::*;

    const PERIOD_NS: u64 = 1024 * 1024;

    /// Drives one signal: running (load 1, runnable 1, running) for `on` ns,
    /// then off for `off` ns, `cycles` times, updating every `step` ns as a
    /// tick would; returns util_avg at the end of the last on-phase.
    fn drive(on: u64, off: u64, cycles: u64, step: u64) -> SchedAvg {
        let mut sa = SchedAvg { last_update_time: 0, ..Default::default() };
        let mut now = 0;
        for _ in 0..cycles {
            let end = now + on;
            while now < end {
                now = (now + step).min(end);
                if sa.update_sum(now, 1, 1, true) {
                    sa.update_avg(1024);
                }
            }
            let end = now + off;
            while now < end {
                now = (now + step).min(end);
                if sa.update_sum(now, 0, 0, false) {
                    sa.update_avg(1024);
                }
            }
        }
        sa
    }

    /// The table is ⌊(2^32−1)·y^n⌋ with y^32 = 1/2: decaying by 32 periods
    /// halves (a shift) and then multiplies by entry 0, 2^32 − 1, which takes
    /// one unit off: 2^20 → 2^19 − 1, exactly as the kernel computes it.
    #[test]
    fn half_life_is_32_periods() {
        assert_eq!(decay_load(1 << 20, 32), (1 << 19) - 1);
        assert_eq!(decay_load(1 << 20, 64), (1 << 18) - 1);
        assert_eq!(decay_load(1000, 0), 999);
        assert_eq!(decay_load(u64::MAX, 63 * 32 + 1), 0);
    }

    /// An always-running task converges to util_avg ≈ 1024 (the divider is
    /// the sum's maximum; truncation leaves it within a few units).
    #[test]
    fn always_running_converges_to_1024() {
        let sa = drive(2_000_000_000, 0, 1, 1_000_000);
        assert!((1010..=1024).contains(&sa.util_avg), "{}", sa.util_avg);
        assert!((1010..=1024).contains(&sa.load_avg), "{}", sa.load_avg);
    }

    /// Running 50 % in 4 ms cycles averages ≈ 512 (sampled at the end of a
    /// running phase it sits slightly above the mean).
    #[test]
    fn half_running_converges_to_512() {
        let sa = drive(2 * PERIOD_NS, 2 * PERIOD_NS, 500, 250_000);
        assert!((500..=560).contains(&sa.util_avg), "{}", sa.util_avg);
    }

    /// After 32 ms of idle a saturated signal has halved (y^32 = 1/2).
    #[test]
    fn idle_halves_in_32_periods() {
        let mut sa = drive(2_000_000_000, 0, 1, 1_000_000);
        let before = sa.util_avg;
        let now = sa.last_update_time + 32 * PERIOD_NS;
        sa.update_sum(now, 0, 0, false);
        sa.update_avg(1024);
        let half = before / 2;
        assert!(sa.util_avg.abs_diff(half) <= 16, "{} vs {}", sa.util_avg, half);
    }
}
