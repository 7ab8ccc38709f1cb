//! The scheduler state and the core.c paths around the fair class:
//! try_to_wake_up(), __schedule(), sched_tick(), set_user_nice(),
//! sched_setattr(), sched_yield(), exit.
//!
//! `Sched` owns all scheduler state as plain data in arenas indexed by ids
//! (entities, tree nodes, cfs_rqs, run queues, tasks), so that a checkpoint
//! is a `clone()`. It knows nothing of programs or the event queue: the
//! simulation drives it and reads the records it leaves in `records`.

use crate::cfs_rq::CfsRq;
use crate::entity::SchedEntity;
use crate::fair::*;
use crate::features::Features;
use crate::hist::Hist;
use crate::kernel::Tunables;
use crate::pick::{PickStats, PickTrace};
use crate::rbtree::{RbNode, NIL};
use crate::trace::{Cause, Record};
use crate::weight::LoadWeight;

pub use crate::scenario::Policy;

/// Where a task is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskState {
    /// Not created yet (its `start` is in the future).
    New,
    /// Queued, waiting for a CPU.
    Runnable,
    /// On a CPU.
    Running,
    /// Blocked (it may still be queued as a delayed entity).
    Sleeping,
    Exited,
}

/// Per-task scheduling statistics (what /proc/<pid>/sched and schedstat
/// report).
#[derive(Clone, Debug, Default)]
pub struct TaskStats {
    /// Voluntary context switches (`nvcsw`): the task blocked.
    pub nvcsw: u64,
    /// Involuntary context switches (`nivcsw`): preempted or yielded.
    pub nivcsw: u64,
    pub nr_migrations: u64,
    pub nr_wakeups: u64,
    /// Time spent runnable but waiting (schedstat `run_delay`).
    pub run_delay: u64,
    /// Wakeup latency: from try_to_wake_up() to running.
    pub wakeup_latency: Hist,
    /// Loop iterations the program completed (workload "ops").
    pub ops: u64,
}

/// A task: its entity, where it runs, and its program position.
#[derive(Clone, Debug)]
pub struct Task {
    pub se: u32,
    pub cpu: u32,
    pub state: TaskState,
    /// `task_on_rq_queued()`: queued, including a delayed dequeue.
    pub on_rq: bool,
    pub nice: i32,
    pub policy: Policy,
    /// When the task last became runnable (for latency and run_delay).
    pub runnable_since: u64,
    /// Set by a wakeup, cleared when the wakeup's latency was recorded.
    pub woken: bool,
    pub stats: TaskStats,
}

/// `struct rq`: one CPU.
#[derive(Clone, Debug)]
pub struct Rq {
    pub cpu: u32,
    /// The root cfs_rq of this CPU.
    pub cfs: u32,
    /// The running task, or NIL when idle.
    pub curr: u32,
    /// Tasks queued on this CPU (delayed ones included, as in the kernel).
    pub nr_running: u32,
    /// TIF_NEED_RESCHED on the running task.
    pub resched: bool,
    pub nr_switches: u64,
    /// Time with a task on the CPU / idle.
    pub busy_ns: u64,
    pub idle_ns: u64,
    /// When the CPU last changed between idle and busy.
    pub since: u64,
}

/// Which path a task leaves the CPU through in `__schedule()`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrevState {
    /// Still runnable: preemption or yield (counts as involuntary).
    Running,
    /// Going to sleep (voluntary).
    Blocking,
    /// do_exit().
    Exiting,
}

#[derive(Clone, Debug)]
pub struct Sched {
    pub ents: Vec<SchedEntity>,
    pub nodes: Vec<RbNode>,
    pub cfs_rqs: Vec<CfsRq>,
    pub rqs: Vec<Rq>,
    pub tasks: Vec<Task>,
    pub feat: Features,
    pub tun: Tunables,
    /// The clock: `rq_clock_task()` of every CPU (no irq time is modelled).
    pub now: u64,
    pub stats: PickStats,
    pub pick_trace: PickTrace,
    /// Decisions made during the current event (drained by the simulation).
    pub records: Vec<Record>,
    /// Side buffer for Pick records' paths (drained with `records`).
    pub paths: Vec<u32>,
    /// Whether to write records at all.
    pub tracing: bool,
    /// The root-level pick of the current `pick_task_fair()`.
    root_pick: Option<(u32, crate::trace::PickReason, u32, u16)>,
}

