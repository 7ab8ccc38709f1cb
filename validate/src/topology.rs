//! The machine's CPU topology from sysfs (`/sys/devices/system/cpu`,
//! drivers/base/topology.c and drivers/base/cacheinfo.c), and the
//! `[topology]` shape of a schedlab scenario that would model it.
//!
//! A scenario whose `[topology]` is this machine's `Shape`, numbered CPU
//! for CPU as the engine numbers its CPUs, runs on the whole machine
//! (`plan::Layout::Machine`).

use std::collections::BTreeSet;
use std::path::Path;

use serde::Serialize;

use schedlab_engine::kernel::sched::topology::{CpuInfo, Topology};
use schedlab_engine::lab::scenario::CpuList;

/// One online CPU as sysfs describes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostCpu {
    pub cpu: u32,
    /// `topology/physical_package_id`.
    pub package: i64,
    /// `topology/die_id` (v5.3+), when present.
    pub die: Option<i64>,
    /// `topology/core_cpus_list` (older kernels: `thread_siblings_list`):
    /// the SMT siblings sharing this CPU's core, itself included.
    pub core_cpus: Vec<u32>,
    /// `topology/cluster_cpus_list` (v5.16+), when present.
    pub cluster_cpus: Option<Vec<u32>>,
    /// `shared_cpu_list` of the highest-level data/unified cache
    /// (`cache/index3` on most x86): the last-level cache's CPUs.
    pub llc_cpus: Option<Vec<u32>>,
}

/// The online CPUs of a machine.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HostTopology {
    pub cpus: Vec<HostCpu>,
}

/// A symmetric topology in the counts of a scenario's `[topology]` table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shape {
    pub sockets: u32,
    pub llcs_per_socket: u32,
    pub cores_per_llc: u32,
    pub threads_per_core: u32,
}

impl Shape {
    pub fn cpus(&self) -> u32 {
        self.sockets * self.llcs_per_socket * self.cores_per_llc * self.threads_per_core
    }

    /// The scenario table that describes this shape.
    pub fn to_toml(self) -> String {
        format!(
            "[topology]\nsockets = {}\nllcs_per_socket = {}\ncores_per_llc = {}\nthreads_per_core = {}\n",
            self.sockets, self.llcs_per_socket, self.cores_per_llc, self.threads_per_core
        )
    }
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok().map(|s| s.trim().to_string())
}

fn read_list(path: &Path) -> Option<Vec<u32>> {
    CpuList::parse(&read(path)?).ok().map(|l| l.0)
}

/// `/sys/devices/system/cpu/online`: the online CPUs.
pub fn online_cpus(sys_cpu: &Path) -> Result<Vec<u32>, String> {
    let p = sys_cpu.join("online");
    read_list(&p).ok_or_else(|| format!("cannot read {}", p.display()))
}

/// The last-level cache of a CPU: the `cache/index*` of highest `level`
/// that is not an instruction cache.
fn llc_cpus(cpu_dir: &Path) -> Option<Vec<u32>> {
    let mut best: Option<(u32, Vec<u32>)> = None;
    for entry in std::fs::read_dir(cpu_dir.join("cache")).ok()?.flatten() {
        let dir = entry.path();
        if !entry.file_name().to_string_lossy().starts_with("index") || read(&dir.join("type")).as_deref() == Some("Instruction") {
            continue;
        }
        let (Some(level), Some(list)) = (read(&dir.join("level")).and_then(|l| l.parse().ok()), read_list(&dir.join("shared_cpu_list"))) else {
            continue;
        };
        if best.as_ref().is_none_or(|(l, _)| level > *l) {
            best = Some((level, list));
        }
    }
    best.map(|(_, l)| l)
}

/// Reads one CPU's `topology/` and `cache/` directories.
fn read_cpu(sys_cpu: &Path, cpu: u32) -> Result<HostCpu, String> {
    let dir = sys_cpu.join(format!("cpu{cpu}"));
    let topo = dir.join("topology");
    let package = read(&topo.join("physical_package_id")).and_then(|v| v.parse().ok());
    let core = read_list(&topo.join("core_cpus_list")).or_else(|| read_list(&topo.join("thread_siblings_list")));
    let (Some(package), Some(core_cpus)) = (package, core) else {
        return Err(format!("cannot read {}", topo.display()));
    };
    Ok(HostCpu {
        cpu,
        package,
        die: read(&topo.join("die_id")).and_then(|v| v.parse().ok()),
        core_cpus,
        cluster_cpus: read_list(&topo.join("cluster_cpus_list")),
        llc_cpus: llc_cpus(&dir),
    })
}

