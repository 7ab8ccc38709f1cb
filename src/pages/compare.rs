//! The comparison page: one scenario and seed under two configurations
//! side by side (issue 5). Each pane is a lecture-view run of its own (a
//! [`Ctx`] with its player) showing its timeline and the tree of the
//! selected CPU; the page owns one shared cursor, so both panes always
//! show the same simulated time, and the zoom window and the selected CPU
//! are shared signals. Below: the first difference of the two event logs
//! (`first_divergence`), marked on both timelines and explained in both
//! runs, and the per-task delta table over N seeds, computed in slices of
//! a few milliseconds so the page never freezes.

use std::cell::RefCell;
use std::rc::Rc;

use leptos::context::Provider;
use leptos::prelude::*;
use schedlab_engine::lab::compare::{first_behavioural_divergence, first_divergence, log_window, ConfigSpec};
use schedlab_engine::lab::explain::describe;
use schedlab_engine::lab::explain::Explanation;
use schedlab_engine::kernel::sched::features::PRESET_NAMES;
use schedlab_engine::kernel::patches::PATCHES;
use schedlab_engine::lab::results::RunResult;
use schedlab_engine::{from_text, LogMode, Overrides, Simulation};

use crate::deltas::{self, DeltaTable, Figure};
use crate::fmt;
use crate::fragment::{Link, Page};
use crate::perf;
use crate::presets::{self, compare_presets};
use crate::state::{Ctx, Keep, Marker};
use crate::views::{EligibilityView, LagView, TimelineView, TreeView};

/// The mainline commit a patch's source names (a word of at least 12 hex
/// digits), for a link to it.
fn commit_of(source: &str) -> Option<&str> {
    source
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| w.len() >= 12 && w.chars().all(|c| c.is_ascii_hexdigit()) && w.chars().any(|c| c.is_ascii_digit()))
}

/// One side's diverging event: where it is and what it did.
#[derive(Clone, Debug, PartialEq)]
pub struct Side {
    pub event: u64,
    pub time: u64,
    pub explanation: Explanation,
}

/// What is known about where the two runs first differ.
#[derive(Clone, Debug, PartialEq)]
pub enum Divergence {
    /// Waiting for both runs to be computed.
    Computing,
    /// The logs are equal (over the computed part, if `truncated`).
    Identical { records: usize, truncated: bool },
    Found {
        /// Index of the first behaviourally differing record in the base
        /// log (its index in the patch log is in `window`).
        index: usize,
        base: Option<Side>,
        patch: Option<Side>,
        /// The fields that differ ("kind", "time", "task", "cpu", ...),
        /// with their values in words in the base and the patch run.
        fields: Vec<(&'static str, String, String)>,
        /// The two logs around it: (record index, time, words, the
        /// differing record) per side.
        window: [Vec<LogRow>; 2],
        /// Where the raw logs first differ (maybe only in wording: the
        /// numbers a pick saw), when that is earlier.
        raw_index: Option<usize>,
    },
}

/// One line of the log diff.
#[derive(Clone, Debug, PartialEq)]
pub struct LogRow {
    pub index: usize,
    pub time: u64,
    pub text: String,
    pub at: bool,
}

/// Records shown before and after the divergence in the log diff.
const DIFF_CONTEXT: usize = 6;

/// The delta table's computation.
#[derive(Clone, Debug, PartialEq)]
pub enum Deltas {
    Running { done: usize, total: usize },
    Ready(Arc<DeltaTable>),
    Failed(String),
}

use std::sync::Arc;

/// The page's state; every field is a handle, so it is `Copy`.
#[derive(Clone, Copy)]
pub struct Cmp {
    /// Left (base) and right (patch) runs.
    pub a: Ctx,
    pub b: Ctx,
    /// The scenario that runs, and the editor's text.
    pub text: RwSignal<String>,
    pub editor: RwSignal<String>,
    pub scenario_error: RwSignal<Option<String>>,
    /// The configuration inputs (as typed) and their errors.
    pub config: [RwSignal<String>; 2],
    pub config_error: [RwSignal<Option<String>>; 2],
    pub playing: RwSignal<bool>,
    /// log10 of simulated µs per wall-clock second.
    pub speed: RwSignal<f64>,
    pub divergence: RwSignal<Divergence>,
    pub runs: RwSignal<u32>,
    pub deltas: RwSignal<Deltas>,
    inner: StoredValue<Rc<RefCell<Inner>>, LocalStorage>,
}

#[derive(Default)]
struct Inner {
    /// Bumped at every rebuild; stale work checks it and stops.
    gen: u64,
    play_clock: f64,
    last_ts: Option<f64>,
    loop_active: bool,
    job: Option<DeltaJob>,
}

/// N seeds × two configurations, run one slice at a time.
struct DeltaJob {
    gen: u64,
    text: String,
    specs: [ConfigSpec; 2],
    seeds: Vec<u64>,
    /// Next run: seed index × 2 + side.
    next: usize,
    sim: Option<(Simulation, String)>,
    done: Vec<(Option<RunResult>, Option<RunResult>)>,
}

/// The configurations of a comparison scenario's `[study]` table (base,
/// first compare), if it has one.
pub fn study_configs(text: &str) -> Option<(String, String)> {
    let st = schedlab_engine::lab::scenario::parse(text).ok()?.study?;
    Some((st.base.name, st.compare.first()?.name.clone()))
}

fn spec(s: &str) -> Result<ConfigSpec, String> {
    ConfigSpec::parse(s.trim())
}

impl Cmp {
    /// Builds both runs. Bad configurations fall back to the scenario's own
    /// settings with the error shown by the input; a scenario that does
    /// not build at all is an error.
    pub fn new(text: &str, base: &str, patch: &str, time: u64) -> Result<Cmp, String> {
        Cmp::with_big(text, base, patch, time, None)
    }

