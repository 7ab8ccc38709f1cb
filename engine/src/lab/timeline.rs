//! The timeline of a run, derived from its event log: per CPU who ran when
//! (slices, from Switch records), why each task left the CPU (markers: tick
//! or slice expiry, wakeup preemption, yield, block, ...), and the wakeups
//! and migrations between CPUs (arrows, from Placement and Migrate records).
//!
//! It is built incrementally while the log grows, and reduced for drawing to
//! about one item per pixel column per lane, the way Perfetto draws slices:
//! within one pixel column only the longest slice is kept. A slice wider than
//! a column is always drawn whole. Finding the longest slice of a column is
//! O(1) amortised through block maxima (blocks of 64 and 4096 slices), so
//! the cost of a frame depends on the width in pixels, not on the number of
//! events in view.

use crate::kernel::lib::rbtree::NIL;
use crate::lab::sim::Log;
use crate::lab::trace::{Cause, Record};

/// Why a task left a CPU (or what happened on a lane), for the markers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MarkKind {
    /// The tick found the slice used up (update_deadline()), protection
    /// lapsed, or (the EEVDF RFC) the running task no longer the pick:
    /// SliceExpired / ProtectLapsed / TickPick.
    Tick,
    /// A wakeup preempted it (WakeupPreempt, IdlePreempted).
    Wakeup,
    /// PREEMPT_SHORT: a shorter-slice wakee cancelled its protection.
    Short,
    /// It called sched_yield().
    Yield,
    /// It blocked (went to sleep).
    Block,
    /// It exited.
    Exit,
    /// The balancer's stopper pushed it away (active balance).
    Balance,
    /// Its nice value rose.
    Nice,
    /// Involuntary switch with no cause recorded in the same event.
    Other,
}

impl MarkKind {
    pub const ALL: [MarkKind; 9] = [
        MarkKind::Tick,
        MarkKind::Wakeup,
        MarkKind::Short,
        MarkKind::Yield,
        MarkKind::Block,
        MarkKind::Exit,
        MarkKind::Balance,
        MarkKind::Nice,
        MarkKind::Other,
    ];

    /// A short label for legends.
    pub fn label(self) -> &'static str {
        match self {
            MarkKind::Tick => "tick / slice expired",
            MarkKind::Wakeup => "wakeup preemption",
            MarkKind::Short => "short-slice preemption",
            MarkKind::Yield => "yield",
            MarkKind::Block => "block (sleep)",
            MarkKind::Exit => "exit",
            MarkKind::Balance => "active balance",
            MarkKind::Nice => "nice raised",
            MarkKind::Other => "preempted",
        }
    }

    fn from_cause(c: Cause) -> MarkKind {
        match c {
            Cause::SliceExpired | Cause::ProtectLapsed | Cause::TickPick => MarkKind::Tick,
            Cause::ShortPreempted => MarkKind::Short,
            Cause::WakeupPreempt { .. } | Cause::IdlePreempted { .. } | Cause::IdleCpu { .. } => MarkKind::Wakeup,
            Cause::PrioChanged => MarkKind::Nice,
            Cause::ActiveBalance => MarkKind::Balance,
            #[allow(unreachable_patterns)]
            _ => MarkKind::Other,
        }
    }
}

/// What an arrow between lanes stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ArrowKind {
    /// A wakeup placed the task: from the waker's CPU to the chosen CPU.
    Wakeup,
    /// A new task placed (fork).
    Fork,
    /// The load balancer moved a queued task.
    Migrate,
}

/// One arrow: at `time`, task `task` goes from lane `from` to lane `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Arrow {
    pub time: u64,
    pub from: u32,
    pub to: u32,
    pub task: u32,
    pub kind: ArrowKind,
}

