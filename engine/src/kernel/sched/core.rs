//! The scheduler state and the core.c paths around the fair class:
//! try_to_wake_up(), __schedule(), sched_tick(), set_user_nice(),
//! sched_setattr(), sched_yield(), exit.
//!
//! `Sched` owns all scheduler state as plain data in arenas indexed by ids
//! (entities, tree nodes, cfs_rqs, run queues, tasks), so that a checkpoint
//! is a `clone()`. It knows nothing of programs or the event queue: the
//! simulation drives it and reads the records it leaves in `records`.

use std::rc::Rc;

use crate::kernel::sched::cfs_rq::CfsRq;
use crate::kernel::lib::cpumask::CpuMask;
use crate::kernel::lib::prandom::RndState;
use crate::kernel::sched::entity::SchedEntity;
use crate::kernel::sched::fair::*;
use crate::kernel::sched::features::Features;
use crate::lab::trace::hist::{Hist, Plat, Samples};
use crate::kernel::sched::presets::Tunables;
use crate::kernel::sched::pick::{PickStats, PickTrace};
use crate::kernel::sched::balance::DomainState;
use crate::kernel::lib::rbtree::{RbNode, NIL};
use crate::kernel::sched::select::{LlcShared, ScanTrace, SisStats};
use crate::kernel::sched::topology::Topology;
use crate::lab::trace::{Cause, Record};
use crate::kernel::sched::weight::LoadWeight;

/// A fair-class scheduling policy (`SCHED_NORMAL`, `SCHED_BATCH`,
/// `SCHED_IDLE`, include/uapi/linux/sched.h).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    Normal,
    Batch,
    Idle,
}

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
    /// Woken onto an idle CPU's wake list, to be enqueued when that CPU has
    /// left its idle state (TASK_WAKING until `sched_ttwu_pending()`).
    Waking,
    Exited,
}

/// How many wakeup latencies are batched before they are recorded.
pub const LAT_BATCH: usize = 1024;

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
    /// Wakeup latency: from try_to_wake_up() to running (read it through
    /// `Sched::wakeup_latency`: the newest samples may still be batched).
    pub wakeup_latency: Hist,
    /// The same for only the wake-ups that ended a `call` (its target's
    /// `reply`): the wake-up schbench times in msg_and_wait(), not the one
    /// from its usleep() (read it through `Sched::reply_latency`).
    pub reply_latency: Hist,
    /// The same wake-ups in schbench's own histogram (µs), for the figure
    /// schbench prints (read it through `Sched::reply_plat`).
    pub reply_plat: Plat,
    /// Loop iterations the program completed (workload "ops").
    pub ops: u64,
    /// `futex_wait`s that ended by their timeout (ETIMEDOUT).
    pub futex_timeouts: u64,
    /// Request latency: from a `call` returning to the next `call` (the
    /// work done per request, as schbench measures it).
    pub request_latency: Hist,
    /// The same in schbench's own histogram (its request_stats).
    pub request_plat: Plat,
    /// When the last `call` returned (None before the first).
    pub call_returned: Option<u64>,
}

/// What a waker remembers of its wakees (`wakee_flips`, `last_wakee`,
/// `wakee_flip_decay_ts` of task_struct), for wake_wide().
#[derive(Clone, Copy, Debug, Default)]
pub struct Waker {
    pub wakee_flips: u32,
    pub wakee_flip_decay_ts: u64,
    pub last_wakee: u32,
}

