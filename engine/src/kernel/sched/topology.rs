//! CPU topology and scheduling domains: sockets (NUMA nodes), last-level
//! caches, cores and SMT siblings, and the per-CPU hierarchy of
//! `sched_domain`s the balancer and wakeup placement walk.
//!
//! CPU numbers follow Linux's enumeration on x86: all cores first (socket by
//! socket, LLC by LLC), then the second hardware thread of every core, so
//! CPU c and c + cores are SMT siblings (CPUs 0 and 48 on a 2×24C/48T Xeon).
//! The order matters: select_idle_cpu() scans in CPU-number order from the
//! target.

use crate::kernel::lib::cpumask::CpuMask;

// Scheduling domain flags (include/linux/sched/sd_flags.h).
pub const SD_BALANCE_NEWIDLE: u32 = 1 << 0;
pub const SD_BALANCE_EXEC: u32 = 1 << 1;
pub const SD_BALANCE_FORK: u32 = 1 << 2;
pub const SD_BALANCE_WAKE: u32 = 1 << 3;
pub const SD_WAKE_AFFINE: u32 = 1 << 4;
pub const SD_SHARE_CPUCAPACITY: u32 = 1 << 6;
pub const SD_SHARE_LLC: u32 = 1 << 8;
pub const SD_SERIALIZE: u32 = 1 << 9;
pub const SD_PREFER_SIBLING: u32 = 1 << 11;
pub const SD_NUMA: u32 = 1 << 13;

/// `SCHED_CAPACITY_SCALE`: every CPU of a symmetric machine has capacity
/// 1024 (x86 reports no asymmetry; SMT siblings are full CPUs to the
/// scheduler since v5.x).
pub const SCHED_CAPACITY_SCALE: u64 = 1024;

/// A topology level of `default_topology[]` (kernel/sched/topology.c).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Level {
    Smt,
    Mc,
    Pkg,
    Numa,
}

impl Level {
    pub fn name(self) -> &'static str {
        match self {
            Level::Smt => "SMT",
            Level::Mc => "MC",
            Level::Pkg => "PKG",
            Level::Numa => "NUMA",
        }
    }
}

/// Where one CPU sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct CpuInfo {
    /// NUMA node (one per socket: no sub-NUMA clustering).
    pub node: u32,
    pub socket: u32,
    /// Last-level cache, numbered machine-wide.
    pub llc: u32,
    /// Physical core, numbered machine-wide.
    pub core: u32,
    /// Hardware thread within the core.
    pub thread: u32,
}

/// One `struct sched_domain` of one CPU, as `sd_init()` and
/// `build_sched_groups()` set it up.
#[derive(Clone, Debug)]
pub struct Domain {
    pub level: Level,
    /// Index into `Topology::spans`.
    pub span: u32,
    pub span_weight: u32,
    /// The groups, as span indices, starting with the one holding this CPU.
    pub groups: Vec<u32>,
    pub flags: u32,
    pub imbalance_pct: u32,
    pub cache_nice_tries: u32,
    /// Balance intervals in ms.
    pub min_interval: u32,
    pub max_interval: u32,
    pub busy_factor: u32,
}

/// A machine: its CPUs and each CPU's domains, bottom-up.
#[derive(Clone, Debug)]
pub struct Topology {
    pub name: String,
    pub sockets: u32,
    pub llcs_per_socket: u32,
    pub cores_per_llc: u32,
    pub threads_per_core: u32,
    pub cpus: Vec<CpuInfo>,
    /// Every distinct CPU set the domains and groups use.
    pub spans: Vec<CpuMask>,
    /// Physical cores in each span (`sg->cores`).
    pub span_cores: Vec<u32>,
    /// Per CPU, its domains from the lowest level up (degenerate levels
    /// removed).
    pub domains: Vec<Vec<Domain>>,
    /// Per CPU, the index in its `domains` of `sd_llc` (None: no LLC domain,
    /// e.g. one CPU per LLC).
    pub sd_llc: Vec<Option<u32>>,
    /// Per CPU, the span index of its LLC and of its core (SMT siblings).
    pub llc_span: Vec<u32>,
    pub smt_span: Vec<u32>,
    /// The CPU's idle states (shallowest first); empty: waking an idle CPU
    /// costs nothing (the teaching presets and explicit machines).
    pub idle_states: &'static [IdleState],
}

