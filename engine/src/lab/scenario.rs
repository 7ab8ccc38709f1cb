//! Scenario text (TOML, or JSON with the same structure) to a validated
//! [`Scenario`], with errors that name the offending key and its line and
//! column. This is the contract between the web UI, the CLI and the tests;
//! see docs/design.md, "Scenario format".
//!
//! Names whose validity depends on the engine (kernel presets, patches,
//! feature flags, topology presets) are returned as [`Named`] so the engine
//! can report an error at the place they were written with
//! [`ScenarioError::at`].
//!
//! Bad input never panics: every failure is a [`ScenarioError`], and nesting
//! depth is capped in both front ends and in the program language.

mod duration;
mod json;
mod print;
mod program;
mod value;
pub(crate) use value::toml_to_json;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;

pub use duration::{format_duration, parse_duration, MAX_DURATION_NS};
pub use print::{channel as channel_toml, task as task_toml, to_toml};
pub use program::MAX_LOOP_DEPTH;

use value::{Entry, Kind, Src, Value};

// ---------------------------------------------------------------------------
// Public types
// ---------------------------------------------------------------------------

/// 1-based line and column (columns count chars, not bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

impl Pos {
    /// Line 1, column 1: where defaulted values are said to be.
    pub const START: Pos = Pos { line: 1, col: 1 };
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.col)
    }
}

/// A name whose validity is checked later by the engine (kernel preset,
/// patch, feature flag, topology preset), kept with where it was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Named {
    pub name: String,
    /// Path of the key, e.g. "sim.kernel", "sim.patches[1]", "sim.features.RUN_TO_PARITY".
    pub key: String,
    pub pos: Pos,
}

/// A scenario error: the key path it is about (e.g. "task[1].nice"; "" for
/// a syntax error), where, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub key: String,
    pub pos: Option<Pos>,
    pub msg: String,
}

/// Where a [`ScenarioError`] points; built from a `&Named`, `(key, Pos)` or
/// `(key, Option<Pos>)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorLoc {
    pub key: String,
    pub pos: Option<Pos>,
}

impl From<&Named> for ErrorLoc {
    fn from(n: &Named) -> Self {
        ErrorLoc {
            key: n.key.clone(),
            pos: Some(n.pos),
        }
    }
}

impl From<(&str, Pos)> for ErrorLoc {
    fn from((key, pos): (&str, Pos)) -> Self {
        ErrorLoc {
            key: key.to_string(),
            pos: Some(pos),
        }
    }
}

impl From<(String, Pos)> for ErrorLoc {
    fn from((key, pos): (String, Pos)) -> Self {
        ErrorLoc {
            key,
            pos: Some(pos),
        }
    }
}

impl From<(&str, Option<Pos>)> for ErrorLoc {
    fn from((key, pos): (&str, Option<Pos>)) -> Self {
        ErrorLoc {
            key: key.to_string(),
            pos,
        }
    }
}

impl From<(String, Option<Pos>)> for ErrorLoc {
    fn from((key, pos): (String, Option<Pos>)) -> Self {
        ErrorLoc { key, pos }
    }
}

/// Words of an error message longer than this are cut (an unknown key or
/// name of 100 000 characters is named by its start, not echoed whole).
const MAX_WORD: usize = 64;

/// `s` with every word longer than [`MAX_WORD`] characters cut to its
/// start, an ellipsis and its length.
fn clip(s: String) -> String {
    if s.len() <= MAX_WORD {
        return s;
    }
    let mut out = String::with_capacity(s.len().min(1024));
    let mut word = 0;
    let mut cut = false;
    let mut dropped = 0usize;
    for c in s.chars() {
        if c.is_whitespace() {
            if cut {
                out.push_str(&format!("… ({} characters)", MAX_WORD + dropped));
            }
            (word, cut, dropped) = (0, false, 0);
            out.push(c);
            continue;
        }
        word += 1;
        if word <= MAX_WORD {
            out.push(c);
        } else {
            cut = true;
            dropped += 1;
        }
    }
    if cut {
        out.push_str(&format!("… ({} characters)", MAX_WORD + dropped));
    }
    out
}

impl ScenarioError {
    pub fn new(key: impl Into<String>, pos: Option<Pos>, msg: impl Into<String>) -> Self {
        ScenarioError {
            key: clip(key.into()),
            pos,
            msg: clip(msg.into()),
        }
    }

    /// An error at a [`Named`] (`ScenarioError::at(&sim.kernel, "unknown kernel preset")`)
    /// or at a `(key, pos)` pair.
    pub fn at(loc: impl Into<ErrorLoc>, msg: impl Into<String>) -> Self {
        let loc = loc.into();
        ScenarioError::new(loc.key, loc.pos, msg)
    }
}

impl fmt::Display for ScenarioError {
    /// "task[1].nice at line 12, column 8: nice must be an integer in -20..=19"
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.key.is_empty(), self.pos) {
            (false, Some(p)) => write!(f, "{} at {}: {}", self.key, p, self.msg),
            (false, None) => write!(f, "{}: {}", self.key, self.msg),
            (true, Some(p)) => write!(f, "{}: {}", p, self.msg),
            (true, None) => write!(f, "{}", self.msg),
        }
    }
}

impl std::error::Error for ScenarioError {}

/// The two accepted scenario syntaxes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Toml,
    Json,
}

impl Format {
    /// JSON when the first non-whitespace character is `{`, TOML otherwise.
    pub fn detect(text: &str) -> Format {
        let t = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        if t.starts_with('{') {
            Format::Json
        } else {
            Format::Toml
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scenario {
    pub sim: Sim,
    pub topology: Topology,
    pub tasks: Vec<TaskSpec>,
    pub groups: Vec<GroupSpec>,
    pub channels: Vec<ChannelSpec>,
    pub workloads: Vec<WorkloadSpec>,
    pub study: Option<StudySpec>,
}

/// `[[channel]]`: a message channel with a capacity (messages); channels a
/// program names without declaring get the default capacity and are
/// one-page pipes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelSpec {
    pub name: String,
    pub capacity: u64,
    /// Whether a send wakes the receiver with WF_SYNC: true for pipes and
    /// sockets (the default), false for a queue of real-time signals
    /// (sigqueue() wakes its receiver without WF_SYNC).
    pub sync: bool,
    /// The kernel object (`kind`); a signal queue (`sync = false`) is
    /// always `Pipe { pages: 1 }` here and ignores it.
    pub kind: ChannelKind,
    pub pos: Pos,
}

/// `kind` of a `[[channel]]`: which kernel object carries its messages
/// (kernel/chan.rs has the rules of each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelKind {
    /// A pipe of `pages` pages (a power of two, as F_SETPIPE_SZ makes it),
    /// `capacity / pages` messages to a page.
    Pipe { pages: u64 },
    /// A unix stream socket whose blocked writers wake once at most
    /// `wake_at` messages are queued (default: a quarter of `capacity`).
    Socket { wake_at: u64 },
}

impl ChannelSpec {
    /// A one-page pipe of `capacity` messages.
    pub fn pipe(name: &str, capacity: u64, pos: Pos) -> ChannelSpec {
        ChannelSpec { name: name.to_string(), capacity, sync: true, kind: ChannelKind::Pipe { pages: 1 }, pos }
    }

    /// How the engine's channel makes room and wakes.
    pub fn room(&self) -> crate::kernel::chan::Room {
        use crate::kernel::chan::Room;
        match self.kind {
            _ if !self.sync => Room::Signals,
            ChannelKind::Pipe { pages } => Room::Pipe { per_page: self.capacity / pages },
            ChannelKind::Socket { wake_at } => Room::Socket { wake_at },
        }
    }
}

/// Where a key was given: its full name and its value's position.
struct Given {
    key: String,
    pos: Pos,
}

impl Given {
    fn at(cx: &Cx, key: String, v: &Value) -> Given {
        Given { pos: cx.pos(v.start), key }
    }

