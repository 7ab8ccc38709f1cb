//! `struct cpumask`: a fixed-width bitset of CPUs, and the kernel's cpulist
//! iteration orders (`for_each_cpu`, `for_each_cpu_wrap`).

/// A set of CPU numbers below the machine's CPU count.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct CpuMask {
    words: Box<[u64]>,
}

impl CpuMask {
    /// An empty mask for `cpus` CPUs.
    pub fn new(cpus: u32) -> CpuMask {
        CpuMask { words: vec![0; (cpus as usize).div_ceil(64).max(1)].into_boxed_slice() }
    }

    pub fn full(cpus: u32) -> CpuMask {
        let mut m = CpuMask::new(cpus);
        for c in 0..cpus {
            m.set(c);
        }
        m
    }

    pub fn from_cpus(cpus: u32, list: impl IntoIterator<Item = u32>) -> CpuMask {
        let mut m = CpuMask::new(cpus);
        for c in list {
            m.set(c);
        }
        m
    }

    /// `cpumask_copy()` (same width).
    pub fn copy_from(&mut self, other: &CpuMask) {
        if self.words.len() != other.words.len() {
            self.words = other.words.clone();
        } else {
            self.words.copy_from_slice(&other.words);
        }
    }

    #[inline]
    pub fn set(&mut self, cpu: u32) {
        self.words[cpu as usize / 64] |= 1 << (cpu % 64);
    }

    #[inline]
    pub fn clear(&mut self, cpu: u32) {
        self.words[cpu as usize / 64] &= !(1 << (cpu % 64));
    }

    #[inline]
    pub fn test(&self, cpu: u32) -> bool {
        self.words.get(cpu as usize / 64).is_some_and(|w| w & (1 << (cpu % 64)) != 0)
    }

    pub fn weight(&self) -> u32 {
        self.words.iter().map(|w| w.count_ones()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// `cpumask_first()`; u32::MAX when empty.
    pub fn first(&self) -> u32 {
        self.next_from(0).unwrap_or(u32::MAX)
    }

    /// The first set CPU ≥ `from`.
    pub fn next_from(&self, from: u32) -> Option<u32> {
        self.first_where(from, |i| self.words[i])
    }

    /// The first CPU ≥ `from` whose bit is set in `word(i)`, word i of a
    /// mask as wide as self.
    fn first_where(&self, from: u32, word: impl Fn(usize) -> u64) -> Option<u32> {
        let mut i = from as usize / 64;
        if i >= self.words.len() {
            return None;
        }
        let mut w = word(i) & (!0u64 << (from % 64));
        loop {
            if w != 0 {
                return Some(i as u32 * 64 + w.trailing_zeros());
            }
            i += 1;
            if i >= self.words.len() {
                return None;
            }
            w = word(i);
        }
    }

    /// How many CPUs below `cpu` are set.
    pub fn count_below(&self, cpu: u32) -> u32 {
        let (full, rest) = (cpu as usize / 64, cpu % 64);
        let whole: u32 = self.words.iter().take(full).map(|w| w.count_ones()).sum();
        let part = self.words.get(full).map_or(0, |w| (w & ((1u64 << rest) - 1)).count_ones());
        whole + part
    }

    /// The first CPU ≥ `from` set in both self and `other`.
    pub fn next_common_from(&self, other: &CpuMask, from: u32) -> Option<u32> {
        self.first_where(from, |i| self.words[i] & other.words.get(i).copied().unwrap_or(0))
    }

    /// `for_each_cpu()`: ascending order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.next_from(0);
        std::iter::from_fn(move || {
            let c = next?;
            next = self.next_from(c + 1);
            Some(c)
        })
    }

    /// `for_each_cpu_wrap(cpu, mask, start)`: from `start` up, then from 0
    /// up to `start` — how select_idle_cpu() spreads its scans.
    pub fn iter_wrap(&self, start: u32) -> impl Iterator<Item = u32> + '_ {
        self.iter().filter(move |&c| c >= start).chain(self.iter().filter(move |&c| c < start))
    }

    /// `cpumask_and()` into self.
    pub fn and(&mut self, other: &CpuMask) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a &= b;
        }
    }

    /// `cpumask_andnot()` into self.
    pub fn andnot(&mut self, other: &CpuMask) {
        for (a, b) in self.words.iter_mut().zip(other.words.iter()) {
            *a &= !b;
        }
    }

    /// `cpumask_intersects()`.
    pub fn intersects(&self, other: &CpuMask) -> bool {
        self.words.iter().zip(other.words.iter()).any(|(a, b)| a & b != 0)
    }

    /// `cpumask_subset()`: every CPU of self is in `other`.
    pub fn subset_of(&self, other: &CpuMask) -> bool {
        self.words.iter().zip(other.words.iter()).all(|(a, b)| a & !b == 0)
    }

    /// The kernel's cpulist text ("0-3,8").
    pub fn to_list(&self) -> String {
        let mut out = String::new();
        let mut it = self.iter().peekable();
        while let Some(start) = it.next() {
            let mut end = start;
            while it.peek() == Some(&(end + 1)) {
                end = it.next().unwrap_or(end);
            }
            if !out.is_empty() {
                out.push(',');
            }
            if start == end {
                out += &start.to_string();
            } else {
                out += &format!("{start}-{end}");
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_order_starts_at_target() {
        let m = CpuMask::from_cpus(130, [1, 3, 64, 65, 129]);
        assert_eq!(m.iter().collect::<Vec<_>>(), vec![1, 3, 64, 65, 129]);
        assert_eq!(m.iter_wrap(65).collect::<Vec<_>>(), vec![65, 129, 1, 3, 64]);
        assert_eq!(m.iter_wrap(130).collect::<Vec<_>>(), vec![1, 3, 64, 65, 129]);
        assert_eq!(m.to_list(), "1,3,64-65,129");
        assert_eq!(m.weight(), 5);
    }

    #[test]
    fn set_ops() {
        let mut a = CpuMask::from_cpus(8, [0, 1, 2, 3]);
        let b = CpuMask::from_cpus(8, [2, 3, 4]);
        assert!(a.intersects(&b));
        a.andnot(&b);
        assert_eq!(a.to_list(), "0-1");
        assert!(a.subset_of(&CpuMask::full(8)));
        assert_eq!(CpuMask::new(8).first(), u32::MAX);
    }
}