/// A cpuidle state: how long leaving it takes and the shortest idle period
/// it pays off for (`struct cpuidle_state` exit_latency and
/// target_residency); `polling`: CPUIDLE_FLAG_POLLING.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdleState {
    pub name: &'static str,
    pub exit_latency_ns: u64,
    pub target_residency_ns: u64,
    pub polling: bool,
}

const fn cs(name: &'static str, exit_us: u64, residency_us: u64) -> IdleState {
    IdleState { name, exit_latency_ns: exit_us * 1000, target_residency_ns: residency_us * 1000, polling: false }
}

/// State 0 of every x86 cpuidle driver, intel_idle's and acpi_idle's
/// alike (`cpuidle_poll_state_init()`, drivers/cpuidle/poll_state.c): the
/// CPU spins on its need-resched flag, so leaving costs nothing.
const POLL: IdleState = IdleState { name: "POLL", exit_latency_ns: 0, target_residency_ns: 0, polling: true };

/// Idle states of the preset machines, from intel_idle's tables
/// (drivers/idle/intel_idle.c: hsw_cstates, skx_cstates, spr_cstates) and,
/// for EPYC, the ACPI _CST values Zen 3 servers commonly report; the menu
/// governor picks among them (`kernel::cpuidle`).
pub const IDLE_STATES: &[(&str, &[IdleState])] = &[
    ("i7-4790", &[POLL, cs("C1", 2, 2), cs("C1E", 10, 20), cs("C3", 33, 100), cs("C6", 133, 400), cs("C7s", 166, 500)]),
    ("xeon-8260-2s", &[POLL, cs("C1", 2, 2), cs("C1E", 10, 20), cs("C6", 133, 600)]),
    ("spr-2s-224", &[POLL, cs("C1", 1, 1), cs("C1E", 2, 4), cs("C6", 290, 800)]),
    ("epyc-ccx", &[POLL, cs("C1", 1, 2), cs("C2", 18, 36)]),
];

/// The state an idle period of `idle_ns` ends in under an ideal governor,
/// one that knows the idle length: the deepest whose target residency it
/// covered (the model's governor without `Feature::CPUIDLE_MENU`).
pub fn idle_state_for(states: &[IdleState], idle_ns: u64) -> Option<&IdleState> {
    states.iter().rev().find(|s| s.target_residency_ns <= idle_ns)
}

/// Named machines from the seed threads and common hardware.
pub const PRESETS: &[(&str, &str, [u32; 4])] = &[
    ("1cpu", "one CPU", [1, 1, 1, 1]),
    ("2cpu-vm", "a 2-vCPU VM: two cores, one LLC, no SMT", [1, 1, 2, 1]),
    ("i7-4790", "Intel Core i7-4790: 4 cores / 8 threads, one 8 MB LLC (seed 003)", [1, 1, 4, 2]),
    ("xeon-8260-2s", "2 × Xeon Platinum 8260: 2 NUMA nodes × 24 cores × 2 threads = 96 CPUs (seed 000)", [2, 1, 24, 2]),
    ("spr-2s-224", "2 × Sapphire Rapids: 2 sockets × 56 cores × 2 threads = 224 CPUs (seed 002)", [2, 1, 56, 2]),
    ("epyc-ccx", "AMD EPYC (Zen 3, 7763-like): 8 CCX LLCs × 8 cores × 2 threads = 128 CPUs in one socket", [1, 8, 8, 2]),
];

impl Topology {
    /// A preset machine by name.
    pub fn preset(name: &str) -> Option<Topology> {
        let mut t = PRESETS.iter().find(|p| p.0 == name).map(|&(n, _, [s, l, c, t])| Topology::new(n, s, l, c, t))?;
        t.idle_states = IDLE_STATES.iter().find(|p| p.0 == name).map_or(&[], |p| p.1);
        Some(t)
    }

    /// Builds the machine and its domains, mirroring
    /// `build_sched_domains()` with the default topology levels (SMT, MC,
    /// PKG, NUMA) and degenerate-level removal (`sd_degenerate()`,
    /// `sd_parent_degenerate()`).
    pub fn new(name: &str, sockets: u32, llcs_per_socket: u32, cores_per_llc: u32, threads_per_core: u32) -> Topology {
        let cores = sockets * llcs_per_socket * cores_per_llc;
        let nr = cores * threads_per_core;
        let mut cpus = Vec::with_capacity(nr as usize);
        for cpu in 0..nr {
            let (thread, core) = (cpu / cores, cpu % cores);
            let llc = core / cores_per_llc;
            let socket = llc / llcs_per_socket;
            cpus.push(CpuInfo { node: socket, socket, llc, core, thread });
        }
        let mut t = Topology {
            name: name.to_string(),
            sockets,
            llcs_per_socket,
            cores_per_llc,
            threads_per_core,
            cpus,
            spans: Vec::new(),
            span_cores: Vec::new(),
            domains: Vec::new(),
            sd_llc: Vec::new(),
            llc_span: Vec::new(),
            smt_span: Vec::new(),
            idle_states: &[],
        };
        t.build_domains();
        t.span_cores = t
            .spans
            .iter()
            .map(|s| {
                let mut cores: Vec<u32> = s.iter().map(|c| t.cpus[c as usize].core).collect();
                cores.dedup();
                cores.sort_unstable();
                cores.dedup();
                cores.len() as u32
            })
            .collect();
        t
    }