    fn err(self, msg: &str) -> ScenarioError {
        ScenarioError::new(self.key, Some(self.pos), msg.to_string())
    }
}

/// A `[[channel]]`'s `kind`, `pages` and `wake_at`, checked against its
/// capacity once every key is read. (Static messages: the key and its
/// position say which value is refused, and the page's size budget is
/// tight.)
fn channel_kind(c: &ChannelSpec, kind: Option<(String, Given)>, pages: Option<(u64, Given)>, wake_at: Option<(u64, Given)>) -> R<ChannelKind> {
    if !c.sync {
        return match kind.map(|k| k.1).or(pages.map(|p| p.1)).or(wake_at.map(|w| w.1)) {
            Some(g) => Err(g.err("a signal queue (`sync = false`) has no `kind`, `pages` or `wake_at`")),
            None => Ok(ChannelKind::Pipe { pages: 1 }),
        };
    }
    match kind {
        Some((k, g)) if k != "pipe" && k != "socket" => Err(g.err("unknown channel kind: expected \"pipe\" or \"socket\"")),
        Some((k, _)) if k == "socket" => match (pages, wake_at) {
            (Some((_, g)), _) => Err(g.err("`pages` is a pipe's: a socket's room is its capacity")),
            (None, Some((w, g))) if w >= c.capacity => Err(g.err("`wake_at` must be below the capacity")),
            (None, wake_at) => Ok(ChannelKind::Socket { wake_at: wake_at.map_or(c.capacity / 4, |w| w.0) }),
        },
        _ => match (pages, wake_at) {
            (_, Some((_, g))) => Err(g.err("`wake_at` is a socket's: a pipe wakes a writer when it frees a page of a full pipe")),
            (Some((n, g)), _) if !n.is_power_of_two() => Err(g.err("a pipe's size is a power of two of pages (F_SETPIPE_SZ rounds it up to one)")),
            (Some((n, g)), _) if !c.capacity.is_multiple_of(n) => Err(g.err("the capacity must be a multiple of `pages`: each page holds capacity / pages messages")),
            (pages, None) => Ok(ChannelKind::Pipe { pages: pages.map_or(1, |p| p.0) }),
        },
    }
}

/// Default channel capacity in messages: a one-page pipe of 4-byte
/// messages (as `schedlab validate` runs it).
pub const DEFAULT_CHANNEL_CAPACITY: u64 = 1024;

/// `[[workload]]`: a macro that expands into tasks and channels (see
/// workload.rs). Its parameters are kept as written, for the engine to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadSpec {
    pub kind: Named,
    pub name: Option<String>,
    /// Every other key, with its value as an integer, duration (ns) or string.
    pub params: Vec<(Named, Param)>,
    pub pos: Pos,
}

/// A workload parameter value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Param {
    Int(i64),
    /// A duration string ("100us"), in ns.
    Dur(u64),
    Str(String),
    Bool(bool),
}

impl fmt::Display for Param {
    /// As it would be written in TOML.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Param::Int(n) => write!(f, "{n}"),
            Param::Dur(ns) => write!(f, "\"{}\"", format_duration(*ns)),
            Param::Str(s) => f.write_str(&print::quote(s)),
            Param::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// `[study]`: one workload at several load levels × seeds × configurations,
/// reduced to the seed mails' table (see study.rs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StudySpec {
    /// Configuration specs ("6.6", "6.6+sis-filter", "6.6,SIS_UTIL=off").
    pub base: Named,
    pub compare: Vec<Named>,
    pub seeds: Vec<u64>,
    /// The workload parameter the load levels set (e.g. "groups").
    pub load: Option<Named>,
    pub loads: Vec<(Param, Pos)>,
    /// Rows: each case is a set of workload parameters.
    pub cases: Vec<Vec<(Named, Param)>>,
    /// The figure compared (default: the workload's own).
    pub metric: Option<Named>,
    pub pos: Pos,
}

/// `[[group]]`: a cpu cgroup (task group) with its weight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupSpec {
    /// Same rules as task names; unique among groups.
    pub name: String,
    /// The parent group (None: the root group).
    pub parent: Option<Named>,
    /// cgroup v2 `cpu.weight` (1..=10000, default 100), or v1 `cpu.shares`
    /// given as `shares` (2..=262144), already converted to a v2 weight
    /// is not exact, so both are kept: shares wins when given.
    pub weight: u32,
    pub shares: Option<u64>,
    /// `cpu.idle`: the group is SCHED_IDLE to its siblings.
    pub idle: bool,
    pub pos: Pos,
}

/// Cost overrides (`[sim] costs = { ... }`), ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Costs {
    pub context_switch: Option<u64>,
    pub thread_switch: Option<u64>,
    /// A move across LLCs (cache-cold), and one within an LLC.
    pub migration: Option<u64>,
    pub migration_llc: Option<u64>,
    pub scan: Option<u64>,
    /// A task's wake-up of another (try_to_wake_up() and the rest of its
    /// system call), charged to the waker, or to the task switched in next
    /// when the wake-up preempts the waker (rq_clock_skip_update()).
    pub wakeup: Option<u64>,
    /// A fixed idle-exit latency (instead of the topology's idle states).
    pub idle_exit: Option<u64>,
    /// The system call behind every `send` and `recv` (pipe_write(),
    /// pipe_read(), a socket's sendmsg/recvmsg, kill, sigtimedwait): CPU
    /// time the task spends before a send moves its messages and after a
    /// recv has its messages. Default 0: the program's own `run`s are all
    /// the CPU time there is (workloads charge theirs as `run`s).
    pub channel_op: Option<u64>,
}

/// Defaults for `[sim]`.
pub const DEFAULT_DURATION_NS: u64 = 1_000_000_000;
pub const DEFAULT_SEED: u64 = 1;
pub const DEFAULT_KERNEL: &str = "6.18";

/// Range of a custom slice (task `slice`, program `slice D`) and of `base_slice`.
pub const SLICE_MIN_NS: u64 = 100_000;
pub const SLICE_MAX_NS: u64 = 100_000_000;

/// Accepted `hz` values.
pub const HZ_VALUES: [u32; 4] = [100, 250, 300, 1000];

/// Topology limits.
pub const MAX_TOPOLOGY_COUNT: u32 = 1024;
pub const MAX_THREADS_PER_CORE: u32 = 8;
pub const MAX_CPUS: u32 = 4096;

/// Task limits.
pub const MAX_TASK_COUNT: u32 = 65_536;
pub const MAX_NAME_LEN: usize = 64;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sim {
    /// ns; key "duration", default 1s.
    pub duration: u64,
    /// default 1.
    pub seed: u64,
    /// default "6.18" (at the `[sim]` table, or 1:1 when there is none).
    pub kernel: Named,
    /// one of 100, 250, 300, 1000.
    pub hz: Option<(u32, Pos)>,
    pub patches: Vec<Named>,
    /// Per-flag overrides in file order; the Named is the flag's key.
    pub features: Vec<(Named, bool)>,
    /// ns, 100us..=100ms.
    pub base_slice: Option<(u64, Pos)>,
    pub tunable_scaling: Option<(TunableScaling, Pos)>,
    pub costs: Costs,
    /// ns; key "warmup": results count from this time on (0: from the start).
    pub warmup: Option<(u64, Pos)>,
    /// key "balance_phases"; default boot.
    pub balance_phases: Option<(BalancePhases, Pos)>,
}

/// When each CPU's sched domains were last balanced as the run begins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BalancePhases {
    /// All at time 0, as sd_init() leaves them after boot: the first
    /// periodic balances of a level come due together, and on busy CPUs
    /// the next ones only a busy interval (busy_factor × the domain's
    /// interval: 1.8 s for a 112-CPU LLC) later.
    Boot,
    /// Each CPU's domains last balanced at a point of their busy interval,
    /// spread evenly over the CPUs from an offset drawn from the seed, as
    /// on a machine that has run the load for long: its periodic balances,
    /// and the SIS_UTIL budget the LLC's balance refreshes, come due spread
    /// over the interval (lab::build::spread_balance_phases).
    Spread,
}

/// sysctl_sched_tunable_scaling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TunableScaling {
    None,
    Log,
    Linear,
}

/// `[topology]`: a preset, or explicit counts (missing counts are left to
/// the engine, which treats them as 1). `pos` is the table's position, or
/// 1:1 when there is none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Topology {
    pub preset: Option<Named>,
    pub sockets: Option<(u32, Pos)>,
    pub llcs_per_socket: Option<(u32, Pos)>,
    pub cores_per_llc: Option<(u32, Pos)>,
    pub threads_per_core: Option<(u32, Pos)>,
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskSpec {
    /// [A-Za-z_][A-Za-z0-9_-]*, at most 64 chars, unique across tasks.
    pub name: String,
    /// 1..=65536; with count > 1 the engine names the tasks "name.0".."name.{n-1}".
    pub count: u32,
    /// -20..=19.
    pub nice: i32,
    pub policy: Policy,
    /// Custom slice (sched_attr.sched_runtime), ns, 100us..=100ms.
    pub slice: Option<u64>,
    pub affinity: Option<(CpuList, Pos)>,
    /// ns: when the task is created (forked).
    pub start: u64,
    pub program: Program,
    /// The task's cgroup (None: the root group).
    pub group: Option<Named>,
    /// The "wants to be wakeup-preempted" hint (a negative slice in the
    /// seed 003 reply's proposal).
    pub want_preempt: bool,
    /// The process the task belongs to: tasks naming the same process are
    /// threads sharing one address space (cheaper switches between them).
    /// None: a process of its own.
    pub process: Option<String>,
    /// Of the `[[task]]` header (JSON: the object's `{`).
    pub pos: Pos,
}