    /// [`Cmp::new`] with the projector-mode signal of the app.
    pub fn with_big(text: &str, base: &str, patch: &str, time: u64, big: Option<RwSignal<bool>>) -> Result<Cmp, String> {
        let sa = spec(base);
        let sb = spec(patch);
        let ov = |s: &Result<ConfigSpec, String>| s.as_ref().map(|s| s.overrides(None)).unwrap_or_default();
        let a = Ctx::new_pane(text, ov(&sa))
            .or_else(|_| Ctx::new_pane(text, Overrides::default()))
            .map_err(|e| e.to_string())?;
        let mut a = a;
        if let Some(big) = big {
            a.ui.big = big;
        }
        let mut b = Ctx::new_pane(text, ov(&sb))
            .or_else(|_| Ctx::new_pane(text, Overrides::default()))
            .map_err(|e| e.to_string())?;
        // One window, one selected CPU, one queue path, one font size.
        b.ui.window = a.ui.window;
        b.ui.pinned = a.ui.pinned;
        b.ui.queue = a.ui.queue;
        b.ui.big = a.ui.big;
        a.ui.pinned.set(Some(0));
        let cmp = Cmp {
            a,
            b,
            text: RwSignal::new(text.to_string()),
            editor: RwSignal::new(text.to_string()),
            scenario_error: RwSignal::new(None),
            config: [RwSignal::new(base.to_string()), RwSignal::new(patch.to_string())],
            config_error: [RwSignal::new(sa.err()), RwSignal::new(sb.err())],
            playing: RwSignal::new(false),
            speed: RwSignal::new(3.0),
            divergence: RwSignal::new(Divergence::Computing),
            runs: RwSignal::new(1),
            deltas: RwSignal::new(Deltas::Running { done: 0, total: 2 }),
            inner: StoredValue::new_local(Rc::new(RefCell::new(Inner::default()))),
        };
        // A click on either timeline moves both runs.
        for p in [a, b] {
            p.ui.time_hook.set_value(Some(Callback::new(move |t: u64| cmp.seek_time(t))));
        }
        if time > 0 {
            cmp.seek_time(time);
        }
        cmp.rebuilt();
        Ok(cmp)
    }

    fn with_inner<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> Option<R> {
        let rc = self.inner.try_get_value()?;
        let mut i = rc.try_borrow_mut().ok()?;
        Some(f(&mut i))
    }

    fn panes(&self) -> [Ctx; 2] {
        [self.a, self.b]
    }

    /// The shared instant: the later of the two runs' shown events (the
    /// other run has nothing between its event and that time).
    pub fn time(&self) -> u64 {
        self.a.at().1.max(self.b.at().1)
    }

    /// Both runs to the last event at or before `t`.
    pub fn seek_time(&self, t: u64) {
        for p in self.panes() {
            p.seek_time_here(t);
        }
        self.sync_clock();
    }

    fn sync_clock(&self) {
        let t = self.time() as f64;
        self.with_inner(|i| i.play_clock = t);
    }

    /// One step: the run(s) whose next event comes first take it, so both
    /// panes show the same simulated time after every step.
    pub fn step(&self) {
        let next = self.panes().map(|p| p.next_time());
        let Some(t) = next.iter().flatten().copied().min() else {
            return;
        };
        for (p, n) in self.panes().into_iter().zip(next) {
            if n == Some(t) {
                p.step();
            }
        }
        // A queued event that turned out dead lets a run jump further than
        // `t`; the other run then catches up to the same time.
        let shared = self.time();
        for p in self.panes() {
            if p.at().1 < shared && p.next_time().is_some_and(|n| n <= shared) {
                p.play_to(shared);
            }
        }
        self.sync_clock();
    }

    /// One step back: the run(s) at the shared time go back one event.
    pub fn step_back(&self) {
        let t = self.time();
        for p in self.panes() {
            let (k, tp) = p.at();
            if tp == t && k > 0 {
                p.step_back();
            }
        }
        self.sync_clock();
    }

    pub fn rewind(&self) {
        self.playing.set(false);
        for p in self.panes() {
            p.seek(0);
        }
        self.sync_clock();
    }

    /// Puts the cursor on the first difference: each run whose diverging
    /// event is at the earlier of the two times shows that very event, the
    /// other shows its state at that time.
    pub fn jump_to_difference(&self) {
        let Divergence::Found { base, patch, .. } = self.divergence.get_untracked() else {
            return;
        };
        let Some(t) = [&base, &patch].iter().filter_map(|s| s.as_ref().map(|s| s.time)).min() else {
            return;
        };
        self.playing.set(false);
        for (p, side) in self.panes().into_iter().zip([base, patch]) {
            match side {
                Some(s) if s.time == t => p.seek(s.event),
                _ => p.seek_time_here(t),
            }
        }
        self.sync_clock();
    }

    pub fn toggle_play(&self) {
        let on = !self.playing.get_untracked();
        if on {
            let at_end = self.panes().iter().all(|p| p.next_time().is_none());
            if at_end {
                self.rewind();
            }
            self.sync_clock();
            self.with_inner(|i| i.last_ts = None);
        }
        self.playing.set(on);
        self.start_loop();
    }

    fn start_loop(&self) {
        let start = self.with_inner(|i| !std::mem::replace(&mut i.loop_active, true));
        if start == Some(true) {
            let c = *self;
            request_animation_frame(move || c.tick());
        }
    }

    /// One animation frame: plays both runs to the shared clock, and works
    /// on the delta table for a few milliseconds.
    fn tick(self) {
        let t0 = perf::now();
        let Some(playing) = self.playing.try_get_untracked() else {
            return;
        };
        if playing {
            let speed = 10f64.powf(self.speed.try_get_untracked().unwrap_or(3.0));
            let clock = self.with_inner(|i| {
                let dt = i.last_ts.map_or(0.0, |l| (t0 - l).clamp(0.0, 100.0));
                i.last_ts = Some(t0);
                i.play_clock += speed * dt;
                i.play_clock
            });
            if let Some(c) = clock {
                for p in self.panes() {
                    p.play_to(c as u64);
                }
                if self.panes().iter().all(|p| p.next_time().is_none()) {
                    self.playing.set(false);
                }
            }
        }
        let working = self.work_on_deltas(t0 + 8.0);
        // Unmounted: the handles are gone, the loop ends.
        let cont = self.playing.try_get_untracked().unwrap_or(false) || working;
        self.with_inner(|i| i.loop_active = cont);
        if cont {
            request_animation_frame(move || self.tick());
        }
    }

    /// After the runs were rebuilt: the divergence and the table start over.
    fn rebuilt(&self) {
        self.with_inner(|i| {
            i.gen += 1;
            i.job = None;
        });
        self.divergence.set(Divergence::Computing);
        for p in self.panes() {
            p.ui.marker.set(None);
        }
        self.restart_deltas();
    }

    /// Applies the configuration inputs and the scenario: rebuilds both
    /// runs at the shared time.
    pub fn apply(&self) {
        let text = self.editor.get_untracked();
        let t = self.time();
        if let Err(e) = schedlab_engine::lab::scenario::parse(&text) {
            self.scenario_error.set(Some(e.to_string()));
            return;
        }
        self.scenario_error.set(None);
        let mut ok = true;
        for (i, p) in self.panes().into_iter().enumerate() {
            let s = self.config[i].get_untracked();
            match spec(&s) {
                Err(e) => {
                    self.config_error[i].set(Some(e));
                    ok = false;
                }
                Ok(sp) => match p.load(&text, sp.overrides(None), Keep::Time(t)) {
                    Ok(()) => self.config_error[i].set(None),
                    Err(e) => {
                        p.ui.error.set(None);
                        self.config_error[i].set(Some(format!("`{}`: {e}", s.trim())));
                        ok = false;
                    }
                },
            }
        }
        if ok {
            self.text.set(text);
        }
        self.playing.set(false);
        self.seek_time(t);
        self.rebuilt();
    }

