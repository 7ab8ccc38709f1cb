//! Export of a run as an ftrace text trace (the `trace` file / `trace-cmd
//! report` line format), which Perfetto UI opens with real CPU scheduling
//! tracks through its systrace importer.
//!
//! One line per tracepoint, in time order:
//!
//! ```text
//!            hog.0-1000    ( 1000) [000] .... 0.004000000: sched_switch: prev_comm=hog.0 prev_pid=1000 prev_prio=120 prev_state=R+ ==> next_comm=hog.1 next_pid=1001 next_prio=120
//! ```
//!
//! - `sched_switch` per context switch (prev_state `S` when prev blocked,
//!   `X` when it exited, `R+` when preempted, `R` when it yielded); the idle
//!   task is `swapper/N`, pid 0, as in the kernel;
//! - `sched_waking` (on the waker's CPU, from the waker: the task whose
//!   `send`/`wake` caused it, or the interrupted task or `<idle>` with the
//!   hardirq flag `h` for a timer) and `sched_wakeup`, both with
//!   `target_cpu`; `sched_wakeup_new` when a task is forked;
//!   `sched_migrate_task` when a wakeup or the balancer moves a task;
//!   `sched_process_exit`; `cpu_idle` (state 0 on entry, 4294967295 on exit);
//! - counters (`tracing_mark_write: C|tgid|name|value`) for what only the
//!   model knows, each a quantity of the kernel preset's own class:
//!   - EEVDF (v6.6+): per CPU the zero-lag point `V` (avg_vruntime() of the
//!     root cfs_rq) at each pick of a task; per task its `vruntime` and
//!     `lag` (V − vruntime) whenever it is picked;
//!   - CFS (v5.15, v6.5): there is no V, lag or deadline; per CPU the root
//!     cfs_rq's `min_vruntime` after each event that picked a task (read
//!     from the scheduler, so only while streaming), per task its
//!     `vruntime` whenever it is picked;
//!   - both: per CPU nr_running and the root cfs_rq's util_avg when they
//!     changed (only while streaming, when the scheduler can be read after
//!     each event).
//!
//!   CPU counters belong to a process "schedlab" (pid [`COUNTER_PID`]),
//!   task counters to the task's process. A pick of nothing (the CPU goes
//!   idle) writes no counter: an empty queue has no V.
//!
//! Task `i` is pid `1000 + i`; threads of one `process` share the tgid of
//! its first thread, so Perfetto groups them. Names are sanitised: a comm
//! holds no whitespace, `=`, `|` or control character (Perfetto splits
//! arguments on spaces and `=`, counters on `|`).
//!
//! The exporter only reads the event log (and, when streaming, the
//! scheduler after each event); a run that is not exported pays nothing.

use std::io::{self, Write};

use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::core::Sched;
use crate::kernel::sched::features::Feature;
use crate::lab::sim::{Log, Simulation};
use crate::lab::trace::Record;

/// pid of task 0; task `i` is `PID_BASE + i`.
pub const PID_BASE: u32 = 1000;
/// pid and tgid of the pseudo process that owns the per-CPU counters.
pub const COUNTER_PID: u32 = 999;
/// The line owner of the per-CPU counters (not a task id).
const COUNTER_OWNER: u32 = NIL - 1;
/// `cpu_idle` state of "leaving idle" (PWR_EVENT_EXIT, (u32)-1).
pub const IDLE_EXIT: u32 = u32::MAX;

/// A comm as ftrace text can carry it: whitespace, `=`, `|` and control
/// characters become `_`; an empty name becomes `_`.
pub fn sanitize_comm(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_whitespace() || c.is_control() || c == '=' || c == '|' { '_' } else { c }).collect();
    if s.is_empty() {
        "_".into()
    } else {
        s
    }
}

/// Appends `v` in decimal, right-aligned to `width` with spaces (or zeros);
/// returns the number of characters written.
fn push_dec(s: &mut Vec<u8>, v: u64, width: usize, zeros: bool) -> usize {
    let mut b = itoa::Buffer::new();
    let d = b.format(v).as_bytes();
    if d.len() < width {
        s.resize(s.len() + width - d.len(), if zeros { b'0' } else { b' ' });
    }
    s.extend_from_slice(d);
    d.len().max(width)
}

