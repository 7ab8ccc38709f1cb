//! Channels and wake words between the real threads of a run.
//!
//! **Channels are pipes.** Each channel is one `pipe2()` sized with
//! `F_SETPIPE_SZ` to its `pages` (default one page, [`PIPE_BYTES`]; read
//! back with `F_GETPIPE_SZ`); a message is pipe size / capacity bytes
//! ([`plan::message_bytes`]). `send CH N` writes N messages' bytes with
//! blocking `write()`s of at most a pipe's size (so each is atomic,
//! ≤ PIPE_BUF), `recv CH N` reads exactly N messages' bytes, looping over
//! short reads. The kernel's pipe_write()/pipe_read() then block and wake
//! (WF_SYNC, one exclusive waiter at a time, room a page at a time) as
//! the model's pipes do.
//!
//! **Signal queues.** A `sync = false` channel (stress-ng's sigfd and
//! sigrt) has one receiver (plan.rs checks) and a real-time signal of its
//! own. `send CH N` queues N signals to the receiver's thread with
//! rt_tgsigqueueinfo() — sigqueue() aimed at a thread — which wakes it
//! without WF_SYNC, as the model's signal queues do; `recv CH N` takes N
//! with sigwaitinfo(), as sigrt's children do. Not a signalfd, as sigfd's
//! parent reads: the workers are threads of one process and share its
//! signal-handler table, and signalfd_notify() wakes every thread waiting
//! on any signalfd of the process, where stress-ng's processes each have
//! their own. Every worker blocks the run's signals, so they stay queued
//! (up to RLIMIT_SIGPENDING; a full queue is an error, where the model's
//! sender would block).
//!
//! **Wake words are futexes.** One 32-bit word per task: 0 idle, 1 a wake
//! is pending, 2 the task waits (or is about to). `wake T` sets T's word to
//! 1 and, if it was 2, `FUTEX_WAKE`s one waiter; `wait` turns 1 into 0 and
//! returns at once, else sets 2 and `FUTEX_WAIT`s — the model's semantics
//! (engine/src/kernel/chan.rs): a wake to a task not waiting is remembered once.
//!
//! **Raw futexes.** `futex_wake T` / `futex_wait [D]` use a second word
//! per task that is always 0: `FUTEX_WAIT` on it always blocks and a
//! `FUTEX_WAKE` finding no waiter is lost, as in the model. The timeout is
//! absolute at D plus the model's 50 µs timer slack (the workers run with
//! a slack of 1 ns), so both expire at the same point. No wake-up latency
//! is recorded for them: a waker calling futex_wake in a loop has no one
//! "wake that woke it".
//!
//! **Wake-up latency** is measured in the threads. A sender reads
//! CLOCK_MONOTONIC just before each `write()` and stores it in the channel
//! unless a stamp is already there (so the stamp is the first send the
//! readers have not yet picked up); a receiver reads the clock just before
//! each `read()` (t0) and just after it returns (t1), and takes the stamp
//! away. If the stamp is later than t0, the data arrived while the reader
//! was in `read()`, i.e. it had blocked (on one CPU the sender cannot run
//! otherwise), and t1 − stamp is recorded: from just before the write that
//! woke it to the reader running again in user space, so it includes the
//! sender's write() up to the wake-up, the switch and the reader's return
//! from read(). `wake`/`wait` do the same with a stamp per task taken just
//! before the wake. The model records from try_to_wake_up() to the switch.
//!
//! **Stopping.** Every thread must end when the run stops, also when it is
//! blocked in `read()`, `write()` or a futex wait, without a poll() on every
//! operation (which would change what is measured). [`Ipc::stop`] therefore
//! `dup3()`s, over every pipe's write end, the write end of a pipe whose
//! read end is closed, and over every read end the read end of a pipe whose
//! write end is closed. That drops the last reference to each real pipe
//! end: a blocked reader sees end of file (pipe_release() wakes it when the
//! writers are gone), a blocked writer gets EPIPE (SIGPIPE is blocked in
//! the workers), and any later read or write on those descriptor numbers
//! fails the same way at once. Unlike close(), the numbers never become
//! free, so a worker about to use one cannot reach a file opened meanwhile.
//! A signal queue's receiver is sent one more signal whose value says
//! "stop". Wake words are set to "pending" and woken. The descriptors are closed
//! when the last thread is joined and the [`Ipc`] is dropped.

