//! Stepping, playing and rewinding a run, for the viewer.
//!
//! A `Player` owns two simulations of one scenario:
//! - `ahead` runs ahead of what is shown, keeping the full event log; the
//!   timeline is read from it, and it leaves a checkpoint every `every`
//!   events;
//! - `cursor` is the instant shown (its log keeps only the hash). Moving
//!   forward steps it; moving back (or far forward) restores the nearest
//!   checkpoint at or before the target and replays, so seeking to event k
//!   gives exactly the state of stepping k events from the start.
//!
//! Event numbers are `SimState::events`: event k is the k-th discrete event
//! processed, and "at event k" means after it (event 0 is the start).
//!
//! The log it keeps is bounded. A viewer's player keeps a window of the
//! newest records (`set_window`): when the log passes it, the oldest
//! half of the records, their pick paths and scans, and the timeline
//! before them are dropped. Seeking stays exact everywhere (the cursor
//! replays from checkpoints, which hold whole states); only the records of
//! events before [`Player::kept_from`] are gone. A player for comparing two
//! runs keeps everything and stops computing at `set_limit` events instead,
//! since the first divergence needs both whole logs.
//!
//! The player also keeps a short history of one CPU's per-task lag over the
//! last few events (for the lag view's sparklines), sampled as the cursor
//! moves, so it does not depend on how the user got to an instant.

use std::collections::VecDeque;

use crate::kernel::lib::rbtree::NIL;
use crate::lab::scenario::ScenarioError;
use crate::kernel::sched::select::Seen;
use crate::lab::sim::{Checkpoint, Log, LogMode, Simulation};
use crate::lab::snapshot::CpuView;
use crate::lab::timeline::Timeline;
use crate::lab::trace::{Entry, Record};
use crate::{from_text, Config, Overrides};

/// At most this many checkpoints are kept: past it, every other one is
/// dropped and the interval doubles.
const MAX_CHECKPOINTS: usize = 256;
/// Initial checkpoint interval, in events.
const FIRST_EVERY: u64 = 1024;
/// The viewer's default window, in records (about 40 bytes each: the log
/// stays under ~160 MB and keeps at least the newest 2 M records, some
/// 900 k events of a busy machine).
pub const DEFAULT_WINDOW: usize = 4_000_000;
/// Records scanned backwards at most when looking for the last pick or
/// placement.
const MAX_BACK_SCAN: usize = 2_000_000;

/// One sample of the lag history: each queued task's lag on the tracked CPU
/// after event `event`.
#[derive(Clone, Debug, PartialEq)]
pub struct LagSample {
    pub event: u64,
    pub time: u64,
    /// (task, lag in ns of service), curr first, then tree order.
    pub lags: Vec<(u32, i64)>,
}

/// A scanned CPU of a placement: its number and what the scan saw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scanned {
    pub cpu: u32,
    pub seen: Seen,
}

/// Decodes a placement scan entry of `Log::paths` (`cpu << 2 | Seen`).
pub fn decode_scan(v: u32) -> Scanned {
    let seen = match v & 3 {
        0 => Seen::Busy,
        1 => Seen::Idle,
        2 => Seen::SchedIdle,
        _ => Seen::BusyCore,
    };
    Scanned { cpu: v >> 2, seen }
}

/// Entries a record adds to `Log::paths`.
fn side_len(r: &Record) -> u32 {
    match *r {
        Record::Pick { path_len, .. } => path_len as u32,
        Record::Placement { scan_len, .. } => scan_len as u32,
        _ => 0,
    }
}

/// Which way to look for an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    Forward,
    Backward,
}

pub struct Player {
    ahead: Simulation,
    cursor: Simulation,
    pub config: Config,
    checkpoints: Vec<Checkpoint>,
    every: u64,
    pub timeline: Timeline,
    /// Computing stops at this many events (without a window).
    limit: u64,
    /// Most records kept (None: all, up to `limit` events).
    window: Option<usize>,
    /// The first event whose records are still kept, and its time.
    kept_from: (u64, u64),
    tracked: Option<u32>,
    hist_len: usize,
    history: VecDeque<LagSample>,
    /// Per log mark: where its event's pick paths and placement scans start
    /// in `Log::paths` (see [`Player::resolve`]).
    path_base: Vec<u32>,
    path_next: u32,
}