/// Reads the topology of every online CPU under `sys_cpu` (normally
/// `/sys/devices/system/cpu`).
pub fn read_topology(sys_cpu: &Path) -> Result<HostTopology, String> {
    let cpus = online_cpus(sys_cpu)?.into_iter().map(|c| read_cpu(sys_cpu, c)).collect::<Result<_, _>>()?;
    Ok(HostTopology { cpus })
}

impl HostTopology {
    pub fn cpu(&self, cpu: u32) -> Option<&HostCpu> {
        self.cpus.iter().find(|c| c.cpu == cpu)
    }

    fn packages(&self) -> BTreeSet<i64> {
        self.cpus.iter().map(|c| c.package).collect()
    }

    /// The LLC of a CPU; without cache information, its package.
    fn llc_of(&self, c: &HostCpu) -> Vec<u32> {
        c.llc_cpus.clone().unwrap_or_else(|| self.cpus.iter().filter(|o| o.package == c.package).map(|o| o.cpu).collect())
    }

    /// Distinct groups (LLCs or cores) among the CPUs of one package.
    fn groups_in(&self, package: i64, group: impl Fn(&HostCpu) -> Vec<u32>) -> BTreeSet<Vec<u32>> {
        self.cpus.iter().filter(|c| c.package == package).map(group).collect()
    }

    /// The scenario shape of this machine, when it is symmetric: every
    /// socket has as many LLCs, every LLC as many cores, every core as many
    /// threads.
    pub fn shape(&self) -> Result<Shape, String> {
        let packages = self.packages();
        let llcs: Vec<BTreeSet<Vec<u32>>> = packages.iter().map(|&p| self.groups_in(p, |c| self.llc_of(c))).collect();
        let cores: BTreeSet<Vec<u32>> = self.cpus.iter().map(|c| c.core_cpus.clone()).collect();
        let threads: BTreeSet<usize> = cores.iter().map(Vec::len).collect();
        let llc_counts: BTreeSet<usize> = llcs.iter().map(BTreeSet::len).collect();
        let cores_per_llc: BTreeSet<usize> =
            llcs.iter().flatten().map(|llc| cores.iter().filter(|core| core.iter().all(|c| llc.contains(c))).count()).collect();
        let one = |set: &BTreeSet<usize>, what: &str| match set.iter().collect::<Vec<_>>()[..] {
            [&n] => Ok(n as u32),
            _ => Err(format!("asymmetric topology: {what} differ ({set:?})")),
        };
        let shape = Shape {
            sockets: packages.len() as u32,
            llcs_per_socket: one(&llc_counts, "LLCs per socket")?,
            cores_per_llc: one(&cores_per_llc, "cores per LLC")?,
            threads_per_core: one(&threads, "threads per core")?,
        };
        if shape.cpus() as usize != self.cpus.len() {
            return Err(format!("topology does not add up: {} CPUs online, shape gives {}", self.cpus.len(), shape.cpus()));
        }
        Ok(shape)
    }

