//! The event log: every scheduling decision with its cause.
//!
//! Records are small plain values (no heap data); variable-length data (the
//! nodes a pick walked) lives in a side buffer. The log is hashed as it is
//! written (FNV-1a over a fixed little-endian encoding of every field), so two
//! runs — on the host and in wasm — can be compared by one number.

pub mod hist;

use serde::Serialize;

use crate::kernel::sched::select::{Placed, ScanEnd};

/// Why a CPU was asked to reschedule (`resched_curr()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cause {
    /// update_curr(): the running entity used up its request and got a new
    /// deadline (`update_deadline()` returned true).
    SliceExpired,
    /// update_curr() (v6.17+): slice protection (vprot) has lapsed.
    ProtectLapsed,
    /// update_curr() (v6.12–v6.16): a shorter-slice wakeup cancelled the
    /// protection and the running entity is no longer eligible
    /// (`did_preempt_short()`).
    ShortPreempted,
    /// A wakeup (or fork) made the woken task the EEVDF pick.
    WakeupPreempt { wakee: u32 },
    /// A non-idle task woke while a SCHED_IDLE entity ran.
    IdlePreempted { wakee: u32 },
    /// A task woke on an idle CPU.
    IdleCpu { wakee: u32 },
    /// The running task's priority dropped (nice raised): prio_changed_fair().
    PrioChanged,
    /// The balancer's stopper preempts the running task to push it to an
    /// idle CPU (active balance).
    ActiveBalance,
    /// CFS check_preempt_tick(): the running task is more than a slice of
    /// vruntime ahead of the leftmost.
    VruntimeAhead,
    /// EEVDF RFC check_preempt_tick() (TICK_PICK_PREEMPT): at the tick,
    /// pick_eevdf() would not pick the running entity.
    TickPick,
}

/// Why check_preempt_wakeup_fair() decided what it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Preempt,
    /// WAKEUP_PREEMPTION is off.
    Disabled,
    /// SCHED_BATCH / SCHED_IDLE wakees never preempt.
    WakeePolicy,
    /// An idle wakee does not preempt a non-idle entity.
    WakeeIdle,
    /// The pick (with protection) was not the wakee.
    NotPicked,
    /// A reschedule was already pending.
    AlreadyPending,
    /// Same priority: no wakeup preemption (seed 003 patch).
    SamePrio,
    /// The running task did not ask to be preempted (seed 003 reply).
    NoHint,
}

