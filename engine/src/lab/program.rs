//! Task programs, compiled from the scenario's statement tree into a flat
//! instruction list so that running them never allocates.

use crate::lab::rng::Rng;
use crate::lab::scenario::{Dur, Stmt, StmtKind};

/// Deepest loop nesting a program may have (the parser enforces it too).
pub const MAX_DEPTH: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Instr {
    Run(Dur),
    RunForever,
    Sleep(Dur),
    Yield,
    Nice(i32),
    Slice(Option<u64>),
    Exit,
    /// Start of a loop body; `end` is the index of the matching `EndLoop`.
    Loop { count: Option<u64>, end: u32 },
    EndLoop { start: u32 },
    Send { ch: u32, n: u32 },
    Recv { ch: u32, n: u32 },
    Wake { task: u32 },
    Wait,
    FutexWake { task: u32 },
    FutexWait(Option<Dur>),
    Call { task: u32 },
    Reply,
}

/// A compiled program.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    pub code: Vec<Instr>,
    /// The deepest loop nesting: how many loop counters a cursor needs.
    pub depth: usize,
}

/// A name in a program that does not resolve, with where it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unresolved {
    pub what: String,
    pub pos: crate::lab::scenario::Pos,
}

/// Resolves channel and task names to ids while compiling.
pub trait Names {
    fn channel(&mut self, name: &str) -> u32;
    fn task(&self, name: &str) -> Option<u32>;
}

impl Program {
    /// Compiles a statement tree. `channel_op` (ns, `costs.channel_op`) is
    /// the system call behind each send and recv: it becomes a `run` before
    /// every send (pipe_write() copies, then wakes) and after every recv
    /// (pipe_read() copies once there is something to read); 0 adds none.
    pub fn compile(stmts: &[Stmt], names: &mut dyn Names, channel_op: u64) -> Result<Program, Unresolved> {
        let mut p = Program::default();
        p.emit(stmts, names, channel_op)?;
        let mut open: usize = 0;
        for i in &p.code {
            match i {
                Instr::Loop { .. } => {
                    open += 1;
                    p.depth = p.depth.max(open);
                }
                Instr::EndLoop { .. } => open -= 1,
                _ => {}
            }
        }
        Ok(p)
    }

    fn emit(&mut self, stmts: &[Stmt], names: &mut dyn Names, channel_op: u64) -> Result<(), Unresolved> {
        let syscall = (channel_op > 0).then_some(Instr::Run(Dur::Fixed(channel_op)));
        for s in stmts {
            let instr = match &s.kind {
                StmtKind::Run(d) => Instr::Run(*d),
                StmtKind::RunForever => Instr::RunForever,
                StmtKind::Sleep(d) => Instr::Sleep(*d),
                StmtKind::Yield => Instr::Yield,
                StmtKind::Nice(n) => Instr::Nice(*n),
                StmtKind::Slice(v) => Instr::Slice(*v),
                StmtKind::Exit => Instr::Exit,
                StmtKind::Loop { count, body } => {
                    let start = self.code.len() as u32;
                    self.code.push(Instr::Loop { count: *count, end: 0 });
                    self.emit(body, names, channel_op)?;
                    let end = self.code.len() as u32;
                    self.code.push(Instr::EndLoop { start });
                    self.code[start as usize] = Instr::Loop { count: *count, end };
                    continue;
                }
                StmtKind::Send { chan, n } => {
                    self.code.extend(syscall);
                    Instr::Send { ch: names.channel(chan), n: *n }
                }
                StmtKind::Recv { chan, n } => {
                    self.code.push(Instr::Recv { ch: names.channel(chan), n: *n });
                    self.code.extend(syscall);
                    continue;
                }
                StmtKind::Wake(t) => match names.task(t) {
                    Some(task) => Instr::Wake { task },
                    None => return Err(Unresolved { what: format!("wake: no task named `{t}`"), pos: s.pos }),
                },
                StmtKind::Wait => Instr::Wait,
                StmtKind::FutexWake(t) => match names.task(t) {
                    Some(task) => Instr::FutexWake { task },
                    None => return Err(Unresolved { what: format!("futex_wake: no task named `{t}`"), pos: s.pos }),
                },
                StmtKind::FutexWait(d) => Instr::FutexWait(*d),
                StmtKind::Call(t) => match names.task(t) {
                    Some(task) => Instr::Call { task },
                    None => return Err(Unresolved { what: format!("call: no task named `{t}`"), pos: s.pos }),
                },
                StmtKind::Reply => Instr::Reply,
            };
            self.code.push(instr);
        }
        Ok(())
    }
}

/// Where a task is in its program: 32 bytes, read at nearly every event
/// of the task. The iterations left per open loop (u64::MAX: forever)
/// live apart, in a slice of `Program::depth` counters the caller keeps
/// (only loop ends touch them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cursor {
    /// `sum_exec_runtime` at which the current `run` ends (u64::MAX: never);
    /// None when the task is not inside a `run`.
    pub burst_end: Option<u64>,
    pub pc: u32,
    /// Messages still to move by the send/recv in progress (it blocked).
    pub io_left: u32,
    /// Loops open (indexes the loop counters).
    pub depth: u8,
    /// Blocked in a `call`, waiting for the reply.
    pub in_call: bool,
    /// The last `futex_wait` ended by its timeout: the iteration of the
    /// outermost loop it is in does not count as an operation (stress-ng's
    /// futex stressor counts only the waits a wake ended).
    pub timed_out: bool,
}

