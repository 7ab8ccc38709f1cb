//! Load weights and the kernel's fixed-point arithmetic on them.
//!
//! Everything here is integer arithmetic in the kernel's units: weights are
//! `scale_load()`d (64-bit kernels keep 10 extra bits of resolution), times are
//! u64 nanoseconds, and `calc_delta_fair()` divides by multiplying with a
//! precomputed 2^32/weight inverse, exactly as kernel/sched/fair.c does, so a
//! vruntime here is bit-for-bit the vruntime a 64-bit kernel computes.

/// `SCHED_FIXEDPOINT_SHIFT` (include/linux/sched.h).
pub const SCHED_FIXEDPOINT_SHIFT: u32 = 10;
/// `NICE_0_LOAD_SHIFT` on 64-bit kernels (kernel/sched/sched.h).
pub const NICE_0_LOAD_SHIFT: u32 = 2 * SCHED_FIXEDPOINT_SHIFT;
/// `NICE_0_LOAD` = `scale_load(1024)`.
pub const NICE_0_LOAD: u64 = 1 << NICE_0_LOAD_SHIFT;
/// `WMULT_SHIFT` (fair.c): inverse weights are 2^32 / weight.
pub const WMULT_SHIFT: u32 = 32;
/// `WMULT_CONST` (fair.c).
pub const WMULT_CONST: u64 = !0u32 as u64;
/// `WEIGHT_IDLEPRIO` (kernel/sched/sched.h): SCHED_IDLE tasks weigh 3.
pub const WEIGHT_IDLEPRIO: u64 = 3;
/// `WMULT_IDLEPRIO` (kernel/sched/sched.h).
pub const WMULT_IDLEPRIO: u32 = 1_431_655_765;
/// `MIN_SHARES` / `MAX_SHARES` (kernel/sched/sched.h), unscaled.
pub const MIN_SHARES: u64 = 2;
pub const MAX_SHARES: u64 = 1 << 18;

/// `sched_prio_to_weight[]` (kernel/sched/core.c, unchanged 2.6.23 – 6.19),
/// indexed by nice + 20. Each nice level is ~1.25× the next: one nice step
/// moves ~10 % of CPU between two competing tasks.
pub const SCHED_PRIO_TO_WEIGHT: [u32; 40] = [
    /* -20 */ 88761, 71755, 56483, 46273, 36291, //
    /* -15 */ 29154, 23254, 18705, 14949, 11916, //
    /* -10 */ 9548, 7620, 6100, 4904, 3906, //
    /*  -5 */ 3121, 2501, 1991, 1586, 1277, //
    /*   0 */ 1024, 820, 655, 526, 423, //
    /*   5 */ 335, 272, 215, 172, 137, //
    /*  10 */ 110, 87, 70, 56, 45, //
    /*  15 */ 36, 29, 23, 18, 15,
];

/// `sched_prio_to_wmult[]` (kernel/sched/core.c): ≈ 2^32 / weight, same order.
pub const SCHED_PRIO_TO_WMULT: [u32; 40] = [
    /* -20 */ 48388, 59856, 76040, 92818, 118348, //
    /* -15 */ 147320, 184698, 229616, 287308, 360437, //
    /* -10 */ 449829, 563644, 704093, 875809, 1099582, //
    /*  -5 */ 1376151, 1717300, 2157191, 2708050, 3363326, //
    /*   0 */ 4194304, 5237765, 6557202, 8165337, 10153587, //
    /*   5 */ 12820798, 15790321, 19976592, 24970740, 31350126, //
    /*  10 */ 39045157, 49367440, 61356676, 76695844, 95443717, //
    /*  15 */ 119304647, 148102320, 186737708, 238609294, 286331153,
];

/// `scale_load()` on 64-bit kernels.
#[inline]
pub const fn scale_load(w: u64) -> u64 {
    w << SCHED_FIXEDPOINT_SHIFT
}