    pub fn nr_cpus(&self) -> u32 {
        self.cpus.len() as u32
    }

    /// Builds every CPU's domains in O(CPUs × groups): each level's spans
    /// are the classes of one key (core, LLC, socket, all), made once;
    /// spans are numbered in first use, equal CPU sets sharing a number.
    fn build_domains(&mut self) {
        let nr = self.nr_cpus();
        let mut b = Builder::new(self);
        for cpu in 0..nr {
            let smt = b.span(&mut self.spans, Level::Smt, cpu);
            let llc = b.span(&mut self.spans, Level::Mc, cpu);
            self.smt_span.push(smt);
            self.llc_span.push(llc);
            let mut doms: Vec<Domain> = Vec::new();
            // The child domain's level.
            let mut child: Option<Level> = None;
            for level in LEVELS {
                let weight = b.members(level, cpu).len() as u32;
                // Degenerate: a single CPU, or the same CPUs as the child.
                // (Levels nest, so the same size is the same CPUs.)
                if weight <= 1 || child.is_some_and(|c| b.members(c, cpu).len() as u32 == weight) {
                    continue;
                }
                // Groups are numbered before their domain's span.
                let groups = b.groups(&mut self.spans, cpu, level, child);
                let span = b.span(&mut self.spans, level, cpu);
                doms.push(sd_init(level, span, weight, groups, self.sockets > 1));
                child = Some(level);
            }
            let llc_dom = doms.iter().rposition(|d| d.flags & SD_SHARE_LLC != 0).map(|i| i as u32);
            self.sd_llc.push(llc_dom);
            self.domains.push(doms);
        }
    }

    /// `cpus_share_cache()`: same LLC.
    #[inline]
    pub fn share_cache(&self, a: u32, b: u32) -> bool {
        self.cpus[a as usize].llc == self.cpus[b as usize].llc
    }

    pub fn llc_size(&self, cpu: u32) -> u32 {
        self.spans[self.llc_span[cpu as usize] as usize].weight()
    }

    /// A short description ("2 sockets × 1 LLC × 24 cores × 2 threads").
    pub fn describe(&self) -> String {
        format!(
            "{} CPUs: {} socket{} × {} LLC × {} cores × {} thread{}",
            self.nr_cpus(),
            self.sockets,
            if self.sockets == 1 { "" } else { "s" },
            self.llcs_per_socket,
            self.cores_per_llc,
            self.threads_per_core,
            if self.threads_per_core == 1 { "" } else { "s" }
        )
    }
}

/// The default topology levels, bottom-up.
const LEVELS: [Level; 4] = [Level::Smt, Level::Mc, Level::Pkg, Level::Numa];

/// What `build_domains()` works from: per level, the class (key) of every
/// CPU and each class's CPUs in ascending order; span numbers made on first
/// use and shared by equal CPU sets.
struct Builder {
    nr: u32,
    /// Per level (LEVELS order), the key of each CPU.
    key: [Vec<u32>; 4],
    /// Per level, each key's CPUs, ascending.
    members: [Vec<Vec<u32>>; 4],
    /// Per level, each key's span number once made.
    id: [Vec<Option<u32>>; 4],
    /// Single-CPU spans (the groups of the lowest domain).
    single: Vec<Option<u32>>,
    /// Span numbers by CPU set.
    by_mask: std::collections::HashMap<CpuMask, u32>,
    /// Per (level, child level), each span's child classes.
    children: std::collections::HashMap<(usize, usize), Vec<Vec<u32>>>,
}

