//! Import of real schedules: `perf sched script`, `trace-cmd report` and
//! ftrace text ([`text`]), and rt-app JSON ([`rtapp`]), into a scenario
//! that replays them in the model.
//!
//! A text trace is read line by line (a 1 GB trace streams; what is kept
//! is per thread: the sequence of its CPU bursts and sleeps, 16 bytes
//! each, or with `fit` only running sums). Each thread becomes a task:
//!
//! - its program is what the trace shows it doing: `run D` for the CPU
//!   time it got between blocking (preemptions do not split a burst: the
//!   model decides those), then `sleep D` for the time until it was woken;
//! - where one task woke it (at least [`WAKER_SHARE`] of its wake-ups came
//!   from the same thread, not from an interrupt), the sleep is a `recv`
//!   on a channel of its own (`to_NAME`) and the waker's program `send`s
//!   one message to it at the point of its burst where it woke it (pipes,
//!   futexes, condition variables). A channel counts: a wake that comes
//!   before the wait is kept, not lost, so the replay cannot stall when
//!   its timing drifts from the trace's;
//! - nice from the priority (120 + nice); real-time threads (prio < 100)
//!   become nice -20, with a warning (the model has only the fair class);
//! - `process` from the tgid when the trace has it; `affinity` with `pin`
//!   for threads seen on one CPU only; the topology from the CPU count.
//!
//! The trace's own figures per thread (CPU time, switches, wake-up
//! latency) are kept in [`Thread`], so a replay can be compared with it
//! (`schedlab validate --trace`).
//!
//! perf sched script does not print the interrupt context, so a timer
//! firing while one task runs looks as if that task woke the sleeper; the
//! share rule keeps a task that merely happened to be running from
//! becoming a waker unless it always was (then `wakers = false` replays
//! every wake-up as a sleep). ftrace and trace-cmd text show the context
//! (flag `h`/`s`): such wake-ups are always sleeps.

pub mod rtapp;
pub mod text;

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::BufRead;

use crate::kernel::lib::rbtree::NIL;
use crate::lab::scenario::format_duration;
use crate::lab::trace::hist::Hist;
use text::{Event, LeftAs, Skip};

/// A thread is a waker's `wait`/`wake` partner when at least this share of
/// its wake-ups came from that one thread.
pub const WAKER_SHARE: f64 = 0.8;

/// A bad trace: the line (1-based) and what was expected there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportError {
    pub line: Option<u64>,
    pub what: String,
}

impl std::fmt::Display for ImportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(l) => write!(f, "line {l}: {}", self.what),
            None => write!(f, "{}", self.what),
        }
    }
}

fn err(line: Option<u64>, what: impl Into<String>) -> ImportError {
    ImportError { line, what: what.into() }
}

/// How to turn a trace into a scenario.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Fitted distributions in a loop instead of the observed sequence.
    pub fit: bool,
    /// Pin threads to the CPU they spent [`PIN_SHARE`] of their time on.
    pub pin: bool,
    /// Infer `wait`/`wake` pairs (else every wake-up is a sleep).
    pub wakers: bool,
    pub kernel: String,
    pub hz: u32,
    /// A topology preset instead of the one guessed from the CPU count.
    pub topology: Option<String>,
    /// Where the trace came from (a comment in the scenario).
    pub source: String,
}

impl Default for Options {
    fn default() -> Self {
        Options { fit: false, pin: false, wakers: true, kernel: "6.18".into(), hz: 250, topology: None, source: "a trace".into() }
    }
}

/// One step of a thread's observed behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seg {
    /// CPU time used.
    Run(u64),
    /// Blocked for `ns` until woken by thread `waker` (NIL: a timer, an
    /// interrupt, or unknown).
    Block { ns: u64, waker: u32 },
    /// Woke thread `target`.
    Wake(u32),
    /// Blocked for `ns` until thread `waker` exited and woke it on its way
    /// out (waitpid(), pthread_join()): its wake-up is always its
    /// waker's last act, so it is never an interrupt's.
    Join { ns: u64, waker: u32 },
    /// Woke thread `target` on its way out (the other side of a [`Seg::Join`]).
    ExitWake(u32),
    /// Inferred: sent thread `target` a message it read without blocking.
    /// A write to a reader that is not waiting wakes no one, so the trace
    /// shows nothing; it is inferred when this thread blocks for its
    /// partner's reply while the partner, whose last act was to wake this
    /// thread, is preempted or running (a request/reply round the
    /// partner's wake-up preemption cut short: see [`Importer::feed`]).
    Send(u32),
    /// Inferred: read thread `from`'s message without blocking (the other
    /// side of a [`Seg::Send`]).
    Recv(u32),
    Exit,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum St {
    Running,
    Runnable,
    Sleeping,
    Dead,
}

/// Running mean and variance (Welford), min and max.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Acc {
    pub n: u64,
    pub mean: f64,
    m2: f64,
    pub min: u64,
    pub max: u64,
}

