//! What the local kernel is and how it is tuned, read from /proc and sysfs,
//! so the model can be configured to match: version → preset, HZ, base
//! slice, CPUs and topology, autogroup, preemption model. Every fact says
//! where it came from; facts that could not be read are listed.

use std::path::PathBuf;
#[cfg(test)]
use std::path::Path;

use serde::Serialize;

use super::procfs;
use super::topology::{self, HostTopology, Shape};

/// Where /proc and /sys are: "/" on the live system, a captured tree in
/// tests.
#[derive(Clone, Debug)]
pub struct Host {
    pub root: PathBuf,
    /// Whether live probes (spawning a thread, sampling jiffies) may run.
    pub live: bool,
}

impl Host {
    pub fn live() -> Host {
        Host { root: PathBuf::from("/"), live: true }
    }

    #[cfg(test)]
    pub fn captured(root: &Path) -> Host {
        Host { root: root.to_path_buf(), live: false }
    }

    /// An absolute kernel path ("/proc/stat") under the root.
    pub fn path(&self, p: &str) -> PathBuf {
        self.root.join(p.trim_start_matches('/'))
    }

    pub fn read(&self, p: &str) -> Result<String, String> {
        std::fs::read_to_string(self.path(p)).map_err(|e| format!("{p}: {e}"))
    }
}

/// A value and where it came from (or, without a value, why not).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Fact<T> {
    pub value: Option<T>,
    pub source: String,
}

impl<T> Fact<T> {
    fn found(value: T, source: impl Into<String>) -> Self {
        Fact { value: Some(value), source: source.into() }
    }
    fn missing(why: impl Into<String>) -> Self {
        Fact { value: None, source: why.into() }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Facts {
    /// `/proc/sys/kernel/osrelease`.
    pub release: Fact<String>,
    /// The schedlab preset for that version, or why there is none.
    pub preset: Fact<&'static str>,
    pub hz: Fact<u32>,
    /// `sysctl_sched_base_slice` as the kernel uses it (already scaled by
    /// the CPU count).
    pub base_slice_ns: Fact<u64>,
    pub online_cpus: Vec<u32>,
    pub topology: Option<HostTopology>,
    /// The machine as a scenario `[topology]`, when symmetric.
    pub shape: Fact<String>,
    /// `/proc/sys/kernel/sched_autogroup_enabled`.
    pub autogroup: Fact<bool>,
    pub preempt: Fact<String>,
    /// cgroup of the CPU controller this process runs in.
    pub cpu_cgroup: Fact<String>,
    /// `/sys/kernel/debug/sched/features`, when debugfs is mounted.
    pub sched_features: Fact<String>,
    /// Scheduling-related kernel command-line parameters.
    pub cmdline_sched: Vec<String>,
    /// Whether per-task schedstat (run_delay) is readable.
    pub schedstat: bool,
    /// One line per fact that could not be read.
    pub unread: Vec<String>,
}

/// The kernel config: `/proc/config.gz` (CONFIG_IKCONFIG_PROC), else
/// `/boot/config-<release>`.
pub fn kernel_config(host: &Host, release: Option<&str>) -> Fact<String> {
    let gz = std::fs::read(host.path("/proc/config.gz")).map_err(|e| e.to_string()).and_then(|b| procfs::gunzip(&b));
    let gz_err = match gz.map(String::from_utf8) {
        Ok(Ok(text)) => return Fact::found(text, "/proc/config.gz"),
        Ok(Err(e)) => e.to_string(),
        Err(e) => e,
    };
    let boot = format!("/boot/config-{}", release.unwrap_or("?"));
    match host.read(&boot) {
        Ok(text) => Fact::found(text, boot),
        Err(e) => Fact::missing(format!("/proc/config.gz: {gz_err}; {e}")),
    }
}

/// HZ from the kernel config, else measured from the rate of `jiffies` in
/// `/proc/timer_list` (root only) over 250 ms.
fn hz(host: &Host, config: &Fact<String>) -> Fact<u32> {
    if let Some(hz) = config.value.as_deref().and_then(procfs::config_hz) {
        return Fact::found(hz, format!("CONFIG_HZ in {}", config.source));
    }
    if !host.live {
        return Fact::missing("no kernel config; jiffies are only sampled live");
    }
    let sample = || host.read("/proc/timer_list").ok().and_then(|t| procfs::timer_list_jiffies(&t)).map(|j| (j, std::time::Instant::now()));
    let Some((j0, t0)) = sample() else {
        return Fact::missing("no kernel config, and /proc/timer_list is not readable (needs root)");
    };
    std::thread::sleep(std::time::Duration::from_millis(250));
    match sample().and_then(|(j1, t1)| procfs::hz_from_jiffies(j1.saturating_sub(j0), (t1 - t0).as_nanos() as u64)) {
        Some(hz) => Fact::found(hz, "jiffies rate in /proc/timer_list"),
        None => Fact::missing("jiffies rate in /proc/timer_list matches no HZ value"),
    }
}

/// The base slice: `se.slice` of a thread created just now (v6.12+ print
/// it; a new fair task starts with `sysctl_sched_base_slice`), else debugfs
/// `sched/base_slice_ns`.
fn base_slice(host: &Host) -> Fact<u64> {
    if host.live {
        let probe = std::thread::spawn(|| std::fs::read_to_string("/proc/thread-self/sched").ok().and_then(|t| procfs::parse_task_sched(&t).ok()));
        if let Some(slice) = probe.join().ok().flatten().and_then(|s| s.slice_ns) {
            return Fact::found(slice, "se.slice of a new thread (/proc/thread-self/sched)");
        }
    }
    match host.read("/sys/kernel/debug/sched/base_slice_ns").ok().and_then(|t| t.trim().parse().ok()) {
        Some(v) => Fact::found(v, "/sys/kernel/debug/sched/base_slice_ns"),
        None => Fact::missing("se.slice not in /proc/<tid>/sched (kernel < 6.12?) and debugfs sched/base_slice_ns not readable"),
    }
}

/// The kernel log, read without blocking from `/dev/kmsg` (root, or
/// kernel.dmesg_restrict = 0). Each read() returns one record.
#[cfg(target_os = "linux")]
fn kernel_log(host: &Host) -> Option<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let mut f = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(host.path("/dev/kmsg")).ok()?;
    let (mut buf, mut out) = (vec![0u8; 8192], String::new());
    while out.len() < (16 << 20) {
        match f.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => out.push_str(&String::from_utf8_lossy(&buf[..n])),
            Err(e) if e.raw_os_error() == Some(libc::EPIPE) => continue,
            Err(_) => break,
        }
    }
    Some(out)
}

