//! Sentences that explain an event: what the scheduler decided and the
//! numbers behind it, for the lecture view's explainer.
//!
//! The numbers come from the records (a pick carries V, the vruntime and the
//! deadline it saw) and from the state right after the event (the other
//! entities' deadlines, eligibility, protection). Times are in ms with three
//! decimals; vruntimes and deadlines are shown relative to the CPU's
//! min_vruntime (the offset the queue keeps its sums against), so they read
//! as small numbers instead of 64-bit counters that start near 2^64 − 2^20.

use crate::kernel::chan::Room;
use crate::kernel::sched::features::Feature;
use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::select::{Placed, ScanEnd, Seen};
use crate::lab::sim::{Log, Simulation};
use crate::lab::snapshot::EntityView;
use crate::lab::trace::{Cause, Entry, PickReason, Record, Verdict};
use crate::kernel::sched::weight::sdiff;

/// The explanation of one event: its most telling sentence (chosen by
/// [`headline_rank`]), one sentence per record in log order, and the
/// frame of reference of the numbers, said once.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Explanation {
    pub headline: String,
    pub lines: Vec<String>,
    /// Where vruntimes, deadlines and V are measured from ("ms relative to
    /// min_vruntime of CPU 0's root queue"); empty when no line has any.
    pub note: String,
}

/// Explains one log entry, using `sim` as it is right after the entry's
/// event (its log supplies the pick paths and placement scans).
pub fn explain(sim: &Simulation, entry: &Entry) -> String {
    explain_with(sim, &sim.log.paths, entry)
}

/// [`explain`] with the side buffer given separately (when the records come
/// from another simulation's log, as in the player).
pub fn explain_with(sim: &Simulation, paths: &[u32], entry: &Entry) -> String {
    let records = [entry.record];
    Cx { sim, paths, records: &records }.sentence(0)
}

/// Explains every record of one event (`entries`, all of the same event)
/// with `sim` right after that event and `log` holding the side buffer.
pub fn explain_event(sim: &Simulation, log: &Log, entries: &[Entry]) -> Explanation {
    if entries.is_empty() {
        return Explanation {
            headline: if sim.state.events == 0 {
                "The start: nothing has happened yet. Step to see the first event.".to_string()
            } else {
                "No scheduling decision in this event: the running task's program moved on (a burst ended or overhead was paid).".to_string()
            },
            ..Default::default()
        };
    }
    let records: Vec<Record> = entries.iter().map(|e| e.record).collect();
    let cx = Cx { sim, paths: &log.paths, records: &records };
    let lines: Vec<String> = (0..records.len()).map(|i| cx.sentence(i)).collect();
    let best = headline_index(&records).unwrap_or(0);
    let note = cx.note(&records);
    Explanation { headline: lines[best].clone(), lines, note }
}

/// Which record of an event names it: the one of the lowest
/// [`headline_rank`], the earliest of those on a tie.
pub fn headline_index(records: &[Record]) -> Option<usize> {
    (0..records.len()).min_by_key(|&i| (headline_rank(&records[i]), i))
}

/// The headline rule: what caused an event comes before what followed
/// from it. One event often holds a chain (a task blocks → update_curr()
/// finds its slice used up → the next pick → the switch); the headline is
/// the first link that explains the rest:
///
/// 1. a task left the CPU of its own accord: it blocked or went to sleep
///    (also when DELAY_DEQUEUE keeps it queued), exited, or was stopped;
/// 2. the load balancer moved a task (a balance pull or an active-balance
///    push), whatever preemption the moved task then caused;
/// 3. a wakeup preempted the running task (the preemption check said so,
///    or PREEMPT_SHORT cancelled its protection);
/// 4. the running task's slice ended (its request was used up, its
///    protection lapsed, or CFS found it a slice ahead);
/// 5. a task changed its own terms: reweight, nice, yield, custom slice;
/// 6. a wakeup or fork that preempted nobody: a delayed task requeued,
///    why the wakee did not preempt, where it was placed, that it woke;
/// 7. a delayed entity completing its dequeue;
/// 8. the pick and the switch on their own;
/// 9. everything else: channels and futexes, idle exits, going idle, a
///    pinned placement, the tick.
pub fn headline_rank(r: &Record) -> u8 {
    match r {
        Record::Block { .. } | Record::Exit { .. } | Record::Livelock { .. } => 10,
        Record::Migrate { .. } | Record::Resched { cause: Cause::ActiveBalance, .. } => 20,
        Record::WakeupCheck { verdict: Verdict::Preempt, .. } => 30,
        Record::Resched { cause: Cause::WakeupPreempt { .. } | Cause::IdlePreempted { .. } | Cause::ShortPreempted, .. } => 31,
        Record::Resched { cause: Cause::SliceExpired | Cause::ProtectLapsed | Cause::VruntimeAhead | Cause::TickPick, .. } => 40,
        Record::Reweight { .. } | Record::Nice { .. } | Record::Resched { cause: Cause::PrioChanged, .. } => 50,
        Record::Yield { .. } | Record::Slice { .. } => 51,
        Record::Wakeup { delayed: true, .. } => 60,
        Record::WakeupCheck { .. } => 61,
        Record::Placement { how, .. } if !matches!(how, Placed::Pinned) => 62,
        Record::Wakeup { .. } | Record::Resched { cause: Cause::IdleCpu { .. }, .. } => 63,
        Record::Fork { .. } => 64,
        Record::DelayedDequeue { .. } => 70,
        Record::Pick { task, .. } if *task != NIL => 80,
        Record::Switch { .. } => 81,
        Record::Chan { .. } | Record::Signal { .. } | Record::Wait { .. } => 90,
        Record::IdleExit { .. } | Record::Pick { .. } | Record::Placement { .. } => 91,
        Record::Tick { .. } => 99,
        // Kinds added to the engine after this rule: before the tick.
        #[allow(unreachable_patterns)]
        _ => 95,
    }
}

/// Kinds of events the lecture view can jump between.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventKind {
    /// A pick of a task (not going idle).
    Pick,
    /// An involuntary context switch: the running task was preempted.
    Preemption,
    Wakeup,
    /// A task blocked or went to sleep.
    Block,
    /// A task changed CPU: a load-balance move, or a wakeup placed away
    /// from its previous CPU.
    Migration,
    /// The load balancer at work: a pull (detach_task()/attach_task()) or
    /// an active-balance push.
    Balance,
    /// A weight changed: a group entity's reweight, or nice.
    Reweight,
}

impl EventKind {
    pub const ALL: [EventKind; 7] = [
        EventKind::Pick,
        EventKind::Preemption,
        EventKind::Wakeup,
        EventKind::Block,
        EventKind::Migration,
        EventKind::Balance,
        EventKind::Reweight,
    ];

    pub fn label(self) -> &'static str {
        match self {
            EventKind::Pick => "pick",
            EventKind::Preemption => "preemption",
            EventKind::Wakeup => "wakeup",
            EventKind::Block => "block",
            EventKind::Migration => "migration",
            EventKind::Balance => "balance",
            EventKind::Reweight => "reweight",
        }
    }

    pub fn from_label(s: &str) -> Option<EventKind> {
        EventKind::ALL.into_iter().find(|k| k.label() == s)
    }

    /// Whether `r` is an event of this kind.
    pub fn matches(self, r: &Record) -> bool {
        match self {
            EventKind::Pick => matches!(r, Record::Pick { task, .. } if *task != NIL),
            EventKind::Preemption => matches!(r, Record::Switch { prev, voluntary: false, .. } if *prev != NIL),
            EventKind::Wakeup => matches!(r, Record::Wakeup { .. }),
            EventKind::Block => matches!(r, Record::Block { .. }),
            EventKind::Migration => match *r {
                Record::Migrate { .. } => true,
                Record::Placement { prev, cpu, how, .. } => cpu != prev && !matches!(how, Placed::Idlest),
                _ => false,
            },
            EventKind::Balance => matches!(r, Record::Migrate { .. } | Record::Resched { cause: Cause::ActiveBalance, .. }),
            EventKind::Reweight => matches!(r, Record::Reweight { .. } | Record::Nice { .. }),
        }
    }
}

