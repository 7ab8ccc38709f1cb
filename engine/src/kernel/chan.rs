//! Channels, wake/wait and call/reply: how tasks in a scenario wake each
//! other, the way pipes, sockets and futexes do.
//!
//! A channel holds up to `capacity` messages. `send CH N` puts N messages
//! in, blocking while the channel is full; `recv CH N` takes N out,
//! blocking while it is empty. Blocked tasks wait first come first woken
//! (exclusive waits: a wake-up takes the first off the queue). When room
//! and data wake whom is the kernel object's rule ([`Room`]):
//!
//! - **A pipe** (fs/pipe.c pipe_write()/pipe_read(), v5.15–v6.18: the same
//!   since 3b844826b6c6, believed v5.14: its 5.10.61 backport is of August
//!   2021) keeps messages in pages, `capacity /
//!   pages` to a page. A write merges into the newest page while it has
//!   room, else takes a free page; it blocks only when every page is taken
//!   and the newest is full. A read frees a page once it has taken its last
//!   message. Up to v6.13 every read that began with every page taken
//!   wakes a writer (one), which finds no room unless the read freed a
//!   page and waits again, at the back of the queue (`was_full`; the
//!   PIPE_WAKE_WAS_FULL flag); from v6.14 only freeing a page of a full
//!   pipe wakes one.
//!   A write wakes a reader (one) only if the pipe was empty when it began.
//!   A task that had to wait and leaves the pipe usable for the next one
//!   of its side (data left for a reader, a free page for a writer) wakes
//!   that one. Every pipe wake-up is a sync one (WF_SYNC).
//! - **A unix stream socket** (net/unix/af_unix.c, net/core/sock.c): a
//!   send blocks while `capacity` messages are queued (sk_wmem_alloc has
//!   reached sk_sndbuf); every send wakes the blocked readers
//!   (sock_def_readable()), and a read that leaves at most `wake_at`
//!   messages queued wakes every blocked writer (unix_write_space(): the
//!   sender's memory is down to a quarter of sk_sndbuf). Sync wake-ups.
//! - **A signal queue** (`sync = false`): room and data a message at a
//!   time, a waiter woken per message moved, without wake flags: sigqueue()
//!   wakes a task in sigwaitinfo() through signal_wake_up() and a signalfd
//!   reader through signalfd_notify()'s wake_up() (kernel/signal.c,
//!   include/linux/signalfd.h, v5.15–v6.18).
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
use crate::kernel::sched::features::Feature;
use crate::kernel::sched::core::{Sched, TaskState};
use crate::lab::trace::Record;

/// Which kernel object a channel is: how it makes room and whom it wakes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Room {
    /// A pipe whose pages each hold `per_page` messages.
    Pipe { per_page: u64 },
    /// A unix stream socket: blocked writers wake once at most `wake_at`
    /// messages are queued.
    Socket { wake_at: u64 },
    /// A queue of real-time signals.
    Signals,
}

/// One channel.
#[derive(Clone, Debug)]
pub struct Channel {
    pub capacity: u64,
    pub room: Room,
    /// Messages in the channel, and the most it has held.
    pub count: u64,
    pub peak: u64,
    /// A pipe's ring of pages (pipe->bufs): the messages left in each of
    /// the `pages` in use from `tail` on, oldest first. A page other than
    /// the newest can be part empty: a writer back from waiting takes a
    /// page of its own. Sized once, so the hot path never allocates.
    pub page_left: Vec<u64>,
    pub tail: usize,
    pub pages: u64,
    /// The messages written into the newest page (its room for merges).
    pub head_fill: u64,
    /// Tasks blocked in `recv` / `send`, first come first woken.
    pub receivers: VecDeque<u32>,
    pub senders: VecDeque<u32>,
    /// Messages moved in total (for tests and statistics).
    pub sent: u64,
    pub received: u64,
}

impl Channel {
    pub fn new(capacity: u64, room: Room) -> Channel {
        let pages = match room {
            Room::Pipe { per_page } => (capacity / per_page) as usize,
            _ => 0,
        };
        let page_left = vec![0; pages];
        Channel { capacity, room, count: 0, peak: 0, page_left, tail: 0, pages: 0, head_fill: 0, receivers: VecDeque::new(), senders: VecDeque::new(), sent: 0, received: 0 }
    }