    /// Loads another scenario with its `[study]` configurations.
    pub fn open(&self, text: &str) {
        if let Some((b, c)) = study_configs(text) {
            self.config[0].set(b);
            self.config[1].set(c);
        }
        self.editor.set(text.to_string());
        self.a.ui.window.set(None);
        self.a.ui.queue.set(Vec::new());
        // Another preset may have fewer CPUs, and CPU 0 is where each
        // preset's explanation starts.
        self.a.ui.pinned.set(Some(0));
        for p in self.panes() {
            p.seek(0);
        }
        self.apply();
        self.rewind();
    }

    /// Once both runs are computed: the first difference of their logs,
    /// its explanation in each run, and the markers.
    pub fn update_divergence(&self) {
        if self.divergence.get_untracked() != Divergence::Computing {
            return;
        }
        let state = self.panes().map(|p| p.with_lab(|l| (l.player.finished(), l.player.truncated())));
        let (Some((fa, ta)), Some((fb, tb))) = (state[0], state[1]) else {
            return;
        };
        if !(fa && fb) {
            return;
        }
        let t0 = perf::now();
        let found = self
            .a
            .with_lab(|la| {
                self.b.with_lab(|lb| {
                    let (sa, sb) = (la.player.ahead(), lb.player.ahead());
                    let d = first_behavioural_divergence(sa, sb);
                    let raw = first_divergence(sa, sb).map(|r| r.index);
                    let rows = |s: &schedlab_engine::Simulation, at: Option<usize>| -> Vec<LogRow> {
                        let Some(i) = at else { return Vec::new() };
                        log_window(s, i.saturating_sub(DIFF_CONTEXT), i + DIFF_CONTEXT + 1)
                            .into_iter()
                            .map(|(j, e)| LogRow { index: j, time: e.time, text: describe(&s.info.task_names, &e.record), at: j == i })
                            .collect()
                    };
                    let window = d.as_ref().map(|d| [rows(sa, d.base_index), rows(sb, d.patch_index)]);
                    (d, window, raw, la.player.log().len())
                })
            })
            .flatten();
        perf::record("first_divergence", perf::now() - t0);
        let Some((d, window, raw, records)) = found else { return };
        let truncated = ta || tb;
        let div = match d {
            None => Divergence::Identical { records, truncated },
            // One log is a prefix of the other because a run was cut at
            // the viewer's event limit: no difference in what was computed.
            Some(d) if truncated && (d.base.is_none() || d.patch.is_none()) => Divergence::Identical { records: d.base_index.or(d.patch_index).unwrap_or(0), truncated },
            Some(d) => {
                let side = |p: Ctx, e: Option<schedlab_engine::lab::trace::Entry>| {
                    e.map(|e| Side {
                        event: e.event,
                        time: e.time,
                        explanation: p.explain_at(e.event).unwrap_or_default(),
                    })
                };
                let index = d.base_index.or(d.patch_index).unwrap_or(0);
                let names = self.a.ui.setup.with_untracked(|s| s.names.clone());
                let value = |e: &Option<schedlab_engine::lab::trace::Entry>, f: &str| -> String {
                    let Some(e) = e else { return "(log ended)".into() };
                    if f == "time" {
                        return fmt::ms(e.time);
                    }
                    let Some((kind, vals)) = schedlab_engine::lab::compare::behaviour(&e.record) else { return "–".into() };
                    if f == "kind" {
                        return kind.to_string();
                    }
                    match vals.iter().find(|v| v.0 == f).map(|v| v.1) {
                        Some(x) if matches!(f, "task" | "prev" | "next" | "curr" | "wakee") => {
                            if x == schedlab_engine::kernel::lib::rbtree::NIL as u64 { "idle".into() } else { names.get(x as usize).cloned().unwrap_or_else(|| format!("task {x}")) }
                        }
                        Some(x) if f == "voluntary" => if x == 1 { "blocked".into() } else { "preempted".into() },
                        Some(x) => x.to_string(),
                        None => "–".into(),
                    }
                };
                let fields = d.fields.iter().map(|f| (*f, value(&d.base, f), value(&d.patch, f))).collect();
                Divergence::Found {
                    index,
                    base: side(self.a, d.base),
                    patch: side(self.b, d.patch),
                    fields,
                    window: window.unwrap_or_default(),
                    raw_index: raw.filter(|&r| r < index),
                }
            }
        };
        if let Divergence::Found { base, patch, .. } = &div {
            for (p, s) in self.panes().into_iter().zip([base, patch]) {
                p.ui.marker.set(s.as_ref().map(|s| Marker {
                    time: s.time,
                    event: s.event,
                    label: "≠ first difference".to_string(),
                }));
            }
        }
        self.divergence.set(div);
    }

    /// (Re)starts the delta table over `runs` seeds from the scenario's.
    pub fn restart_deltas(&self) {
        let text = self.text.get_untracked();
        let specs = [0, 1].map(|i| spec(&self.config[i].get_untracked()));
        let n = self.runs.get_untracked().clamp(1, 1000) as u64;
        let seed0 = match schedlab_engine::lab::scenario::parse(&text) {
            Ok(sc) => sc.sim.seed,
            Err(e) => {
                self.deltas.set(Deltas::Failed(e.to_string()));
                return;
            }
        };
        let [Ok(sa), Ok(sb)] = specs else {
            self.deltas.set(Deltas::Failed("a configuration is not valid (see above)".into()));
            return;
        };
        let seeds: Vec<u64> = (0..n).map(|i| seed0.wrapping_add(i)).collect();
        self.deltas.set(Deltas::Running { done: 0, total: seeds.len() * 2 });
        self.with_inner(|i| {
            i.job = Some(DeltaJob {
                gen: i.gen,
                text,
                specs: [sa, sb],
                done: vec![(None, None); seeds.len()],
                seeds,
                next: 0,
                sim: None,
            })
        });
        self.start_loop();
    }

