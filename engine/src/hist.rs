//! A log-linear latency histogram with bounded memory.
//!
//! Values below 64 ns are kept exactly; above, each power of two is split into
//! 32 buckets, so a bucket is at most 1/32 (3.1 %) wide. Percentiles report
//! the upper edge of their bucket (never below the true value by more than
//! one bucket); count, sum and max are exact.

use serde::Serialize;

const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
const EXACT: u64 = 2 * SUB;
/// 64 exact buckets, then 32 per octave for octaves 6..=63.
const BUCKETS: usize = (EXACT + (64 - SUB_BITS as u64 - 1) * SUB) as usize;

#[derive(Clone, Debug, Default)]
pub struct Hist {
    counts: Option<Box<[u32]>>,
    pub count: u64,
    pub sum: u128,
    pub max: u64,
}

/// Summary percentiles of a histogram, in ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Percentiles {
    pub count: u64,
    pub p50: u64,
    pub p90: u64,
    pub p99: u64,
    pub max: u64,
    pub mean: u64,
}

fn bucket_of(v: u64) -> usize {
    if v < EXACT {
        return v as usize;
    }
    let octave = 63 - v.leading_zeros(); // ≥ SUB_BITS + 1
    let shift = octave - SUB_BITS;
    let sub = (v >> shift) - SUB; // 0..SUB
    (EXACT + (octave - SUB_BITS - 1) as u64 * SUB + sub) as usize
}

/// The largest value that falls into bucket `b`.
fn bucket_upper(b: usize) -> u64 {
    let b = b as u64;
    if b < EXACT {
        return b;
    }
    let octave = (b - EXACT) / SUB + SUB_BITS as u64 + 1;
    let sub = (b - EXACT) % SUB;
    let shift = octave - SUB_BITS as u64;
    let lo = (SUB + sub) << shift;
    lo + ((1u64 << shift) - 1)
}

impl Hist {
    pub fn record(&mut self, v: u64) {
        let counts = self.counts.get_or_insert_with(|| vec![0u32; BUCKETS].into_boxed_slice());
        let b = bucket_of(v);
        counts[b] = counts[b].saturating_add(1);
        self.count += 1;
        self.sum += v as u128;
        self.max = self.max.max(v);
    }

    /// The value at quantile `q` (0..=1): the upper edge of the bucket that
    /// holds the ceil(q·count)-th smallest sample, capped at the exact max.
    pub fn quantile(&self, q: f64) -> u64 {
        let Some(counts) = &self.counts else { return 0 };
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0u64;
        for (b, &c) in counts.iter().enumerate() {
            seen += c as u64;
            if seen >= rank {
                return bucket_upper(b).min(self.max);
            }
        }
        self.max
    }

    pub fn percentiles(&self) -> Percentiles {
        Percentiles {
            count: self.count,
            p50: self.quantile(0.50),
            p90: self.quantile(0.90),
            p99: self.quantile(0.99),
            max: self.max,
            mean: if self.count == 0 { 0 } else { (self.sum / self.count as u128) as u64 },
        }
    }

    /// Adds another histogram's samples (merging across tasks or seeds).
    pub fn merge(&mut self, other: &Hist) {
        let Some(oc) = &other.counts else { return };
        let counts = self.counts.get_or_insert_with(|| vec![0u32; BUCKETS].into_boxed_slice());
        for (a, b) in counts.iter_mut().zip(oc.iter()) {
            *a = a.saturating_add(*b);
        }
        self.count += other.count;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotonic_and_tight() {
        for v in (0..10_000u64).chain((1..64).map(|s| (1u64 << s) - 1)).chain((1..64).map(|s| 1u64 << s)).chain([u64::MAX]) {
            let b = bucket_of(v);
            assert!(b < BUCKETS);
            assert!(bucket_upper(b) >= v, "{v}");
            if v >= EXACT {
                // Bucket width is at most 1/32 of its lower edge.
                assert!(bucket_upper(b) - v <= v / 32 + 1, "{v}");
            }
        }
        let mut last = 0;
        for v in 0..100_000u64 {
            let b = bucket_of(v);
            assert!(b >= last && b <= last + 1, "{v}");
            last = b;
        }
    }

    /// 1..=100 ms, one sample each: p50 is the 50th sample (50 ms), p90 the
    /// 90th, p99 the 99th, each reported within one bucket (≤ 1/32) above.
    #[test]
    fn percentiles_of_known_samples() {
        let mut h = Hist::default();
        for ms in 1..=100u64 {
            h.record(ms * 1_000_000);
        }
        let p = h.percentiles();
        assert_eq!(p.count, 100);
        assert_eq!(p.max, 100_000_000);
        assert_eq!(p.mean, 50_500_000);
        for (got, want) in [(p.p50, 50_000_000u64), (p.p90, 90_000_000), (p.p99, 99_000_000)] {
            assert!(got >= want && got - want <= want / 32, "{got} vs {want}");
        }
    }

    #[test]
    fn small_values_are_exact() {
        let mut h = Hist::default();
        for v in [3, 3, 7, 40] {
            h.record(v);
        }
        assert_eq!(h.quantile(0.5), 3);
        assert_eq!(h.quantile(0.75), 7);
        assert_eq!(h.quantile(1.0), 40);
    }
}