pub use crate::kernel::sched::core::Policy;

/// CPU numbers, sorted and unique, from the kernel's cpulist syntax.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CpuList(pub Vec<u32>);

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Program {
    pub stmts: Vec<Stmt>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stmt {
    pub kind: StmtKind,
    /// Position of the statement's keyword in the scenario file.
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StmtKind {
    Run(Dur),
    /// `run` with no duration: a CPU hog.
    RunForever,
    Sleep(Dur),
    /// `loop { .. }` (count None: forever) or `loop N { .. }`.
    Loop {
        count: Option<u64>,
        body: Vec<Stmt>,
    },
    Yield,
    Nice(i32),
    /// `slice D`; `slice 0` / `slice default` give None: back to the base slice.
    Slice(Option<u64>),
    Exit,
    Send {
        chan: String,
        n: u32,
    },
    Recv {
        chan: String,
        n: u32,
    },
    /// A task name, "name" or "name.3" for one of a counted task's instances.
    Wake(String),
    Wait,
    /// `futex_wake TASK`: FUTEX_WAKE of one waiter; lost when TASK is not
    /// blocked in `futex_wait` (a futex word has no memory of wakes).
    FutexWake(String),
    /// `futex_wait [D]`: FUTEX_WAIT, optionally with a relative timeout D
    /// (the timer slack is added as the kernel does).
    FutexWait(Option<Dur>),
    /// `call TASK`: put yourself on TASK's request list, wake it and wait
    /// for the reply (schbench's msg_and_wait()).
    Call(String),
    /// `reply`: wake every task on your request list (xlist_wake_all()).
    Reply,
}

/// A duration or a distribution of durations, in ns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dur {
    Fixed(u64),
    Exp { mean: u64 },
    Uniform { lo: u64, hi: u64 },
}

// ---------------------------------------------------------------------------
// Entry points
// ---------------------------------------------------------------------------

/// Parses a program on its own (workload macros build theirs as text);
/// every statement is placed at `at`.
pub fn parse_program(code: &str, at: Pos) -> Result<Program, String> {
    program::parse(code, &|_| at).map(|p| p.program).map_err(|(_, m)| m)
}

/// Parses a scenario, detecting the format (see [`Format::detect`]).
pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
    parse_with(text, Format::detect(text))
}

/// Parses a scenario in the given format.
pub fn parse_with(text: &str, format: Format) -> Result<Scenario, ScenarioError> {
    let src = Src::new(text);
    let root = match format {
        Format::Toml => value::from_toml(text),
        Format::Json => json::parse(text),
    }
    .map_err(|(off, msg)| ScenarioError::new(String::new(), off.map(|o| src.pos(o)), format!("syntax error: {msg}")))?;
    Cx { src: &src, format }.scenario(&root)
}

impl Scenario {
    /// Same as [`parse`].
    pub fn parse(text: &str) -> Result<Scenario, ScenarioError> {
        parse(text)
    }
}

impl std::str::FromStr for Scenario {
    type Err = ScenarioError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse(s)
    }
}

// ---------------------------------------------------------------------------
// CPU lists
// ---------------------------------------------------------------------------

impl CpuList {
    /// Parses the kernel's cpulist syntax (bitmap_parselist): comma-separated
    /// `N`, `A-B` and `A-B:G/L` (G CPUs out of every L, starting at A).
    /// CPU numbers must be below [`MAX_CPUS`]; an empty list is an error.
    pub fn parse(s: &str) -> Result<CpuList, String> {
        parse_cpulist(s).map_err(|(_, m)| m)
    }
}

impl fmt::Display for CpuList {
    /// The shortest `A-B` form: "0-3,8,10-11".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        let mut i = 0;
        while let Some(&a) = self.0.get(i) {
            let mut j = i;
            while let (Some(&x), Some(&y)) = (self.0.get(j), self.0.get(j + 1)) {
                if y != x.wrapping_add(1) {
                    break;
                }
                j += 1;
            }
            let b = self.0.get(j).copied().unwrap_or(a);
            if !first {
                f.write_str(",")?;
            }
            first = false;
            if a == b {
                write!(f, "{a}")?;
            } else {
                write!(f, "{a}-{b}")?;
            }
            i = j + 1;
        }
        Ok(())
    }
}

/// Errors carry the byte offset of the offending group.
fn parse_cpulist(s: &str) -> Result<CpuList, (usize, String)> {
    fn num(text: &str, at: usize, group: &str) -> Result<u32, (usize, String)> {
        let t = text.trim();
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err((
                at,
                format!(
                    "invalid cpulist group `{}`: expected a CPU number",
                    group.trim()
                ),
            ));
        }
        match t.parse::<u32>() {
            Ok(n) if n < MAX_CPUS => Ok(n),
            _ => Err((
                at,
                format!("CPU {t} is out of range (CPUs are numbered below {MAX_CPUS})"),
            )),
        }
    }
    let mut set = vec![false; MAX_CPUS as usize];
    let mut any = false;
    let mut off = 0;
    for group in s.split(',') {
        let at = off + (group.len() - group.trim_start().len());
        off += group.len() + 1;
        let g = group.trim();
        if g.is_empty() {
            if s.trim().is_empty() {
                break;
            }
            return Err((at, "empty group in cpulist (stray `,`)".to_string()));
        }
        let (range, stride) = match g.split_once(':') {
            Some((r, st)) => (r, Some(st)),
            None => (g, None),
        };
        let (a, b) = match range.split_once('-') {
            Some((a, b)) => (num(a, at, g)?, num(b, at, g)?),
            None => {
                let a = num(range, at, g)?;
                (a, a)
            }
        };
        if a > b {
            return Err((
                at,
                format!("invalid cpulist range `{g}`: {a} is greater than {b}"),
            ));
        }
        let (used, every) = match stride {
            None => (1, 1),
            Some(st) => {
                let bad = || {
                    (at, format!("invalid cpulist group `{g}`: expected A-B:USED/GROUP, e.g. \"0-15:2/4\""))
                };
                let (u, l) = st.split_once('/').ok_or_else(bad)?;
                let u: u32 = u.trim().parse().map_err(|_| bad())?;
                let l: u32 = l.trim().parse().map_err(|_| bad())?;
                if u == 0 || l == 0 || u > l {
                    return Err((
                        at,
                        format!("invalid cpulist group `{g}`: need 1 <= {u} <= {l}"),
                    ));
                }
                (u, l)
            }
        };
        let mut start = a;
        while start <= b {
            let mut cpu = start;
            while cpu <= b && cpu - start < used {
                if let Some(slot) = set.get_mut(cpu as usize) {
                    *slot = true;
                    any = true;
                }
                cpu += 1;
            }
            match start.checked_add(every) {
                Some(n) => start = n,
                None => break,
            }
        }
    }
    if !any {
        return Err((
            0,
            "empty cpulist; name at least one CPU, e.g. \"0\" or \"0-3\"".to_string(),
        ));
    }
    let cpus = set
        .iter()
        .enumerate()
        .filter(|&(_, &on)| on)
        .filter_map(|(i, _)| u32::try_from(i).ok())
        .collect();
    Ok(CpuList(cpus))
}

// ---------------------------------------------------------------------------
// Program and duration printing (the inverse of the parser)
// ---------------------------------------------------------------------------

impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Dur::Fixed(ns) => f.write_str(&format_duration(ns)),
            Dur::Exp { mean } => write!(f, "exp({})", format_duration(mean)),
            Dur::Uniform { lo, hi } => {
                write!(
                    f,
                    "uniform({}, {})",
                    format_duration(lo),
                    format_duration(hi)
                )
            }
        }
    }
}

fn write_stmts(f: &mut fmt::Formatter<'_>, stmts: &[Stmt]) -> fmt::Result {
    for (i, s) in stmts.iter().enumerate() {
        if i > 0 {
            f.write_str("; ")?;
        }
        write!(f, "{s}")?;
    }
    Ok(())
}