#[cfg(not(target_os = "linux"))]
fn kernel_log(host: &Host) -> Option<String> {
    host.read("/dev/kmsg").ok()
}

/// The preemption model: debugfs `sched/preempt`, else what the kernel
/// logged at boot, else `preempt=` on the command line, else the config's
/// default.
fn preempt(host: &Host, config: &Fact<String>) -> Fact<String> {
    if let Some(m) = host.read("/sys/kernel/debug/sched/preempt").ok().as_deref().and_then(procfs::active_preempt) {
        return Fact::found(m.to_string(), "/sys/kernel/debug/sched/preempt");
    }
    if let Some(m) = kernel_log(host).as_deref().and_then(procfs::klog_preempt) {
        return Fact::found(m.to_string(), "\"Dynamic Preempt:\" in the kernel log");
    }
    if let Some(m) = host.read("/proc/cmdline").ok().as_deref().and_then(procfs::cmdline_preempt) {
        return Fact::found(m.to_string(), "preempt= in /proc/cmdline");
    }
    match config.value.as_deref().and_then(procfs::config_preempt) {
        Some(m) => Fact::found(m.to_string(), format!("CONFIG_PREEMPT_* in {}", config.source)),
        None => Fact::missing("no debugfs sched/preempt, no preempt= and no kernel config"),
    }
}

