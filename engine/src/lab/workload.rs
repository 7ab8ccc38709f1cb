//! Workload macros: `[[workload]]` entries that expand into tasks and
//! channels modelling the benchmarks the seed threads report.
//!
//! Each kind documents how it maps onto the real benchmark: which threads
//! exist, who wakes whom and how (pipe/socket channels with WF_SYNC,
//! futex-like wake/wait, schbench's call/reply lists), and what CPU time a
//! system call costs. Those costs are estimates for a recent x86 server
//! (they are parameters: set them from a measurement of your machine).
//! `schedlab expand` prints what a macro became, as scenario TOML.

use std::collections::HashSet;

use serde::Serialize;

use crate::lab::scenario::{self, ChannelKind, ChannelSpec, CpuList, Named, Param, Policy, Pos, ScenarioError, TaskSpec, WorkloadSpec};

type R<T> = Result<T, ScenarioError>;

/// The figure a study compares for a workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Metric {
    /// Seconds to complete the work (hackbench); lower is better.
    Time,
    /// Operations per second; higher is better.
    Throughput,
    /// 90th / 99th percentile wakeup latency in µs (schbench); lower is
    /// better.
    WakeupP90,
    WakeupP99,
    /// 99th percentile request latency in µs (schbench); lower is better.
    RequestP99,
    /// CPU time received, in CPUs (hogs); higher is better.
    CpuTime,
}

impl Metric {
    pub const ALL: [Metric; 6] = [Metric::Time, Metric::Throughput, Metric::WakeupP90, Metric::WakeupP99, Metric::RequestP99, Metric::CpuTime];

    pub fn name(self) -> &'static str {
        match self {
            Metric::Time => "time",
            Metric::Throughput => "throughput",
            Metric::WakeupP90 => "wakeup-p90",
            Metric::WakeupP99 => "wakeup-p99",
            Metric::RequestP99 => "request-p99",
            Metric::CpuTime => "cpu-time",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Metric::Time => "s",
            Metric::Throughput => "ops/s",
            Metric::WakeupP90 | Metric::WakeupP99 | Metric::RequestP99 => "us",
            Metric::CpuTime => "CPUs",
        }
    }

    /// The seed tables' convention: a positive change is an improvement.
    pub fn higher_is_better(self) -> bool {
        matches!(self, Metric::Throughput | Metric::CpuTime)
    }

    pub fn from_name(s: &str) -> Option<Metric> {
        Metric::ALL.into_iter().find(|m| m.name() == s)
    }
}