impl Acc {
    pub fn add(&mut self, v: u64) {
        self.n += 1;
        let x = v as f64;
        let d = x - self.mean;
        self.mean += d / self.n as f64;
        self.m2 += d * (x - self.mean);
        self.min = if self.n == 1 { v } else { self.min.min(v) };
        self.max = self.max.max(v);
    }
    pub fn sd(&self) -> f64 {
        if self.n < 2 {
            0.0
        } else {
            (self.m2 / (self.n - 1) as f64).sqrt()
        }
    }
}

/// What `fit` keeps of a thread instead of its sequence.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fit {
    pub bursts: Acc,
    pub sleeps: Acc,
    /// The burst being accumulated.
    burst: u64,
    /// Wakes per target thread.
    pub wakes: Vec<(u32, u64)>,
}

/// A thread of the trace: identity, what it did, what the trace measured.
#[derive(Clone, Debug)]
pub struct Thread {
    pub pid: u32,
    pub tgid: Option<u32>,
    pub comm: String,
    pub prio: i32,
    /// CPU time per CPU it ran on, sorted by CPU.
    pub cpus: Vec<(u32, u64)>,
    /// The CPU it runs on (or last ran on).
    cpu: u32,
    /// When it appeared (trace time, ns): the trace start, or its fork.
    pub start: u64,
    pub segs: Vec<Seg>,
    pub fit: Fit,
    state: St,
    since: u64,
    acc: u64,
    woken: Option<u64>,
    /// The thread whose wake-up ended its last sleep (NIL: none, or not a thread).
    last_waker: u32,
    /// The thread it last woke, until it blocks (NIL: none).
    woke: u32,
    /// It passed sched_process_exit: a wake-up from now on is its exit's.
    exiting: bool,
    /// Measured: CPU time, voluntary / involuntary switches, migrations,
    /// wake-up latency (waking → running).
    pub cpu_time: u64,
    pub nvcsw: u64,
    pub nivcsw: u64,
    pub nr_migrations: u64,
    /// Time runnable but not running (schedstat run_delay), ns.
    pub run_delay: u64,
    pub latency: Hist,
    /// Wake-ups per waker thread (NIL: none), at most 16 distinct.
    pub wakers: Vec<(u32, u64)>,
    pub blocks: u64,
    pub running_at_end: bool,
    /// First seen as a wakee: asleep since before the trace started (not
    /// forked in it, not seen running or runnable before its first wake).
    pub asleep_at_start: bool,
}

/// A thread is pinned by `pin` to a CPU it spent this share of its CPU
/// time on (a thread that pins itself starts where it was forked).
pub const PIN_SHARE: f64 = 0.95;

impl Thread {
    /// The CPU it ran on for at least [`PIN_SHARE`] of its CPU time.
    pub fn home_cpu(&self) -> Option<u32> {
        self.cpus.iter().find(|c| c.1 as f64 >= PIN_SHARE * self.cpu_time as f64).map(|c| c.0)
    }
}

/// A whole trace, reduced.
#[derive(Clone, Debug)]
pub struct Trace {
    pub threads: Vec<Thread>,
    /// First and last timestamp, ns.
    pub start: u64,
    pub end: u64,
    pub cpus: u32,
    pub lines: u64,
    pub events: u64,
    pub format: &'static str,
    pub warnings: Vec<String>,
}

/// The streaming reader's state.
pub struct Importer {
    fit: bool,
    threads: Vec<Thread>,
    by_pid: HashMap<u32, u32>,
    /// Per CPU: running pid and since when.
    cpu_curr: Vec<u32>,
    cpu_since: Vec<u64>,
    t0: Option<u64>,
    last: u64,
    cpus: u32,
    lines: u64,
    events: u64,
    out_of_order: u64,
    /// Switches that did not follow from the previous one on their CPU.
    mismatched: u64,
    format: Option<&'static str>,
}

/// CPUs beyond this are a corrupt line, not a machine.
const MAX_CPUS: u32 = 8192;

impl Importer {
    pub fn new(fit: bool) -> Importer {
        Importer {
            fit,
            threads: Vec::new(),
            by_pid: HashMap::new(),
            cpu_curr: Vec::new(),
            cpu_since: Vec::new(),
            t0: None,
            last: 0,
            cpus: 0,
            lines: 0,
            events: 0,
            out_of_order: 0,
            mismatched: 0,
            format: None,
        }
    }

    fn see_cpu(&mut self, cpu: u32, line: u64) -> Result<(), ImportError> {
        if cpu >= MAX_CPUS {
            return Err(err(Some(line), format!("CPU {cpu}: expected a CPU number below {MAX_CPUS}")));
        }
        if cpu >= self.cpus {
            self.cpus = cpu + 1;
            self.cpu_curr.resize(self.cpus as usize, 0);
            let t0 = self.t0.unwrap_or(0);
            self.cpu_since.resize(self.cpus as usize, t0);
        }
        Ok(())
    }

