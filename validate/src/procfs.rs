//! Parsers for the kernel's text interfaces that validation reads. Pure
//! text in, numbers out, so they are tested on captured samples on any
//! platform (`validate/tests/data/`).

use std::collections::BTreeMap;
use std::io::Read;

/// A decompressed `/proc/config.gz` (CONFIG_IKCONFIG_PROC) is ~300 KiB;
/// refuse anything that inflates past this.
const MAX_CONFIG_BYTES: u64 = 16 << 20;

/// Decompresses a gzip file (`/proc/config.gz`), checking its CRC and
/// length, into at most 16 MiB.
pub fn gunzip(data: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(data).take(MAX_CONFIG_BYTES + 1).read_to_end(&mut out).map_err(|e| format!("gzip: {e}"))?;
    if out.len() as u64 > MAX_CONFIG_BYTES {
        return Err(format!("gzip: inflates to more than {MAX_CONFIG_BYTES} bytes"));
    }
    Ok(out)
}

/// Per-task scheduler statistics from `/proc/<pid>/task/<tid>/sched`
/// (`proc_sched_show_task()`, kernel/sched/debug.c).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskSched {
    /// `se.sum_exec_runtime`, ns (printed as ms with six decimals).
    pub sum_exec_runtime_ns: u64,
    /// `nr_switches` = nvcsw + nivcsw.
    pub nr_switches: u64,
    pub nr_voluntary_switches: u64,
    pub nr_involuntary_switches: u64,
    /// `se.nr_migrations`.
    pub nr_migrations: u64,
    /// `se.slice`, ns (printed since v6.12 in this form; absent before).
    pub slice_ns: Option<u64>,
    /// `policy` (0 normal, 3 batch, 5 idle).
    pub policy: Option<u64>,
    /// `prio` (120 + nice for fair tasks).
    pub prio: Option<u64>,
}

/// The "key : value" lines of a debug.c style file, values as written.
pub fn key_values(text: &str) -> BTreeMap<&str, &str> {
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim(), v.trim()))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty() && !k.contains(' '))
        .collect()
}

/// A `PN()` value of debug.c, "ms.nnnnnn" (`SPLIT_NS`), as ns. Plain
/// integers (`P()`) are taken as ns too.
pub fn split_ns(v: &str) -> Option<u64> {
    match v.split_once('.') {
        Some((ms, ns)) if ns.len() == 6 => Some(ms.parse::<u64>().ok()? * 1_000_000 + ns.parse::<u64>().ok()?),
        Some(_) => None,
        None => v.parse().ok(),
    }
}

/// Parses `/proc/<pid>/task/<tid>/sched`. The switch and migration counts
/// must be there; the rest is optional.
pub fn parse_task_sched(text: &str) -> Result<TaskSched, String> {
    let kv = key_values(text);
    let int = |k: &str| kv.get(k).and_then(|v| v.parse::<u64>().ok());
    let need = |k: &str| int(k).ok_or_else(|| format!("sched file: no `{k}`"));
    Ok(TaskSched {
        sum_exec_runtime_ns: kv.get("se.sum_exec_runtime").and_then(|v| split_ns(v)).ok_or("sched file: no `se.sum_exec_runtime`")?,
        nr_switches: need("nr_switches")?,
        nr_voluntary_switches: need("nr_voluntary_switches")?,
        nr_involuntary_switches: need("nr_involuntary_switches")?,
        nr_migrations: need("se.nr_migrations")?,
        slice_ns: kv.get("se.slice").and_then(|v| split_ns(v)),
        policy: int("policy"),
        prio: int("prio"),
    })
}

/// `/proc/<pid>/task/<tid>/schedstat` (`proc_pid_schedstat()`, needs
/// CONFIG_SCHED_INFO): time on the CPU, time runnable but waiting
/// (`run_delay`), both ns, and the number of timeslices run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SchedStat {
    pub cpu_time_ns: u64,
    pub run_delay_ns: u64,
    pub timeslices: u64,
}

pub fn parse_schedstat(text: &str) -> Result<SchedStat, String> {
    let f: Vec<u64> = text.split_whitespace().map(|w| w.parse().map_err(|_| format!("schedstat: `{w}` is not a number"))).collect::<Result<_, _>>()?;
    match f[..] {
        [cpu_time_ns, run_delay_ns, timeslices] => Ok(SchedStat { cpu_time_ns, run_delay_ns, timeslices }),
        _ => Err(format!("schedstat: expected 3 numbers, got {}", f.len())),
    }
}