/// Why pick_eevdf() (or pick_next_entity()) returned what it returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PickReason {
    /// Only one entity queued (v6.8+ skips the eligibility checks).
    Single,
    /// The running entity is eligible and still protected (RUN_TO_PARITY /
    /// vprot).
    Protected,
    /// v6.8+ fast path: the leftmost (earliest deadline) entity is eligible.
    Leftmost,
    /// Heap search through the augmented tree.
    HeapSearch,
    /// The running entity beat the tree's candidate.
    Curr,
    /// The next buddy was eligible (PICK_BUDDY / NEXT_BUDDY).
    Buddy,
    /// v6.6: the search failed and fell back to the leftmost (pr_err path).
    Fallback,
    /// CFS: the last buddy (the task a wakeup preempted) was close enough.
    LastBuddy,
    /// CFS: the leftmost was the skip buddy (it yielded); the second ran.
    SkipAvoided,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// A task was created (wake_up_new_task()).
    Fork { task: u32, cpu: u32 },
    /// A sleeping task woke (try_to_wake_up()); `delayed`: it was still
    /// queued (DELAY_DEQUEUE) and was requeued in place.
    Wakeup { task: u32, cpu: u32, delayed: bool },
    /// A task went to sleep; `delayed`: it stays queued because its lag was
    /// negative (DELAY_DEQUEUE).
    Block { task: u32, cpu: u32, delayed: bool },
    /// A delayed entity was picked and completed its dequeue.
    DelayedDequeue { task: u32, cpu: u32 },
    /// The wakeup-preemption check and its outcome.
    WakeupCheck { cpu: u32, curr: u32, wakee: u32, verdict: Verdict },
    /// A reschedule was requested.
    Resched { cpu: u32, curr: u32, cause: Cause },
    /// A pick on a CPU's root queue: `task` NIL means idle. `path_start` and
    /// `path_len` index the side buffer of entities the search visited.
    Pick { cpu: u32, task: u32, reason: PickReason, path_start: u32, path_len: u16, v: u64, vruntime: u64, deadline: u64 },
    /// A context switch (`prev != next`); `voluntary` when prev blocked.
    Switch { cpu: u32, prev: u32, next: u32, voluntary: bool },
    /// sched_yield().
    Yield { task: u32, cpu: u32 },
    /// set_user_nice().
    Nice { task: u32, nice: i32 },
    /// sched_setattr() slice change (0 = back to the base slice). `applied`
    /// is false on kernels without custom slices.
    Slice { task: u32, slice: u64, applied: bool },
    /// The task exited.
    Exit { task: u32, cpu: u32 },
    /// A scheduler tick on a busy CPU.
    Tick { cpu: u32 },
    /// The task ran 100 000 statements without time passing; it was stopped.
    Livelock { task: u32 },
    /// Where a waking or new task was placed, and how: the fast path that
    /// answered or the LLC scan (CPUs looked at, in order, in the side
    /// buffer as `cpu << 2 | Seen`), why the scan stopped, and how many CPUs
    /// SIS_FILTER removed.
    Placement { task: u32, waker_cpu: u32, prev: u32, cpu: u32, how: Placed, end: ScanEnd, scan_start: u32, scan_len: u16, filtered: u16 },
    /// The load balancer moved a queued task.
    Migrate { task: u32, from: u32, to: u32 },
    /// A channel operation: `n` messages moved; `blocked` when the task has
    /// to wait for the rest.
    Chan { task: u32, ch: u32, send: bool, n: u32, blocked: bool },
    /// `wake`: `woke` when the target was waiting (else its wake word is set).
    Signal { task: u32, target: u32, woke: bool },
    /// `wait`: `blocked` when no wake was pending.
    Wait { task: u32, blocked: bool },
    /// An idle CPU was sent work and takes `latency` ns to leave its idle
    /// state before it runs it.
    IdleExit { cpu: u32, latency: u64 },
    /// A queued group entity got a new weight (calc_group_shares() through
    /// update_cfs_group()): `group` indexes the task groups; weights are
    /// full-resolution load weights (nice 0 = 1024 << 10; group shares are
    /// at most 2^28, so they fit); lags are w·(V − v) in ns of nice-0 service
    /// just before and just after reweight_entity().
    Reweight { cpu: u32, group: u32, old: u32, new: u32, lag_before: i64, lag_after: i64 },
}

/// One log line: when, which discrete event produced it, and what.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub time: u64,
    pub event: u64,
    pub record: Record,
}

/// The log hash: one rotate-xor-multiply per 64-bit word (the FxHash
/// step), portable and identical on every target. It only has to tell two
/// logs apart, not resist attack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogHash(pub u64);

impl Default for LogHash {
    fn default() -> Self {
        LogHash(0xcbf2_9ce4_8422_2325)
    }
}