/// Appends `v` in decimal with its sign.
fn push_int(s: &mut Vec<u8>, v: i64) {
    if v < 0 {
        s.push(b'-');
    }
    push_dec(s, v.unsigned_abs(), 0, false);
}

/// The fixed start of a line of `name`: `NAME-PID (TGID) [`. Perfetto's
/// tokenizer wants at least one space after the pid and at most one
/// between `)` and `[`.
fn line_head(name: &str, pid: u32, tgid: u32) -> Vec<u8> {
    let mut l = Vec::with_capacity(40);
    l.resize(16usize.saturating_sub(name.len()), b' ');
    l.extend_from_slice(name.as_bytes());
    l.push(b'-');
    let w = push_dec(&mut l, pid as u64, 0, false);
    l.resize(l.len() + 7usize.saturating_sub(w), b' ');
    l.extend_from_slice(b" (");
    push_dec(&mut l, tgid as u64, 5, false);
    l.extend_from_slice(b") [");
    l
}

/// Lines are built in a buffer of about this size, then written at once.
const CHUNK: usize = 1 << 16;

/// Streams a run's event log as ftrace text.
pub struct FtraceExport<W: Write> {
    out: W,
    comm: Vec<String>,
    pid: Vec<u32>,
    prio: Vec<i32>,
    /// Per task: its lines' fixed start ([`line_head`]) and `comm=NAME
    /// pid=PID prio=` (the priority changes with `nice`); the idle task's
    /// and the counter owner's line starts.
    head: Vec<Vec<u8>>,
    args: Vec<Vec<u8>>,
    idle_head: Vec<u8>,
    counter_head: Vec<u8>,
    /// Per task: `C|TGID| NAME|`, split after `C|TGID|` (a task counter's
    /// name goes between).
    stem: Vec<(Vec<u8>, usize)>,
    /// Per CPU: `NNN] ` (the end of the line start) and ` cpuN|` (the end
    /// of a CPU counter's name).
    cpu_tag: Vec<Vec<u8>>,
    cpu_name: Vec<Vec<u8>>,
    /// Per CPU: the running task (NIL: idle), whether it is idle, last
    /// sampled nr_running and util_avg, touched by the current event.
    curr: Vec<u32>,
    idle: Vec<bool>,
    last_nr: Vec<u32>,
    last_util: Vec<u64>,
    touched: Vec<bool>,
    /// CFS: per CPU, the current event picked a task there (its
    /// min_vruntime is written once the event is done).
    picked: Vec<bool>,
    /// The CPUs touched or picked on by the current event (a 96-CPU run
    /// touches one or two an event: the sample reads those, not all).
    marked: Vec<u32>,
    /// The kernel preset is CFS (no EEVDF): min_vruntime instead of V and
    /// lag.
    cfs: bool,
    /// Next `Log::marks` index to read.
    next_mark: usize,
    /// Lines not yet written to `out` (up to [`CHUNK`] bytes).
    buf: Vec<u8>,
    /// `SECS.NANOS` of the event being written (every line of an event
    /// has its time) and that time.
    stamp: Vec<u8>,
    stamp_of: u64,
    /// Lines written.
    pub lines: u64,
    counters: bool,
}