use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, Ordering};

use schedlab_engine::lab::trace::hist::Hist;

use super::plan::{self, ChannelPlan};
use super::sys;

const IDLE: u32 = 0;
const PENDING: u32 = 1;
const WAITING: u32 = 2;

/// How a channel operation or a wait ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Io {
    Done,
    /// The run was stopped while it was under way.
    Stopped,
}

/// One channel: a pipe or a signal queue.
#[derive(Debug)]
struct Chan {
    name: String,
    kind: Kind,
    /// CLOCK_MONOTONIC just before the first send receivers have not yet
    /// picked up; 0: none.
    sent_at: AtomicU64,
}

#[derive(Debug)]
enum Kind {
    Pipe { read: OwnedFd, write: OwnedFd, pipe_bytes: u64, msg_bytes: u64 },
    Signals {
        signo: i32,
        receiver: u32,
        /// The receiver's thread id, once its worker is ready; 0 before.
        tid: AtomicI32,
    },
}

/// The value of the signal that ends a receiver's wait when the run stops
/// (sends number theirs from 0).
const STOP_VALUE: i32 = -1;

/// One task's futex word.
#[derive(Debug, Default)]
struct WakeWord {
    word: AtomicU32,
    /// The raw futex word: 0, or 1 once the run stopped.
    futex: AtomicU32,
    /// CLOCK_MONOTONIC of the first wake not yet picked up; 0: none.
    woken_at: AtomicU64,
}

/// The pipes and wake words of one run.
#[derive(Debug, Default)]
pub struct Ipc {
    chans: Vec<Chan>,
    words: Vec<WakeWord>,
    /// A read end without writers and a write end without readers, put
    /// over the real ones by [`Ipc::stop`].
    dead: Option<(OwnedFd, OwnedFd)>,
    stopped: AtomicBool,
}

fn os(what: &str, e: std::io::Error) -> String {
    format!("{what}: {e}")
}

impl Ipc {
    /// Creates a pipe per channel and a wake word per task.
    pub fn new(channels: &[ChannelPlan], tasks: usize) -> Result<Ipc, String> {
        let mut chans = Vec::with_capacity(channels.len());
        for c in channels {
            let kind = match c.signals {
                Some(q) => Kind::Signals {
                    signo: q.signo,
                    receiver: q.receiver,
                    tid: AtomicI32::new(0),
                },
                None => Self::pipe(c)?,
            };
            chans.push(Chan { name: c.name.clone(), kind, sent_at: AtomicU64::new(0) });
        }
        let dead = if chans.iter().all(|c| matches!(c.kind, Kind::Signals { .. })) {
            None
        } else {
            let (dead_read, w) = sys::pipe().map_err(|e| os("pipe2", e))?;
            drop(w);
            let (r, dead_write) = sys::pipe().map_err(|e| os("pipe2", e))?;
            drop(r);
            Some((dead_read, dead_write))
        };
        Ok(Ipc { chans, words: (0..tasks).map(|_| WakeWord::default()).collect(), dead, stopped: AtomicBool::new(false) })
    }

    fn pipe(c: &ChannelPlan) -> Result<Kind, String> {
        let (read, write) = sys::pipe().map_err(|e| os(&format!("channel `{}`: pipe2", c.name), e))?;
        let pipe_bytes = sys::set_pipe_size(&write, c.pipe_bytes).map_err(|e| os(&format!("channel `{}`: F_SETPIPE_SZ {}", c.name, c.pipe_bytes), e))?;
        let msg_bytes = plan::message_bytes(pipe_bytes, c.capacity).map_err(|e| format!("channel `{}`: the kernel set its pipe to {pipe_bytes} bytes: {e}", c.name))?;
        Ok(Kind::Pipe { read, write, pipe_bytes, msg_bytes })
    }