impl LogHash {
    #[inline]
    pub fn u64(&mut self, v: u64) {
        self.0 = (self.0.rotate_left(5) ^ v).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
}

impl Record {
    /// Feeds a canonical encoding of the record into the hash.
    pub fn hash_into(&self, h: &mut LogHash) {
        use Record::*;
        match *self {
            Fork { task, cpu } => [1, task as u64, cpu as u64].iter().for_each(|&v| h.u64(v)),
            Wakeup { task, cpu, delayed } => [2, task as u64, cpu as u64, delayed as u64].iter().for_each(|&v| h.u64(v)),
            Block { task, cpu, delayed } => [3, task as u64, cpu as u64, delayed as u64].iter().for_each(|&v| h.u64(v)),
            DelayedDequeue { task, cpu } => [4, task as u64, cpu as u64].iter().for_each(|&v| h.u64(v)),
            WakeupCheck { cpu, curr, wakee, verdict } => {
                [5, cpu as u64, curr as u64, wakee as u64, verdict as u64].iter().for_each(|&v| h.u64(v))
            }
            Resched { cpu, curr, cause } => {
                let (c, arg) = match cause {
                    Cause::SliceExpired => (0, 0),
                    Cause::ProtectLapsed => (1, 0),
                    Cause::ShortPreempted => (2, 0),
                    Cause::WakeupPreempt { wakee } => (3, wakee),
                    Cause::IdlePreempted { wakee } => (4, wakee),
                    Cause::IdleCpu { wakee } => (5, wakee),
                    Cause::PrioChanged => (6, 0),
                    Cause::ActiveBalance => (7, 0),
                    Cause::VruntimeAhead => (8, 0),
                    Cause::TickPick => (9, 0),
                };
                [6, cpu as u64, curr as u64, c, arg as u64].iter().for_each(|&v| h.u64(v))
            }
            // What was picked, not how: the reason and the path are cost
            // (the v6.8 fast path must not change the hash).
            Pick { cpu, task, v, vruntime, deadline, .. } => {
                [7, cpu as u64, task as u64, v, vruntime, deadline].iter().for_each(|&x| h.u64(x))
            }
            Switch { cpu, prev, next, voluntary } => {
                [8, cpu as u64, prev as u64, next as u64, voluntary as u64].iter().for_each(|&v| h.u64(v))
            }
            Yield { task, cpu } => [9, task as u64, cpu as u64].iter().for_each(|&v| h.u64(v)),
            Nice { task, nice } => [10, task as u64, nice as i64 as u64].iter().for_each(|&v| h.u64(v)),
            Slice { task, slice, applied } => [11, task as u64, slice, applied as u64].iter().for_each(|&v| h.u64(v)),
            Exit { task, cpu } => [12, task as u64, cpu as u64].iter().for_each(|&v| h.u64(v)),
            Tick { cpu } => [13, cpu as u64].iter().for_each(|&v| h.u64(v)),
            Livelock { task } => [14, task as u64].iter().for_each(|&v| h.u64(v)),
            Placement { task, waker_cpu, prev, cpu, how, end, scan_len, filtered, .. } => {
                [15, task as u64, waker_cpu as u64, prev as u64, cpu as u64, how as u64, end as u64, scan_len as u64, filtered as u64]
                    .iter()
                    .for_each(|&v| h.u64(v))
            }
            Migrate { task, from, to } => [16, task as u64, from as u64, to as u64].iter().for_each(|&v| h.u64(v)),
            Chan { task, ch, send, n, blocked } => {
                [17, task as u64, ch as u64, send as u64, n as u64, blocked as u64].iter().for_each(|&v| h.u64(v))
            }
            Signal { task, target, woke } => [18, task as u64, target as u64, woke as u64].iter().for_each(|&v| h.u64(v)),
            Wait { task, blocked } => [19, task as u64, blocked as u64].iter().for_each(|&v| h.u64(v)),
            IdleExit { cpu, latency } => [20, cpu as u64, latency].iter().for_each(|&v| h.u64(v)),
            Reweight { cpu, group, old, new, lag_before, lag_after } => {
                [21, cpu as u64, group as u64, old as u64, new as u64, lag_before as u64, lag_after as u64].iter().for_each(|&v| h.u64(v))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn record_is_small() {
        assert!(std::mem::size_of::<super::Record>() <= 40, "{}", std::mem::size_of::<super::Record>());
    }
}