impl Player {
    /// Parses and builds the scenario (twice: ahead and cursor). Nothing is
    /// computed yet; call [`Player::compute`].
    pub fn new(text: &str, ov: &Overrides) -> Result<Player, ScenarioError> {
        let (ahead, config) = from_text(text, ov, LogMode::Full)?;
        let (cursor, _) = from_text(text, ov, LogMode::HashOnly)?;
        let cpus = config.cpus;
        let cp = ahead.checkpoint();
        Ok(Player {
            ahead,
            cursor,
            config,
            checkpoints: vec![cp],
            every: FIRST_EVERY,
            timeline: Timeline::new(cpus),
            limit: 4_000_000,
            window: None,
            kept_from: (0, 0),
            tracked: None,
            hist_len: 64,
            history: VecDeque::new(),
            path_base: Vec::new(),
            path_next: 0,
        })
    }

    /// Caps the number of events computed (default 4 M) when no window
    /// is set.
    pub fn set_limit(&mut self, limit: u64) {
        self.limit = limit.max(1);
    }

    /// Keeps at most `records` records (at least 2: an event's own), the
    /// newest, and computes the whole run instead of stopping at the limit.
    pub fn set_window(&mut self, records: usize) {
        self.window = Some(records.max(2));
        self.trim();
    }

    /// The first event (and its time) whose records are kept: 0 until the
    /// window dropped any.
    pub fn kept_from(&self) -> (u64, u64) {
        self.kept_from
    }

    /// How many recent events the lag history covers.
    pub fn set_history_len(&mut self, n: usize) {
        self.hist_len = n.max(1);
        self.reseek();
    }

    /// Advances the run ahead by at most `n` events; returns how many were
    /// processed (0 once the run is complete or the limit reached).
    pub fn compute(&mut self, n: u64) -> u64 {
        let mut done = 0;
        while done < n && !self.finished() {
            if !self.ahead.step() {
                break;
            }
            done += 1;
            if self.window.is_some_and(|w| self.ahead.log.records.len() > w) {
                // The timeline and path index read the events before they
                // go.
                self.timeline.ingest(&self.ahead.log, self.ahead.now());
                self.index_paths();
                self.trim();
            }
            if self.ahead.state.events.is_multiple_of(self.every) {
                self.checkpoints.push(self.ahead.checkpoint());
                if self.checkpoints.len() > MAX_CHECKPOINTS {
                    let mut i = 0;
                    self.checkpoints.retain(|_| {
                        i += 1;
                        (i - 1) % 2 == 0
                    });
                    self.every *= 2;
                }
            }
        }
        self.timeline.ingest(&self.ahead.log, self.ahead.now());
        self.index_paths();
        self.trim();
        done
    }

    /// Drops the oldest half of the window once the log is past it: the
    /// records of whole events, their side-buffer entries (every start
    /// left is rebased), their `path_base` entries and the timeline before
    /// them. Amortised O(1) per record.
    fn trim(&mut self) {
        let Some(window) = self.window else { return };
        let log = &mut self.ahead.log;
        if log.records.len() <= window || log.marks.len() < 2 {
            return;
        }
        // The first event to keep: the one holding record len - window/2
        // (never the whole log: the newest event stays).
        let from = log.records.len() - window / 2;
        let m = log.marks.partition_point(|mk| (mk.first as usize) <= from).saturating_sub(1).clamp(1, log.marks.len() - 1);
        let (rec_cut, path_cut) = (log.marks[m].first, self.path_base[m]);
        log.records.drain(..rec_cut as usize);
        log.marks.drain(..m);
        log.paths.drain(..path_cut as usize);
        for mk in &mut log.marks {
            mk.first -= rec_cut;
        }
        for r in &mut log.records {
            match r {
                Record::Pick { path_start: at, .. } | Record::Placement { scan_start: at, .. } => *at -= path_cut,
                _ => {}
            }
        }
        self.path_base.drain(..m);
        for b in &mut self.path_base {
            *b -= path_cut;
        }
        self.path_next -= path_cut;
        self.kept_from = (log.marks[0].event, log.marks[0].time);
        self.timeline.forget(m, self.kept_from.1);
    }