fn release(host: &Host) -> (Fact<String>, Fact<&'static str>) {
    let Ok(r) = host.read("/proc/sys/kernel/osrelease") else {
        return (Fact::missing("/proc/sys/kernel/osrelease not readable"), Fact::missing("unknown kernel version"));
    };
    let r = r.trim().to_string();
    let presets = schedlab_engine::kernel::sched::features::PRESET_NAMES;
    let preset = match procfs::parse_release(&r).map(|v| procfs::preset_for(v, &presets)) {
        Some(Ok(p)) => Fact::found(p, format!("nearest preset for {r}")),
        Some(Err(e)) => Fact::missing(e),
        None => Fact::missing(format!("cannot parse the version in `{r}`")),
    };
    (Fact::found(r, "/proc/sys/kernel/osrelease"), preset)
}

fn topology_facts(host: &Host) -> (Vec<u32>, Option<HostTopology>, Fact<String>) {
    let sys_cpu = host.path("/sys/devices/system/cpu");
    let online = topology::online_cpus(&sys_cpu).unwrap_or_default();
    match topology::read_topology(&sys_cpu) {
        Ok(t) => {
            let shape = match t.shape() {
                Ok(s) => Fact::found(shape_line(&s), "sysfs cpu*/topology, cache/index*"),
                Err(e) => Fact::missing(e),
            };
            (online, Some(t), shape)
        }
        Err(e) => (online, None, Fact::missing(e)),
    }
}

fn shape_line(s: &Shape) -> String {
    format!("{} socket(s) × {} LLC(s) × {} core(s) × {} thread(s)", s.sockets, s.llcs_per_socket, s.cores_per_llc, s.threads_per_core)
}

fn simple_facts(host: &Host) -> (Fact<bool>, Fact<String>, bool) {
    let autogroup = match host.read("/proc/sys/kernel/sched_autogroup_enabled") {
        Ok(v) => Fact::found(v.trim() != "0", "/proc/sys/kernel/sched_autogroup_enabled"),
        Err(e) => Fact::missing(format!("{e} (kernel without CONFIG_SCHED_AUTOGROUP?)")),
    };
    let cgroup = match host.read("/proc/self/cgroup").ok().as_deref().and_then(procfs::cpu_cgroup) {
        Some(p) => Fact::found(p.to_string(), "/proc/self/cgroup"),
        None => Fact::missing("/proc/self/cgroup names no cpu controller"),
    };
    let schedstat = host.read("/proc/self/schedstat").ok().is_some_and(|t| procfs::parse_schedstat(&t).is_ok());
    (autogroup, cgroup, schedstat)
}

/// The scheduler's feature flags as debugfs `sched/features` prints them
/// ("PLACE_LAG NO_NEXT_BUDDY …"). Where that file is closed but
/// `sched/debug` is readable (this VM), its `.sysctl_sched_features` mask
/// is decoded for a 6.18 kernel, whose features.h order is known
/// (`FEATURES_H_6_18`).
fn sched_features(host: &Host, release: Option<&str>) -> Fact<String> {
    if let Ok(f) = host.read("/sys/kernel/debug/sched/features") {
        return Fact::found(f.trim().to_string(), "/sys/kernel/debug/sched/features");
    }
    let Ok(debug) = host.read("/sys/kernel/debug/sched/debug") else {
        return Fact::missing("debugfs sched/features and sched/debug not readable (debugfs not mounted — `mount -t debugfs none /sys/kernel/debug` — not root, or kernel lockdown)");
    };
    let Some(mask) = procfs::parse_feature_mask(&debug) else {
        return Fact::missing("sched/features not readable, and sched/debug has no .sysctl_sched_features");
    };
    if release.and_then(procfs::parse_release) != Some((6, 18)) {
        return Fact::missing(format!("sched/features not readable; sched/debug's mask {mask} is decoded only for 6.18, whose features.h order is known"));
    }
    match procfs::decode_features(mask, &procfs::FEATURES_H_6_18) {
        Some(text) => Fact::found(text, format!(".sysctl_sched_features = {mask} in /sys/kernel/debug/sched/debug, in the order of 6.18.5's features.h")),
        None => Fact::missing(format!("sched/debug's mask {mask} has more flags than 6.18.5's features.h: not decoded")),
    }
}