/// What a workload measures, and over which of its tasks.
#[derive(Clone, Debug, PartialEq)]
pub struct Measure {
    /// The name prefix of the workload's tasks.
    pub name: String,
    pub kind: &'static str,
    /// The row label of the seed tables ("process-pipe", "TCP_RR").
    pub case: String,
    /// The load label ("4 groups", "28 threads").
    pub load: String,
    pub metric: Metric,
    /// Task specs (names) whose operations and latencies count.
    pub workers: Vec<String>,
    /// Operations the workload does in total when it runs to completion.
    pub total_ops: Option<u64>,
    /// How many consecutive workers (tasks, in `workers`' order) progress
    /// as one unit of a fixed-work job: their operations are summed before
    /// the slowest unit is found (hackbench: a group's receivers, which its
    /// senders keep within a pipe's capacity of each other). 1: each alone.
    pub unit: u32,
    /// The benchmark's operations per outermost loop of a worker (1 but for
    /// stress-ng sigrt, whose parent's loop is one sigqueue() per child).
    pub ops_per_loop: u64,
    /// Load labels by the parameter a study varies, where it is not the
    /// one `load` names (schbench: "24 workers" instead of "2 mthreads").
    pub load_by: Vec<(&'static str, String)>,
    /// The latency figures count only the wake-ups that end a `call` (its
    /// target's `reply`): schbench times the wake of msg_and_wait(), not
    /// the one from its usleep().
    pub reply_wakeups: bool,
}

impl Measure {
    /// The load label of a study row that varies `param`.
    pub fn load_label(&self, param: Option<&str>) -> &str {
        param.and_then(|p| self.load_by.iter().find(|(n, _)| *n == p)).map_or(&self.load, |(_, l)| l)
    }
}

/// A macro's tasks, channels and measure.
#[derive(Clone, Debug)]
pub struct Expanded {
    pub tasks: Vec<TaskSpec>,
    pub channels: Vec<ChannelSpec>,
    pub measure: Measure,
}

/// One parameter of a workload kind, for `schedlab workloads` and errors.
pub struct ParamDoc {
    pub name: &'static str,
    pub default: &'static str,
    pub about: &'static str,
}

/// A workload kind and its documentation.
pub struct KindDoc {
    pub name: &'static str,
    pub about: &'static str,
    pub params: &'static [ParamDoc],
    expand: fn(&mut Args, &mut Out) -> R<Measure>,
}

/// The most tasks one run holds (hand-written and workload tasks). The
/// largest seed benchmark (hackbench 64 groups × 40 on spr-2s-224) has 2560;
/// a bound keeps a typo such as `groups = 1024, fds = 1024` from exhausting
/// memory (a browser tab's) before it is reported.
pub const MAX_TASKS: u64 = 262_144;

const fn p(name: &'static str, default: &'static str, about: &'static str) -> ParamDoc {
    ParamDoc { name, default, about }
}

/// Parameters every kind accepts.
pub const COMMON: &[ParamDoc] = &[
    p("name", "the kind", "prefix of the task and channel names"),
    p("nice", "0", "nice value of every task"),
    p("group", "root", "cgroup (a [[group]] name) of every task"),
    p("affinity", "all CPUs", "cpulist every task may run on"),
    p("start", "0", "when the tasks are created"),
    p("jitter", "10%", "spread of every fixed cost: uniform within ±jitter (0: fixed), so seeds differ"),
];

pub const KINDS: &[KindDoc] = &[
    KindDoc {
        name: "hackbench",
        about: "hackbench / perf bench sched messaging: per group, `fds` senders each write `loops` messages \
                to each of `fds` receivers; the run ends when every receiver has read all. Metric: time.",
        params: &[
            p("groups", "1", "groups of fds senders + fds receivers"),
            p("fds", "20", "senders and receivers per group"),
            p("loops", "100", "messages each sender writes to each receiver"),
            p("datasize", "100", "bytes per message (sets the channel capacity)"),
            p("mode", "process", "process | threads (threads share one address space)"),
            p("ipc", "sockets", "pipe | sockets"),
            p("write_cost", "0.8us pipe, 1.6us sockets", "CPU time of one write()"),
            p("read_cost", "0.7us pipe, 1.3us sockets", "CPU time of one read()"),
        ],
        expand: hackbench,
    },
    KindDoc {
        name: "schbench",
        about: "schbench: message threads wake their workers (futex lists). version \"2023\" (v1.0, April 2023 on): \
                a worker sleeps, then works, then asks again. version \"2019\" (before): a worker spins `cputime`, \
                then posts its message thread and waits; the message thread sleeps `sleeptime` (+0..25 % jitter) \
                and wakes every worker that posted. Metric: 99th percentile wakeup latency of the wake-ups that answer a \
                worker's message (msg_and_wait()), not those from its sleep.",
        params: &[
            p("version", "2023", "2023 (v1.0 rewrite) | 2019 (the schbench lkp and the 2022 mails ran)"),
            p("message_threads", "1", "message threads (-m)"),
            p("workers", "ceil(CPUs / message_threads); 16 for 2019", "workers per message thread (-t)"),
            p("sleep", "100us", "2023: think-time sleep per request (-s)"),
            p("work", "1ms", "2023: CPU time per request (-F 256 -n 5 on a ~5 GFLOP core)"),
            p("sleeptime", "30ms", "2019: the message thread's sleep between wakes (-s)"),
            p("cputime", "30ms", "2019: a worker's spin between posts (-c)"),
        ],
        expand: schbench,
    },
    KindDoc {
        name: "netperf-rr",
        about: "netperf TCP_RR / UDP_RR over loopback: `threads` netperf/netserver pairs, one-byte \
                request/response. Metric: transactions/s.",
        params: &[
            p("threads", "CPUs", "client/server pairs (a number or a percentage of CPUs, \"50%\")"),
            p("proto", "tcp", "tcp | udp"),
            p("send_cost", "5us tcp, 4us udp", "CPU time of one send (with the loopback receive path)"),
            p("recv_cost", "2us tcp, 1.5us udp", "CPU time of one recv"),
        ],
        expand: netperf_rr,
    },
    KindDoc {
        name: "netperf-stream",
        about: "netperf TCP_STREAM / UDP_STREAM over loopback: `threads` pairs streaming 64 KiB sends into a \
                bounded socket buffer. Metric: messages/s.",
        params: &[
            p("threads", "CPUs", "sender/receiver pairs (a number or a percentage of CPUs)"),
            p("proto", "tcp", "tcp | udp"),
            p("window", "16", "sends the socket buffer holds before the sender blocks"),
            p("send_cost", "12us", "CPU time of one 64 KiB send"),
            p("recv_cost", "8us", "CPU time of one recv"),
        ],
        expand: netperf_stream,
    },
    KindDoc {
        name: "tbench",
        about: "tbench (dbench's network mode) over loopback: `threads` client/server pairs exchanging \
                requests of varied cost. Metric: operations/s (tbench reports MB/s).",
        params: &[
            p("threads", "CPUs", "clients, each with its own server process"),
            p("client_work", "exp(6us)", "client CPU time per request"),
            p("server_work", "exp(10us)", "server CPU time per request"),
        ],
        expand: tbench,
    },
    KindDoc {
        name: "pipe-test",
        about: "pipe-test / perf bench sched pipe: two tasks ping-pong one byte through two pipes, pinned \
                to one CPU (seed 003's `taskset -c 3 pipe-test`). Metric: round trips/s.",
        params: &[
            p("cpu", "0", "CPU both run on (-1: not pinned)"),
            p("loops", "forever", "round trips"),
            p("work", "0.7us", "CPU time of one write+read"),
            p("mode", "process", "process | threads"),
        ],
        expand: pipe_test,
    },
    KindDoc {
        name: "stress-futex",
        about: "stress-ng --futex: per instance a waker calls futex_wake in a loop (a wake with no \
                waiter is lost) and a waiter futex_waits with a 5 µs timeout. Metric: the waits a \
                wake ended, per second (bogo ops; timeouts do not count).",
        params: &[
            p("instances", "CPUs", "waker/waiter pairs"),
            p("wake_cost", "0.4us", "CPU time of one futex_wake that finds no waiter (380–470 ns measured on a 6.18 VM)"),
            p("wait_cost", "0.5us", "CPU time of the futex_wait syscall up to blocking (535–716 ns measured for its EAGAIN path)"),
            p("timeout", "5us", "futex_wait's timeout; the model adds the 50 µs timer slack"),
        ],
        expand: stress_futex,
    },
    KindDoc {
        name: "stress-sigsuspend",
        about: "stress-ng --sigsuspend: per instance a parent sends SIGUSR1 to 4 children waiting in \
                sigsuspend(). Metric: signals handled/s (bogo ops).",
        params: &[
            p("instances", "CPUs", "parents, each with 4 children"),
            p("kill_cost", "0.5us", "CPU time of one kill()"),
            p("handle_cost", "0.8us", "CPU time to take the signal and re-enter sigsuspend"),
        ],
        expand: stress_sigsuspend,
    },
    KindDoc {
        name: "stress-sigrt",
        about: "stress-ng --sigrt: per instance a parent sigqueue()s real-time signals to 31 children \
                in sigwaitinfo(), each in turn, and never blocks. Metric: the parent's sigqueue() \
                calls/s (bogo ops).",
        params: &[
            p("instances", "CPUs", "parents, each with 31 children (SIGRTMIN..SIGRTMAX)"),
            p("send_cost", "1.5us", "CPU time of one sigqueue() (1.40–1.66 µs measured on a 6.18 VM)"),
            p("handle_cost", "2.6us", "a child's CPU time per signal: sigqueue() to itself and two sigwaitinfo()s"),
        ],
        expand: stress_sigrt,
    },
    KindDoc {
        name: "stress-sigfd",
        about: "stress-ng --sigfd: per instance a child sigqueue()s real-time signals to its parent in a \
                loop, never blocking; the parent read()s them from a signalfd. Metric: signals read/s \
                (bogo ops).",
        params: &[
            p("instances", "CPUs", "parent/child pairs"),
            p("send_cost", "1.5us", "CPU time of one sigqueue() (1.40–1.66 µs measured on a 6.18 VM)"),
            p("read_cost", "0.65us", "CPU time of one signalfd read() of a queued signal (0.62–0.72 µs measured)"),
        ],
        expand: stress_sigfd,
    },
    KindDoc {
        name: "unixbench-pipe",
        about: "UnixBench's pipe throughput test (`pipe`): each task writes 512 bytes into a pipe of its own \
                and reads them back, in a loop; it never blocks and wakes nobody. Metric: loops/s.",
        params: &[
            p("tasks", "1", "copies running at once (a number or a percentage of CPUs)"),
            p("cost", "2us", "CPU time of one write + read of 512 bytes"),
        ],
        expand: unixbench_pipe,
    },
    KindDoc {
        name: "hogs",
        about: "CPU hogs: tasks that never sleep. Metric: CPU time received.",
        params: &[p("count", "CPUs", "hogs (a number or a percentage of CPUs)")],
        expand: hogs,
    },
];

/// The kind named `name`.
pub fn kind(name: &str) -> Option<&'static KindDoc> {
    KINDS.iter().find(|k| k.name == name)
}