impl fmt::Display for Stmt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            StmtKind::Run(d) => write!(f, "run {d}"),
            StmtKind::RunForever => f.write_str("run"),
            StmtKind::Sleep(d) => write!(f, "sleep {d}"),
            StmtKind::Loop { count, body } => {
                f.write_str("loop ")?;
                if let Some(c) = count {
                    write!(f, "{c} ")?;
                }
                f.write_str("{ ")?;
                write_stmts(f, body)?;
                f.write_str(" }")
            }
            StmtKind::Yield => f.write_str("yield"),
            StmtKind::Nice(n) => write!(f, "nice {n}"),
            StmtKind::Slice(None) => f.write_str("slice default"),
            StmtKind::Slice(Some(ns)) => write!(f, "slice {}", format_duration(*ns)),
            StmtKind::Exit => f.write_str("exit"),
            StmtKind::Send { chan, n } => {
                write!(f, "send {chan}")?;
                if *n != 1 {
                    write!(f, " {n}")?;
                }
                Ok(())
            }
            StmtKind::Recv { chan, n } => {
                write!(f, "recv {chan}")?;
                if *n != 1 {
                    write!(f, " {n}")?;
                }
                Ok(())
            }
            StmtKind::Wake(t) => write!(f, "wake {t}"),
            StmtKind::Wait => f.write_str("wait"),
            StmtKind::FutexWake(t) => write!(f, "futex_wake {t}"),
            StmtKind::FutexWait(None) => f.write_str("futex_wait"),
            StmtKind::FutexWait(Some(d)) => write!(f, "futex_wait {d}"),
            StmtKind::Call(t) => write!(f, "call {t}"),
            StmtKind::Reply => f.write_str("reply"),
        }
    }
}

impl fmt::Display for Program {
    /// One line, statements separated by "; "; parses back to the same program.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_stmts(f, &self.stmts)
    }
}

// ---------------------------------------------------------------------------
// Suggestions
// ---------------------------------------------------------------------------