/// Reads every fact; never fails, but lists what it could not read.
pub fn gather(host: &Host) -> Facts {
    let (release, preset) = release(host);
    let config = kernel_config(host, release.value.as_deref());
    let (online_cpus, topology, shape) = topology_facts(host);
    let (autogroup, cpu_cgroup, schedstat) = simple_facts(host);
    let sched_features = sched_features(host, release.value.as_deref());
    let mut f = Facts {
        hz: hz(host, &config),
        base_slice_ns: base_slice(host),
        preempt: preempt(host, &config),
        release,
        preset,
        online_cpus,
        topology,
        shape,
        autogroup,
        cpu_cgroup,
        sched_features,
        schedstat,
        cmdline_sched: host.read("/proc/cmdline").map(|c| procfs::cmdline_sched_params(&c).into_iter().map(String::from).collect()).unwrap_or_default(),
        unread: Vec::new(),
    };
    f.unread = unread(&f, &config);
    f
}

fn unread(f: &Facts, config: &Fact<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut note = |what: &str, ok: bool, why: &str| {
        if !ok {
            out.push(format!("{what}: {why}"));
        }
    };
    note("kernel config", config.value.is_some(), &config.source);
    note("kernel version", f.release.value.is_some(), &f.release.source);
    note("HZ", f.hz.value.is_some(), &f.hz.source);
    note("base slice", f.base_slice_ns.value.is_some(), &f.base_slice_ns.source);
    note("online CPUs", !f.online_cpus.is_empty(), "/sys/devices/system/cpu/online not readable");
    note("topology", f.shape.value.is_some(), &f.shape.source);
    note("autogroup", f.autogroup.value.is_some(), &f.autogroup.source);
    note("preemption model", f.preempt.value.is_some(), &f.preempt.source);
    note("scheduler features", f.sched_features.value.is_some(), &f.sched_features.source);
    note("run_delay", f.schedstat, "/proc/<tid>/schedstat not readable (CONFIG_SCHED_INFO off?)");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data;

    #[test]
    fn captured_host() {
        let f = gather(&Host::captured(&test_data("host-6.18")));
        assert_eq!(f.release.value.as_deref(), Some("6.18.44-fc-v657"));
        assert_eq!(f.preset.value, Some("6.18"));
        assert_eq!(f.hz.value, Some(250));
        assert_eq!(f.hz.source, "CONFIG_HZ in /proc/config.gz");
        assert_eq!(f.online_cpus, vec![0, 1]);
        assert_eq!(f.autogroup.value, Some(true));
        assert_eq!(f.preempt.value.as_deref(), Some("none"));
        assert_eq!(f.preempt.source, "\"Dynamic Preempt:\" in the kernel log");
        assert!(f.shape.value.as_deref().unwrap().starts_with("1 socket(s) × 1 LLC(s) × 2 core(s)"));
        // Not captured, not probed: listed as unread.
        assert!(f.base_slice_ns.value.is_none());
        assert!(f.unread.iter().any(|u| u.starts_with("base slice")), "{:?}", f.unread);
        // sched/features is not captured (this VM refuses it even to root);
        // sched/debug's mask is, and decodes in 6.18.5's features.h order.
        let features = f.sched_features.value.as_deref().unwrap();
        assert!(features.starts_with("PLACE_LAG PLACE_DEADLINE_INITIAL") && features.ends_with(" NI_RANDOM"), "{features}");
        assert!(f.sched_features.source.starts_with(".sysctl_sched_features = 99674079"), "{}", f.sched_features.source);
    }

    #[test]
    fn empty_host_lists_everything_unread() {
        let f = gather(&Host::captured(Path::new("/nonexistent-root")));
        assert!(f.preset.value.is_none() && f.hz.value.is_none() && f.online_cpus.is_empty());
        for what in ["kernel config", "kernel version", "HZ", "online CPUs", "topology", "autogroup"] {
            assert!(f.unread.iter().any(|u| u.starts_with(what)), "{what}: {:?}", f.unread);
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn live_host_base_slice_is_probed() {
        let f = gather(&Host::live());
        if f.release.value.as_deref().and_then(procfs::parse_release).is_some_and(|v| v >= (6, 12)) {
            assert!(f.base_slice_ns.value.is_some(), "{:?}", f.base_slice_ns);
        }
    }
}
