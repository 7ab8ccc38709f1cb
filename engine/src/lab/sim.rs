//! The discrete-event simulation: a clock, a seeded random source and an
//! event queue driving the scheduler, and the programs of the tasks.
//!
//! Events are ordered by (time, sequence number), so simultaneous events run
//! in the order they were scheduled and a run is a pure function of the
//! scenario and the seed. The whole mutable state is one `SimState` value:
//! a checkpoint is a clone of it, and rewinding is restore-and-replay.

use crate::lab::program::{Action, Cursor, Program};
use crate::kernel::lib::rbtree::NIL;
use crate::lab::queue::{EvKind, Queue};
use crate::lab::rng::Rng;
use crate::kernel::sched::core::{PrevState, Sched, TaskState};
use crate::lab::trace::{Entry, LogHash, Record};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

mod idle;

/// Instructions one step of a program may take without reaching a
/// statement (loop bookkeeping of `loop N { loop 0 { .. } }`); past it the
/// task spins (see [`SPIN_LIMIT`]).
pub const STATEMENT_BUDGET: u32 = 100_000;

/// Program statements one CPU may run at one instant. A program that
/// cannot advance time — `loop { yield }` alone on its CPU, `send`/`recv`
/// that never block, zero-cost `run`s — reaches it and *spins*: as in the
/// kernel, where each of those system calls costs CPU time and the task
/// never stops running, it keeps its CPU and is charged for it, here until
/// the CPU's next tick; then its program goes on. Each spin is logged
/// (`Record::Livelock`), counted per task (`spins` in the results) and
/// reported in the run's warnings.
pub const SPIN_LIMIT: u32 = 1_000;

/// A task's `timer_slack_ns`: 50 µs for every normal task (init_task's
/// value, inherited over fork; include/linux/init_task.h, v6.6), added to a
/// `futex_wait` timeout by futex_setup_timer().
pub const TIMER_SLACK_NS: u64 = 50_000;

/// Per-CPU simulation bookkeeping (not scheduler state).
#[derive(Clone, Copy, Debug, Default)]
struct CpuSim {
    tick_armed: bool,
    /// When the CPU last went idle.
    idle_since: u64,
    /// Leaving an idle state (an IdleExit is pending).
    exiting: bool,
    /// Program statements run at `stmts_at` (see `SPIN_LIMIT`).
    stmts_at: u64,
    stmts: u32,
}

/// Everything that changes while the simulation runs.
#[derive(Clone, Debug)]
pub struct SimState {
    pub sched: Sched,
    queue: Queue,
    rng: Rng,
    cursors: Vec<Cursor>,
    /// The cursors' loop counters: `loop_stride` per task (the deepest
    /// loop nesting of any program), apart from the cursors they are
    /// rarely read with.
    loops: Vec<u64>,
    loop_stride: usize,
    cpus: Vec<CpuSim>,
    /// Per CPU, its idle loop under the menu governor (`idle.rs`).
    idle: Vec<idle::CpuIdle>,
    /// Per CPU, the hrtimers armed on it (expiry, task, futex wait or
    /// `idle::SLEEP`), earliest first; a cancelled one stays until it
    /// reaches the front (see `idle::timer_armed`).
    timers: Vec<BinaryHeap<Reverse<(u64, u32, u32)>>>,
    /// Per task, when its sleep's timer fires (u64::MAX: not sleeping).
    sleep_at: Vec<u64>,
    /// Discrete events processed so far.
    pub events: u64,
    /// Tasks whose program ended; when all have, the run is over.
    pub exited: u32,
    /// Per task, how often it spun (ran `SPIN_LIMIT` statements at one
    /// instant); and the first spin (task, time).
    pub spins: Vec<u32>,
    first_spin: Option<(u32, u64)>,
    pub done: bool,
}

/// How much of the event log to keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogMode {
    /// Keep every record (the UI, `--log`).
    Full,
    /// Only fold records into the hash (CLI runs, benchmarks without log).
    HashOnly,
    /// Neither build nor hash records: only the schedule hash (studies and
    /// batch runs, where nobody reads the log). The run is the same; the
    /// scheduler just skips what it computes for the records (the pick's
    /// V, the scan's path).
    Schedule,
}