/// One `cpuN` line of `/proc/stat` (`show_stat()`, fs/proc/stat.c), in
/// USER_HZ ticks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CpuTimes {
    pub cpu: u32,
    pub user: u64,
    pub nice: u64,
    pub system: u64,
    pub idle: u64,
    pub iowait: u64,
    pub irq: u64,
    pub softirq: u64,
    pub steal: u64,
}

impl CpuTimes {
    /// Ticks spent running something (not idle, not waiting, not stolen).
    pub fn busy(&self) -> u64 {
        self.user + self.nice + self.system + self.irq + self.softirq
    }
}

/// The per-CPU lines of `/proc/stat` (the aggregate "cpu" line is skipped).
pub fn parse_proc_stat(text: &str) -> Vec<CpuTimes> {
    text.lines().filter_map(cpu_line).collect()
}

fn cpu_line(line: &str) -> Option<CpuTimes> {
    let mut w = line.split_whitespace();
    let cpu = w.next()?.strip_prefix("cpu")?.parse().ok()?;
    let v: Vec<u64> = w.map_while(|x| x.parse().ok()).collect();
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    Some(CpuTimes { cpu, user: at(0), nice: at(1), system: at(2), idle: at(3), iowait: at(4), irq: at(5), softirq: at(6), steal: at(7) })
}

/// Major and minor version from `/proc/sys/kernel/osrelease` or `uname -r`
/// ("6.18.44-fc-v657" → (6, 18)).
pub fn parse_release(release: &str) -> Option<(u32, u32)> {
    let mut it = release.trim().split(|c: char| !c.is_ascii_digit());
    let major = it.next()?.parse().ok()?;
    let minor = it.next()?.parse().ok()?;
    Some((major, minor))
}

/// The schedlab preset that models a kernel version: 6.6 for 6.6–6.11,
/// 6.12 for 6.12–6.17, 6.18 from 6.18 on, and for CFS kernels (5.0–6.5)
/// the CFS preset "5.15" when the engine has it (`presets` lists what it
/// has).
pub fn preset_for(version: (u32, u32), presets: &[&str]) -> Result<&'static str, String> {
    match version {
        (6, 6..=11) => Ok("6.6"),
        (6, 12..=17) => Ok("6.12"),
        (6, 18..) | (7.., _) => Ok("6.18"),
        (5, _) | (6, 0..=5) if presets.contains(&"5.15") => Ok("5.15"),
        (major, minor) => Err(format!(
            "kernel {major}.{minor} runs CFS, not EEVDF, and schedlab has no preset for it (presets: {})",
            presets.join(", ")
        )),
    }
}

/// A kernel config (`.config`, `/proc/config.gz`, `/boot/config-*`)
/// value: `CONFIG_HZ=250` → "250"; `# CONFIG_X is not set` → "n".
pub fn config_value<'a>(config: &'a str, key: &str) -> Option<&'a str> {
    config.lines().find_map(|l| {
        if let Some(v) = l.strip_prefix(key).and_then(|r| r.strip_prefix('=')) {
            return Some(v.trim().trim_matches('"'));
        }
        let off = l.strip_prefix("# ")?.strip_prefix(key)?;
        (off == " is not set").then_some("n")
    })
}

/// `CONFIG_HZ` of a kernel config.
pub fn config_hz(config: &str) -> Option<u32> {
    config_value(config, "CONFIG_HZ")?.parse().ok()
}

/// The preemption model a kernel was built to start with
/// (CONFIG_PREEMPT_{NONE,VOLUNTARY,LAZY} / CONFIG_PREEMPT / CONFIG_PREEMPT_RT).
pub fn config_preempt(config: &str) -> Option<&'static str> {
    let on = |k: &str| config_value(config, k) == Some("y");
    [("CONFIG_PREEMPT_RT", "full (RT)"), ("CONFIG_PREEMPT_LAZY", "lazy"), ("CONFIG_PREEMPT", "full"), ("CONFIG_PREEMPT_VOLUNTARY", "voluntary"), ("CONFIG_PREEMPT_NONE", "none")]
        .into_iter()
        .find(|(k, _)| on(k))
        .map(|(_, m)| m)
}