    /// Extends `path_base` over the marks the log gained. An event appends
    /// to `Log::paths` the paths of its picks and the scans of its
    /// placements, in record order, so each one's absolute start is a
    /// running sum of the lengths.
    fn index_paths(&mut self) {
        let log = &self.ahead.log;
        for i in self.path_base.len()..log.marks.len() {
            self.path_base.push(self.path_next);
            let end = log.marks.get(i + 1).map_or(log.records.len(), |n| n.first as usize);
            for r in &log.records[log.marks[i].first as usize..end] {
                self.path_next += side_len(r);
            }
        }
    }

    /// Record `j` of mark `i` with its side-buffer start made absolute.
    ///
    /// `Simulation::flush()` rebases `Pick::path_start` onto `Log::paths`
    /// but leaves `Placement::scan_start` relative to the event's own
    /// buffer; the running sum fixes both (and stays right if flush is
    /// changed to rebase placements too).
    fn resolve(&self, i: usize, j: usize) -> Record {
        let log = &self.ahead.log;
        let first = log.marks[i].first as usize;
        let mut at = self.path_base.get(i).copied().unwrap_or(0);
        for r in &log.records[first..j] {
            at += side_len(r);
        }
        self.resolve_at(j, at)
    }

    /// Record `j` with its side buffer starting at `at`.
    fn resolve_at(&self, j: usize, at: u32) -> Record {
        match self.ahead.log.records[j] {
            Record::Placement { task, waker_cpu, prev, cpu, how, end, scan_len, filtered, .. } => {
                Record::Placement { task, waker_cpu, prev, cpu, how, end, scan_start: at, scan_len, filtered }
            }
            Record::Pick { cpu, task, reason, path_len, v, vruntime, deadline, .. } => {
                Record::Pick { cpu, task, reason, path_start: at, path_len, v, vruntime, deadline }
            }
            r => r,
        }
    }

    /// The whole run (up to the limit, without a window) has been computed.
    pub fn finished(&self) -> bool {
        self.ahead.state.done || self.truncated()
    }

    /// The run was cut at the event limit before its end.
    pub fn truncated(&self) -> bool {
        self.window.is_none() && !self.ahead.state.done && self.ahead.state.events >= self.limit
    }

    /// Events computed so far.
    pub fn computed(&self) -> u64 {
        self.ahead.state.events
    }

    /// Simulated time computed so far.
    pub fn computed_time(&self) -> u64 {
        self.ahead.now()
    }

    /// The simulated duration of the scenario.
    pub fn duration(&self) -> u64 {
        self.ahead.info.duration
    }

    /// The simulation at the shown instant (its log holds only the hash; the
    /// records are in [`Player::log`]).
    pub fn sim(&self) -> &Simulation {
        &self.cursor
    }

    /// The run computed ahead (full log, at [`Player::computed`] events):
    /// what [`crate::lab::compare::first_divergence`] compares.
    pub fn ahead(&self) -> &Simulation {
        &self.ahead
    }

    /// The full event log computed so far.
    pub fn log(&self) -> &Log {
        &self.ahead.log
    }

    /// The shown event number.
    pub fn event(&self) -> u64 {
        self.cursor.state.events
    }

    pub fn time(&self) -> u64 {
        self.cursor.now()
    }

    pub fn checkpoint_interval(&self) -> u64 {
        self.every
    }

    fn ensure(&mut self, k: u64) {
        while self.computed() < k && !self.finished() {
            let n = (k - self.computed()).min(1 << 16);
            if self.compute(n) == 0 {
                break;
            }
        }
    }

    fn sample(&mut self) {
        let Some(cpu) = self.tracked else { return };
        let sched = self.cursor.sched();
        if cpu as usize >= sched.rqs.len() {
            return;
        }
        let view = sched.cpu_view(cpu, &self.cursor.info.task_names);
        let lags = view.entities.iter().map(|e| (e.task.unwrap_or(NIL), e.lag)).collect();
        self.history.push_back(LagSample { event: self.cursor.state.events, time: self.cursor.now(), lags });
        while self.history.len() > self.hist_len {
            self.history.pop_front();
        }
    }