/// One CPU's lane: the closed slices in time order (structure of arrays),
/// the slice still open, block maxima, and the markers.
#[derive(Clone, Debug, Default)]
pub struct Lane {
    pub start: Vec<u64>,
    pub end: Vec<u64>,
    pub task: Vec<u32>,
    /// The running slice: (start, task).
    pub open: Option<(u64, u32)>,
    /// Index of the longest slice of each full block of 64 / 4096 slices.
    b64: Vec<u32>,
    b4k: Vec<u32>,
    pub mark_time: Vec<u64>,
    pub mark_kind: Vec<MarkKind>,
    pub mark_task: Vec<u32>,
}

const B1: usize = 64;
const B2: usize = 4096;

impl Lane {
    fn len_of(&self, i: usize) -> u64 {
        self.end[i] - self.start[i]
    }

    fn longer(&self, a: usize, b: usize) -> usize {
        if self.len_of(b) > self.len_of(a) {
            b
        } else {
            a
        }
    }

    fn push_slice(&mut self, start: u64, end: u64, task: u32) {
        if end <= start {
            return; // zero-length: nothing ran
        }
        self.start.push(start);
        self.end.push(end);
        self.task.push(task);
        let n = self.start.len();
        if n.is_multiple_of(B1) {
            let b = (n - B1..n).reduce(|a, b| self.longer(a, b)).unwrap();
            self.b64.push(b as u32);
            if n.is_multiple_of(B2) {
                let first = (n - B2) / B1;
                let b = self.b64[first..].iter().map(|&i| i as usize).reduce(|a, b| self.longer(a, b)).unwrap();
                self.b4k.push(b as u32);
            }
        }
    }

    /// Index of the longest slice in `i..j` (j > i); the first on ties.
    pub fn longest(&self, i: usize, j: usize) -> usize {
        let mut best = i;
        let mut k = i;
        while k < j {
            let cand;
            if k.is_multiple_of(B2) && k + B2 <= j && k / B2 < self.b4k.len() {
                cand = self.b4k[k / B2] as usize;
                k += B2;
            } else if k.is_multiple_of(B1) && k + B1 <= j && k / B1 < self.b64.len() {
                cand = self.b64[k / B1] as usize;
                k += B1;
            } else {
                cand = k;
                k += 1;
            }
            if self.len_of(cand) > self.len_of(best) {
                best = cand;
            }
        }
        best
    }

    fn mark(&mut self, time: u64, kind: MarkKind, task: u32) {
        self.mark_time.push(time);
        self.mark_kind.push(kind);
        self.mark_task.push(task);
    }

    /// Number of closed slices.
    pub fn len(&self) -> usize {
        self.start.len()
    }

    pub fn is_empty(&self) -> bool {
        self.start.is_empty() && self.open.is_none()
    }
}

/// The visible window: time at pixel 0, nanoseconds per pixel, width in px.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Window {
    pub t0: f64,
    pub ns_per_px: f64,
    pub width: f64,
}

impl Window {
    pub fn x(&self, t: u64) -> f64 {
        (t as f64 - self.t0) / self.ns_per_px
    }
    pub fn t1(&self) -> f64 {
        self.t0 + self.ns_per_px * self.width
    }
    /// Time at the left edge of pixel column `c`.
    fn col_time(&self, c: f64) -> f64 {
        self.t0 + c * self.ns_per_px
    }
}

/// A reduced slice, in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Span {
    pub x0: f32,
    pub x1: f32,
    pub task: u32,
}

/// A reduced marker, in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MarkItem {
    pub x: f32,
    pub kind: MarkKind,
    pub task: u32,
}

/// The whole run's timeline.
#[derive(Clone, Debug, Default)]
pub struct Timeline {
    pub lanes: Vec<Lane>,
    /// Wakeups, forks and migrations in time order.
    pub arrows: Vec<Arrow>,
    /// Time up to which the log has been read (open slices end here).
    pub end: u64,
    /// Next `Log::marks` index to read.
    next_mark: usize,
    /// Per CPU, per event: pending reschedule cause and yielder.
    pending_cause: Vec<Option<Cause>>,
    yielded: Vec<u32>,
    exited: Vec<u32>,
}