/// Expands one `[[workload]]` (`index` is its position in the scenario,
/// for the default name of a second workload of one kind).
pub fn expand(w: &WorkloadSpec, index: usize, cpus: u32) -> R<Expanded> {
    let Some(k) = kind(&w.kind.name) else {
        let names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
        let hint = scenario::suggest(&w.kind.name, &names).map(|s| format!("; did you mean `{s}`?")).unwrap_or_default();
        return Err(ScenarioError::at(&w.kind, format!("unknown workload kind `{}`{hint} (known: {})", w.kind.name, names.join(", "))));
    };
    let name = match &w.name {
        Some(n) => n.clone(),
        None if index == 0 => k.name.to_string(),
        None => format!("{}{index}", k.name),
    };
    if let Err(m) = scenario::check_task_name(&name) {
        return Err(ScenarioError::new(format!("{}.name", base_key(w)), Some(w.pos), m));
    }
    let mut args = Args { w, used: vec![false; w.params.len()], cpus };
    let mut out = Out { name, tasks: Vec::new(), channels: Vec::new(), pos: w.pos, common: Common::default() };
    out.common = common(&mut args)?;
    let measure = (k.expand)(&mut args, &mut out)?;
    args.finish(k)?;
    Ok(Expanded { tasks: out.tasks, channels: out.channels, measure })
}

fn base_key(w: &WorkloadSpec) -> String {
    w.kind.key.strip_suffix(".kind").unwrap_or("workload").to_string()
}

/// Parameters shared by all kinds, applied to every task.
#[derive(Default)]
struct Common {
    nice: i32,
    group: Option<Named>,
    affinity: Option<(CpuList, Pos)>,
    start: u64,
    /// ±jitter in per mille.
    jitter: u64,
}

fn common(a: &mut Args) -> R<Common> {
    let nice = a.int("nice", 0, -20, 19)? as i32;
    let group = match a.get("group") {
        Some((n, Param::Str(s))) => Some(Named { name: s.clone(), key: n.key.clone(), pos: n.pos }),
        Some((n, _)) => return Err(ScenarioError::at(n, "`group` must be a group name (string)")),
        None => None,
    };
    let affinity = match a.get("affinity") {
        Some((n, Param::Str(s))) => Some((CpuList::parse(s).map_err(|m| ScenarioError::at(n, m))?, n.pos)),
        Some((n, Param::Int(c))) if *c >= 0 => Some((CpuList(vec![*c as u32]), n.pos)),
        Some((n, _)) => return Err(ScenarioError::at(n, "`affinity` must be a cpulist such as \"0-3,8\"")),
        None => None,
    };
    let start = a.dur("start", 0)?;
    let jitter = match a.get("jitter") {
        None => 100,
        Some((_, Param::Int(0))) => 0,
        Some((n, Param::Str(s))) => match s.strip_suffix('%').map(|v| v.trim().parse::<f64>()) {
            Some(Ok(pc)) if (0.0..=100.0).contains(&pc) => (pc * 10.0).round() as u64,
            _ => return Err(ScenarioError::at(n, format!("`jitter` must be a percentage in 0%..100%, found \"{s}\""))),
        },
        Some((n, _)) => return Err(ScenarioError::at(n, "`jitter` must be a percentage such as \"10%\" (or 0)")),
    };
    Ok(Common { nice, group, affinity, start, jitter })
}

/// Reads a workload's parameters, remembering which were used.
struct Args<'a> {
    w: &'a WorkloadSpec,
    used: Vec<bool>,
    cpus: u32,
}

impl<'a> Args<'a> {
    fn get(&mut self, name: &str) -> Option<(&'a Named, &'a Param)> {
        let i = self.w.params.iter().position(|(n, _)| n.name == name)?;
        self.used[i] = true;
        let (n, v) = &self.w.params[i];
        Some((n, v))
    }

    fn int(&mut self, name: &str, default: i64, lo: i64, hi: i64) -> R<i64> {
        match self.get(name) {
            None => Ok(default),
            Some((_, Param::Int(v))) if (lo..=hi).contains(v) => Ok(*v),
            Some((n, _)) => Err(ScenarioError::at(n, format!("`{name}` must be an integer in {lo}..={hi}"))),
        }
    }

    /// Refuses a workload whose parameters make more than MAX_TASKS tasks,
    /// before any of them is generated.
    fn tasks_fit(&self, n: u64, why: &str) -> R<()> {
        if n <= MAX_TASKS {
            return Ok(());
        }
        Err(ScenarioError::new(base_key(self.w), Some(self.w.pos), format!("{why} make {n} tasks; a run holds at most {MAX_TASKS}")))
    }