/// A task: its entity, where it runs, and its program position.
#[derive(Clone, Debug)]
pub struct Task {
    pub se: u32,
    pub cpu: u32,
    /// `p->cpus_ptr` (shared by the instances of one scenario task).
    pub affinity: Rc<CpuMask>,
    pub nr_cpus_allowed: u32,
    /// `p->recent_used_cpu` (NIL: none yet).
    pub recent_used_cpu: u32,
    pub waker: Waker,
    /// CPU time the task owes before its program moves on: context-switch,
    /// migration (cache refill) and wakeup-scan costs.
    pub overhead: u64,
    /// The task's group (NIL: root).
    pub tg: u32,
    /// The seed 003 reply's "wants to be wakeup-preempted" hint.
    pub want_preempt: bool,
    /// The futex-like wake word (`wake` before `wait`), whether the task
    /// blocks in `wait`, and the callers waiting for its `reply`.
    pub wake_pending: bool,
    pub waiting: bool,
    /// Counts the task's `futex_wait`s, so that the timeout of one that a
    /// wake already ended is told from the timeout of the current one.
    pub futex_seq: u32,
    pub requests: Vec<u32>,
    /// The address space: switching between tasks of one process (threads)
    /// skips the mm switch and costs `cost_thread_switch`.
    pub mm: u32,
    /// Links in its CPU's `cfs_tasks` list (most recently used first).
    pub lru_prev: u32,
    pub lru_next: u32,
    pub state: TaskState,
    /// `task_on_rq_queued()`: queued, including a delayed dequeue.
    pub on_rq: bool,
    pub nice: i32,
    pub policy: Policy,
    /// When the task last became runnable: enqueued (for run_delay).
    pub runnable_since: u64,
    /// When it was last woken (try_to_wake_up(), for its wake-up latency);
    /// before `runnable_since` when it waited on a wake list.
    pub woken_at: u64,
    /// The enqueue flags its activation from a wake list takes
    /// (ENQUEUE_MIGRATED when placed on another CPU: `sched_remote_wakeup`).
    pub wake_enqueue: u32,
    /// Set by a wakeup, cleared when the wakeup's latency was recorded.
    pub woken: bool,
    /// The pending wakeup is a `reply` ending the task's `call`.
    pub woken_by_reply: bool,
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
    /// The idle task's wakee bookkeeping (timer wakeups on an idle CPU).
    pub idle_waker: Waker,
    /// When the CPU last went idle (0: busy since; `rq->idle_stamp`).
    pub idle_stamp: u64,
    /// `rq->avg_idle`: average idle period, capped at 2·max_idle_balance_cost.
    pub avg_idle: u64,
    /// SIS_PROP: predicted idle time left, halved per jiffy since wake_stamp.
    pub wake_avg_idle: u64,
    pub wake_stamp: u64,
    /// `rq->max_idle_balance_cost`.
    pub max_idle_balance_cost: u64,
    /// `rq->next_balance`, in jiffies.
    pub next_balance: u64,
    /// `rq->cfs_tasks`: head (most recent) and tail of the task list.
    pub cfs_tasks_head: u32,
    pub cfs_tasks_tail: u32,
    /// Active balance: push the running task to this CPU once preempted.
    pub push_cpu: u32,
    /// RQCF_REQ_SKIP: a wake-up found the running task due to be
    /// preempted, so the next __schedule() will not read the clock
    /// (`rq_clock_skip_update()`).
    pub clock_skip: bool,
    /// CPU time the running task spent since then, which the kernel
    /// therefore charges to the task switched in next (`Sched::wake_cost`).
    pub clock_skipped: u64,
    /// Tasks woken onto this idle CPU, in wake order, not yet enqueued
    /// (`rq->wake_list`; `rq->ttwu_pending` while not empty).
    pub wake_list: Vec<u32>,
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
    pub topo: Rc<Topology>,
    /// Task groups (cgroups); the root group is implicit (NIL).
    pub groups: Vec<crate::kernel::sched::group::TaskGroup>,
    /// Message channels.
    pub chans: Vec<crate::kernel::chan::Channel>,
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
    /// Whether records keep their paths (the nodes a pick walked, the CPUs
    /// a scan visited) in `paths`: only a kept log reads them, and no hash
    /// covers them (a Placement's scan length is counted either way).
    pub keep_paths: bool,
    /// The root-level pick of the current `pick_task_fair()`.
    root_pick: Option<(u32, crate::lab::trace::PickReason, u32, u16)>,
    /// Per LLC: `sched_domain_shared`.
    pub llc: Vec<LlcShared>,
    /// Per CPU and domain level: the balancer's state.
    pub sd: Vec<Vec<DomainState>>,
    /// Per CPU: `sched_rnd_state`, the generator behind `sched_rng()`
    /// (NI_RANDOM's die), seeded by `seed_sched_rng()`.
    pub sched_rng: Vec<RndState>,
    pub sis: SisStats,
    /// The scan of the placement in progress.
    pub scan: ScanTrace,
    /// The CPU a wakeup or fork is being placed from.
    pub(crate) waking_cpu: u32,
    /// Scan cost accumulated by the placement in progress.
    pub(crate) scan_cost_pending: u64,
    pub balance_stats: crate::kernel::sched::balance::BalanceStats,
    /// CPUs asked to reschedule during the current event, in order; the
    /// simulation runs each of them.
    pub kicked: Vec<u32>,
    /// Wakeup latencies not yet in their tasks' histograms, with whether a
    /// `reply` woke the task: recorded in batches (see `flush_latencies`).
    pub lat_pending: Vec<(u32, u64, bool)>,
    /// Scratch for select_idle_cpu() (the kernel's `select_rq_mask`).
    pub(crate) select_mask: CpuMask,
    /// CPUs with more than one task queued (`rd->overloaded` is
    /// `nr_overloaded > 0`).
    pub nr_overloaded: u32,
    /// The CPUs available_idle_cpu() finds idle (nothing running, nothing
    /// queued), kept beside `rq.curr` and `rq.nr_running` wherever they
    /// change, so that a wakeup's scan of a large LLC tests one bit per
    /// CPU instead of reading each CPU's run queue (the scan was 35 % of
    /// a 256-CPU run's time, `perf record`).
    pub idle_mask: CpuMask,
    /// SCHED_IDLE tasks and idle groups: while there is none, no CPU can
    /// be sched_idle_cpu() and the scan need not look at its queue.
    pub idle_entities: u32,
    /// Idle CPUs (tickless: `nohz.nr_cpus`).
    pub nr_idle_cpus: u32,
    /// `nohz.next_balance`: the earliest balance due among idle CPUs.
    pub nohz_next_balance: u64,
}