    /// The size each channel's pipe really has, bytes (0: a signal queue).
    pub fn pipe_bytes(&self) -> Vec<u64> {
        self.chans.iter().map(|c| if let Kind::Pipe { pipe_bytes, .. } = c.kind { pipe_bytes } else { 0 }).collect()
    }

    /// The largest single write or read a worker makes: one pipe's size.
    pub fn max_chunk(&self) -> usize {
        self.chans.iter().map(|c| if let Kind::Pipe { pipe_bytes, .. } = c.kind { pipe_bytes as usize } else { 0 }).max().unwrap_or(0)
    }

    /// The signals of the run's signal queues, which every worker blocks.
    pub fn signals(&self) -> Vec<i32> {
        self.chans.iter().filter_map(|c| if let Kind::Signals { signo, .. } = c.kind { Some(signo) } else { None }).collect()
    }

    /// Task `task` runs as thread `tid`: the signal queues it receives
    /// from are sent there.
    pub fn set_tid(&self, task: u32, tid: i32) {
        for c in &self.chans {
            if let Kind::Signals { receiver, tid: t, .. } = &c.kind {
                if *receiver == task {
                    t.store(tid, Ordering::SeqCst);
                }
            }
        }
    }

    fn stopped(&self) -> bool {
        self.stopped.load(Ordering::SeqCst)
    }

    /// Ends every blocked or future channel operation and wait (see the
    /// module's notes). Idempotent.
    pub fn stop(&self) {
        if self.stopped.swap(true, Ordering::SeqCst) {
            return;
        }
        for c in &self.chans {
            match (&c.kind, &self.dead) {
                (Kind::Pipe { read, write, .. }, Some((dead_read, dead_write))) => {
                    // Failure is not expected (both numbers are open); a pipe
                    // left uncut would show as a thread that is not joined.
                    let _ = sys::replace_fd(dead_write.as_raw_fd(), write.as_raw_fd());
                    let _ = sys::replace_fd(dead_read.as_raw_fd(), read.as_raw_fd());
                }
                (Kind::Signals { signo, tid, .. }, _) => {
                    let tid = tid.load(Ordering::SeqCst);
                    if tid != 0 {
                        // As above: a receiver left waiting would not be joined.
                        let _ = sys::tgsigqueue(tid, *signo, STOP_VALUE);
                    }
                }
                (Kind::Pipe { .. }, None) => {}
            }
        }
        for w in &self.words {
            w.word.store(PENDING, Ordering::SeqCst);
            sys::futex_wake_all(&w.word);
            w.futex.store(1, Ordering::SeqCst);
            sys::futex_wake_all(&w.futex);
        }
    }

    /// `send CH N`: writes N messages, blocking while the pipe is full, or
    /// queues N signals.
    pub fn send(&self, ch: u32, n: u32, buf: &[u8]) -> Result<Io, String> {
        let c = &self.chans[ch as usize];
        let (write, msg_bytes) = match &c.kind {
            Kind::Pipe { write, msg_bytes, .. } => (write, *msg_bytes),
            Kind::Signals { signo, tid, .. } => return self.queue_signals(c, *signo, tid.load(Ordering::SeqCst), n),
        };
        let mut left = n as u64 * msg_bytes;
        while left > 0 {
            let _ = c.sent_at.compare_exchange(0, sys::monotonic_ns().max(1), Ordering::AcqRel, Ordering::Relaxed);
            let len = left.min(buf.len() as u64) as usize;
            match sys::write(write.as_raw_fd(), &buf[..len]) {
                Ok(k) => left -= k as u64,
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(_) if self.stopped() => return Ok(Io::Stopped),
                Err(e) => return Err(os(&format!("send {}: write", c.name), e)),
            }
        }
        Ok(Io::Done)
    }