/// Optimal string alignment distance (Levenshtein plus adjacent swaps).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let w = b.len() + 1;
    // Rows i-1 and i-2 of the DP table, and the current row.
    let mut prev2 = vec![0; w];
    let mut prev: Vec<usize> = (0..w).collect();
    let mut cur = vec![0; w];
    for i in 1..=a.len() {
        if let Some(c0) = cur.first_mut() {
            *c0 = i;
        }
        for j in 1..w {
            let (ca, cb) = (a.get(i - 1), b.get(j - 1));
            let at = |row: &[usize], k: usize| row.get(k).copied().unwrap_or(usize::MAX / 2);
            let mut d = (at(&prev, j - 1) + usize::from(ca != cb))
                .min(at(&prev, j) + 1)
                .min(at(&cur, j - 1) + 1);
            if i > 1 && j > 1 && ca == b.get(j - 2) && a.get(i - 2) == cb {
                d = d.min(at(&prev2, j - 2) + 1);
            }
            if let Some(c) = cur.get_mut(j) {
                *c = d;
            }
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.get(b.len()).copied().unwrap_or(usize::MAX)
}

/// The closest candidate within a small edit distance, if any.
pub(crate) fn suggest<'c>(word: &str, candidates: &[&'c str]) -> Option<&'c str> {
    if word.chars().count() > 64 {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    let limit = match word.chars().count() {
        0..=3 => 1,
        4..=6 => 2,
        _ => 3,
    };
    candidates
        .iter()
        .map(|&c| (edit_distance(&lower, &c.to_ascii_lowercase()), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

// ---------------------------------------------------------------------------
// Schema
// ---------------------------------------------------------------------------

const TOP_KEYS: [&str; 7] = ["sim", "topology", "task", "workload", "group", "channel", "study"];
const STUDY_KEYS: [&str; 7] = ["base", "compare", "seeds", "load", "loads", "cases", "metric"];

/// "; `seeds` is a [study] key" when a workload is given a key of
/// [study], the usual slip when a study file is edited into a scenario.
pub(crate) fn study_key_hint(name: &str) -> Option<String> {
    STUDY_KEYS.contains(&name).then(|| format!(": `{name}` is a [study] key (write it under [study])"))
}
const SIM_KEYS: [&str; 11] = [
    "duration",
    "warmup",
    "seed",
    "kernel",
    "hz",
    "patches",
    "features",
    "base_slice",
    "tunable_scaling",
    "costs",
    "balance_phases",
];
const COST_KEYS: [&str; 8] = ["context_switch", "thread_switch", "migration", "migration_llc", "scan", "wakeup", "idle_exit", "channel_op"];
const GROUP_KEYS: [&str; 5] = ["name", "parent", "weight", "shares", "idle"];
const TOPOLOGY_KEYS: [&str; 5] = [
    "preset",
    "sockets",
    "llcs_per_socket",
    "cores_per_llc",
    "threads_per_core",
];
const TASK_KEYS: [&str; 11] = [
    "name", "count", "nice", "policy", "slice", "affinity", "start", "program", "group", "want_preempt", "process",
];

type R<T> = Result<T, ScenarioError>;

/// Validation context: the source (for positions) and its format (for
/// wording).
struct Cx<'a, 's> {
    src: &'a Src<'s>,
    format: Format,
}

fn join(base: &str, key: &str) -> String {
    if base.is_empty() {
        key.to_string()
    } else {
        format!("{base}.{key}")
    }
}

/// A task with the `wake` targets its program names (checked once all task
/// names are known) and the position of its name.
struct ParsedTask {
    spec: TaskSpec,
    wakes: Vec<(String, Pos)>,
    name_pos: Pos,
}

impl Cx<'_, '_> {
    fn pos(&self, off: usize) -> Pos {
        self.src.pos(off)
    }

    fn err(&self, key: &str, v: &Value, msg: impl Into<String>) -> ScenarioError {
        ScenarioError::new(key, Some(self.pos(v.start)), msg)
    }

    fn type_name(&self, v: &Value) -> &'static str {
        match (&v.kind, self.format) {
            (Kind::Str(..), _) => "a string",
            (Kind::Int(_), Format::Toml) => "an integer",
            (Kind::Int(_), Format::Json) => "a number",
            (Kind::Float(_), Format::Toml) => "a float",
            (Kind::Float(_), Format::Json) => "a number with a fraction or exponent",
            (Kind::Bool(_), _) => "a boolean",
            (Kind::Datetime, _) => "a datetime",
            (Kind::Null, _) => "null",
            (Kind::Array(_), _) => "an array",
            (Kind::Table(_), Format::Toml) => "a table",
            (Kind::Table(_), Format::Json) => "an object",
        }
    }

    fn table_word(&self) -> &'static str {
        match self.format {
            Format::Toml => "a table",
            Format::Json => "an object",
        }
    }

    fn table<'v>(&self, v: &'v Value, key: &str) -> R<&'v [Entry]> {
        match &v.kind {
            Kind::Table(entries) => Ok(entries),
            _ => Err(self.err(
                key,
                v,
                format!(
                    "`{}` must be {}, found {}",
                    leaf(key),
                    self.table_word(),
                    self.type_name(v)
                ),
            )),
        }
    }

    fn unknown_key(&self, base: &str, where_: &str, e: &Entry, known: &[&str]) -> ScenarioError {
        let mut msg = format!("unknown key `{}` {where_}", e.key);
        if let Some(s) = suggest(&e.key, known) {
            msg.push_str(&format!("; did you mean `{s}`?"));
        } else {
            msg.push_str(&format!("; expected one of {}", known.join(", ")));
        }
        ScenarioError::new(join(base, &e.key), Some(self.pos(e.key_start)), msg)
    }

    fn string<'v>(&self, v: &'v Value, key: &str, what: &str) -> R<&'v str> {
        match &v.kind {
            Kind::Str(s, _) => Ok(s),
            Kind::Float(raw) => Err(self.err(
                key,
                v,
                format!(
                    "{} must be {what}, found a number; quote it: \"{raw}\"",
                    leaf(key)
                ),
            )),
            Kind::Int(n) => Err(self.err(
                key,
                v,
                format!(
                    "{} must be {what}, found a number; quote it: \"{n}\"",
                    leaf(key)
                ),
            )),
            _ => Err(self.err(
                key,
                v,
                format!("{} must be {what}, found {}", leaf(key), self.type_name(v)),
            )),
        }
    }

    fn named(&self, v: &Value, key: &str, what: &str) -> R<Named> {
        let name = self.string(v, key, what)?;
        if name.trim().is_empty() {
            return Err(self.err(key, v, format!("{} must not be empty", leaf(key))));
        }
        Ok(Named {
            name: name.to_string(),
            key: key.to_string(),
            pos: self.pos(v.start),
        })
    }

    fn int(&self, v: &Value, key: &str, lo: i128, hi: i128) -> R<i128> {
        let field = leaf(key);
        match &v.kind {
            Kind::Int(n) if (lo..=hi).contains(n) => Ok(*n),
            Kind::Int(_) => {
                Err(self.err(key, v, format!("{field} must be an integer in {lo}..={hi}")))
            }
            Kind::Str(s, _) if s.trim().parse::<i128>().is_ok() => Err(self.err(
                key,
                v,
                format!(
                    "{field} must be an integer in {lo}..={hi}, found a string; remove the quotes"
                ),
            )),
            _ => Err(self.err(
                key,
                v,
                format!(
                    "{field} must be an integer in {lo}..={hi}, found {}",
                    self.type_name(v)
                ),
            )),
        }
    }

    fn u32_in(&self, v: &Value, key: &str, lo: u32, hi: u32) -> R<u32> {
        let n = self.int(v, key, i128::from(lo), i128::from(hi))?;
        u32::try_from(n).map_err(|_| {
            self.err(
                key,
                v,
                format!("{} must be an integer in {lo}..={hi}", leaf(key)),
            )
        })
    }

    fn duration(&self, v: &Value, key: &str) -> R<u64> {
        let field = leaf(key);
        match &v.kind {
            Kind::Str(s, _) => parse_duration(s).map_err(|m| self.err(key, v, m)),
            Kind::Int(n) => Err(self.err(
                key,
                v,
                format!("{field} needs a unit: write \"{n}ms\" (durations are strings with ns, us, ms or s)"),
            )),
            Kind::Float(raw) => Err(self.err(
                key,
                v,
                format!("{field} needs a unit: write \"{raw}ms\" (durations are strings with ns, us, ms or s)"),
            )),
            _ => Err(self.err(
                key,
                v,
                format!("{field} must be a duration string such as \"4ms\", found {}", self.type_name(v)),
            )),
        }
    }

    fn slice_duration(&self, v: &Value, key: &str) -> R<u64> {
        let ns = self.duration(v, key)?;
        if (SLICE_MIN_NS..=SLICE_MAX_NS).contains(&ns) {
            Ok(ns)
        } else {
            Err(self.err(
                key,
                v,
                format!(
                    "{} must be between 100us and 100ms, found {}",
                    leaf(key),
                    format_duration(ns)
                ),
            ))
        }
    }

    // -- top level ----------------------------------------------------------

    fn scenario(&self, root: &Value) -> R<Scenario> {
        let entries = match &root.kind {
            Kind::Table(e) => e,
            _ => {
                return Err(self.err(
                    "",
                    root,
                    format!(
                        "a scenario must be {}, found {}",
                        self.table_word(),
                        self.type_name(root)
                    ),
                ))
            }
        };
        let mut sim = None;
        let mut topology = None;
        let mut tasks: Vec<ParsedTask> = Vec::new();
        let mut groups: Vec<GroupSpec> = Vec::new();
        let mut channels: Vec<ChannelSpec> = Vec::new();
        let mut workloads: Vec<WorkloadSpec> = Vec::new();
        let mut study = None;
        for e in entries {
            match e.key.as_str() {
                "sim" => sim = Some(self.sim(&e.value)?),
                "topology" => topology = Some(self.topology(&e.value)?),
                "task" => tasks = self.tasks(&e.value)?,
                "workload" => workloads = self.workloads(&e.value)?,
                "group" => groups = self.groups(&e.value)?,
                "channel" => channels = self.channels(&e.value)?,
                "study" => study = Some(self.study(&e.value)?),
                _ => return Err(self.unknown_key("", "at the top level", e, &TOP_KEYS)),
            }
        }
        let sim = sim.unwrap_or_else(|| Sim::defaults(Pos::START));
        let topology = topology.unwrap_or(Topology {
            preset: None,
            sockets: None,
            llcs_per_socket: None,
            cores_per_llc: None,
            threads_per_core: None,
            pos: Pos::START,
        });
        check_wakes(&tasks)?;
        check_groups(&groups, &tasks)?;
        Ok(Scenario {
            sim,
            topology,
            tasks: tasks.into_iter().map(|t| t.spec).collect(),
            groups,
            channels,
            workloads,
            study,
        })
    }

    // -- [sim] --------------------------------------------------------------

    fn sim(&self, v: &Value) -> R<Sim> {
        let entries = self.table(v, "sim")?;
        let mut sim = Sim::defaults(self.pos(v.start));
        for e in entries {
            let key = join("sim", &e.key);
            let v = &e.value;
            match e.key.as_str() {
                "duration" => {
                    let d = self.duration(v, &key)?;
                    if d == 0 {
                        return Err(self.err(&key, v, "duration must be positive"));
                    }
                    sim.duration = d;
                }
                "warmup" => sim.warmup = Some((self.duration(v, &key)?, self.pos(v.start))),
                "seed" => {
                    let n = self.int(v, &key, 0, i128::from(u64::MAX))?;
                    sim.seed = u64::try_from(n).unwrap_or(0);
                }
                "kernel" => {
                    sim.kernel = self.named(v, &key, "a kernel preset name such as \"6.18\"")?
                }
                "hz" => {
                    let ok = matches!(&v.kind, Kind::Int(n) if HZ_VALUES.iter().any(|&h| i128::from(h) == *n));
                    if !ok {
                        let found = match &v.kind {
                            Kind::Int(n) => n.to_string(),
                            _ => self.type_name(v).to_string(),
                        };
                        return Err(self.err(
                            &key,
                            v,
                            format!("hz must be one of 100, 250, 300, 1000, found {found}"),
                        ));
                    }
                    let hz = self.u32_in(v, &key, 100, 1000)?;
                    sim.hz = Some((hz, self.pos(v.start)));
                }
                "patches" => {
                    let items = match &v.kind {
                        Kind::Array(items) => items,
                        _ => {
                            return Err(self.err(
                                &key,
                                v,
                                format!(
                                    "patches must be an array of patch names, found {}",
                                    self.type_name(v)
                                ),
                            ))
                        }
                    };
                    for (i, item) in items.iter().enumerate() {
                        let ikey = format!("{key}[{i}]");
                        let n = self.named(item, &ikey, "a patch name (string)")?;
                        if let Some(prev) = sim.patches.iter().position(|p| p.name == n.name) {
                            return Err(self.err(
                                &ikey,
                                item,
                                format!(
                                    "patch `{}` is listed twice (also at patches[{prev}])",
                                    n.name
                                ),
                            ));
                        }
                        sim.patches.push(n);
                    }
                }
                "features" => {
                    for f in self.table(v, &key)? {
                        let fkey = join(&key, &f.key);
                        let on = match &f.value.kind {
                            Kind::Bool(b) => *b,
                            Kind::Str(s, _) if s == "on" => true,
                            Kind::Str(s, _) if s == "off" => false,
                            _ => {
                                return Err(self.err(
                                    &fkey,
                                    &f.value,
                                    format!(
                                    "feature `{}` must be true/false or \"on\"/\"off\", found {}",
                                    f.key,
                                    self.describe(&f.value)
                                ),
                                ))
                            }
                        };
                        let named = Named {
                            name: f.key.clone(),
                            key: fkey,
                            pos: self.pos(f.key_start),
                        };
                        sim.features.push((named, on));
                    }
                }
                "base_slice" => {
                    sim.base_slice = Some((self.slice_duration(v, &key)?, self.pos(v.start)))
                }
                "tunable_scaling" => {
                    let s = self.string(v, &key, "\"none\", \"log\" or \"linear\"")?;
                    let t = match s {
                        "none" => TunableScaling::None,
                        "log" => TunableScaling::Log,
                        "linear" => TunableScaling::Linear,
                        other => {
                            return Err(self.err(
                                &key,
                                v,
                                format!("tunable_scaling must be \"none\", \"log\" or \"linear\", found \"{other}\""),
                            ))
                        }
                    };
                    sim.tunable_scaling = Some((t, self.pos(v.start)));
                }
                "balance_phases" => {
                    let p = match self.string(v, &key, "\"boot\" or \"spread\"")? {
                        "boot" => BalancePhases::Boot,
                        "spread" => BalancePhases::Spread,
                        other => {
                            return Err(self.err(&key, v, format!("balance_phases must be \"boot\" or \"spread\", found \"{other}\"")))
                        }
                    };
                    sim.balance_phases = Some((p, self.pos(v.start)));
                }
                "costs" => {
                    for c in self.table(v, &key)? {
                        let ckey = join(&key, &c.key);
                        let d = Some(self.duration(&c.value, &ckey)?);
                        match c.key.as_str() {
                            "context_switch" => sim.costs.context_switch = d,
                            "thread_switch" => sim.costs.thread_switch = d,
                            "migration" => sim.costs.migration = d,
                            "migration_llc" => sim.costs.migration_llc = d,
                            "scan" => sim.costs.scan = d,
                            "wakeup" => sim.costs.wakeup = d,
                            "idle_exit" => sim.costs.idle_exit = d,
                            "channel_op" => sim.costs.channel_op = d,
                            _ => return Err(self.unknown_key(&key, "in sim.costs", c, &COST_KEYS)),
                        }
                    }
                }
                _ => return Err(self.unknown_key("sim", "in [sim]", e, &SIM_KEYS)),
            }
        }
        Ok(sim)
    }

    /// A short description of a value for messages: strings are quoted.
    fn describe(&self, v: &Value) -> String {
        match &v.kind {
            Kind::Str(s, _) if s.chars().count() <= 32 => format!("\"{}\"", s.escape_debug()),
            _ => self.type_name(v).to_string(),
        }
    }

    // -- [topology] ---------------------------------------------------------

    fn topology(&self, v: &Value) -> R<Topology> {
        let entries = self.table(v, "topology")?;
        let mut t = Topology {
            preset: None,
            sockets: None,
            llcs_per_socket: None,
            cores_per_llc: None,
            threads_per_core: None,
            pos: self.pos(v.start),
        };
        // The first of `preset` / an explicit count, to report a conflict at the second.
        let mut first: Option<&str> = None;
        for e in entries {
            let key = join("topology", &e.key);
            let v = &e.value;
            let is_preset = e.key == "preset";
            if TOPOLOGY_KEYS.contains(&e.key.as_str()) {
                match first {
                    Some(f) if (f == "preset") != is_preset => {
                        return Err(ScenarioError::new(
                            key,
                            Some(self.pos(e.key_start)),
                            format!(
                                "`{}` cannot be combined with `{f}`: give either a preset or explicit sockets, llcs_per_socket, cores_per_llc, threads_per_core",
                                e.key
                            ),
                        ))
                    }
                    None => first = Some(if is_preset { "preset" } else { e.key.as_str() }),
                    _ => {}
                }
            }
            let count = |hi: u32| -> R<Option<(u32, Pos)>> {
                Ok(Some((self.u32_in(v, &key, 1, hi)?, self.pos(v.start))))
            };
            match e.key.as_str() {
                "preset" => {
                    t.preset =
                        Some(self.named(v, &key, "a topology preset name such as \"1cpu\"")?)
                }
                "sockets" => t.sockets = count(MAX_TOPOLOGY_COUNT)?,
                "llcs_per_socket" => t.llcs_per_socket = count(MAX_TOPOLOGY_COUNT)?,
                "cores_per_llc" => t.cores_per_llc = count(MAX_TOPOLOGY_COUNT)?,
                "threads_per_core" => t.threads_per_core = count(MAX_THREADS_PER_CORE)?,
                _ => return Err(self.unknown_key("topology", "in [topology]", e, &TOPOLOGY_KEYS)),
            }
        }
        let total: u64 = [
            t.sockets,
            t.llcs_per_socket,
            t.cores_per_llc,
            t.threads_per_core,
        ]
        .iter()
        .map(|c| u64::from(c.map_or(1, |(n, _)| n)))
        .product();
        if total > u64::from(MAX_CPUS) {
            return Err(ScenarioError::new(
                "topology",
                Some(t.pos),
                format!("topology has {total} CPUs; at most {MAX_CPUS} are supported"),
            ));
        }
        Ok(t)
    }

    // -- [[task]] -----------------------------------------------------------

    fn tasks(&self, v: &Value) -> R<Vec<ParsedTask>> {
        let items = match &v.kind {
            Kind::Array(items) => items,
            _ => {
                let hint = match self.format {
                    Format::Toml => "write each task as a [[task]] table",
                    Format::Json => "write \"task\": [ {...}, ... ]",
                };
                return Err(self.err(
                    "task",
                    v,
                    format!(
                        "`task` must be an array of tasks, found {}; {hint}",
                        self.type_name(v)
                    ),
                ));
            }
        };
        let mut tasks: Vec<ParsedTask> = Vec::with_capacity(items.len());
        // name -> index of the task that has it
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (i, item) in items.iter().enumerate() {
            let t = self.task(i, item)?;
            if let Some(j) = seen.insert(t.spec.name.clone(), i) {
                return Err(ScenarioError::new(
                    format!("task[{i}].name"),
                    Some(t.name_pos),
                    format!(
                        "duplicate task name `{}` (already used by task[{j}])",
                        t.spec.name
                    ),
                ));
            }
            tasks.push(t);
        }
        Ok(tasks)
    }

    fn task(&self, i: usize, v: &Value) -> R<ParsedTask> {
        let base = format!("task[{i}]");
        let entries = self.table(v, &base)?;
        let pos = self.pos(v.start);
        let mut name: Option<(String, Pos)> = None;
        let mut count = 1;
        let mut nice = 0;
        let mut policy = Policy::Normal;
        let mut slice = None;
        let mut affinity = None;
        let mut start = 0;
        let mut group = None;
        let mut want_preempt = false;
        let mut process = None;
        let mut program: Option<(Program, Vec<(String, Pos)>)> = None;
        for e in entries {
            let key = join(&base, &e.key);
            let v = &e.value;
            match e.key.as_str() {
                "name" => {
                    let s = self.string(v, &key, "a task name (string)")?;
                    check_task_name(s).map_err(|m| self.err(&key, v, m))?;
                    name = Some((s.to_string(), self.pos(v.start)));
                }
                "count" => count = self.u32_in(v, &key, 1, MAX_TASK_COUNT)?,
                "nice" => nice = i32::try_from(self.int(v, &key, -20, 19)?).unwrap_or(0),
                "policy" => {
                    let s = self.string(v, &key, "\"normal\", \"batch\" or \"idle\"")?;
                    policy = match s {
                        "normal" => Policy::Normal,
                        "batch" => Policy::Batch,
                        "idle" => Policy::Idle,
                        other => {
                            let mut msg = format!(
                                "policy must be \"normal\", \"batch\" or \"idle\", found \"{}\"",
                                other.escape_debug()
                            );
                            if let Some(s) = suggest(other, &["normal", "batch", "idle"]) {
                                msg.push_str(&format!("; did you mean \"{s}\"?"));
                            }
                            return Err(self.err(&key, v, msg));
                        }
                    };
                }
                "slice" => slice = Some(self.slice_duration(v, &key)?),
                "affinity" => affinity = Some((self.cpulist(v, &key)?, self.pos(v.start))),
                "start" => start = self.duration(v, &key)?,
                "program" => program = Some(self.program(v, &key)?),
                "group" => group = Some(self.named(v, &key, "a group name (string)")?),
                "want_preempt" => want_preempt = self.boolean(v, &key)?,
                "process" => {
                    let s = self.string(v, &key, "a process name (string)")?;
                    check_name("process", s).map_err(|m| self.err(&key, v, m))?;
                    process = Some(s.to_string());
                }
                _ => return Err(self.unknown_key(&base, "in [[task]]", e, &TASK_KEYS)),
            }
        }
        let missing = |k: &str| {
            ScenarioError::new(
                format!("{base}.{k}"),
                Some(pos),
                format!("task is missing required key `{k}`"),
            )
        };
        let (name, name_pos) = name.ok_or_else(|| missing("name"))?;
        let (program, wakes) = program.ok_or_else(|| missing("program"))?;
        let spec = TaskSpec {
            name,
            count,
            nice,
            policy,
            slice,
            affinity,
            start,
            program,
            group,
            want_preempt,
            process,
            pos,
        };
        Ok(ParsedTask {
            spec,
            wakes,
            name_pos,
        })
    }

    // -- [[group]] ----------------------------------------------------------

    fn groups(&self, v: &Value) -> R<Vec<GroupSpec>> {
        let items = match &v.kind {
            Kind::Array(items) => items,
            _ => return Err(self.err("group", v, format!("`group` must be an array of groups, found {}", self.type_name(v)))),
        };
        let mut out: Vec<GroupSpec> = Vec::with_capacity(items.len());
        // name -> index of the group that has it (a list search would be
        // quadratic in the groups of an expanded scenario).
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (i, item) in items.iter().enumerate() {
            let base = format!("group[{i}]");
            let entries = self.table(item, &base)?;
            let pos = self.pos(item.start);
            let mut g = GroupSpec { name: String::new(), parent: None, weight: 100, shares: None, idle: false, pos };
            let mut name_pos = None;
            let mut weight_key = None;
            for e in entries {
                let key = join(&base, &e.key);
                let v = &e.value;
                match e.key.as_str() {
                    "name" => {
                        let s = self.string(v, &key, "a group name (string)")?;
                        check_name("group", s).map_err(|m| self.err(&key, v, m))?;
                        g.name = s.to_string();
                        name_pos = Some(self.pos(v.start));
                    }
                    "parent" => g.parent = Some(self.named(v, &key, "the parent group's name")?),
                    // One knob, as the group's cgroup has one: cpu.weight
                    // (v2) or cpu.shares (v1). Both would leave one unread.
                    "weight" | "shares" if weight_key.is_some() => {
                        return Err(self.err(&key, v, "a group takes `weight` (cgroup v2 cpu.weight) or `shares` (v1 cpu.shares), not both".to_string()));
                    }
                    "weight" => {
                        g.weight = self.u32_in(v, &key, 1, 10_000)?;
                        weight_key = Some((key, v));
                    }
                    "shares" => {
                        g.shares = Some(self.u32_in(v, &key, 2, 262_144)? as u64);
                        weight_key = Some((key, v));
                    }
                    "idle" => g.idle = self.boolean(v, &key)?,
                    _ => return Err(self.unknown_key(&base, "in [[group]]", e, &GROUP_KEYS)),
                }
            }
            // sched_group_set_idle() gives an idle group the weight of
            // SCHED_IDLE, and sched_group_set_shares() refuses (-EINVAL)
            // any weight written while cpu.idle is 1.
            if let (true, Some((key, v))) = (g.idle, weight_key) {
                return Err(self.err(
                    &key,
                    v,
                    "an idle group (`idle = true`) has the weight of SCHED_IDLE (3, as sched_group_set_idle() sets it) and the kernel refuses cpu.weight/cpu.shares while cpu.idle is 1: remove this key or `idle`".to_string(),
                ));
            }
            let Some(np) = name_pos else {
                return Err(ScenarioError::new(format!("{base}.name"), Some(pos), "group is missing required key `name`"));
            };
            if let Some(j) = seen.insert(g.name.clone(), i) {
                return Err(ScenarioError::new(format!("{base}.name"), Some(np), format!("duplicate group name `{}` (already used by group[{j}])", g.name)));
            }
            out.push(g);
        }
        Ok(out)
    }

    // -- [[channel]] and [[workload]] --------------------------------------

    fn array<'v>(&self, v: &'v Value, key: &str, what: &str) -> R<&'v [Value]> {
        match &v.kind {
            Kind::Array(items) => Ok(items),
            _ => Err(self.err(key, v, format!("`{key}` must be an array of {what}, found {}", self.type_name(v)))),
        }
    }

    fn channels(&self, v: &Value) -> R<Vec<ChannelSpec>> {
        let mut out: Vec<ChannelSpec> = Vec::new();
        // Names seen: an expanded netperf-rr of 65 536 pairs has 131 072
        // channels, a list search 8.6 G name comparisons.
        let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
        for (i, item) in self.array(v, "channel", "channels")?.iter().enumerate() {
            let base = format!("channel[{i}]");
            let pos = self.pos(item.start);
            let mut c = ChannelSpec::pipe("", DEFAULT_CHANNEL_CAPACITY, pos);
            let (mut kind, mut pages, mut wake_at) = (None, None, None);
            for e in self.table(item, &base)? {
                let key = join(&base, &e.key);
                match e.key.as_str() {
                    "name" => c.name = self.string(&e.value, &key, "a channel name (string)")?.to_string(),
                    "capacity" => c.capacity = self.int(&e.value, &key, 1, 1 << 40)? as u64,
                    "sync" => c.sync = self.boolean(&e.value, &key)?,
                    "kind" => kind = Some((self.string(&e.value, &key, "\"pipe\" or \"socket\"")?.to_string(), Given::at(self, key, &e.value))),
                    "pages" => pages = Some((self.int(&e.value, &key, 1, 1 << 20)? as u64, Given::at(self, key, &e.value))),
                    "wake_at" => wake_at = Some((self.int(&e.value, &key, 0, 1 << 40)? as u64, Given::at(self, key, &e.value))),
                    _ => return Err(self.unknown_key(&base, "in [[channel]]", e, &["name", "capacity", "sync", "kind", "pages", "wake_at"])),
                }
            }
            c.kind = channel_kind(&c, kind, pages, wake_at)?;
            if c.name.is_empty() {
                return Err(ScenarioError::new(format!("{base}.name"), Some(pos), "channel is missing required key `name`"));
            }
            if !seen.insert(c.name.clone()) {
                return Err(ScenarioError::new(format!("{base}.name"), Some(pos), format!("duplicate channel name `{}`", c.name)));
            }
            out.push(c);
        }
        Ok(out)
    }

    fn workloads(&self, v: &Value) -> R<Vec<WorkloadSpec>> {
        let mut out = Vec::new();
        for (i, item) in self.array(v, "workload", "workloads")?.iter().enumerate() {
            let base = format!("workload[{i}]");
            let pos = self.pos(item.start);
            let mut kind = None;
            let mut name = None;
            let mut params = Vec::new();
            for e in self.table(item, &base)? {
                let key = join(&base, &e.key);
                let v = &e.value;
                match e.key.as_str() {
                    "kind" => kind = Some(self.named(v, &key, "a workload kind such as \"hackbench\"")?),
                    "name" => name = Some(self.string(v, &key, "a name prefix (string)")?.to_string()),
                    _ => {
                        if let Some(hint) = study_key_hint(&e.key) {
                            let msg = format!("unknown workload parameter `{}`{hint}", e.key);
                            return Err(ScenarioError::new(key, Some(self.pos(e.key_start)), msg));
                        }
                        let value = self.param(v, &key)?;
                        params.push((Named { name: e.key.clone(), key, pos: self.pos(e.key_start) }, value));
                    }
                }
            }
            let kind = kind.ok_or_else(|| ScenarioError::new(format!("{base}.kind"), Some(pos), "workload is missing required key `kind`"))?;
            out.push(WorkloadSpec { kind, name, params, pos });
        }
        Ok(out)
    }

    /// A workload parameter: an integer, a boolean, a duration ("100us")
    /// or another string.
    fn param(&self, v: &Value, key: &str) -> R<Param> {
        Ok(match &v.kind {
            Kind::Int(n) => Param::Int(i64::try_from(*n).map_err(|_| self.err(key, v, "integer out of range"))?),
            Kind::Bool(b) => Param::Bool(*b),
            Kind::Str(s, _) => match parse_duration(s) {
                Ok(ns) if s.chars().next().is_some_and(|c| c.is_ascii_digit()) => Param::Dur(ns),
                _ => Param::Str(s.clone()),
            },
            _ => return Err(self.err(key, v, format!("workload parameters are integers, booleans or strings, found {}", self.type_name(v)))),
        })
    }

    // -- [study] ------------------------------------------------------------

    fn study(&self, v: &Value) -> R<StudySpec> {
        let pos = self.pos(v.start);
        let mut base = None;
        let mut compare = Vec::new();
        let mut seeds = vec![1, 2, 3, 4, 5];
        let mut load = None;
        let mut loads = Vec::new();
        let mut cases = Vec::new();
        let mut metric = None;
        for e in self.table(v, "study")? {
            let key = join("study", &e.key);
            let v = &e.value;
            match e.key.as_str() {
                "base" => base = Some(self.named(v, &key, "a configuration such as \"6.6\" or \"6.6+sis-filter\"")?),
                "compare" => {
                    compare = match &v.kind {
                        Kind::Array(items) => items
                            .iter()
                            .enumerate()
                            .map(|(i, it)| self.named(it, &format!("{key}[{i}]"), "a configuration string"))
                            .collect::<R<Vec<_>>>()?,
                        _ => vec![self.named(v, &key, "a configuration string or an array of them")?],
                    }
                }
                "seeds" => {
                    seeds = match &v.kind {
                        Kind::Int(_) => (1..=self.int(v, &key, 1, 1000)? as u64).collect(),
                        Kind::Array(items) => items
                            .iter()
                            .enumerate()
                            .map(|(i, it)| self.int(it, &format!("{key}[{i}]"), 0, u64::MAX as i128).map(|n| n as u64))
                            .collect::<R<Vec<_>>>()?,
                        _ => return Err(self.err(&key, v, format!("`seeds` is a count (5) or a list of seeds ([1, 2, 3]), found {}", self.type_name(v)))),
                    };
                    if seeds.is_empty() {
                        return Err(self.err(&key, v, "`seeds` must name at least one seed"));
                    }
                }
                "load" => load = Some(self.named(v, &key, "the workload parameter the loads set, such as \"groups\"")?),
                "loads" => {
                    for (i, it) in self.array(v, &key, "load levels")?.iter().enumerate() {
                        loads.push((self.param(it, &format!("{key}[{i}]"))?, self.pos(it.start)));
                    }
                }
                "cases" => {
                    for (i, it) in self.array(v, &key, "cases (tables of workload parameters)")?.iter().enumerate() {
                        let base = format!("{key}[{i}]");
                        let mut case = Vec::new();
                        for c in self.table(it, &base)? {
                            let ckey = join(&base, &c.key);
                            let value = self.param(&c.value, &ckey)?;
                            case.push((Named { name: c.key.clone(), key: ckey, pos: self.pos(c.key_start) }, value));
                        }
                        cases.push(case);
                    }
                }
                "metric" => metric = Some(self.named(v, &key, "a metric name")?),
                _ => return Err(self.unknown_key("study", "in [study]", e, &STUDY_KEYS)),
            }
        }
        let base = base.ok_or_else(|| ScenarioError::new("study.base", Some(pos), "study is missing required key `base`"))?;
        if compare.is_empty() {
            return Err(ScenarioError::new("study.compare", Some(pos), "study is missing required key `compare`"));
        }
        if loads.is_empty() != load.is_none() {
            return Err(ScenarioError::new("study.loads", Some(pos), "`load` (the parameter) and `loads` (its values) go together"));
        }
        Ok(StudySpec { base, compare, seeds, load, loads, cases, metric, pos })
    }

    fn boolean(&self, v: &Value, key: &str) -> R<bool> {
        match &v.kind {
            Kind::Bool(b) => Ok(*b),
            _ => Err(self.err(key, v, format!("expected true or false, found {}", self.describe(v)))),
        }
    }

    fn cpulist(&self, v: &Value, key: &str) -> R<CpuList> {
        match &v.kind {
            Kind::Str(s, _) => parse_cpulist(s).map_err(|(off, m)| {
                let map = value::string_offsets(self.src.text, v);
                let at = map.get(off).copied().unwrap_or(v.start);
                ScenarioError::new(key, Some(self.pos(at)), m)
            }),
            Kind::Int(n) => match u32::try_from(*n) {
                Ok(c) if c < MAX_CPUS => Ok(CpuList(vec![c])),
                _ => Err(self.err(
                    key,
                    v,
                    format!("CPU {n} is out of range (CPUs are numbered below {MAX_CPUS})"),
                )),
            },
            _ => Err(self.err(
                key,
                v,
                format!(
                    "affinity must be a cpulist string such as \"0-3,8\", found {}",
                    self.type_name(v)
                ),
            )),
        }
    }

    fn program(&self, v: &Value, key: &str) -> R<(Program, Vec<(String, Pos)>)> {
        let code = match &v.kind {
            Kind::Str(s, _) => s,
            _ => {
                return Err(self.err(
                    key,
                    v,
                    format!(
                    "program must be a string such as \"loop {{ sleep 10ms; run 1ms }}\", found {}",
                    self.type_name(v)
                ),
                ))
            }
        };
        let map = value::string_offsets(self.src.text, v);
        let pos = |off: usize| self.pos(map.get(off).copied().unwrap_or(v.start));
        program::parse(code, &pos)
            .map(|p| (p.program, p.wakes))
            .map_err(|(p, m)| ScenarioError::new(key, Some(p), m))
    }
}

