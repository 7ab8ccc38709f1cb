//! One scenario task as a real thread: pinned, with its policy, nice and
//! slice, running its program through the engine's own interpreter
//! ([`Cursor`]) so loops and distributions mean exactly what they mean in
//! the model. `run D` spins until the thread has run for D (the model's
//! `run` is CPU time too; [`OwnClock`] says how that is counted without
//! disturbing the scheduler), `sleep D` is an hrtimer sleep, `yield` is
//! sched_yield(), `nice`/`slice` are setpriority()/sched_setattr(),
//! `send`/`recv` are pipe writes/reads and `wake`/`wait` futex operations
//! ([`ipc`](super::ipc)).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use schedlab_engine::lab::trace::hist::Hist;
use schedlab_engine::lab::program::{Action, Cursor, Program};
use schedlab_engine::lab::rng::Rng;
use schedlab_engine::lab::scenario::{CpuList, Policy};
use schedlab_engine::lab::sim::{STATEMENT_BUDGET, TIMER_SLACK_NS};

use super::ipc::{Io, Ipc};
use super::sys::{self, Wake};

/// Prefix of every worker thread's name (`/proc/<pid>/task/<tid>/comm`).
pub const THREAD_PREFIX: &str = "slv:";

const GATE_CLOSED: u32 = 0;
const GATE_OPEN: u32 = 1;
const GATE_ABORT: u32 = 2;

/// State the controller and all workers of one run share.
#[derive(Debug, Default)]
pub struct Shared {
    /// Futex word: 0 while the run goes on, 1 once everyone must stop.
    stop: AtomicU32,
    /// Futex word the workers wait on before the run starts.
    gate: AtomicU32,
    /// CLOCK_MONOTONIC of the run's start and end, ns.
    t0: AtomicU64,
    end: AtomicU64,
    /// The first failure of any worker.
    failure: Mutex<Option<String>>,
    /// The run's pipes and wake words.
    pub ipc: Ipc,
}

impl Shared {
    pub fn new(ipc: Ipc) -> Shared {
        Shared { ipc, ..Shared::default() }
    }

    pub fn stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire) != 0
    }

    /// Stops every worker: wakes sleepers, ends blocked pipe reads and
    /// writes and futex waits, and releases those still at the gate.
    pub fn stop(&self) {
        self.stop.store(1, Ordering::Release);
        sys::futex_wake_all(&self.stop);
        self.ipc.stop();
        if self.gate.compare_exchange(GATE_CLOSED, GATE_ABORT, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            sys::futex_wake_all(&self.gate);
        }
    }

    /// Records a failure (the first one wins) and stops the run.
    pub fn fail(&self, msg: String) {
        self.failure.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(msg);
        self.stop();
    }

    pub fn failure(&self) -> Option<String> {
        self.failure.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// Starts the run: every worker passes the gate at once.
    pub fn open_gate(&self, t0: u64, duration_ns: u64) {
        self.t0.store(t0, Ordering::Release);
        self.end.store(t0 + duration_ns, Ordering::Release);
        if self.gate.compare_exchange(GATE_CLOSED, GATE_OPEN, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            sys::futex_wake_all(&self.gate);
        }
    }

    /// Waits at the gate; false when the run was called off.
    fn pass_gate(&self) -> bool {
        while self.gate.load(Ordering::Acquire) == GATE_CLOSED {
            sys::futex_wait_until(&self.gate, GATE_CLOSED, None);
        }
        self.gate.load(Ordering::Acquire) == GATE_OPEN
    }

    /// Blocks until the run is stopped.
    fn park(&self) {
        while !self.stopped() {
            sys::futex_wait_until(&self.stop, 0, None);
        }
    }
}

/// What one worker runs.
#[derive(Clone, Debug)]
pub struct WorkerSpec {
    pub index: usize,
    pub name: String,
    /// The CPUs it may run on (as the real machine numbers them).
    pub cpus: Vec<u32>,
    pub nice: i32,
    pub policy: Policy,
    pub slice: Option<u64>,
    /// ns after the run's start at which the task begins its program.
    pub start: u64,
    pub program: Arc<Program>,
    pub seed: u64,
    /// Test hook: fail this many ns into the run.
    pub fail_after: Option<u64>,
}

/// A worker that is set up and waiting at the gate.
#[derive(Clone, Copy, Debug)]
pub struct Ready {
    pub index: usize,
    pub tid: i32,
    /// Its CPU-time clock, readable by the controller.
    pub clock: libc::clockid_t,
}

/// What a worker reports when it ends.
#[derive(Clone, Debug, Default)]
pub struct WorkerReport {
    /// Lateness of each wake-up from `sleep` (from the intended time), and
    /// the latency of each wake-up by a `send` or `wake` (from just before
    /// the write or wake; see [`ipc`](super::ipc)), ns.
    pub latency: Hist,
    /// Completed outermost loop iterations before the run's end.
    pub ops: u64,
    /// Set when the program ran out of statements without using time.
    pub livelock: bool,
}