    /// The thread of `pid`, created on first sight in state `st` (as of the
    /// trace start).
    fn thread(&mut self, pid: u32, comm: &str, st: St) -> u32 {
        if let Some(&i) = self.by_pid.get(&pid).filter(|&&i| self.threads[i as usize].state != St::Dead) {
            if !comm.is_empty() && comm != "<...>" && self.threads[i as usize].comm != comm {
                self.threads[i as usize].comm = comm.to_string();
            }
            return i;
        }
        let t0 = self.t0.unwrap_or(0);
        let i = self.threads.len() as u32;
        self.threads.push(Thread {
            pid,
            tgid: None,
            comm: if comm.is_empty() { format!("pid{pid}") } else { comm.to_string() },
            prio: 120,
            cpus: Vec::new(),
            cpu: 0,
            start: t0,
            segs: Vec::new(),
            fit: Fit::default(),
            state: st,
            since: t0,
            acc: 0,
            woken: None,
            last_waker: NIL,
            woke: NIL,
            exiting: false,
            cpu_time: 0,
            nvcsw: 0,
            nivcsw: 0,
            nr_migrations: 0,
            run_delay: 0,
            latency: Hist::default(),
            wakers: Vec::new(),
            blocks: 0,
            running_at_end: false,
            asleep_at_start: st == St::Sleeping,
        });
        self.by_pid.insert(pid, i);
        i
    }

    fn push(&mut self, t: u32, seg: Seg) {
        self.push_seg(t, seg, true)
    }

    /// `woken`: a Block ended by a wake-up (counted for the waker share;
    /// the sleep the trace ends in is not).
    fn push_seg(&mut self, t: u32, seg: Seg, woken: bool) {
        let fit = self.fit;
        let th = &mut self.threads[t as usize];
        if let (Seg::Block { waker, .. } | Seg::Join { waker, .. }, true) = (seg, woken) {
            th.blocks += 1;
            if let Some(w) = th.wakers.iter_mut().find(|w| w.0 == waker) {
                w.1 += 1;
            } else if th.wakers.len() < 16 {
                th.wakers.push((waker, 1));
            }
        }
        if !fit {
            // Consecutive runs (a wake in between that turns out not to
            // matter is kept apart) merge.
            if let (Seg::Run(d), Some(Seg::Run(prev))) = (seg, th.segs.last_mut()) {
                *prev += d;
                return;
            }
            th.segs.push(seg);
            return;
        }
        let f = &mut th.fit;
        match seg {
            Seg::Run(d) => f.burst += d,
            Seg::Block { ns, .. } | Seg::Join { ns, .. } => {
                f.bursts.add(std::mem::take(&mut f.burst));
                f.sleeps.add(ns);
            }
            Seg::Wake(target) | Seg::Send(target) => match f.wakes.iter_mut().find(|w| w.0 == target) {
                Some(w) => w.1 += 1,
                None => f.wakes.push((target, 1)),
            },
            Seg::ExitWake(_) | Seg::Recv(_) | Seg::Exit => {}
        }
    }

    /// Charges a running thread's time up to `ts`.
    fn charge(&mut self, t: u32, ts: u64) {
        let th = &mut self.threads[t as usize];
        if th.state == St::Running {
            let d = ts.saturating_sub(th.since);
            th.cpu_time += d;
            th.acc += d;
            th.since = ts;
            match th.cpus.binary_search_by_key(&th.cpu, |c| c.0) {
                Ok(i) => th.cpus[i].1 += d,
                Err(i) => th.cpus.insert(i, (th.cpu, d)),
            }
        }
    }

    fn flush_run(&mut self, t: u32) {
        let acc = std::mem::take(&mut self.threads[t as usize].acc);
        if acc > 0 {
            self.push(t, Seg::Run(acc));
        }
    }

    /// The task that emitted a line is running on its CPU (since the CPU's
    /// last switch, if this is the first sight of it).
    fn current(&mut self, pid: u32, comm: &str, cpu: u32) -> u32 {
        let fresh = self.by_pid.get(&pid).is_none_or(|&i| self.threads[i as usize].state == St::Dead);
        let t = self.thread(pid, comm, St::Running);
        if fresh {
            self.threads[t as usize].since = self.cpu_since[cpu as usize];
            self.threads[t as usize].cpu = cpu;
        }
        t
    }