impl Sim {
    fn defaults(kernel_pos: Pos) -> Sim {
        Sim {
            duration: DEFAULT_DURATION_NS,
            seed: DEFAULT_SEED,
            kernel: Named {
                name: DEFAULT_KERNEL.to_string(),
                key: "sim.kernel".to_string(),
                pos: kernel_pos,
            },
            hz: None,
            patches: Vec::new(),
            features: Vec::new(),
            base_slice: None,
            tunable_scaling: None,
            costs: Costs::default(),
            warmup: None,
            balance_phases: None,
        }
    }
}

/// The last component of a key path: "task[1].nice" -> "nice".
fn leaf(key: &str) -> &str {
    let last = key.rsplit('.').next().unwrap_or(key);
    match last.find('[') {
        Some(i) if i > 0 => last.get(..i).unwrap_or(last),
        _ => last,
    }
}

pub fn check_task_name(s: &str) -> Result<(), String> {
    check_name("task", s)
}

/// A task, process or group name: what the program language and the page's
/// links can refer to. `what` names it in the error.
pub fn check_name(what: &str, s: &str) -> Result<(), String> {
    let mut chars = s.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if s.is_empty() {
        return Err(format!("{what} name must not be empty"));
    }
    if !first_ok || !rest_ok {
        return Err(format!(
            "invalid {what} name \"{}\": use letters, digits, `_` and `-`, starting with a letter or `_`",
            s.escape_debug()
        ));
    }
    if s.len() > MAX_NAME_LEN {
        return Err(format!(
            "{what} name is longer than {MAX_NAME_LEN} characters"
        ));
    }
    Ok(())
}