impl Sched {
    /// Seeds CPU `cpu`'s `sched_rng()` (the kernel: get_random_bytes() at
    /// boot, in sched_init_smp()).
    pub fn seed_sched_rng(&mut self, cpu: u32, seeds: [u32; 4]) {
        self.sched_rng[cpu as usize] = RndState::seeded(seeds);
    }

    /// An empty machine: one run queue per CPU of the topology.
    pub fn new(topo: Rc<Topology>, feat: Features, tun: Tunables) -> Sched {
        let cpus = topo.nr_cpus();
        let exact = feat.has(crate::kernel::sched::features::Feature::EXACT_MIN_SLICE);
        let cfs_rqs = (0..cpus).map(|c| CfsRq::new(c, NIL, exact)).collect();
        let rqs = (0..cpus)
            .map(|c| Rq {
                cpu: c,
                cfs: c,
                curr: NIL,
                nr_running: 0,
                resched: false,
                nr_switches: 0,
                busy_ns: 0,
                idle_ns: 0,
                since: 0,
                idle_waker: Waker { last_wakee: NIL, ..Default::default() },
                // Every CPU went idle at boot (just after time 0).
                idle_stamp: 1,
                // init: avg_idle = 2·migration_cost, wake_avg_idle =
                // avg_idle, max_idle_balance_cost = migration_cost
                // (sched_init(), v5.15–v6.6).
                avg_idle: 2 * tun.migration_cost,
                wake_avg_idle: 2 * tun.migration_cost,
                wake_stamp: 0,
                max_idle_balance_cost: tun.migration_cost,
                next_balance: 0,
                cfs_tasks_head: NIL,
                cfs_tasks_tail: NIL,
                push_cpu: NIL,
                clock_skip: false,
                clock_skipped: 0,
                wake_list: Vec::new(),
            })
            .collect();
        let nr_llcs = topo.cpus.iter().map(|c| c.llc + 1).max().unwrap_or(1) as usize;
        // A run starts on a machine that has been up and idle: the last
        // LLC balance (update_idle_cpu_scan() with Σutil = 0) left SIS_UTIL's
        // budget at the whole LLC. (At boot it is 0 until the first LLC
        // balance, which comes only after sd_weight ms: 48 ms on a 48-CPU
        // LLC, so a short run would never scan.)
        let llc_weight = |l: usize| topo.cpus.iter().filter(|c| c.llc as usize == l).count() as u32;
        let llc = (0..nr_llcs)
            .map(|l| LlcShared {
                has_idle_cores: topo.threads_per_core > 1,
                nr_idle_scan: llc_weight(l),
                overloaded: CpuMask::new(cpus),
                avg_scan_cost: 0,
                nr_busy_cpus: 0,
            })
            .collect();
        let sd = topo.domains.iter().map(|doms| doms.iter().map(DomainState::new).collect()).collect();
        Sched {
            topo,
            groups: Vec::new(),
            chans: Vec::new(),
            llc,
            sd,
            sched_rng: (0..cpus).map(|c| RndState::seeded([c, 0, 0, 0])).collect(),
            sis: SisStats::default(),
            scan: ScanTrace::default(),
            waking_cpu: 0,
            scan_cost_pending: 0,
            balance_stats: Default::default(),
            kicked: Vec::with_capacity(16),
            lat_pending: Vec::with_capacity(LAT_BATCH),
            select_mask: CpuMask::new(cpus),
            nr_overloaded: 0,
            idle_mask: CpuMask::full(cpus),
            idle_entities: 0,
            nr_idle_cpus: cpus,
            nohz_next_balance: 0,
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
            keep_paths: true,
            root_pick: None,
        }
    }