    /// A pipe's pages (pipe->max_usage): the ring's size.
    fn slots(&self) -> u64 {
        self.page_left.len() as u64
    }

    /// The ring index of a pipe's newest page in use (pages > 0).
    fn head(&self) -> usize {
        (self.tail + self.pages as usize - 1) % self.page_left.len()
    }

    /// Whether its wake-ups carry WF_SYNC (a pipe's and a socket's do).
    pub fn sync(&self) -> bool {
        self.room != Room::Signals
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

/// Who to wake after a channel operation: up to so many blocked tasks of
/// the other side (readers after a send), then of the task's own side.
/// pipe_write() wakes readers before the next writer and pipe_read()
/// writers before the next reader, so the other side always goes first.
#[derive(Clone, Copy, Debug, Default)]
struct Wakes {
    other: u64,
    same: u64,
}

/// Wake all of a queue (non-exclusive waiters).
const ALL: u64 = u64::MAX;

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
        let flags = if self.chans[ch as usize].sync() { WF_SYNC } else { 0 };
        for _ in 0..n {
            let c = &mut self.chans[ch as usize];
            let q = if receivers { &mut c.receivers } else { &mut c.senders };
            let Some(p) = q.pop_front() else { break };
            self.wake_waiter(p, cpu, flags);
        }
    }

    /// `send`: puts up to `n` messages into channel `ch`. `waited`: the
    /// task is back from waiting in this same send.
    pub fn chan_send(&mut self, task: u32, ch: u32, n: u32, waited: bool) -> Io {
        self.chan_move(task, ch, n, true, waited)
    }

    /// `recv`: takes up to `n` messages out of channel `ch`. `waited`: the
    /// task is back from waiting in this same receive.
    pub fn chan_recv(&mut self, task: u32, ch: u32, n: u32, waited: bool) -> Io {
        self.chan_move(task, ch, n, false, waited)
    }