    /// N signals to thread `tid`, each a sigqueue() of its own.
    fn queue_signals(&self, c: &Chan, signo: i32, tid: i32, n: u32) -> Result<Io, String> {
        for k in 0..n {
            if self.stopped() {
                return Ok(Io::Stopped);
            }
            let _ = c.sent_at.compare_exchange(0, sys::monotonic_ns().max(1), Ordering::AcqRel, Ordering::Relaxed);
            match sys::tgsigqueue(tid, signo, k as i32) {
                Ok(()) => {}
                // The receiver's thread may be gone once the run stopped.
                Err(_) if self.stopped() => return Ok(Io::Stopped),
                Err(e) if e.raw_os_error() == Some(libc::EAGAIN) => {
                    return Err(format!("send {}: the signal queue is full (RLIMIT_SIGPENDING), where the model's sender would block", c.name))
                }
                Err(e) => return Err(os(&format!("send {}: rt_tgsigqueueinfo to tid {tid}", c.name), e)),
            }
        }
        Ok(Io::Done)
    }

    /// `recv CH N` of a signal queue: N sigwaitinfo()s, each blocking until
    /// a signal is there; the latency of each that a send before `end`
    /// woke is recorded.
    fn take_signals(&self, c: &Chan, signo: i32, n: u32, latency: &mut Hist, end: u64) -> Result<Io, String> {
        for _ in 0..n {
            if self.stopped() {
                return Ok(Io::Stopped);
            }
            let t0 = sys::monotonic_ns();
            match sys::sigwaitinfo(signo) {
                Ok(STOP_VALUE) => return Ok(Io::Stopped),
                Ok(_) => {
                    let t1 = sys::monotonic_ns();
                    let stamp = c.sent_at.swap(0, Ordering::AcqRel);
                    if stamp > t0 && stamp < end {
                        latency.record(t1.saturating_sub(stamp));
                    }
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(e) => return Err(os(&format!("recv {}: sigwaitinfo", c.name), e)),
            }
        }
        Ok(Io::Done)
    }

    /// `recv CH N`: reads exactly N messages' bytes (takes N signals of a
    /// signal queue), blocking while there are none; records the latency
    /// of each read that was woken by a send starting before `end`.
    pub fn recv(&self, ch: u32, n: u32, buf: &mut [u8], latency: &mut Hist, end: u64) -> Result<Io, String> {
        let c = &self.chans[ch as usize];
        let (read, msg_bytes) = match &c.kind {
            Kind::Pipe { read, msg_bytes, .. } => (read, *msg_bytes),
            Kind::Signals { signo, .. } => return self.take_signals(c, *signo, n, latency, end),
        };
        let mut left = n as u64 * msg_bytes;
        while left > 0 {
            let len = left.min(buf.len() as u64) as usize;
            let t0 = sys::monotonic_ns();
            match sys::read(read.as_raw_fd(), &mut buf[..len]) {
                Ok(0) if self.stopped() => return Ok(Io::Stopped),
                Ok(0) => return Err(format!("recv {}: end of file while the run goes on", c.name)),
                Ok(k) => {
                    left -= k as u64;
                    let t1 = sys::monotonic_ns();
                    let stamp = c.sent_at.swap(0, Ordering::AcqRel);
                    if stamp > t0 && stamp < end {
                        latency.record(t1.saturating_sub(stamp));
                    }
                }
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(_) if self.stopped() => return Ok(Io::Stopped),
                Err(e) => return Err(os(&format!("recv {}: read", c.name), e)),
            }
        }
        Ok(Io::Done)
    }

    /// `wake TASK`: sets its word; wakes it if it waits.
    pub fn wake(&self, target: u32) {
        let w = &self.words[target as usize];
        let _ = w.woken_at.compare_exchange(0, sys::monotonic_ns().max(1), Ordering::AcqRel, Ordering::Relaxed);
        if w.word.swap(PENDING, Ordering::SeqCst) == WAITING {
            sys::futex_wake(&w.word, 1);
        }
    }

    /// `futex_wake TASK`: FUTEX_WAKE of one waiter on its raw word.
    pub fn futex_wake(&self, target: u32) {
        sys::futex_wake(&self.words[target as usize].futex, 1);
    }

    /// `futex_wait [D]` by task `me`: FUTEX_WAIT on its raw word until a
    /// wake or CLOCK_MONOTONIC `deadline`. Returns whether it timed out.
    pub fn futex_wait(&self, me: usize, deadline: Option<u64>) -> (Io, bool) {
        let timed_out = sys::futex_wait_until(&self.words[me].futex, 0, deadline) == sys::Wake::Deadline;
        (if self.stopped() { Io::Stopped } else { Io::Done }, timed_out)
    }

    /// `wait` by task `me`: returns at once if a wake is pending (clearing
    /// it), else blocks until one comes; records the latency of a wake-up
    /// from a wake before `end`.
    pub fn wait(&self, me: usize, latency: &mut Hist, end: u64) -> Io {
        let w = &self.words[me];
        let t0 = sys::monotonic_ns();
        loop {
            if w.word.compare_exchange(PENDING, IDLE, Ordering::SeqCst, Ordering::SeqCst).is_ok() {
                break;
            }
            let _ = w.word.compare_exchange(IDLE, WAITING, Ordering::SeqCst, Ordering::SeqCst);
            // Returns at once unless the word still says "waiting".
            sys::futex_wait_until(&w.word, WAITING, None);
        }
        let t1 = sys::monotonic_ns();
        let stamp = w.woken_at.swap(0, Ordering::AcqRel);
        if self.stopped() {
            return Io::Stopped;
        }
        if stamp > t0 && stamp < end {
            latency.record(t1.saturating_sub(stamp));
        }
        Io::Done
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::time::Duration;

    use super::super::plan::PIPE_BYTES;

    fn chan(name: &str, capacity: u64) -> ChannelPlan {
        ChannelPlan { name: name.into(), capacity, pipe_bytes: PIPE_BYTES, msg_bytes: PIPE_BYTES / capacity, signals: None }
    }

    #[test]
    fn pipes_are_one_page_and_hold_capacity_messages() {
        let ipc = Ipc::new(&[chan("a", 1), chan("b", 1024)], 2).unwrap();
        assert_eq!(ipc.pipe_bytes(), [4096, 4096]);
        let msg = |c: &Chan| if let Kind::Pipe { msg_bytes, .. } = c.kind { msg_bytes } else { 0 };
        assert_eq!((msg(&ipc.chans[0]), msg(&ipc.chans[1])), (4096, 4));
        let mut buf = vec![0u8; ipc.max_chunk()];
        let mut lat = Hist::default();
        // 1024 messages of 4 bytes fill the pipe; reading 3 leaves 1021.
        assert_eq!(ipc.send(1, 1024, &buf), Ok(Io::Done));
        assert_eq!(ipc.recv(1, 3, &mut buf, &mut lat, u64::MAX), Ok(Io::Done));
        assert_eq!(lat.count, 0, "the data was there: no wake-up");
        assert_eq!(ipc.recv(1, 1021, &mut buf, &mut lat, u64::MAX), Ok(Io::Done));
    }

    #[test]
    fn wake_is_remembered_once() {
        let ipc = Ipc::new(&[], 1).unwrap();
        let mut lat = Hist::default();
        ipc.wake(0);
        ipc.wake(0);
        assert_eq!(ipc.wait(0, &mut lat, u64::MAX), Io::Done, "pending: returns at once");
        assert_eq!(ipc.words[0].word.load(Ordering::SeqCst), IDLE, "two wakes, one pending");
        assert_eq!(lat.count, 0);
    }

    #[test]
    fn a_blocked_reader_is_woken_and_measured() {
        let ipc = Arc::new(Ipc::new(&[chan("c", 1)], 2).unwrap());
        let i = ipc.clone();
        let reader = std::thread::spawn(move || {
            let mut buf = vec![0u8; i.max_chunk()];
            let mut lat = Hist::default();
            (i.recv(0, 1, &mut buf, &mut lat, u64::MAX), lat.count)
        });
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(ipc.send(0, 1, &vec![0u8; 4096]), Ok(Io::Done));
        assert_eq!(reader.join().unwrap(), (Ok(Io::Done), 1));
    }

    /// Stop ends a reader, a writer and a waiter blocked for good, and
    /// every later operation at once.
    #[test]
    fn stop_ends_blocked_reads_writes_and_waits() {
        let ipc = Arc::new(Ipc::new(&[chan("empty", 1), chan("full", 1)], 3).unwrap());
        let buf = vec![0u8; 4096];
        assert_eq!(ipc.send(1, 1, &buf), Ok(Io::Done), "fills `full`");
        let spawn = |f: fn(&Ipc) -> Io| {
            let i = ipc.clone();
            std::thread::spawn(move || f(&i))
        };
        let threads = [
            spawn(|i| i.recv(0, 1, &mut [0u8; 4096], &mut Hist::default(), u64::MAX).unwrap()),
            spawn(|i| i.send(1, 1, &[0u8; 4096]).unwrap()),
            spawn(|i| i.wait(2, &mut Hist::default(), u64::MAX)),
        ];
        std::thread::sleep(Duration::from_millis(100));
        assert!(threads.iter().all(|t| !t.is_finished()), "all three block");
        ipc.stop();
        for t in threads {
            assert_eq!(t.join().unwrap(), Io::Stopped);
        }
        assert_eq!(ipc.send(0, 1, &buf), Ok(Io::Stopped));
        assert_eq!(ipc.recv(1, 5, &mut vec![0u8; 4096], &mut Hist::default(), u64::MAX), Ok(Io::Stopped));
    }

    /// A signal queue to task 0, received on signal `signo`.
    fn signals(signo: i32) -> ChannelPlan {
        ChannelPlan { name: "q".into(), capacity: 65536, pipe_bytes: 0, msg_bytes: 0, signals: Some(plan::SignalQueue { receiver: 0, signo }) }
    }

    /// The receiver's thread: blocks the queue's signals as every worker
    /// does, says who it is, then runs `f`.
    fn receiver<T: Send + 'static>(ipc: &Arc<Ipc>, f: fn(&Ipc) -> T) -> std::thread::JoinHandle<T> {
        let i = ipc.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            sys::block_signals(&i.signals()).unwrap();
            tx.send(sys::gettid()).unwrap();
            f(&i)
        });
        ipc.set_tid(0, rx.recv().unwrap());
        t
    }

    /// Signals queue: three sent before the receiver asks are all taken
    /// without a wake-up; one sent while it waits in sigwaitinfo() wakes
    /// it and is measured.
    #[test]
    fn a_signal_queue_holds_what_was_sent_and_wakes_its_reader() {
        let ipc = Arc::new(Ipc::new(&[signals(40)], 1).unwrap());
        assert_eq!((ipc.signals(), ipc.pipe_bytes()), (vec![40], vec![0]));
        let reader = receiver(&ipc, |i| {
            let mut buf = [];
            let mut lat = Hist::default();
            std::thread::sleep(Duration::from_millis(50));
            let queued = (i.recv(0, 3, &mut buf, &mut lat, u64::MAX), lat.count);
            (queued, i.recv(0, 1, &mut buf, &mut lat, u64::MAX), lat.count)
        });
        assert_eq!(ipc.send(0, 3, &[]), Ok(Io::Done));
        std::thread::sleep(Duration::from_millis(150));
        assert_eq!(ipc.send(0, 1, &[]), Ok(Io::Done));
        assert_eq!(reader.join().unwrap(), ((Ok(Io::Done), 0), Ok(Io::Done), 1));
    }

    /// Stop ends a reader blocked on an empty signal queue, and every
    /// later send and receive at once.
    #[test]
    fn stop_ends_a_blocked_signal_reader() {
        let ipc = Arc::new(Ipc::new(&[signals(41)], 1).unwrap());
        let reader = receiver(&ipc, |i| i.recv(0, 1, &mut [], &mut Hist::default(), u64::MAX));
        std::thread::sleep(Duration::from_millis(100));
        assert!(!reader.is_finished(), "it blocks");
        ipc.stop();
        assert_eq!(reader.join().unwrap(), Ok(Io::Stopped));
        assert_eq!(ipc.send(0, 1, &[]), Ok(Io::Stopped));
        assert_eq!(ipc.recv(0, 1, &mut [], &mut Hist::default(), u64::MAX), Ok(Io::Stopped));
    }
}