    /// Adds a task (not yet started) that may run on `affinity`; returns
    /// its id. Mirrors `__sched_fork()` + `set_load_weight()`. It will be
    /// forked from the first CPU of its affinity.
    pub fn add_task(&mut self, affinity: Rc<CpuMask>, nice: i32, policy: Policy, custom_slice: Option<u64>) -> u32 {
        self.add_task_in(affinity, nice, policy, custom_slice, NIL)
    }

    /// `add_task()` into task group `tg` (NIL: the root group).
    pub fn add_task_in(&mut self, affinity: Rc<CpuMask>, nice: i32, policy: Policy, custom_slice: Option<u64>, tg: u32) -> u32 {
        let cpu = affinity.first();
        let id = self.tasks.len() as u32;
        let se = self.ents.len() as u32;
        let idle = policy == Policy::Idle;
        self.idle_entities += idle as u32;
        let (q, parent, depth) = self.group_queue(tg, cpu);
        let mut e = SchedEntity::new_task(id, LoadWeight::for_task(nice, idle), self.tun.base_slice, q, idle);
        e.parent = parent;
        e.depth = depth;
        if let Some(slice) = custom_slice.filter(|_| self.feat.has(crate::kernel::sched::features::Feature::CUSTOM_SLICE)) {
            e.custom_slice = true;
            e.slice = clamp_slice(slice);
        }
        self.ents.push(e);
        self.nodes.push(RbNode::detached());
        let nr_cpus_allowed = affinity.weight();
        self.tasks.push(Task {
            se,
            cpu,
            affinity,
            nr_cpus_allowed,
            recent_used_cpu: NIL,
            waker: Waker { last_wakee: NIL, ..Default::default() },
            overhead: 0,
            tg,
            want_preempt: false,
            wake_pending: false,
            waiting: false,
            futex_seq: 0,
            requests: Vec::new(),
            mm: id,
            lru_prev: NIL,
            lru_next: NIL,
            state: TaskState::New,
            on_rq: false,
            nice,
            policy,
            runnable_since: 0,
            woken_at: 0,
            wake_enqueue: 0,
            woken: false,
            woken_by_reply: false,
            stats: TaskStats::default(),
        });
        id
    }

    /// `jiffies`: ticks since boot.
    #[inline]
    pub fn jiffies(&self) -> u64 {
        self.now / self.tun.tick_nsec
    }

    /// The wakee bookkeeping of whatever runs on `cpu` (`current`).
    pub(crate) fn waker(&self, cpu: u32) -> &Waker {
        match self.rqs[cpu as usize].curr {
            NIL => &self.rqs[cpu as usize].idle_waker,
            t => &self.tasks[t as usize].waker,
        }
    }

    pub(crate) fn waker_mut(&mut self, cpu: u32) -> &mut Waker {
        match self.rqs[cpu as usize].curr {
            NIL => &mut self.rqs[cpu as usize].idle_waker,
            t => &mut self.tasks[t as usize].waker,
        }
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
        self.kicked.push(cpu);
        self.trace(Record::Resched { cpu, curr, cause });
    }