    /// The shape, when CPU n of the engine's machine of that shape
    /// (`Topology::new`: SMT siblings numbered a core count apart, as Linux
    /// numbers x86 threads) is CPU n here: same core, LLC and socket
    /// neighbours. Only then can a scenario's CPU numbers (affinities)
    /// mean the same CPUs on both sides.
    pub fn model_shape(&self) -> Result<Shape, String> {
        let shape = self.shape()?;
        let model = Topology::new("host", shape.sockets, shape.llcs_per_socket, shape.cores_per_llc, shape.threads_per_core);
        let alike = |cpu: u32, key: fn(&CpuInfo) -> u32| -> Vec<u32> {
            let k = key(&model.cpus[cpu as usize]);
            (0..model.nr_cpus()).filter(|&o| key(&model.cpus[o as usize]) == k).collect()
        };
        for c in &self.cpus {
            if c.cpu >= model.nr_cpus() {
                return Err(format!("CPU {} is numbered past the {} CPUs of its shape", c.cpu, model.nr_cpus()));
            }
            let socket: Vec<u32> = self.cpus.iter().filter(|o| o.package == c.package).map(|o| o.cpu).collect();
            let numbered_alike = c.core_cpus == alike(c.cpu, |i| i.core) && self.llc_of(c) == alike(c.cpu, |i| i.llc) && socket == alike(c.cpu, |i| i.socket);
            if !numbered_alike {
                return Err(format!(
                    "CPU {}'s core, LLC or socket neighbours ({}, {}, {}) are not those the model numbers for its shape",
                    c.cpu,
                    CpuList(c.core_cpus.clone()),
                    CpuList(self.llc_of(c)),
                    CpuList(socket)
                ));
            }
        }
        Ok(shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data;

    #[test]
    fn real_two_cpu_vm() {
        let t = read_topology(&test_data("host-6.18/sys/devices/system/cpu")).unwrap();
        assert_eq!(t.cpus.len(), 2);
        let c1 = t.cpu(1).unwrap();
        assert_eq!((c1.package, c1.die), (0, Some(0)));
        assert_eq!(c1.core_cpus, vec![1]);
        assert_eq!(c1.cluster_cpus, Some(vec![1]));
        assert_eq!(c1.llc_cpus, Some(vec![0, 1]));
        assert_eq!(t.shape().unwrap(), Shape { sockets: 1, llcs_per_socket: 1, cores_per_llc: 2, threads_per_core: 1 });
        assert_eq!(t.model_shape(), t.shape());
    }

    /// Hand-written: 2 sockets × 2 LLCs (CCX) × 2 cores × 2 SMT threads,
    /// numbered as Linux numbers AMD parts (CPUs 0–7 first threads, 8–15
    /// their siblings).
    #[test]
    fn two_socket_smt_sample() {
        let t = read_topology(&test_data("sysfs-2socket-2llc-smt2/sys/devices/system/cpu")).unwrap();
        assert_eq!(t.cpus.len(), 16);
        let c13 = t.cpu(13).unwrap();
        assert_eq!((c13.package, c13.core_cpus.clone(), c13.llc_cpus.clone()), (1, vec![5, 13], Some(vec![4, 5, 12, 13])));
        let shape = t.shape().unwrap();
        assert_eq!(shape, Shape { sockets: 2, llcs_per_socket: 2, cores_per_llc: 2, threads_per_core: 2 });
        assert_eq!(shape.cpus(), 16);
        let sc = schedlab_engine::lab::scenario::parse(&shape.to_toml()).unwrap();
        assert_eq!(sc.topology.threads_per_core.map(|t| t.0), Some(2));
        // Linux's numbering is the engine's: thread 1 of core 5 is CPU 13
        // in both.
        assert_eq!(t.model_shape(), Ok(shape));
    }

    /// SMT siblings numbered next to each other (0,1 a core; as some ARM
    /// and older BIOSes number them) are not the engine's numbering: CPU 1
    /// would be another core in the model.
    #[test]
    fn adjacent_siblings_are_numbered_unlike_the_model() {
        let mut t = read_topology(&test_data("sysfs-2socket-2llc-smt2/sys/devices/system/cpu")).unwrap();
        for c in &mut t.cpus {
            let first = c.cpu & !1;
            c.core_cpus = vec![first, first + 1];
        }
        assert!(t.shape().is_ok());
        let e = t.model_shape().unwrap_err();
        assert!(e.contains("CPU 0's core") && e.contains("not those the model numbers"), "{e}");
    }

    #[test]
    fn asymmetric_and_missing() {
        let mut t = read_topology(&test_data("sysfs-2socket-2llc-smt2/sys/devices/system/cpu")).unwrap();
        t.cpus.retain(|c| c.cpu != 15);
        assert!(t.shape().unwrap_err().contains("does not add up"));
        t.cpus.iter_mut().filter(|c| c.cpu == 7).for_each(|c| c.core_cpus = vec![7]);
        assert!(t.shape().unwrap_err().contains("asymmetric topology: threads per core differ"));
        assert!(read_topology(Path::new("/nonexistent/sys/cpu")).is_err());
    }

    #[test]
    fn without_cache_info_the_package_is_the_llc() {
        let mut t = read_topology(&test_data("sysfs-2socket-2llc-smt2/sys/devices/system/cpu")).unwrap();
        t.cpus.iter_mut().for_each(|c| c.llc_cpus = None);
        assert_eq!(t.shape().unwrap(), Shape { sockets: 2, llcs_per_socket: 1, cores_per_llc: 4, threads_per_core: 2 });
    }
}