impl Timeline {
    pub fn new(nr_cpus: u32) -> Timeline {
        Timeline {
            lanes: vec![Lane::default(); nr_cpus as usize],
            pending_cause: vec![None; nr_cpus as usize],
            yielded: Vec::new(),
            exited: Vec::new(),
            ..Default::default()
        }
    }

    /// Reads the events the log gained since the last call. `now` is the
    /// simulation's clock (open slices end there).
    pub fn ingest(&mut self, log: &Log, now: u64) {
        let marks = &log.marks;
        while self.next_mark < marks.len() {
            let m = marks[self.next_mark];
            let end = marks.get(self.next_mark + 1).map_or(log.records.len(), |n| n.first as usize);
            self.event(m.time, &log.records[m.first as usize..end]);
            self.next_mark += 1;
        }
        self.end = self.end.max(now);
    }

    /// Forgets what lies before `time` after the player dropped the log's
    /// first `marks` marks: the lanes' closed slices in whole blocks of
    /// 4096 (so the block maxima only shift), their markers and the arrows.
    pub fn forget(&mut self, marks: usize, time: u64) {
        self.next_mark -= marks;
        for lane in &mut self.lanes {
            let blocks = lane.end.partition_point(|&e| e <= time) / B2;
            let cut = blocks * B2;
            if cut > 0 {
                lane.start.drain(..cut);
                lane.end.drain(..cut);
                lane.task.drain(..cut);
                lane.b64.drain(..cut / B1);
                lane.b4k.drain(..blocks);
                for b in lane.b64.iter_mut().chain(lane.b4k.iter_mut()) {
                    *b -= cut as u32;
                }
            }
            let k = lane.mark_time.partition_point(|&t| t < time);
            lane.mark_time.drain(..k);
            lane.mark_kind.drain(..k);
            lane.mark_task.drain(..k);
        }
        let k = self.arrows.partition_point(|a| a.time < time);
        self.arrows.drain(..k);
    }

    /// Number of log marks (events with records) read so far.
    pub fn marks_read(&self) -> usize {
        self.next_mark
    }

    fn event(&mut self, time: u64, records: &[Record]) {
        let mut forked: Option<u32> = None;
        for r in records {
            match *r {
                Record::Resched { cpu, cause, .. } => self.pending_cause[cpu as usize] = Some(cause),
                Record::Yield { task, .. } => self.yielded.push(task),
                Record::Exit { task, .. } => self.exited.push(task),
                Record::Fork { task, .. } => forked = Some(task),
                Record::Placement { task, waker_cpu, cpu, .. } => {
                    let kind = if forked == Some(task) { ArrowKind::Fork } else { ArrowKind::Wakeup };
                    self.arrows.push(Arrow { time, from: waker_cpu, to: cpu, task, kind });
                }
                Record::Migrate { task, from, to } => {
                    self.arrows.push(Arrow { time, from, to, task, kind: ArrowKind::Migrate });
                }
                Record::Switch { cpu, prev, next, voluntary } => {
                    let c = cpu as usize;
                    let lane = &mut self.lanes[c];
                    if let Some((start, task)) = lane.open.take() {
                        lane.push_slice(start, time, task);
                    }
                    if prev != NIL {
                        let kind = if self.exited.contains(&prev) {
                            MarkKind::Exit
                        } else if voluntary {
                            MarkKind::Block
                        } else if self.yielded.contains(&prev) {
                            MarkKind::Yield
                        } else if let Some(cause) = self.pending_cause[c] {
                            MarkKind::from_cause(cause)
                        } else {
                            MarkKind::Other
                        };
                        lane.mark(time, kind, prev);
                    }
                    self.pending_cause[c] = None;
                    if next != NIL {
                        lane.open = Some((time, next));
                    }
                }
                _ => {}
            }
        }
        for c in self.pending_cause.iter_mut() {
            *c = None;
        }
        self.yielded.clear();
        self.exited.clear();
    }

