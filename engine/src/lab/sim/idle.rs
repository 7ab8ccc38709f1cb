//! An idle CPU's loop (kernel/sched/idle.c `cpuidle_idle_call()`, v6.18):
//! the menu governor picks a state when the CPU goes idle and again each
//! time something wakes it without giving it work, and the state it is in
//! when work comes decides the exit latency the wake-up pays.
//!
//! What wakes an idle CPU without work: a timer armed on it whose task is
//! placed elsewhere, the tick when the governor kept it
//! (`tick_nohz_idle_retain_tick()`), and the polling state's time limit.
//! Ticks and time limits change nothing but the governor's state, so they
//! are not events: they are replayed, in order, when the CPU is next woken
//! (`catch_up`). The retained tick's own work (the idle CPU's periodic
//! balance) is left out: the model's idle CPUs balance through NOHZ as if
//! every idle CPU had stopped its tick.

use super::{Simulation, SimState};
use crate::kernel::cpuidle::{cpuidle_poll_time, Menu, SelectInput};
use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::features::Feature;
use crate::kernel::sched::topology::idle_state_for;
use std::cmp::Reverse;

/// The softlockup watchdog's per-CPU hrtimer (kernel/watchdog.c:
/// `watchdog_thresh` 10 s × 2 / 5): a timer every CPU has however idle the
/// machine, so the governor never sees "no timer at all".
const WATCHDOG_PERIOD_NS: u64 = 4_000_000_000;

/// Marks a sleep's timer in the per-CPU timer lists (a futex timeout
/// carries its wait's number instead).
pub(super) const SLEEP: u32 = u32::MAX;

/// One CPU's idle loop: its governor and the state it is in.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct CpuIdle {
    menu: Menu,
    /// The idle state entered (index into the machine's states) and when.
    idx: usize,
    entered: u64,
    /// `tick_nohz_tick_stopped()`: the governor stopped the tick during
    /// this idle period.
    tick_stopped: bool,
}

impl SimState {
    /// Queues a task's hrtimer on the CPU it runs on (`hrtimer_start()`
    /// from nanosleep or futex_wait: the timer stays on that CPU).
    pub(super) fn arm_timer(&mut self, cpu: u32, at: u64, task: u32, seq: u32) {
        // Drop what fired or was cancelled from the front, so that a CPU
        // that never idles holds only the timers still ahead of it.
        self.next_timer(cpu, self.sched.now);
        if seq == SLEEP {
            self.sleep_at[task as usize] = at;
        }
        self.timers[cpu as usize].push(Reverse((at, task, seq)));
    }

    /// Whether a queued timer is still armed: a sleep's until it fires, a
    /// futex timeout while its wait lasts (a wake cancels it).
    fn timer_armed(&self, at: u64, task: u32, seq: u32) -> bool {
        if seq == SLEEP {
            return self.sleep_at[task as usize] == at;
        }
        let t = &self.sched.tasks[task as usize];
        t.waiting && t.futex_seq == seq
    }

    /// The earliest timer armed on `cpu` not before `now`, the watchdog's
    /// included (`hrtimer_next_event_without()` of the tick).
    fn next_timer(&mut self, cpu: u32, now: u64) -> u64 {
        let watchdog = (now / WATCHDOG_PERIOD_NS + 1) * WATCHDOG_PERIOD_NS;
        while let Some(&Reverse((at, task, seq))) = self.timers[cpu as usize].peek() {
            if at >= now && self.timer_armed(at, task, seq) {
                return at.min(watchdog);
            }
            self.timers[cpu as usize].pop();
        }
        watchdog
    }
}

impl Simulation {
    /// Whether idle CPUs run the menu governor: it is on, the machine has
    /// idle states and the scenario fixes no exit latency.
    pub(super) fn governed(&self) -> bool {
        let s = &self.state.sched;
        s.feat.has(Feature::CPUIDLE_MENU) && !s.topo.idle_states.is_empty() && s.tun.idle_exit.is_none()
    }

    /// Before the run every CPU has long been idle, woken only by its
    /// watchdog: its governor learnt that, stopped the tick and chose a
    /// state at time 0.
    pub(super) fn boot_idle(&mut self) {
        if !self.governed() {
            return;
        }
        for cpu in 0..self.state.idle.len() as u32 {
            let idle = &mut self.state.idle[cpu as usize];
            idle.menu = Menu::long_idle(WATCHDOG_PERIOD_NS);
            idle.tick_stopped = true;
            self.idle_select(cpu, 0);
        }
    }

    /// The CPU just went idle: the first pass of the idle loop, tick
    /// running.
    pub(super) fn idle_enter(&mut self, cpu: u32) {
        let now = self.state.sched.now;
        self.state.cpus[cpu as usize].idle_since = now;
        if !self.governed() {
            return;
        }
        self.state.idle[cpu as usize].tick_stopped = false;
        self.idle_select(cpu, now);
    }