impl Builder {
    fn new(t: &Topology) -> Builder {
        let nr = t.nr_cpus();
        let key = |l: Level| -> Vec<u32> {
            t.cpus
                .iter()
                .map(|c| match l {
                    Level::Smt => c.core,
                    Level::Mc => c.llc,
                    Level::Pkg => c.socket,
                    Level::Numa => 0,
                })
                .collect()
        };
        let key = LEVELS.map(key);
        let members = std::array::from_fn(|l| {
            let n = key[l].iter().max().map_or(0, |&k| k as usize + 1);
            let mut m = vec![Vec::new(); n];
            for (cpu, &k) in key[l].iter().enumerate() {
                m[k as usize].push(cpu as u32);
            }
            m
        });
        let id = std::array::from_fn(|l: usize| vec![None; members[l].len()]);
        Builder { nr, key, members, id, single: vec![None; nr as usize], by_mask: Default::default(), children: Default::default() }
    }

    fn level(l: Level) -> usize {
        LEVELS.iter().position(|&x| x == l).unwrap_or(3)
    }

    /// The number of a CPU set, made (appended to `spans`) on first use.
    fn number(by_mask: &mut std::collections::HashMap<CpuMask, u32>, spans: &mut Vec<CpuMask>, m: CpuMask) -> u32 {
        *by_mask.entry(m).or_insert_with_key(|m| {
            spans.push(m.clone());
            spans.len() as u32 - 1
        })
    }

    /// The span of `cpu` at `level`.
    fn span(&mut self, spans: &mut Vec<CpuMask>, level: Level, cpu: u32) -> u32 {
        let l = Builder::level(level);
        let k = self.key[l][cpu as usize] as usize;
        if let Some(id) = self.id[l][k] {
            return id;
        }
        let m = CpuMask::from_cpus(self.nr, self.members[l][k].iter().copied());
        let id = Builder::number(&mut self.by_mask, spans, m);
        self.id[l][k] = Some(id);
        id
    }

    /// The CPUs of `cpu`'s span at `level`, ascending.
    fn members(&self, level: Level, cpu: u32) -> &[u32] {
        let l = Builder::level(level);
        &self.members[l][self.key[l][cpu as usize] as usize]
    }

    /// Mirrors `build_sched_groups()`: the child level's spans that make up
    /// `cpu`'s span at `level` (single CPUs without a child), starting with
    /// the one holding `cpu` and continuing in CPU order from there
    /// (`for_each_cpu_wrap`): a group comes in the order of its first CPU
    /// at or after `cpu`, groups wholly below `cpu` after those, by their
    /// first CPU.
    fn groups(&mut self, spans: &mut Vec<CpuMask>, cpu: u32, level: Level, child: Option<Level>) -> Vec<u32> {
        let l = Builder::level(level);
        let Some(child) = child else {
            let span = &self.members[l][self.key[l][cpu as usize] as usize];
            let order: Vec<u32> = span.iter().copied().filter(|&c| c >= cpu).chain(span.iter().copied().filter(|&c| c < cpu)).collect();
            return order
                .into_iter()
                .map(|c| {
                    *self.single[c as usize].get_or_insert_with(|| Builder::number(&mut self.by_mask, spans, CpuMask::from_cpus(self.nr, [c])))
                })
                .collect();
        };
        let cl = Builder::level(child);
        let parent = self.key[l][cpu as usize];
        // The child classes inside each span of this level, once per pair
        // of levels (levels nest: a child class lies in one parent class).
        if !self.children.contains_key(&(l, cl)) {
            let mut inside = vec![Vec::new(); self.members[l].len()];
            for (k, m) in self.members[cl].iter().enumerate() {
                if let Some(&c) = m.first() {
                    inside[self.key[l][c as usize] as usize].push(k as u32);
                }
            }
            self.children.insert((l, cl), inside);
        }
        let inside = &self.children[&(l, cl)][parent as usize];
        // Each with its first CPU in the wrapped order from `cpu`.
        let mut classes: Vec<(bool, u32, u32)> = inside
            .iter()
            .map(|&k| {
                let m = &self.members[cl][k as usize];
                match m.get(m.partition_point(|&x| x < cpu)) {
                    Some(&first) => (false, first, k),
                    None => (true, m[0], k),
                }
            })
            .collect();
        classes.sort_unstable();
        let first_cpu: Vec<u32> = classes.iter().map(|&(_, _, k)| self.members[cl][k as usize][0]).collect();
        first_cpu.into_iter().map(|c| self.span(spans, child, c)).collect()
    }
}

