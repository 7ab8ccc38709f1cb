//! `struct rnd_state` and `prandom_u32_state()` (lib/random32.c, v6.18):
//! L'Ecuyer's four-component Tausworthe generator (LFSR113), the per-CPU
//! generator behind the scheduler's `sched_rng()`.

/// One generator's state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RndState {
    s: [u32; 4],
}

/// Each component's (a, b, c, d) in `TAUSWORTHE(s, a, b, c, d)`, and the
/// least value `__seed()` lets it start from (its low bits below c's are
/// discarded, so a smaller start would collapse to 0).
const TAPS: [(u32, u32, u32, u32, u32); 4] =
    [(6, 13, 4294967294, 18, 2), (2, 27, 4294967288, 2, 8), (13, 21, 4294967280, 7, 16), (3, 12, 4294967168, 13, 128)];

impl RndState {
    /// Mirrors `prandom_seed_full_state()` for one CPU: four seed words
    /// (the kernel takes them from get_random_bytes()), each raised by
    /// `__seed()` above its component's minimum, then `prandom_warmup()`'s
    /// ten draws.
    pub fn seeded(seeds: [u32; 4]) -> RndState {
        let mut r = RndState { s: [0; 4] };
        for (k, &(.., min)) in TAPS.iter().enumerate() {
            r.s[k] = if seeds[k] < min { seeds[k] + min } else { seeds[k] };
        }
        for _ in 0..10 {
            r.next_u32();
        }
        r
    }

    /// Mirrors `prandom_u32_state()`.
    pub fn next_u32(&mut self) -> u32 {
        let mut out = 0;
        for (s, &(a, b, c, d, _)) in self.s.iter_mut().zip(TAPS.iter()) {
            *s = ((*s & c) << d) ^ (((*s << a) ^ *s) >> b);
            out ^= *s;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::RndState;

    /// By hand from the TAUSWORTHE macro, one step from s = (2, 8, 16, 128)
    /// (zero seeds raised by __seed()):
    /// s1 = ((2 & ~1) << 18) ^ (((2 << 6) ^ 2) >> 13) = 524288 ^ 0 = 524288;
    /// s2 = ((8 & ~7) << 2) ^ (((8 << 2) ^ 8) >> 27) = 32;
    /// s3 = ((16 & ~15) << 7) ^ (((16 << 13) ^ 16) >> 21) = 2048 ^ 0 = 2048;
    /// s4 = ((128 & ~127) << 13) ^ (((128 << 3) ^ 128) >> 12) = 1048576;
    /// out = 524288 ^ 32 ^ 2048 ^ 1048576 = 1574944.
    #[test]
    fn one_step_follows_the_tausworthe_recurrences() {
        let mut r = RndState { s: [2, 8, 16, 128] };
        assert_eq!(r.next_u32(), 1_574_944);
        assert_eq!(r.s, [524_288, 32, 2048, 1_048_576]);
    }
}