    /// Reads one line (1-based number `no`).
    pub fn feed(&mut self, no: u64, line: &str) -> Result<(), ImportError> {
        self.lines = no;
        let l = match text::parse_line(line).map_err(|e| err(Some(no), e))? {
            Ok(l) => l,
            Err(Skip::Cpus(n)) => {
                if n > 0 {
                    self.see_cpu(n - 1, no)?;
                }
                return Ok(());
            }
            Err(Skip::Blank) => return Ok(()),
        };
        if self.format.is_none() {
            self.format = Some(if line.contains(" sched:sched_") { "perf sched script" } else { "ftrace text (trace-cmd report)" });
        }
        let mut ts = l.ts;
        if self.t0.is_none() {
            self.t0 = Some(ts);
            self.last = ts;
            self.cpu_since.iter_mut().for_each(|s| *s = ts);
        }
        if ts < self.last {
            self.out_of_order += 1;
            ts = self.last;
        }
        self.last = ts;
        self.see_cpu(l.cpu, no)?;
        if matches!(l.event, Event::Other) {
            return Ok(());
        }
        self.events += 1;
        let line_task = if l.pid != 0 && l.pid != text::UNKNOWN_PID { Some(self.current(l.pid, l.comm, l.cpu)) } else { None };
        if let (Some(t), Some(g)) = (line_task, l.tgid) {
            self.threads[t as usize].tgid = Some(g);
        }
        match l.event {
            Event::Switch { prev_comm, prev_pid, prev_prio, left, next_comm, next_pid, next_prio } => {
                let c = l.cpu as usize;
                // The previous switch here let in someone other than this
                // prev (lost events): that one is no longer known to run.
                let cur = self.cpu_curr[c];
                if cur != 0 && cur != prev_pid {
                    self.mismatched += 1;
                    if let Some(&i) = self.by_pid.get(&cur) {
                        let th = &mut self.threads[i as usize];
                        if th.state == St::Running && th.cpu == l.cpu {
                            th.state = St::Runnable;
                            th.since = ts;
                        }
                    }
                }
                if prev_pid != 0 {
                    let p = self.thread(prev_pid, prev_comm, St::Running);
                    if self.threads[p as usize].state != St::Running {
                        // Missed its switch-in: it ran since the CPU's last switch.
                        let th = &mut self.threads[p as usize];
                        th.state = St::Running;
                        th.since = self.cpu_since[c];
                    }
                    self.threads[p as usize].cpu = l.cpu;
                    self.charge(p, ts);
                    let th = &mut self.threads[p as usize];
                    th.prio = prev_prio;
                    match left {
                        LeftAs::Runnable => {
                            th.nivcsw += 1;
                            th.state = St::Runnable;
                            th.since = ts;
                        }
                        LeftAs::Blocked => {
                            th.nvcsw += 1;
                            th.state = St::Sleeping;
                            th.since = ts;
                            th.woken = None;
                            th.woke = NIL;
                            self.flush_run(p);
                            self.infer_send(p, ts);
                        }
                        LeftAs::Dead => {
                            th.nvcsw += 1;
                            th.woke = NIL;
                            th.state = St::Dead;
                            self.flush_run(p);
                            self.push(p, Seg::Exit);
                        }
                    }
                }
                if next_pid != 0 {
                    let n = self.thread(next_pid, next_comm, St::Runnable);
                    let th = &mut self.threads[n as usize];
                    th.prio = next_prio;
                    if th.state == St::Running {
                        // Still running elsewhere by the trace: its switch
                        // out there was lost; its time since is not counted.
                        self.mismatched += 1;
                        th.state = St::Runnable;
                    }
                    if th.state == St::Sleeping {
                        // Its wake-up is not in the trace.
                        let ns = ts.saturating_sub(th.since);
                        th.state = St::Runnable;
                        th.since = ts;
                        self.push(n, Seg::Block { ns, waker: NIL });
                    }
                    let th = &mut self.threads[n as usize];
                    if let Some(w) = th.woken.take() {
                        th.latency.record(ts.saturating_sub(w));
                    }
                    // Runnable since its wake-up or preemption (`since`).
                    th.run_delay += ts.saturating_sub(th.since);
                    th.state = St::Running;
                    th.cpu = l.cpu;
                    th.since = ts;
                }
                self.cpu_curr[c] = next_pid;
                self.cpu_since[c] = ts;
            }
            Event::Waking { comm, pid, prio, .. } => {
                if pid == 0 {
                    return Ok(());
                }
                let t = self.thread(pid, comm, St::Sleeping);
                let th = &mut self.threads[t as usize];
                th.prio = prio;
                if th.state != St::Sleeping || th.woken.is_some() {
                    return Ok(());
                }
                th.woken = Some(ts);
                th.state = St::Runnable;
                let ns = ts.saturating_sub(th.since);
                th.since = ts;
                // The waker: the task the line came from, when it runs in
                // task context.
                let waker = match line_task {
                    Some(w) if w != t && !l.irq && self.threads[w as usize].state == St::Running => w,
                    _ => NIL,
                };
                self.threads[t as usize].last_waker = waker;
                let exit = waker != NIL && self.threads[waker as usize].exiting;
                self.push(t, if exit { Seg::Join { ns, waker } } else { Seg::Block { ns, waker } });
                if waker != NIL {
                    self.charge(waker, ts);
                    self.flush_run(waker);
                    self.push(waker, if exit { Seg::ExitWake(t) } else { Seg::Wake(t) });
                    self.threads[waker as usize].woke = t;
                }
            }
            Event::WakeupNew { comm, pid, prio, .. } => {
                let fresh = self.by_pid.get(&pid).is_none_or(|&i| self.threads[i as usize].state == St::Dead);
                let t = self.thread(pid, comm, St::Runnable);
                let th = &mut self.threads[t as usize];
                th.prio = prio;
                if fresh {
                    th.start = ts;
                    th.since = ts;
                }
            }
            Event::Migrate { comm, pid, .. } => {
                if pid != 0 {
                    let t = self.thread(pid, comm, St::Sleeping);
                    self.threads[t as usize].nr_migrations += 1;
                }
            }
            Event::Exit { pid, .. } => {
                if let Some(&t) = self.by_pid.get(&pid) {
                    self.threads[t as usize].exiting = true;
                }
            }
            Event::Other => {}
        }
        Ok(())
    }