    /// Remembers the root-level pick of `pick_task_fair()` with its path.
    pub(crate) fn note_root_pick(&mut self, _cpu: u32, _root: u32, se: u32) {
        if !self.tracing {
            return;
        }
        let start = self.paths.len() as u32;
        if self.keep_paths {
            self.paths.extend_from_slice(self.pick_trace.path());
        }
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
    pub fn wake_up_new_task(&mut self, p: u32) -> u32 {
        let parent_cpu = self.tasks[p as usize].cpu;
        if !self.feat.has(crate::kernel::sched::features::Feature::EEVDF) {
            self.task_fork_fair(p, parent_cpu);
        }
        self.waking_cpu = parent_cpu;
        let (cpu, how) = self.select_task_rq(p, parent_cpu, WF_FORK, parent_cpu);
        self.set_task_rq(p, cpu);
        self.trace(Record::Fork { task: p, cpu });
        self.trace_placement(p, parent_cpu, parent_cpu, cpu, how);
        self.charge_scan(parent_cpu);
        let se = self.tasks[p as usize].se;
        self.post_init_entity_util_avg(cpu, se);
        let flags = if self.feat.has(crate::kernel::sched::features::Feature::INITIAL_ENQUEUE) { ENQUEUE_INITIAL } else { 0 };
        self.activate_task(cpu, p, flags);
        self.wakeup_preempt(cpu, p, WF_FORK);
        cpu
    }

    /// `set_task_rq()`: the task's entity now belongs to `cpu`'s queue.
    fn set_task_rq(&mut self, p: u32, cpu: u32) {
        self.tasks[p as usize].cpu = cpu;
        let (q, parent, depth) = self.group_queue(self.tasks[p as usize].tg, cpu);
        let se = self.tasks[p as usize].se;
        let e = &mut self.ents[se as usize];
        e.cfs_rq = q;
        e.parent = parent;
        e.depth = depth;
    }

    /// Mirrors `set_task_cpu()` → `migrate_task_rq_fair()` (core.c, fair.c,
    /// v6.18) for a task moving to another CPU: a sleeping task leaves its
    /// averages behind lazily (`remove_entity_load_avg()`), a queued one is
    /// detached by its dequeue; either way it attaches afresh on arrival.
    /// The first run on the new CPU pays the cache refill (`refill_cost`).
    pub(crate) fn set_task_cpu(&mut self, p: u32, cpu: u32, queued: bool) {
        let se = self.tasks[p as usize].se;
        let refill = self.refill_cost(self.tasks[p as usize].cpu, cpu);
        if !queued {
            self.remove_entity_load_avg(se);
            if !self.feat.has(crate::kernel::sched::features::Feature::EEVDF) {
                // migrate_task_rq_fair() (v5.15): a waking task carries its
                // vruntime relative to the old queue's min_vruntime.
                let q = self.ents[se as usize].cfs_rq;
                let m = self.cfs_rqs[q as usize].min_vruntime;
                let e = &mut self.ents[se as usize];
                e.vruntime = e.vruntime.wrapping_sub(m);
            }
        }
        self.ents[se as usize].avg.last_update_time = 0;
        self.set_task_rq(p, cpu);
        let t = &mut self.tasks[p as usize];
        t.stats.nr_migrations += 1;
        t.overhead += refill;
    }

    /// What a task's first run after a move from `from` to `to` spends
    /// refilling its caches: nothing from an SMT sibling (L1 and L2 are
    /// the core's), `costs.migration_llc` within one LLC (L1 and L2 from
    /// the shared L3), `costs.migration` across LLCs (cache-cold).
    fn refill_cost(&self, from: u32, to: u32) -> u64 {
        let (a, b) = (&self.topo.cpus[from as usize], &self.topo.cpus[to as usize]);
        if a.core == b.core {
            0
        } else if a.llc == b.llc {
            self.tun.cost_migration_llc
        } else {
            self.tun.cost_migration
        }
    }

    /// A CPU enters or leaves idle: the NOHZ and LLC bookkeeping
    /// (`nohz_balance_enter_idle()`, `set_cpu_sd_state_idle/busy()`).
    fn idle_transition(&mut self, cpu: u32, to_idle: bool) {
        let llc = self.topo.cpus[cpu as usize].llc as usize;
        if to_idle {
            self.nr_idle_cpus += 1;
            self.llc[llc].nr_busy_cpus -= 1;
            self.nohz_next_balance = self.nohz_next_balance.min(self.rqs[cpu as usize].next_balance);
        } else {
            self.nr_idle_cpus -= 1;
            self.llc[llc].nr_busy_cpus += 1;
        }
    }

    /// `add_nr_running()` (sched.h): with it, whether the root domain is
    /// overloaded.
    pub(crate) fn add_nr_running(&mut self, cpu: u32, n: u32) {
        let rq = &mut self.rqs[cpu as usize];
        let before = rq.nr_running;
        rq.nr_running += n;
        if before < 2 && rq.nr_running >= 2 {
            self.nr_overloaded += 1;
        }
        self.note_idle(cpu);
    }

    /// `sub_nr_running()` (sched.h).
    pub(crate) fn sub_nr_running(&mut self, cpu: u32, n: u32) {
        let rq = &mut self.rqs[cpu as usize];
        let before = rq.nr_running;
        rq.nr_running -= n;
        if before >= 2 && rq.nr_running < 2 {
            self.nr_overloaded -= 1;
        }
        self.note_idle(cpu);
    }

    /// Brings `idle_mask` up to date with `cpu`'s run queue: `idle_cpu()`,
    /// which a pending wake list makes busy (`rq->ttwu_pending`, v5.15–v6.18).
    pub(crate) fn note_idle(&mut self, cpu: u32) {
        let rq = &self.rqs[cpu as usize];
        if rq.curr == NIL && rq.nr_running == 0 && rq.wake_list.is_empty() {
            self.idle_mask.set(cpu);
        } else {
            self.idle_mask.clear(cpu);
        }
    }

    /// The scan cost of a placement is CPU time of whatever ran the wakeup.
    fn charge_scan(&mut self, this_cpu: u32) {
        let cost = std::mem::take(&mut self.scan_cost_pending);
        let curr = self.rqs[this_cpu as usize].curr;
        if curr != NIL {
            self.tasks[curr as usize].overhead += cost;
        }
    }

    /// Mirrors `try_to_wake_up()` (core.c, v6.18) for a task on `cpu`: a
    /// task still queued as delayed is requeued where it is
    /// (`ttwu_runnable()`, no CPU selection); otherwise it is enqueued with
    /// ENQUEUE_WAKEUP and may preempt.
    pub fn try_to_wake_up(&mut self, p: u32, wake_flags: u32, this_cpu: u32) -> u32 {
        let t = &self.tasks[p as usize];
        if t.state != TaskState::Sleeping {
            return t.cpu;
        }
        let prev = t.cpu;
        let delayed = t.on_rq;
        let mut cpu = prev;
        let mut enqueue = ENQUEUE_WAKEUP;
        if !delayed {
            self.waking_cpu = this_cpu;
            let (target, how) = self.select_task_rq(p, prev, wake_flags | WF_TTWU, this_cpu);
            self.trace_placement(p, this_cpu, prev, target, how);
            self.charge_scan(this_cpu);
            if target != prev {
                self.set_task_cpu(p, target, false);
                enqueue |= ENQUEUE_MIGRATED;
                cpu = target;
            }
        }
        self.trace(Record::Wakeup { task: p, cpu, delayed });
        let now = self.now;
        let t = &mut self.tasks[p as usize];
        t.stats.nr_wakeups += 1;
        t.woken = true;
        t.woken_at = now;
        if delayed {
            self.enqueue_task_fair(cpu, p, ENQUEUE_DELAYED);
            let t = &mut self.tasks[p as usize];
            t.state = TaskState::Runnable;
            t.runnable_since = self.now;
            if self.rqs[cpu as usize].curr != p {
                self.wakeup_preempt(cpu, p, wake_flags);
            }
            return cpu;
        }
        if self.ttwu_queue_cond(cpu, this_cpu) {
            // ttwu_queue_wakelist(): the target CPU enqueues the task itself
            // when the IPI has brought it out of idle.
            let t = &mut self.tasks[p as usize];
            (t.state, t.wake_enqueue) = (TaskState::Waking, enqueue);
            self.rqs[cpu as usize].wake_list.push(p);
            self.note_idle(cpu);
            self.resched_curr(cpu, Cause::IdleCpu { wakee: p });
            return cpu;
        }
        self.ttwu_do_activate(cpu, p, enqueue, wake_flags);
        cpu
    }

    /// Mirrors `ttwu_do_activate()` (core.c): enqueue, check preemption,
    /// end the CPU's idle period.
    fn ttwu_do_activate(&mut self, cpu: u32, p: u32, enqueue: u32, wake_flags: u32) {
        self.activate_task(cpu, p, enqueue);
        self.wakeup_preempt(cpu, p, wake_flags | WF_TTWU);
        self.ttwu_update_avg_idle(cpu);
    }

    /// Mirrors `ttwu_queue_cond()` (core.c, v5.15–v6.18; TTWU_QUEUE is on
    /// unless PREEMPT_RT) for an idle target: a wake-up onto another CPU
    /// that is idle goes on that CPU's wake list (TTWU_QUEUE_IDLE, v6.5 on;
    /// v5.15 only across LLCs), so the task is enqueued — placed, its run
    /// delay started — only once the CPU is out of idle, and meanwhile
    /// `rq->ttwu_pending` keeps the CPU from looking idle. A busy target
    /// takes the IPI at once, which the model charges nothing for, so its
    /// tasks are enqueued at the wake-up. Not modelled: the wake list of a
    /// task still switching out on its CPU (`p->on_cpu`; the model's
    /// switches are instantaneous).
    fn ttwu_queue_cond(&self, cpu: u32, this_cpu: u32) -> bool {
        let rq = &self.rqs[cpu as usize];
        if cpu == this_cpu || rq.curr != NIL || rq.nr_running != 0 {
            return false;
        }
        !self.topo.share_cache(this_cpu, cpu) || self.feat.has(crate::kernel::sched::features::Feature::TTWU_QUEUE_IDLE)
    }

    /// Mirrors `sched_ttwu_pending()` (core.c, v5.15–v6.18): the CPU, out
    /// of idle, enqueues the tasks woken onto its wake list, in wake order,
    /// with no wake flag but WF_MIGRATED (the idle task it would preempt
    /// is preempted by any).
    pub fn sched_ttwu_pending(&mut self, cpu: u32) {
        if self.rqs[cpu as usize].wake_list.is_empty() {
            return;
        }
        // Activation never touches a wake list, so the list stays as it is
        // until cleared (keeping its capacity: no allocation per wake-up).
        for i in 0..self.rqs[cpu as usize].wake_list.len() {
            let p = self.rqs[cpu as usize].wake_list[i];
            self.ttwu_do_activate(cpu, p, self.tasks[p as usize].wake_enqueue, 0);
        }
        self.rqs[cpu as usize].wake_list.clear();
        self.note_idle(cpu);
    }

    /// The idle-time bookkeeping of `ttwu_do_activate()` (core.c): a wakeup
    /// ends the CPU's idle period; `avg_idle` averages those periods
    /// (`update_avg()`: avg += (sample − avg)/8), capped at
    /// 2·max_idle_balance_cost. SIS_PROP's prediction restarts from it.
    fn ttwu_update_avg_idle(&mut self, cpu: u32) {
        let (now, jiffies) = (self.now, self.jiffies());
        let rq = &mut self.rqs[cpu as usize];
        if rq.idle_stamp == 0 {
            return;
        }
        let delta = now.saturating_sub(rq.idle_stamp);
        rq.avg_idle = (rq.avg_idle as i64 + (delta as i64 - rq.avg_idle as i64) / 8) as u64;
        rq.avg_idle = rq.avg_idle.min(2 * rq.max_idle_balance_cost);
        rq.wake_avg_idle = rq.avg_idle / 2;
        rq.wake_stamp = jiffies;
        rq.idle_stamp = 0;
    }

    /// `wakeup_preempt()` for callers outside the wakeup path (the
    /// balancer's attach_task()).
    pub(crate) fn wakeup_preempt_pub(&mut self, cpu: u32, p: u32) {
        self.wakeup_preempt(cpu, p, 0);
    }

    /// Mirrors `wakeup_preempt()` (core.c, v6.18; `check_preempt_curr()` up
    /// to v6.6): a fair task always preempts the idle task; against a fair
    /// task the class decides. A running task that is now due to be
    /// preempted, for this or any earlier reason, gets the clock skip
    /// (`rq_clock_skip_update()`).
    fn wakeup_preempt(&mut self, cpu: u32, p: u32, wake_flags: u32) {
        if self.rqs[cpu as usize].curr == NIL {
            self.resched_curr(cpu, Cause::IdleCpu { wakee: p });
            return;
        }
        self.check_preempt_wakeup_fair(cpu, p, wake_flags);
        let rq = &mut self.rqs[cpu as usize];
        rq.clock_skip |= rq.resched;
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
        self.root_pick = None;
        let mut pick_prev = prev;
        if self.rqs[cpu as usize].push_cpu != NIL {
            // The stopper runs first: a prev it preempted is put back
            // among the queued tasks, and may be the one pushed away.
            if prev != NIL && prev_state == PrevState::Running {
                self.put_prev_task_fair(prev);
                pick_prev = NIL;
            }
            self.active_load_balance_cpu_stop(cpu);
        }
        let next = if pick_prev == NIL && prev != NIL {
            // prev was already put; pick as from idle.
            self.pick_next_task_fair(cpu, NIL)
        } else {
            self.pick_next_task_fair(cpu, prev)
        };
        self.trace_pick(cpu, next);
        // clear_tsk_need_resched(prev) comes after pick_next_task(), as in
        // __schedule() (v6.18): while the pick balances (newidle), a task it
        // pulls finds the resched pending and does not check preemption —
        // against a prev that may no longer be on this CPU at all (pushed
        // away by active balancing).
        self.rqs[cpu as usize].resched = false;

        // What a preempted waker did after its wake-up (rq_clock_skip_update())
        // is charged to the task switched in: to prev again when the pick
        // keeps it, to no one (the idle task) when the CPU goes idle.
        let rq = &mut self.rqs[cpu as usize];
        rq.clock_skip = false;
        let skipped = std::mem::take(&mut rq.clock_skipped);
        if next == prev {
            if prev != NIL {
                self.tasks[prev as usize].overhead += skipped;
            }
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
        }
        self.trace(Record::Switch { cpu, prev, next, voluntary: prev_state != PrevState::Running });
        self.rqs[cpu as usize].curr = next;
        self.note_idle(cpu);
        if (prev == NIL) != (next == NIL) {
            self.idle_transition(cpu, next == NIL);
        }
        if next == NIL {
            // set_next_task_idle(): the CPU is idle from now; its core may be
            // fully idle.
            self.update_idle_core(cpu);
        } else {
            let now = self.now;
            let same_mm = prev != NIL && self.tasks[prev as usize].mm == self.tasks[next as usize].mm;
            let cost = if same_mm { self.tun.cost_thread_switch } else { self.tun.cost_context_switch };
            let t = &mut self.tasks[next as usize];
            t.overhead += cost + skipped;
            t.state = TaskState::Running;
            t.stats.run_delay += now - t.runnable_since;
            if t.woken {
                t.woken = false;
                let lat = now - t.woken_at;
                self.lat_pending.push((next, lat, std::mem::take(&mut t.woken_by_reply)));
                if self.lat_pending.len() == LAT_BATCH {
                    self.flush_latencies();
                }
            }
        }
        (next, true)
    }

    /// Moves the batched wakeup latencies into the tasks' histograms. With
    /// thousands of tasks each histogram is a cache miss away; recording in
    /// a tight loop lets those misses overlap instead of stalling the
    /// scheduler path one at a time.
    pub fn flush_latencies(&mut self) {
        for &(t, lat, reply) in &self.lat_pending {
            let stats = &mut self.tasks[t as usize].stats;
            stats.wakeup_latency.record(lat);
            if reply {
                stats.reply_latency.record(lat);
                stats.reply_plat.record(lat);
            }
        }
        self.lat_pending.clear();
    }

    /// A task's wakeup-latency histogram including samples still batched.
    pub fn wakeup_latency(&self, task: u32) -> std::borrow::Cow<'_, Hist> {
        self.with_pending(task, &self.tasks[task as usize].stats.wakeup_latency, false)
    }

