//! The discrete-event simulation: a clock, a seeded random source and an
//! event queue driving the scheduler, and the programs of the tasks.
//!
//! Events are ordered by (time, sequence number), so simultaneous events run
//! in the order they were scheduled and a run is a pure function of the
//! scenario and the seed. The whole mutable state is one `SimState` value:
//! a checkpoint is a clone of it, and rewinding is restore-and-replay.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::lab::program::{Action, Cursor, Program};
use crate::kernel::lib::rbtree::NIL;
use crate::lab::rng::Rng;
use crate::kernel::sched::core::{PrevState, Sched, TaskState};
use crate::lab::trace::{Entry, LogHash, Record};

/// A task that runs this many program statements without using time is
/// stopped (a `loop { yield }` alone on a CPU would otherwise spin forever).
pub const STATEMENT_BUDGET: u32 = 100_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EvKind {
    /// A task is created.
    Start(u32),
    /// A sleeping task's timer fires.
    Wake(u32),
    /// The running task's `run` statement completes (valid while the CPU's
    /// switch generation is `gen`).
    BurstEnd { cpu: u32, gen: u32 },
    /// A scheduler tick on a CPU.
    Tick(u32),
    /// An idle CPU that was sent work has left its idle state.
    IdleExit(u32),
}

#[derive(Clone, Copy, Debug)]
struct Ev {
    time: u64,
    seq: u64,
    kind: EvKind,
}

impl PartialEq for Ev {
    fn eq(&self, o: &Self) -> bool {
        (self.time, self.seq) == (o.time, o.seq)
    }
}
impl Eq for Ev {}
impl PartialOrd for Ev {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Ev {
    /// Reversed, so that BinaryHeap (a max-heap) pops the earliest event.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

/// Per-CPU simulation bookkeeping (not scheduler state).
#[derive(Clone, Copy, Debug, Default)]
struct CpuSim {
    /// Bumped at every context switch; invalidates pending BurstEnd events.
    gen: u32,
    tick_armed: bool,
    /// When the CPU last went idle.
    idle_since: u64,
    /// Leaving an idle state (an IdleExit is pending).
    exiting: bool,
}

/// Everything that changes while the simulation runs.
#[derive(Clone, Debug)]
pub struct SimState {
    pub sched: Sched,
    queue: BinaryHeap<Ev>,
    seq: u64,
    rng: Rng,
    cursors: Vec<Cursor>,
    cpus: Vec<CpuSim>,
    /// Discrete events processed so far.
    pub events: u64,
    /// Tasks whose program ended; when all have, the run is over.
    pub exited: u32,
    pub done: bool,
}

/// How much of the event log to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogMode {
    /// Keep every record (the UI, `--log`).
    Full,
    /// Only fold records into the hash (CLI runs, benchmarks without log).
    HashOnly,
}

/// The event log of a run: records in order, and one mark per event that
/// produced any (its time and number), so a record costs only its own size.
#[derive(Clone, Debug)]
pub struct Log {
    pub records: Vec<Record>,
    pub marks: Vec<Mark>,
    /// Entities visited by picks; `Record::Pick` indexes into it.
    pub paths: Vec<u32>,
    pub hash: LogHash,
    pub mode: LogMode,
    /// Records written (also in HashOnly mode).
    pub count: u64,
}

/// Where an event's records start in `Log::records`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mark {
    pub time: u64,
    pub event: u64,
    pub first: u32,
}

impl Log {
    /// Every kept record with its time and event number.
    pub fn iter(&self) -> impl Iterator<Item = Entry> + '_ {
        self.marks.iter().enumerate().flat_map(move |(i, m)| {
            let end = self.marks.get(i + 1).map_or(self.records.len(), |n| n.first as usize);
            self.records[m.first as usize..end].iter().map(move |&record| Entry { time: m.time, event: m.event, record })
        })
    }

    /// Number of kept records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Drops the kept records (the hash and count stay): for a reader that
    /// has consumed them and streams a long run (the trace export).
    pub fn clear_kept(&mut self) {
        self.records.clear();
        self.marks.clear();
        self.paths.clear();
    }
}