    /// `cpuidle_select()` at `at`, and the tick stopped if it says so.
    fn idle_select(&mut self, cpu: u32, at: u64) {
        let st = &mut self.state;
        let tick_nsec = st.sched.tun.tick_nsec;
        let timer = st.next_timer(cpu, at);
        let idle = &mut st.idle[cpu as usize];
        // tick_nohz_get_sleep_length(): the clockevent's next expiry is the
        // tick while it runs, or an earlier timer.
        let next_tick = (at / tick_nsec + 1) * tick_nsec;
        let delta_tick = if idle.tick_stopped { timer - at } else { next_tick.min(timer) - at };
        let inp = SelectInput {
            sleep_length: timer - at,
            delta_tick,
            tick_stopped: idle.tick_stopped,
            tick_nsec,
            typical_first: st.sched.feat.has(Feature::MENU_TYPICAL_FIRST),
            two_sided_outliers: st.sched.feat.has(Feature::MENU_TWO_SIDED_OUTLIERS),
        };
        let (idx, stop_tick) = idle.menu.select(st.sched.topo.idle_states, &inp);
        idle.idx = idx;
        idle.entered = at;
        idle.tick_stopped |= stop_tick;
    }

    /// Replays what woke the CPU without work before `until`: the retained
    /// tick (at each jiffy) and the polling state's time limit. Each ends
    /// the state (`menu_reflect()`) and the loop selects again. It ends:
    /// a tick wake-up teaches the governor a long interval (menu_update()),
    /// so within 8 of them it stops the tick.
    fn catch_up(&mut self, cpu: u32, until: u64) {
        let states = self.state.sched.topo.idle_states;
        let tick_nsec = self.state.sched.tun.tick_nsec;
        loop {
            let idle = &self.state.idle[cpu as usize];
            let poll_end = if states[idle.idx].polling { idle.entered + cpuidle_poll_time(states, tick_nsec) } else { u64::MAX };
            let tick = if idle.tick_stopped { u64::MAX } else { (idle.entered / tick_nsec + 1) * tick_nsec };
            let woke = poll_end.min(tick);
            let exit = states[idle.idx].exit_latency_ns;
            // A wake-up that comes while the CPU leaves the state for the
            // tick finds it in that state.
            if woke.saturating_add(exit) >= until {
                return;
            }
            let (idx, entered) = (idle.idx, idle.entered);
            let idle = &mut self.state.idle[cpu as usize];
            idle.menu.reflect(idx, woke + exit - entered, tick <= poll_end, poll_end < tick);
            self.idle_select(cpu, woke + exit);
        }
    }

    /// A task's timer fires or is cancelled now: its CPU's idle loop is
    /// brought up to now first, while the timer still counts as armed.
    pub(super) fn timer_ends(&mut self, task: u32) {
        let cpu = self.state.sched.tasks[task as usize].cpu;
        if self.governed() && self.state.sched.rqs[cpu as usize].curr == NIL && !self.state.cpus[cpu as usize].exiting {
            self.catch_up(cpu, self.state.sched.now);
        }
    }

    /// The CPU leaves its idle state at `now`: how long that takes (the
    /// state's exit latency, or the scenario's fixed `idle_exit`).
    pub(super) fn idle_exit(&mut self, cpu: u32) -> u64 {
        let s = &self.state.sched;
        if let Some(fixed) = s.tun.idle_exit {
            return fixed;
        }
        let now = s.now;
        if !self.governed() {
            let idle_for = now.saturating_sub(self.state.cpus[cpu as usize].idle_since);
            return idle_state_for(s.topo.idle_states, idle_for).map_or(0, |st| st.exit_latency_ns);
        }
        self.catch_up(cpu, now);
        let states = self.state.sched.topo.idle_states;
        let idle = &mut self.state.idle[cpu as usize];
        let exit = states[idle.idx].exit_latency_ns;
        idle.menu.reflect(idle.idx, (now + exit).saturating_sub(idle.entered), false, false);
        exit
    }

    /// A timer fired on `cpu` and gave it no work: if idle, it wakes, runs
    /// the timer and goes back to idle.
    pub(super) fn idle_interrupt(&mut self, cpu: u32) {
        let rq = &self.state.sched.rqs[cpu as usize];
        if !self.governed() || rq.curr != NIL || rq.nr_running > 0 || self.state.cpus[cpu as usize].exiting {
            return;
        }
        self.idle_exit(cpu);
        // Back to idle; the interrupt's own time is not modelled, so that
        // no timer due within the exit latency is passed over.
        self.idle_select(cpu, self.state.sched.now);
    }
}