    /// Runs the delta job until `deadline` (ms); false when there is none.
    fn work_on_deltas(&self, deadline: f64) -> bool {
        let out = self.with_inner(|i| {
            let gen = i.gen;
            let job = i.job.as_mut()?;
            if job.gen != gen {
                i.job = None;
                return None;
            }
            let total = job.seeds.len() * 2;
            while perf::now() < deadline && job.next < total {
                if job.sim.is_none() {
                    let (seed, side) = (job.seeds[job.next / 2], job.next % 2);
                    match from_text(&job.text, &job.specs[side].overrides(Some(seed)), LogMode::HashOnly) {
                        Ok((sim, cfg)) => job.sim = Some((sim, cfg.kernel)),
                        Err(e) => return Some(Err(format!("`{}`: {e}", job.specs[side].text))),
                    }
                }
                let (sim, _) = job.sim.as_mut().expect("built above");
                let mut running = true;
                'slice: while perf::now() < deadline {
                    for _ in 0..512 {
                        if !sim.step() {
                            running = false;
                            break 'slice;
                        }
                    }
                }
                if !running {
                    let (sim, kernel) = job.sim.take().expect("running");
                    let r = sim.results(&kernel);
                    let slot = &mut job.done[job.next / 2];
                    if job.next % 2 == 0 {
                        slot.0 = Some(r);
                    } else {
                        slot.1 = Some(r);
                    }
                    job.next += 1;
                }
            }
            if job.next < total {
                return Some(Ok(Deltas::Running { done: job.next, total }));
            }
            let runs: Vec<(RunResult, RunResult)> =
                job.done.drain(..).filter_map(|(a, b)| Some((a?, b?))).collect();
            let seeds = job.seeds.clone();
            i.job = None;
            Some(Ok(Deltas::Ready(Arc::new(deltas::table(&runs, seeds)))))
        });
        match out.flatten() {
            None => false,
            Some(Ok(d)) => {
                let more = matches!(d, Deltas::Running { .. });
                if self.deltas.try_get_untracked().is_some_and(|old| old != d) {
                    self.deltas.set(d);
                }
                more
            }
            Some(Err(e)) => {
                self.with_inner(|i| i.job = None);
                self.deltas.set(Deltas::Failed(e));
                false
            }
        }
    }

    /// The link of what is shown.
    pub fn link(&self) -> Link {
        let text = self.text.get_untracked();
        let preset = compare_presets().iter().find(|p| p.text == text);
        Link {
            page: Page::Compare,
            compare_preset: preset.map(|p| p.id.to_string()),
            text: preset.is_none().then_some(text),
            base: self.config[0].try_get_untracked(),
            compare: self.config[1].try_get_untracked(),
            time: Some(self.time()),
            runs: self.runs.try_get_untracked().filter(|&n| n != 1),
            cpu: self.a.ui.pinned.try_get_untracked().flatten(),
            queue: self.a.ui.queue.try_get_untracked().filter(|q| !q.is_empty()),
            window: self.a.ui.window.try_get_untracked().flatten().map(|(a, b)| (a.max(0.0) as u64, b.max(0.0) as u64)),
            // The app's projector mode (the panes share its signal).
            big: self.a.ui.big.try_get_untracked().unwrap_or(false),
            ..Default::default()
        }
    }

    /// Builds the comparison a link describes (its preset or text, its
    /// configurations, instant, CPU, window and seeds); a scenario that
    /// does not build falls back to the first preset, in the editor with
    /// the error. Returns a message per part that could not be applied.
    pub fn from_link(link: &Link, big: Option<RwSignal<bool>>) -> (Cmp, Vec<String>) {
        let mut problems = Vec::new();
        let preset_text = match link.compare_preset.as_deref() {
            Some(id) => {
                let t = presets::compare_by_id(id).map(|p| p.text);
                if t.is_none() {
                    problems.push(format!("The link names an unknown comparison preset `{id}`; the first one runs."));
                }
                t
            }
            None => None,
        };
        let text = link.text.clone().or(preset_text.map(str::to_string)).unwrap_or_else(|| compare_presets()[0].text.to_string());
        let (b0, c0) = study_configs(&text).unwrap_or_else(|| ("6.6".into(), "6.18".into()));
        let base = link.base.clone().unwrap_or(b0);
        let patch = link.compare.clone().unwrap_or(c0);
        let cmp = match Cmp::with_big(&text, &base, &patch, link.time.unwrap_or(0), big) {
            Ok(c) => c,
            Err(e) => {
                let d = compare_presets()[0].text;
                let (b, c) = study_configs(d).expect("the first comparison preset has a [study] table");
                let cmp = Cmp::with_big(d, &b, &c, 0, big).expect("the first comparison preset builds");
                cmp.editor.set(text.clone());
                let msg = format!("The link's scenario does not build ({e}); the first preset runs meanwhile.");
                cmp.scenario_error.set(Some(msg.clone()));
                problems.push(msg);
                cmp
            }
        };
        for (i, name) in [(0, "base"), (1, "patch")] {
            if let Some(e) = cmp.config_error[i].get_untracked() {
                problems.push(format!("The link's {name} configuration does not apply ({e}); the scenario's own settings run."));
            }
        }
        problems.extend(cmp.apply_view(link));
        (cmp, problems)
    }

    /// Applies the view parts of a link: CPU, window, group queues, seeds (its instant
    /// is applied when the runs are built; here it is only checked).
    fn apply_view(&self, link: &Link) -> Vec<String> {
        let mut problems = Vec::new();
        let dur = self.a.ui.setup.with_untracked(|s| s.duration);
        if let Some(t) = link.time.filter(|&t| t > dur) {
            problems.push(format!("The link's instant {} lies after the end of the run ({}); the end is shown.", fmt::ms(t), fmt::ms(dur)));
        }
        if let Some(c) = link.cpu {
            let nr = self.a.ui.setup.with_untracked(|s| s.nr_cpus());
            if c < nr {
                self.a.ui.pinned.set(Some(c));
            } else {
                problems.push(format!("The link's CPU {c} does not exist (the machine has {nr}); CPU 0 is shown."));
            }
        }
        if let Some((a, b)) = link.window {
            if a < dur {
                self.a.ui.window.set(Some((a as f64, b.min(dur.max(1)) as f64)));
            } else {
                problems.push("The link's timeline window lies after the end of the run; the whole run is shown.".to_string());
            }
        }
        // Both panes share the queue path; the base pane's run decides
        // what exists.
        self.a.ui.queue.set(link.queue.clone().unwrap_or_default());
        self.a.publish();
        self.b.publish();
        problems.extend(crate::app::apply_queue(self.a, link));
        // A link without `n=` is of one seed (link() writes n only when it
        // is not 1): a comparison opened by such a link drops the seeds
        // of the one shown before.
        let n = link.runs.unwrap_or(1);
        if n != self.runs.get_untracked() {
            self.runs.set(n);
            self.restart_deltas();
        }
        problems
    }