    /// A count that may be written as a percentage of the CPUs ("50%").
    fn count(&mut self, name: &str, default: u32, hi: u32) -> R<u32> {
        let cpus = self.cpus;
        match self.get(name) {
            None => Ok(default),
            Some((_, Param::Int(v))) if (1..=hi as i64).contains(v) => Ok(*v as u32),
            Some((n, Param::Str(s))) if s.ends_with('%') => match s[..s.len() - 1].trim().parse::<f64>() {
                Ok(pc) if pc > 0.0 && pc.is_finite() => {
                    let v = ((pc * cpus as f64 / 100.0).round() as u32).max(1);
                    if v > hi {
                        return Err(ScenarioError::at(n, format!("`{name}` = {s} of {cpus} CPUs is {v}, more than {hi}")));
                    }
                    Ok(v)
                }
                _ => Err(ScenarioError::at(n, format!("`{name}`: cannot read \"{s}\" as a percentage of CPUs"))),
            },
            Some((n, _)) => Err(ScenarioError::at(n, format!("`{name}` must be a count in 1..={hi} or a percentage of CPUs such as \"50%\""))),
        }
    }

    fn dur(&mut self, name: &str, default: u64) -> R<u64> {
        match self.get(name) {
            None => Ok(default),
            Some((_, Param::Dur(v))) => Ok(*v),
            Some((n, Param::Int(v))) => Err(ScenarioError::at(n, format!("`{name}` needs a unit: \"{v}us\", \"{v}ms\", ..."))),
            Some((n, _)) => Err(ScenarioError::at(n, format!("`{name}` must be a duration such as \"5us\""))),
        }
    }

    /// A duration or a distribution written as program text ("exp(6us)").
    fn dist(&mut self, name: &str, default: &str) -> R<String> {
        match self.get(name) {
            None => Ok(default.to_string()),
            Some((_, Param::Dur(v))) => Ok(scenario::format_duration(*v)),
            Some((n, Param::Str(s))) => match scenario::parse_program(&format!("run {s}"), n.pos) {
                Ok(_) => Ok(s.clone()),
                Err(m) => Err(ScenarioError::at(n, format!("`{name}`: {m}"))),
            },
            Some((n, _)) => Err(ScenarioError::at(n, format!("`{name}` must be a duration or a distribution such as \"exp(6us)\""))),
        }
    }

    fn choice(&mut self, name: &str, default: &'static str, options: &[&'static str]) -> R<&'static str> {
        match self.get(name) {
            None => Ok(default),
            Some((n, Param::Str(s))) => options.iter().copied().find(|o| o == s).ok_or_else(|| {
                let hint = scenario::suggest(s, options).map(|h| format!("; did you mean \"{h}\"?")).unwrap_or_default();
                ScenarioError::at(n, format!("`{name}` must be one of {}, found \"{s}\"{hint}", options.join(" | ")))
            }),
            Some((n, _)) => Err(ScenarioError::at(n, format!("`{name}` must be one of {}", options.join(" | ")))),
        }
    }

    /// Every parameter given must have been read.
    fn finish(&self, k: &KindDoc) -> R<()> {
        for (i, (n, _)) in self.w.params.iter().enumerate() {
            if !self.used[i] {
                let known: Vec<&str> = k.params.iter().chain(COMMON).map(|p| p.name).collect();
                let hint = scenario::suggest(&n.name, &known).map(|s| format!("; did you mean `{s}`?")).unwrap_or_default();
                return Err(ScenarioError::at(n, format!("unknown {} parameter `{}`{hint} (known: {})", k.name, n.name, known.join(", "))));
            }
        }
        Ok(())
    }
}

/// Collects a macro's tasks and channels.
struct Out {
    name: String,
    tasks: Vec<TaskSpec>,
    channels: Vec<ChannelSpec>,
    pos: Pos,
    common: Common,
}

impl Out {
    /// A cost as program text: `ns` spread uniformly over ±jitter. The
    /// spread stops at the longest duration a scenario may name (a cost of
    /// 1 000 000 s with 100 % jitter is at most 1 000 000 s, not 2 000 000 s:
    /// the program must parse back), so the mean of a cost that large is
    /// below `ns`.
    fn cost(&self, ns: u64) -> String {
        let ns = ns.min(scenario::MAX_DURATION_NS);
        let d = ns * self.common.jitter / 1000;
        if d == 0 {
            scenario::format_duration(ns)
        } else {
            let hi = (ns + d).min(scenario::MAX_DURATION_NS);
            format!("uniform({}, {})", scenario::format_duration(ns - d), scenario::format_duration(hi))
        }
    }

    fn chan(&mut self, name: &str, capacity: u64, kind: ChannelKind) {
        self.channels.push(ChannelSpec { kind, ..ChannelSpec::pipe(name, capacity, self.pos) });
    }

    /// A queue of real-time signals (sigqueue() → signalfd or sigwaitinfo()):
    /// a channel whose sends wake without WF_SYNC, as signal_wake_up() and
    /// signalfd_notify() do.
    /// Its capacity is RLIMIT_SIGPENDING's usual order (the pending signals
    /// a user may queue); the studies never come near it (tested).
    fn signal_queue(&mut self, name: &str) {
        self.channels.push(ChannelSpec { sync: false, ..ChannelSpec::pipe(name, SIGPENDING, self.pos) });
    }

    /// Adds a task (`count` instances) running `code`; `process` names the
    /// address space it shares (None: its own).
    fn task(&mut self, name: &str, count: u32, code: &str, process: Option<&str>) -> R<()> {
        // Workload programs are generated here, so a parse error is a bug
        // of this file; it is still an error, never a panic.
        let program = scenario::parse_program(code, self.pos)
            .map_err(|m| ScenarioError::new(format!("workload `{}`", self.name), Some(self.pos), format!("the generated program of `{name}` does not parse ({m}): a schedlab bug, please report it")))?;
        let c = &self.common;
        self.tasks.push(TaskSpec {
            name: name.to_string(),
            count,
            nice: c.nice,
            policy: Policy::Normal,
            slice: None,
            affinity: c.affinity.clone(),
            start: c.start,
            program,
            group: c.group.clone(),
            want_preempt: false,
            process: process.map(str::to_string),
            pos: self.pos,
        });
        Ok(())
    }

    fn measure(&self, kind: &'static str, case: String, load: String, metric: Metric, workers: Vec<String>) -> Measure {
        Measure { name: self.name.clone(), kind, case, load, metric, workers, total_ops: None, unit: 1, ops_per_loop: 1, load_by: Vec::new(), reply_wakeups: false }
    }
}