/// A saved position: restore it to rewind.
#[derive(Clone, Debug)]
pub struct Checkpoint {
    state: SimState,
    records: usize,
    marks: usize,
    paths: usize,
    hash: LogHash,
    count: u64,
}

impl Checkpoint {
    pub fn events(&self) -> u64 {
        self.state.events
    }
    pub fn time(&self) -> u64 {
        self.state.sched.now
    }
}

/// What does not change during a run: names, programs, when tasks start.
#[derive(Clone, Debug)]
pub struct Static {
    pub task_names: Vec<String>,
    pub programs: Vec<Program>,
    /// Program index and start time per task.
    pub task_prog: Vec<u32>,
    pub task_start: Vec<u64>,
    pub duration: u64,
    /// Results count from this time on (see `Simulation::measure_from`).
    pub warmup: u64,
    pub seed: u64,
    /// The workload macros and the tasks (ids) each measures.
    pub workloads: Vec<WorkloadRun>,
}

/// A workload macro's measure and its worker task ids.
#[derive(Clone, Debug)]
pub struct WorkloadRun {
    pub measure: crate::lab::workload::Measure,
    pub workers: Vec<u32>,
}

pub struct Simulation {
    pub state: SimState,
    pub info: Static,
    pub log: Log,
    /// Set when the run had to stop a task (livelock).
    pub warnings: Vec<String>,
    /// Sampled per-CPU signals and decision counts (`enable_signals`).
    pub signals: Option<crate::lab::signals::Signals>,
    /// When the results' counters were last reset (the warm-up's end), and
    /// each task's CPU time then.
    pub measure_from: u64,
    pub cpu_base: Vec<u64>,
}

/// How a task left `advance()`.
enum Outcome {
    /// It is running a burst (a BurstEnd is armed, or it runs forever).
    Running,
    /// It leaves the CPU through schedule().
    Leave(PrevState),
    /// It did something instantaneous; keep going.
    Again,
}

impl Simulation {
    /// A simulation over a prepared scheduler (see `build.rs` for building
    /// one from a scenario).
    pub fn new(sched: Sched, info: Static, mode: LogMode) -> Simulation {
        let ntasks = sched.tasks.len();
        let ncpus = sched.rqs.len();
        let mut state = SimState {
            sched,
            queue: BinaryHeap::with_capacity(ntasks * 2 + ncpus * 2 + 16),
            seq: 0,
            rng: Rng::new(info.seed),
            cursors: vec![Cursor::default(); ntasks],
            cpus: vec![CpuSim::default(); ncpus],
            events: 0,
            exited: 0,
            done: false,
        };
        state.sched.tracing = true;
        for (t, &start) in info.task_start.iter().enumerate() {
            state.push(start, EvKind::Start(t as u32));
        }
        let log = Log { records: Vec::new(), marks: Vec::new(), paths: Vec::new(), hash: LogHash::default(), mode, count: 0 };
        Simulation { state, info, log, warnings: Vec::new(), signals: None, measure_from: 0, cpu_base: Vec::new() }
    }

    pub fn now(&self) -> u64 {
        self.state.sched.now
    }

    /// Samples per-CPU signals every `period` ns from now on and counts
    /// decisions (see `signals.rs`; the schedule does not change).
    pub fn enable_signals(&mut self, period: u64) {
        let s = &self.state.sched;
        self.signals = Some(crate::lab::signals::Signals::new(period, s.rqs.len(), s.llc.len()));
    }

    pub fn sched(&self) -> &Sched {
        &self.state.sched
    }