impl<W: Write> FtraceExport<W> {
    /// An exporter for `sim`'s tasks and CPUs; writes the header at once.
    /// `counters`: also write the counter tracks.
    pub fn new(sim: &Simulation, mut out: W, title: &str, counters: bool) -> io::Result<Self> {
        let s = sim.sched();
        let n = s.tasks.len();
        let ncpu = s.rqs.len();
        let comm: Vec<String> = sim.info.task_names.iter().map(|n| sanitize_comm(n)).collect();
        let pid: Vec<u32> = (0..n as u32).map(|i| PID_BASE + i).collect();
        let tgid: Vec<u32> = s.tasks.iter().map(|t| PID_BASE + t.mm).collect();
        let prio: Vec<i32> = s.tasks.iter().map(|t| 120 + t.nice).collect();
        let head = (0..n).map(|t| line_head(&comm[t], pid[t], tgid[t])).collect();
        let args = (0..n)
            .map(|t| {
                let mut a = Vec::with_capacity(comm[t].len() + 24);
                a.extend_from_slice(b"comm=");
                a.extend_from_slice(comm[t].as_bytes());
                a.extend_from_slice(b" pid=");
                push_dec(&mut a, pid[t] as u64, 0, false);
                a.extend_from_slice(b" prio=");
                a
            })
            .collect();
        let stem = (0..n)
            .map(|t| {
                let mut c = b"C|".to_vec();
                push_dec(&mut c, tgid[t] as u64, 0, false);
                c.push(b'|');
                let split = c.len();
                c.push(b' ');
                c.extend_from_slice(comm[t].as_bytes());
                c.push(b'|');
                (c, split)
            })
            .collect();
        let cpu_tag = (0..ncpu as u64)
            .map(|c| {
                let mut t = Vec::with_capacity(8);
                push_dec(&mut t, c, 3, true);
                t.extend_from_slice(b"] ");
                t
            })
            .collect();
        let cpu_name = (0..ncpu).map(|c| format!(" cpu{c}|").into_bytes()).collect();
        writeln!(out, "# tracer: nop")?;
        writeln!(out, "#")?;
        writeln!(out, "# schedlab {} ({} CPUs, {} tasks)", title.replace('\n', " "), ncpu, n)?;
        writeln!(out, "#")?;
        writeln!(out, "#           TASK-PID     TGID   CPU#  ||||    TIMESTAMP  FUNCTION")?;
        writeln!(out, "#              | |         |      |   ||||       |         |")?;
        Ok(FtraceExport {
            out,
            comm,
            pid,
            prio,
            head,
            args,
            idle_head: line_head("<idle>", 0, 0),
            counter_head: line_head("schedlab", COUNTER_PID, COUNTER_PID),
            stem,
            cpu_tag,
            cpu_name,
            curr: vec![NIL; ncpu],
            idle: vec![false; ncpu],
            last_nr: vec![u32::MAX; ncpu],
            last_util: vec![u64::MAX; ncpu],
            touched: vec![false; ncpu],
            picked: vec![false; ncpu],
            marked: Vec::with_capacity(ncpu),
            cfs: !s.feat.has(Feature::EEVDF),
            next_mark: 0,
            buf: Vec::with_capacity(CHUNK + 1024),
            stamp: b"0.000000000".to_vec(),
            stamp_of: 0,
            lines: 0,
            counters,
        })
    }

    /// Reads the events the log gained since the last call. With `sched`
    /// (streaming: called after every step) the per-CPU nr_running and
    /// util_avg counters (and CFS's min_vruntime) are sampled too.
    pub fn ingest(&mut self, log: &Log, sched: Option<&Sched>) -> io::Result<()> {
        while self.next_mark < log.marks.len() {
            let m = log.marks[self.next_mark];
            let end = log.marks.get(self.next_mark + 1).map_or(log.records.len(), |n| n.first as usize);
            self.event(m.time, &log.records[m.first as usize..end]);
            match sched {
                Some(s) => self.sample(m.time, s),
                // Nothing to read the CPUs' state from: what this event
                // marked must not be written at a later event's time.
                None => self.unmark(),
            }
            self.next_mark += 1;
        }
        if self.buf.len() >= CHUNK {
            self.out.write_all(&self.buf)?;
            self.buf.clear();
        }
        Ok(())
    }

    /// `ingest()`, then empties the log's kept records so that a long run
    /// streams in bounded memory.
    pub fn drain(&mut self, log: &mut Log, sched: Option<&Sched>) -> io::Result<()> {
        self.ingest(log, sched)?;
        log.clear_kept();
        self.next_mark = 0;
        Ok(())
    }

    /// Ends the trace at `end` (the run's end): one nr_running sample per
    /// CPU there, so a reader sees how far the trace reaches (slices still
    /// open end at the last line).
    pub fn end_at(&mut self, end: u64, s: &Sched) -> io::Result<()> {
        for c in 0..s.rqs.len() {
            let nr = s.rqs[c].nr_running as i64;
            self.cpu_counter(c as u32, end, "nr_running", nr);
        }
        Ok(())
    }