/// The event log of a run: records in order, and one mark per event that
/// produced any (its time and number), so a record costs only its own size.
#[derive(Clone, Debug)]
pub struct Log {
    pub records: Vec<Record>,
    pub marks: Vec<Mark>,
    /// Entities visited by picks; `Record::Pick` indexes into it.
    pub paths: Vec<u32>,
    /// The hash of every record (not computed in `LogMode::Schedule`).
    pub hash: LogHash,
    /// The schedule hash: every context switch as (time, CPU, previous
    /// task, next task, why the previous one left), in every mode. Two runs
    /// with one schedule hash made the same decisions at the same times;
    /// the log hash also covers what each decision saw (V, deadlines,
    /// scans) and the programs' records.
    pub schedule: LogHash,
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
    schedule: LogHash,
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
    /// What the run could not do as written: deadlocks, spinning tasks.
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
        let loop_stride = info.programs.iter().map(|p| p.depth).max().unwrap_or(0);
        let ncpus = sched.rqs.len();
        let mut state = SimState {
            sched,
            queue: Queue::new(ncpus, ntasks + ncpus + 16),
            rng: Rng::new(info.seed),
            cursors: vec![Cursor::default(); ntasks],
            spins: vec![0; ntasks],
            first_spin: None,
            loops: vec![0; ntasks * loop_stride],
            loop_stride,
            cpus: vec![CpuSim::default(); ncpus],
            idle: vec![idle::CpuIdle::default(); ncpus],
            timers: vec![BinaryHeap::new(); ncpus],
            sleep_at: vec![u64::MAX; ntasks],
            events: 0,
            exited: 0,
            done: false,
        };
        state.sched.tracing = mode != LogMode::Schedule;
        state.sched.keep_paths = mode == LogMode::Full;
        for (t, &start) in info.task_start.iter().enumerate() {
            state.push(start, EvKind::Start(t as u32));
        }
        let log = Log {
            records: Vec::new(),
            marks: Vec::new(),
            paths: Vec::new(),
            hash: LogHash::default(),
            schedule: LogHash::default(),
            mode,
            count: 0,
        };
        let mut sim = Simulation { state, info, log, warnings: Vec::new(), signals: None, measure_from: 0, cpu_base: Vec::new() };
        sim.boot_idle();
        sim
    }

    pub fn now(&self) -> u64 {
        self.state.sched.now
    }

    /// Samples per-CPU signals every `period` ns from now on and counts
    /// decisions (see `signals.rs`; the schedule does not change).
    pub fn enable_signals(&mut self, period: u64) {
        // The decision counts come from the records: a `LogMode::Schedule`
        // run builds them again (and still does not hash them).
        self.state.sched.tracing = true;
        let s = &self.state.sched;
        self.signals = Some(crate::lab::signals::Signals::new(period, s.rqs.len(), s.llc.len()));
    }

    /// Counts decisions (signals without samples). Like
    /// [`Self::enable_signals`], it has the scheduler build its records.
    pub fn enable_counters(&mut self) {
        self.state.sched.tracing = true;
        self.signals = Some(crate::lab::signals::Signals::counting_only());
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
            let Some((time, kind)) = self.state.queue.pop_until(self.info.duration) else {
                return self.finish();
            };
            if !self.state.live(kind) {
                continue;
            }
            if let Some(sig) = &mut self.signals {
                sig.sample_until(&self.state.sched, time);
            }
            if self.measure_from < self.info.warmup && time >= self.info.warmup {
                self.begin_measurement(self.info.warmup);
            }
            self.state.sched.set_now(time);
            // Read per event, as the log's mode is (a compare drops to
            // hash-only after its divergence; a restored state carries the
            // flag of the run it was saved from).
            self.state.sched.keep_paths = self.log.mode == LogMode::Full;
            self.state.events += 1;
            self.handle(kind);
            self.state.queue.settle();
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

    /// Ends the run at the current instant, whatever is still pending (a
    /// run cut short: its results cover the time simulated so far).
    pub fn end_now(&mut self) {
        self.info.duration = self.now();
        self.finish();
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
            self.note_spins();
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

    /// Tasks that spun: who, and what it means.
    fn note_spins(&mut self) {
        let Some((first, at)) = self.state.first_spin else { return };
        let spun: Vec<&str> = (0..self.state.spins.len()).filter(|&t| self.state.spins[t] > 0).map(|t| self.info.task_names[t].as_str()).collect();
        let shown = spun.iter().take(8).copied().collect::<Vec<_>>().join(", ");
        let more = if spun.len() > 8 { format!(" and {} more", spun.len() - 8) } else { String::new() };
        self.warnings.push(format!(
            "{} task(s) ran {SPIN_LIMIT} program statements at one instant without using time ({shown}{more}; first {} at {} ns): \
             a program that cannot advance time (`loop {{ yield }}` with nothing else to run, send/recv that never block) \
             keeps its CPU and is charged for it until the next tick, as a spinning task is in the kernel",
            spun.len(),
            self.info.task_names[first as usize],
            at
        ));
    }

    /// The running task's program has run `SPIN_LIMIT` statements on its
    /// CPU at this instant: it spins, holding the CPU (charged as running)
    /// until the CPU's next tick, as a burst the scheduler can preempt.
    fn spin(&mut self, task: u32) {
        let now = self.state.sched.now;
        let tick = self.state.sched.tun.tick_nsec;
        let until = (now / tick + 1) * tick;
        let exec = self.exec_now(task);
        self.state.cursors[task as usize].burst_end = Some(exec + (until - now));
        self.state.sched.trace(Record::Livelock { task });
        self.state.spins[task as usize] += 1;
        self.state.first_spin.get_or_insert((task, now));
    }

    /// Saves the current position.
    pub fn checkpoint(&self) -> Checkpoint {
        Checkpoint {
            state: self.state.clone(),
            records: self.log.records.len(),
            marks: self.log.marks.len(),
            paths: self.log.paths.len(),
            hash: self.log.hash,
            schedule: self.log.schedule,
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
        self.log.schedule = cp.schedule;
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
                self.timer_ends(t);
                self.state.sleep_at[t as usize] = u64::MAX;
                self.state.sched.try_to_wake_up(t, 0, this_cpu);
                self.idle_interrupt(this_cpu);
            }
            EvKind::FutexTimeout { task, seq } => {
                self.timer_ends(task);
                if self.state.sched.futex_timeout(task, seq) {
                    self.state.cursors[task as usize].timed_out = true;
                    self.idle_interrupt(self.state.sched.tasks[task as usize].cpu);
                }
            }
            EvKind::BurstEnd(cpu) => self.run_cpu(cpu, true),
            EvKind::IdleExit(cpu) => {
                self.state.cpus[cpu as usize].exiting = false;
                self.state.sched.sched_ttwu_pending(cpu);
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
                let latency = self.idle_exit(cpu);
                if latency > 0 {
                    self.state.sched.trace(Record::IdleExit { cpu, latency });
                    self.state.cpus[cpu as usize].exiting = true;
                    let at = self.state.sched.now + latency;
                    self.state.push(at, EvKind::IdleExit(cpu));
                    continue;
                }
                self.state.sched.sched_ttwu_pending(cpu);
            }
            self.run_cpu(cpu, false);
        }
        self.state.sched.kicked.clear();
    }

    /// Moves this event's records into the log and the hash.
    fn flush(&mut self) {
        let s = &mut self.state.sched;
        if let Some(sig) = &mut self.signals {
            sig.count(&s.records);
        }
        if self.log.mode == LogMode::Schedule {
            // Only the signals' counts read records here (without them the
            // scheduler wrote none: `tracing` is off).
            debug_assert!(self.signals.is_some() || (s.records.is_empty() && s.paths.is_empty()));
            s.records.clear();
            s.paths.clear();
            return;
        }
        let log = &mut self.log;
        let full = log.mode == LogMode::Full;
        if full && !s.records.is_empty() {
            log.marks.push(Mark { time: s.now, event: self.state.events, first: log.records.len() as u32 });
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
        st.queue.set_tick(cpu, next);
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
            // SPIN_LIMIT statements ran at this instant and the task is
            // about to run more (not to resume a burst): it spins.
            let now = self.state.sched.now;
            let c = &mut self.state.cpus[cpu as usize];
            if c.stmts_at == now
                && c.stmts >= SPIN_LIMIT
                && self.state.cursors[curr as usize].burst_end.is_none()
                && self.state.sched.tasks[curr as usize].overhead == 0
            {
                c.stmts = 0;
                self.spin(curr);
            }
            let outcome = self.advance(cpu, curr);
            if !matches!(outcome, Outcome::Running) {
                // A statement done without using time.
                let c = &mut self.state.cpus[cpu as usize];
                if c.stmts_at != now {
                    (c.stmts_at, c.stmts) = (now, 0);
                }
                c.stmts += 1;
            }
            match outcome {
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
        let prev = self.state.sched.rqs[cpu as usize].curr;
        let (next, switched) = self.state.sched.schedule(cpu, prev_state);
        if switched {
            let h = &mut self.log.schedule;
            h.u64(self.state.sched.now);
            h.u64((cpu as u64) << 32 | prev as u64);
            h.u64((prev_state as u64) << 32 | next as u64);
        }
        if switched && next == NIL {
            self.idle_enter(cpu);
        }
        if switched {
            // The old task's burst end means nothing to the new one.
            self.state.queue.clear_burst(cpu);
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
                // A `run` forever never ends, whatever it owes: arming its
                // end at "never" would only fill the queue.
                if end != u64::MAX {
                    self.arm_burst_end(cpu, end - exec);
                }
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
                crate::lab::program::Instr::Send { ch, .. } => self.state.sched.chan_send(task, ch, left, true),
                crate::lab::program::Instr::Recv { ch, .. } => self.state.sched.chan_recv(task, ch, left, true),
                _ => crate::kernel::chan::Io::Done,
            };
            return self.io_outcome(task, outcome);
        }
        let prog = &self.info.programs[self.info.task_prog[t] as usize];
        let st = &mut self.state;
        let mut ops = st.sched.tasks[t].stats.ops;
        let left = &mut st.loops[t * st.loop_stride..(t + 1) * st.loop_stride];
        let action = st.cursors[t].next(prog, left, exec, &mut st.rng, &mut ops, STATEMENT_BUDGET);
        st.sched.tasks[t].stats.ops = ops;
        match action {
            None => {
                // Loop bookkeeping alone, STATEMENT_BUDGET instructions of
                // it: a spin like any other.
                self.spin(task);
                Outcome::Again
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
                if self.governed() {
                    self.state.arm_timer(cpu, at, task, idle::SLEEP);
                }
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
                let io = st.sched.chan_send(task, ch, n, false);
                self.io_outcome(task, io)
            }
            Some(Action::Recv { ch, n }) => {
                let io = st.sched.chan_recv(task, ch, n, false);
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
            Some(Action::FutexWake { task: target }) => {
                self.timer_ends(target);
                self.state.sched.futex_wake(task, target);
                Outcome::Again
            }
            Some(Action::FutexWait(timeout)) => {
                let seq = st.sched.futex_wait(task);
                if let Some(d) = timeout {
                    // The hrtimer expires at the end of its slack range
                    // (hrtimer_set_expires_range_ns(): the clock event is
                    // programmed for the hard expiry; only an earlier
                    // interrupt on that CPU would run it sooner). A wait
                    // a wake ends cancels its timer, which stays in the
                    // heap until its time and is then dropped unseen
                    // (`live`): at most (D + slack) / cycle of them per
                    // task.
                    let at = st.sched.now.saturating_add(d).saturating_add(TIMER_SLACK_NS);
                    st.push(at, EvKind::FutexTimeout { task, seq });
                    if self.governed() {
                        self.state.arm_timer(cpu, at, task, seq);
                    }
                }
                Outcome::Leave(PrevState::Blocking)
            }
            Some(Action::Call { task: target }) => {
                let now = st.sched.now;
                let stats = &mut st.sched.tasks[t].stats;
                if let Some(since) = stats.call_returned {
                    stats.request_latency.record(now - since);
                    stats.request_plat.record(now - since);
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
        let at = self.state.sched.now.saturating_add(after);
        self.state.queue.set_burst(cpu, at);
    }

    /// Task states, for tests and views.
    pub fn task_state(&self, task: u32) -> TaskState {
        self.state.sched.tasks[task as usize].state
    }
}

impl SimState {
    fn push(&mut self, time: u64, kind: EvKind) {
        self.queue.push(time, kind);
    }

    /// A tick on a CPU that went idle is dropped unseen (NOHZ stops the
    /// tick of an idle CPU; it restarts on the jiffy grid when a task
    /// arrives). A burst end from before a context switch cannot fire: the
    /// switch cleared it. A futex timeout whose wait a wake ended was
    /// cancelled (futex_wait() calls hrtimer_cancel() on its way out,
    /// kernel/futex/waitwake.c, v5.15–v6.18): it stays in the heap, since
    /// taking it out would cost more than skipping it, but it is not an
    /// event. Nothing reads a cancelled timer (`futex_timeout()` and the
    /// idle loop's `timer_armed()` check the same wait number), so the
    /// schedule is unchanged; only the event count drops (measured:
    /// stress-futex at 144 instances on xeon-8260-2s, 1.4 M of 10.6 M
    /// events were cancelled timeouts).
    fn live(&mut self, kind: EvKind) -> bool {
        match kind {
            EvKind::Tick(cpu) if self.sched.rqs[cpu as usize].curr == NIL => {
                self.cpus[cpu as usize].tick_armed = false;
                false
            }
            EvKind::FutexTimeout { task, seq } => {
                let t = &self.sched.tasks[task as usize];
                t.waiting && t.futex_seq == seq
            }
            _ => true,
        }
    }

    /// Whether an idle CPU is leaving its idle state to run queued work.
    pub fn cpu_exiting_idle(&self, cpu: u32) -> bool {
        self.cpus[cpu as usize].exiting
    }

    /// Time of the next event, if any.
    pub fn next_time(&self) -> Option<u64> {
        self.queue.peek().map(|k| k.time)
    }

    /// Events pending in the queue.
    pub fn pending_events(&self) -> usize {
        self.queue.len()
    }

    /// The queue's heap capacity, in events.
    pub fn queue_capacity(&self) -> usize {
        self.queue.heap_capacity()
    }
}
