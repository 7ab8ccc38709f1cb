//! The Linux system calls validation makes, each wrapped in a safe
//! function that returns `io::Result` (errno kept, so EPERM can be told
//! apart). Thread ids are kernel tids (`gettid()`); 0 means the caller.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use schedlab_engine::lab::scenario::Policy;

fn check(ret: libc::c_int) -> io::Result<()> {
    if ret == -1 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// `gettid()`.
pub fn gettid() -> i32 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::gettid() }
}

/// `geteuid() == 0`.
pub fn is_root() -> bool {
    // SAFETY: no arguments, cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// `sysconf(_SC_CLK_TCK)`: USER_HZ, the unit of /proc/stat.
pub fn user_hz() -> u64 {
    // SAFETY: sysconf has no memory arguments.
    let v = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if v > 0 {
        v as u64
    } else {
        100
    }
}

fn timespec_ns(ts: &libc::timespec) -> u64 {
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// `clock_gettime(clock)` in ns.
pub fn clock_ns(clock: libc::clockid_t) -> io::Result<u64> {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: ts is a valid, writable timespec.
    check(unsafe { libc::clock_gettime(clock, &mut ts) })?;
    Ok(timespec_ns(&ts))
}

/// CLOCK_MONOTONIC, ns.
pub fn monotonic_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC).unwrap_or(0)
}

/// CLOCK_THREAD_CPUTIME_ID: the calling thread's CPU time
/// (`task_sched_runtime()`, i.e. `se.sum_exec_runtime` brought up to date
/// by `update_curr()` — which also ends a used-up slice at once, so
/// workers do not poll it; see `worker::OwnClock`).
#[cfg(test)]
pub fn thread_cpu_ns() -> u64 {
    clock_ns(libc::CLOCK_THREAD_CPUTIME_ID).unwrap_or(0)
}

/// `pthread_getcpuclockid(pthread_self())`: a clock another thread of this
/// process can read to get the caller's CPU time.
pub fn own_cpu_clock() -> io::Result<libc::clockid_t> {
    let mut id: libc::clockid_t = 0;
    // SAFETY: pthread_self() is valid; id is writable.
    let r = unsafe { libc::pthread_getcpuclockid(libc::pthread_self(), &mut id) };
    if r != 0 {
        return Err(io::Error::from_raw_os_error(r));
    }
    Ok(id)
}

/// `sched_setaffinity(tid, cpus)`.
pub fn set_affinity(tid: i32, cpus: &[u32]) -> io::Result<()> {
    // SAFETY: an all-zero cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        if c as usize >= 8 * std::mem::size_of::<libc::cpu_set_t>() {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        // SAFETY: c is within the set (checked above).
        unsafe { libc::CPU_SET(c as usize, &mut set) };
    }
    // SAFETY: set is a valid cpu_set_t of the size passed.
    check(unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) })
}

/// `sched_getaffinity(tid)`.
pub fn get_affinity(tid: i32) -> io::Result<Vec<u32>> {
    // SAFETY: an all-zero cpu_set_t is a valid empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: set is writable and of the size passed.
    check(unsafe { libc::sched_getaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) })?;
    let max = 8 * std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: c ranges over the set's size.
    Ok((0..max).filter(|&c| unsafe { libc::CPU_ISSET(c, &set) }).map(|c| c as u32).collect())
}

/// `setpriority(PRIO_PROCESS, tid, nice)`: on Linux this sets one thread's
/// nice value.
pub fn set_nice(tid: i32, nice: i32) -> io::Result<()> {
    // SAFETY: plain integer arguments.
    check(unsafe { libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, nice) })
}

fn policy_number(p: Policy) -> libc::c_int {
    match p {
        Policy::Normal => libc::SCHED_OTHER,
        Policy::Batch => libc::SCHED_BATCH,
        Policy::Idle => libc::SCHED_IDLE,
    }
}

/// `sched_setscheduler(tid, SCHED_OTHER|SCHED_BATCH|SCHED_IDLE)`; the
/// thread keeps its nice value.
pub fn set_policy(tid: i32, p: Policy) -> io::Result<()> {
    let param = libc::sched_param { sched_priority: 0 };
    // SAFETY: param is a valid sched_param.
    check(unsafe { libc::sched_setscheduler(tid, policy_number(p), &param) })
}

/// `struct sched_attr` (include/uapi/linux/sched/types.h), version 0.
#[repr(C)]
struct SchedAttr {
    size: u32,
    sched_policy: u32,
    sched_flags: u64,
    sched_nice: i32,
    sched_priority: u32,
    sched_runtime: u64,
    sched_deadline: u64,
    sched_period: u64,
}