    /// `a` blocks at `ts`. In a request/reply exchange (a pipe ping-pong,
    /// a client and its server) the partner `b` replies by waking `a`;
    /// the wake-up often preempts `b` at once (check_preempt_wakeup_fair():
    /// `a` slept, so it has the earlier deadline), and `a` then writes its
    /// next request and blocks for the reply while `b` still waits to run.
    /// `b` is not sleeping, so the write wakes no one and the trace shows
    /// no sched_waking; `b` reads it without blocking when it runs again.
    /// Without the inferred [`Seg::Send`] / [`Seg::Recv`] pair the replayed
    /// `b` would not wait for `a` at all in that round and run ahead.
    /// Inferred when `b` woke `a` last (`a.last_waker`), has not blocked
    /// since (`b.woke == a`) and is runnable or running.
    fn infer_send(&mut self, a: u32, ts: u64) {
        let b = self.threads[a as usize].last_waker;
        if b == NIL || b == a {
            return;
        }
        let tb = &self.threads[b as usize];
        if tb.woke != a || !matches!(tb.state, St::Runnable | St::Running) {
            return;
        }
        self.push(a, Seg::Send(b));
        self.charge(b, ts);
        self.flush_run(b);
        self.push(b, Seg::Recv(a));
        self.threads[b as usize].woke = NIL;
    }

    /// Ends the trace: running threads are charged to the last timestamp.
    pub fn finish(mut self) -> Result<Trace, ImportError> {
        let Some(t0) = self.t0 else {
            return Err(err(None, format!("no scheduler events in {} line(s): expected perf sched script or trace-cmd report text with sched_switch lines", self.lines)));
        };
        let end = self.last;
        for t in 0..self.threads.len() as u32 {
            let st = self.threads[t as usize].state;
            match st {
                St::Running => {
                    self.charge(t, end);
                    self.flush_run(t);
                    self.threads[t as usize].running_at_end = true;
                }
                St::Sleeping => {
                    let ns = end.saturating_sub(self.threads[t as usize].since);
                    self.flush_run(t);
                    if ns > 0 {
                        self.push_seg(t, Seg::Block { ns, waker: NIL }, false);
                    }
                }
                St::Runnable => {
                    self.flush_run(t);
                    self.threads[t as usize].running_at_end = true;
                }
                St::Dead => {}
            }
            if self.fit {
                let f = &mut self.threads[t as usize].fit;
                if f.burst > 0 || f.bursts.n == 0 {
                    f.bursts.add(std::mem::take(&mut f.burst));
                }
            }
        }
        let mut warnings = Vec::new();
        if self.out_of_order > 0 {
            warnings.push(format!("{} line(s) went back in time; they were taken at the latest time seen", self.out_of_order));
        }
        if self.mismatched > 0 {
            warnings.push(format!("{} switch(es) did not follow from the previous one on their CPU (events lost); the time in between is not counted", self.mismatched));
        }
        let rt = self.threads.iter().filter(|t| t.prio < 100 && t.cpu_time > 0).count();
        if rt > 0 {
            warnings.push(format!("{rt} real-time thread(s) (prio < 100) replay as nice -20 fair tasks (the model has only the fair class)"));
        }
        Ok(Trace {
            threads: self.threads,
            start: t0,
            end,
            cpus: self.cpus.max(1),
            lines: self.lines,
            events: self.events,
            format: self.format.unwrap_or("text"),
            warnings,
        })
    }
}

/// Reads a text trace from `r` line by line (bounded memory: one line at a
/// time; bytes that are not UTF-8 are replaced).
pub fn read_trace<R: BufRead>(mut r: R, fit: bool) -> Result<Trace, ImportError> {
    let mut imp = Importer::new(fit);
    let mut buf = Vec::with_capacity(512);
    let mut no = 0u64;
    loop {
        buf.clear();
        let n = r.read_until(b'\n', &mut buf).map_err(|e| err(Some(no + 1), format!("read error: {e}")))?;
        if n == 0 {
            break;
        }
        no += 1;
        let line = String::from_utf8_lossy(&buf);
        imp.feed(no, &line)?;
    }
    imp.finish()
}

/// A trace or rt-app file to a scenario: JSON (its first non-blank byte is
/// `{`) is rt-app, anything else text.
pub fn import<R: BufRead>(mut r: R, opts: &Options) -> Result<(String, Option<Trace>), ImportError> {
    let head = r.fill_buf().map_err(|e| err(None, format!("read error: {e}")))?;
    if head.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        let mut s = String::new();
        r.read_to_string(&mut s).map_err(|e| err(None, format!("read error: {e}")))?;
        return rtapp::to_scenario(&s, opts).map(|s| (s, None));
    }
    let tr = read_trace(r, opts.fit)?;
    let sc = tr.to_scenario(opts);
    Ok((sc, Some(tr)))
}

/// Lines of one program that [`check_scenario`] parses at once: with the
/// importer's eight statements a line, about 65 000 statements, a few MB
/// parsed.
pub const CHECK_LINES: usize = 8192;