/// Mirrors `sd_init()` (kernel/sched/topology.c, v6.18): flags, imbalance
/// percentages, cache_nice_tries and balance intervals per level. Two-node
/// machines have node distance 21, below `node_reclaim_distance` (30), so
/// the NUMA level keeps WAKE_AFFINE and fork/exec balancing.
fn sd_init(level: Level, span: u32, weight: u32, groups: Vec<u32>, _numa: bool) -> Domain {
    let mut flags = SD_BALANCE_NEWIDLE | SD_BALANCE_EXEC | SD_BALANCE_FORK | SD_WAKE_AFFINE | SD_PREFER_SIBLING;
    let (mut imbalance_pct, mut cache_nice_tries) = (117, 0);
    match level {
        Level::Smt => {
            flags |= SD_SHARE_CPUCAPACITY | SD_SHARE_LLC;
            imbalance_pct = 110;
        }
        Level::Mc => {
            flags |= SD_SHARE_LLC;
            cache_nice_tries = 1;
        }
        Level::Numa => {
            flags |= SD_NUMA | SD_SERIALIZE;
            flags &= !SD_PREFER_SIBLING;
            cache_nice_tries = 2;
        }
        Level::Pkg => cache_nice_tries = 1,
    }
    Domain {
        level,
        span,
        span_weight: weight,
        groups,
        flags,
        imbalance_pct,
        cache_nice_tries,
        min_interval: weight,
        max_interval: 2 * weight,
        busy_factor: 16,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xeon_numbering_and_domains() {
        let t = Topology::preset("xeon-8260-2s").unwrap();
        assert_eq!(t.nr_cpus(), 96);
        // CPU 0 and 48 are SMT siblings; node 0 is 0-23,48-71.
        assert_eq!(t.spans[t.smt_span[0] as usize].to_list(), "0,48");
        assert_eq!(t.spans[t.llc_span[0] as usize].to_list(), "0-23,48-71");
        let d: Vec<Level> = t.domains[0].iter().map(|d| d.level).collect();
        // PKG has the same span as MC (one LLC per socket) and is dropped.
        assert_eq!(d, vec![Level::Smt, Level::Mc, Level::Numa]);
        let mc = &t.domains[0][1];
        assert_eq!((mc.span_weight, mc.imbalance_pct, mc.cache_nice_tries), (48, 117, 1));
        // MC's groups are the 24 cores, starting with CPU 0's.
        assert_eq!(mc.groups.len(), 24);
        assert_eq!(t.spans[mc.groups[0] as usize].to_list(), "0,48");
        let numa = &t.domains[0][2];
        assert_eq!(numa.groups.len(), 2);
        assert!(numa.flags & SD_NUMA != 0 && numa.flags & SD_PREFER_SIBLING == 0);
        assert_eq!(t.sd_llc[0], Some(1));
        assert_eq!(t.domains[0][0].imbalance_pct, 110);
    }

    #[test]
    fn epyc_has_pkg_level_over_ccx_llcs() {
        let t = Topology::preset("epyc-ccx").unwrap();
        assert_eq!(t.nr_cpus(), 128);
        let d: Vec<Level> = t.domains[5].iter().map(|d| d.level).collect();
        assert_eq!(d, vec![Level::Smt, Level::Mc, Level::Pkg]);
        assert_eq!(t.llc_size(5), 16);
        assert_eq!(t.domains[5][2].groups.len(), 8);
        assert_eq!(t.spans[t.domains[5][2].groups[0] as usize].to_list(), "0-7,64-71");
    }

    /// The builder before issue 15 (O(CPUs³)): every span found by a scan
    /// of all CPUs, numbered by a linear search. The fast builder must give
    /// exactly its machine.
    fn reference(sockets: u32, llcs: u32, cores_per_llc: u32, threads: u32) -> Topology {
        fn level_span(t: &Topology, cpu: u32, level: Level) -> CpuMask {
            let me = t.cpus[cpu as usize];
            let same = |o: &CpuInfo| match level {
                Level::Smt => o.core == me.core,
                Level::Mc => o.llc == me.llc,
                Level::Pkg => o.socket == me.socket,
                Level::Numa => true,
            };
            CpuMask::from_cpus(t.nr_cpus(), (0..t.nr_cpus()).filter(|&c| same(&t.cpus[c as usize])))
        }
        fn span_id(t: &mut Topology, m: CpuMask) -> u32 {
            if let Some(i) = t.spans.iter().position(|s| *s == m) {
                return i as u32;
            }
            t.spans.push(m);
            t.spans.len() as u32 - 1
        }
        let mut t = Topology::new("fast", sockets, llcs, cores_per_llc, threads);
        (t.spans, t.domains, t.sd_llc, t.llc_span, t.smt_span) = (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for cpu in 0..t.nr_cpus() {
            let (smt, llc) = (level_span(&t, cpu, Level::Smt), level_span(&t, cpu, Level::Mc));
            let (smt, llc) = (span_id(&mut t, smt), span_id(&mut t, llc));
            t.smt_span.push(smt);
            t.llc_span.push(llc);
            let mut doms: Vec<Domain> = Vec::new();
            let mut child: Option<(Level, CpuMask)> = None;
            for level in LEVELS {
                let span = level_span(&t, cpu, level);
                let weight = span.weight();
                if weight <= 1 || child.as_ref().is_some_and(|(_, c)| *c == span) {
                    continue;
                }
                let mut covered = CpuMask::new(t.nr_cpus());
                let mut groups = Vec::new();
                for c in span.iter_wrap(cpu).collect::<Vec<_>>() {
                    if covered.test(c) {
                        continue;
                    }
                    let g = match &child {
                        Some((l, _)) => level_span(&t, c, *l),
                        None => CpuMask::from_cpus(t.nr_cpus(), [c]),
                    };
                    for x in g.iter() {
                        covered.set(x);
                    }
                    groups.push(span_id(&mut t, g));
                }
                let idx = span_id(&mut t, span.clone());
                doms.push(sd_init(level, idx, weight, groups, t.sockets > 1));
                child = Some((level, span));
            }
            t.sd_llc.push(doms.iter().rposition(|d| d.flags & SD_SHARE_LLC != 0).map(|i| i as u32));
            t.domains.push(doms);
        }
        t
    }

    /// Every shape of up to 3 sockets × 3 LLCs × 4 cores × 3 threads, and
    /// the presets' shapes: the same spans (in the same order), domains,
    /// groups, LLC domains and spans as the reference builder.
    #[test]
    fn fast_builder_builds_the_reference_machine() {
        let mut shapes: Vec<[u32; 4]> = PRESETS.iter().map(|p| p.2).collect();
        for s in 1..=3 {
            for l in 1..=3 {
                for c in 1..=4 {
                    for th in 1..=3 {
                        shapes.push([s, l, c, th]);
                    }
                }
            }
        }
        for [s, l, c, th] in shapes {
            let (fast, slow) = (Topology::new("fast", s, l, c, th), reference(s, l, c, th));
            let what = format!("{s}x{l}x{c}x{th}");
            assert_eq!(fast.spans, slow.spans, "{what}");
            assert_eq!(format!("{:?}", fast.domains), format!("{:?}", slow.domains), "{what}");
            assert_eq!((&fast.sd_llc, &fast.llc_span, &fast.smt_span), (&slow.sd_llc, &slow.llc_span, &slow.smt_span), "{what}");
        }
    }

    /// 4 096 CPUs in the shapes that took 15–63 s before (issue 15): one
    /// LLC per core (1024 sockets × 4 LLCs, 1 024 groups at the NUMA level)
    /// and 64 × 8 × 8. The bound is generous for a debug build on a busy
    /// machine; README gives the release figures.
    #[test]
    fn big_machines_build_fast() {
        for [s, l, c, th] in [[1024, 4, 1, 1], [64, 8, 8, 1], [2, 8, 128, 2], [1, 1, 512, 8]] {
            let t0 = std::time::Instant::now();
            let t = Topology::new("big", s, l, c, th);
            let took = t0.elapsed();
            assert_eq!(t.nr_cpus(), 4096);
            assert!(took.as_secs_f64() < 5.0, "{s}x{l}x{c}x{th}: {took:?}");
        }
        // The NUMA domain of the first shape has one group per socket.
        let t = Topology::new("big", 1024, 4, 1, 1);
        let top = t.domains[0].last().unwrap();
        assert_eq!((top.level, top.groups.len()), (Level::Numa, 1024));
    }

    #[test]
    fn small_machines() {
        assert!(Topology::preset("1cpu").unwrap().domains[0].is_empty());
        let vm = Topology::preset("2cpu-vm").unwrap();
        assert_eq!(vm.domains[1].len(), 1);
        assert_eq!(vm.domains[1][0].level, Level::Mc);
        let i7 = Topology::preset("i7-4790").unwrap();
        assert_eq!(i7.spans[i7.smt_span[1] as usize].to_list(), "1,5");
        assert_eq!(i7.domains[1].iter().map(|d| d.level).collect::<Vec<_>>(), vec![Level::Smt, Level::Mc]);
    }
}