    /// Opens another comparison link in this page's state.
    pub fn apply_link(&self, link: &Link) -> Vec<String> {
        let mut problems = Vec::new();
        let text = match (&link.text, link.compare_preset.as_deref()) {
            (Some(t), _) => Some(t.clone()),
            (None, Some(id)) => match presets::compare_by_id(id) {
                Some(p) => Some(p.text.to_string()),
                None => {
                    problems.push(format!("The link names an unknown comparison preset `{id}`; the comparison shown is kept."));
                    None
                }
            },
            (None, None) => None,
        };
        if let Some(t) = text {
            if let Some((b, c)) = study_configs(&t) {
                self.config[0].set(b);
                self.config[1].set(c);
            }
            self.editor.set(t);
        }
        if let Some(b) = &link.base {
            self.config[0].set(b.clone());
        }
        if let Some(c) = &link.compare {
            self.config[1].set(c.clone());
        }
        self.a.ui.pinned.set(Some(0));
        self.a.ui.window.set(None);
        self.a.ui.queue.set(Vec::new());
        self.apply();
        if let Some(e) = self.scenario_error.get_untracked() {
            problems.push(format!("The link's scenario does not build ({e})."));
        }
        for (i, name) in [(0, "base"), (1, "patch")] {
            if let Some(e) = self.config_error[i].get_untracked() {
                problems.push(format!("The link's {name} configuration does not apply ({e})."));
            }
        }
        self.seek_time(link.time.unwrap_or(0));
        problems.extend(self.apply_view(link));
        problems
    }
}

/// Provides a pane's run to the lecture views inside it, in an owner of
/// its own: the two panes' contexts never see each other, nor leak to
/// what is shown after the page. Its figures' files are named
/// `schedlab-{side}-…` (`side`: base or patch).
#[component]
fn PaneScope(ctx: Ctx, side: &'static str, children: Children) -> impl IntoView {
    provide_context(crate::export::FigurePrefix(if side == "base" { "schedlab-base" } else { "schedlab-patch" }));
    view! { <Provider value=ctx>{children()}</Provider> }
}

/// The app's way to open a pane's run in the lecture view.
#[derive(Clone, Copy)]
struct OpenInLecture(Option<OpenRun>);

#[component]
fn Pane(cmp: Cmp, side: usize) -> impl IntoView {
    let ctx = if side == 0 { cmp.a } else { cmp.b };
    let open_run = use_context::<OpenInLecture>().and_then(|o| o.0);
    let open = move |_| {
        if let (Some(cb), Some((text, ov))) = (open_run, ctx.with_lab(|l| (l.text.clone(), l.overrides.clone()))) {
            cb.run((text, ov, ctx.at().0));
        }
    };
    let input = cmp.config[side];
    let error = cmp.config_error[side];
    let (name, testid) = if side == 0 { ("base", "pane-base") } else { ("patch", "pane-patch") };
    let list = format!("configs-{side}");
    let options = PRESET_NAMES
        .iter()
        .map(|k| k.to_string())
        .chain(PATCHES.iter().map(|p| format!("{}+{}", if p.name == "next-buddy-hint" { "5.15" } else { "6.6" }, p.name)))
        .chain(PATCHES.iter().map(|p| format!("6.18+{}", p.name)))
        .map(|o| view! { <option value=o.clone()></option> })
        .collect_view();
    let kernel = move || ctx.ui.setup.with(|s| format!("kernel {} · base slice {:.2} ms · HZ {}", s.kernel, s.base_slice as f64 / 1e6, s.hz));
    // The patches of this side's configuration, with their sources.
    let sources = move || {
        let spec = ConfigSpec::parse(input.get().trim()).ok()?;
        let items: Vec<_> = spec
            .patches
            .iter()
            .filter_map(|name| PATCHES.iter().find(|p| p.name == name))
            .map(|p| {
                let link = commit_of(p.source).map(|c| {
                    view! { <a href=format!("https://git.kernel.org/pub/scm/linux/kernel/git/torvalds/linux.git/commit/?id={c}") target="_blank" rel="noopener" data-testid="patch-link">{format!("commit {c}")}</a> }
                });
                view! { <li data-testid="patch-source" data-patch=p.name><strong>{p.name}</strong>{format!(": {} — {} ", p.title, p.source)}{link}</li> }
            })
            .collect();
        (!items.is_empty()).then(|| view! { <ul class="patch-sources muted">{items}</ul> })
    };
    let when = move || ctx.ui.frame.with(|f| format!("event {} · {}", f.event, fmt::ms(f.time)));
    view! {
        <section class="panel pane" data-testid=testid data-side=name>
            <div class="pane-head">
                <crate::views::traces::TraceButtons ctx=ctx label=name />
                <label class="config">
                    <span class="pane-name">{if side == 0 { "base" } else { "patch" }}</span>
                    <input
                        type="text"
                        data-testid=format!("config-{name}")
                        list=list.clone()
                        spellcheck="false"
                        aria-label=format!("{name} configuration: KERNEL[+PATCH...][,FLAG=on|off...]")
                        prop:value=move || input.get()
                        on:input=move |ev| input.set(event_target_value(&ev))
                        on:change=move |_| cmp.apply()
                        on:keydown=move |ev: web_sys::KeyboardEvent| { if ev.key() == "Enter" { cmp.apply() } }
                    />
                    <datalist id=list>{options}</datalist>
                </label>
                <span class="muted pane-kernel">{kernel}</span>
                {open_run.is_some().then(|| view! { <button class="small" data-testid=format!("open-lecture-{name}") title="open this run, at this instant, in the lecture view" on:click=open>"open in the lecture view"</button> })}
                <span class="pane-when" data-testid=format!("when-{name}") data-time=move || ctx.ui.frame.with(|f| f.time) data-event=move || ctx.ui.frame.with(|f| f.event)>{when}</span>
            </div>
            {move || error.get().map(|e| view! { <div class="scenario-error" role="alert" data-testid=format!("config-error-{name}")>{e}</div> })}
            {sources}
            <PaneScope ctx=ctx side=name>
                <TimelineView />
                <TreeView />
                <EligibilityView />
                <LagView />
            </PaneScope>
        </section>
    }
}