/// The active mode of `/sys/kernel/debug/sched/preempt`
/// ("none (voluntary) full lazy" → "voluntary").
pub fn active_preempt(text: &str) -> Option<&str> {
    text.split_whitespace().find_map(|w| w.strip_prefix('(')?.strip_suffix(')'))
}

/// The boot-time preemption mode the kernel logged ("Dynamic Preempt:
/// none", `preempt_dynamic_init()`, kernel/sched/core.c), from the kernel
/// log (`/dev/kmsg` records "PRIO,SEQ,TIME,-;MESSAGE").
pub fn klog_preempt(log: &str) -> Option<&str> {
    log.lines().rev().find_map(|l| l.split_once("Dynamic Preempt: ")?.1.split_whitespace().next())
}

/// `preempt=` on the kernel command line (`/proc/cmdline`).
pub fn cmdline_preempt(cmdline: &str) -> Option<&str> {
    cmdline.split_whitespace().take_while(|w| *w != "--").find_map(|w| w.strip_prefix("preempt="))
}

/// Kernel command-line parameters that change scheduling: anything with
/// "sched" in its name, CPU isolation, tick and preemption settings.
pub fn cmdline_sched_params(cmdline: &str) -> Vec<&str> {
    const PREFIXES: [&str; 7] = ["isolcpus", "nohz", "preempt=", "threadirqs", "skew_tick", "rcu_nocbs", "relax_domain_level"];
    cmdline.split_whitespace().take_while(|w| *w != "--").filter(|w| w.contains("sched") || PREFIXES.iter().any(|p| w.starts_with(p))).collect()
}

/// The `jiffies:` line of `/proc/timer_list` (root only).
pub fn timer_list_jiffies(text: &str) -> Option<u64> {
    text.lines().find_map(|l| l.strip_prefix("jiffies:")?.trim().parse().ok())
}

/// The tick rate a jiffies count over an interval gives, snapped to the
/// nearest HZ Linux offers (100, 250, 300, 1000) when within 5 %.
pub fn hz_from_jiffies(jiffies: u64, elapsed_ns: u64) -> Option<u32> {
    if elapsed_ns == 0 {
        return None;
    }
    let rate = jiffies as f64 * 1e9 / elapsed_ns as f64;
    [100u32, 250, 300, 1000].into_iter().find(|&hz| (rate - hz as f64).abs() <= 0.05 * hz as f64)
}

/// The CPU controller's cgroup of a task from `/proc/<pid>/cgroup`: the v1
/// line naming `cpu`, else the v2 line (`0::/path`).
pub fn cpu_cgroup(text: &str) -> Option<&str> {
    let lines = || text.lines().filter_map(cgroup_line);
    lines().find(|(ctl, _)| ctl.split(',').any(|c| c == "cpu")).or_else(|| lines().find(|(ctl, _)| ctl.is_empty())).map(|(_, p)| p)
}

/// "ID:CONTROLLERS:PATH" → (controllers, path).
fn cgroup_line(l: &str) -> Option<(&str, &str)> {
    let mut it = l.splitn(3, ':');
    it.next()?;
    Some((it.next()?, it.next()?))
}

/// `/sys/kernel/debug/sched/features`: "PLACE_LAG NO_HRTICK ..." as
/// (name, enabled) pairs.
/// features.h of 6.18.y from 6.18.5, in SCHED_FEAT order as an SMP build
/// without PREEMPT_RT has them (TTWU_QUEUE is defined in either branch of
/// its #ifdef; RT_PUSH_IPI exists with HAVE_RT_PUSH_IPI, every SMP build):
/// v6.18.2's 26 flags, then NI_RANDOM, which 33cf66d88306 appended.
pub const FEATURES_H_6_18: [&str; 27] = [
    "PLACE_LAG",
    "PLACE_DEADLINE_INITIAL",
    "PLACE_REL_DEADLINE",
    "RUN_TO_PARITY",
    "PREEMPT_SHORT",
    "NEXT_BUDDY",
    "PICK_BUDDY",
    "CACHE_HOT_BUDDY",
    "DELAY_DEQUEUE",
    "DELAY_ZERO",
    "WAKEUP_PREEMPTION",
    "HRTICK",
    "HRTICK_DL",
    "NONTASK_CAPACITY",
    "TTWU_QUEUE",
    "SIS_UTIL",
    "WARN_DOUBLE_CLOCK",
    "RT_PUSH_IPI",
    "RT_RUNTIME_SHARE",
    "LB_MIN",
    "ATTACH_AGE_LOAD",
    "WA_IDLE",
    "WA_WEIGHT",
    "WA_BIAS",
    "UTIL_EST",
    "LATENCY_WARN",
    "NI_RANDOM",
];