/// Checks that a scenario loads, in pieces, so that the check needs the
/// memory of one piece and not of the whole parsed scenario: an imported
/// trace's program holds a statement per burst and sleep, and a parsed
/// statement takes several times its text (the 24 MB scenario of a 140 MB
/// `perf sched script` text parses into about 270 MB, heaptrack).
///
/// 1. The scenario with every `program = """ ... """` block cut to its
///    first line: `[sim]`, the topology, the channels and every task's
///    keys (names unique, nice, affinity, start, process) checked together.
/// 2. Each block, [`CHECK_LINES`] lines at a time, as the program of a
///    task of its own. A block with a `{` (a loop: `--fit`, rt-app) is
///    checked whole; the importer's sequences are flat, one statement
///    after another, so any run of whole lines of them is a program.
///
/// An error names the line and column of `sc` it is on.
pub fn check_scenario(sc: &str) -> Result<(), crate::lab::scenario::ScenarioError> {
    use crate::lab::scenario::{parse, Pos, ScenarioError};
    const OPEN: &str = "program = \"\"\"";
    const CLOSE: &str = "\"\"\"";
    // (task number, line number of its first line, lines) of each block's
    // body, and the skeleton with the line number in `sc` of each of its
    // lines.
    let mut blocks: Vec<(usize, u32, Vec<&str>)> = Vec::new();
    let mut tasks = 0;
    let mut skeleton = String::new();
    let mut skeleton_line: Vec<u32> = Vec::new();
    let mut keep = |skeleton: &mut String, l: &str, no: u32| {
        skeleton.push_str(l);
        skeleton.push('\n');
        skeleton_line.push(no);
    };
    let mut lines = sc.lines().zip(1u32..);
    while let Some((l, no)) = lines.next() {
        keep(&mut skeleton, l, no);
        if l.trim_end() == "[[task]]" {
            tasks += 1;
        }
        if l.trim_end() != OPEN {
            continue;
        }
        let (mut body, mut first): (Vec<&str>, u32) = (Vec::new(), no + 1);
        for (b, bno) in lines.by_ref() {
            if b.trim_start().starts_with(CLOSE) {
                // The block's first line stands for it in the skeleton.
                if let Some(f) = body.first() {
                    keep(&mut skeleton, f, first);
                }
                keep(&mut skeleton, b, bno);
                break;
            }
            if body.is_empty() {
                first = bno;
            }
            body.push(b);
        }
        blocks.push((tasks.max(1) - 1, first, body));
    }
    // A position in a piece as the position in `sc`.
    let remap = |mut e: ScenarioError, line_of: &dyn Fn(u32) -> u32| {
        if let Some(p) = e.pos {
            e.pos = Some(Pos { line: line_of(p.line), col: p.col });
        }
        e
    };
    parse(&skeleton).map_err(|e| remap(e, &|l| skeleton_line.get((l as usize).wrapping_sub(1)).copied().unwrap_or(l)))?;
    let mut piece = String::new();
    for (i, first, body) in &blocks {
        let step = if body.iter().any(|l| l.contains('{')) { body.len().max(1) } else { CHECK_LINES };
        for (k, chunk) in body.chunks(step).enumerate() {
            // The piece's line 4 is the chunk's first line.
            piece.clear();
            piece.push_str("[[task]]\nname = \"t\"\n");
            piece.push_str(OPEN);
            piece.push('\n');
            for l in chunk {
                piece.push_str(l);
                piece.push('\n');
            }
            piece.push_str(CLOSE);
            piece.push('\n');
            let start = *first + (k * step) as u32;
            parse(&piece).map_err(|e| {
                let mut e = remap(e, &|l| start + l.saturating_sub(4));
                e.key = e.key.replacen("task[0]", &format!("task[{i}]"), 1);
                e
            })?;
        }
    }
    Ok(())
}

/// A task name the scenario format accepts: `[A-Za-z_][A-Za-z0-9_-]*`, at
/// most 64 bytes.
pub fn task_name(comm: &str, pid: u32) -> String {
    let mut s: String = comm.chars().take(40).map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        s.insert(0, '_');
    }
    format!("{s}-{pid}")
}

/// `[topology]` for `cpus` CPUs (or the preset asked for).
pub fn topology_toml(cpus: u32, preset: Option<&str>) -> String {
    match (preset, cpus) {
        (Some(p), _) => format!("[topology]\npreset = \"{p}\"\n"),
        (None, 1) => "[topology]\npreset = \"1cpu\"\n".into(),
        (None, 2) => "[topology]\npreset = \"2cpu-vm\"\n".into(),
        (None, n) => format!("[topology]\nsockets = 1\nllcs_per_socket = 1\ncores_per_llc = {n}\nthreads_per_core = 1\n"),
    }
}

/// Nice from a kernel priority (120 + nice for the fair class).
pub fn nice_of(prio: i32) -> i32 {
    (prio - 120).clamp(-20, 19)
}

/// A duration distribution fitted to `a`: fixed when it barely varies,
/// `exp()` when its spread is that of an exponential (CV ≈ 1), else
/// `uniform()` with the same mean and standard deviation.
pub fn dist(a: &Acc) -> String {
    let m = a.mean.max(0.0);
    let sd = a.sd();
    if a.n < 2 || sd < 0.1 * m {
        return format!("{}ns", (m.round() as u64).max(1));
    }
    let cv = sd / m.max(1.0);
    if (0.7..=1.3).contains(&cv) {
        return format!("exp({}ns)", (m.round() as u64).max(1));
    }
    let half = 3f64.sqrt() * sd;
    let lo = ((m - half).max(a.min as f64).round() as u64).max(1);
    let hi = (m + half).min(a.max as f64).round().max(lo as f64 + 1.0) as u64;
    format!("uniform({lo}ns, {hi}ns)")
}