    /// The latency of a task's wake-ups by a `reply`, including samples
    /// still batched.
    pub fn reply_latency(&self, task: u32) -> std::borrow::Cow<'_, Hist> {
        self.with_pending(task, &self.tasks[task as usize].stats.reply_latency, true)
    }

    /// `reply_latency` in schbench's histogram.
    pub fn reply_plat(&self, task: u32) -> std::borrow::Cow<'_, Plat> {
        self.with_pending(task, &self.tasks[task as usize].stats.reply_plat, true)
    }

    /// `h` with the task's batched samples added (only a reply's if
    /// `replies`).
    fn with_pending<'a, H: Samples>(&self, task: u32, h: &'a H, replies: bool) -> std::borrow::Cow<'a, H> {
        let mut pending = self.lat_pending.iter().filter(|&&(t, _, reply)| t == task && (reply || !replies)).peekable();
        if pending.peek().is_none() {
            return std::borrow::Cow::Borrowed(h);
        }
        let mut h = h.clone();
        for &(_, lat, _) in pending {
            h.record(lat);
        }
        std::borrow::Cow::Owned(h)
    }

    fn trace_pick(&mut self, cpu: u32, next: u32) {
        if !self.tracing {
            return;
        }
        let q = self.rqs[cpu as usize].cfs;
        let v = self.avg_vruntime(q);
        let (reason, start, len) = match self.root_pick {
            Some((_, reason, start, len)) => (reason, start, len),
            None => (crate::lab::trace::PickReason::Single, self.paths.len() as u32, 0),
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
        self.update_overloaded_rq(cpu);
        self.sched_balance_trigger(cpu);
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
        let applied = self.feat.has(crate::kernel::sched::features::Feature::CUSTOM_SLICE);
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

    /// Zeroes every statistic (per-task switch, migration, wakeup, latency
    /// and op counters; per-CPU busy/idle time and switches; pick,
    /// select_idle_sibling and balance counters) and nothing that decides
    /// scheduling: the start of a measurement window after a warm-up.
    pub fn reset_statistics(&mut self) {
        self.flush_latencies();
        for t in &mut self.tasks {
            let call_returned = t.stats.call_returned;
            t.stats = TaskStats { call_returned, ..Default::default() };
        }
        for cpu in 0..self.rqs.len() as u32 {
            self.account_cpu(cpu);
            let rq = &mut self.rqs[cpu as usize];
            (rq.busy_ns, rq.idle_ns, rq.nr_switches) = (0, 0, 0);
        }
        self.stats = PickStats::default();
        self.sis = SisStats::default();
        self.balance_stats = Default::default();
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

/// The dequeue flags of `try_to_block_task()` (core.c, v6.18; inline in
/// `__schedule()` in v6.12): an exiting task is `TASK_DEAD`, a special
/// state (`is_special_task_state()`), so it leaves with DEQUEUE_SPECIAL and
/// is never delayed — a delayed entity relies on a later wakeup that a dead
/// task never gets.
fn p_se_flags(prev_state: PrevState) -> u32 {
    match prev_state {
        PrevState::Running => 0,
        PrevState::Blocking => DEQUEUE_SLEEP,
        PrevState::Exiting => DEQUEUE_SLEEP | DEQUEUE_SPECIAL,
    }
}
