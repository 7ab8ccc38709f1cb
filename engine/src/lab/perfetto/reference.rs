//! The writer as it was before it was made fast (string formatting, one
//! write per line), kept as the test oracle: the fast writer must write the
//! very same bytes (`tests::output_is_the_reference_writers`).

use std::fmt::Write as _;
use std::io::{self, Write};

use super::{sanitize_comm, COUNTER_OWNER, COUNTER_PID, IDLE_EXIT, PID_BASE};
use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::core::Sched;
use crate::lab::sim::{Log, Simulation};
use crate::lab::trace::Record;

/// Appends `v` in decimal, right-aligned to `width` with spaces (or zeros);
/// returns the number of characters written.
fn push_dec(s: &mut String, v: u64, width: usize, zeros: bool) -> usize {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    let mut x = v;
    loop {
        i -= 1;
        buf[i] = b'0' + (x % 10) as u8;
        x /= 10;
        if x == 0 {
            break;
        }
    }
    let digits = buf.len() - i;
    for _ in digits..width {
        s.push(if zeros { '0' } else { ' ' });
    }
    // ASCII digits only.
    s.push_str(std::str::from_utf8(&buf[i..]).unwrap_or("0"));
    digits.max(width)
}

/// Streams a run's event log as ftrace text.
pub struct Reference<W: Write> {
    out: W,
    comm: Vec<String>,
    pid: Vec<u32>,
    tgid: Vec<u32>,
    prio: Vec<i32>,
    /// Per CPU: the running task (NIL: idle), whether it is idle, last
    /// sampled nr_running and util_avg, touched by the current event.
    curr: Vec<u32>,
    idle: Vec<bool>,
    last_nr: Vec<u32>,
    last_util: Vec<u64>,
    touched: Vec<bool>,
    /// Next `Log::marks` index to read.
    next_mark: usize,
    line: String,
    /// Lines written.
    pub lines: u64,
    counters: bool,
}