/// `.sysctl_sched_features` from debugfs `sched/debug`: the flag mask,
/// bit i for features.h's i-th SCHED_FEAT.
pub fn parse_feature_mask(debug: &str) -> Option<u64> {
    let line = debug.lines().find(|l| l.trim_start().starts_with(".sysctl_sched_features"))?;
    line.split(':').nth(1)?.trim().parse().ok()
}

/// A mask as sched/features prints it, given features.h's names in order;
/// None if the mask has a flag past the last name (another features.h).
pub fn decode_features(mask: u64, names: &[&str]) -> Option<String> {
    if names.len() < 64 && mask >> names.len() != 0 {
        return None;
    }
    let words: Vec<String> = names.iter().enumerate().map(|(i, n)| if mask >> i & 1 == 1 { n.to_string() } else { format!("NO_{n}") }).collect();
    Some(words.join(" "))
}

pub fn parse_features(text: &str) -> Vec<(&str, bool)> {
    text.split_whitespace().map(|w| w.strip_prefix("NO_").map_or((w, true), |n| (n, false))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_data;

    fn sample(path: &str) -> String {
        std::fs::read_to_string(test_data(path)).unwrap()
    }

    /// This VM's `.sysctl_sched_features`, 99674079 = bits 0–4, 6–10,
    /// 13–15, 20–24 and 26: in 6.18.5's features.h order every flag at its
    /// default (NEXT_BUDDY, HRTICK, HRTICK_DL, WARN_DOUBLE_CLOCK,
    /// RT_RUNTIME_SHARE, LB_MIN, LATENCY_WARN off) except RT_PUSH_IPI (bit
    /// 17, default on) off, and NI_RANDOM (bit 26) on. v6.18.2's kernel has
    /// no bit 26: the same mask less 2^26 reads NO_NI_RANDOM. A bit past
    /// the 27th means another features.h: not decoded.
    #[test]
    fn a_feature_mask_decodes_in_features_h_order() {
        let debug = "sysctl_sched\n  .sysctl_sched_base_slice                 : 1.400000\n  .sysctl_sched_features                   : 99674079\n";
        let mask = parse_feature_mask(debug).unwrap();
        assert_eq!(mask, 0b101_1111_0000_1110_0111_1101_1111);
        let text = decode_features(mask, &FEATURES_H_6_18).unwrap();
        let off: Vec<&str> = parse_features(&text).into_iter().filter(|&(_, on)| !on).map(|(n, _)| n).collect();
        assert_eq!(off, ["NEXT_BUDDY", "HRTICK", "HRTICK_DL", "WARN_DOUBLE_CLOCK", "RT_PUSH_IPI", "RT_RUNTIME_SHARE", "LB_MIN", "LATENCY_WARN"]);
        assert!(decode_features(mask - (1 << 26), &FEATURES_H_6_18).unwrap().ends_with(" NO_NI_RANDOM"));
        assert_eq!(decode_features(mask | 1 << 27, &FEATURES_H_6_18), None);
        assert_eq!(parse_feature_mask("sysctl_sched\n"), None);
    }

    #[test]
    fn real_task_sched_file() {
        let s = parse_task_sched(&sample("host-6.18/proc/self/sched")).unwrap();
        assert_eq!(s.nr_switches, s.nr_voluntary_switches + s.nr_involuntary_switches);
        assert_eq!(s.slice_ns, Some(1_400_000));
        assert_eq!(s.prio, Some(120));
        assert_eq!(s.policy, Some(0));
        assert!(s.sum_exec_runtime_ns > 0);
    }

    #[test]
    fn sched_values_in_ms_with_ns_decimals() {
        assert_eq!(split_ns("2284885.161040"), Some(2_284_885_161_040));
        assert_eq!(split_ns("0.144154"), Some(144_154));
        assert_eq!(split_ns("1400000"), Some(1_400_000));
        assert_eq!(split_ns("1.5"), None);
        assert_eq!(split_ns("-3.000001"), None);
    }

    #[test]
    fn hand_written_sched_file() {
        let text = "hog (4242, #threads: 3)\n-----------------------\n\
                    se.exec_start                                :        1000.000001\n\
                    se.sum_exec_runtime                          :        1500.250000\n\
                    se.nr_migrations                             :                    2\n\
                    nr_switches                                  :                  700\n\
                    nr_voluntary_switches                        :                  100\n\
                    nr_involuntary_switches                      :                  600\n\
                    policy                                       :                    3\n\
                    prio                                         :                  125\n\
                    current_node=0, numa_group_id=0\n";
        let s = parse_task_sched(text).unwrap();
        assert_eq!(s.sum_exec_runtime_ns, 1_500_250_000);
        assert_eq!((s.nr_switches, s.nr_voluntary_switches, s.nr_involuntary_switches, s.nr_migrations), (700, 100, 600, 2));
        assert_eq!((s.slice_ns, s.policy, s.prio), (None, Some(3), Some(125)));
        assert!(parse_task_sched("hog (1, #threads: 1)\nnr_switches : 3\n").is_err());
    }

    #[test]
    fn real_schedstat() {
        let s = parse_schedstat(&sample("host-6.18/proc/self/schedstat")).unwrap();
        assert!(s.cpu_time_ns > 0 && s.timeslices > 0);
        // Captured together with the sched file: the two agree.
        let sched = parse_task_sched(&sample("host-6.18/proc/self/sched")).unwrap();
        assert_eq!((s.cpu_time_ns, s.timeslices), (sched.sum_exec_runtime_ns, sched.nr_switches));
        assert_eq!(parse_schedstat("1 2 3\n").unwrap(), SchedStat { cpu_time_ns: 1, run_delay_ns: 2, timeslices: 3 });
        assert!(parse_schedstat("1 2").is_err());
        assert!(parse_schedstat("1 x 3").is_err());
    }

    #[test]
    fn real_proc_stat() {
        let text = sample("host-6.18/proc/stat");
        let cpus = parse_proc_stat(&text);
        assert_eq!(cpus.iter().map(|c| c.cpu).collect::<Vec<_>>(), vec![0, 1]);
        assert!(cpus.iter().all(|c| c.busy() > 0 && c.idle > 0));
        let c = cpu_line("cpu3 1 2 3 4 5 6 7 8 0 0").unwrap();
        assert_eq!((c.cpu, c.busy(), c.steal, c.iowait), (3, 1 + 2 + 3 + 6 + 7, 8, 5));
        assert!(cpu_line("cpu  1 2 3").is_none());
    }

    #[test]
    fn releases_map_to_presets() {
        assert_eq!(parse_release(&sample("host-6.18/proc/sys/kernel/osrelease")), Some((6, 18)));
        assert_eq!(parse_release("6.12.0-rc3+"), Some((6, 12)));
        assert_eq!(parse_release("garbage"), None);
        let cases = [((6, 6), "6.6"), ((6, 11), "6.6"), ((6, 12), "6.12"), ((6, 17), "6.12"), ((6, 18), "6.18"), ((7, 0), "6.18")];
        let all = ["5.15", "6.6", "6.12", "6.18"];
        for (v, p) in cases {
            assert_eq!(preset_for(v, &all).unwrap(), p, "{v:?}");
        }
        assert_eq!(preset_for((6, 5), &all).unwrap(), "5.15");
        assert_eq!(preset_for((5, 4), &all).unwrap(), "5.15");
        let e = preset_for((6, 5), &all[1..]).unwrap_err();
        assert!(e.contains("CFS") && e.contains("no preset"), "{e}");
        assert!(preset_for((4, 19), &all).is_err());
    }

    /// `printf 'hello hello hello\n' | gzip -n -9`: a fixed-Huffman block.
    const HELLO_GZ: [u8; 29] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9, 0x57, 0xc8, 0x40, 0x90, 0x5c, 0x00, 0x3b,
        0x7c, 0x8a, 0xdf, 0x12, 0x00, 0x00, 0x00,
    ];

    #[test]
    fn gunzip_real_streams() {
        assert_eq!(gunzip(&HELLO_GZ).unwrap(), b"hello hello hello\n");
        // The capture host's /proc/config.gz: dynamic-Huffman blocks, 98 lines of gzip.
        let gz = std::fs::read(test_data("host-6.18/proc/config.gz")).unwrap();
        let text = String::from_utf8(gunzip(&gz).unwrap()).unwrap();
        assert!(text.contains("\nCONFIG_HZ=250\n"), "{}", &text[..200]);
    }

    #[test]
    fn gunzip_rejects_corrupt_streams_without_panicking() {
        assert!(gunzip(b"not gzip at all, definitely not").unwrap_err().starts_with("gzip: "));
        let gz = std::fs::read(test_data("host-6.18/proc/config.gz")).unwrap();
        // Cut in the middle of the DEFLATE data.
        assert!(gunzip(&gz[..gz.len() / 2]).is_err());
        // One bit flipped in the CRC-32 of the trailer (its first 4 of 8 bytes).
        let mut bad = HELLO_GZ;
        bad[HELLO_GZ.len() - 8] ^= 1;
        assert!(gunzip(&bad).is_err());
        // The length (ISIZE, the last 4 bytes) says 19 where 18 bytes came out.
        let mut bad = HELLO_GZ;
        bad[HELLO_GZ.len() - 4] = 19;
        assert!(gunzip(&bad).is_err());
    }

    #[test]
    fn kernel_config_values() {
        let gz = std::fs::read(test_data("host-6.18/proc/config.gz")).unwrap();
        let config = String::from_utf8(gunzip(&gz).unwrap()).unwrap();
        assert_eq!(config_hz(&config), Some(250));
        assert_eq!(config_value(&config, "CONFIG_SCHEDSTATS"), Some("n"));
        assert_eq!(config_value(&config, "CONFIG_SCHED_AUTOGROUP"), Some("y"));
        assert_eq!(config_preempt(&config), Some("none"));
        let text = "CONFIG_HZ_1000=y\nCONFIG_HZ=1000\n# CONFIG_PREEMPT_NONE is not set\nCONFIG_PREEMPT_LAZY=y\nCONFIG_LOCALVERSION=\"-x\"\n";
        assert_eq!(config_hz(text), Some(1000));
        assert_eq!(config_value(text, "CONFIG_LOCALVERSION"), Some("-x"));
        assert_eq!(config_value(text, "CONFIG_H"), None);
        assert_eq!(config_preempt(text), Some("lazy"));
    }

    #[test]
    fn preemption_mode_sources() {
        assert_eq!(active_preempt("none (voluntary) full lazy\n"), Some("voluntary"));
        assert_eq!(active_preempt("none voluntary full"), None);
        assert_eq!(cmdline_preempt(&sample("host-6.18/proc/cmdline")), None);
        assert_eq!(cmdline_preempt("quiet preempt=lazy -- preempt=full"), Some("lazy"));
        assert_eq!(klog_preempt(&sample("host-6.18/dev/kmsg")), Some("none"));
        assert_eq!(cmdline_sched_params(&sample("host-6.18/proc/cmdline")), ["sched_vcpu_pack=15"]);
        assert_eq!(cmdline_sched_params("nohz_full=1 quiet isolcpus=1 -- sched_x"), ["nohz_full=1", "isolcpus=1"]);
        assert_eq!(klog_preempt("6,88,242775,-;Dynamic Preempt: lazy\n"), Some("lazy"));
        assert_eq!(klog_preempt("6,1,2,-;Linux version 6.18\n"), None);
    }

    #[test]
    fn jiffies_give_hz() {
        assert!(timer_list_jiffies(&sample("host-6.18/proc/timer_list")).is_some_and(|j| j > 4_295_000_000));
        assert_eq!(timer_list_jiffies("now at 5 nsecs\n\ncpu: 0\njiffies: 4295466855\n"), Some(4_295_466_855));
        assert_eq!(hz_from_jiffies(250, 1_000_000_000), Some(250));
        assert_eq!(hz_from_jiffies(62, 250_000_000), Some(250));
        assert_eq!(hz_from_jiffies(101, 1_000_000_000), Some(100));
        assert_eq!(hz_from_jiffies(500, 1_000_000_000), None);
        assert_eq!(hz_from_jiffies(1, 0), None);
    }

    #[test]
    fn cgroups_and_features() {
        let v1 = "4:memory:/x\n1:cpu,cpuacct:/user.slice\n0::/\n";
        assert_eq!(cpu_cgroup(v1), Some("/user.slice"));
        assert_eq!(cpu_cgroup("0::/system.slice/foo.service\n"), Some("/system.slice/foo.service"));
        assert_eq!(cpu_cgroup("1:cpuset:/\n"), None);
        assert_eq!(parse_features("PLACE_LAG NO_HRTICK RUN_TO_PARITY"), vec![("PLACE_LAG", true), ("HRTICK", false), ("RUN_TO_PARITY", true)]);
    }
}