impl Trace {
    pub fn duration(&self) -> u64 {
        self.end - self.start
    }

    /// The thread each thread's `wait`s pair with, if any.
    pub fn partners(&self, wakers: bool) -> Vec<u32> {
        self.threads
            .iter()
            .map(|t| {
                if !wakers || t.blocks == 0 {
                    return NIL;
                }
                t.wakers.iter().filter(|w| w.0 != NIL).max_by_key(|w| w.1).filter(|w| w.1 as f64 >= WAKER_SHARE * t.blocks as f64).map_or(NIL, |w| w.0)
            })
            .collect()
    }

    /// The threads that become tasks: those that ran.
    pub fn replayed(&self) -> impl Iterator<Item = (usize, &Thread)> {
        self.threads.iter().enumerate().filter(|(_, t)| t.cpu_time > 0)
    }

    /// The scenario (TOML) that replays this trace.
    pub fn to_scenario(&self, o: &Options) -> String {
        let partner = self.partners(o.wakers);
        // A pid the trace reuses (a thread exited, another got its pid)
        // gets `.N`-free suffixes: COMM-PID, COMM-PID-2, ...
        let mut names: Vec<String> = Vec::with_capacity(self.threads.len());
        let mut seen: HashMap<String, u32> = HashMap::new();
        for t in &self.threads {
            let base = task_name(&t.comm, t.pid);
            let n = seen.entry(base.clone()).or_insert(0);
            *n += 1;
            names.push(if *n == 1 { base } else { format!("{base}-{n}") });
        }
        let replayed: Vec<bool> = self.threads.iter().map(|t| t.cpu_time > 0).collect();
        let joins = self.joins(o.wakers, &replayed);
        let mut out = String::new();
        let _ = writeln!(
            out,
            "# Imported by `schedlab import` from {} ({}): {} lines, {} scheduler events, {} threads ({} ran) over {}.",
            o.source,
            self.format,
            self.lines,
            self.events,
            self.threads.len(),
            self.replayed().count(),
            format_duration(self.duration())
        );
        let _ = writeln!(
            out,
            "# Each task replays its thread's {}: `run` is CPU time between blocking, `sleep` the time until it was woken,",
            if o.fit { "fitted bursts and sleeps" } else { "observed bursts and sleeps" }
        );
        let _ = writeln!(out, "# `recv to_NAME` / `send to_NAME` where one thread did the waking. Task names are COMM-PID.");
        for w in &self.warnings {
            let _ = writeln!(out, "# warning: {w}");
        }
        // The trace's run times already hold what the kernel spent on
        // each thread's behalf (schedule() and the switch, try_to_wake_up()
        // in the waker's system call, the cache refill after a migration):
        // the model's costs for these would count them twice. The idle-exit
        // latency stays: it delays a wake-up but is no one's CPU time.
        let _ = writeln!(
            out,
            "\n[sim]\nduration = \"{}ns\"\nkernel = \"{}\"\nhz = {}\ncosts = {{ context_switch = \"0ns\", thread_switch = \"0ns\", migration = \"0ns\", scan = \"0ns\", wakeup = \"0ns\" }}\n",
            self.duration().max(1),
            o.kernel,
            o.hz
        );
        out += &topology_toml(self.cpus, o.topology.as_deref());
        // One channel per thread woken by a partner or by an exiting
        // thread it waited for; sends never block.
        for (i, _) in self.replayed() {
            if (partner[i] != NIL && replayed[partner[i] as usize]) || joins[i] {
                let _ = write!(out, "\n[[channel]]\nname = \"to_{}\"\ncapacity = {}\n", names[i], 1u64 << 40);
            }
        }
        // Threads asleep when the trace starts come first: forked first at
        // time 0, they reach their first `wait` before a waker runs.
        let mut order: Vec<(usize, &Thread)> = self.replayed().collect();
        // Not threads whose first act was to block: a thread forked in the
        // trace that blocked the moment it first ran (`sleep` first) ran
        // after the threads forked before it, and must here too.
        order.sort_by_key(|(_, t)| (t.start, !t.asleep_at_start));
        for (i, t) in order {
            let program = if o.fit { self.fit_program(i, &partner, &names, &replayed) } else { self.seq_program(i, &partner, &names, &replayed, o.wakers) };
            if program.is_empty() {
                continue;
            }
            let _ = write!(out, "\n[[task]]\nname = \"{}\"\nnice = {}\n", names[i], nice_of(t.prio));
            if let Some(g) = t.tgid {
                let _ = writeln!(out, "process = \"p{g}\"");
            }
            if let Some(c) = o.pin.then(|| t.home_cpu()).flatten() {
                let _ = writeln!(out, "affinity = \"{c}\"");
            }
            if t.start > self.start {
                let _ = writeln!(out, "start = \"{}ns\"", t.start - self.start);
            }
            let _ = writeln!(out, "program = \"\"\"\n{program}\"\"\"");
        }
        out
    }