    /// Writes what is buffered, flushes and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.write_all(&self.buf)?;
        self.out.flush()?;
        Ok(self.out)
    }

    /// Writes the comm of `task` (`swapper/N` for idle) to the line.
    fn push_comm(&mut self, task: u32, cpu: u32) {
        if task == NIL {
            self.buf.extend_from_slice(b"swapper/");
            push_dec(&mut self.buf, cpu as u64, 0, false);
        } else {
            self.buf.extend_from_slice(self.comm[task as usize].as_bytes());
        }
    }

    /// Starts a line: `TASK-PID (TGID) [CPU] FLAGS SECS.NANOS: EVENT: `
    /// (up to four (old) / five (new) flag characters and a space before
    /// the timestamp, as Perfetto's tokenizer wants). `flags` comes with
    /// its space (`"d..2 "`), `event` with its colons (`": cpu_idle: "`):
    /// a line is a few copies of prepared bytes.
    fn begin(&mut self, task: u32, cpu: u32, flags: &str, time: u64, event: &str) {
        let head = if task == NIL {
            &self.idle_head
        } else if task == COUNTER_OWNER {
            &self.counter_head
        } else {
            &self.head[task as usize]
        };
        if time != self.stamp_of {
            self.stamp_of = time;
            self.stamp.clear();
            push_dec(&mut self.stamp, time / 1_000_000_000, 0, false);
            self.stamp.push(b'.');
            push_dec(&mut self.stamp, time % 1_000_000_000, 9, true);
        }
        let l = &mut self.buf;
        l.extend_from_slice(head);
        l.extend_from_slice(&self.cpu_tag[cpu as usize]);
        l.extend_from_slice(flags.as_bytes());
        l.extend_from_slice(&self.stamp);
        l.extend_from_slice(event.as_bytes());
    }

    fn end(&mut self) {
        self.buf.push(b'\n');
        self.lines += 1;
    }

    /// `comm=NAME pid=PID prio=PRIO` of `task`.
    fn task_args(&mut self, task: u32) {
        self.buf.extend_from_slice(&self.args[task as usize]);
        push_int(&mut self.buf, self.prio[task as usize] as i64);
    }

    /// `C|999|WHAT cpuN|value`, owned by the pseudo process "schedlab".
    fn cpu_counter(&mut self, cpu: u32, time: u64, what: &str, value: i64) {
        self.begin(COUNTER_OWNER, cpu, ".... ", time, ": tracing_mark_write: C|999|");
        let l = &mut self.buf;
        l.extend_from_slice(what.as_bytes());
        l.extend_from_slice(&self.cpu_name[cpu as usize]);
        push_int(l, value);
        self.end()
    }

    /// `C|tgid|WHAT comm|value` for a task.
    fn task_counter(&mut self, task: u32, cpu: u32, time: u64, what: &str, value: i64) {
        self.begin(task, cpu, ".... ", time, ": tracing_mark_write: ");
        let (stem, split) = &self.stem[task as usize];
        let l = &mut self.buf;
        l.extend_from_slice(&stem[..*split]);
        l.extend_from_slice(what.as_bytes());
        l.extend_from_slice(&stem[*split..]);
        push_int(l, value);
        self.end()
    }

    fn set_idle(&mut self, cpu: u32, idle: bool, time: u64) {
        let c = cpu as usize;
        if self.idle[c] == idle {
            return;
        }
        self.idle[c] = idle;
        self.begin(NIL, cpu, "d... ", time, ": cpu_idle: ");
        self.buf.extend_from_slice(b"state=");
        push_dec(&mut self.buf, if idle { 0 } else { IDLE_EXIT as u64 }, 0, false);
        self.buf.extend_from_slice(b" cpu_id=");
        push_dec(&mut self.buf, cpu as u64, 0, false);
        self.end()
    }

    /// ` orig_cpu=FROM dest_cpu=TO`.
    fn migrate_args(&mut self, from: u32, to: u32) {
        self.buf.extend_from_slice(b" orig_cpu=");
        push_dec(&mut self.buf, from as u64, 0, false);
        self.buf.extend_from_slice(b" dest_cpu=");
        push_dec(&mut self.buf, to as u64, 0, false);
    }

    /// ` target_cpu=NNN`.
    fn target_cpu(&mut self, cpu: u32) {
        self.buf.extend_from_slice(b" target_cpu=");
        push_dec(&mut self.buf, cpu as u64, 3, true);
    }

    /// The lines of one event's records.
    fn event(&mut self, time: u64, records: &[Record]) {
        // The task whose system call (send, recv, wake, reply) is waking
        // others; none at the start of an event (a timer, a tick).
        let mut actor = NIL;
        let mut yielded = NIL;
        let mut exited = NIL;
        let mut placed: Option<(u32, u32, u32)> = None; // task, waker cpu, prev cpu
        for r in records {
            match *r {
                Record::Chan { task, .. } | Record::Signal { task, .. } => actor = task,
                Record::Yield { task, .. } => yielded = task,
                Record::Nice { task, nice } => self.prio[task as usize] = 120 + nice,
                Record::Fork { task, cpu } => {
                    let cur = self.curr[cpu as usize];
                    self.touch(cpu);
                    self.begin(cur, cpu, "d... ", time, ": sched_wakeup_new: ");
                    self.task_args(task);
                    self.target_cpu(cpu);
                    self.end();
                    placed = Some((task, NIL, cpu));
                }
                Record::Placement { task, waker_cpu, prev, .. } => {
                    if placed.is_none_or(|p| p.0 != task) {
                        placed = Some((task, waker_cpu, prev));
                    }
                }
                Record::Wakeup { task, cpu, .. } => {
                    let (waker_cpu, prev) = match placed.take() {
                        Some((t, w, p)) if t == task => (if w == NIL { cpu } else { w }, p),
                        _ => (if actor != NIL { self.curr_cpu_of(actor).unwrap_or(cpu) } else { cpu }, cpu),
                    };
                    // The waker: the task that made the call, else whoever
                    // the interrupt came in on (hardirq context).
                    let (waker, flags) = if actor != NIL { (actor, "d... ") } else { (self.curr[waker_cpu as usize], "d.h. ") };
                    self.touch(cpu);
                    if prev != cpu {
                        self.begin(waker, waker_cpu, flags, time, ": sched_migrate_task: ");
                        self.task_args(task);
                        self.migrate_args(prev, cpu);
                        self.end();
                    }
                    for ev in [": sched_waking: ", ": sched_wakeup: "] {
                        self.begin(waker, waker_cpu, flags, time, ev);
                        self.task_args(task);
                        self.target_cpu(cpu);
                        self.end();
                    }
                }
                Record::Migrate { task, from, to } => {
                    let cur = self.curr[to as usize];
                    self.touch(from);
                    self.touch(to);
                    self.begin(cur, to, "d... ", time, ": sched_migrate_task: ");
                    self.task_args(task);
                    self.migrate_args(from, to);
                    self.end();
                }
                Record::Exit { task, cpu } => {
                    exited = task;
                    self.begin(task, cpu, ".... ", time, ": sched_process_exit: ");
                    self.task_args(task);
                    self.end();
                }
                Record::IdleExit { cpu, .. } => self.set_idle(cpu, false, time),
                Record::Pick { cpu, task, v, vruntime, .. } if self.counters && task != NIL => {
                    if self.cfs {
                        // v5.15's pick_next_entity() has no V: the queue's
                        // min_vruntime is sampled once the event is done.
                        self.mark(cpu);
                        self.picked[cpu as usize] = true;
                    } else {
                        self.cpu_counter(cpu, time, "V", v as i64);
                    }
                    self.task_counter(task, cpu, time, "vruntime", vruntime as i64);
                    if !self.cfs {
                        self.task_counter(task, cpu, time, "lag", v.wrapping_sub(vruntime) as i64);
                    }
                }
                Record::Switch { cpu, prev, next, voluntary } => {
                    let c = cpu as usize;
                    self.touch(cpu);
                    if prev == NIL {
                        self.set_idle(cpu, false, time);
                    }
                    let state: &[u8] = if prev == NIL {
                        b"R"
                    } else if prev == exited {
                        b"X"
                    } else if voluntary {
                        b"S"
                    } else if prev == yielded {
                        b"R"
                    } else {
                        b"R+"
                    };
                    let pp = if prev == NIL { 0 } else { self.pid[prev as usize] };
                    let np = if next == NIL { 0 } else { self.pid[next as usize] };
                    let ppr = if prev == NIL { 120 } else { self.prio[prev as usize] };
                    let npr = if next == NIL { 120 } else { self.prio[next as usize] };
                    self.begin(prev, cpu, "d..2 ", time, ": sched_switch: ");
                    self.buf.extend_from_slice(b"prev_comm=");
                    self.push_comm(prev, cpu);
                    self.buf.extend_from_slice(b" prev_pid=");
                    push_dec(&mut self.buf, pp as u64, 0, false);
                    self.buf.extend_from_slice(b" prev_prio=");
                    push_int(&mut self.buf, ppr as i64);
                    self.buf.extend_from_slice(b" prev_state=");
                    self.buf.extend_from_slice(state);
                    self.buf.extend_from_slice(b" ==> next_comm=");
                    self.push_comm(next, cpu);
                    self.buf.extend_from_slice(b" next_pid=");
                    push_dec(&mut self.buf, np as u64, 0, false);
                    self.buf.extend_from_slice(b" next_prio=");
                    push_int(&mut self.buf, npr as i64);
                    self.end();
                    self.curr[c] = next;
                    if actor == prev {
                        actor = NIL;
                    }
                    if next == NIL {
                        self.set_idle(cpu, true, time);
                    }
                }
                _ => {}
            }
        }
    }

    /// The CPU `task` is running on, if it runs.
    fn curr_cpu_of(&self, task: u32) -> Option<u32> {
        self.curr.iter().position(|&t| t == task).map(|c| c as u32)
    }

    /// Notes that the current event changed `cpu`'s queue.
    fn touch(&mut self, cpu: u32) {
        self.mark(cpu);
        self.touched[cpu as usize] = true;
    }

    fn mark(&mut self, cpu: u32) {
        let c = cpu as usize;
        if !self.touched[c] && !self.picked[c] {
            self.marked.push(cpu);
        }
    }

    /// Forgets what the current event marked.
    fn unmark(&mut self) {
        for c in self.marked.drain(..) {
            self.touched[c as usize] = false;
            self.picked[c as usize] = false;
        }
    }

    /// nr_running and util_avg of the CPUs the last event touched, when
    /// they changed; under CFS the min_vruntime of those it picked on. In
    /// CPU order.
    fn sample(&mut self, time: u64, s: &Sched) {
        if !self.counters {
            return self.unmark();
        }
        let mut marked = std::mem::take(&mut self.marked);
        marked.sort_unstable();
        for &cpu in &marked {
            let c = cpu as usize;
            let rq = &s.rqs[c];
            if std::mem::take(&mut self.picked[c]) {
                let min_vruntime = s.cfs_rqs[rq.cfs as usize].min_vruntime;
                self.cpu_counter(cpu, time, "min_vruntime", min_vruntime as i64);
            }
            if !std::mem::take(&mut self.touched[c]) {
                continue;
            }
            if rq.nr_running != self.last_nr[c] {
                self.last_nr[c] = rq.nr_running;
                self.cpu_counter(cpu, time, "nr_running", rq.nr_running as i64);
            }
            let util = s.cfs_rqs[rq.cfs as usize].avg.util_avg;
            if util != self.last_util[c] {
                self.last_util[c] = util;
                self.cpu_counter(cpu, time, "util_avg", util as i64);
            }
        }
        marked.clear();
        self.marked = marked;
    }
}

