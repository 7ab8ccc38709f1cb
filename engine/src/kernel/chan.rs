//! Channels, wake/wait and call/reply: how tasks in a scenario wake each
//! other, the way pipes, sockets and futexes do.
//!
//! A channel holds up to `capacity` messages. `send CH N` puts N messages
//! in, blocking while the channel is full; `recv CH N` takes N out,
//! blocking while it is empty. Waiters are woken in the order they blocked,
//! one per message moved, with a sync wakeup (WF_SYNC, as pipe_write() and
//! the unix socket paths do), except on a signal queue (`sync = false`):
//! sigqueue() wakes a task in sigwaitinfo() through signal_wake_up() and
//! a signalfd reader through signalfd_notify()'s wake_up(), neither with
//! wake flags (kernel/signal.c, include/linux/signalfd.h, v5.15–v6.18).
//! As in pipe_read()/pipe_write() (v6.18), a
//! reader that leaves messages behind wakes the next blocked reader, and a
//! writer that leaves room wakes the next blocked writer, so no waiter
//! sleeps while it could proceed.
//!
//! `wake T` / `wait` behave like a futex word per task (schbench's
//! fpost()/fwait()): `wake` sets the word and wakes T if it waits; `wait`
//! returns at once if the word is set (clearing it), else blocks. A wake
//! to a task that is not waiting is remembered once, not counted.
//!
//! `futex_wake T` / `futex_wait [D]` are the raw syscalls (stress-ng's
//! futex stressor): the word never changes, so FUTEX_WAIT always blocks,
//! and a FUTEX_WAKE finding no waiter is lost. A wait with a timeout ends
//! by whichever comes first, a wake or its hrtimer; the timer is armed with
//! the task's timer slack, as futex_wait() → futex_setup_timer() does
//! (kernel/futex/waitwake.c, v6.6), and the event loop fires it.
//!
//! `call T` puts the caller on T's request list, wakes T and waits;
//! `reply` wakes every task on the list, in order (schbench's
//! msg_and_wait() and xlist_wake_all()). These wakes carry no WF_SYNC.

use std::collections::VecDeque;

use crate::kernel::sched::fair::WF_SYNC;
use crate::kernel::sched::core::{Sched, TaskState};
use crate::lab::trace::Record;

/// One channel.
#[derive(Clone, Debug)]
pub struct Channel {
    pub capacity: u64,
    /// Whether a send wakes its receiver with WF_SYNC (a pipe or socket)
    /// or without (a signal queue).
    pub sync: bool,
    /// Messages in the channel, and the most it has held.
    pub count: u64,
    pub peak: u64,
    /// Tasks blocked in `recv` / `send`, first come first woken.
    pub receivers: VecDeque<u32>,
    pub senders: VecDeque<u32>,
    /// Messages moved in total (for tests and statistics).
    pub sent: u64,
    pub received: u64,
}

impl Channel {
    pub fn new(capacity: u64, sync: bool) -> Channel {
        Channel { capacity, sync, count: 0, peak: 0, receivers: VecDeque::new(), senders: VecDeque::new(), sent: 0, received: 0 }
    }
}

/// The outcome of a channel operation for the task doing it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Io {
    /// Done: all messages moved.
    Done,
    /// Blocked with this many messages still to move.
    Blocked(u32),
}

impl Sched {
    /// The task running on `cpu` (the waker) wakes `p` from a wait, which
    /// costs `costs.wakeup` (`wake_cost`); a wake of a task that is not
    /// asleep costs nothing extra. Returns whether it woke `p` from sleep.
    fn wake_waiter(&mut self, p: u32, cpu: u32, flags: u32) -> bool {
        if self.tasks[p as usize].state != TaskState::Sleeping {
            return false;
        }
        self.try_to_wake_up(p, flags, cpu);
        self.wake_cost(cpu);
        true
    }

    /// Charges the waker on `cpu` for the wake-up it just did (its
    /// try_to_wake_up() and the rest of its system call: `costs.wakeup`).
    /// Mirrors the clock skip of `wakeup_preempt()` (core.c, v6.18;
    /// `check_preempt_curr()` up to v6.6, the same since v5.15): once a
    /// wake-up on the waker's own CPU found it due to be preempted,
    /// `rq_clock_skip_update()` leaves that CPU's clock where the wake-up's
    /// update_curr() read it until the switch, so all the waker does until
    /// then (more wake-ups included) is charged to the task switched in
    /// next. (On a remote CPU the skip moves the preempted task's time until
    /// its switch, which the model does not have: it switches there at
    /// once.) On this machine's 6.18 (stress-ng sigfd's pair on one CPU,
    /// perf's `sched_stat_runtime`, which update_curr() emits) the waker's
    /// accounting stops at its wake-up and the 3.0 µs from there to the
    /// switch (tracing included) are in the wakee's runtime.
    fn wake_cost(&mut self, cpu: u32) {
        let rq = &mut self.rqs[cpu as usize];
        if rq.curr == crate::kernel::lib::rbtree::NIL {
            return;
        }
        if rq.clock_skip {
            rq.clock_skipped += self.tun.cost_wakeup;
        } else {
            self.tasks[rq.curr as usize].overhead += self.tun.cost_wakeup;
        }
    }

    /// Wakes up to `n` tasks from the front of a wait queue of `ch`.
    fn wake_queue(&mut self, ch: u32, receivers: bool, n: u64, cpu: u32) {
        for _ in 0..n {
            let c = &mut self.chans[ch as usize];
            let flags = if c.sync { WF_SYNC } else { 0 };
            let q = if receivers { &mut c.receivers } else { &mut c.senders };
            let Some(p) = q.pop_front() else { break };
            self.wake_waiter(p, cpu, flags);
        }
    }