/// The tasks a record is about (up to two: e.g. prev and next of a switch).
pub fn record_tasks(r: &Record) -> [Option<u32>; 2] {
    let t = |x: u32| (x != NIL).then_some(x);
    match *r {
        Record::Fork { task, .. }
        | Record::Wakeup { task, .. }
        | Record::Block { task, .. }
        | Record::DelayedDequeue { task, .. }
        | Record::Yield { task, .. }
        | Record::Nice { task, .. }
        | Record::Slice { task, .. }
        | Record::Exit { task, .. }
        | Record::Livelock { task }
        | Record::Placement { task, .. }
        | Record::Migrate { task, .. }
        | Record::Chan { task, .. }
        | Record::Wait { task, .. } => [t(task), None],
        Record::Pick { task, .. } => [t(task), None],
        Record::WakeupCheck { curr, wakee, .. } => [t(wakee), t(curr)],
        Record::Resched { curr, .. } => [t(curr), None],
        Record::Switch { prev, next, .. } => [t(prev), t(next)],
        Record::Signal { task, target, .. } => [t(task), t(target)],
        Record::Tick { .. } | Record::IdleExit { .. } | Record::Reweight { .. } => [None, None],
    }
}

/// One record in a few words, from the record alone (no state): the
/// comparison's log diff, where each line stands for itself.
pub fn describe(names: &[String], r: &Record) -> String {
    let n = |t: u32| if t == NIL { "idle".to_string() } else { names.get(t as usize).cloned().unwrap_or_else(|| format!("task {t}")) };
    let ms = |x: u64| format!("{:.3}", x as f64 / 1e6);
    match *r {
        Record::Fork { task, cpu } => format!("fork {} on CPU {cpu}", n(task)),
        Record::Wakeup { task, cpu, delayed } => format!("wakeup {} on CPU {cpu}{}", n(task), if delayed { " (delayed: requeued)" } else { "" }),
        Record::Block { task, cpu, delayed } => format!("block {} on CPU {cpu}{}", n(task), if delayed { " (delayed dequeue)" } else { "" }),
        Record::DelayedDequeue { task, cpu } => format!("delayed dequeue of {} completes on CPU {cpu}", n(task)),
        Record::WakeupCheck { cpu, curr, wakee, verdict } => format!("wakeup check CPU {cpu}: {} vs {}: {verdict:?}", n(wakee), n(curr)),
        Record::Resched { cpu, curr, cause } => format!("resched CPU {cpu} ({}): {cause:?}", n(curr)),
        Record::Pick { cpu, task, v, vruntime, deadline, .. } => {
            format!("pick CPU {cpu}: {} (v {}, deadline {}, V {})", n(task), ms(vruntime), ms(deadline), ms(v))
        }
        Record::Switch { cpu, prev, next, voluntary } => {
            format!("switch CPU {cpu}: {} → {}{}", n(prev), n(next), if voluntary || prev == NIL { "" } else { " (preempted)" })
        }
        Record::Yield { task, cpu } => format!("yield {} on CPU {cpu}", n(task)),
        Record::Nice { task, nice } => format!("nice {} = {nice}", n(task)),
        Record::Slice { task, slice, applied } => format!("slice {} = {} ms{}", n(task), ms(slice), if applied { "" } else { " (ignored)" }),
        Record::Exit { task, cpu } => format!("exit {} on CPU {cpu}", n(task)),
        Record::Tick { cpu } => format!("tick CPU {cpu}"),
        Record::Livelock { task } => format!("livelock: {} stopped", n(task)),
        Record::Placement { task, prev, cpu, how, .. } => format!("placement {} → CPU {cpu} (was {prev}; {})", n(task), placed_label(how)),
        Record::Migrate { task, from, to } => format!("balance moves {} CPU {from} → {to}", n(task)),
        Record::Chan { task, ch, send, n: k, blocked } => {
            format!("{} {} {k} on channel {ch}{}", n(task), if send { "sends" } else { "receives" }, if blocked { ", blocks" } else { "" })
        }
        Record::Signal { task, target, woke } => format!("{} wakes {}{}", n(task), n(target), if woke { "" } else { " (not waiting)" }),
        Record::Wait { task, blocked } => format!("{} waits{}", n(task), if blocked { ", blocks" } else { ", goes on" }),
        Record::IdleExit { cpu, latency } => format!("CPU {cpu} leaves idle ({:.1} µs)", latency as f64 / 1e3),
        Record::Reweight { cpu, group, old, new, .. } => format!("reweight group {group} on CPU {cpu}: {:.1} → {:.1}", old as f64 / 1024.0, new as f64 / 1024.0),
    }
}

/// How a pick chose, in the kernel's words (for the tree's pick line).
pub fn pick_reason_label(r: PickReason, cfs: bool) -> &'static str {
    if cfs {
        return match r {
            PickReason::Single => "pick_next_entity(): the only runnable entity",
            PickReason::Buddy => "pick_next_entity(): the next buddy (cfs_rq->next)",
            PickReason::LastBuddy => "pick_next_entity(): the last buddy (cfs_rq->last)",
            PickReason::SkipAvoided => "pick_next_entity(): the leftmost is the skip buddy, the second runs",
            _ => "pick_next_entity(): the leftmost, the smallest vruntime",
        };
    }
    match r {
        PickReason::Single => "pick_eevdf(): the only runnable entity",
        PickReason::Protected => "pick_eevdf(): curr is eligible and protect_slice() holds (RUN_TO_PARITY)",
        PickReason::Leftmost => "pick_eevdf(): the leftmost (earliest deadline) is eligible, the O(1) fast path",
        PickReason::HeapSearch => "pick_eevdf(): __pick_eevdf() walked the augmented tree",
        PickReason::Curr => "pick_eevdf(): curr beat the tree's best",
        PickReason::Buddy => "pick_eevdf(): the next buddy is eligible (PICK_BUDDY)",
        PickReason::Fallback => "pick_eevdf(): nothing eligible found, the leftmost is taken",
        PickReason::LastBuddy => "the last buddy",
        PickReason::SkipAvoided => "the skip buddy was avoided",
    }
}

/// Milliseconds with three decimals.
pub fn ms(ns: u64) -> String {
    format!("{:.3} ms", ns as f64 / 1e6)
}

/// A signed amount of ns as ms with three decimals.
pub fn ms_signed(ns: i64) -> String {
    format!("{:.3} ms", ns as f64 / 1e6)
}

struct Cx<'a> {
    sim: &'a Simulation,
    paths: &'a [u32],
    records: &'a [Record],
}