    /// Steps the cursor to event `k`, sampling the last `hist_len` events.
    fn step_to(&mut self, k: u64) {
        let from_sample = (k + 1).saturating_sub(self.hist_len as u64);
        while self.cursor.state.events < k {
            if !self.cursor.step() {
                break;
            }
            if self.cursor.state.events >= from_sample {
                self.sample();
            }
        }
    }

    /// Restores the checkpoint at or before `at` and replays to `k`.
    fn replay(&mut self, at: u64, k: u64) {
        let i = ((at / self.every) as usize).min(self.checkpoints.len() - 1);
        let cp = &self.checkpoints[i];
        self.cursor.restore(cp);
        self.history.clear();
        let from_sample = (k + 1).saturating_sub(self.hist_len as u64);
        if self.cursor.state.events >= from_sample {
            self.sample();
        }
        self.step_to(k);
    }

    /// Moves the shown instant to event `k` (clamped to the run). Returns
    /// the event reached.
    pub fn seek(&mut self, k: u64) -> u64 {
        self.ensure(k);
        let k = k.min(self.computed());
        let cur = self.event();
        let span = self.every + self.hist_len as u64;
        let first = k.saturating_sub(self.hist_len as u64 - 1);
        if k == cur {
            return k;
        }
        if k > cur && (k - cur <= span || first / self.every <= cur / self.every) {
            self.step_to(k);
        } else {
            self.replay(first, k);
        }
        self.event()
    }

    /// Seeks to `k` again from a checkpoint (after the tracked CPU changed).
    fn reseek(&mut self) {
        let k = self.event();
        let first = k.saturating_sub(self.hist_len as u64 - 1);
        self.replay(first, k);
    }

    /// One event forward. Returns false at the end of the run.
    pub fn step(&mut self) -> bool {
        let k = self.event();
        self.seek(k + 1) > k
    }

    /// One event back. Returns false at the start.
    pub fn step_back(&mut self) -> bool {
        let k = self.event();
        k > 0 && self.seek(k - 1) < k
    }

    /// The last event (computing the run if needed) at or before time `t`.
    pub fn event_at_time(&mut self, t: u64) -> u64 {
        while self.computed_time() <= t && !self.finished() {
            if self.compute(1 << 14) == 0 {
                break;
            }
        }
        let marks = &self.ahead.log.marks;
        let i = marks.partition_point(|m| m.time <= t);
        if i == 0 {
            // Before the kept records the events' times are gone: the
            // earliest instant still placed in time.
            self.kept_from.0
        } else if i == marks.len() && self.finished() && self.ahead.now() <= t {
            self.computed()
        } else {
            marks[i - 1].event
        }
    }

    /// Seeks to the last event at or before time `t`.
    pub fn seek_time(&mut self, t: u64) -> u64 {
        let k = self.event_at_time(t);
        self.seek(k)
    }

    /// Plays forward to simulated time `t`: every event up to it.
    pub fn play_to(&mut self, t: u64) -> u64 {
        while self.computed_time() < t && !self.finished() {
            if self.compute(1 << 14) == 0 {
                break;
            }
        }
        let k = self.event_at_time(t);
        if k > self.event() {
            self.seek(k)
        } else {
            self.event()
        }
    }

    /// The CPU whose lag history is kept.
    pub fn set_tracked(&mut self, cpu: Option<u32>) {
        if self.tracked != cpu {
            self.tracked = cpu;
            self.reseek();
        }
    }

    pub fn tracked(&self) -> Option<u32> {
        self.tracked
    }

    /// Lag samples of the tracked CPU, oldest first, ending at the shown
    /// event.
    pub fn history(&self) -> &VecDeque<LagSample> {
        &self.history
    }

    /// The log marks (index range) of event `k`.
    fn mark_index(&self, k: u64) -> Option<usize> {
        let marks = &self.ahead.log.marks;
        let i = marks.partition_point(|m| m.event < k);
        (i < marks.len() && marks[i].event == k).then_some(i)
    }