/// `scale_load_down()` on 64-bit kernels: never rounds a non-zero weight
/// below 2, so a tiny group share still counts.
#[inline]
pub const fn scale_load_down(w: u64) -> u64 {
    if w == 0 {
        0
    } else {
        let d = w >> SCHED_FIXEDPOINT_SHIFT;
        if d < 2 {
            2
        } else {
            d
        }
    }
}

/// `struct load_weight`: a scaled weight and its cached inverse (0 = not yet
/// computed, as after `update_load_set()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct LoadWeight {
    pub weight: u64,
    pub inv_weight: u32,
}

impl LoadWeight {
    /// Mirrors `set_load_weight()` (kernel/sched/core.c, v6.18) for a task:
    /// the table weight for its nice level, or `WEIGHT_IDLEPRIO` for
    /// SCHED_IDLE, with the table's inverse.
    pub fn for_task(nice: i32, sched_idle: bool) -> LoadWeight {
        if sched_idle {
            return LoadWeight { weight: scale_load(WEIGHT_IDLEPRIO), inv_weight: WMULT_IDLEPRIO };
        }
        let i = (nice.clamp(-20, 19) + 20) as usize;
        LoadWeight {
            weight: scale_load(SCHED_PRIO_TO_WEIGHT[i] as u64),
            inv_weight: SCHED_PRIO_TO_WMULT[i],
        }
    }

    /// Mirrors `update_load_set()` (fair.c): a new weight whose inverse is
    /// computed lazily by `__update_inv_weight()` (used for group entities,
    /// whose weight is a computed share rather than a table entry).
    pub fn with_weight(weight: u64) -> LoadWeight {
        LoadWeight { weight, inv_weight: 0 }
    }

    /// `scale_load_down(se->load.weight)`: the weight used in the
    /// avg_vruntime sums and for lag.
    #[inline]
    pub fn unscaled(&self) -> u64 {
        scale_load_down(self.weight)
    }

    /// Mirrors `__update_inv_weight()` (fair.c, v6.18): only computed when
    /// absent, floor(0xFFFFFFFF / w). Note 0xFFFFFFFF/1024 = 4194303, one less
    /// than the table's 4194304: group entities really do see that value.
    #[inline]
    fn inv(&self) -> u64 {
        if self.inv_weight != 0 {
            return self.inv_weight as u64;
        }
        let w = scale_load_down(self.weight);
        if w >= WMULT_CONST {
            1
        } else {
            WMULT_CONST.checked_div(w).unwrap_or(WMULT_CONST)
        }
    }
}