    /// Both directions: move what fits by the channel's rule, queue the
    /// task for the rest, then wake whom the rule says.
    fn chan_move(&mut self, task: u32, ch: u32, n: u32, send: bool, waited: bool) -> Io {
        let cpu = self.tasks[task as usize].cpu;
        let c = &mut self.chans[ch as usize];
        let (moved, wakes) = match (c.room, send) {
            (Room::Pipe { per_page }, true) => pipe_write(c, per_page, n as u64, waited),
            (Room::Pipe { .. }, false) => pipe_read(c, n as u64, waited, self.feat.has(Feature::PIPE_WAKE_WAS_FULL)),
            (Room::Socket { .. }, true) => socket_send(c, n as u64),
            (Room::Socket { wake_at }, false) => socket_recv(c, wake_at, n as u64),
            (Room::Signals, _) => signals_move(c, n as u64, send),
        };
        if send {
            c.sent += moved;
            c.peak = c.peak.max(c.count);
        } else {
            c.received += moved;
        }
        let left = n - moved as u32;
        if left > 0 {
            if send { &mut c.senders } else { &mut c.receivers }.push_back(task);
        }
        self.trace(Record::Chan { task, ch, send, n: moved as u32, blocked: left > 0 });
        // A sender's other side is the receivers.
        self.wake_queue(ch, send, wakes.other, cpu);
        self.wake_queue(ch, !send, wakes.same, cpu);
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

/// pipe_write() (fs/pipe.c, v5.15–v6.18), one message at a time: merge
/// into the newest page while it has room, else take a free page, else
/// block. Only a write's first try merges: one back from waiting waits on
/// pipe_writable(), a free page, and takes one, however much room the
/// newest page has. Wakes a reader if the pipe was empty when the write
/// began (or when the writer came back from waiting: `was_empty` is read
/// again then), and, having waited, the next writer if a page is still
/// free.
/// (A write of several messages merges only a whole write's remainder in
/// the kernel; messages of a page's size or less, as every workload here
/// writes one at a time, go in exactly as here.)
fn pipe_write(c: &mut Channel, per_page: u64, n: u64, waited: bool) -> (u64, Wakes) {
    let slots = c.slots();
    let was_empty = c.count == 0;
    let mut moved = 0;
    while moved < n {
        let first_try = !waited || moved > 0;
        if first_try && c.pages > 0 && c.head_fill < per_page {
            let head = c.head();
            c.page_left[head] += 1;
            c.head_fill += 1;
        } else if c.pages < slots {
            c.pages += 1;
            let head = c.head();
            c.page_left[head] = 1;
            c.head_fill = 1;
        } else {
            break;
        }
        c.count += 1;
        moved += 1;
    }
    // pipe_full() counts pages: a writer back from waiting wakes the next
    // one only if a page is free, not if the newest merely has room.
    let wake_next_writer = waited && moved == n && c.pages < slots;
    (moved, Wakes { other: was_empty as u64, same: wake_next_writer as u64 })
}

/// pipe_read() (fs/pipe.c, v5.15–v6.18), one message at a time from the
/// oldest page, freeing it with its last message. It wakes one writer if
/// it frees a page of a full pipe (v6.14+, anon_pipe_read()'s
/// `wake_writer`) or, `wake_if_was_full`, if every page was taken when it
/// began (v5.15–v6.13: `was_full`, pipe_full() read before the loop, the
/// wake-up after it, whatever the read freed). A read that finds the pipe empty having read
/// something returns short (and the task reads again, waiting), so its
/// wake-ups come first. Having waited, it wakes the next reader if it
/// leaves data behind.
fn pipe_read(c: &mut Channel, n: u64, waited: bool, wake_if_was_full: bool) -> (u64, Wakes) {
    let slots = c.slots();
    let mut wake_writer = wake_if_was_full && c.pages >= slots;
    let mut moved = 0;
    while moved < n && c.count > 0 {
        c.page_left[c.tail] -= 1;
        c.count -= 1;
        moved += 1;
        if c.page_left[c.tail] == 0 {
            wake_writer |= c.pages >= slots;
            c.tail = (c.tail + 1) % c.page_left.len();
            c.pages -= 1;
            if c.pages == 0 {
                c.head_fill = 0;
            }
        }
    }
    let wake_next_reader = waited && c.count > 0;
    (moved, Wakes { other: wake_writer as u64, same: wake_next_reader as u64 })
}

/// unix_stream_sendmsg(): each message is an skb charged to the sender
/// (sock_alloc_send_pskb() waits while sk_wmem_alloc ≥ sk_sndbuf), and
/// each wakes the blocked readers (other->sk_data_ready(), a sync wake-up
/// of every waiter: unix_stream_data_wait() waits non-exclusively).
fn socket_send(c: &mut Channel, n: u64) -> (u64, Wakes) {
    let moved = (c.capacity - c.count).min(n);
    c.count += moved;
    (moved, Wakes { other: if moved > 0 { ALL } else { 0 }, same: 0 })
}

/// unix_stream_read_generic(): each message read frees its skb
/// (sock_wfree() → unix_write_space()), which wakes every blocked writer
/// once the sender's queued memory is down to a quarter of sk_sndbuf
/// (unix_writable(); sock_wait_for_wmem() waits non-exclusively).
fn socket_recv(c: &mut Channel, wake_at: u64, n: u64) -> (u64, Wakes) {
    let moved = c.count.min(n);
    c.count -= moved;
    let writable = moved > 0 && c.count <= wake_at;
    (moved, Wakes { other: if writable { ALL } else { 0 }, same: 0 })
}

/// A signal queue: each message moved wakes one waiter of the other side,
/// and a task that leaves its side able to go on wakes the next of it.
fn signals_move(c: &mut Channel, n: u64, send: bool) -> (u64, Wakes) {
    let moved = if send { c.capacity - c.count } else { c.count }.min(n);
    if send {
        c.count += moved;
    } else {
        c.count -= moved;
    }
    let go_on = if send { c.count < c.capacity } else { c.count > 0 };
    (moved, Wakes { other: moved, same: go_on as u64 })
}