    /// Appends the reduced slices of lane `cpu` in window `w` to `out`:
    /// about one span per pixel column (the longest slice of the column),
    /// and every slice that is at least a column wide, exactly.
    pub fn reduce_slices(&self, cpu: usize, w: &Window, out: &mut Vec<Span>) {
        let lane = &self.lanes[cpu];
        let t1 = w.t1();
        let n = lane.len();
        let mut i = lane.end.partition_point(|&e| (e as f64) <= w.t0);
        while i < n {
            let s = lane.start[i];
            if s as f64 >= t1 {
                break;
            }
            let e = lane.end[i];
            if (e - s) as f64 >= w.ns_per_px {
                out.push(Span { x0: w.x(s) as f32, x1: w.x(e) as f32, task: lane.task[i] });
                i += 1;
                continue;
            }
            // A slice narrower than a column: keep the longest slice that
            // starts in this column. Columns hold few slices: scan a few,
            // then fall back to a binary search and the block maxima.
            let col = w.x(s).floor().max(0.0);
            let col_end = w.col_time(col + 1.0);
            let mut best = i;
            let mut j = i + 1;
            while j < n && j - i < 24 && (lane.start[j] as f64) < col_end {
                if lane.end[j] - lane.start[j] > lane.end[best] - lane.start[best] {
                    best = j;
                }
                j += 1;
            }
            if j - i == 24 && j < n && (lane.start[j] as f64) < col_end {
                j += lane.start[j..].partition_point(|&st| (st as f64) < col_end);
                best = lane.longest(i, j);
            }
            let (bs, be) = (lane.start[best], lane.end[best]);
            let x0 = (col as f32).min(w.x(bs) as f32);
            let x1 = ((col + 1.0) as f32).max(w.x(be) as f32);
            out.push(Span { x0, x1, task: lane.task[best] });
            // Slices after `best` start after it ends: none before `j`.
            i = j;
        }
        if let Some((s, task)) = lane.open {
            if (s as f64) < t1 && (self.end as f64) > w.t0 {
                let x0 = w.x(s) as f32;
                let x1 = (w.x(self.end) as f32).max(x0 + 1.0);
                out.push(Span { x0, x1, task });
            }
        }
    }

    /// Appends at most one marker per pixel column of lane `cpu`.
    pub fn reduce_marks(&self, cpu: usize, w: &Window, out: &mut Vec<MarkItem>) {
        let lane = &self.lanes[cpu];
        let t1 = w.t1();
        let times = &lane.mark_time;
        let mut k = times.partition_point(|&t| (t as f64) < w.t0);
        while k < times.len() && (times[k] as f64) < t1 {
            let x = w.x(times[k]);
            out.push(MarkItem { x: x as f32, kind: lane.mark_kind[k], task: lane.mark_task[k] });
            let next_col = w.col_time(x.floor() + 1.0);
            k += 1 + times[k + 1..].partition_point(|&t| (t as f64) < next_col);
        }
    }

    /// Index range of the arrows inside the window.
    pub fn arrows_in(&self, w: &Window) -> std::ops::Range<usize> {
        let a = self.arrows.partition_point(|r| (r.time as f64) < w.t0);
        let b = self.arrows.partition_point(|r| (r.time as f64) < w.t1());
        a..b
    }

    /// Appends the arrows to draw: all of them when there are at most
    /// `max`, otherwise at most one per pixel column.
    pub fn reduce_arrows(&self, w: &Window, max: usize, out: &mut Vec<Arrow>) {
        let r = self.arrows_in(w);
        if r.len() <= max {
            out.extend_from_slice(&self.arrows[r]);
            return;
        }
        let mut k = r.start;
        while k < r.end {
            let a = self.arrows[k];
            out.push(a);
            let next_col = w.col_time(w.x(a.time).floor() + 1.0);
            k += 1 + self.arrows[k + 1..r.end].partition_point(|r| (r.time as f64) < next_col);
        }
    }