/// What a task does next, as far as the scheduler is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Run on the CPU until `sum_exec_runtime` reaches this value.
    Burst(u64),
    Sleep(u64),
    Yield,
    Nice(i32),
    Slice(Option<u64>),
    Exit,
    Send { ch: u32, n: u32 },
    Recv { ch: u32, n: u32 },
    Wake { task: u32 },
    Wait,
    FutexWake { task: u32 },
    /// Block until a `futex_wake`, or at most this long (relative, before
    /// the timer slack).
    FutexWait(Option<u64>),
    Call { task: u32 },
    Reply,
}

/// Samples a duration.
pub fn sample(d: Dur, rng: &mut Rng) -> u64 {
    match d {
        Dur::Fixed(v) => v,
        Dur::Exp { mean } => rng.exp(mean),
        Dur::Uniform { lo, hi } => rng.uniform(lo, hi),
    }
}

impl Cursor {
    /// Advances to the next statement that involves the scheduler and
    /// returns it. `left` holds the cursor's loop counters (at least
    /// `prog.depth`); `exec` is the task's CPU time now; `ops` counts
    /// completed iterations of outermost loops. Returns None when more than
    /// `budget` instructions ran without an action (a program that never
    /// yields time).
    pub fn next(&mut self, prog: &Program, left: &mut [u64], exec: u64, rng: &mut Rng, ops: &mut u64, budget: u32) -> Option<Action> {
        for _ in 0..budget {
            let Some(&instr) = prog.code.get(self.pc as usize) else {
                return Some(Action::Exit);
            };
            self.pc += 1;
            match instr {
                Instr::Run(d) => {
                    let end = exec.saturating_add(sample(d, rng));
                    self.burst_end = Some(end);
                    return Some(Action::Burst(end));
                }
                Instr::RunForever => {
                    self.burst_end = Some(u64::MAX);
                    return Some(Action::Burst(u64::MAX));
                }
                Instr::Sleep(d) => return Some(Action::Sleep(sample(d, rng))),
                Instr::Yield => return Some(Action::Yield),
                Instr::Nice(n) => return Some(Action::Nice(n)),
                Instr::Slice(v) => return Some(Action::Slice(v)),
                Instr::Exit => {
                    self.pc = prog.code.len() as u32;
                    return Some(Action::Exit);
                }
                Instr::Send { ch, n } => return Some(Action::Send { ch, n }),
                Instr::Recv { ch, n } => return Some(Action::Recv { ch, n }),
                Instr::Wake { task } => return Some(Action::Wake { task }),
                Instr::Wait => return Some(Action::Wait),
                Instr::FutexWake { task } => return Some(Action::FutexWake { task }),
                Instr::FutexWait(d) => return Some(Action::FutexWait(d.map(|d| sample(d, rng)))),
                Instr::Call { task } => return Some(Action::Call { task }),
                Instr::Reply => return Some(Action::Reply),
                Instr::Loop { count, end } => {
                    let n = count.unwrap_or(u64::MAX);
                    if n == 0 {
                        self.pc = end + 1;
                    } else {
                        left[self.depth as usize] = n;
                        self.depth += 1;
                    }
                }
                Instr::EndLoop { start } => {
                    let top = &mut left[self.depth as usize - 1];
                    if self.depth == 1 && !std::mem::take(&mut self.timed_out) {
                        *ops += 1;
                    }
                    if *top != u64::MAX {
                        *top -= 1;
                    }
                    if *top > 0 {
                        self.pc = start + 1;
                    } else {
                        self.depth -= 1;
                    }
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lab::scenario::{parse_program, Pos};

    struct NoNames;
    impl Names for NoNames {
        fn channel(&mut self, _: &str) -> u32 {
            0
        }
        fn task(&self, _: &str) -> Option<u32> {
            None
        }
    }

    fn compile(code: &str) -> Program {
        Program::compile(&parse_program(code, Pos::START).unwrap().stmts, &mut NoNames, 0).unwrap()
    }

    #[test]
    fn a_program_knows_its_deepest_loop_nesting() {
        assert_eq!(compile("run").depth, 0);
        assert_eq!(compile("loop { run 1ms; sleep 1ms }").depth, 1);
        // Two loops one after the other need one counter; one inside
        // another, two.
        assert_eq!(compile("loop 2 { run 1ms }; loop 3 { sleep 1ms }").depth, 1);
        assert_eq!(compile("loop { loop 3 { run 1ms }; sleep 1ms }").depth, 2);
    }

    /// The loop counters live in the caller's slice: nested counts run out
    /// as written (2 × 3 inner bursts, then the program ends).
    #[test]
    fn nested_loops_count_in_the_callers_counters() {
        let p = compile("loop 2 { loop 3 { run 1ms }; sleep 1ms }");
        let (mut c, mut left, mut rng, mut ops) = (Cursor::default(), vec![0; p.depth], Rng::new(1), 0);
        let mut actions = Vec::new();
        let mut exec = 0;
        loop {
            match c.next(&p, &mut left, exec, &mut rng, &mut ops, 100).unwrap() {
                Action::Exit => break,
                Action::Burst(end) => {
                    exec = end;
                    actions.push('r');
                }
                Action::Sleep(_) => actions.push('s'),
                a => panic!("{a:?}"),
            }
        }
        assert_eq!(actions.iter().collect::<String>(), "rrrsrrrs");
        assert_eq!(ops, 2);
    }
}