impl Cx<'_> {
    fn name(&self, task: u32) -> String {
        if task == NIL {
            return "idle".to_string();
        }
        self.sim.info.task_names.get(task as usize).cloned().unwrap_or_else(|| format!("task {task}"))
    }

    fn base(&self, cpu: u32) -> u64 {
        let s = self.sim.sched();
        s.rqs.get(cpu as usize).map_or(0, |rq| s.cfs_rqs[rq.cfs as usize].min_vruntime)
    }

    /// A vruntime or deadline relative to the CPU's root min_vruntime, in ms.
    fn rv(&self, cpu: u32, x: u64) -> String {
        format!("{:.3}", sdiff(x, self.base(cpu)) as f64 / 1e6)
    }

    /// The run queue a task's own entity is queued on (a group's queue
    /// when the task is in a cgroup), and that entity.
    fn task_q(&self, task: u32) -> Option<(u32, u32)> {
        let s = self.sim.sched();
        let se = s.tasks.get(task as usize)?.se;
        Some((s.ents.get(se as usize)?.cfs_rq, se))
    }

    /// A vruntime or deadline relative to queue `q`'s min_vruntime, in ms.
    fn rq(&self, q: u32, x: u64) -> String {
        let base = self.sim.sched().cfs_rqs.get(q as usize).map_or(0, |c| c.min_vruntime);
        format!("{:.3}", sdiff(x, base) as f64 / 1e6)
    }

    /// V of queue `q`.
    fn vq(&self, q: u32) -> u64 {
        self.sim.sched().avg_vruntime(q)
    }

    /// Queue `q`'s entity `se` as the views see it (None when not queued).
    fn ent(&self, q: u32, se: u32) -> Option<EntityView> {
        let s = self.sim.sched();
        if q as usize >= s.cfs_rqs.len() {
            return None;
        }
        s.queue_view(q, &self.sim.info.task_names).entities.into_iter().find(|e| e.entity == se)
    }

    /// A task's entity in its own queue, with that queue.
    fn entity_q(&self, task: u32) -> Option<(u32, EntityView)> {
        let (q, se) = self.task_q(task)?;
        Some((q, self.ent(q, se)?))
    }

    /// Where a queue is: "" for a CPU's root queue, " in [g]'s queue" for
    /// a group's.
    fn qwhere(&self, q: u32) -> String {
        let s = self.sim.sched();
        let Some(c) = s.cfs_rqs.get(q as usize) else { return String::new() };
        if s.rqs.get(c.cpu as usize).is_some_and(|rq| rq.cfs == q) {
            String::new()
        } else {
            format!(" in [{}]'s queue", s.groups.get(c.tg as usize).map_or("?", |g| g.name.as_str()))
        }
    }

    /// The name of an entity: its task's, or [group] for a group entity.
    fn ent_name(&self, se: u32) -> String {
        let s = self.sim.sched();
        match s.ents.get(se as usize) {
            Some(e) if e.task != NIL => self.name(e.task),
            Some(e) if e.tg != NIL => format!("[{}]", s.groups.get(e.tg as usize).map_or("?", |g| g.name.as_str())),
            _ => format!("se {se}"),
        }
    }

    /// The note on the frame of reference, for the queues the records
    /// quote numbers from.
    fn note(&self, records: &[Record]) -> String {
        let mut queues: Vec<String> = Vec::new();
        for r in records {
            let q = match *r {
                Record::Pick { cpu, task, .. } if task != NIL => self.sim.sched().rqs.get(cpu as usize).map(|rq| rq.cfs),
                Record::Wakeup { task, .. } | Record::Block { task, .. } => self.task_q(task).map(|x| x.0),
                Record::Resched { curr, cause: Cause::SliceExpired, .. } => self.task_q(curr).map(|x| x.0),
                Record::WakeupCheck { curr, wakee, .. } if curr != NIL && wakee != NIL => self.matching(curr, wakee).map(|m| m.0),
                _ => None,
            };
            if let Some(q) = q {
                let cpu = self.sim.sched().cfs_rqs[q as usize].cpu;
                let w = self.qwhere(q);
                let name = if w.is_empty() { format!("CPU {cpu}'s root queue") } else { format!("{} on CPU {cpu}", w.trim_start().trim_start_matches("in ")) };
                if !queues.contains(&name) {
                    queues.push(name);
                }
            }
        }
        if queues.is_empty() {
            return String::new();
        }
        if self.cfs() {
            // CFS has no deadlines, no V and no sums: only min_vruntime.
            return format!("vruntimes: ms relative to the min_vruntime of {} (each queue has its own)", queues.join(", and of "));
        }
        format!("vruntimes, deadlines and V: ms relative to the min_vruntime of {} (each queue keeps its sums against its own)", queues.join(", and of "))
    }

    /// The entities of a running and a waking task that the preemption
    /// check compares (find_matching_se(): siblings on one queue), and
    /// that queue.
    fn matching(&self, curr: u32, wakee: u32) -> Option<(u32, u32, u32)> {
        let s = self.sim.sched();
        let a = s.tasks.get(curr as usize)?.se;
        let b = s.tasks.get(wakee as usize)?.se;
        let cpu_of = |se: u32| s.ents.get(se as usize).and_then(|e| s.cfs_rqs.get(e.cfs_rq as usize)).map(|c| c.cpu);
        if cpu_of(a).is_none() || cpu_of(a) != cpu_of(b) {
            return None;
        }
        let (a, b) = s.find_matching_se_pub(a, b);
        Some((s.ents[a as usize].cfs_rq, a, b))
    }

    /// When a task is in a cgroup, the root queue picks its group's
    /// entity (whose numbers the pick record holds): " (through [g])".
    fn through(&self, task: u32) -> String {
        let s = self.sim.sched();
        let Some(mut se) = s.tasks.get(task as usize).map(|t| t.se) else { return String::new() };
        while let Some(p) = s.ents.get(se as usize).map(|e| e.parent).filter(|&p| p != NIL) {
            se = p;
        }
        if s.ents.get(se as usize).is_some_and(|e| e.task == NIL) {
            format!(" (through {}'s entity, whose numbers these are)", self.ent_name(se))
        } else {
            String::new()
        }
    }

    fn feat(&self, f: Feature) -> bool {
        self.sim.sched().feat.has(f)
    }

    /// EEVDF is off: the v5.15 CFS pick and preemption rules apply.
    fn cfs(&self) -> bool {
        !self.feat(Feature::EEVDF)
    }

    fn sentence(&self, i: usize) -> String {
        match self.records[i] {
            Record::Fork { task, cpu } => format!("{} was created (fork) on CPU {cpu}.", self.name(task)),
            Record::Wakeup { task, cpu, delayed } => self.wakeup(task, cpu, delayed),
            Record::Block { task, cpu, delayed } => self.block(task, cpu, delayed),
            Record::DelayedDequeue { task, cpu } => format!(
                "{} was delayed (asleep but still queued); now that it would have been picked, its dequeue completes on CPU {cpu}{}.",
                self.name(task),
                if self.feat(Feature::DELAY_ZERO) { " and DELAY_ZERO clamps any positive lag to zero" } else { "" }
            ),
            Record::WakeupCheck { cpu, curr, wakee, verdict } => self.wakeup_check(cpu, curr, wakee, verdict),
            Record::Resched { cpu, curr, cause } => self.resched(cpu, curr, cause),
            Record::Pick { cpu, task, reason, path_len, v, vruntime, deadline, .. } => {
                self.pick(cpu, task, reason, path_len, v, vruntime, deadline)
            }
            Record::Switch { cpu, prev, next, voluntary } => {
                let why = if prev == NIL {
                    "it was idle".to_string()
                } else if voluntary {
                    format!("{} blocked", self.name(prev))
                } else {
                    format!("{} was preempted and stays queued", self.name(prev))
                };
                format!("CPU {cpu} switches from {} to {} ({why}).", self.name(prev), self.name(next))
            }
            Record::Yield { task, cpu } => format!(
                "{} called sched_yield() on CPU {cpu}: {}.",
                self.name(task),
                if self.cfs() {
                    "yield_task_fair() (CFS) makes it the skip buddy, so pick_next_entity() passes over it for the next entity when that one is not a wakeup granularity behind"
                } else if self.feat(Feature::YIELD_FORFEIT) {
                    "an eligible yielder forfeits the rest of its request (its vruntime jumps to its deadline)"
                } else {
                    "its deadline moves one slice later, so others with earlier deadlines go first"
                }
            ),
            Record::Nice { task, nice } => {
                let kept = if self.cfs() { "CFS keeps its vruntime (relative to min_vruntime), which then grows at the new rate" } else { "its lag is kept across the reweight" };
                format!("{} set its nice value to {nice}: its weight (share of the CPU) changes, and {kept}.", self.name(task))
            }
            Record::Slice { task, slice, applied } => {
                if !applied {
                    format!("{} asked for a custom slice, but this kernel ignores it (CUSTOM_SLICE is off: v6.6–v6.11 use the base slice).", self.name(task))
                } else if slice == 0 {
                    format!("{} went back to the base slice ({}).", self.name(task), ms(self.sim.sched().tun.base_slice))
                } else {
                    format!(
                        "{} asked for a {} slice (sched_setattr): shorter requests get earlier deadlines, so it is picked sooner after waking, in smaller pieces.",
                        self.name(task),
                        ms(slice)
                    )
                }
            }
            Record::Exit { task, cpu } => format!("{} exited on CPU {cpu}.", self.name(task)),
            Record::Tick { cpu } => {
                // The task that ran up to the tick: the one switched out in
                // this event if there was a switch, else the running one.
                let curr = self
                    .records
                    .iter()
                    .find_map(|r| match *r {
                        Record::Switch { cpu: c, prev, .. } if c == cpu => Some(prev),
                        _ => None,
                    })
                    .unwrap_or(self.sim.sched().rqs[cpu as usize].curr);
                let who = if curr == NIL { String::new() } else { format!(" ({})", self.name(curr)) };
                let then = if self.cfs() {
                    // v5.15 entity_tick(): check_preempt_tick() only with others queued.
                    "; with others queued, check_preempt_tick() checks whether it ran its sched_slice() or is a slice ahead of the leftmost vruntime"
                } else if self.feat(Feature::TICK_PICK_PREEMPT) {
                    // The EEVDF RFC's entity_tick(): check_preempt_tick() asks for a fresh pick.
                    "; with others queued, check_preempt_tick() reschedules unless pick_eevdf() still picks it (the EEVDF RFC)"
                } else {
                    " and checks whether its request is used up"
                };
                format!("Scheduler tick on CPU {cpu}: update_curr() charges the running task{who} for the time it ran{then}.")
            }
            Record::Livelock { task } => format!(
                "{} ran {} program statements at this instant without using time (a `yield` loop with nothing else to run, or send/recv that never block): it spins, keeping its CPU and charged for it until the next tick, then goes on with its program.",
                self.name(task),
                crate::lab::sim::SPIN_LIMIT
            ),
            Record::Placement { task, waker_cpu, prev, cpu, how, end, scan_start, scan_len, filtered } => {
                self.placement(task, waker_cpu, prev, cpu, how, end, scan_start, scan_len, filtered)
            }
            Record::Migrate { task, from, to } => format!(
                "The load balancer moved {} from CPU {from} to CPU {to} (it was queued, not running: detach_task() / attach_task()).",
                self.name(task)
            ),
            Record::Chan { task, ch, send, n, blocked } => {
                let verb = if send { "sent" } else { "received" };
                let wait = match (blocked, send) {
                    (false, _) => String::new(),
                    (true, true) => " The channel is full: it blocks until a receiver makes room.".into(),
                    (true, false) => " The channel is empty: it blocks until a sender puts messages in.".into(),
                };
                let how = match (self.sim.sched().chans.get(ch as usize).map(|c| c.room), send) {
                    (Some(Room::Signals), _) => "waiters on the other side are woken without WF_SYNC: a queue of real-time signals, whose sigqueue() wakes without it",
                    (Some(Room::Socket { .. }), true) => "a socket's send wakes every blocked reader (WF_SYNC)",
                    (Some(Room::Socket { .. }), false) => "a socket's blocked writers wake (WF_SYNC) once the queue is down to its wake_at",
                    (_, true) => "a pipe wakes a reader (one, WF_SYNC) only with a write into an empty pipe",
                    (_, false) => "a pipe wakes a writer (one, WF_SYNC) only when a read frees a page of a full pipe",
                };
                format!("{} {verb} {n} message{} on channel {ch}; {how}.{wait}", self.name(task), if n == 1 { "" } else { "s" })
            }
            Record::Signal { task, target, woke } => {
                if woke {
                    format!("{} woke {}, which was waiting (a futex wake: try_to_wake_up() without WF_SYNC).", self.name(task), self.name(target))
                } else {
                    format!("{} posted a wake to {}, which is not waiting yet: its next `wait` returns at once.", self.name(task), self.name(target))
                }
            }
            Record::Wait { task, blocked } => {
                if blocked {
                    format!("{} waits (futex_wait): it blocks until woken.", self.name(task))
                } else {
                    format!("{} waits, but a wake was already posted: it goes on without blocking.", self.name(task))
                }
            }
            Record::IdleExit { cpu, latency } => format!(
                "CPU {cpu} was idle and has work queued: it first leaves its idle state, which takes {} µs (the state's exit latency), then schedules.",
                latency as f64 / 1e3
            ),
            Record::Reweight { cpu, group, old, new, lag_before, lag_after } => self.reweight(cpu, group, (old, new), (lag_before, lag_after)),
            #[allow(unreachable_patterns)]
            other => format!("{other:?}."),
        }
    }

    /// A queued group entity reweighted: what happened to its lag, and
    /// which reweight_entity() did it.
    fn reweight(&self, cpu: u32, group: u32, (old, new): (u32, u32), (before, after): (i64, i64)) -> String {
        let name = self.sim.sched().groups.get(group as usize).map_or("?", |g| g.name.as_str());
        let head = format!(
            "[{name}]'s entity on CPU {cpu} was reweighted from {:.1} to {:.1} while queued (calc_group_shares(): the group's load on this CPU changed); its lag went from {} to {}",
            old as f64 / 1024.0,
            new as f64 / 1024.0,
            ms_signed(before),
            ms_signed(after)
        );
        let why = if self.feat(Feature::REWEIGHT_PLACE) {
            "v6.13+ (6d71a9c61604) reweights through update_entity_lag() and place_entity(): the lag is clamped to its limit and the entity placed again, so it is kept only approximately (place_entity() counts a running entity's weight twice)"
        } else if self.feat(Feature::REWEIGHT_EEVDF) {
            "reweight_eevdf() (eab03c23c2a1, v6.7) rescales V − v by w/w' so the lag stays"
        } else {
            "v6.6.0 keeps the vruntime, so the lag w·(V − v) changes with the weight and V itself moves (fixed by eab03c23c2a1, seed 000 patch 1/4)"
        };
        format!("{head}: {why}.")
    }

    fn wakeup(&self, task: u32, cpu: u32, delayed: bool) -> String {
        let name = self.name(task);
        let eq = self.entity_q(task);
        if delayed {
            return match eq {
                Some((q, e)) => format!(
                    "{name} woke on CPU {cpu}{} while still queued as a delayed entity (DELAY_DEQUEUE): it is requeued in place, keeping vruntime {} and lag {}.",
                    self.qwhere(q),
                    self.rq(q, e.vruntime),
                    ms_signed(e.lag)
                ),
                None => format!("{name} woke on CPU {cpu} while still queued as a delayed entity (DELAY_DEQUEUE): it is requeued in place."),
            };
        }
        match eq {
            Some((q, e)) => {
                if self.cfs() {
                    return format!(
                        "{name} woke up on CPU {cpu}{}: CFS place_entity() puts it at max(its vruntime, min_vruntime − sleeper credit), here vruntime {}.",
                        self.qwhere(q),
                        self.rq(q, e.vruntime)
                    );
                }
                let how = if self.feat(Feature::PLACE_LAG) {
                    "place_entity() restores the lag it had when it slept (PLACE_LAG)"
                } else {
                    "PLACE_LAG is off: place_entity() puts it at V with zero lag"
                };
                format!(
                    "{name} woke up on CPU {cpu}{}: {how}, so vruntime {} against V {} (lag {}), deadline {} ms = vruntime + slice {}.",
                    self.qwhere(q),
                    self.rq(q, e.vruntime),
                    self.rq(q, self.vq(q)),
                    ms_signed(e.lag),
                    self.rq(q, e.deadline),
                    ms(e.slice)
                )
            }
            None => format!("{name} woke up on CPU {cpu}."),
        }
    }

    fn block(&self, task: u32, cpu: u32, delayed: bool) -> String {
        let name = self.name(task);
        if delayed {
            let lag = self.entity_q(task).map(|(_, e)| format!(" ({})", ms_signed(e.lag))).unwrap_or_default();
            format!(
                "{name} went to sleep on CPU {cpu} with negative lag{lag}: DELAY_DEQUEUE keeps it queued and competing (delayed) until pick_eevdf() would pick it, so its negative lag is worked off while it sleeps."
            )
        } else if self.cfs() {
            format!("{name} went to sleep on CPU {cpu} and left the run queue; it keeps its vruntime, and place_entity() gives it at most the sleeper credit below min_vruntime when it wakes.")
        } else {
            format!("{name} went to sleep on CPU {cpu} and left the run queue; its lag is saved for its wakeup.")
        }
    }

    fn wakeup_check(&self, cpu: u32, curr: u32, wakee: u32, verdict: Verdict) -> String {
        let (a, b) = (self.name(curr), self.name(wakee));
        // The two entities the check compared, siblings on one queue.
        let m = self.matching(curr, wakee);
        let (ea, eb, q) = match m {
            Some((q, sa, sb)) => (self.ent(q, sa), self.ent(q, sb), q),
            None => (None, None, self.sim.sched().rqs.get(cpu as usize).map_or(0, |rq| rq.cfs)),
        };
        let wq = self.qwhere(q);
        // In a group's queue, say which entities stand for the tasks.
        let (na, nb) = match m {
            Some((_, sa, sb)) if !wq.is_empty() || self.ent_name(sa) != a || self.ent_name(sb) != b => (self.ent_name(sa), self.ent_name(sb)),
            _ => (a.clone(), b.clone()),
        };
        let stand = if na != a || nb != b { format!(" ({nb} stands for {b}, {na} for {a})") } else { String::new() };
        let idle_policy = |t: u32| self.sim.sched().tasks.get(t as usize).is_some_and(|t| t.policy == crate::kernel::sched::core::Policy::Idle);
        if verdict == Verdict::Preempt && idle_policy(curr) && !idle_policy(wakee) {
            // check_preempt_wakeup_fair() (v6.6.9: check_preempt_wakeup();
            // CFS alike) reschedules before comparing anything.
            return format!(
                "{b} woke on CPU {cpu} while SCHED_IDLE {a} ran: a normal wakee always asks to preempt an idle-policy task, whatever their deadlines and lag; the pick decides who runs."
            );
        }
        if self.cfs() && matches!(verdict, Verdict::Preempt | Verdict::NotPicked) {
            let nums = match (&ea, &eb) {
                (Some(ea), Some(eb)) => format!(" ({nb}'s vruntime {} vs {na}'s {}{wq})", self.rq(q, eb.vruntime), self.rq(q, ea.vruntime)),
                _ => String::new(),
            };
            return if verdict == Verdict::Preempt {
                format!("{b} preempted {a} on CPU {cpu} (CFS check_preempt_wakeup()): its vruntime is more than the wakeup granularity behind {a}'s{nums}{stand}.")
            } else {
                format!("{b} woke on CPU {cpu} but does not preempt {a} (CFS): its vruntime is not far enough behind {a}'s (wakeup_preempt_entity(), within the wakeup granularity){nums}{stand}.")
            };
        }
        let v = self.vq(q);
        match verdict {
            Verdict::Preempt => {
                let Some(eb) = &eb else { return format!("{b} preempted {a} on CPU {cpu}.") };
                let b_ok = format!("is eligible (v {} ≤ V {})", self.rq(q, eb.vruntime), self.rq(q, v));
                match &ea {
                    Some(ea) if sdiff(eb.deadline, ea.deadline) < 0 => format!(
                        "{b} preempted {a} on CPU {cpu}{wq}: {nb} woke with deadline {} ms < {na}'s {} ms and {b_ok}{}{stand}.",
                        self.rq(q, eb.deadline),
                        self.rq(q, ea.deadline),
                        if ea.eligible { String::new() } else { format!("; {na} has just become ineligible (v {} > V), so its slice protection no longer holds", self.rq(q, ea.vruntime)) }
                    ),
                    Some(ea) if !ea.eligible => format!(
                        "{b} preempted {a} on CPU {cpu}{wq}: {na} is no longer eligible (v {} > V {}) while {nb} {b_ok}, deadline {} ms{stand}.",
                        self.rq(q, ea.vruntime),
                        self.rq(q, v),
                        self.rq(q, eb.deadline)
                    ),
                    _ => format!(
                        "{b} preempted {a} on CPU {cpu}{wq}: {nb} {b_ok} and has the earliest deadline of the eligible entities ({} ms){stand}.",
                        self.rq(q, eb.deadline)
                    ),
                }
            }
            Verdict::Disabled => format!("{b} woke on CPU {cpu} but WAKEUP_PREEMPTION is off: {a} keeps running until the tick reschedules."),
            Verdict::WakeePolicy => format!(
                "{b} woke on CPU {cpu} but is SCHED_BATCH (or SCHED_IDLE), whose wakeups never preempt: it waits until {a}'s slice ends at a tick."
            ),
            Verdict::WakeeIdle => format!("{b} is SCHED_IDLE and does not preempt {a}, a normal task."),
            Verdict::AlreadyPending => format!("{b} woke on CPU {cpu}; a reschedule of {a} was already pending."),

            Verdict::SamePrio => format!("{b} woke on CPU {cpu} but has the same priority as {a}: this kernel's patch skips wakeup preemption between equals."),
            Verdict::NoHint => format!("{b} woke on CPU {cpu}; {a} did not ask to be preempted, so it keeps running until its slice ends."),
            Verdict::NotPicked => {
                let why = match (&ea, &eb) {
                    (Some(ea), _) if ea.protected => format!(
                        "{na} is still protected (RUN_TO_PARITY{}) until it has used its request",
                        if self.feat(Feature::VPROT) { ", vprot" } else { "" }
                    ),
                    (_, Some(eb)) if !eb.eligible => format!(
                        "{nb} is not eligible{wq}: its vruntime {} is past V {} (it has received more than its share)",
                        self.rq(q, eb.vruntime),
                        self.rq(q, v)
                    ),
                    (Some(ea), Some(eb)) if sdiff(eb.deadline, ea.deadline) >= 0 => format!(
                        "{na}'s deadline {} ms comes before {nb}'s {} ms{wq}",
                        self.rq(q, ea.deadline),
                        self.rq(q, eb.deadline)
                    ),
                    _ => format!("pick_eevdf() still chooses {na}"),
                };
                format!("{b} woke on CPU {cpu} but does not preempt {a}: {why}{stand}.")
            }
            #[allow(unreachable_patterns)]
            other => format!("{b} woke on CPU {cpu} and does not preempt {a} ({other:?})."),
        }
    }

    fn resched(&self, cpu: u32, curr: u32, cause: Cause) -> String {
        let a = self.name(curr);
        if self.cfs() && cause == Cause::SliceExpired {
            return format!("{a} ran longer than its ideal slice (check_preempt_tick(): sched_slice() of the CFS period by weight) on CPU {cpu}: it is rescheduled, and the smallest vruntime runs next.");
        }
        match cause {
            Cause::SliceExpired => {
                let nums = self
                    .entity_q(curr)
                    .map(|(q, e)| format!(" (request {}; new deadline {} ms, V {}{})", ms(e.slice), self.rq(q, e.deadline), self.rq(q, self.vq(q)), self.qwhere(q)))
                    .unwrap_or_default();
                format!(
                    "{a} used up its request on CPU {cpu}: update_deadline() gave it a new deadline one slice later{nums}, and the CPU reschedules to pick the earliest eligible deadline."
                )
            }
            Cause::ProtectLapsed => format!("{a}'s slice protection (vprot) lapsed on CPU {cpu}: it may now be preempted by an earlier eligible deadline."),
            Cause::ShortPreempted => format!(
                "A waking task with a shorter slice cancelled {a}'s protection (PREEMPT_SHORT) and {a} is no longer eligible: CPU {cpu} reschedules."
            ),
            Cause::WakeupPreempt { wakee } => format!("{}'s wakeup preempts {a} on CPU {cpu}.", self.name(wakee)),
            Cause::IdlePreempted { wakee } => {
                format!("{} (a normal task) woke while SCHED_IDLE {a} ran on CPU {cpu}: CPU {cpu} reschedules at once.", self.name(wakee))
            }
            Cause::IdleCpu { wakee } => format!("{} arrived on idle CPU {cpu}: the idle task gives way.", self.name(wakee)),
            Cause::PrioChanged => format!("{a}'s nice value rose (its weight dropped): CPU {cpu} reschedules."),
            Cause::ActiveBalance => {
                format!("The load balancer's stopper preempts {a} on CPU {cpu} to push it to an idle CPU (active balance).")
            }
            Cause::TickPick => format!(
                "At the tick on CPU {cpu} pick_eevdf() would not pick {a} (it is no longer eligible, or an eligible entity has an earlier deadline): the EEVDF RFC's check_preempt_tick() reschedules."
            ),
            Cause::VruntimeAhead => format!(
                "{a}'s vruntime is more than a slice ahead of the leftmost entity's (CFS check_preempt_tick()): CPU {cpu} reschedules."
            ),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn pick(&self, cpu: u32, task: u32, reason: PickReason, path_len: u16, v: u64, vruntime: u64, deadline: u64) -> String {
        if task == NIL {
            return format!("CPU {cpu} has nothing runnable and goes idle.");
        }
        let b = self.name(task);
        if self.cfs() {
            let why = match format!("{reason:?}").as_str() {
                "Buddy" => "the next buddy (the task that just woke and preempted), not too far ahead of the leftmost".to_string(),
                "LastBuddy" => "the last buddy (the task a wakeup preempted), not too far ahead of the leftmost".to_string(),
                "SkipAvoided" => "the leftmost is the skip buddy (it yielded), so the second smallest vruntime runs".to_string(),
                "Single" => "the only runnable entity".to_string(),
                _ => "the leftmost entity, the smallest vruntime".to_string(),
            };
            return format!("pick_next_entity() (CFS) on CPU {cpu} chose {b}{}: {why} (vruntime {}).", self.through(task), self.rv(cpu, vruntime));
        }
        let nums = format!("vruntime {} ≤ V {}, deadline {} ms", self.rv(cpu, vruntime), self.rv(cpu, v), self.rv(cpu, deadline));
        let why = match reason {
            PickReason::Single => format!("it is the only runnable entity ({nums})"),
            PickReason::Protected => format!("the running task is eligible and still protected by RUN_TO_PARITY ({nums})"),
            PickReason::Leftmost => {
                format!("the leftmost entity, with the earliest deadline, is eligible: the O(1) fast path ({nums})")
            }
            PickReason::HeapSearch => format!(
                "it has the earliest deadline among the eligible entities, found by walking {path_len} node{} of the augmented tree ({nums})",
                if path_len == 1 { "" } else { "s" }
            ),
            PickReason::Curr => format!("the running entity beat the tree's candidate ({nums})"),
            PickReason::Buddy => format!("it is the next buddy and eligible ({nums})"),
            PickReason::Fallback => format!("no eligible entity was found, so the leftmost one is taken ({nums})"),
            #[allow(unreachable_patterns)]
            other => format!("{other:?} ({nums})"),
        };
        format!("pick_eevdf() on CPU {cpu} chose {b}{}: {why}.", self.through(task))
    }

    #[allow(clippy::too_many_arguments)]
    fn placement(&self, task: u32, waker: u32, prev: u32, cpu: u32, how: Placed, end: ScanEnd, start: u32, len: u16, filtered: u16) -> String {
        let t = self.name(task);
        let scan: Vec<String> = self
            .paths
            .get(start as usize..start as usize + len as usize)
            .unwrap_or(&[])
            .iter()
            .map(|&v| {
                let seen = match v & 3 {
                    0 => "busy",
                    1 => "idle",
                    2 => "SCHED_IDLE only",
                    _ => "busy core",
                };
                format!("{} {seen}", v >> 2)
            })
            .collect();
        let last_idle = self
            .paths
            .get(start as usize..start as usize + len as usize)
            .and_then(|p| p.last())
            .filter(|&&v| v & 3 == 1)
            .map(|&v| v >> 2);
        let scanned = if scan.is_empty() { String::new() } else { format!(" It looked at CPU {}.", scan.join(", ")) };
        let filt = if filtered > 0 { format!(" SIS_FILTER left {filtered} overloaded CPU{} out of the scan.", if filtered == 1 { "" } else { "s" }) } else { String::new() };
        let stop = match end {
            ScanEnd::None => "",
            ScanEnd::Found => "",
            ScanEnd::Overloaded => " SIS_UTIL found the LLC busy (nr_idle_scan = 0), so there was no scan at all.",
            ScanEnd::Budget => " The scan stopped when SIS_UTIL's budget (nr_idle_scan) ran out.",
            ScanEnd::Exhausted => " Every allowed CPU of the LLC was looked at.",
            #[allow(unreachable_patterns)]
            _ => "",
        };
        let head = match how {
            Placed::Pinned => return format!("{t} may run on one CPU only: it goes to CPU {cpu}."),
            Placed::Idlest => return format!("New task {t}: find_idlest_cpu() walked the domains from CPU {waker} and chose the least loaded CPU {cpu}."),
            Placed::TargetIdle => format!("select_idle_sibling() for {t} (woken from CPU {waker}, last ran on {prev}): the target CPU {cpu}, chosen by wake_affine(), is idle: take it."),
            Placed::PrevIdle => format!("select_idle_sibling() for {t} (woken from CPU {waker}): the target was busy, but its previous CPU {cpu} shares the LLC and is idle (cache still warm)."),
            Placed::RecentIdle => format!("select_idle_sibling() for {t} (woken from CPU {waker}, last on {prev}): target and previous CPU busy; the recently used CPU {cpu} is idle."),
            Placed::IdleSibling => format!("select_idle_sibling() for {t}: no idle core in the LLC, and the idle SMT sibling {cpu} of its previous CPU {prev} is taken (select_idle_smt)."),
            Placed::IdleCore | Placed::IdleCpu => {
                let found = match how {
                    Placed::IdleCpu => format!("and found idle CPU {cpu}"),
                    _ if last_idle == Some(cpu) => format!("core by core for a fully idle core and found CPU {cpu}'s core idle"),
                    _ => format!("core by core for a fully idle core; none was (has_idle_cores is now cleared), so it takes CPU {cpu}, an idle SMT thread it saw on the way"),
                };
                format!("select_idle_sibling() for {t} (woken from CPU {waker}, last on {prev}): the fast paths found nothing idle, so select_idle_cpu() scanned the LLC {found}.")
            }
            Placed::Target => format!("select_idle_sibling() for {t} (woken from CPU {waker}, last on {prev}) found no idle CPU: it stays on the target, CPU {cpu}."),
            Placed::NoLlc => format!("{t} goes to CPU {cpu}: the target has no LLC domain to search."),
            #[allow(unreachable_patterns)]
            other => format!("{t} was placed on CPU {cpu} ({other:?})."),
        };
        format!("{head}{scanned}{filt}{stop}")
    }
}

/// Human-readable name of a scan observation.
pub fn seen_label(s: Seen) -> &'static str {
    match s {
        Seen::Busy => "busy",
        Seen::Idle => "idle",
        Seen::SchedIdle => "SCHED_IDLE only",
        Seen::BusyCore => "busy core",
        #[allow(unreachable_patterns)]
        _ => "seen",
    }
}