    fn mark_range(&self, i: usize) -> std::ops::Range<usize> {
        let log = &self.ahead.log;
        let end = log.marks.get(i + 1).map_or(log.records.len(), |n| n.first as usize);
        log.marks[i].first as usize..end
    }

    /// The records of event `k` (empty if it wrote none or is not computed).
    pub fn records(&self, k: u64) -> &[Record] {
        match self.mark_index(k) {
            Some(i) => &self.ahead.log.records[self.mark_range(i)],
            None => &[],
        }
    }

    /// The entries of event `k`, with absolute side-buffer starts (pick
    /// paths and placement scans index [`Player::log`]'s `paths`).
    pub fn entries(&self, k: u64) -> Vec<Entry> {
        let Some(i) = self.mark_index(k) else { return Vec::new() };
        let m = self.ahead.log.marks[i];
        // One pass: each record's side buffer follows the one before.
        let mut at = self.path_base.get(i).copied().unwrap_or(0);
        self.mark_range(i)
            .map(|j| {
                let record = self.resolve_at(j, at);
                at += side_len(&self.ahead.log.records[j]);
                Entry { time: m.time, event: m.event, record }
            })
            .collect()
    }

    /// Number of records written by events 1..=k.
    pub fn records_until(&self, k: u64) -> usize {
        let marks = &self.ahead.log.marks;
        let i = marks.partition_point(|m| m.event <= k);
        marks.get(i).map_or(self.ahead.log.records.len(), |m| m.first as usize)
    }

    /// The last record at or before event `k` that `pred` accepts.
    pub fn last_record(&self, k: u64, pred: impl Fn(&Record) -> bool) -> Option<Entry> {
        let log = &self.ahead.log;
        let mi = log.marks.partition_point(|m| m.event <= k);
        let mut scanned = 0;
        for i in (0..mi).rev() {
            let r = self.mark_range(i);
            for j in r.rev() {
                scanned += 1;
                if pred(&log.records[j]) {
                    let m = log.marks[i];
                    return Some(Entry { time: m.time, event: m.event, record: self.resolve(i, j) });
                }
            }
            if scanned > MAX_BACK_SCAN {
                break;
            }
        }
        None
    }

    /// The last pick on `cpu` at or before event `k`, with the entities
    /// pick_eevdf() visited.
    pub fn last_pick(&self, cpu: u32, k: u64) -> Option<(Entry, Vec<u32>)> {
        let e = self.last_record(k, |r| matches!(*r, Record::Pick { cpu: c, .. } if c == cpu))?;
        let Record::Pick { path_start, path_len, .. } = e.record else { unreachable!() };
        Some((e, self.path(path_start, path_len as u32)))
    }

    /// The last placement at or before event `k`, with its scan.
    pub fn last_placement(&self, k: u64) -> Option<(Entry, Vec<Scanned>)> {
        let e = self.last_record(k, |r| matches!(r, Record::Placement { .. }))?;
        let Record::Placement { scan_start, scan_len, .. } = e.record else { unreachable!() };
        Some((e, self.path(scan_start, scan_len as u32).into_iter().map(decode_scan).collect()))
    }

    fn path(&self, start: u32, len: u32) -> Vec<u32> {
        let p = &self.ahead.log.paths;
        let (a, b) = (start as usize, (start + len) as usize);
        p.get(a..b).map(|s| s.to_vec()).unwrap_or_default()
    }

    /// The next (or previous) event after (before) `from` with a record
    /// `pred` accepts; computes up to `budget` more events looking forward.
    pub fn find(&mut self, from: u64, dir: Direction, budget: u64, pred: impl Fn(&Record) -> bool) -> Option<u64> {
        match dir {
            Direction::Backward => {
                let e = self.last_record(from.checked_sub(1)?, pred)?;
                Some(e.event)
            }
            Direction::Forward => {
                let mut spent = 0;
                let mut i = self.ahead.log.marks.partition_point(|m| m.event <= from);
                loop {
                    while i < self.ahead.log.marks.len() {
                        if self.ahead.log.records[self.mark_range(i)].iter().any(&pred) {
                            return Some(self.ahead.log.marks[i].event);
                        }
                        i += 1;
                    }
                    if self.finished() || spent >= budget {
                        return None;
                    }
                    let n = self.compute((budget - spent).min(1 << 14));
                    if n == 0 {
                        return None;
                    }
                    spent += n;
                }
            }
        }
    }