/// `fls()` for a non-zero u64 below 2^32 after the shift (bit index + 1).
#[inline]
fn fls(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// Mirrors `__calc_delta()` (kernel/sched/fair.c, v5.15–v6.19):
/// `delta_exec * weight / lw.weight`, computed as
/// `(delta_exec * (weight * inv_weight)) >> 32` with the factor kept in 32
/// bits by shifting both it and the final shift down (`fls` form), and
/// `mul_u64_u32_shr()` for the last step.
#[inline]
pub fn calc_delta(delta_exec: u64, weight: u64, lw: &LoadWeight) -> u64 {
    let mut fact = scale_load_down(weight);
    let mut shift = WMULT_SHIFT;
    if fact >> 32 != 0 {
        let s = fls(fact >> 32);
        fact >>= s;
        shift -= s;
    }
    fact = (fact as u32 as u64) * lw.inv();
    if fact >> 32 != 0 {
        let s = fls(fact >> 32);
        fact >>= s;
        shift -= s;
    }
    crate::kernel::lib::math64::mul_u64_u32_shr(delta_exec, fact as u32, shift)
}

/// Mirrors `calc_delta_fair()` (fair.c, v6.18): wall time → virtual time
/// for an entity, `delta · NICE_0_LOAD / weight` (identity at nice 0).
#[inline]
pub fn calc_delta_fair(delta: u64, lw: &LoadWeight) -> u64 {
    if lw.weight != NICE_0_LOAD {
        calc_delta(delta, NICE_0_LOAD, lw)
    } else {
        delta
    }
}

/// `div_s64()`: signed division truncating toward zero (Rust's `/` on i64).
#[inline]
pub fn div_s64(a: i64, b: i64) -> i64 {
    a / b
}

/// Wrap-safe "a is before b" for u64 times, as the kernel writes
/// `(s64)(a - b) < 0`: correct as long as the two are within 2^63 ns.
#[inline]
pub fn before(a: u64, b: u64) -> bool {
    (a.wrapping_sub(b) as i64) < 0
}

/// Wrap-safe signed difference `(s64)(a - b)`.
#[inline]
pub fn sdiff(a: u64, b: u64) -> i64 {
    a.wrapping_sub(b) as i64
}

/// Wrap-safe `min_vruntime()` helper (fair.c): the earlier of two times.
#[inline]
pub fn min_time(a: u64, b: u64) -> u64 {
    if before(b, a) {
        b
    } else {
        a
    }
}

/// Wrap-safe `max_vruntime()` (fair.c): the later of two times.
#[inline]
pub fn max_time(a: u64, b: u64) -> u64 {
    if before(a, b) {
        b
    } else {
        a
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nice_zero_is_identity() {
        let lw = LoadWeight::for_task(0, false);
        assert_eq!(lw.weight, NICE_0_LOAD);
        assert_eq!(calc_delta_fair(1_234_567, &lw), 1_234_567);
    }

    /// Reference §1 worked example, nice 1 (weight 820, inverse 5237765):
    /// fact = 1024 · 5237765 = 5 363 471 360 ≥ 2^32, so fact >>= 1 →
    /// 2 681 735 680 and shift = 31; 1 ms · 2 681 735 680 >> 31
    /// = 1 248 780 ns (the exact ratio 1024/820 would give 1 248 780.49).
    #[test]
    fn calc_delta_fair_nice1_matches_kernel_rounding() {
        let lw = LoadWeight::for_task(1, false);
        assert_eq!(calc_delta_fair(1_000_000, &lw), 1_248_780);
    }

    /// nice 5 (weight 335, inverse 12820798): fact = 1024 · 12820798 =
    /// 13 128 497 152 = 0b11_0000_1110..., fls(fact >> 32) = fls(3) = 2, so
    /// fact >>= 2 → 3 282 124 288, shift 30; 1 ms → 10^6 · 3282124288 >> 30
    /// = 3 056 716 ns (exact 1024/335 · 10^6 = 3 056 716.4).
    #[test]
    fn calc_delta_fair_nice5() {
        let lw = LoadWeight::for_task(5, false);
        assert_eq!(calc_delta_fair(1_000_000, &lw), 3_056_716);
    }

    /// A heavy task (nice -20, weight 88761) advances slowly: 1 ms →
    /// 10^6 · (1024 · 48388) >> 32 = 10^6 · 49549312 >> 32 = 11 536 ns.
    #[test]
    fn calc_delta_fair_heavy() {
        let lw = LoadWeight::for_task(-20, false);
        assert_eq!(calc_delta_fair(1_000_000, &lw), 11_536);
    }

    #[test]
    fn computed_inverse_is_one_less_than_table_at_1024() {
        let lw = LoadWeight::with_weight(NICE_0_LOAD);
        assert_eq!(lw.inv(), 4_194_303);
    }

    #[test]
    fn scale_load_down_floor_is_two() {
        assert_eq!(scale_load_down(0), 0);
        assert_eq!(scale_load_down(1), 2);
        assert_eq!(scale_load_down(3 << 10), 3);
    }

    #[test]
    fn wrap_safe_compare() {
        assert!(before(u64::MAX - 5, 3));
        assert!(!before(3, u64::MAX - 5));
        assert_eq!(sdiff(2, u64::MAX), 3);
        assert_eq!(min_time(u64::MAX, 1), u64::MAX);
        assert_eq!(max_time(u64::MAX, 1), 1);
    }
}