    /// The slice of lane `cpu` running at time `t`: (start, end, task).
    pub fn slice_at(&self, cpu: usize, t: u64) -> Option<(u64, u64, u32)> {
        let lane = self.lanes.get(cpu)?;
        let i = lane.end.partition_point(|&e| e <= t);
        if i < lane.len() && lane.start[i] <= t {
            return Some((lane.start[i], lane.end[i], lane.task[i]));
        }
        match lane.open {
            Some((s, task)) if s <= t => Some((s, self.end, task)),
            _ => None,
        }
    }

    /// Slices recorded over all lanes (closed ones).
    pub fn nr_slices(&self) -> usize {
        self.lanes.iter().map(|l| l.len()).sum()
    }

    /// Markers recorded over all lanes.
    pub fn nr_marks(&self) -> usize {
        self.lanes.iter().map(|l| l.mark_time.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{from_text, LogMode, Overrides};

    fn lane_of(slices: &[(u64, u64, u32)]) -> Lane {
        let mut l = Lane::default();
        for &(s, e, t) in slices {
            l.push_slice(s, e, t);
        }
        l
    }

    #[test]
    fn longest_matches_a_linear_scan() {
        // Pseudo-random lengths, enough slices for both block levels.
        let mut x = 12345u64;
        let mut t = 0;
        let mut sl = Vec::new();
        for i in 0..10_000u32 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let len = 1 + (x >> 33) % 1000;
            sl.push((t, t + len, i));
            t += len + (x >> 50) % 3;
        }
        let lane = lane_of(&sl);
        for &(i, j) in &[(0, 1), (0, 10_000), (3, 4100), (63, 65), (64, 128), (100, 9000), (4095, 8193), (5000, 5001)] {
            let lin = (i..j).reduce(|a, b| if lane.len_of(b) > lane.len_of(a) { b } else { a }).unwrap();
            assert_eq!(lane.longest(i, j), lin, "range {i}..{j}");
        }
    }

    fn tl_with(slices: &[(u64, u64, u32)]) -> Timeline {
        let mut tl = Timeline::new(1);
        tl.lanes[0] = lane_of(slices);
        tl.end = slices.last().map_or(0, |s| s.1);
        tl
    }

    #[test]
    fn wide_slices_are_drawn_exactly() {
        let tl = tl_with(&[(0, 100, 1), (100, 300, 2), (300, 1000, 3)]);
        let w = Window { t0: 0.0, ns_per_px: 10.0, width: 100.0 };
        let mut out = Vec::new();
        tl.reduce_slices(0, &w, &mut out);
        assert_eq!(
            out,
            vec![
                Span { x0: 0.0, x1: 10.0, task: 1 },
                Span { x0: 10.0, x1: 30.0, task: 2 },
                Span { x0: 30.0, x1: 100.0, task: 3 }
            ]
        );
    }

    #[test]
    fn one_span_per_column_keeps_the_longest() {
        // 1000 slices of 1..=9 ns in 10 ns columns: 1 ns gap pattern.
        let mut sl = Vec::new();
        let mut t = 0;
        for i in 0..5000u32 {
            let len = 1 + (i as u64 * 7) % 4;
            sl.push((t, t + len, i));
            t += len;
        }
        let tl = tl_with(&sl);
        // Few slices per column (the linear scan) and hundreds (the block
        // maxima).
        for npp in [10u64, 1000] {
            let w = Window { t0: 0.0, ns_per_px: npp as f64, width: (t / npp) as f64 };
            let mut out = Vec::new();
            tl.reduce_slices(0, &w, &mut out);
            assert!(out.len() as f64 <= w.width + 1.0, "{} spans for {} columns", out.len(), w.width);
            // Each span is the longest slice starting in its column.
            for s in &out {
                let c = s.x0.floor() as u64;
                let longest = sl
                    .iter()
                    .filter(|x| x.0 >= c * npp && x.0 < (c + 1) * npp)
                    .map(|x| x.1 - x.0)
                    .max()
                    .unwrap();
                let got = sl[s.task as usize];
                assert_eq!(got.1 - got.0, longest, "column {c} at {npp} ns/px");
            }
        }
    }

    #[test]
    fn window_cuts_and_open_slice() {
        let mut tl = tl_with(&[(0, 50, 1), (60, 70, 2)]);
        tl.lanes[0].open = Some((80, 3));
        tl.end = 200;
        let w = Window { t0: 55.0, ns_per_px: 1.0, width: 100.0 };
        let mut out = Vec::new();
        tl.reduce_slices(0, &w, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].task, 2);
        assert_eq!(out[1], Span { x0: 25.0, x1: 145.0, task: 3 });
        assert_eq!(tl.slice_at(0, 65), Some((60, 70, 2)));
        assert_eq!(tl.slice_at(0, 55), None);
        assert_eq!(tl.slice_at(0, 150), Some((80, 200, 3)));
    }