    /// `send`: puts up to `n` messages into channel `ch`; wakes one blocked
    /// receiver per message put, and the next blocked sender if room is
    /// left.
    pub fn chan_send(&mut self, task: u32, ch: u32, n: u32) -> Io {
        self.chan_move(task, ch, n, true)
    }

    /// `recv`: takes up to `n` messages out of channel `ch`; wakes one
    /// blocked sender per message taken, and the next blocked receiver if
    /// messages are left.
    pub fn chan_recv(&mut self, task: u32, ch: u32, n: u32) -> Io {
        self.chan_move(task, ch, n, false)
    }

    /// Both directions: move what fits, queue the task for the rest, wake
    /// the other side (one per message) and the next on this side.
    fn chan_move(&mut self, task: u32, ch: u32, n: u32, send: bool) -> Io {
        let cpu = self.tasks[task as usize].cpu;
        let c = &mut self.chans[ch as usize];
        let moved = if send { c.capacity - c.count } else { c.count }.min(n as u64);
        if send {
            c.count += moved;
            c.peak = c.peak.max(c.count);
            c.sent += moved;
        } else {
            c.count -= moved;
            c.received += moved;
        }
        let left = n - moved as u32;
        let this_side_can_go_on = if send { c.count < c.capacity } else { c.count > 0 };
        if left > 0 {
            if send { &mut c.senders } else { &mut c.receivers }.push_back(task);
        }
        self.trace(Record::Chan { task, ch, send, n: moved as u32, blocked: left > 0 });
        // A sender wakes receivers (true), a receiver wakes senders.
        self.wake_queue(ch, send, moved, cpu);
        if this_side_can_go_on {
            self.wake_queue(ch, !send, 1, cpu);
        }
        if left > 0 {
            Io::Blocked(left)
        } else {
            Io::Done
        }
    }

    /// `wake`: sets `target`'s wake word and wakes it if it waits. Returns
    /// whether it woke `target` from sleep.
    pub fn task_wake(&mut self, task: u32, target: u32) -> bool {
        let cpu = self.tasks[task as usize].cpu;
        let t = &mut self.tasks[target as usize];
        let woke = t.waiting;
        self.trace(Record::Signal { task, target, woke });
        let t = &mut self.tasks[target as usize];
        if woke {
            t.waiting = false;
            self.wake_waiter(target, cpu, 0)
        } else {
            t.wake_pending = true;
            false
        }
    }

    /// `wait`: clears a pending wake, or blocks until woken. Returns true
    /// if the task must block.
    pub fn task_wait(&mut self, task: u32) -> bool {
        let t = &mut self.tasks[task as usize];
        let block = !t.wake_pending;
        if block {
            t.waiting = true;
            // A futex_wait's timer still pending must not end this wait.
            t.futex_seq = t.futex_seq.wrapping_add(1);
        } else {
            t.wake_pending = false;
        }
        self.trace(Record::Wait { task, blocked: block });
        block
    }

    /// `futex_wake`: FUTEX_WAKE of `target` with nr_wake 1: wakes it if it
    /// is blocked in `futex_wait` (or `wait`), else does nothing.
    pub fn futex_wake(&mut self, task: u32, target: u32) {
        let cpu = self.tasks[task as usize].cpu;
        let woke = self.tasks[target as usize].waiting;
        self.trace(Record::Signal { task, target, woke });
        if woke {
            self.tasks[target as usize].waiting = false;
            self.wake_waiter(target, cpu, 0);
        }
    }

    /// `futex_wait`: blocks until a wake (a pending `wake` is not looked
    /// at: the futex word has no memory). Returns the wait's number, for
    /// its timeout.
    pub fn futex_wait(&mut self, task: u32) -> u32 {
        let t = &mut self.tasks[task as usize];
        t.waiting = true;
        t.futex_seq = t.futex_seq.wrapping_add(1);
        let seq = t.futex_seq;
        self.trace(Record::Wait { task, blocked: true });
        seq
    }

    /// A `futex_wait`'s hrtimer fired (hrtimer_wakeup()): if wait `seq` is
    /// still blocked, it ends with ETIMEDOUT and the task is woken from the
    /// CPU it sleeps on. Returns whether it timed out.
    pub fn futex_timeout(&mut self, task: u32, seq: u32) -> bool {
        let t = &mut self.tasks[task as usize];
        if !t.waiting || t.futex_seq != seq {
            return false;
        }
        t.waiting = false;
        t.stats.futex_timeouts += 1;
        let cpu = t.cpu;
        self.try_to_wake_up(task, 0, cpu);
        true
    }

    /// `call`: joins `target`'s request list, wakes it, and waits for the
    /// reply. Returns true if the task must block.
    pub fn task_call(&mut self, task: u32, target: u32) -> bool {
        self.tasks[target as usize].requests.push(task);
        self.task_wake(task, target);
        self.task_wait(task)
    }

    /// `reply`: wakes every task on this task's request list, in order.
    pub fn task_reply(&mut self, task: u32) {
        let mut list = std::mem::take(&mut self.tasks[task as usize].requests);
        for &caller in &list {
            // Only a wake that finds the caller asleep has a latency (the
            // caller is picked later: try_to_wake_up() only queues it).
            if self.task_wake(task, caller) {
                self.tasks[caller as usize].woken_by_reply = true;
            }
        }
        // Hand the (now empty) buffer back so the list never reallocates.
        list.clear();
        self.tasks[task as usize].requests = list;
    }
}
