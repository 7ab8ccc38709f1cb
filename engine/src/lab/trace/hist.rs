//! Log-linear latency histograms with bounded memory.
//!
//! `Hist`: values below 64 ns are kept exactly; above, each power of two is
//! split into 32 buckets, so a bucket is at most 1/32 (3.1 %) wide.
//! Percentiles report the upper edge of their bucket (never below the true
//! value by more than one bucket); count, sum and max are exact.
//!
//! `Plat`: schbench's own histogram, for the figure schbench prints.

use serde::Serialize;

const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
const EXACT: u64 = 2 * SUB;
/// 64 exact buckets, then 32 per octave for octaves 6..=63.
const BUCKETS: usize = (EXACT + (64 - SUB_BITS as u64 - 1) * SUB) as usize;

#[derive(Clone, Debug, Default)]
pub struct Hist {
    counts: Option<Box<Chunks<NCHUNKS>>>,
    pub count: u64,
    pub sum: u128,
    pub max: u64,
}

/// Buckets in chunks of 32 (an octave of `Hist` above its exact range),
/// allocated when first used: a task's latencies fall into a few octaves,
/// so it holds a few hundred bytes instead of all 1920 buckets (thousands
/// of tasks each with a full array cost more in page faults than the run).
/// A slot is a u8, so `N` is at most 255.
#[derive(Clone, Debug)]
struct Chunks<const N: usize> {
    /// Per chunk, 1 + its index in `data` (0: not allocated).
    slot: [u8; N],
    data: Vec<[u32; SUB as usize]>,
}

const NCHUNKS: usize = BUCKETS / SUB as usize;