#[component]
fn CompareControls(cmp: Cmp) -> impl IntoView {
    let label = move || {
        // Re-run when either run moves.
        cmp.a.ui.frame.track();
        cmp.b.ui.frame.track();
        format!("t = {}", fmt::ms(cmp.time()))
    };
    let dur = move || cmp.a.ui.setup.with(|s| s.duration);
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if let Some(t) = ev.target() {
            use wasm_bindgen::JsCast;
            if let Some(el) = t.dyn_ref::<web_sys::Element>() {
                if el.closest("textarea, input, select").ok().flatten().is_some() {
                    return;
                }
            }
        }
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let handled = match ev.key().as_str() {
            " " => {
                cmp.toggle_play();
                true
            }
            "ArrowRight" => {
                cmp.step();
                true
            }
            "ArrowLeft" => {
                cmp.step_back();
                true
            }
            "Home" => {
                cmp.rewind();
                true
            }
            _ => false,
        };
        if handled {
            ev.prevent_default();
        }
    };
    let handle = window_event_listener(leptos::ev::keydown, on_key);
    on_cleanup(move || handle.remove());
    let has_div = move || cmp.divergence.with(|d| matches!(d, Divergence::Found { .. }));
    view! {
        <section class="controls" data-testid="compare-controls">
            <div class="buttons">
                <button data-testid="cmp-rewind" title="both runs to the start (Home)" on:click=move |_| cmp.rewind()>"⇤ start"</button>
                <button data-testid="cmp-back" title="one step back in time (←)" on:click=move |_| cmp.step_back()>"◀"</button>
                <button data-testid="cmp-play" class="play" title="play / pause both runs (space)" on:click=move |_| cmp.toggle_play()>
                    {move || if cmp.playing.get() { "❚❚ pause" } else { "▶ play" }}
                </button>
                <button data-testid="cmp-step" title="to the next event time of either run (→)" on:click=move |_| cmp.step()>"step ▶"</button>
                <button data-testid="btn-jump-diff" class="diff" disabled=move || !has_div() title="put the cursor on the first event where the runs differ" on:click=move |_| cmp.jump_to_difference()>
                    "≠ jump to first difference"
                </button>
                <label class="speed" title="simulated time per second of playing">
                    "speed "
                    <input type="range" min="0" max="6" step="0.1" data-testid="cmp-speed"
                        prop:value=move || cmp.speed.get().to_string()
                        on:input=move |ev| { if let Ok(v) = event_target_value(&ev).parse::<f64>() { cmp.speed.set(v.clamp(0.0, 6.0)) } } />
                    <span class="speed-label">{move || format!("{}/s", fmt::duration_short(10f64.powf(cmp.speed.get()) * 1e3))}</span>
                </label>
                <span class="event-label" data-testid="cmp-time">{label}</span>
            </div>
            <input type="range" class="scrubber" data-testid="cmp-scrubber" min="0"
                max=move || dur().to_string()
                prop:value=move || { cmp.a.ui.frame.track(); cmp.b.ui.frame.track(); cmp.time().to_string() }
                on:input=move |ev| { if let Ok(t) = event_target_value(&ev).parse::<u64>() { cmp.seek_time(t) } }
                aria-label="shared position in the run (simulated ns)" />
        </section>
    }
}

#[component]
fn DivergencePanel(cmp: Cmp) -> impl IntoView {
    let body = move || match cmp.divergence.get() {
        Divergence::Computing => {
            let pct = |p: Ctx| p.ui.frame.with(|f| if f.finished { 100.0 } else { f.computed_time as f64 * 100.0 / p.ui.setup.with(|s| s.duration.max(1)) as f64 });
            view! { <p class="muted" data-testid="divergence" data-state="computing">{format!("computing both runs ({:.0} %, {:.0} %) to find where they first behave differently…", pct(cmp.a), pct(cmp.b))}</p> }.into_any()
        }
        Divergence::Identical { records, truncated } => view! {
            <p data-testid="divergence" data-state="none">
                <strong>"no behavioural difference"</strong>
                {format!(": every pick, switch, placement and preemption is the same, at the same time ({records} records{})", if truncated { ", as far as they were computed" } else { "" })}
            </p>
        }
        .into_any(),
        Divergence::Found { index, base, patch, fields, window, raw_index } => {
            let fields_text = fields.iter().map(|f| f.0).collect::<Vec<_>>().join(", ");
            let field_rows = fields
                .iter()
                .map(|(name, a, b)| view! { <tr data-testid="div-field" data-field=*name><th scope="row">{*name}</th><td class="diff-field">{a.clone()}</td><td class="diff-field">{b.clone()}</td></tr> })
                .collect_view();
            let side = |name: &'static str, s: Option<Side>| match s {
                Some(s) => view! {
                    <div class="div-side" data-testid=format!("div-{name}") data-event=s.event data-time=s.time>
                        <h3>{format!("{name}: event {} at {}", s.event, fmt::ms(s.time))}</h3>
                        <p class="explainer-headline">{s.explanation.headline.clone()}</p>
                        <ul class="explainer-lines">{s.explanation.lines.iter().filter(|l| **l != s.explanation.headline).map(|l| view! { <li>{l.clone()}</li> }).collect_view()}</ul>
                    </div>
                }
                .into_any(),
                None => view! { <div class="div-side" data-testid=format!("div-{name}")><h3>{format!("{name}: its log ends here")}</h3></div> }.into_any(),
            };
            let log = |name: &'static str, rows: Vec<LogRow>| {
                let f: Vec<(&'static str, String, String)> = fields.clone();
                view! {
                    <div class="log-diff-side">
                        <h4>{name}</h4>
                        <table class="log-diff" data-testid=format!("log-diff-{name}")>
                            {rows.into_iter().map(|r| {
                                let class = if r.at { "at" } else { "" };
                                view! {
                                    <tr class=class data-at=r.at.to_string()>
                                        <td class="num muted">{r.index}</td>
                                        <td class=if r.at && f.iter().any(|x| x.0 == "time") { "num diff-field" } else { "num" }>{fmt::ms(r.time)}</td>
                                        <td class:diff-field=r.at>{r.text}</td>
                                    </tr>
                                }
                            }).collect_view()}
                        </table>
                    </div>
                }
            };
            let [wa, wb] = window;
            view! {
                <div data-testid="divergence" data-state="found" data-index=index data-fields=fields_text.clone()>
                    <p>
                        {format!("The runs first behave differently at record {index}: ")}
                        <strong data-testid="div-fields">{format!("different {fields_text}")}</strong>
                        {raw_index.map(|r| format!(" (the raw logs already differ at record {r}, but only in the numbers a pick saw, not in what was decided)")).unwrap_or_default()}
                        ". What each run did there:"
                    </p>
                    <table class="div-fields deltas"><thead><tr><th scope="col">"field"</th><th scope="col">"base"</th><th scope="col">"patch"</th></tr></thead><tbody>{field_rows}</tbody></table>
                    {side("base", base)}
                    {side("patch", patch)}
                    <h3>"The two logs around it"</h3>
                    <div class="log-diff-pair">{log("base", wa)}{log("patch", wb)}</div>
                </div>
            }
            .into_any()
        }
    };
    view! {
        <section class="panel divergence-panel" aria-live="polite">
            <h2>"First behavioural difference" <span class="sub">"a different pick, switch, placement or preemption; marked ≠ on both timelines"</span></h2>
            {body}
        </section>
    }
}