/// Every `wake TASK` must name a task: "name" for a task with count 1,
/// "name.K" with K < count otherwise.
/// Group parents and task groups must name existing groups, and the
/// hierarchy must not loop.
fn check_groups(groups: &[GroupSpec], tasks: &[ParsedTask]) -> Result<(), ScenarioError> {
    let names: Vec<&str> = groups.iter().map(|g| g.name.as_str()).collect();
    let index: HashMap<&str, usize> = names.iter().enumerate().map(|(i, &n)| (n, i)).collect();
    let unknown = |n: &Named| {
        let mut msg = format!("no group named `{}`", n.name);
        if let Some(s) = suggest(&n.name, &names) {
            msg.push_str(&format!("; did you mean `{s}`?"));
        }
        ScenarioError::at(n, msg)
    };
    // Each group's parent chain must end at a root. A walk up from each
    // group stops at a group already known to end; meeting its own way
    // again is a cycle, reported at the cycle's first group in file order.
    // Linear in the groups, where following every chain whole is quadratic.
    const UNSEEN: u8 = 0;
    const ON_WALK: u8 = 1;
    const ENDS: u8 = 2;
    let mut state = vec![UNSEEN; groups.len()];
    let mut walk: Vec<usize> = Vec::new();
    for (start, g) in groups.iter().enumerate() {
        if let Some(p) = &g.parent {
            if !index.contains_key(p.name.as_str()) {
                return Err(unknown(p));
            }
        }
        let mut at = Some(start);
        while let Some(i) = at {
            match state[i] {
                ENDS => break,
                ON_WALK => {
                    let from = walk.iter().position(|&w| w == i).unwrap_or(0);
                    let first = walk[from..].iter().copied().min().unwrap_or(i);
                    let g = &groups[first];
                    let msg = format!("group `{}` would be its own ancestor", g.name);
                    return Err(match &g.parent {
                        Some(p) => ScenarioError::at(p, msg),
                        None => ScenarioError::new("group", Some(g.pos), msg),
                    });
                }
                _ => {}
            }
            state[i] = ON_WALK;
            walk.push(i);
            at = groups[i].parent.as_ref().and_then(|p| index.get(p.name.as_str()).copied());
        }
        for i in walk.drain(..) {
            state[i] = ENDS;
        }
    }
    for t in tasks {
        if let Some(gname) = &t.spec.group {
            if !index.contains_key(gname.name.as_str()) {
                return Err(unknown(gname));
            }
        }
    }
    Ok(())
}

