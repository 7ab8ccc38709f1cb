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
/// target_residency).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdleState {
    pub name: &'static str,
    pub exit_latency_ns: u64,
    pub target_residency_ns: u64,
}

const fn cs(name: &'static str, exit_us: u64, residency_us: u64) -> IdleState {
    IdleState { name, exit_latency_ns: exit_us * 1000, target_residency_ns: residency_us * 1000 }
}

/// Idle states of the preset machines, from intel_idle's tables
/// (drivers/idle/intel_idle.c: hsw_cstates, skx_cstates, spr_cstates) and,
/// for EPYC, the ACPI _CST values Zen 3 servers commonly report.
pub const IDLE_STATES: &[(&str, &[IdleState])] = &[
    ("i7-4790", &[cs("C1", 2, 2), cs("C1E", 10, 20), cs("C3", 33, 100), cs("C6", 133, 400), cs("C7s", 166, 500)]),
    ("xeon-8260-2s", &[cs("C1", 2, 2), cs("C1E", 10, 20), cs("C6", 133, 600)]),
    ("spr-2s-224", &[cs("C1", 1, 1), cs("C1E", 2, 4), cs("C6", 290, 800)]),
    ("epyc-ccx", &[cs("C1", 1, 2), cs("C2", 18, 36)]),
];

/// The state an idle period of `idle_ns` ends in: the deepest whose target
/// residency it covered (what an ideal governor, knowing the idle length,
/// would have entered). None: no state (or the period was too short).
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

    fn span_id(&mut self, m: CpuMask) -> u32 {
        if let Some(i) = self.spans.iter().position(|s| *s == m) {
            return i as u32;
        }
        self.spans.push(m);
        self.spans.len() as u32 - 1
    }

    /// The CPUs of `cpu`'s span at a level.
    fn level_span(&self, cpu: u32, level: Level) -> CpuMask {
        let me = self.cpus[cpu as usize];
        let same = |o: &CpuInfo| match level {
            Level::Smt => o.core == me.core,
            Level::Mc => o.llc == me.llc,
            Level::Pkg => o.socket == me.socket,
            Level::Numa => true,
        };
        CpuMask::from_cpus(self.nr_cpus(), (0..self.nr_cpus()).filter(|&c| same(&self.cpus[c as usize])))
    }

    fn build_domains(&mut self) {
        let nr = self.nr_cpus();
        let levels = [Level::Smt, Level::Mc, Level::Pkg, Level::Numa];
        for cpu in 0..nr {
            let smt = self.level_span(cpu, Level::Smt);
            let llc = self.level_span(cpu, Level::Mc);
            let smt_id = self.span_id(smt);
            let llc_id = self.span_id(llc);
            self.smt_span.push(smt_id);
            self.llc_span.push(llc_id);

            let mut doms: Vec<Domain> = Vec::new();
            let mut child: Option<CpuMask> = None;
            for level in levels {
                let span = self.level_span(cpu, level);
                let weight = span.weight();
                // Degenerate: a single CPU, or the same CPUs as the child.
                if weight <= 1 || child.as_ref() == Some(&span) {
                    continue;
                }
                let groups = self.groups(cpu, &span, child.as_ref());
                let span_idx = self.span_id(span.clone());
                doms.push(sd_init(level, span_idx, weight, groups, self.sockets > 1));
                child = Some(span);
            }
            let llc_dom = doms.iter().rposition(|d| d.flags & SD_SHARE_LLC != 0).map(|i| i as u32);
            self.sd_llc.push(llc_dom);
            self.domains.push(doms);
        }
    }

    /// Mirrors `build_sched_groups()`: the child domain's spans that cover
    /// this span (single CPUs at the lowest level), starting with the group
    /// that contains `cpu` and continuing in CPU order.
    fn groups(&mut self, cpu: u32, span: &CpuMask, child: Option<&CpuMask>) -> Vec<u32> {
        let mut covered = CpuMask::new(self.nr_cpus());
        let mut out = Vec::new();
        let order: Vec<u32> = span.iter_wrap(cpu).collect();
        for c in order {
            if covered.test(c) {
                continue;
            }
            let g = match child {
                // The child level of CPU c is the same level as our child.
                Some(ch) => {
                    let level = self.child_level_of(ch, cpu);
                    self.level_span(c, level)
                }
                None => CpuMask::from_cpus(self.nr_cpus(), [c]),
            };
            for x in g.iter() {
                covered.set(x);
            }
            out.push(self.span_id(g));
        }
        out
    }

    /// Which level produced `child` for `cpu` (the smallest level whose
    /// span equals it).
    fn child_level_of(&self, child: &CpuMask, cpu: u32) -> Level {
        [Level::Smt, Level::Mc, Level::Pkg, Level::Numa]
            .into_iter()
            .find(|&l| &self.level_span(cpu, l) == child)
            .unwrap_or(Level::Numa)
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