impl<W: Write> Reference<W> {
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
        writeln!(out, "# tracer: nop")?;
        writeln!(out, "#")?;
        writeln!(out, "# schedlab {} ({} CPUs, {} tasks)", title.replace('\n', " "), ncpu, n)?;
        writeln!(out, "#")?;
        writeln!(out, "#           TASK-PID     TGID   CPU#  ||||    TIMESTAMP  FUNCTION")?;
        writeln!(out, "#              | |         |      |   ||||       |         |")?;
        Ok(Reference {
            out,
            comm,
            pid,
            tgid,
            prio,
            curr: vec![NIL; ncpu],
            idle: vec![false; ncpu],
            last_nr: vec![u32::MAX; ncpu],
            last_util: vec![u64::MAX; ncpu],
            touched: vec![false; ncpu],
            next_mark: 0,
            line: String::with_capacity(256),
            lines: 0,
            counters,
        })
    }

    /// Reads the events the log gained since the last call. With `sched`
    /// (streaming: called after every step) the per-CPU nr_running and
    /// util_avg counters are sampled too.
    pub fn ingest(&mut self, log: &Log, sched: Option<&Sched>) -> io::Result<()> {
        while self.next_mark < log.marks.len() {
            let m = log.marks[self.next_mark];
            let end = log.marks.get(self.next_mark + 1).map_or(log.records.len(), |n| n.first as usize);
            self.event(m.time, &log.records[m.first as usize..end])?;
            if let Some(s) = sched {
                self.sample(m.time, s)?;
            }
            self.next_mark += 1;
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
            self.counter(COUNTER_OWNER, c as u32, end, COUNTER_PID, format_args!("nr_running cpu{c}"), nr)?;
        }
        Ok(())
    }

    /// Flushes and returns the writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }

    /// Writes the comm of `task` (`swapper/N` for idle) to the line.
    fn push_comm(&mut self, task: u32, cpu: u32) {
        if task == NIL {
            let _ = write!(self.line, "swapper/{cpu}");
        } else {
            self.line.push_str(&self.comm[task as usize]);
        }
    }

    /// Starts a line: `TASK-PID (TGID) [CPU] FLAGS SECS.NANOS: EVENT: `.
    /// Perfetto's tokenizer wants at least one space after the pid, at most
    /// one between `)` and `[`, up to four (old) / five (new) flag
    /// characters and a space before the timestamp.
    fn begin(&mut self, task: u32, cpu: u32, flags: &str, time: u64, event: &str) {
        self.line.clear();
        let (name, pid, tgid) = if task == NIL {
            ("<idle>", 0, 0)
        } else if task == COUNTER_OWNER {
            ("schedlab", COUNTER_PID, COUNTER_PID)
        } else {
            (self.comm[task as usize].as_str(), self.pid[task as usize], self.tgid[task as usize])
        };
        // By hand rather than with write!: this runs for every line.
        let l = &mut self.line;
        for _ in name.len()..16 {
            l.push(' ');
        }
        l.push_str(name);
        l.push('-');
        let w = push_dec(l, pid as u64, 0, false);
        for _ in w..7 {
            l.push(' ');
        }
        l.push_str(" (");
        push_dec(l, tgid as u64, 5, false);
        l.push_str(") [");
        push_dec(l, cpu as u64, 3, true);
        l.push_str("] ");
        l.push_str(flags);
        l.push(' ');
        push_dec(l, time / 1_000_000_000, 0, false);
        l.push('.');
        push_dec(l, time % 1_000_000_000, 9, true);
        l.push_str(": ");
        l.push_str(event);
        l.push_str(": ");
    }

    fn end(&mut self) -> io::Result<()> {
        self.line.push('\n');
        self.lines += 1;
        self.out.write_all(self.line.as_bytes())
    }

    fn task_args(&mut self, task: u32) {
        let _ = write!(self.line, "comm={} pid={} prio={}", self.comm[task as usize], self.pid[task as usize], self.prio[task as usize]);
    }

    fn counter(&mut self, owner: u32, cpu: u32, time: u64, tgid: u32, name: std::fmt::Arguments, value: i64) -> io::Result<()> {
        self.begin(owner, cpu, "....", time, "tracing_mark_write");
        let _ = write!(self.line, "C|{tgid}|{name}|{value}");
        self.end()
    }

    /// `C|tgid|WHAT comm|value` for a task.
    fn task_counter(&mut self, task: u32, cpu: u32, time: u64, what: &str, value: i64) -> io::Result<()> {
        self.begin(task, cpu, "....", time, "tracing_mark_write");
        let t = task as usize;
        let _ = write!(self.line, "C|{}|{what} ", self.tgid[t]);
        self.line.push_str(&self.comm[t]);
        let _ = write!(self.line, "|{value}");
        self.end()
    }

    fn set_idle(&mut self, cpu: u32, idle: bool, time: u64) -> io::Result<()> {
        let c = cpu as usize;
        if self.idle[c] == idle {
            return Ok(());
        }
        self.idle[c] = idle;
        self.begin(NIL, cpu, "d...", time, "cpu_idle");
        let _ = write!(self.line, "state={} cpu_id={cpu}", if idle { 0 } else { IDLE_EXIT });
        self.end()
    }

    /// The lines of one event's records.
    fn event(&mut self, time: u64, records: &[Record]) -> io::Result<()> {
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
                    self.touched[cpu as usize] = true;
                    self.begin(cur, cpu, "d...", time, "sched_wakeup_new");
                    self.task_args(task);
                    let _ = write!(self.line, " target_cpu={cpu:03}");
                    self.end()?;
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
                    let (waker, flags) = if actor != NIL { (actor, "d...") } else { (self.curr[waker_cpu as usize], "d.h.") };
                    self.touched[cpu as usize] = true;
                    if prev != cpu {
                        self.begin(waker, waker_cpu, flags, time, "sched_migrate_task");
                        self.task_args(task);
                        let _ = write!(self.line, " orig_cpu={prev} dest_cpu={cpu}");
                        self.end()?;
                    }
                    for ev in ["sched_waking", "sched_wakeup"] {
                        self.begin(waker, waker_cpu, flags, time, ev);
                        self.task_args(task);
                        let _ = write!(self.line, " target_cpu={cpu:03}");
                        self.end()?;
                    }
                }
                Record::Migrate { task, from, to } => {
                    let cur = self.curr[to as usize];
                    self.touched[from as usize] = true;
                    self.touched[to as usize] = true;
                    self.begin(cur, to, "d...", time, "sched_migrate_task");
                    self.task_args(task);
                    let _ = write!(self.line, " orig_cpu={from} dest_cpu={to}");
                    self.end()?;
                }
                Record::Exit { task, cpu } => {
                    exited = task;
                    self.begin(task, cpu, "....", time, "sched_process_exit");
                    self.task_args(task);
                    self.end()?;
                }
                Record::IdleExit { cpu, .. } => self.set_idle(cpu, false, time)?,
                Record::Pick { cpu, task, v, vruntime, .. } if self.counters => {
                    self.counter(COUNTER_OWNER, cpu, time, COUNTER_PID, format_args!("V cpu{cpu}"), v as i64)?;
                    if task != NIL {
                        self.task_counter(task, cpu, time, "vruntime", vruntime as i64)?;
                        self.task_counter(task, cpu, time, "lag", v.wrapping_sub(vruntime) as i64)?;
                    }
                }
                Record::Switch { cpu, prev, next, voluntary } => {
                    let c = cpu as usize;
                    self.touched[c] = true;
                    if prev == NIL {
                        self.set_idle(cpu, false, time)?;
                    }
                    let state = if prev == NIL {
                        "R"
                    } else if prev == exited {
                        "X"
                    } else if voluntary {
                        "S"
                    } else if prev == yielded {
                        "R"
                    } else {
                        "R+"
                    };
                    let pp = if prev == NIL { 0 } else { self.pid[prev as usize] };
                    let np = if next == NIL { 0 } else { self.pid[next as usize] };
                    let ppr = if prev == NIL { 120 } else { self.prio[prev as usize] };
                    let npr = if next == NIL { 120 } else { self.prio[next as usize] };
                    self.begin(prev, cpu, "d..2", time, "sched_switch");
                    self.line.push_str("prev_comm=");
                    self.push_comm(prev, cpu);
                    let _ = write!(self.line, " prev_pid={pp} prev_prio={ppr} prev_state={state} ==> next_comm=");
                    self.push_comm(next, cpu);
                    let _ = write!(self.line, " next_pid={np} next_prio={npr}");
                    self.end()?;
                    self.curr[c] = next;
                    if actor == prev {
                        actor = NIL;
                    }
                    if next == NIL {
                        self.set_idle(cpu, true, time)?;
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The CPU `task` is running on, if it runs.
    fn curr_cpu_of(&self, task: u32) -> Option<u32> {
        self.curr.iter().position(|&t| t == task).map(|c| c as u32)
    }

    /// nr_running and util_avg of the CPUs the last event touched, when
    /// they changed.
    fn sample(&mut self, time: u64, s: &Sched) -> io::Result<()> {
        if !self.counters {
            self.touched.iter_mut().for_each(|t| *t = false);
            return Ok(());
        }
        for c in 0..self.touched.len() {
            if !std::mem::take(&mut self.touched[c]) {
                continue;
            }
            let rq = &s.rqs[c];
            let cpu = c as u32;
            if rq.nr_running != self.last_nr[c] {
                self.last_nr[c] = rq.nr_running;
                self.counter(COUNTER_OWNER, cpu, time, COUNTER_PID, format_args!("nr_running cpu{cpu}"), rq.nr_running as i64)?;
            }
            let util = s.cfs_rqs[rq.cfs as usize].avg.util_avg;
            if util != self.last_util[c] {
                self.last_util[c] = util;
                self.counter(COUNTER_OWNER, cpu, time, COUNTER_PID, format_args!("util_avg cpu{cpu}"), util as i64)?;
            }
        }
        Ok(())
    }
}