    /// Processes one event. Returns false when the run is over (no events
    /// left before the end of the simulated duration).
    pub fn step(&mut self) -> bool {
        if self.state.done {
            return false;
        }
        loop {
            let Some(ev) = self.state.queue.pop() else {
                return self.finish();
            };
            if ev.time > self.info.duration {
                self.state.queue.push(ev);
                return self.finish();
            }
            if !self.state.live(ev.kind) {
                continue;
            }
            if let Some(sig) = &mut self.signals {
                sig.sample_until(&self.state.sched, ev.time);
            }
            if self.measure_from < self.info.warmup && ev.time >= self.info.warmup {
                self.begin_measurement(self.info.warmup);
            }
            self.state.sched.set_now(ev.time);
            self.state.events += 1;
            self.handle(ev.kind);
            self.flush();
            if self.state.exited as usize == self.state.cursors.len() {
                self.finish();
            }
            return true;
        }
    }

    /// The warm-up is over: results count from `at` (the state is as it was
    /// after the last event before `at`). Only statistics are reset; no
    /// scheduler state changes, so the schedule is that of a run without
    /// warm-up.
    fn begin_measurement(&mut self, at: u64) {
        self.state.sched.set_now(at);
        self.cpu_base = (0..self.state.sched.tasks.len() as u32).map(|t| self.task_cpu_time_total(t)).collect();
        self.state.sched.reset_statistics();
        self.measure_from = at;
    }

    /// Runs to the end of the simulated duration.
    pub fn run(&mut self) {
        while self.step() {}
    }

    /// Runs until simulated time reaches `t` (events at `t` included).
    pub fn run_until(&mut self, t: u64) {
        while self.state.next_time().is_some_and(|nt| nt <= t) && self.step() {}
    }

    fn finish(&mut self) -> bool {
        if !self.state.done {
            self.state.done = true;
            // A run whose tasks all exited ends then (hackbench's time);
            // otherwise it covers the whole duration.
            let all_exited = self.state.exited as usize == self.state.cursors.len();
            let end = if all_exited { self.state.sched.now } else { self.info.duration.max(self.state.sched.now) };
            if !all_exited && self.state.queue.is_empty() {
                self.note_deadlock();
            }
            if let Some(sig) = &mut self.signals {
                sig.sample_until(&self.state.sched, end.saturating_add(1));
            }
            self.state.sched.set_now(end);
            self.state.sched.finish_accounting();
            self.state.sched.flush_latencies();
            self.state.sched.records.clear();
        }
        false
    }

    /// Nothing is left to happen but tasks still wait: say who waits on
    /// what (a scenario whose tasks wait for each other).
    fn note_deadlock(&mut self) {
        let s = &self.state.sched;
        let blocked: Vec<&str> = s
            .tasks
            .iter()
            .enumerate()
            .filter(|(_, t)| t.state == TaskState::Sleeping)
            .map(|(i, _)| self.info.task_names[i].as_str())
            .collect();
        if !blocked.is_empty() {
            let shown = blocked.iter().take(8).copied().collect::<Vec<_>>().join(", ");
            let more = if blocked.len() > 8 { format!(" and {} more", blocked.len() - 8) } else { String::new() };
            self.warnings.push(format!(
                "deadlock at {} ns: no event is left and {} task(s) wait forever ({shown}{more})",
                s.now,
                blocked.len()
            ));
        }
    }