    #[test]
    fn marks_reduced_to_one_per_column() {
        let mut tl = Timeline::new(1);
        for t in 0..1000u64 {
            tl.lanes[0].mark(t, MarkKind::Tick, 0);
        }
        let w = Window { t0: 0.0, ns_per_px: 10.0, width: 100.0 };
        let mut out = Vec::new();
        tl.reduce_marks(0, &w, &mut out);
        assert_eq!(out.len(), 100);
        assert!(out.windows(2).all(|p| p[1].x - p[0].x >= 1.0));
    }

    const THREE: &str = r#"
[sim]
duration = "30ms"
hz = 1000
[topology]
preset = "1cpu"
[[task]]
name = "t"
count = 3
program = "run"
[[task]]
name = "s"
program = "loop { run 300us; sleep 2ms }"
"#;

    #[test]
    fn slices_follow_switches_and_tile_the_busy_time() {
        let (mut sim, _) = from_text(THREE, &Overrides::default(), LogMode::Full).unwrap();
        let mut tl = Timeline::new(1);
        // Ingest in pieces, as the player does.
        while sim.step() {
            if sim.state.events % 7 == 0 {
                tl.ingest(&sim.log, sim.now());
            }
        }
        tl.ingest(&sim.log, sim.now());
        let switches = sim.log.iter().filter(|e| matches!(e.record, Record::Switch { .. })).count();
        let lane = &tl.lanes[0];
        // Every switch but the first (from idle) closes a slice and leaves a
        // marker; the CPU never idles here (zero-length slices are dropped).
        assert_eq!(lane.mark_time.len() + 1, switches);
        assert!(lane.len() <= lane.mark_time.len());
        assert!(lane.start.windows(2).all(|p| p[0] < p[1]));
        assert!((0..lane.len() - 1).all(|i| lane.end[i] == lane.start[i + 1]));
        let busy: u64 = (0..lane.len()).map(|i| lane.len_of(i)).sum::<u64>() + (tl.end - lane.open.unwrap().0);
        assert_eq!(busy, 30_000_000);
        // The sleeper blocks: Block markers; the hogs are preempted at ticks.
        let kinds = &lane.mark_kind;
        assert!(kinds.contains(&MarkKind::Block));
        assert!(kinds.contains(&MarkKind::Tick));
        // Wakeups of the sleeper are arrows on CPU 0.
        assert!(tl.arrows.iter().any(|a| a.kind == ArrowKind::Wakeup && a.task == 3));
        assert!(tl.arrows.iter().filter(|a| a.kind == ArrowKind::Fork).count() == 4);
    }
}