/// `sched_setattr(tid)` with `sched_runtime` = the custom slice (0: back
/// to the base slice), v6.12+. Policy and nice are passed as they are,
/// since sched_setattr sets all of them.
pub fn set_slice(tid: i32, p: Policy, nice: i32, slice_ns: Option<u64>) -> io::Result<()> {
    let attr = SchedAttr {
        size: std::mem::size_of::<SchedAttr>() as u32,
        sched_policy: policy_number(p) as u32,
        sched_flags: 0,
        sched_nice: nice,
        sched_priority: 0,
        sched_runtime: slice_ns.unwrap_or(0),
        sched_deadline: 0,
        sched_period: 0,
    };
    // SAFETY: attr is a valid sched_attr of the size it declares.
    let r = unsafe { libc::syscall(libc::SYS_sched_setattr, tid, &attr as *const SchedAttr, 0u32) };
    check(r as libc::c_int)
}

/// `sched_yield()`.
pub fn yield_now() {
    // SAFETY: no arguments.
    unsafe { libc::sched_yield() };
}

/// `prctl(PR_SET_TIMERSLACK, ns)` for the calling thread: hrtimer sleeps
/// may fire up to this late (default 50 µs for normal tasks).
pub fn set_timer_slack(ns: u64) -> io::Result<()> {
    // SAFETY: plain integer arguments.
    check(unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0) })
}

/// How a [`futex_wait_until`] ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Wake {
    /// The deadline passed.
    Deadline,
    /// The word no longer holds `expected` (or a wake-up came).
    Changed,
}

/// Sleeps until CLOCK_MONOTONIC reaches `deadline_ns` (None: forever) or
/// `word` stops holding `expected`: `FUTEX_WAIT_BITSET` with an absolute
/// timeout, which sleeps in an hrtimer like `clock_nanosleep()` but can be
/// ended early by [`futex_wake_all`]. Signals (EINTR) are waited through.
pub fn futex_wait_until(word: &AtomicU32, expected: u32, deadline_ns: Option<u64>) -> Wake {
    loop {
        if word.load(Ordering::Acquire) != expected {
            return Wake::Changed;
        }
        if deadline_ns.is_some_and(|d| monotonic_ns() >= d) {
            return Wake::Deadline;
        }
        let ts = deadline_ns.map(|d| libc::timespec { tv_sec: (d / 1_000_000_000) as _, tv_nsec: (d % 1_000_000_000) as _ });
        let tsp = ts.as_ref().map_or(std::ptr::null(), |t| t as *const libc::timespec);
        // SAFETY: word points to a live u32; tsp is null or a valid timespec.
        let r = unsafe {
            libc::syscall(
                libc::SYS_futex,
                word.as_ptr(),
                libc::FUTEX_WAIT_BITSET | libc::FUTEX_PRIVATE_FLAG,
                expected,
                tsp,
                std::ptr::null::<u32>(),
                libc::FUTEX_BITSET_MATCH_ANY,
            )
        };
        let err = io::Error::last_os_error().raw_os_error();
        match (r, err) {
            (0, _) => return Wake::Changed,
            (_, Some(libc::ETIMEDOUT)) => return Wake::Deadline,
            (_, Some(libc::EAGAIN)) => return Wake::Changed,
            _ => {}
        }
    }
}

/// Wakes every thread waiting on `word`.
pub fn futex_wake_all(word: &AtomicU32) {
    // SAFETY: word points to a live u32.
    unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, i32::MAX) };
}

/// Wakes at most `n` threads waiting on `word`.
pub fn futex_wake(word: &AtomicU32, n: i32) {
    // SAFETY: word points to a live u32.
    unsafe { libc::syscall(libc::SYS_futex, word.as_ptr(), libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG, n) };
}

/// `pipe2(O_CLOEXEC)`: (read end, write end).
pub fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0 as libc::c_int; 2];
    // SAFETY: fds has room for the two descriptors pipe2 writes.
    check(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) })?;
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// `fcntl(F_SETPIPE_SZ, bytes)`, then `F_GETPIPE_SZ`: the size the kernel
/// actually set (it rounds up to a power-of-two number of pages).
pub fn set_pipe_size(fd: &OwnedFd, bytes: u64) -> io::Result<u64> {
    // SAFETY: plain integer arguments on a descriptor we own.
    let r = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETPIPE_SZ, bytes as libc::c_int) };
    check(r.min(0))?;
    // SAFETY: as above.
    let r = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETPIPE_SZ) };
    check(r.min(0))?;
    Ok(r as u64)
}