/// Human-readable name of a placement path.
pub fn placed_label(p: Placed) -> &'static str {
    match p {
        Placed::Pinned => "pinned (one allowed CPU)",
        Placed::TargetIdle => "target idle",
        Placed::PrevIdle => "previous CPU idle",
        Placed::RecentIdle => "recently used CPU idle",
        Placed::IdleSibling => "idle SMT sibling",
        Placed::IdleCore => "idle core (LLC scan)",
        Placed::IdleCpu => "idle CPU (LLC scan)",
        Placed::Target => "nothing idle: target",
        Placed::NoLlc => "no LLC domain",
        Placed::Idlest => "fork: idlest CPU",
        #[allow(unreachable_patterns)]
        _ => "other",
    }
}

/// Why the LLC scan stopped.
pub fn scan_end_label(e: ScanEnd) -> &'static str {
    match e {
        ScanEnd::None => "no scan",
        ScanEnd::Found => "found idle",
        ScanEnd::Overloaded => "LLC busy: no scan (SIS_UTIL)",
        ScanEnd::Budget => "budget exhausted (SIS_UTIL)",
        ScanEnd::Exhausted => "whole LLC scanned",
        #[allow(unreachable_patterns)]
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_text, LogMode, Overrides};

    fn run_to(text: &str, pred: impl Fn(&Record) -> bool) -> (Simulation, Vec<Entry>) {
        let (mut sim, _) = from_text(text, &Overrides::default(), LogMode::Full).unwrap();
        loop {
            let before = sim.log.marks.len();
            assert!(sim.step(), "no matching event");
            if sim.log.marks.len() > before {
                let from = sim.log.marks[before].first as usize;
                if sim.log.records[from..].iter().any(&pred) {
                    let ev = sim.state.events;
                    let entries: Vec<Entry> = sim.log.iter().filter(|e| e.event == ev).collect();
                    return (sim, entries);
                }
            }
        }
    }

    const THREE: &str = r#"