/// Runs `sim` (built with [`crate::LogMode::Full`]) to its end, writing its
/// trace to `out` as it goes. Unless `keep_log`, the log's records are
/// dropped after each event, so memory stays flat however long the run.
pub fn run_exporting<W: Write>(sim: &mut Simulation, out: W, title: &str, counters: bool, keep_log: bool) -> io::Result<W> {
    let mut ex = FtraceExport::new(sim, out, title, counters)?;
    while sim.step() {
        if keep_log {
            ex.ingest(&sim.log, Some(&sim.state.sched))?;
        } else {
            ex.drain(&mut sim.log, Some(&sim.state.sched))?;
        }
    }
    ex.ingest(&sim.log, Some(&sim.state.sched))?;
    ex.end_at(sim.now(), &sim.state.sched)?;
    ex.finish()
}

/// The trace of a whole run of a scenario, as text (the page's export).
pub fn export_scenario(text: &str, ov: &crate::Overrides) -> Result<String, String> {
    let (mut sim, cfg) = crate::from_text(text, ov, crate::LogMode::Full).map_err(|e| e.to_string())?;
    let title = format!("kernel {} seed {}", cfg.kernel, cfg.seed);
    let out = run_exporting(&mut sim, Vec::new(), &title, true, false).map_err(|e| e.to_string())?;
    String::from_utf8(out).map_err(|e| e.to_string())
}

// Native only: the tests restate Perfetto's grammar with the regex crate.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests;