fn os_err(what: &str, e: std::io::Error) -> String {
    let hint = match e.raw_os_error() {
        Some(libc::EPERM) | Some(libc::EACCES) => " (permission denied: needs root, CAP_SYS_NICE or a higher RLIMIT_NICE)",
        Some(libc::EINVAL) => " (the kernel rejects it)",
        _ => "",
    };
    format!("{what}: {e}{hint}")
}

/// Pins the thread and gives it the task's scheduling attributes.
fn setup(spec: &WorkerSpec, shared: &Shared) -> Result<Ready, String> {
    let who = &spec.name;
    sys::set_affinity(0, &spec.cpus).map_err(|e| os_err(&format!("{who}: pin to CPU {}", CpuList(spec.cpus.clone())), e))?;
    sys::set_timer_slack(1).map_err(|e| os_err(&format!("{who}: timer slack"), e))?;
    let signals = [&[libc::SIGPIPE][..], &shared.ipc.signals()].concat();
    sys::block_signals(&signals).map_err(|e| os_err(&format!("{who}: block SIGPIPE and the signal queues' signals"), e))?;
    if spec.policy != Policy::Normal {
        sys::set_policy(0, spec.policy).map_err(|e| os_err(&format!("{who}: policy {:?}", spec.policy), e))?;
    }
    sys::set_nice(0, spec.nice).map_err(|e| os_err(&format!("{who}: nice {}", spec.nice), e))?;
    if spec.slice.is_some() {
        sys::set_slice(0, spec.policy, spec.nice, spec.slice).map_err(|e| os_err(&format!("{who}: custom slice"), e))?;
    }
    let clock = sys::own_cpu_clock().map_err(|e| os_err(&format!("{who}: CPU clock"), e))?;
    Ok(Ready { index: spec.index, tid: sys::gettid(), clock })
}

/// The thread's body: set up, report ready, wait for the start, run the
/// program until the run stops, then stay parked until told to stop (so
/// its counters can still be read).
pub fn main(spec: WorkerSpec, shared: Arc<Shared>, ready: mpsc::Sender<Result<Ready, String>>) -> WorkerReport {
    let setup = setup(&spec, &shared);
    let ok = setup.is_ok();
    let _ = ready.send(setup);
    drop(ready);
    if !ok || !shared.pass_gate() {
        return WorkerReport::default();
    }
    let report = Interp::new(&spec, &shared).run();
    shared.park();
    report
}

/// The longest gap between two clock reads of a spinning thread that still
/// counts as the thread running: interrupts (which the kernel charges to
/// the running task unless CONFIG_IRQ_TIME_ACCOUNTING) and short VM exits.
/// A longer gap means the thread was switched out (or the vCPU stolen).
pub const SWITCHED_OUT_NS: u64 = 30_000;

/// The thread's CPU time during `run`, counted as the sum of the small gaps
/// between consecutive CLOCK_MONOTONIC reads (vDSO, no system call).
///
/// Reading CLOCK_THREAD_CPUTIME_ID instead would be exact but changes what
/// is measured: `task_sched_runtime()` calls `update_curr()`, which ends the
/// slice the moment it is used up, so a task polling its CPU clock is
/// preempted at slice expiry instead of at the next tick (with HZ=250 and a
/// 1.4 ms slice: a switch every 1.4 ms instead of every 4 ms).
#[derive(Clone, Copy, Debug, Default)]
pub struct OwnClock {
    /// Counted CPU time, ns.
    pub own: u64,
    last: u64,
}

impl OwnClock {
    /// Starts counting from now (after a sleep or a system call, whose time
    /// is not the program's `run`).
    pub fn resume(&mut self) {
        self.last = sys::monotonic_ns();
    }

    /// Counts the time since the last read if it was short; returns the total.
    pub fn read(&mut self) -> u64 {
        let now = sys::monotonic_ns();
        let d = now.saturating_sub(self.last);
        if d < SWITCHED_OUT_NS {
            self.own += d;
        }
        self.last = now;
        self.own
    }
}

/// A task's program running on a real thread.
struct Interp<'a> {
    spec: &'a WorkerSpec,
    shared: &'a Shared,
    t0: u64,
    end: u64,
    nice: i32,
    clock: OwnClock,
    report: WorkerReport,
    /// What `send` writes and `recv` reads into: one pipe's size.
    buf: Vec<u8>,
}