[sim]
duration = "20ms"
hz = 1000
[topology]
preset = "1cpu"
[[task]]
name = "t"
count = 3
program = "run"
"#;

    /// A channel operation is explained by its kernel object's wake-up rule.
    #[test]
    fn a_channel_operation_says_whom_its_kernel_object_wakes() {
        for (kind, send, want) in [("pipe", true, "only with a write into an empty pipe"), ("pipe", false, "frees a page of a full pipe"), ("socket", true, "wakes every blocked reader"), ("socket", false, "down to its wake_at")] {
            let text = format!("[topology]\npreset = \"1cpu\"\n[[channel]]\nname = \"c\"\nkind = \"{kind}\"\n[[task]]\nname = \"w\"\nprogram = \"send c; exit\"\n[[task]]\nname = \"r\"\nprogram = \"recv c; exit\"\n");
            let (sim, entries) = run_to(&text, |r| matches!(r, Record::Chan { send: s, .. } if *s == send));
            let chan = entries.iter().find(|e| matches!(e.record, Record::Chan { .. })).unwrap();
            let s = explain(&sim, chan);
            assert!(s.contains(want), "{kind}, send {send}: {s}");
        }
    }

    #[test]
    fn slice_expiry_names_the_picked_task_with_relative_numbers() {
        let (sim, entries) = run_to(THREE, |r| matches!(r, Record::Resched { cause: Cause::SliceExpired, .. }));
        let ex = explain_event(&sim, &sim.log, &entries);
        let picked = entries
            .iter()
            .find_map(|e| match e.record {
                Record::Pick { task, .. } => Some(sim.info.task_names[task as usize].clone()),
                _ => None,
            })
            .unwrap();
        assert!(ex.headline.contains("used up its request"), "{ex:?}");
        let pick_line = ex.lines.iter().find(|l| l.starts_with("pick_eevdf()")).unwrap();
        assert!(pick_line.contains(&picked), "{pick_line}");
        // Relative numbers are small, with 3 decimals: no 2^64 counters.
        assert!(!pick_line.contains("18446744"), "{pick_line}");
        assert!(pick_line.contains("V 0.") || pick_line.contains("V -0.") || pick_line.contains("V 1.") || pick_line.contains("V 2."), "{pick_line}");
        // One line per record.
        assert_eq!(ex.lines.len(), entries.len());
    }

    /// The EEVDF RFC's tick (TICK_PICK_PREEMPT) asks pick_eevdf() and says
    /// so: three hogs at HZ 1000; at the first tick t.0 has run 1 ms, V is
    /// a third of that, so t.0 is no longer eligible and the tick
    /// reschedules it.
    #[test]
    fn rfc_tick_says_it_asks_for_a_fresh_pick() {
        let text = THREE.replace("hz = 1000\n", "hz = 1000\nkernel = \"6.5\"\npatches = [\"eevdf-rfc\"]\n");
        let (sim, entries) = run_to(&text, |r| matches!(r, Record::Resched { cause: Cause::TickPick, .. }));
        let tick = entries.iter().find(|e| matches!(e.record, Record::Tick { .. })).expect("the reschedule comes from the tick");
        assert_eq!(tick.time, 1_000_000);
        let s = explain(&sim, tick);
        assert!(s.contains("reschedules unless pick_eevdf() still picks it (the EEVDF RFC)"), "{s}");
        let ex = explain_event(&sim, &sim.log, &entries);
        assert!(ex.lines.iter().any(|l| l.starts_with("At the tick on CPU 0 pick_eevdf() would not pick t.0")), "{ex:?}");
    }

    const WAKER: &str = r#"