    /// The first pick of a task on `cpu` after event `k` (the answer to
    /// "who runs next here?"; going idle is skipped); computes up to
    /// `budget` more events to find it.
    pub fn next_pick(&mut self, cpu: u32, k: u64, budget: u64) -> Option<Entry> {
        let is_pick = |r: &Record| matches!(*r, Record::Pick { cpu: c, task, .. } if c == cpu && task != NIL);
        let e = self.find(k, Direction::Forward, budget, is_pick)?;
        self.entries(e).into_iter().find(|x| is_pick(&x.record))
    }

    /// The view of one CPU at the shown instant.
    pub fn cpu_view(&self, cpu: u32) -> CpuView {
        self.cursor.sched().cpu_view(cpu, &self.cursor.info.task_names)
    }

    /// The CPU an event is about (the first record naming one), if any.
    pub fn event_cpu(&self, k: u64) -> Option<u32> {
        self.records(k).iter().find_map(|r| match *r {
            Record::Fork { cpu, .. }
            | Record::Wakeup { cpu, .. }
            | Record::Block { cpu, .. }
            | Record::DelayedDequeue { cpu, .. }
            | Record::WakeupCheck { cpu, .. }
            | Record::Resched { cpu, .. }
            | Record::Pick { cpu, .. }
            | Record::Switch { cpu, .. }
            | Record::Yield { cpu, .. }
            | Record::Exit { cpu, .. }
            | Record::Tick { cpu }
            | Record::Placement { cpu, .. } => Some(cpu),
            Record::Migrate { to, .. } => Some(to),
            _ => None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SC: &str = r#"
[sim]
duration = "150ms"
hz = 1000
seed = 3
[topology]
preset = "2cpu-vm"
[[task]]
name = "hog"
count = 3
program = "run"
[[task]]
name = "w"
count = 2
program = "loop { run exp(200us); sleep exp(500us) }"
"#;

    fn reference(k: u64) -> Simulation {
        let (mut sim, _) = from_text(SC, &Overrides::default(), LogMode::Full).unwrap();
        while sim.state.events < k && sim.step() {}
        sim
    }

    fn small_player() -> Player {
        let mut p = Player::new(SC, &Overrides::default()).unwrap();
        p.every = 64; // many checkpoints, so seeks restore
        p.checkpoints.truncate(1);
        p
    }

    #[test]
    fn seeking_equals_stepping_from_the_start() {
        let mut p = small_player();
        p.set_tracked(Some(0));
        while p.compute(1000) > 0 {}
        let total = p.computed();
        assert!(total > 500, "scenario too small: {total} events");
        assert!(p.checkpoints.len() > 5);
        // Back and forth, near and far, and past the end.
        for &k in &[0, 1, 5, 400, 130, 131, 129, 64, 63, 0, total - 1, total, total + 10, 250, 7] {
            let got = p.seek(k);
            let want = reference(k.min(total));
            assert_eq!(got, want.state.events, "seek({k})");
            assert_eq!(p.sim().snapshot(), want.snapshot(), "snapshot at {k}");
            assert_eq!(p.sim().log.hash, want.log.hash, "log hash at {k}");
            assert_eq!(p.sim().log.count, want.log.count, "record count at {k}");
            let n = p.records_until(got);
            assert_eq!(&p.log().records[..n], &want.log.records[..], "log at {k}");
            // The history ends at the shown event, one sample per event.
            let h = p.history();
            assert_eq!(h.back().map(|s| s.event), Some(got));
            assert_eq!(h.len() as u64, (got + 1).min(64));
            assert!(h.iter().zip(h.iter().skip(1)).all(|(a, b)| b.event == a.event + 1));
            assert_eq!(h.back().unwrap().lags, want.snapshot().cpus[0].entities.iter().map(|e| (e.task.unwrap(), e.lag)).collect::<Vec<_>>());
        }
    }

    #[test]
    fn history_does_not_depend_on_the_way_there() {
        let mut a = small_player();
        let mut b = small_player();
        a.set_tracked(Some(1));
        b.set_tracked(Some(1));
        for _ in 0..300 {
            a.step();
        }
        b.seek(1000);
        b.seek(300);
        assert_eq!(a.history(), b.history());
        // Stepping back and forward again gives the same.
        a.step_back();
        a.step();
        assert_eq!(a.history(), b.history());
    }

    #[test]
    fn checkpoints_thin_out_and_seeks_stay_exact() {
        let mut p = Player::new(SC, &Overrides::default()).unwrap();
        p.every = 2;
        p.checkpoints.truncate(1);
        while p.compute(5000) > 0 {}
        assert!(p.checkpoints.len() <= MAX_CHECKPOINTS);
        assert!(p.every > 2);
        for (i, cp) in p.checkpoints.iter().enumerate() {
            assert_eq!(cp.events(), i as u64 * p.every);
        }
        let k = p.computed() / 3;
        p.seek(k);
        assert_eq!(p.sim().snapshot(), reference(k).snapshot());
    }

    #[test]
    fn find_records_and_time() {
        let mut p = small_player();
        let next = p.find(0, Direction::Forward, 1 << 20, |r| matches!(r, Record::Migrate { .. } | Record::Pick { .. })).unwrap();
        assert!(p.records(next).iter().any(|r| matches!(r, Record::Pick { .. } | Record::Migrate { .. })));
        // Nothing in between.
        for k in 1..next {
            assert!(!p.records(k).iter().any(|r| matches!(r, Record::Pick { .. } | Record::Migrate { .. })));
        }
        p.seek(next + 50);
        let back = p.find(next + 50, Direction::Backward, 0, |r| matches!(r, Record::Pick { .. })).unwrap();
        assert!(back < next + 50 && back >= next);
        let e = p.event_at_time(10_000_000);
        assert!(p.entries(e).iter().all(|x| x.time <= 10_000_000));
        let (pick, _path) = p.last_pick(0, next + 50).unwrap();
        assert!(pick.event <= next + 50);
        assert!(p.last_placement(next + 50).is_some());
        // Play to a time: the cursor lands on the last event at or before it.
        let k = p.play_to(20_000_000);
        assert!(p.time() <= 20_000_000);
        assert!(p.entries(k + 1).first().is_none_or(|x| x.time > 20_000_000));
    }

    #[test]
    fn side_buffer_starts_are_absolute() {
        let text = SC.replace("2cpu-vm", "i7-4790");
        let mut p = Player::new(&text, &Overrides::default()).unwrap();
        while p.compute(10_000) > 0 {}
        let log = p.log();
        let mut picks = 0;
        let mut scans = 0;
        for k in 1..=p.computed() {
            let raw = p.records(k);
            for (e, r) in p.entries(k).iter().zip(raw) {
                match (e.record, *r) {
                    // flush() rebases picks: the running sum must agree.
                    (Record::Pick { path_start: a, .. }, Record::Pick { path_start: b, .. }) => {
                        assert_eq!(a, b, "event {k}");
                        picks += 1;
                    }
                    (Record::Placement { scan_start, scan_len, .. }, _) if scan_len > 0 => {
                        // Every scanned CPU exists and is allowed for the LLC.
                        for &v in &log.paths[scan_start as usize..(scan_start + scan_len as u32) as usize] {
                            assert!(decode_scan(v).cpu < 8, "event {k}: {v}");
                        }
                        scans += 1;
                    }
                    _ => {}
                }
            }
        }
        assert!(picks > 100);
        let _ = scans;
        assert_eq!(p.path_next as usize, log.paths.len());
    }

    /// A window bounds the log; what it keeps equals the same events of a
    /// player that keeps everything (records with their pick paths and
    /// scans, and the timeline after the first kept event), and seeks
    /// before it stay exact.
    #[test]
    fn a_window_keeps_the_newest_records_exactly() {
        // Eight CPUs kept busy, so wake-ups scan for idle ones.
        let text = SC.replace("2cpu-vm", "i7-4790").replace("count = 2", "count = 12");
        let mut full = Player::new(&text, &Overrides::default()).unwrap();
        while full.compute(10_000) > 0 {}
        let most_per_event = (0..full.log().marks.len()).map(|i| full.mark_range(i).len()).max().unwrap();
        let window = 3000;
        let mut p = Player::new(&text, &Overrides::default()).unwrap();
        p.set_window(window);
        let mut most = 0;
        while p.compute(100) > 0 {
            most = most.max(p.log().records.len());
        }
        assert!(p.finished() && !p.truncated());
        assert_eq!(p.computed(), full.computed());
        assert!(full.log().records.len() > 4 * window, "scenario too small: {}", full.log().records.len());
        assert!(most <= window + most_per_event, "{most} records kept");
        let (k0, t0) = p.kept_from();
        assert!(k0 > 0 && p.log().records.len() >= window / 2);
        assert!(p.entries(k0 - 1).is_empty());
        // Each record with its side buffer (pick path, placement scan)
        // read out, since the window rebased the starts.
        fn side(p: &Player, mut e: Entry) -> (Entry, Vec<u32>) {
            let (start, len) = match &mut e.record {
                Record::Pick { path_start: at, path_len: n, .. } | Record::Placement { scan_start: at, scan_len: n, .. } => (std::mem::take(at), *n as u32),
                _ => (0, 0),
            };
            (e, p.path(start, len))
        }
        let mut sides = [0; 2];
        for k in k0..=p.computed() {
            let (a, b) = (p.entries(k), full.entries(k));
            assert_eq!(a.len(), b.len(), "event {k}");
            for (x, y) in a.into_iter().zip(b) {
                let (x, y) = (side(&p, x), side(&full, y));
                assert_eq!(x, y, "event {k}");
                match x.0.record {
                    Record::Pick { .. } if !x.1.is_empty() => sides[0] += 1,
                    Record::Placement { .. } if !x.1.is_empty() => sides[1] += 1,
                    _ => {}
                }
            }
        }
        assert!(sides[0] > 0 && sides[1] > 0, "{sides:?}");
        // The last pick of each CPU: the same where it is in the window,
        // none where it is older.
        let k = p.computed();
        for cpu in 0..8 {
            let (a, b) = (p.last_pick(cpu, k), full.last_pick(cpu, k).filter(|(e, _)| e.event >= k0));
            assert_eq!(a.map(|(e, path)| (side(&p, e), path)), b.map(|(e, path)| (side(&full, e), path)), "cpu {cpu}");
        }
        // The timeline after t0 is the full one's.
        for cpu in 0..8 {
            for i in 0..200u64 {
                let t = t0 + (p.computed_time() - t0) * i / 200;
                assert_eq!(p.timeline.slice_at(cpu, t), full.timeline.slice_at(cpu, t), "cpu {cpu} at {t}");
            }
            assert!(p.timeline.lanes[cpu].end.partition_point(|&e| e <= t0) < 4096);
        }
        // Seeking before the window: the exact state.
        for k in [1, k0 / 2, k0 - 1, k0, 3] {
            p.seek(k);
            full.seek(k);
            assert_eq!(p.sim().snapshot(), full.sim().snapshot(), "seek {k}");
        }
        assert_eq!(p.event_at_time(0), k0.min(p.event_at_time(t0)));
    }

    #[test]
    fn limit_truncates() {
        let mut p = Player::new(SC, &Overrides::default()).unwrap();
        p.set_limit(100);
        while p.compute(64) > 0 {}
        assert_eq!(p.computed(), 100);
        assert!(p.finished() && p.truncated());
        assert_eq!(p.seek(500), 100);
    }

    #[test]
    fn bad_scenario_is_an_error() {
        let e = Player::new("[sim]\nduration = \"x\"\n", &Overrides::default()).err().unwrap();
        assert!(e.pos.is_some(), "{e}");
    }
}