impl<'a> Interp<'a> {
    fn new(spec: &'a WorkerSpec, shared: &'a Shared) -> Self {
        let (t0, end) = (shared.t0.load(Ordering::Acquire), shared.end.load(Ordering::Acquire));
        let buf = vec![0; shared.ipc.max_chunk()];
        Interp { spec, shared, t0, end, nice: spec.nice, clock: OwnClock::default(), report: WorkerReport::default(), buf }
    }

    /// Whether to stop now: the run stopped, or the injected failure is due.
    fn must_stop(&self) -> bool {
        if self.shared.stopped() {
            return true;
        }
        if self.spec.fail_after.is_some_and(|a| sys::monotonic_ns() >= self.t0 + a) {
            self.shared.fail(format!("{}: injected failure", self.spec.name));
            return true;
        }
        false
    }

    fn run(mut self) -> WorkerReport {
        if self.spec.start > 0 && sys::futex_wait_until(&self.shared.stop, 0, Some(self.t0 + self.spec.start)) == Wake::Changed {
            return self.report;
        }
        let mut cursor = Cursor::default();
        let mut loops = vec![0; self.spec.program.depth];
        let mut rng = Rng::new(self.spec.seed);
        let mut ops = 0;
        while !self.must_stop() {
            let action = cursor.next(&self.spec.program, &mut loops, self.clock.own, &mut rng, &mut ops, STATEMENT_BUDGET);
            if sys::monotonic_ns() < self.end {
                self.report.ops = ops;
            }
            if !self.step(action, &mut cursor) {
                break;
            }
        }
        self.report
    }

    /// Carries out one action; false when the program is over.
    fn step(&mut self, action: Option<Action>, cursor: &mut Cursor) -> bool {
        match action {
            None => {
                self.report.livelock = true;
                false
            }
            Some(Action::Burst(end)) => self.spin_until(end),
            Some(Action::Sleep(d)) => self.sleep(d),
            Some(Action::Yield) => {
                sys::yield_now();
                true
            }
            Some(Action::Nice(n)) => {
                let r = sys::set_nice(0, n);
                if r.is_ok() {
                    self.nice = n;
                }
                self.apply("nice", r)
            }
            Some(Action::Slice(v)) => self.apply("slice", sys::set_slice(0, self.spec.policy, self.nice, v)),
            Some(Action::Exit) => false,
            Some(Action::Send { ch, n }) => {
                let r = self.shared.ipc.send(ch, n, &self.buf);
                self.io(r)
            }
            Some(Action::Recv { ch, n }) => {
                let r = self.shared.ipc.recv(ch, n, &mut self.buf, &mut self.report.latency, self.end);
                self.io(r)
            }
            Some(Action::Wake { task }) => {
                self.shared.ipc.wake(task);
                true
            }
            Some(Action::Wait) => {
                let r = self.shared.ipc.wait(self.spec.index, &mut self.report.latency, self.end);
                self.io(Ok(r))
            }
            Some(Action::FutexWake { task }) => {
                self.shared.ipc.futex_wake(task);
                true
            }
            Some(Action::FutexWait(timeout)) => {
                let deadline = timeout.map(|d| sys::monotonic_ns().saturating_add(d).saturating_add(TIMER_SLACK_NS));
                let (r, timed_out) = self.shared.ipc.futex_wait(self.spec.index, deadline);
                cursor.timed_out = timed_out;
                self.io(Ok(r))
            }
            // plan.rs refuses call/reply.
            Some(other) => {
                self.shared.fail(format!("{}: {other:?} cannot be validated", self.spec.name));
                false
            }
        }
    }

    /// The end of a channel operation or wait: go on, stop, or fail.
    fn io(&self, r: Result<Io, String>) -> bool {
        match r {
            Ok(Io::Done) => true,
            Ok(Io::Stopped) => false,
            Err(e) => {
                self.shared.fail(format!("{}: {e}", self.spec.name));
                false
            }
        }
    }

    fn apply(&self, what: &str, r: std::io::Result<()>) -> bool {
        match r {
            Ok(()) => true,
            Err(e) => {
                self.shared.fail(os_err(&format!("{}: {what}", self.spec.name), e));
                false
            }
        }
    }

    /// `run`: burns CPU until the thread's counted CPU time reaches `end`.
    fn spin_until(&mut self, end: u64) -> bool {
        self.clock.resume();
        while self.clock.read() < end {
            if self.must_stop() {
                return false;
            }
            std::hint::spin_loop();
        }
        true
    }

    /// `sleep`: an hrtimer sleep to an absolute time, ended early by stop;
    /// records how late the thread runs again.
    fn sleep(&mut self, d: u64) -> bool {
        let intended = sys::monotonic_ns().saturating_add(d);
        if sys::futex_wait_until(&self.shared.stop, 0, Some(intended)) == Wake::Changed {
            return false;
        }
        if intended < self.end {
            self.report.latency.record(sys::monotonic_ns().saturating_sub(intended));
        }
        true
    }
}