fn plural(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Socket buffer size (net.core.wmem_default, SKB_TRUESIZE(256) * 256 on
/// x86-64) and the sizes of struct sk_buff and struct skb_shared_info as
/// SKB_TRUESIZE() counts them.
const WMEM_DEFAULT: u64 = 212_992;
const SK_BUFF: u64 = 256;
const SHARED_INFO: u64 = 320;
/// A pipe holds 16 pages (PIPE_DEF_BUFFERS) of PAGE_SIZE bytes; small
/// writes merge into the newest page while the whole write fits.
const PIPE_PAGES: u64 = 16;
const PAGE_SIZE: u64 = 4096;

/// A default pipe carrying messages of `bytes`: (capacity, kind). A page
/// holds the messages that fit whole; a message larger than a page takes
/// whole pages, fewer of which the ring holds (rounded down to a power of
/// two, the ring's size).
fn default_pipe(bytes: u64) -> (u64, ChannelKind) {
    let per_page = (PAGE_SIZE / bytes).max(1);
    let pages = (PIPE_PAGES / bytes.div_ceil(PAGE_SIZE)).max(1);
    let pages = 1 << pages.ilog2();
    (pages * per_page, ChannelKind::Pipe { pages })
}

/// A unix stream socket carrying messages of `bytes`: (capacity, kind).
/// Each write is one skb (unix_stream_sendmsg() → alloc_skb()) whose head,
/// the data rounded to a cache line plus skb_shared_info, kmalloc rounds
/// up to a power of two (every size class above 192 bytes is one); its
/// truesize is that head plus the sk_buff: 768 bytes for 100 (net/core/
/// skbuff.c, v5.15–v6.18, with the memcg accounting unix sockets ask for).
/// A send allocates while the sender's sk_wmem_alloc (which starts at 1)
/// is below sk_sndbuf, so 278 such messages fit, and unix_writable() wakes
/// writers once (sk_wmem_alloc << 2) <= sk_sndbuf: at most 69 queued.
fn unix_socket(bytes: u64) -> (u64, ChannelKind) {
    let truesize = (bytes.div_ceil(64) * 64 + SHARED_INFO).next_power_of_two() + SK_BUFF;
    let wake_at = (WMEM_DEFAULT / 4).saturating_sub(1) / truesize;
    (WMEM_DEFAULT.div_ceil(truesize), ChannelKind::Socket { wake_at })
}

/// A TCP socket of `capacity` messages in flight: sk_stream_write_space()
/// wakes writers once the free space is at least half the queued
/// (sk_stream_min_wspace()), so at most two thirds of it queued.
fn tcp_socket(capacity: u64) -> ChannelKind {
    ChannelKind::Socket { wake_at: capacity * 2 / 3 }
}

/// hackbench (rt-tests hackbench.c, perf bench sched messaging): each
/// group has `fds` receivers, each reading from its own pipe or socket,
/// and `fds` senders that each write `loops` rounds of one message to every
/// receiver. Writes wake the reader with WF_SYNC. Threads mode puts all
/// tasks in one process (thread switches skip the mm switch).
fn hackbench(a: &mut Args, o: &mut Out) -> R<Measure> {
    let groups = a.count("groups", 1, 1024)?;
    let fds = a.int("fds", 20, 1, 1024)? as u32;
    let loops = a.int("loops", 100, 1, 1 << 32)? as u64;
    let datasize = a.int("datasize", 100, 1, 1 << 20)? as u64;
    let mode = a.choice("mode", "process", &["process", "threads"])?;
    let ipc = a.choice("ipc", "sockets", &["pipe", "sockets"])?;
    a.tasks_fit(groups as u64 * fds as u64 * 2, &format!("{groups} groups × {fds} fds × 2"))?;
    let pipe = ipc == "pipe";
    let write = a.dur("write_cost", if pipe { 800 } else { 1_600 })?;
    let read = a.dur("read_cost", if pipe { 700 } else { 1_300 })?;
    let (capacity, kind) = if pipe { default_pipe(datasize) } else { unix_socket(datasize) };
    let name = o.name.clone();
    let process = (mode == "threads").then_some(name.as_str());
    let (w, r) = (o.cost(write), o.cost(read));
    let mut workers = Vec::new();
    for g in 0..groups {
        let chans: Vec<String> = (0..fds).map(|k| format!("{name}-g{g}-{k}")).collect();
        for (k, ch) in chans.iter().enumerate() {
            o.chan(ch, capacity, kind);
            let rx = format!("{name}-g{g}-rx{k}");
            o.task(&rx, 1, &format!("loop {} {{ recv {ch}; run {r} }}", loops * fds as u64), process)?;
            workers.push(rx);
        }
        let body: Vec<String> = chans.iter().map(|ch| format!("run {w}; send {ch}")).collect();
        o.task(&format!("{name}-g{g}-tx"), fds, &format!("loop {loops} {{ {} }}", body.join("; ")), process)?;
    }
    let mut m = o.measure("hackbench", format!("{mode}-{ipc}"), plural(groups, "group", "groups"), Metric::Time, workers);
    m.total_ops = Some(groups as u64 * fds as u64 * fds as u64 * loops);
    // Each sender writes to every receiver of its group in turn and blocks
    // on the first full pipe, so no receiver falls more than a pipe's
    // capacity (per sender) behind its group: over the seconds of a real
    // run a group finishes as one, when its receivers together have read
    // its share. The group, not one receiver, is the unit whose rate in the
    // window predicts the job's end.
    m.unit = fds;
    Ok(m)
}

/// schbench: each message thread runs `loop { reply; wait }` (wake every
/// worker on its list, then fwait); each worker runs
/// `loop { call msg; sleep; run work }` (msg_and_wait(), then usleep and
/// do_work()). Request latency is from the call returning to the next
/// call, as schbench's work_start..now. All threads share one process.
fn schbench(a: &mut Args, o: &mut Out) -> R<Measure> {
    let v2019 = a.choice("version", "2023", &["2023", "2019"])? == "2019";
    let m = a.count("message_threads", 1, 4096)?;
    let workers = a.count("workers", if v2019 { 16 } else { a.cpus.div_ceil(m) }, 65_536)?;
    let (sleep, work) = (a.dur("sleep", 100_000)?, a.dur("work", 1_000_000)?);
    let (sleeptime, cputime) = (a.dur("sleeptime", 30_000_000)?, a.dur("cputime", 30_000_000)?);
    a.tasks_fit(m as u64 * (1 + workers as u64), &format!("{m} message threads × (1 + {workers} workers)"))?;
    let name = o.name.clone();
    let mut ws = Vec::new();
    for i in 0..m {
        let msg = format!("{name}-m{i}");
        let w = format!("{msg}-w");
        if v2019 {
            // run_msg_thread(): xlist_wake_all(); fwait(); usleep(sleeptime
            // + rand() % (sleeptime / 4)). worker_thread(): usec_spin(cputime);
            // msg_and_wait() (schbench.c before the April 2023 rewrite).
            let nap = if sleeptime == 0 {
                String::new()
            } else {
                format!("; sleep uniform({}, {})", scenario::format_duration(sleeptime), scenario::format_duration(sleeptime + sleeptime / 4))
            };
            o.task(&msg, 1, &format!("loop {{ reply; wait{nap} }}"), Some(&name))?;
            o.task(&w, workers, &format!("loop {{ run {}; call {msg} }}", scenario::format_duration(cputime.max(1))), Some(&name))?;
        } else {
            o.task(&msg, 1, "loop { reply; wait }", Some(&name))?;
            let think = if sleep > 0 { format!("sleep {}; ", scenario::format_duration(sleep)) } else { String::new() };
            o.task(&w, workers, &format!("loop {{ call {msg}; {think}run {} }}", o.cost(work.max(1))), Some(&name))?;
        }
        ws.push(w);
    }
    let mut measure = o.measure("schbench", "normal".into(), plural(m, "mthread", "mthreads"), Metric::WakeupP99, ws);
    measure.load_by.push(("workers", plural(workers, "worker", "workers")));
    // msg_and_wait() takes the time after fwait() returns, against the
    // wake_time the message thread wrote before its fpost(); the 2023
    // worker's usleep() is not timed.
    measure.reply_wakeups = true;
    Ok(measure)
}

/// One request/response pair per thread: the client sends a request and
/// waits for the answer; the server waits for a request, answers it.
/// Every client is forked before the first server: netserver and
/// tbench_srv fork a server when its client connects. Forked in pairs at
/// time 0, the fork balancer alternated sockets, so every server started on
/// the other socket than its client and was pulled onto its client's busy
/// CPU by the first sync request: a start no real run has.
fn rr_pairs(o: &mut Out, threads: u32, client: &str, server: &str) -> R<Vec<String>> {
    let name = o.name.clone();
    let (mut clients, mut servers) = (Vec::new(), Vec::new());
    for i in 0..threads {
        let (req, resp) = (format!("{name}-{i}-req"), format!("{name}-{i}-resp"));
        let cap = crate::lab::scenario::DEFAULT_CHANNEL_CAPACITY;
        o.chan(&req, cap, tcp_socket(cap));
        o.chan(&resp, cap, tcp_socket(cap));
        let c = format!("{name}-c{i}");
        o.task(&c, 1, &format!("loop {{ run {client}; send {req}; recv {resp} }}"), None)?;
        clients.push(c);
        servers.push((format!("{name}-s{i}"), format!("loop {{ recv {req}; run {server}; send {resp} }}")));
    }
    for (s, program) in &servers {
        o.task(s, 1, program, None)?;
    }
    Ok(clients)
}

/// netperf TCP_RR/UDP_RR: a netperf process per thread and its netserver;
/// each transaction is send + wait for the reply. The loopback receive
/// path runs in the sender's context (softirq), so its cost is part of
/// `send_cost`; sk_data_ready wakes the reader with WF_SYNC.
fn netperf_rr(a: &mut Args, o: &mut Out) -> R<Measure> {
    let threads = a.count("threads", a.cpus, 65_536)?;
    let proto = a.choice("proto", "tcp", &["tcp", "udp"])?;
    let tcp = proto == "tcp";
    let send = a.dur("send_cost", if tcp { 5_000 } else { 4_000 })?;
    let recv = a.dur("recv_cost", if tcp { 2_000 } else { 1_500 })?;
    // Client: recv of the previous answer + send of the next request.
    let side = o.cost(send + recv);
    let clients = rr_pairs(o, threads, &side, &side)?;
    let case = if tcp { "TCP_RR" } else { "UDP_RR" };
    Ok(o.measure("netperf-rr", case.into(), plural(threads, "thread", "threads"), Metric::Throughput, clients))
}

/// netperf TCP_STREAM/UDP_STREAM: the sender writes 64 KiB messages as
/// fast as it can; the socket buffer holds `window` of them (for UDP the
/// kernel drops instead of blocking; the model blocks, so UDP here is
/// TCP without the ACK cost).
fn netperf_stream(a: &mut Args, o: &mut Out) -> R<Measure> {
    let threads = a.count("threads", a.cpus, 65_536)?;
    let proto = a.choice("proto", "tcp", &["tcp", "udp"])?;
    let window = a.int("window", 16, 1, 1 << 20)? as u64;
    let send = a.dur("send_cost", 12_000)?;
    let recv = a.dur("recv_cost", 8_000)?;
    let name = o.name.clone();
    let (send, recv) = (o.cost(send), o.cost(recv));
    // The senders first: netserver forks each receiver when its sender
    // connects (rr_pairs()).
    let mut rxs = Vec::new();
    for i in 0..threads {
        let ch = format!("{name}-{i}");
        o.chan(&ch, window, tcp_socket(window));
        o.task(&format!("{name}-tx{i}"), 1, &format!("loop {{ run {send}; send {ch} }}"), None)?;
        rxs.push((format!("{name}-rx{i}"), format!("loop {{ recv {ch}; run {recv} }}")));
    }
    for (rx, program) in &rxs {
        o.task(rx, 1, program, None)?;
    }
    let rxs = rxs.into_iter().map(|(rx, _)| rx).collect();
    let case = if proto == "tcp" { "TCP_STREAM" } else { "UDP_STREAM" };
    Ok(o.measure("netperf-stream", case.into(), plural(threads, "thread", "threads"), Metric::Throughput, rxs))
}

/// tbench: each client process talks to its own tbench_srv process over
/// loopback TCP, request/response, with request costs that vary (the
/// dbench load file mixes small and large operations).
fn tbench(a: &mut Args, o: &mut Out) -> R<Measure> {
    let threads = a.count("threads", a.cpus, 65_536)?;
    let client = a.dist("client_work", "exp(6us)")?;
    let server = a.dist("server_work", "exp(10us)")?;
    let clients = rr_pairs(o, threads, &client, &server)?;
    Ok(o.measure("tbench", "loopback".into(), plural(threads, "thread", "threads"), Metric::Throughput, clients))
}

/// pipe-test: two tasks pass one byte back and forth through two pipes.
fn pipe_test(a: &mut Args, o: &mut Out) -> R<Measure> {
    let cpu = a.int("cpu", 0, -1, scenario::MAX_CPUS as i64 - 1)?;
    let loops = a.int("loops", 0, 0, i64::MAX)?;
    let work = a.dur("work", 700)?;
    let mode = a.choice("mode", "process", &["process", "threads"])?;
    if cpu >= 0 && o.common.affinity.is_none() {
        o.common.affinity = Some((CpuList(vec![cpu as u32]), o.pos));
    }
    let work = o.cost(work);
    let name = o.name.clone();
    let process = (mode == "threads").then_some(name.as_str());
    let (ab, ba) = (format!("{name}-ab"), format!("{name}-ba"));
    o.chan(&ab, 1, ChannelKind::Pipe { pages: 1 });
    o.chan(&ba, 1, ChannelKind::Pipe { pages: 1 });
    let count = if loops > 0 { format!("{loops} ") } else { String::new() };
    let a_task = format!("{name}-a");
    o.task(&a_task, 1, &format!("loop {count}{{ run {work}; send {ab}; recv {ba} }}"), process)?;
    o.task(&format!("{name}-b"), 1, &format!("loop {count}{{ recv {ab}; run {work}; send {ba} }}"), process)?;
    let mut m = o.measure("pipe-test", "pipe".into(), "2 tasks".into(), Metric::Throughput, vec![a_task]);
    m.total_ops = (loops > 0).then_some(loops as u64);
    Ok(m)
}

/// stress-ng --futex (stress-futex.c, 0.15–0.17): per instance the parent
/// calls futex_wake(futex, 1) in a tight loop and never sleeps; its forked
/// child calls futex_wait(futex, 0, 5 µs) in a loop. The word stays 0, so
/// every wait blocks, and a wake that finds the child not waiting (it is
/// running, or woken and still queued for a CPU) is lost. The bogo ops are
/// the child's waits that a wake ended: timeouts are not counted. Left
/// out: the child's 250 ms back-off after every 100 000 timeouts (at one
/// timeout per ≥ 55 µs that is ≥ 5.5 s in, past any study window) and the
/// futex_waitv() used for one wait in 17.
fn stress_futex(a: &mut Args, o: &mut Out) -> R<Measure> {
    let n = a.count("instances", a.cpus, 65_536)?;
    let (wake, wait) = (o.cost(a.dur("wake_cost", 400)?), o.cost(a.dur("wait_cost", 500)?));
    // A timeout is not a cost: no jitter.
    let timeout = scenario::format_duration(a.dur("timeout", 5_000)?.clamp(1, scenario::MAX_DURATION_NS));
    let name = o.name.clone();
    let mut waiters = Vec::new();
    for i in 0..n {
        let (waker, waiter) = (format!("{name}-{i}"), format!("{name}-{i}-w"));
        o.task(&waker, 1, &format!("loop {{ run {wake}; futex_wake {waiter} }}"), None)?;
        o.task(&waiter, 1, &format!("loop {{ run {wait}; futex_wait {timeout} }}"), None)?;
        waiters.push(waiter);
    }
    Ok(o.measure("stress-futex", "futex".into(), plural(n, "instance", "instances"), Metric::Throughput, waiters))
}

/// stress-ng's MAX_SIGSUSPEND_PIDS: the children of one sigsuspend instance.
const SIGSUSPEND_CHILDREN: u32 = 4;

/// stress-ng --sigsuspend: per instance a parent kill()s each of its
/// SIGSUSPEND_CHILDREN children in turn; a child returns from
/// sigsuspend(), runs the handler and suspends again.
fn stress_sigsuspend(a: &mut Args, o: &mut Out) -> R<Measure> {
    let n = a.count("instances", a.cpus, 65_536)?;
    a.tasks_fit(n as u64 * (1 + SIGSUSPEND_CHILDREN as u64), &format!("{n} instances × (1 + {SIGSUSPEND_CHILDREN} children)"))?;
    let (kill, handle) = (o.cost(a.dur("kill_cost", 500)?), o.cost(a.dur("handle_cost", 800)?));
    let name = o.name.clone();
    let mut children = Vec::new();
    for i in 0..n {
        let kids: Vec<String> = (0..SIGSUSPEND_CHILDREN).map(|k| format!("{name}-{i}-c{k}")).collect();
        let body: Vec<String> = kids.iter().map(|c| format!("run {kill}; wake {c}")).collect();
        o.task(&format!("{name}-{i}"), 1, &format!("loop {{ {} }}", body.join("; ")), None)?;
        for c in kids {
            o.task(&c, 1, &format!("loop {{ wait; run {handle} }}"), None)?;
            children.push(c);
        }
    }
    Ok(o.measure("stress-sigsuspend", "sigsuspend".into(), plural(n, "instance", "instances"), Metric::Throughput, children))
}

/// stress-ng --sigrt (stress-sigrt.c, V0.16.05 of September 2023, what
/// the robot ran): per instance the parent sigqueue()s SIGRTMIN+i to
/// child i for i in 0..31 (MAX_RTPIDS = SIGRTMAX − SIGRTMIN + 1), over
/// and over, counting a bogo op per call; it never waits. A child blocks
/// in sigwaitinfo(), and per signal sigqueue()s one more to itself and
/// takes it with a second sigwaitinfo() that does not block. Real-time
/// signals queue (one per call), so each child has a signal queue.
fn stress_sigrt(a: &mut Args, o: &mut Out) -> R<Measure> {
    let n = a.count("instances", a.cpus, 65_536)?;
    a.tasks_fit(n as u64 * (1 + SIGRT_CHILDREN as u64), &format!("{n} instances × (1 + {SIGRT_CHILDREN} children)"))?;
    let (send, handle) = (o.cost(a.dur("send_cost", 1_500)?), o.cost(a.dur("handle_cost", 2_600)?));
    let name = o.name.clone();
    let mut parents = Vec::new();
    for i in 0..n {
        let mut body = Vec::new();
        for k in 0..SIGRT_CHILDREN {
            let (child, queue) = (format!("{name}-{i}-c{k}"), format!("{name}-{i}-q{k}"));
            o.signal_queue(&queue);
            o.task(&child, 1, &format!("loop {{ recv {queue}; run {handle} }}"), None)?;
            body.push(format!("run {send}; send {queue}"));
        }
        let parent = format!("{name}-{i}");
        o.task(&parent, 1, &format!("loop {{ {} }}", body.join("; ")), None)?;
        parents.push(parent);
    }
    let mut m = o.measure("stress-sigrt", "sigrt".into(), plural(n, "instance", "instances"), Metric::Throughput, parents);
    m.ops_per_loop = SIGRT_CHILDREN as u64;
    Ok(m)
}

/// SIGRTMAX − SIGRTMIN + 1 with glibc (SIGRTMIN 34, SIGRTMAX 64).
const SIGRT_CHILDREN: u32 = 31;

/// RLIMIT_SIGPENDING as the kernel sets it for init (max_threads / 2,
/// fork_init()) on a machine of about 16 GiB: the real-time signals a user
/// may have queued. A signal queue holds at most this many.
const SIGPENDING: u64 = 65_536;

/// stress-ng --sigfd (stress-sigfd.c, V0.16.05): per instance a forked
/// child sigqueue()s SIGRTMIN to its parent in a tight loop (EAGAIN from
/// a full queue is ignored), and the parent, with SIGRTMIN blocked,
/// read()s each signal from a signalfd, counting a bogo op per read; a
/// read of an empty signalfd blocks.
fn stress_sigfd(a: &mut Args, o: &mut Out) -> R<Measure> {
    let n = a.count("instances", a.cpus, 65_536)?;
    let (send, read) = (o.cost(a.dur("send_cost", 1_500)?), o.cost(a.dur("read_cost", 650)?));
    let name = o.name.clone();
    let mut parents = Vec::new();
    for i in 0..n {
        let (parent, queue) = (format!("{name}-{i}"), format!("{name}-{i}-q"));
        o.signal_queue(&queue);
        o.task(&parent, 1, &format!("loop {{ recv {queue}; run {read} }}"), None)?;
        o.task(&format!("{name}-{i}-c"), 1, &format!("loop {{ run {send}; send {queue} }}"), None)?;
        parents.push(parent);
    }
    Ok(o.measure("stress-sigfd", "sigfd".into(), plural(n, "instance", "instances"), Metric::Throughput, parents))
}

/// UnixBench pipe: a process writes 512 bytes to its own pipe and reads
/// them back (pipe.c of UnixBench's src/); a full round trip never blocks,
/// so to the scheduler each copy is a CPU hog counting its loops.
fn unixbench_pipe(a: &mut Args, o: &mut Out) -> R<Measure> {
    let n = a.count("tasks", 1, 65_536)?;
    let cost = o.cost(a.dur("cost", 2_000)?.max(1));
    let name = o.name.clone();
    o.task(&name, n, &format!("loop {{ run {cost} }}"), None)?;
    Ok(o.measure("unixbench-pipe", "pipe".into(), plural(n, "task", "tasks"), Metric::Throughput, vec![name.clone()]))
}

fn hogs(a: &mut Args, o: &mut Out) -> R<Measure> {
    let n = a.count("count", a.cpus, 65_536)?;
    let name = o.name.clone();
    o.task(&name, n, "run", None)?;
    Ok(o.measure("hogs", "hogs".into(), plural(n, "task", "tasks"), Metric::CpuTime, vec![name.clone()]))
}

/// The scenario with every workload replaced by its tasks and channels, in
/// the scenario's order (tasks written by hand first). Names must not
/// collide.
pub fn expand_all(sc: &scenario::Scenario, cpus: u32) -> R<(Vec<TaskSpec>, Vec<ChannelSpec>, Vec<Measure>)> {
    let mut tasks = sc.tasks.clone();
    let mut channels = sc.channels.clone();
    let mut measures = Vec::new();
    // Name sets keep the clash checks linear: a hackbench can have 10^5 tasks.
    let mut task_names: HashSet<String> = tasks.iter().map(|t| t.name.clone()).collect();
    let mut channel_names: HashSet<String> = channels.iter().map(|c| c.name.clone()).collect();
    let mut total: u64 = tasks.iter().map(|t| t.count as u64).sum();
    for (i, w) in sc.workloads.iter().enumerate() {
        let e = expand(w, i, cpus)?;
        total += e.tasks.iter().map(|t| t.count as u64).sum::<u64>();
        if total > MAX_TASKS {
            return Err(ScenarioError::new(base_key(w), Some(w.pos), format!("with this workload the scenario has {total} tasks; a run holds at most {MAX_TASKS}")));
        }
        for t in &e.tasks {
            if !task_names.insert(t.name.clone()) {
                return Err(ScenarioError::new(format!("{}.name", base_key(w)), Some(w.pos), format!("workload task `{}` clashes with another task; give the workload a `name`", t.name)));
            }
        }
        // A [[channel]] written by hand sets the capacity of a workload's
        // channel: only channels not yet known are added.
        for c in e.channels {
            if channel_names.insert(c.name.clone()) {
                channels.push(c);
            }
        }
        tasks.extend(e.tasks);
        measures.push(e.measure);
    }
    if total > MAX_TASKS {
        return Err(ScenarioError::new("task", None, format!("the scenario has {total} tasks; a run holds at most {MAX_TASKS}")));
    }
    Ok((tasks, channels, measures))
}

/// The expanded scenario as TOML (`schedlab expand`): [[channel]] and
/// [[task]] entries that parse back to the same tasks.
pub fn to_toml(tasks: &[TaskSpec], channels: &[ChannelSpec], measures: &[Measure]) -> String {
    let mut s = String::new();
    for m in measures {
        s.push_str(&format!(
            "# workload `{}` ({}): case {}, load {}, metric {} ({}, {} is better) over {}\n",
            m.name,
            m.kind,
            m.case,
            m.load,
            m.metric.name(),
            m.metric.unit(),
            if m.metric.higher_is_better() { "higher" } else { "lower" },
            m.workers.join(", ")
        ));
    }
    for c in channels {
        s += &scenario::channel_toml(c);
    }
    for t in tasks {
        s += &scenario::task_toml(t);
    }
    s
}

#[cfg(test)]
mod tests;