    /// Per thread: it waited for a replayed thread's exit ([`Seg::Join`]),
    /// so it gets a channel (`wakers` off: every wait is a sleep).
    fn joins(&self, wakers: bool, replayed: &[bool]) -> Vec<bool> {
        self.threads.iter().map(|t| wakers && t.segs.iter().any(|s| matches!(*s, Seg::Join { waker, .. } if replayed[waker as usize]))).collect()
    }

    /// The observed sequence, statement by statement.
    fn seq_program(&self, i: usize, partner: &[u32], names: &[String], replayed: &[bool], wakers: bool) -> String {
        let me = i as u32;
        // An inferred send/receive between `a` and `b` is replayed only
        // when each is the other's partner (a request/reply pair), on both
        // sides alike, so the channel's sends and receives stay balanced.
        let mutual = |a: u32, b: u32| partner[b as usize] == a && partner[a as usize] == b && replayed[a as usize] && replayed[b as usize];
        let mut out = String::new();
        let mut n = 0usize;
        let mut pending_run = 0u64;
        let mut stmt = |out: &mut String, s: std::fmt::Arguments| {
            let _ = out.write_fmt(s);
            n += 1;
            out.push_str(if n.is_multiple_of(8) { "\n" } else { "; " });
        };
        for seg in &self.threads[i].segs {
            match *seg {
                Seg::Run(d) => pending_run += d,
                Seg::Block { ns, waker } => {
                    if pending_run > 0 {
                        stmt(&mut out, format_args!("run {}ns", std::mem::take(&mut pending_run)));
                    }
                    if waker != NIL && partner[i] == waker && replayed[waker as usize] {
                        stmt(&mut out, format_args!("recv to_{}", names[i]));
                    } else {
                        // A zero-length sleep still leaves the CPU.
                        stmt(&mut out, format_args!("sleep {}ns", ns.max(1)));
                    }
                }
                Seg::Join { ns, waker } => {
                    if pending_run > 0 {
                        stmt(&mut out, format_args!("run {}ns", std::mem::take(&mut pending_run)));
                    }
                    if wakers && replayed[waker as usize] {
                        stmt(&mut out, format_args!("recv to_{}", names[i]));
                    } else {
                        stmt(&mut out, format_args!("sleep {}ns", ns.max(1)));
                    }
                }
                Seg::Wake(target) | Seg::ExitWake(target) | Seg::Send(target) => {
                    let send = match *seg {
                        Seg::Wake(_) => partner[target as usize] == me && replayed[target as usize],
                        Seg::ExitWake(_) => wakers && replayed[target as usize],
                        _ => mutual(me, target),
                    };
                    if send {
                        if pending_run > 0 {
                            stmt(&mut out, format_args!("run {}ns", std::mem::take(&mut pending_run)));
                        }
                        stmt(&mut out, format_args!("send to_{}", names[target as usize]));
                    }
                }
                Seg::Recv(from) => {
                    if mutual(from, me) {
                        if pending_run > 0 {
                            stmt(&mut out, format_args!("run {}ns", std::mem::take(&mut pending_run)));
                        }
                        stmt(&mut out, format_args!("recv to_{}", names[i]));
                    }
                }
                Seg::Exit => {
                    if pending_run > 0 {
                        stmt(&mut out, format_args!("run {}ns", std::mem::take(&mut pending_run)));
                    }
                    stmt(&mut out, format_args!("exit"));
                }
            }
        }
        // A thread running or runnable when the trace ends was cut off by
        // the end of the trace, not by anything it did: it still wanted the
        // CPU, and replays as wanting it to the end (`run`), not as ending
        // its program there (which would make it exit, a voluntary switch
        // the kernel never made).
        if self.threads[i].running_at_end {
            stmt(&mut out, format_args!("run"));
        } else if pending_run > 0 {
            stmt(&mut out, format_args!("run {pending_run}ns"));
        }
        if out.ends_with("; ") {
            out.truncate(out.len() - 2);
            out.push('\n');
        }
        out
    }

    /// A loop over fitted distributions.
    fn fit_program(&self, i: usize, partner: &[u32], names: &[String], replayed: &[bool]) -> String {
        let t = &self.threads[i];
        let f = &t.fit;
        if f.sleeps.n == 0 {
            return if t.running_at_end { "run\n".into() } else { format!("run {}ns\n", (f.bursts.mean.round() as u64).max(1)) };
        }
        let mut body = format!("run {}", dist(&f.bursts));
        let bursts = f.bursts.n.max(1) as f64;
        for &(target, count) in &f.wakes {
            if partner[target as usize] == i as u32 && replayed[target as usize] && count as f64 >= 0.5 * bursts {
                let _ = write!(body, "; send to_{}", names[target as usize]);
            }
        }
        if partner[i] != NIL && replayed[partner[i] as usize] {
            let _ = write!(body, "; recv to_{}", names[i]);
        } else {
            let _ = write!(body, "; sleep {}", dist(&f.sleeps));
        }
        format!("loop {{ {body} }}\n")
    }
}

#[cfg(test)]
mod tests;