impl Sched {
    /// An empty machine with `cpus` run queues.
    pub fn new(cpus: u32, feat: Features, tun: Tunables) -> Sched {
        let cfs_rqs = (0..cpus).map(|c| CfsRq::new(c, NIL)).collect();
        let rqs = (0..cpus)
            .map(|c| Rq { cpu: c, cfs: c, curr: NIL, nr_running: 0, resched: false, nr_switches: 0, busy_ns: 0, idle_ns: 0, since: 0 })
            .collect();
        Sched {
            ents: Vec::new(),
            nodes: Vec::new(),
            cfs_rqs,
            rqs,
            tasks: Vec::new(),
            feat,
            tun,
            now: 0,
            stats: PickStats::default(),
            pick_trace: PickTrace::default(),
            records: Vec::with_capacity(64),
            paths: Vec::with_capacity(256),
            tracing: true,
            root_pick: None,
        }
    }

    /// Adds a task (not yet started) on `cpu`; returns its id. Mirrors
    /// `__sched_fork()` + `set_load_weight()`.
    pub fn add_task(&mut self, cpu: u32, nice: i32, policy: Policy, custom_slice: Option<u64>) -> u32 {
        let id = self.tasks.len() as u32;
        let se = self.ents.len() as u32;
        let idle = policy == Policy::Idle;
        let mut e = SchedEntity::new_task(id, LoadWeight::for_task(nice, idle), self.tun.base_slice, self.rqs[cpu as usize].cfs, idle);
        if let Some(slice) = custom_slice.filter(|_| self.feat.has(crate::features::Feature::CUSTOM_SLICE)) {
            e.custom_slice = true;
            e.slice = clamp_slice(slice);
        }
        self.ents.push(e);
        self.nodes.push(RbNode::detached());
        self.tasks.push(Task {
            se,
            cpu,
            state: TaskState::New,
            on_rq: false,
            nice,
            policy,
            runnable_since: 0,
            woken: false,
            stats: TaskStats::default(),
        });
        id
    }

    #[inline]
    pub(crate) fn trace(&mut self, r: Record) {
        if self.tracing {
            self.records.push(r);
        }
    }

    /// Mirrors `resched_curr()` (core.c): set need_resched once.
    pub(crate) fn resched_curr(&mut self, cpu: u32, cause: Cause) {
        let rq = &mut self.rqs[cpu as usize];
        if rq.resched {
            return;
        }
        rq.resched = true;
        let curr = rq.curr;
        self.trace(Record::Resched { cpu, curr, cause });
    }

    /// Remembers the root-level pick of `pick_task_fair()` with its path.
    pub(crate) fn note_root_pick(&mut self, _cpu: u32, _root: u32, se: u32) {
        if !self.tracing {
            return;
        }
        let start = self.paths.len() as u32;
        self.paths.extend_from_slice(self.pick_trace.path());
        self.root_pick = Some((se, self.pick_trace.reason, start, self.pick_trace.len as u16));
    }

    /// Counts time busy/idle up to now for a CPU about to change state.
    fn account_cpu(&mut self, cpu: u32) {
        let now = self.now;
        let rq = &mut self.rqs[cpu as usize];
        let dt = now - rq.since;
        if rq.curr == NIL {
            rq.idle_ns += dt;
        } else {
            rq.busy_ns += dt;
        }
        rq.since = now;
    }

    /// Mirrors `activate_task()` (core.c).
    fn activate_task(&mut self, cpu: u32, p: u32, flags: u32) {
        self.enqueue_task_fair(cpu, p, flags);
        let t = &mut self.tasks[p as usize];
        t.on_rq = true;
        t.state = TaskState::Runnable;
        t.runnable_since = self.now;
    }

    /// Mirrors `wake_up_new_task()` (core.c): a new task is enqueued with
    /// ENQUEUE_INITIAL (v6.12+; before, the fork-time placement was lost) and
    /// may preempt (WF_FORK).
    pub fn wake_up_new_task(&mut self, p: u32) {
        let cpu = self.tasks[p as usize].cpu;
        self.trace(Record::Fork { task: p, cpu });
        let flags = if self.feat.has(crate::features::Feature::INITIAL_ENQUEUE) { ENQUEUE_INITIAL } else { 0 };
        self.activate_task(cpu, p, flags);
        self.wakeup_preempt(cpu, p, WF_FORK);
    }

    /// Mirrors `try_to_wake_up()` (core.c, v6.18) for a task on `cpu`: a
    /// task still queued as delayed is requeued where it is
    /// (`ttwu_runnable()`, no CPU selection); otherwise it is enqueued with
    /// ENQUEUE_WAKEUP and may preempt.
    pub fn try_to_wake_up(&mut self, p: u32, wake_flags: u32) {
        let t = &self.tasks[p as usize];
        if t.state != TaskState::Sleeping {
            return;
        }
        let cpu = t.cpu;
        let delayed = t.on_rq;
        self.trace(Record::Wakeup { task: p, cpu, delayed });
        let t = &mut self.tasks[p as usize];
        t.stats.nr_wakeups += 1;
        t.woken = true;
        if delayed {
            self.enqueue_task_fair(cpu, p, ENQUEUE_DELAYED);
            let t = &mut self.tasks[p as usize];
            t.state = TaskState::Runnable;
            t.runnable_since = self.now;
            if self.rqs[cpu as usize].curr != p {
                self.wakeup_preempt(cpu, p, wake_flags);
            }
            return;
        }
        self.activate_task(cpu, p, ENQUEUE_WAKEUP);
        self.wakeup_preempt(cpu, p, wake_flags | WF_TTWU);
    }