[sim]
duration = "50ms"
hz = 1000
kernel = "6.18"
[topology]
preset = "1cpu"
[[task]]
name = "hog"
program = "run"
[[task]]
name = "sleeper"
program = "loop { run 100us; sleep 5ms }"
"#;

    #[test]
    fn wakeup_preemption_compares_deadlines() {
        let (sim, entries) = run_to(WAKER, |r| matches!(r, Record::WakeupCheck { verdict: Verdict::Preempt, .. }));
        let ex = explain_event(&sim, &sim.log, &entries);
        assert!(ex.headline.starts_with("sleeper preempted hog on CPU 0: sleeper woke with deadline"), "{ex:?}");
        assert!(ex.headline.contains("< hog's") && ex.headline.contains("is eligible (v "), "{ex:?}");
        // The numbers are ordered as the sentence claims.
        let nums: Vec<f64> = ex
            .headline
            .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
            .filter_map(|s| s.parse::<f64>().ok())
            .collect();
        // [cpu 0, deadline B, deadline A, v, V, ...]
        assert!(nums.len() >= 5, "{nums:?}");
        assert!(nums[1] < nums[2], "{nums:?}");
        assert!(nums[3] <= nums[4], "{nums:?}");
        // The wakeup line says where it was placed.
        assert!(ex.lines.iter().any(|l| l.starts_with("sleeper woke up on CPU 0")), "{ex:?}");
    }

    /// A normal wakee reschedules a SCHED_IDLE task whatever the deadlines
    /// say, and the explanation says so rather than comparing them. On
    /// v6.6 the pick then keeps the waker (RUN_TO_PARITY protects it), so
    /// the event must not claim the wakee preempted it; on v6.18 the wake-up
    /// cancels the protection and the wakee runs.
    #[test]
    fn a_wakee_of_an_idle_policy_task_asks_to_preempt_it_and_the_pick_decides() {
        for (kernel, runs) in [("6.6", "w"), ("6.18", "r")] {
            let text = format!(
                "[sim]\nkernel = \"{kernel}\"\n[topology]\npreset = \"1cpu\"\n\
                 [[task]]\nname = \"r\"\nprogram = \"wait; run 50us\"\n\
                 [[task]]\nname = \"w\"\npolicy = \"idle\"\nprogram = \"run 100us; wake r; run 100us\"\n"
            );
            let (sim, entries) = run_to(&text, |r| matches!(r, Record::WakeupCheck { verdict: Verdict::Preempt, .. }));
            let ex = explain_event(&sim, &sim.log, &entries);
            assert!(ex.headline.starts_with("r woke on CPU 0 while SCHED_IDLE w ran: a normal wakee always asks to preempt"), "{kernel}: {ex:?}");
            assert!(!ex.headline.contains("deadline ") && !ex.headline.contains("preempted"), "{kernel}: {ex:?}");
            assert!(ex.lines.iter().any(|l| l.starts_with(&format!("pick_eevdf() on CPU 0 chose {runs}"))), "{kernel}: {ex:?}");
        }
    }

    #[test]
    fn every_record_kind_of_a_busy_run_explains_without_panicking() {
        let text = r#"
[sim]
duration = "30ms"
[topology]
preset = "i7-4790"
[[task]]
name = "hog"
count = 6
program = "run"
[[task]]
name = "w"
count = 6
program = "loop { run exp(100us); sleep exp(300us); yield; nice 2; slice 1ms }"
"#;
        let (mut sim, _) = from_text(text, &Overrides::default(), LogMode::Full).unwrap();
        let mut n = 0;
        while sim.step() {
            let ev = sim.state.events;
            let first = sim.log.marks.last().filter(|m| m.event == ev).map(|m| m.first as usize);
            if let Some(f) = first {
                let entries: Vec<Entry> = sim.log.records[f..].iter().map(|&record| Entry { time: sim.now(), event: ev, record }).collect();
                let ex = explain_event(&sim, &sim.log, &entries);
                assert!(!ex.headline.is_empty());
                for e in &entries {
                    let s = explain(&sim, e);
                    assert!(s.ends_with('.'), "{s}");
                    assert!(!s.contains("18446744"), "{s}");
                }
                n += entries.len();
            }
        }
        assert!(n > 1000);
    }

    #[test]
    fn placement_lists_the_scan() {
        let text = r#"
[sim]
duration = "50ms"
[topology]
preset = "i7-4790"
[[task]]
name = "hog"
count = 3
program = "run"
[[task]]
name = "w"
count = 8
program = "loop { run exp(300us); sleep exp(400us) }"
"#;
        // The player resolves where each placement's scan sits in the log.
        let mut p = crate::lab::player::Player::new(text, &Overrides::default()).unwrap();
        let k = p
            .find(0, crate::lab::player::Direction::Forward, 1 << 20, |r| matches!(r, Record::Placement { scan_len: 2.., .. }))
            .expect("a placement that scanned");
        p.seek(k);
        let e = p.entries(k).into_iter().find(|e| matches!(e.record, Record::Placement { scan_len: 2.., .. })).unwrap();
        let Record::Placement { scan_start, scan_len, cpu, .. } = e.record else { unreachable!() };
        let scan: Vec<_> = p.log().paths[scan_start as usize..scan_start as usize + scan_len as usize]
            .iter()
            .map(|&v| crate::lab::player::decode_scan(v))
            .collect();
        let line = explain_with(p.sim(), &p.log().paths, &e);
        assert!(line.contains("select_idle_cpu() scanned") || line.contains("found no idle CPU"), "{line}");
        let listed = scan.iter().map(|s| format!("{} {}", s.cpu, seen_label(s.seen))).collect::<Vec<_>>().join(", ");
        assert!(line.contains(&format!("It looked at CPU {listed}.")), "{line} / {listed}");
        // A scan that found an idle CPU ends with it.
        if let Some(last) = scan.last() {
            if last.seen == Seen::Idle {
                assert_eq!(last.cpu, cpu, "{line}");
            }
        }
    }

    #[test]
    fn cfs_kernel_speaks_cfs() {
        // WAKER, plus a task that yields and one that changes its nice
        // value: every sentence and the note of every event under v5.15
        // speak CFS, with no EEVDF word (deadline, eligibility, request,
        // V, lag, pick_eevdf()).
        let text = format!("{WAKER}[[task]]\nname = \"yielder\"\nprogram = \"loop {{ run 300us; yield }}\"\n[[task]]\nname = \"renice\"\nprogram = \"run 2ms; nice 5; run 2ms; nice 0; run\"\n");
        let ov = Overrides { kernel: Some("5.15".into()), ..Default::default() };
        let (mut sim, _) = from_text(&text, &ov, LogMode::Full).unwrap();
        let eevdf_words = ["pick_eevdf", "deadline", "eligib", "request", " V ", "lag"];
        let (mut picks, mut ticks, mut yields, mut nices, mut notes) = (0, 0, 0, 0, 0);
        while sim.step() {
            let ev = sim.state.events;
            let entries: Vec<Entry> = sim.log.iter().filter(|e| e.event == ev).collect();
            for e in &entries {
                let s = explain(&sim, e);
                assert!(!eevdf_words.iter().any(|w| s.contains(w)), "{s}");
                match e.record {
                    Record::Pick { task, .. } if task != NIL => {
                        assert!(s.starts_with("pick_next_entity() (CFS)"), "{s}");
                        picks += 1;
                    }
                    Record::Tick { .. } => {
                        assert!(s.contains("check_preempt_tick()") && s.contains("sched_slice()"), "{s}");
                        ticks += 1;
                    }
                    Record::Yield { .. } => {
                        assert!(s.contains("yield_task_fair() (CFS) makes it the skip buddy"), "{s}");
                        yields += 1;
                    }
                    Record::Nice { .. } => {
                        assert!(s.contains("CFS keeps its vruntime"), "{s}");
                        nices += 1;
                    }
                    _ => {}
                }
            }
            let note = explain_event(&sim, &sim.log, &entries).note;
            assert!(!eevdf_words.iter().any(|w| note.contains(w)), "{note}");
            if !note.is_empty() {
                assert!(note.starts_with("vruntimes: ms relative to the min_vruntime of CPU 0's root queue"), "{note}");
                notes += 1;
            }
        }
        assert!(picks > 5 && ticks > 5 && yields > 5 && nices == 2 && notes > 5, "{picks} {ticks} {yields} {nices} {notes}");
    }

    #[test]
    fn start_has_a_headline() {
        let (sim, _) = from_text(THREE, &Overrides::default(), LogMode::Full).unwrap();
        let ex = explain_event(&sim, &sim.log, &[]);
        assert!(ex.headline.contains("start"));
    }
}