/// `dup3(src, dst, O_CLOEXEC)`: makes descriptor number `dst` refer to
/// `src`'s file, atomically (the number never becomes free for another
/// open to take), dropping this table's reference to `dst`'s old file.
pub fn replace_fd(src: RawFd, dst: RawFd) -> io::Result<()> {
    // SAFETY: plain integer arguments; both descriptors stay owned by their
    // OwnedFds, which close them later.
    check(unsafe { libc::dup3(src, dst, libc::O_CLOEXEC) })
}

/// `read(fd, buf)`.
pub fn read(fd: RawFd, buf: &mut [u8]) -> io::Result<usize> {
    // SAFETY: buf is valid for writes of its length.
    let r = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// `write(fd, buf)`.
pub fn write(fd: RawFd, buf: &[u8]) -> io::Result<usize> {
    // SAFETY: buf is valid for reads of its length.
    let r = unsafe { libc::write(fd, buf.as_ptr().cast(), buf.len()) };
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r as usize)
    }
}

/// A signal set holding `signals`.
fn sigset(signals: &[i32]) -> libc::sigset_t {
    // SAFETY: set is initialised by sigemptyset before use.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for &s in signals {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

/// Blocks `signals` for the calling thread: SIGPIPE, so that a write to a
/// pipe without readers only fails with EPIPE; a signal queue's signals,
/// so that they stay queued for its sigwaitinfo() instead of ending the
/// process.
pub fn block_signals(signals: &[i32]) -> io::Result<()> {
    let set = sigset(signals);
    // SAFETY: set is a valid sigset_t; the old mask is not asked for.
    let r = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if r != 0 {
        return Err(io::Error::from_raw_os_error(r));
    }
    Ok(())
}

/// `sigwaitinfo({signo})`: takes one pending `signo` signal of the calling
/// thread, blocking until there is one; returns its value.
pub fn sigwaitinfo(signo: i32) -> io::Result<i32> {
    let set = sigset(&[signo]);
    // SAFETY: set is a valid sigset_t and info a writable siginfo_t.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        check(libc::sigwaitinfo(&set, &mut info).min(0))?;
        // sival_int is the low half of the union (little-endian x86-64).
        Ok(info.si_value().sival_ptr as usize as i32)
    }
}

/// `rt_tgsigqueueinfo(getpid(), tid, signo, {SI_QUEUE, value})`: sigqueue()
/// to one thread of this process, as sigqueue() does to a process.
pub fn tgsigqueue(tid: i32, signo: i32, value: i32) -> io::Result<()> {
    // SAFETY: info is zeroed and then filled as sigqueue() fills it
    // (si_signo, si_code SI_QUEUE, si_pid, si_uid, si_value).
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let raw = &mut info as *mut libc::siginfo_t as *mut libc::c_int;
        // The kernel's layout (x86-64 and every 64-bit Linux ABI): si_signo,
        // si_errno, si_code, 4 bytes of padding, then si_pid, si_uid and
        // si_value as one union starting at byte 16.
        *raw = signo;
        *raw.add(2) = libc::SI_QUEUE;
        *raw.add(4) = libc::getpid();
        *raw.add(5) = libc::getuid() as libc::c_int;
        *raw.add(6) = value;
        check(libc::syscall(libc::SYS_rt_tgsigqueueinfo, libc::getpid(), tid, signo, &info as *const libc::siginfo_t) as libc::c_int)
    }
}

/// Set by the SIGINT handler while a [`SigintGuard`] is installed.
pub static INTERRUPTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_sigint(_: libc::c_int) {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Turns Ctrl-C into a flag for as long as it lives, and puts the previous
/// SIGINT disposition back when dropped.
pub struct SigintGuard {
    old: libc::sigaction,
}

impl SigintGuard {
    pub fn install() -> io::Result<SigintGuard> {
        INTERRUPTED.store(false, Ordering::SeqCst);
        // SAFETY: zeroed sigaction is valid; the handler only stores an atomic.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_sigint as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut sa.sa_mask);
            let mut old: libc::sigaction = std::mem::zeroed();
            check(libc::sigaction(libc::SIGINT, &sa, &mut old))?;
            Ok(SigintGuard { old })
        }
    }
}

impl Drop for SigintGuard {
    fn drop(&mut self) {
        // SAFETY: restores the disposition saved by install().
        unsafe { libc::sigaction(libc::SIGINT, &self.old, std::ptr::null_mut()) };
    }
}

/// The handler's address, for tests that check it was uninstalled.
#[cfg(test)]
pub fn tests_handler_address() -> libc::sighandler_t {
    on_sigint as *const () as libc::sighandler_t
}
