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
    counts: Option<Box<Chunks>>,
    pub count: u64,
    pub sum: u128,
    pub max: u64,
}

/// Buckets in chunks of 32 (an octave above the exact range), allocated
/// when first used: a task's latencies fall into a few octaves, so it
/// holds a few hundred bytes instead of all 1920 buckets (thousands of
/// tasks each with a full array cost more in page faults than the run).
#[derive(Clone, Debug)]
struct Chunks {
    /// Per chunk, 1 + its index in `data` (0: not allocated).
    slot: [u8; NCHUNKS],
    data: Vec<[u32; SUB as usize]>,
}

const NCHUNKS: usize = BUCKETS / SUB as usize;

impl Chunks {
    fn new() -> Chunks {
        Chunks { slot: [0; NCHUNKS], data: Vec::new() }
    }

    fn add(&mut self, b: usize, n: u32) {
        let c = b / SUB as usize;
        if self.slot[c] == 0 {
            self.data.push([0; SUB as usize]);
            self.slot[c] = self.data.len() as u8;
        }
        let cell = &mut self.data[self.slot[c] as usize - 1][b % SUB as usize];
        *cell = cell.saturating_add(n);
    }

    /// Every non-empty bucket with its count, in bucket order.
    fn iter(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.slot.iter().enumerate().filter(|(_, &s)| s != 0).flat_map(move |(c, &s)| {
            self.data[s as usize - 1].iter().enumerate().filter(|(_, &n)| n != 0).map(move |(i, &n)| (c * SUB as usize + i, n))
        })
    }
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
        self.counts.get_or_insert_with(|| Box::new(Chunks::new())).add(bucket_of(v), 1);
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
        for (b, c) in counts.iter() {
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
        let counts = self.counts.get_or_insert_with(|| Box::new(Chunks::new()));
        for (b, n) in oc.iter() {
            counts.add(b, n);
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

    /// Merging equals recording everything into one histogram.
    #[test]
    fn merge_equals_one_histogram() {
        let (mut a, mut b, mut all) = (Hist::default(), Hist::default(), Hist::default());
        for v in 0..5000u64 {
            let x = v * v * 37 % 1_000_003 + v;
            if v % 3 == 0 { a.record(x) } else { b.record(x) }
            all.record(x);
        }
        a.merge(&b);
        for q in [0.1, 0.5, 0.9, 0.99, 1.0] {
            assert_eq!(a.quantile(q), all.quantile(q));
        }
        assert_eq!((a.count, a.sum, a.max), (all.count, all.sum, all.max));
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