    /// Mirrors `wakeup_preempt()` (core.c): a fair task always preempts the
    /// idle task; against a fair task the class decides.
    fn wakeup_preempt(&mut self, cpu: u32, p: u32, wake_flags: u32) {
        if self.rqs[cpu as usize].curr == NIL {
            self.resched_curr(cpu, Cause::IdleCpu { wakee: p });
        } else {
            self.check_preempt_wakeup_fair(cpu, p, wake_flags);
        }
    }

    /// Mirrors `__schedule()` (core.c, v6.18): block the outgoing task if it
    /// sleeps, pick the next one, and switch. Returns the task now running
    /// (NIL: idle) and whether it changed.
    pub fn schedule(&mut self, cpu: u32, prev_state: PrevState) -> (u32, bool) {
        let prev = self.rqs[cpu as usize].curr;
        if prev != NIL && prev_state != PrevState::Running {
            // try_to_block_task() → block_task(): a delayed dequeue leaves
            // the task queued (p->on_rq stays 1).
            let dequeued = self.dequeue_task_fair(cpu, prev, p_se_flags(prev_state));
            let t = &mut self.tasks[prev as usize];
            if dequeued {
                t.on_rq = false;
            }
            t.state = if prev_state == PrevState::Exiting { TaskState::Exited } else { TaskState::Sleeping };
            let rec = if prev_state == PrevState::Exiting {
                Record::Exit { task: prev, cpu }
            } else {
                Record::Block { task: prev, cpu, delayed: !dequeued }
            };
            self.trace(rec);
        }
        self.rqs[cpu as usize].resched = false;
        self.root_pick = None;
        let next = self.pick_next_task_fair(cpu, prev);
        self.trace_pick(cpu, next);

        if next == prev {
            return (next, false);
        }
        self.account_cpu(cpu);
        self.rqs[cpu as usize].nr_switches += 1;
        if prev != NIL {
            let t = &mut self.tasks[prev as usize];
            if prev_state == PrevState::Running {
                t.stats.nivcsw += 1;
                t.state = TaskState::Runnable;
                t.runnable_since = self.now;
            } else {
                t.stats.nvcsw += 1;
            }
            if prev_state == PrevState::Exiting && t.on_rq {
                // task_dead_fair(): a dead task still delayed is dequeued now.
                let se = t.se;
                self.dequeue_entities(cpu, se, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
            }
        }
        self.trace(Record::Switch { cpu, prev, next, voluntary: prev_state != PrevState::Running });
        self.rqs[cpu as usize].curr = next;
        if next != NIL {
            let now = self.now;
            let t = &mut self.tasks[next as usize];
            t.state = TaskState::Running;
            t.stats.run_delay += now - t.runnable_since;
            if t.woken {
                t.woken = false;
                t.stats.wakeup_latency.record(now - t.runnable_since);
            }
        }
        (next, true)
    }

    fn trace_pick(&mut self, cpu: u32, next: u32) {
        if !self.tracing {
            return;
        }
        let q = self.rqs[cpu as usize].cfs;
        let v = self.avg_vruntime(q);
        let (reason, start, len) = match self.root_pick {
            Some((_, reason, start, len)) => (reason, start, len),
            None => (crate::trace::PickReason::Single, self.paths.len() as u32, 0),
        };
        let (vruntime, deadline) = if next == NIL {
            (0, 0)
        } else {
            let e = &self.ents[self.tasks[next as usize].se as usize];
            (e.vruntime, e.deadline)
        };
        self.records.push(Record::Pick { cpu, task: next, reason, path_start: start, path_len: len, v, vruntime, deadline });
    }

    /// Mirrors `sched_tick()` → `task_tick_fair()` (core.c/fair.c, v6.18).
    pub fn sched_tick(&mut self, cpu: u32) {
        self.trace(Record::Tick { cpu });
        let curr = self.rqs[cpu as usize].curr;
        if curr != NIL {
            self.task_tick_fair(curr);
        }
    }

    /// Mirrors `do_sched_yield()` (core.c): `yield_task_fair()`; the caller
    /// then calls schedule().
    pub fn sched_yield(&mut self, cpu: u32) {
        let curr = self.rqs[cpu as usize].curr;
        self.trace(Record::Yield { task: curr, cpu });
        self.yield_task_fair(cpu, curr);
    }

    /// Mirrors `set_user_nice()` (core.c, v6.18) for the running task:
    /// dequeue (DEQUEUE_SAVE) and put, reweight while off the queue — so
    /// the lag is rescaled, not the vruntime — enqueue (ENQUEUE_RESTORE) and
    /// set it again (which restarts its slice protection), then
    /// `prio_changed_fair()`: a running task whose priority dropped is
    /// rescheduled.
    pub fn set_user_nice(&mut self, p: u32, nice: i32) {
        let nice = nice.clamp(-20, 19);
        self.trace(Record::Nice { task: p, nice });
        let old = self.tasks[p as usize].nice;
        let idle = self.tasks[p as usize].policy == Policy::Idle;
        self.change_task(p, DEQUEUE_SAVE, ENQUEUE_RESTORE, |s, se| {
            let q = s.ents[se as usize].cfs_rq;
            s.reweight_entity(q, se, LoadWeight::for_task(nice, idle));
        });
        self.tasks[p as usize].nice = nice;
        let cpu = self.tasks[p as usize].cpu;
        let root = self.rqs[cpu as usize].cfs;
        if self.cfs_rqs[root as usize].nr_queued == 1 {
            return;
        }
        if self.rqs[cpu as usize].curr == p {
            if nice > old {
                self.resched_curr(cpu, Cause::PrioChanged);
            }
        } else {
            self.wakeup_preempt(cpu, p, 0);
        }
    }

    /// Mirrors `sched_setattr()` with `sched_runtime` for a fair task
    /// (`__setparam_fair()`, v6.12+): a custom slice, clamped to
    /// 0.1–100 ms; 0 returns to the base slice. The task is dequeued
    /// (SAVE|MOVE) and enqueued again around the change. Without custom
    /// slices (v6.6) the request is ignored, as the kernel ignores it.
    pub fn set_slice(&mut self, p: u32, slice: Option<u64>) {
        let applied = self.feat.has(crate::features::Feature::CUSTOM_SLICE);
        self.trace(Record::Slice { task: p, slice: slice.unwrap_or(0), applied });
        if !applied {
            return;
        }
        let base = self.tun.base_slice;
        self.change_task(p, DEQUEUE_SAVE | DEQUEUE_MOVE, ENQUEUE_RESTORE | ENQUEUE_MOVE, |s, se| {
            let e = &mut s.ents[se as usize];
            match slice {
                Some(v) => {
                    e.custom_slice = true;
                    e.slice = clamp_slice(v);
                }
                None => {
                    e.custom_slice = false;
                    e.slice = base;
                }
            }
        });
    }

    /// The `sched_change` pattern of core.c: take a task off its queue (and
    /// CPU), change it, put it back.
    fn change_task(&mut self, p: u32, dq: u32, enq: u32, change: impl FnOnce(&mut Sched, u32)) {
        let cpu = self.tasks[p as usize].cpu;
        let queued = self.tasks[p as usize].on_rq;
        let running = self.rqs[cpu as usize].curr == p;
        if queued {
            self.dequeue_task_fair(cpu, p, dq);
        }
        if running {
            self.put_prev_task_fair(p);
        }
        let se = self.tasks[p as usize].se;
        change(self, se);
        if queued {
            self.enqueue_task_fair(cpu, p, enq);
        }
        if running {
            self.set_next_task_fair(p);
        }
    }

    /// Advances the clock, charging busy/idle time at the next state change.
    pub fn set_now(&mut self, now: u64) {
        debug_assert!(now >= self.now);
        self.now = now;
    }

    /// Finishes CPU accounting at the end of a run.
    pub fn finish_accounting(&mut self) {
        for cpu in 0..self.rqs.len() as u32 {
            self.account_cpu(cpu);
            let curr = self.rqs[cpu as usize].curr;
            if curr != NIL {
                let q = self.ents[self.tasks[curr as usize].se as usize].cfs_rq;
                let tracing = self.tracing;
                self.tracing = false;
                self.update_curr(q);
                self.tracing = tracing;
            }
        }
    }
}

/// The `__setparam_fair()` clamp of a requested slice: 0.1 ms – 100 ms.
pub fn clamp_slice(v: u64) -> u64 {
    v.clamp(100_000, 100_000_000)
}

fn p_se_flags(prev_state: PrevState) -> u32 {
    match prev_state {
        PrevState::Running => 0,
        PrevState::Blocking | PrevState::Exiting => DEQUEUE_SLEEP,
    }
}