fn num(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    }
}

fn figure_cells(f: &Figure, runs: usize) -> impl IntoView {
    let pm = |m: f64, s: f64| if runs > 1 { format!("{} ± {}", num(m), num(s)) } else { num(m) };
    // More or less is not better or worse here (fewer switches can be
    // either): the direction is shown by an arrow, in one neutral colour.
    let (class, arrow) = match f.change_pct {
        Some(c) if c > 0.05 => ("up", "▲ "),
        Some(c) if c < -0.05 => ("down", "▼ "),
        _ => ("same", ""),
    };
    let sig = match f.p {
        Some(p) if p < 0.01 => ("sig", format!("p = {p:.3} **")),
        Some(p) if p < 0.05 => ("sig", format!("p = {p:.3} *")),
        Some(p) => ("ns", format!("p = {p:.2}")),
        None => ("ns", "–".to_string()),
    };
    view! {
        <td class="num">{pm(f.base_mean, f.base_std)}</td>
        <td class="num">{pm(f.patch_mean, f.patch_std)}</td>
        <td class=format!("num change {class}")>{f.change_pct.map_or("–".to_string(), |c| format!("{arrow}{c:+.1} %"))}</td>
        <td class=format!("num p {}", sig.0) data-testid="delta-p" title="Welch's t test over the seeds: the chance of a difference this large if the two configurations behaved alike (* p < 0.05, ** p < 0.01)">{sig.1}</td>
    }
}

/// Columns the per-task table sorts by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SortBy {
    Task,
    Figure,
    Change,
    P,
}

#[component]
fn DeltaTableView(cmp: Cmp) -> impl IntoView {
    let sort = RwSignal::new((SortBy::Task, false));
    let filter = RwSignal::new(String::new());
    let copier = crate::app::use_copier();
    let export_error = RwSignal::new(None::<String>);
    let head = move |label: &'static str, by: SortBy| {
        view! {
            <th scope="col" aria-sort=move || { let (b, d) = sort.get(); if b == by { if d { "descending" } else { "ascending" } } else { "none" } }>
                <button class="sort" data-testid=format!("sort-{label}") on:click=move |_| sort.update(|s| *s = (by, if s.0 == by { !s.1 } else { by == SortBy::Change }))>
                    {label}{move || { let (b, d) = sort.get(); if b == by { if d { " ▼" } else { " ▲" } } else { "" } }}
                </button>
            </th>
        }
    };
    let body = move || match cmp.deltas.get() {
        Deltas::Running { done, total } => view! {
            <div data-testid="deltas" data-state="running">
                <progress max=total value=done aria-label="runs done"></progress>
                <span class="muted">{format!(" {done} of {total} runs")}</span>
            </div>
        }
        .into_any(),
        Deltas::Failed(e) => view! { <div class="scenario-error" data-testid="deltas" data-state="failed" role="alert">{e}</div> }.into_any(),
        Deltas::Ready(t) => {
            let runs = t.runs;
            let seeds = t.seeds.iter().map(|s| s.to_string()).collect::<Vec<_>>().join(", ");
            let f = filter.get().to_lowercase();
            let (by, desc) = sort.get();
            let mut rows: Vec<(&str, &Figure)> = t
                .tasks
                .iter()
                .flat_map(|td| td.figures.iter().map(move |f| (td.task.as_str(), f)))
                .filter(|(task, fig)| f.is_empty() || task.to_lowercase().contains(&f) || fig.metric.to_lowercase().contains(&f))
                .collect();
            let key_change = |x: &Figure| x.change_pct.map_or(0.0, f64::abs);
            match by {
                SortBy::Task => {}
                SortBy::Figure => rows.sort_by_key(|r| metric_order(r.1.metric)),
                SortBy::Change => rows.sort_by(|a, b| key_change(a.1).total_cmp(&key_change(b.1))),
                SortBy::P => rows.sort_by(|a, b| a.1.p.unwrap_or(2.0).total_cmp(&b.1.p.unwrap_or(2.0))),
            }
            if desc {
                rows.reverse();
            }
            let shown = rows.len();
            let total_rows: usize = t.tasks.iter().map(|t| t.figures.len()).sum();
            let rows = rows
                .into_iter()
                .map(|(task, f)| {
                    view! {
                        <tr data-testid="delta-row" data-task=task.to_string() data-metric=f.metric>
                            <th scope="row">{task.to_string()}</th>
                            <td>{format!("{}{}", f.metric, if f.unit.is_empty() { String::new() } else { format!(" ({})", f.unit) })}</td>
                            {figure_cells(f, runs)}
                        </tr>
                    }
                })
                .collect_view();
            let totals = t
                .totals
                .iter()
                .flat_map(|w| w.figures.iter().map(move |f| (w.task.clone(), f.clone())))
                .map(|(w, f)| view! { <tr data-testid="total-row" data-workload=w.clone()><th scope="row">{w.clone()}</th><td>{format!("Σ {}{}", f.metric, if f.unit.is_empty() { String::new() } else { format!(" ({})", f.unit) })}</td>{figure_cells(&f, runs)}</tr> })
                .collect_view();
            let wide = t
                .run_wide
                .iter()
                .map(|f| view! { <tr data-testid="run-row" data-metric=f.metric><td>{f.metric}</td>{figure_cells(f, runs)}</tr> })
                .collect_view();
            let t2 = t.clone();
            let t3 = t.clone();
            view! {
                <div data-testid="deltas" data-state="ready" data-runs=runs data-shown=shown>
                    <p class="muted">{format!("{runs} run{} per configuration (seeds {seeds}); mean{}; change = (patch − base) / base; p: Welch's t test over the seeds.", if runs == 1 { "" } else { "s" }, if runs > 1 { " ± sample std" } else { "" })}</p>
                    <div class="buttons">
                        <label>"filter " <input type="search" data-testid="delta-filter" placeholder="task or figure" prop:value=move || filter.get() on:input=move |ev| filter.set(event_target_value(&ev)) /></label>
                        <span class="muted">{format!("{shown} of {total_rows} rows")}</span>
                        <button class="small" data-testid="delta-csv" on:click=move |_| export_error.set(crate::export::download_text("schedlab-compare.csv", "text/csv", &t2.csv()).err())>"download CSV"</button>
                        <button class="small" data-testid="delta-copy" on:click=move |_| { if let Some(c) = copier { c.copy(t3.csv(), "The table (CSV) was copied to the clipboard.") } }>"copy CSV"</button>
                        {move || export_error.get().map(|e| view! { <span class="warn-text">{e}</span> })}
                    </div>
                    <h3>"Totals per workload"</h3>
                    <table class="deltas" data-testid="totals">
                        <thead><tr><th scope="col">"workload"</th><th scope="col">"figure"</th><th scope="col">"base"</th><th scope="col">"patch"</th><th scope="col">"change"</th><th scope="col">"significance"</th></tr></thead>
                        <tbody>{totals}</tbody>
                    </table>
                    <h3>"Per task"</h3>
                    <table class="deltas" data-testid="delta-table">
                        <thead><tr>{head("task", SortBy::Task)}{head("figure", SortBy::Figure)}<th scope="col">"base"</th><th scope="col">"patch"</th>{head("change", SortBy::Change)}{head("p", SortBy::P)}</tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                    <h3>"Whole run: pick_eevdf() and select_idle_sibling() counters"</h3>
                    <table class="deltas">
                        <thead><tr><th scope="col">"counter"</th><th scope="col">"base"</th><th scope="col">"patch"</th><th scope="col">"change"</th><th scope="col">"significance"</th></tr></thead>
                        <tbody>{wide}</tbody>
                    </table>
                </div>
            }
            .into_any()
        }
    };
    view! {
        <section class="panel deltas-panel">
            <h2>
                "Figures"
                <label class="runs">
                    " over "
                    <input type="number" min="1" max="100" data-testid="runs" prop:value=move || cmp.runs.get().to_string()
                        on:change=move |ev| { if let Ok(n) = event_target_value(&ev).parse::<u32>() { cmp.runs.set(n.clamp(1, 100)); cmp.restart_deltas(); } } />
                    " seeds"
                </label>
            </h2>
            {body}
        </section>
    }
}