    /// Saves the current position.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            state: self.state.clone(),
            records: self.log.records.len(),
            marks: self.log.marks.len(),
            paths: self.log.paths.len(),
            hash: self.log.hash,
            count: self.log.count,
        }
    }

    /// Returns to a saved position (the log is truncated to match).
    pub fn restore(&mut self, cp: &Checkpoint) {
        self.state = cp.state.clone();
        self.log.records.truncate(cp.records);
        self.log.marks.truncate(cp.marks);
        self.log.paths.truncate(cp.paths);
        self.log.hash = cp.hash;
        self.log.count = cp.count;
    }

    fn handle(&mut self, kind: EvKind) {
        match kind {
            EvKind::Start(t) => {
                self.state.sched.wake_up_new_task(t);
            }
            EvKind::Wake(t) => {
                // The sleep timer fires on the CPU the task slept on.
                let this_cpu = self.state.sched.tasks[t as usize].cpu;
                self.state.sched.try_to_wake_up(t, 0, this_cpu);
            }
            EvKind::BurstEnd { cpu, .. } => self.run_cpu(cpu, true),
            EvKind::IdleExit(cpu) => {
                self.state.cpus[cpu as usize].exiting = false;
                self.run_cpu(cpu, false);
            }
            EvKind::Tick(cpu) => {
                self.state.cpus[cpu as usize].tick_armed = false;
                self.state.sched.sched_tick(cpu);
                self.arm_tick(cpu);
            }
        }
        self.run_kicked();
    }

    /// Runs every CPU that was asked to reschedule, until none is left
    /// (a CPU's schedule can kick others: a newly idle pull, a wakeup).
    fn run_kicked(&mut self) {
        let mut i = 0;
        while i < self.state.sched.kicked.len() {
            let cpu = self.state.sched.kicked[i];
            i += 1;
            if self.state.sched.rqs[cpu as usize].curr == NIL {
                // An idle CPU first leaves its idle state.
                if self.state.cpus[cpu as usize].exiting {
                    continue;
                }
                let latency = self.idle_exit_latency(cpu);
                if latency > 0 {
                    self.state.sched.trace(Record::IdleExit { cpu, latency });
                    self.state.cpus[cpu as usize].exiting = true;
                    let at = self.state.sched.now + latency;
                    self.state.push(at, EvKind::IdleExit(cpu));
                    continue;
                }
            }
            self.run_cpu(cpu, false);
        }
        self.state.sched.kicked.clear();
    }

    /// How long an idle CPU takes to start running what it was sent: the
    /// exit latency of the idle state its idle period ended in (see
    /// `topology::idle_state_for`), or the scenario's fixed `idle_exit`.
    fn idle_exit_latency(&self, cpu: u32) -> u64 {
        let s = &self.state.sched;
        if let Some(fixed) = s.tun.idle_exit {
            return fixed;
        }
        let idle_for = s.now.saturating_sub(self.state.cpus[cpu as usize].idle_since);
        crate::kernel::sched::topology::idle_state_for(s.topo.idle_states, idle_for).map_or(0, |st| st.exit_latency_ns)
    }

    /// Moves this event's records into the log and the hash.
    fn flush(&mut self) {
        let s = &mut self.state.sched;
        let log = &mut self.log;
        let full = log.mode == LogMode::Full;
        if full && !s.records.is_empty() {
            log.marks.push(Mark { time: s.now, event: self.state.events, first: log.records.len() as u32 });
        }
        if let Some(sig) = &mut self.signals {
            sig.count(&s.records);
        }
        let base = log.paths.len() as u32;
        for mut r in s.records.drain(..) {
            r.hash_into(&mut log.hash);
            log.count += 1;
            if full {
                // Side-buffer offsets are per event until here.
                match r {
                    Record::Pick { ref mut path_start, .. } => *path_start += base,
                    Record::Placement { ref mut scan_start, .. } => *scan_start += base,
                    _ => {}
                }
                log.records.push(r);
            }
        }
        if full {
            log.paths.extend_from_slice(&s.paths);
        }
        s.paths.clear();
    }

    /// Arms the next periodic tick of a busy CPU on the jiffy grid.
    fn arm_tick(&mut self, cpu: u32) {
        let st = &mut self.state;
        if st.cpus[cpu as usize].tick_armed || st.sched.rqs[cpu as usize].curr == NIL {
            return;
        }
        let tick = st.sched.tun.tick_nsec;
        let next = (st.sched.now / tick + 1) * tick;
        st.cpus[cpu as usize].tick_armed = true;
        st.push(next, EvKind::Tick(cpu));
    }

    /// Runs a CPU until nothing is pending: honour reschedule requests and
    /// move the running task through its program (`resume` says the running
    /// task should look at its program now).
    fn run_cpu(&mut self, cpu: u32, mut resume: bool) {
        for _ in 0..(4 * STATEMENT_BUDGET) {
            let rq = &self.state.sched.rqs[cpu as usize];
            if rq.resched {
                self.schedule(cpu, PrevState::Running, &mut resume);
                continue;
            }
            let curr = rq.curr;
            if !resume || curr == NIL {
                return;
            }
            resume = false;
            match self.advance(cpu, curr) {
                Outcome::Running => {}
                Outcome::Again => resume = true,
                Outcome::Leave(prev_state) => {
                    if prev_state == PrevState::Exiting {
                        self.state.exited += 1;
                    }
                    resume = true;
                    self.schedule(cpu, prev_state, &mut resume);
                }
            }
        }
        self.warnings.push(format!("cpu {cpu}: scheduling did not settle at {} ns", self.now()));
    }

    /// `schedule()` and what a context switch means for the programs.
    fn schedule(&mut self, cpu: u32, prev_state: PrevState, resume: &mut bool) {
        let (next, switched) = self.state.sched.schedule(cpu, prev_state);
        if switched && next == NIL {
            self.state.cpus[cpu as usize].idle_since = self.state.sched.now;
        }
        if switched {
            self.state.cpus[cpu as usize].gen = self.state.cpus[cpu as usize].gen.wrapping_add(1);
            self.arm_tick(cpu);
            *resume = next != NIL;
        }
    }

    /// CPU time of a running task up to now.
    fn exec_now(&self, task: u32) -> u64 {
        let s = &self.state.sched;
        let e = &s.ents[s.tasks[task as usize].se as usize];
        e.sum_exec_runtime + s.now.saturating_sub(e.exec_start)
    }

    /// Moves the running task through its program until it needs the
    /// scheduler.
    fn advance(&mut self, cpu: u32, task: u32) -> Outcome {
        let exec = self.exec_now(task);
        let t = task as usize;
        // Overheads (context switch, cache refill, wakeup scans) are CPU
        // time the task spends before its program moves on.
        let owed = std::mem::take(&mut self.state.sched.tasks[t].overhead);
        if owed > 0 {
            let c = &mut self.state.cursors[t];
            c.burst_end = Some(c.burst_end.map_or(exec + owed, |e| e.saturating_add(owed)));
        }
        if let Some(end) = self.state.cursors[t].burst_end {
            if exec < end {
                self.arm_burst_end(cpu, end - exec);
                return Outcome::Running;
            }
            self.state.cursors[t].burst_end = None;
        }
        // A call that blocked has its reply: the request starts now.
        if std::mem::take(&mut self.state.cursors[t].in_call) {
            let now = self.state.sched.now;
            self.state.sched.tasks[t].stats.call_returned = Some(now);
        }
        // A send or recv that blocked resumes where it stopped.
        let left = self.state.cursors[t].io_left;
        if left > 0 {
            let pc = self.state.cursors[t].pc - 1;
            let prog = &self.info.programs[self.info.task_prog[t] as usize];
            let outcome = match prog.code[pc as usize] {
                crate::lab::program::Instr::Send { ch, .. } => self.state.sched.chan_send(task, ch, left),
                crate::lab::program::Instr::Recv { ch, .. } => self.state.sched.chan_recv(task, ch, left),
                _ => crate::kernel::chan::Io::Done,
            };
            return self.io_outcome(task, outcome);
        }
        let prog = &self.info.programs[self.info.task_prog[t] as usize];
        let st = &mut self.state;
        let mut ops = st.sched.tasks[t].stats.ops;
        let action = st.cursors[t].next(prog, exec, &mut st.rng, &mut ops, STATEMENT_BUDGET);
        st.sched.tasks[t].stats.ops = ops;
        match action {
            None => {
                st.sched.trace(Record::Livelock { task });
                self.warnings.push(format!(
                    "task {} ran {STATEMENT_BUDGET} statements without using time at {} ns; it was stopped",
                    self.info.task_names[t], st.sched.now
                ));
                Outcome::Leave(PrevState::Exiting)
            }
            Some(Action::Burst(end)) => {
                if end <= exec {
                    st.cursors[t].burst_end = None;
                    return Outcome::Again;
                }
                if end != u64::MAX {
                    self.arm_burst_end(cpu, end - exec);
                }
                Outcome::Running
            }
            Some(Action::Sleep(d)) => {
                let at = st.sched.now.saturating_add(d);
                st.push(at, EvKind::Wake(task));
                Outcome::Leave(PrevState::Blocking)
            }
            Some(Action::Yield) => {
                st.sched.sched_yield(cpu);
                Outcome::Leave(PrevState::Running)
            }
            Some(Action::Nice(n)) => {
                st.sched.set_user_nice(task, n);
                Outcome::Again
            }
            Some(Action::Slice(v)) => {
                st.sched.set_slice(task, v);
                Outcome::Again
            }
            Some(Action::Exit) => Outcome::Leave(PrevState::Exiting),
            Some(Action::Send { ch, n }) => {
                let io = st.sched.chan_send(task, ch, n);
                self.io_outcome(task, io)
            }
            Some(Action::Recv { ch, n }) => {
                let io = st.sched.chan_recv(task, ch, n);
                self.io_outcome(task, io)
            }
            Some(Action::Wake { task: target }) => {
                st.sched.task_wake(task, target);
                Outcome::Again
            }
            Some(Action::Wait) => {
                if st.sched.task_wait(task) {
                    Outcome::Leave(PrevState::Blocking)
                } else {
                    Outcome::Again
                }
            }
            Some(Action::Call { task: target }) => {
                let now = st.sched.now;
                let stats = &mut st.sched.tasks[t].stats;
                if let Some(since) = stats.call_returned {
                    stats.request_latency.record(now - since);
                }
                if st.sched.task_call(task, target) {
                    st.cursors[t].in_call = true;
                    Outcome::Leave(PrevState::Blocking)
                } else {
                    st.sched.tasks[t].stats.call_returned = Some(now);
                    Outcome::Again
                }
            }
            Some(Action::Reply) => {
                st.sched.task_reply(task);
                Outcome::Again
            }
        }
    }

    /// A channel operation either completed (keep going) or blocks the task
    /// with messages still to move.
    fn io_outcome(&mut self, task: u32, io: crate::kernel::chan::Io) -> Outcome {
        match io {
            crate::kernel::chan::Io::Done => {
                self.state.cursors[task as usize].io_left = 0;
                Outcome::Again
            }
            crate::kernel::chan::Io::Blocked(left) => {
                self.state.cursors[task as usize].io_left = left;
                Outcome::Leave(PrevState::Blocking)
            }
        }
    }

    fn arm_burst_end(&mut self, cpu: u32, after: u64) {
        let gen = self.state.cpus[cpu as usize].gen;
        let at = self.state.sched.now.saturating_add(after);
        self.state.push(at, EvKind::BurstEnd { cpu, gen });
    }

    /// Task states, for tests and views.
    pub fn task_state(&self, task: u32) -> TaskState {
        self.state.sched.tasks[task as usize].state
    }
}

impl SimState {
    fn push(&mut self, time: u64, kind: EvKind) {
        self.seq += 1;
        self.queue.push(Ev { time, seq: self.seq, kind });
    }

    /// Stale events are dropped unseen: a burst end from before a context
    /// switch, and a tick on a CPU that went idle (NOHZ stops the tick of an
    /// idle CPU; it restarts on the jiffy grid when a task arrives).
    fn live(&mut self, kind: EvKind) -> bool {
        match kind {
            EvKind::BurstEnd { cpu, gen } => self.cpus[cpu as usize].gen == gen,
            EvKind::Tick(cpu) if self.sched.rqs[cpu as usize].curr == NIL => {
                self.cpus[cpu as usize].tick_armed = false;
                false
            }
            _ => true,
        }
    }

    /// Whether an idle CPU is leaving its idle state to run queued work.
    pub fn cpu_exiting_idle(&self, cpu: u32) -> bool {
        self.cpus[cpu as usize].exiting
    }

    /// Time of the next live event, if any.
    pub fn next_time(&self) -> Option<u64> {
        self.queue.peek().map(|e| e.time)
    }
}