fn check_wakes(tasks: &[ParsedTask]) -> R<()> {
    let names: Vec<&str> = tasks.iter().map(|t| t.spec.name.as_str()).collect();
    let counts: HashMap<&str, u32> = tasks
        .iter()
        .map(|t| (t.spec.name.as_str(), t.spec.count))
        .collect();
    for (i, task) in tasks.iter().enumerate() {
        let key = format!("task[{i}].program");
        for (target, pos) in &task.wakes {
            let (base, index) = match target.rsplit_once('.') {
                Some((b, k)) => (b, Some(k)),
                None => (target.as_str(), None),
            };
            let Some(&n) = counts.get(base) else {
                let mut msg = format!("no task named `{target}`");
                if let Some(s) = suggest(base, &names) {
                    msg.push_str(&format!("; did you mean `{s}`?"));
                }
                return Err(ScenarioError::new(key, Some(*pos), msg));
            };
            match index {
                None if n > 1 => {
                    return Err(ScenarioError::new(
                        key,
                        Some(*pos),
                        format!(
                        "task `{base}` has count {n}; name one of `{base}.0` .. `{base}.{}`",
                        n - 1
                    ),
                    ))
                }
                None => {}
                Some(_) if n == 1 => {
                    return Err(ScenarioError::new(
                        key,
                        Some(*pos),
                        format!("task `{base}` has count 1; write `{base}`"),
                    ))
                }
                Some(k) => {
                    let ok = k.bytes().all(|b| b.is_ascii_digit())
                        && k.parse::<u32>().is_ok_and(|k| k < n)
                        && (k == "0" || !k.starts_with('0'));
                    if !ok {
                        return Err(ScenarioError::new(
                            key,
                            Some(*pos),
                            format!(
                                "`{target}` is not one of `{base}.0` .. `{base}.{}`",
                                n - 1
                            ),
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}