/// The table's order of a figure (for sorting by figure).
fn metric_order(metric: &str) -> usize {
    deltas::TASK_METRICS.iter().position(|m| m.0 == metric).unwrap_or(usize::MAX)
}

/// The comparison page built from a link (the browser tests mount it
/// alone; the app keeps one [`Cmp`] for its lifetime and shows
/// [`CompareView`]).
#[component]
pub fn ComparePage(#[prop(into)] link: Link) -> impl IntoView {
    let big = use_context::<Ctx>().map(|c| c.ui.big);
    let cmp = Cmp::from_link(&link, big).0;
    view! { <CompareView cmp=cmp /> }
}

/// A run to open in the lecture view: the scenario, its configuration's
/// overrides and the event to show.
pub type OpenRun = Callback<(String, Overrides, u64)>;

/// The comparison page's view of `cmp`; `open_run` (the app's) opens a
/// pane's run in the lecture view.
#[component]
pub fn CompareView(cmp: Cmp, #[prop(optional)] open_run: Option<OpenRun>) -> impl IntoView {
    provide_context(OpenInLecture(open_run));
    provide_context(cmp);
    // The link, debounced, not while playing.
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        cmp.a.ui.frame.with(|f| f.event);
        cmp.b.ui.frame.with(|f| f.event);
        cmp.text.track();
        cmp.runs.track();
        cmp.a.ui.pinned.track();
        cmp.a.ui.window.track();
        cmp.a.ui.queue.track();
        cmp.a.ui.big.track();
        if cmp.playing.get() {
            return;
        }
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        pending.set_value(set_timeout_with_handle(move || crate::app::set_fragment(&cmp.link()), std::time::Duration::from_millis(250)).ok());
    });
    on_cleanup(move || {
        if let Some(h) = pending.try_get_value().flatten() {
            h.clear();
        }
    });
    // The selected CPU and the group queue are shared: when a view of one
    // pane changes them, both panes show the new choice.
    Effect::new(move |prev: Option<()>| {
        cmp.a.ui.pinned.track();
        cmp.a.ui.queue.track();
        if prev.is_some() {
            cmp.a.publish();
            cmp.b.publish();
        }
    });
    // The divergence, as soon as both runs are computed.
    Effect::new(move |_| {
        let fa = cmp.a.ui.frame.with(|f| (f.finished, f.gen));
        let fb = cmp.b.ui.frame.with(|f| (f.finished, f.gen));
        cmp.divergence.track();
        if fa.0 && fb.0 {
            cmp.update_divergence();
        }
    });
    let current = move || {
        cmp.text.with(|t| compare_presets().iter().find(|p| p.text == t).map_or("", |p| p.id).to_string())
    };
    let explanation = move || {
        cmp.text
            .with(|t| (presets::title(t), presets::explanation(t)))
    };
    view! {
        <div class="compare-page" data-testid="compare-page">
            <section class="panel compare-head">
                <label class="row">
                    "comparison "
                    <select data-testid="compare-preset" prop:value=current
                        on:change=move |ev| { if let Some(p) = presets::compare_by_id(&event_target_value(&ev)) { cmp.open(p.text) } }>
                        <option value="">"(edited)"</option>
                        {compare_presets().iter().map(|p| view! { <option value=p.id>{presets::title(p.text).unwrap_or_else(|| p.id.to_string())}</option> }).collect_view()}
                    </select>
                </label>
                <div class="preset-explanation" data-testid="compare-explanation">
                    {move || {
                        let (title, paras) = explanation();
                        view! {
                            <h3>{title.unwrap_or_else(|| "Your scenario".to_string())}</h3>
                            {paras.into_iter().map(|p| view! { <p>{p}</p> }).collect_view()}
                        }
                    }}
                </div>
                <details class="compare-editor">
                    <summary>"scenario (TOML): edit and apply"</summary>
                    <textarea class="editor" data-testid="compare-editor" spellcheck="false" aria-label="comparison scenario (TOML)"
                        prop:value=move || cmp.editor.get() on:input=move |ev| cmp.editor.set(event_target_value(&ev))></textarea>
                    <button data-testid="compare-apply" on:click=move |_| cmp.apply()>"apply"</button>
                </details>
                {move || cmp.scenario_error.get().map(|e| view! { <div class="scenario-error" role="alert" data-testid="compare-error">{e}</div> })}
            </section>
            <CompareControls cmp=cmp />
            <div class="panes">
                <Pane cmp=cmp side=0 />
                <Pane cmp=cmp side=1 />
            </div>
            <DivergencePanel cmp=cmp />
            <DeltaTableView cmp=cmp />
        </div>
    }
}

/// The comparison of the page (for tests).
pub fn use_cmp() -> Cmp {
    use_context::<Cmp>().expect("inside <ComparePage>")
}