impl<const N: usize> Chunks<N> {
    fn new() -> Chunks<N> {
        Chunks { slot: [0; N], data: Vec::new() }
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

/// Adds `n` to bucket `b`, allocating the chunks at the first sample.
fn add<const N: usize>(counts: &mut Option<Box<Chunks<N>>>, b: usize, n: u32) {
    counts.get_or_insert_with(|| Box::new(Chunks::new())).add(b, n);
}

/// Adds every bucket of `from` into `into`.
fn add_all<const N: usize>(into: &mut Option<Box<Chunks<N>>>, from: &Option<Box<Chunks<N>>>) {
    for (b, n) in from.iter().flat_map(|c| c.iter()) {
        add(into, b, n);
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
        add(&mut self.counts, bucket_of(v), 1);
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
        add_all(&mut self.counts, &other.counts);
        self.count += other.count;
        self.sum += other.sum;
        self.max = self.max.max(other.max);
    }
}

/// A histogram of latencies in ns.
pub trait Samples: Clone {
    fn record(&mut self, ns: u64);
}

impl Samples for Hist {
    fn record(&mut self, ns: u64) {
        Hist::record(self, ns)
    }
}

impl Samples for Plat {
    fn record(&mut self, ns: u64) {
        Plat::record(self, ns)
    }
}

/// schbench's latency histogram ("mr axboe's magic latency histogram",
/// schbench.c, the same in the 2019 tool and v1.0 of April 2023):
/// PLAT_BITS 8, so samples below 512 µs are kept to the µs and each octave
/// above is split into 256 buckets; a percentile is the middle of the
/// bucket that holds it (calc_percentiles(), plat_idx_to_val()). Mirrored
/// so that a study's schbench figure is the one schbench would print for
/// the same wake-ups: `Hist`'s 1/32 buckets are 8× coarser, and two
/// configurations' p90 could land in the same bucket where schbench's
/// differ.
#[derive(Clone, Debug, Default)]
pub struct Plat {
    /// Allocated at the first sample; the count is summed when asked for
    /// (rarely), so that every task carries 8 bytes, not 16.
    counts: Option<Box<Chunks<PLAT_CHUNKS>>>,
}

const PLAT_BITS: u32 = 8;
const PLAT_VAL: u64 = 1 << PLAT_BITS;
/// PLAT_GROUP_NR 19 groups of 256 buckets: the last group ends at 2^26 µs
/// (67 s), and anything longer falls into its last bucket.
const PLAT_NR: usize = 19 * PLAT_VAL as usize;
const PLAT_CHUNKS: usize = PLAT_NR / SUB as usize;
const _: () = assert!(NCHUNKS <= 255 && PLAT_CHUNKS <= 255);

/// plat_val_to_idx().
fn plat_idx(us: u64) -> usize {
    let msb = 63 - us.max(1).leading_zeros();
    if msb <= PLAT_BITS {
        return us as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as u64) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (us >> error_bits);
    ((base + offset) as usize).min(PLAT_NR - 1)
}

/// plat_idx_to_val(): `base + (k + 0.5) << error_bits`, which is an
/// integer (error_bits ≥ 1 above the exact range).
fn plat_val(idx: usize) -> u64 {
    let idx = idx as u64;
    if idx < PLAT_VAL << 1 {
        return idx;
    }
    let error_bits = (idx >> PLAT_BITS) - 1;
    let base = 1u64 << (error_bits + PLAT_BITS as u64);
    let k = idx % PLAT_VAL;
    base + (k << error_bits) + (1 << (error_bits - 1))
}

impl Plat {
    /// add_lat() of a wake-up latency of `ns`. schbench takes it as the
    /// difference of two gettimeofday() readings, so a latency of L ns
    /// reads as ⌊L/1000⌋ or ⌈L/1000⌉ µs; the model records the nearer
    /// (the likelier) one, and at least 1 µs. msg_and_wait() drops a
    /// reading of 0, but a real wake-up never reads 0: the futex wake,
    /// the switch and the two clock reads take microseconds. The model
    /// charges none of these to the wakee, so many of its latencies are 0
    /// ns (an idle CPU's wakee runs at once): dropping them would drop
    /// exactly the fast wake-ups and raise every percentile.
    pub fn record(&mut self, ns: u64) {
        let us = (ns.saturating_add(500) / 1000).max(1);
        add(&mut self.counts, plat_idx(us), 1);
    }

    /// schbench's nr_samples.
    pub fn count(&self) -> u64 {
        self.counts.as_ref().map_or(0, |c| c.iter().map(|(_, n)| n as u64).sum())
    }

    /// calc_percentiles(): the value (µs) of the first bucket at which the
    /// running sum reaches `pct`/100 of the samples; 0 without samples.
    pub fn percentile(&self, pct: f64) -> u64 {
        let Some(counts) = &self.counts else { return 0 };
        let need = pct / 100.0 * self.count() as f64;
        let mut sum = 0u64;
        for (b, c) in counts.iter() {
            sum += c as u64;
            if sum as f64 >= need {
                return plat_val(b);
            }
        }
        0
    }

    /// combine_stats().
    pub fn merge(&mut self, other: &Plat) {
        add_all(&mut self.counts, &other.counts);
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

    /// plat_val_to_idx() and plat_idx_to_val() by hand (PLAT_BITS 8):
    /// below 512 µs a bucket per µs; 1000 µs has msb 9, so error_bits 1,
    /// base (1+1)<<8 = 512, offset 255 & (1000>>1) = 244: bucket 756, whose
    /// value is 2^9 + (244 + 0.5)·2 = 1001; 9000 µs: msb 13, error_bits 5,
    /// base 6<<8 = 1536, offset 255 & 281 = 25: bucket 1561, value
    /// 2^13 + 25.5·32 = 9008. Past 2^26 µs every sample falls into the
    /// last bucket (PLAT_NR − 1 = 4863).
    #[test]
    fn plat_buckets_are_schbenchs() {
        for us in [1u64, 2, 255, 511] {
            assert_eq!((plat_idx(us), plat_val(plat_idx(us))), (us as usize, us));
        }
        assert_eq!((plat_idx(512), plat_val(512)), (512, 513));
        assert_eq!((plat_idx(1000), plat_val(756)), (756, 1001));
        assert_eq!((plat_idx(9000), plat_val(1561)), (1561, 9008));
        // 2^26 − 1 µs is the last group's last bucket; beyond it, clamped.
        assert_eq!((plat_idx((1 << 26) - 1), plat_idx(1 << 26), plat_idx(u64::MAX)), (PLAT_NR - 1, PLAT_NR - 1, PLAT_NR - 1));
        assert_eq!(plat_idx((1 << 26) - (1 << 17) - 1), PLAT_NR - 2);
        // Every value reads back as its bucket's middle: at most half a
        // bucket (1/512 of the value) off, asserted with room (1/256).
        for us in (1..200_000u64).step_by(7) {
            let v = plat_val(plat_idx(us));
            assert!(v.abs_diff(us) <= us / 256, "{us} -> {v}");
        }
    }

    /// calc_percentiles(): the first bucket whose running sum reaches
    /// p/100 of the samples. Samples 1..=10 µs (given in ns): p90 needs 9
    /// of 10, reached at 9 µs; p50 at 5. 1 499 ns reads as 1 µs and
    /// 1 500 as 2 (the nearer reading); 300 ns as 1 µs, not dropped.
    #[test]
    fn plat_percentiles_are_schbenchs() {
        let mut p = Plat::default();
        for us in 1..=10u64 {
            p.record(us * 1000);
        }
        assert_eq!((p.count(), p.percentile(90.0), p.percentile(50.0), p.percentile(100.0)), (10, 9, 5, 10));
        let mut q = Plat::default();
        for ns in [300, 1_499, 1_500] {
            q.record(ns);
        }
        assert_eq!((q.percentile(50.0), q.percentile(100.0)), (1, 2));
        // combine_stats() of the two: 13 samples, p90 needs 11.7, the
        // 12th smallest is 9 µs.
        p.merge(&q);
        assert_eq!((p.count(), p.percentile(90.0)), (13, 9));
        assert_eq!(Plat::default().percentile(90.0), 0);
    }
}
