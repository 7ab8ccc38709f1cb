//! The simulation's one random source, and sampling of program durations.
//!
//! Determinism across targets is the point: the generator is a fixed
//! algorithm (SplitMix64) rather than `SmallRng` (which differs between
//! 32-bit wasm and 64-bit hosts), and the exponential distribution uses a
//! logarithm computed with IEEE-754 `+ - * /` only, which round identically
//! everywhere (unlike `f64::ln`, which calls the platform's libm).

/// SplitMix64 (Steele, Lea, Flood 2014): 64-bit state, full period.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [lo, hi] (inclusive), by widening multiply: the high 64
    /// bits of a 64-bit draw times the range's size. wasm32 has no 128-bit
    /// product (Rust calls compiler-rt's `__multi3`, 2.5 % of the wasm
    /// engine's time on hackbench, whose every message draws its cost), so
    /// there a size that fits 32 bits, as every cost's does, takes two
    /// 32 × 32-bit products instead; the result is the same.
    pub fn uniform(&mut self, lo: u64, hi: u64) -> u64 {
        let x = self.next_u64();
        let span = hi - lo;
        if cfg!(target_arch = "wasm32") && span < u32::MAX as u64 {
            return lo + mul_hi_u64_u32(x, span as u32 + 1);
        }
        lo + ((x as u128 * (span as u128 + 1)) >> 64) as u64
    }

    /// Exponential with the given mean, in integer ns: -mean·ln(u), u in
    /// (0, 1].
    pub fn exp(&mut self, mean: u64) -> u64 {
        let u = ((self.next_u64() >> 11) + 1) as f64 * (1.0 / (1u64 << 53) as f64);
        let x = -(mean as f64) * ln(u);
        if x >= u64::MAX as f64 {
            u64::MAX
        } else {
            x as u64
        }
    }
}

/// The high 64 bits of `x · s` from 32 × 32-bit products: with x = xh·2³² +
/// xl, x·s = xh·s·2³² + xl·s, so the high word is (xh·s + ⌊xl·s / 2³²⌋) / 2³²
/// rounded down. The sum cannot overflow: xh·s ≤ (2³² − 1)² = 2⁶⁴ − 2³³ + 1
/// and the carry is under 2³².
#[inline]
fn mul_hi_u64_u32(x: u64, s: u32) -> u64 {
    let (xh, xl, s) = (x >> 32, x & 0xffff_ffff, s as u64);
    (xh * s + ((xl * s) >> 32)) >> 32
}

/// ln(x) for x > 0 using only basic arithmetic: x = m·2^e with m in
/// [1/√2, √2), ln m = 2·atanh(s) = 2s·(1 + s²/3 + s⁴/5 + …), s = (m−1)/(m+1),
/// |s| < 0.172, so eleven terms reach 1e-19; evaluated by Horner's rule in a
/// fixed order with constant coefficients.
pub fn ln(x: f64) -> f64 {
    const LN2: f64 = core::f64::consts::LN_2;
    // 1/(2k+1) for k = 10 down to 1.
    const C: [f64; 10] = [1.0 / 21.0, 1.0 / 19.0, 1.0 / 17.0, 1.0 / 15.0, 1.0 / 13.0, 1.0 / 11.0, 1.0 / 9.0, 1.0 / 7.0, 1.0 / 5.0, 1.0 / 3.0];
    let bits = x.to_bits();
    let mut e = ((bits >> 52) & 0x7ff) as i64 - 1023;
    let mut m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    if m > core::f64::consts::SQRT_2 {
        m *= 0.5;
        e += 1;
    }
    let s = (m - 1.0) / (m + 1.0);
    let s2 = s * s;
    let mut p = C[0];
    for c in &C[1..] {
        p = p * s2 + c;
    }
    p = p * s2 + 1.0;
    2.0 * s * p + e as f64 * LN2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 32-bit form wasm takes is the 128-bit product's high word, at
    /// the edges (x all ones and s = 2³² − 1, where xh·s is largest) and on
    /// a spread of draws.
    #[test]
    fn the_32_bit_high_product_is_the_128_bit_one() {
        let mut r = Rng::new(7);
        let mut xs = vec![0, 1, u32::MAX as u64, 1 << 32, u64::MAX, u64::MAX - 1];
        xs.extend((0..300).map(|_| r.next_u64()));
        let mut ss = vec![1u32, 2, 141, 1 << 31, u32::MAX - 1, u32::MAX];
        ss.extend(xs.iter().map(|&x| (x >> 17) as u32));
        for &x in &xs {
            for &s in &ss {
                assert_eq!(mul_hi_u64_u32(x, s), ((x as u128 * s as u128) >> 64) as u64, "{x:#x} * {s:#x}");
            }
        }
    }

    #[test]
    fn splitmix_reference_values() {
        // First outputs of SplitMix64 seeded with 0 (published test vector).
        let mut r = Rng::new(0);
        assert_eq!(r.next_u64(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(r.next_u64(), 0x6e78_9e6a_a1b9_65f4);
    }

    #[test]
    fn ln_matches_libm_closely() {
        for &x in &[1e-300, 1e-9, 0.001, 0.25, 0.5, 0.7, 1.0, 1.5, 2.0, 10.0, 1e9] {
            let (a, b) = (ln(x), x.ln());
            assert!((a - b).abs() <= 1e-14 * b.abs().max(1.0), "{x}: {a} vs {b}");
        }
    }

    #[test]
    fn exp_mean_is_close() {
        let mut r = Rng::new(7);
        let n = 200_000u64;
        let mean: u64 = (0..n).map(|_| r.exp(1_000_000)).sum::<u64>() / n;
        assert!((990_000..1_010_000).contains(&mean), "{mean}");
    }

    #[test]
    fn uniform_stays_in_range() {
        let mut r = Rng::new(3);
        for _ in 0..10_000 {
            let v = r.uniform(5, 9);
            assert!((5..=9).contains(&v));
        }
        assert_eq!(r.uniform(4, 4), 4);
    }
}
