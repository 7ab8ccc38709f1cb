//! App state: the engine outside the reactive graph, and the few signals
//! the views read.
//!
//! The engine (a [`Player`]: the run computed ahead, checkpoints, the shown
//! instant) lives in one `Rc<RefCell<Lab>>` held by a `StoredValue`. After
//! every change the app publishes one [`Frame`] — the numbers of the shown
//! instant that the views draw — through one signal, at most once per
//! animation frame while playing. Views never touch the engine except the
//! timeline, which reads its reduced slices while drawing.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::prelude::*;
use schedlab_engine::lab::explain::{explain_event, Explanation};
use schedlab_engine::kernel::sched::core::Sched;
use schedlab_engine::kernel::sched::group::TaskGroup;
use schedlab_engine::kernel::sched::features::Feature;
use schedlab_engine::lab::player::{Direction, LagSample, Player, Scanned};
use schedlab_engine::kernel::lib::rbtree::NIL;
use schedlab_engine::lab::scenario::ScenarioError;
use schedlab_engine::kernel::sched::select::{Placed, ScanEnd};
use schedlab_engine::lab::snapshot::CpuView;
use schedlab_engine::kernel::sched::topology::CpuInfo;
use schedlab_engine::lab::trace::{Entry, PickReason, Record};
use schedlab_engine::Overrides;

use crate::perf;

/// The non-reactive side: the scenario that runs and its player.
pub struct Lab {
    /// Text of the scenario that runs (the last one that built).
    pub text: String,
    pub overrides: Overrides,
    pub player: Player,
    /// The player keeps a window of the newest records (the lecture
    /// view), or every record up to its event limit (a compare pane: the
    /// first divergence needs both whole logs).
    windowed: bool,
    /// Bumped at every rebuild.
    pub gen: u64,
    auto_cpu: u32,
    loop_active: bool,
    play_clock: f64,
    last_ts: Option<f64>,
    last_progress_publish: f64,
}

/// One CPU of the topology map.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CpuState {
    pub curr: Option<u32>,
    pub nr_running: u32,
    /// In its LLC's SIS_FILTER overloaded mask.
    pub overloaded: bool,
}

/// The last pick on the shown CPU at or before the shown event.
#[derive(Clone, Debug, PartialEq)]
pub struct PickInfo {
    pub event: u64,
    pub time: u64,
    pub task: Option<u32>,
    pub reason: PickReason,
    /// Entities pick_eevdf() visited, in order.
    pub path: Vec<u32>,
    pub v: u64,
    pub vruntime: u64,
    pub deadline: u64,
}

/// The last wakeup placement at or before the shown event.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacementInfo {
    pub event: u64,
    pub time: u64,
    pub task: u32,
    pub waker_cpu: u32,
    pub prev: u32,
    pub cpu: u32,
    pub how: Placed,
    pub end: ScanEnd,
    pub scan: Vec<Scanned>,
    pub filtered: u16,
    /// CPUs of the chosen CPU's LLC in the SIS_FILTER mask now (the
    /// record keeps only how many were filtered).
    pub mask_now: Vec<u32>,
}

/// Everything the views draw for the shown instant.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame {
    pub gen: u64,
    pub event: u64,
    pub time: u64,
    pub computed: u64,
    pub computed_time: u64,
    pub finished: bool,
    pub truncated: bool,
    /// The first event (and its time) whose records are still kept.
    pub kept_from: (u64, u64),
    /// The CPU the tree, eligibility and lag views show.
    pub cpu: u32,
    pub pinned: bool,
    /// The group queues descended into on that CPU, from the root: (group
    /// id, group name). Empty: the CPU's root queue.
    pub queue: Vec<(u32, String)>,
    /// The queue shown: the CPU's root queue, or the last group's queue.
    pub view: CpuView,
    /// The tasks queued on the CPU at every depth of its group queues
    /// (curr first, a group's tasks where its entity is): quiz mode's
    /// candidates, whichever queue is shown.
    pub tasks_here: Vec<u32>,
    pub pick: Option<PickInfo>,
    pub explanation: Explanation,
    pub cpus: Vec<CpuState>,
    pub placement: Option<PlacementInfo>,
    pub history: Vec<LagSample>,
}

/// A feature flag as the panel shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlagView {
    pub name: &'static str,
    pub on: bool,
    /// Set by the features panel (an override of the scenario).
    pub overridden: bool,
    pub doc: &'static str,
    pub origin: &'static str,
}

/// What changes only when the run is rebuilt.
#[derive(Clone, Debug, PartialEq)]
pub struct Setup {
    pub gen: u64,
    pub text: String,
    pub kernel: String,
    /// EEVDF is on (off: v5.15 CFS, no eligibility or deadlines).
    pub eevdf: bool,
    /// The kernel asked for by an override (None: the scenario's).
    pub kernel_override: Option<String>,
    pub flags: Vec<FlagView>,
    pub topo_name: String,
    pub sockets: u32,
    pub llcs_per_socket: u32,
    pub cores_per_llc: u32,
    pub threads_per_core: u32,
    pub cpus: Vec<CpuInfo>,
    pub names: Vec<String>,
    pub duration: u64,
    pub base_slice: u64,
    pub hz: u32,
}

impl Setup {
    pub fn nr_cpus(&self) -> u32 {
        self.cpus.len() as u32
    }
    pub fn name(&self, task: u32) -> &str {
        self.names.get(task as usize).map_or("?", |s| s.as_str())
    }
}

/// A scenario error as the editor shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ErrorInfo {
    pub key: String,
    pub line: Option<u32>,
    pub col: Option<u32>,
    pub msg: String,
    pub display: String,
}

impl From<&ScenarioError> for ErrorInfo {
    fn from(e: &ScenarioError) -> Self {
        ErrorInfo {
            key: e.key.clone(),
            line: e.pos.as_ref().map(|p| p.line),
            col: e.pos.as_ref().map(|p| p.col),
            msg: e.msg.clone(),
            display: e.to_string(),
        }
    }
}

/// What "jump" looks for: the engine's kinds of events.
pub use schedlab_engine::lab::explain::EventKind as Jump;

/// Quiz mode's question: who runs next on `cpu` after event `asked_at`?
#[derive(Clone, Debug, PartialEq)]
pub struct Quiz {
    pub cpu: u32,
    /// The CPU shown when the question was asked, if it picks no one else
    /// in the run and the question went to the CPU that picks next.
    pub moved_from: Option<u32>,
    pub asked_at: u64,
    /// The answer: the event of the next pick on `cpu` and the task it
    /// picked (None: no pick in what can be computed).
    pub answer: Option<(u64, u32)>,
    /// The task the class chose.
    pub guess: Option<u32>,
    /// The shown instant reached the answer's pick.
    pub revealed: bool,
}

impl Quiz {
    /// Still asking: the answer and everything after the asked instant
    /// are hidden.
    pub fn asking(&self) -> bool {
        !self.revealed
    }
}

/// Where a rebuilt run starts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Keep {
    Start,
    Event(u64),
    Time(u64),
}

/// The signals the views read and the controls write.
#[derive(Clone, Copy)]
pub struct Ui {
    pub frame: RwSignal<Arc<Frame>>,
    pub setup: RwSignal<Arc<Setup>>,
    /// The editor's text (may not build).
    pub editor: RwSignal<String>,
    pub error: RwSignal<Option<ErrorInfo>>,
    /// Problems with the link the page was opened with.
    pub notice: RwSignal<Vec<String>>,
    pub playing: RwSignal<bool>,
    /// log10 of simulated µs per wall-clock second.
    pub speed: RwSignal<f64>,
    pub big: RwSignal<bool>,
    pub pinned: RwSignal<Option<u32>>,
    pub jump: RwSignal<Jump>,
    /// Timeline window in ns (None: the whole run).
    pub window: RwSignal<Option<(f64, f64)>>,
    /// Groups descended into in the tree view (group ids, root first).
    pub queue: RwSignal<Vec<u32>>,
    /// A marked instant on the timeline (the comparison's first difference).
    pub marker: RwSignal<Option<Marker>>,
    /// When set, a move to a time asked for by a view (a click on the
    /// timeline) goes to this callback instead: the comparison moves both
    /// of its runs together.
    pub time_hook: StoredValue<Option<Callback<u64>>>,
    /// Jumps look only for events about this task (None: any).
    pub jump_task: RwSignal<Option<u32>>,
    /// Quiz mode (None: off).
    pub quiz: RwSignal<Option<Quiz>>,
    /// Quiz answers: (right, asked and revealed).
    pub score: RwSignal<(u32, u32)>,
}

/// An instant marked on the timeline, with what it marks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Marker {
    pub time: u64,
    pub event: u64,
    pub label: String,
}

/// The handle every view gets from the context.
#[derive(Clone, Copy)]
pub struct Ctx {
    engine: StoredValue<Rc<RefCell<Lab>>, LocalStorage>,
    pub ui: Ui,
}

/// Events computed before the first frame is shown.
const FIRST_CHUNK: u64 = 4096;

/// A player with its first chunk computed.
fn new_player(text: &str, ov: &Overrides, windowed: bool) -> Result<Player, ScenarioError> {
    let mut player = Player::new(text, ov)?;
    if windowed {
        player.set_window(schedlab_engine::lab::player::DEFAULT_WINDOW);
    }
    player.compute(FIRST_CHUNK);
    Ok(player)
}

fn now_ms() -> f64 {
    perf::now()
}

impl Ctx {
    /// Builds the context for a scenario, keeping a window of the newest
    /// records. Errors leave nothing built.
    pub fn new(text: &str, ov: Overrides) -> Result<Ctx, ScenarioError> {
        Ctx::build(text, ov, true)
    }

    /// [`Ctx::new`] for one run of a comparison: every record is kept, up
    /// to the player's event limit.
    pub fn new_pane(text: &str, ov: Overrides) -> Result<Ctx, ScenarioError> {
        Ctx::build(text, ov, false)
    }

    fn build(text: &str, ov: Overrides, windowed: bool) -> Result<Ctx, ScenarioError> {
        let player = new_player(text, &ov, windowed)?;
        let lab = Lab {
            text: text.to_string(),
            overrides: ov,
            player,
            windowed,
            gen: 1,
            auto_cpu: 0,
            loop_active: false,
            play_clock: 0.0,
            last_ts: None,
            last_progress_publish: 0.0,
        };
        let setup = Arc::new(setup_of(&lab));
        let mut lab = lab;
        let frame = Arc::new(frame_of(&mut lab, None, true, &[]));
        let ui = Ui {
            frame: RwSignal::new(frame),
            setup: RwSignal::new(setup),
            editor: RwSignal::new(text.to_string()),
            error: RwSignal::new(None),
            notice: RwSignal::new(Vec::new()),
            playing: RwSignal::new(false),
            speed: RwSignal::new(3.0),
            big: RwSignal::new(false),
            pinned: RwSignal::new(None),
            jump: RwSignal::new(Jump::Pick),
            window: RwSignal::new(None),
            queue: RwSignal::new(Vec::new()),
            marker: RwSignal::new(None),
            time_hook: StoredValue::new(None),
            jump_task: RwSignal::new(None),
            quiz: RwSignal::new(None),
            score: RwSignal::new((0, 0)),
        };
        let ctx = Ctx {
            engine: StoredValue::new_local(Rc::new(RefCell::new(lab))),
            ui,
        };
        ctx.start_loop();
        Ok(ctx)
    }

    /// Runs `f` on the engine; None once the owner is gone (unmounted).
    pub fn try_with<R>(&self, f: impl FnOnce(&mut Lab) -> R) -> Option<R> {
        let rc = self.engine.try_get_value()?;
        let mut lab = rc.try_borrow_mut().ok()?;
        Some(f(&mut lab))
    }

    /// Reads the engine without mutating it (for drawing).
    pub fn with_lab<R>(&self, f: impl FnOnce(&Lab) -> R) -> Option<R> {
        let rc = self.engine.try_get_value()?;
        let lab = rc.try_borrow().ok()?;
        Some(f(&lab))
    }

    /// Publishes the frame of the shown instant.
    pub fn publish(&self) {
        // A handle that outlived its owner (a timer after unmounting)
        // publishes nothing.
        let (Some(pinned), Some(playing), Some(queue)) =
            (self.ui.pinned.try_get_untracked(), self.ui.playing.try_get_untracked(), self.ui.queue.try_get_untracked())
        else {
            return;
        };
        // While playing, the views stay on one CPU instead of following
        // every event's CPU (which would also rebuild the lag history).
        let follow = !playing;
        let t0 = now_ms();
        if let Some(frame) = self.try_with(|lab| frame_of(lab, pinned, follow, &queue)) {
            let (event, cpu) = (frame.event, frame.cpu);
            if self.ui.frame.try_set(Arc::new(frame)).is_some() {
                return;
            }
            self.update_quiz(event, cpu);
        }
        perf::record("publish", now_ms() - t0);
    }

    /// Keeps quiz mode's question in step with the shown instant: reaching
    /// the answer's pick reveals it (and scores the guess); moving on from
    /// a revealed answer, back before the question, or to another CPU asks
    /// anew.
    fn update_quiz(&self, event: u64, cpu: u32) {
        let Some(Some(q)) = self.ui.quiz.try_get_untracked() else { return };
        let fresh = if q.revealed {
            q.answer.is_none_or(|a| a.0 != event)
        } else {
            event < q.asked_at || cpu != q.cpu
        };
        if fresh {
            self.ask(event, cpu);
            return;
        }
        if !q.revealed && q.answer.is_some_and(|a| event >= a.0) {
            let right = q.guess.is_some() && q.guess == q.answer.map(|a| a.1);
            self.ui.score.update(|s| {
                s.0 += right as u32;
                s.1 += 1;
            });
            self.ui.quiz.set(Some(Quiz { revealed: true, ..q }));
        }
    }

    /// A new question at the shown instant, about `cpu`, or, when that
    /// CPU picks no one else in the run (a hog alone on it), about the CPU
    /// that picks next, which is then shown.
    fn ask(&self, event: u64, cpu: u32) {
        let found = self.try_with(|lab| next_answer(&mut lab.player, cpu, event)).flatten();
        let at = found.map_or(cpu, |a| a.0);
        let moved_from = (at != cpu).then_some(cpu);
        self.ui.quiz.set(Some(Quiz { cpu: at, moved_from, asked_at: event, answer: found.map(|a| (a.1, a.2)), guess: None, revealed: false }));
        if moved_from.is_some() {
            self.ui.pinned.set(Some(at));
            self.publish();
        }
    }

    /// Quiz mode on (at the shown instant, on the shown CPU, which stays
    /// chosen) or off.
    pub fn set_quiz(&self, on: bool) {
        if !on {
            self.ui.quiz.set(None);
            return;
        }
        self.ui.playing.set(false);
        let (event, cpu) = self.ui.frame.with_untracked(|f| (f.event, f.cpu));
        if self.ui.pinned.get_untracked().is_none() {
            self.ui.pinned.set(Some(cpu));
        }
        self.ui.score.set((0, 0));
        self.ask(event, cpu);
        self.publish();
    }

    /// The class's guess for the question.
    pub fn guess(&self, task: u32) {
        self.ui.quiz.update(|q| {
            if let Some(q) = q.as_mut().filter(|q| q.asking()) {
                q.guess = Some(task);
            }
        });
    }

    /// Shows the answer: the cursor goes to the pick.
    pub fn reveal(&self) {
        if let Some(Some((k, _))) = self.ui.quiz.with_untracked(|q| q.as_ref().map(|q| q.answer)) {
            self.seek(k);
        }
    }

    fn publish_setup(&self) {
        if let Some(s) = self.with_lab(setup_of) {
            self.ui.setup.set(Arc::new(s));
        }
    }

    /// Builds a new run from `text` with overrides `ov`. On an error the
    /// old run keeps going and the error is shown.
    pub fn load(&self, text: &str, ov: Overrides, keep: Keep) -> Result<(), ScenarioError> {
        let windowed = self.with_lab(|l| l.windowed).unwrap_or(true);
        let mut player = match new_player(text, &ov, windowed) {
            Ok(p) => p,
            Err(e) => {
                self.ui.error.set(Some(ErrorInfo::from(&e)));
                return Err(e);
            }
        };
        self.ui.error.set(None);
        match keep {
            Keep::Start => {}
            Keep::Event(k) => {
                player.seek(k);
            }
            Keep::Time(t) => {
                player.seek_time(t);
            }
        }
        self.try_with(|lab| {
            lab.text = text.to_string();
            lab.overrides = ov;
            lab.player = player;
            lab.gen += 1;
            lab.play_clock = lab.player.time() as f64;
        });
        self.ui.playing.set(false);
        let dur = self.with_lab(|l| l.player.duration()).unwrap_or(1) as f64;
        if let Some((a, b)) = self.ui.window.get_untracked() {
            if a >= dur || b > dur * 1.5 {
                self.ui.window.set(None);
            }
        }
        let nr = self.with_lab(|l| l.player.config.cpus).unwrap_or(1);
        if self.ui.pinned.get_untracked().is_some_and(|c| c >= nr) {
            self.ui.pinned.set(None);
        }
        self.publish_setup();
        self.publish();
        self.start_loop();
        Ok(())
    }

    /// Rebuilds the same scenario with other overrides, at the same time.
    pub fn set_overrides(&self, ov: Overrides) {
        let Some((text, t)) = self.with_lab(|l| (l.text.clone(), l.player.time())) else {
            return;
        };
        if let Err(e) = self.load(&text, ov, Keep::Time(t)) {
            // An override that does not build (e.g. an unknown flag from a
            // link): say so, keep the run.
            self.ui
                .notice
                .update(|n| n.push(format!("That setting does not build: {e}")));
            self.ui.error.set(None);
        }
    }

    pub fn overrides(&self) -> Overrides {
        self.with_lab(|l| l.overrides.clone()).unwrap_or_default()
    }

    /// Toggles one flag: an override, dropped again when it matches what
    /// the scenario and kernel give without it.
    pub fn toggle_feature(&self, name: &str, on: bool) {
        let mut ov = self.overrides();
        ov.features.retain(|(n, _)| n != name);
        let Some((text, kov)) = self.with_lab(|l| (l.text.clone(), l.overrides.kernel.clone()))
        else {
            return;
        };
        let base = Overrides {
            kernel: kov,
            features: ov.features.clone(),
            ..Default::default()
        };
        let default_on =
            schedlab_engine::from_text(&text, &base, schedlab_engine::LogMode::HashOnly)
                .ok()
                .and_then(|(_, cfg)| Feature::from_name(name).map(|f| cfg.features.has(f)));
        if default_on != Some(on) {
            ov.features.push((name.to_string(), on));
        }
        self.set_overrides(ov);
    }

    pub fn set_kernel(&self, kernel: Option<String>) {
        let mut ov = self.overrides();
        ov.kernel = kernel;
        self.set_overrides(ov);
    }

    fn moved(&self, f: impl FnOnce(&mut Player) -> u64) {
        let t0 = now_ms();
        if self
            .try_with(|lab| {
                f(&mut lab.player);
                lab.play_clock = lab.player.time() as f64;
            })
            .is_some()
        {
            self.publish();
            self.start_loop();
        }
        perf::record("move", now_ms() - t0);
    }

    pub fn seek(&self, k: u64) {
        self.moved(|p| p.seek(k));
    }

    /// Moves to time `t`, or hands `t` to the time hook when one is set
    /// (see [`Ui::time_hook`]).
    pub fn seek_time(&self, t: u64) {
        match self.ui.time_hook.try_get_value().flatten() {
            Some(hook) => hook.run(t),
            None => self.seek_time_here(t),
        }
    }

    /// Moves this run to the last event at or before time `t`.
    pub fn seek_time_here(&self, t: u64) {
        self.moved(|p| p.seek_time(t));
    }

    /// Plays forward to time `t` (every event up to it).
    pub fn play_to(&self, t: u64) {
        self.moved(|p| p.play_to(t));
    }

    /// The shown instant: (event, time).
    pub fn at(&self) -> (u64, u64) {
        self.with_lab(|l| (l.player.event(), l.player.time()))
            .unwrap_or_default()
    }

    /// Time of the next event after the shown one (None at the end).
    pub fn next_time(&self) -> Option<u64> {
        self.with_lab(|l| {
            let sim = l.player.sim();
            if sim.state.done {
                return None;
            }
            sim.state.next_time().filter(|&t| t <= l.player.duration())
        })
        .flatten()
    }

    /// The explanation of event `k` (the shown instant is kept).
    pub fn explain_at(&self, k: u64) -> Option<Explanation> {
        self.try_with(|lab| {
            let p = &mut lab.player;
            let cur = p.event();
            p.seek(k);
            let e = explain_event(p.sim(), p.log(), &p.entries(k));
            p.seek(cur);
            e
        })
    }

    /// Opens (or, with None, leaves) a group's queue in the tree view.
    pub fn open_group(&self, group: Option<u32>) {
        self.ui.queue.update(|q| match group {
            Some(g) => q.push(g),
            None => {
                q.pop();
            }
        });
        self.publish();
    }

    /// Back up to the queue at `depth` (0: the CPU's root queue).
    pub fn queue_up_to(&self, depth: usize) {
        self.ui.queue.update(|q| q.truncate(depth));
        self.publish();
    }

    pub fn step(&self) {
        self.moved(|p| {
            p.step();
            p.event()
        });
    }

    pub fn step_back(&self) {
        self.moved(|p| {
            p.step_back();
            p.event()
        });
    }

    pub fn rewind(&self) {
        self.ui.playing.set(false);
        self.seek(0);
    }

    /// To the next (previous) event of the selected kind.
    pub fn jump(&self, dir: Direction) {
        // In quiz mode, the next pick is the answer.
        if dir == Direction::Forward && self.ui.quiz.with_untracked(|q| q.as_ref().is_some_and(|q| q.asking())) {
            self.reveal();
            return;
        }
        let kind = self.ui.jump.get_untracked();
        let task = self.ui.jump_task.get_untracked();
        self.moved(|p| {
            let from = p.event();
            let hit = |r: &Record| kind.matches(r) && task.is_none_or(|t| schedlab_engine::lab::explain::record_tasks(r).contains(&Some(t)));
            match p.find(from, dir, 1 << 21, hit) {
                Some(k) => p.seek(k),
                None => from,
            }
        });
    }

    pub fn set_playing(&self, on: bool) {
        if on {
            // At the end: start over.
            let at_end = self
                .with_lab(|l| l.player.finished() && l.player.event() >= l.player.computed())
                .unwrap_or(false);
            if at_end {
                self.seek(0);
            }
            self.try_with(|lab| {
                lab.play_clock = lab.player.time() as f64;
                lab.last_ts = None;
            });
        }
        self.ui.playing.set(on);
        self.start_loop();
    }

    pub fn toggle_play(&self) {
        self.set_playing(!self.ui.playing.get_untracked());
    }

    pub fn pin_cpu(&self, cpu: Option<u32>) {
        self.ui.pinned.set(cpu);
        self.publish();
    }

    /// Starts the animation-frame loop if it is not running: it computes
    /// the run ahead in slices of a few milliseconds and plays.
    pub fn start_loop(&self) {
        let start = self.try_with(|lab| {
            if lab.loop_active {
                false
            } else {
                lab.loop_active = true;
                lab.last_ts = None;
                true
            }
        });
        if start == Some(true) {
            let ctx = *self;
            request_animation_frame(move || ctx.tick());
        }
    }

    fn tick(self) {
        let t0 = now_ms();
        let Some(playing) = self.ui.playing.try_get_untracked() else {
            return;
        };
        let speed = 10f64.powf(self.ui.speed.try_get_untracked().unwrap_or(3.0));
        let out = self.try_with(|lab| {
            let mut moved = false;
            let mut progress = false;
            let before = lab.player.event();
            if playing {
                let dt = lab.last_ts.map_or(0.0, |l| (t0 - l).clamp(0.0, 100.0));
                // µs per second × ms = ns.
                lab.play_clock += speed * dt;
                lab.player.play_to(lab.play_clock as u64);
                moved = lab.player.event() != before;
            }
            lab.last_ts = Some(t0);
            if !lab.player.finished() {
                let budget = if playing { 4.0 } else { 9.0 };
                while !lab.player.finished() && now_ms() - t0 < budget {
                    lab.player.compute(2048);
                }
                progress = true;
            }
            let end = lab.player.finished() && lab.player.event() >= lab.player.computed();
            let publish_progress =
                progress && (lab.player.finished() || t0 - lab.last_progress_publish > 200.0);
            if publish_progress {
                lab.last_progress_publish = t0;
            }
            let cont = (playing && !end) || !lab.player.finished();
            if !cont {
                lab.loop_active = false;
            }
            (moved || publish_progress, end, cont)
        });
        let Some((publish, end, cont)) = out else {
            return;
        };
        if publish {
            self.publish();
        }
        if playing && end {
            self.ui.playing.set(false);
        }
        perf::record("tick", now_ms() - t0);
        if cont {
            request_animation_frame(move || self.tick());
        }
    }
}

/// How many events ahead quiz mode looks for its answer.
const QUIZ_REACH: u64 = 1 << 20;

/// The answer to "who runs next on `cpu` after event `k`?" as (CPU,
/// event, task): that CPU's next pick of a task, or, if it has none in
/// reach, the next pick of a task on any CPU.
fn next_answer(p: &mut Player, cpu: u32, k: u64) -> Option<(u32, u64, u32)> {
    let answer = |e: Entry| match e.record {
        Record::Pick { cpu, task, .. } => Some((cpu, e.event, task)),
        _ => None,
    };
    if let Some(a) = p.next_pick(cpu, k, QUIZ_REACH).and_then(answer) {
        return Some(a);
    }
    let picks = |r: &Record| matches!(*r, Record::Pick { task, .. } if task != NIL);
    let e = p.find(k, Direction::Forward, QUIZ_REACH, picks)?;
    p.entries(e).into_iter().find(|x| picks(&x.record)).and_then(answer)
}

fn setup_of(lab: &Lab) -> Setup {
    let cfg = &lab.player.config;
    let topo = &cfg.topology;
    let flags = Feature::ALL
        .iter()
        .map(|&f| FlagView {
            name: f.name(),
            on: cfg.features.has(f),
            overridden: lab.overrides.features.iter().any(|(n, _)| n == f.name()),
            doc: f.doc(),
            origin: f.origin(),
        })
        .collect();
    Setup {
        gen: lab.gen,
        text: lab.text.clone(),
        kernel: cfg.kernel.clone(),
        eevdf: cfg.features.has(Feature::EEVDF),
        kernel_override: lab.overrides.kernel.clone(),
        flags,
        topo_name: topo.name.clone(),
        sockets: topo.sockets,
        llcs_per_socket: topo.llcs_per_socket,
        cores_per_llc: topo.cores_per_llc,
        threads_per_core: topo.threads_per_core,
        cpus: topo.cpus.clone(),
        names: lab.player.sim().info.task_names.clone(),
        duration: lab.player.duration(),
        base_slice: cfg.tunables.base_slice,
        hz: cfg.tunables.hz,
    }
}

/// The queues a path of group ids leads to on `cpu`: each group must be a
/// child of the previous one (the root for the first); the path stops at
/// the first that is not. Returns (group id, name, queue index).
fn resolve_queue(groups: &[TaskGroup], cpu: u32, path: &[u32]) -> Vec<(u32, String, u32)> {
    let mut out: Vec<(u32, String, u32)> = Vec::new();
    let mut parent = NIL;
    for &g in path {
        let Some(tg) = groups.get(g as usize) else { break };
        if tg.parent != parent {
            break;
        }
        let Some(&q) = tg.cfs_rq.get(cpu as usize) else { break };
        out.push((g, tg.name.clone(), q));
        parent = g;
    }
    out
}

/// How far back [`followed_cpu`] looks for an event that names a CPU.
const FOLLOW_BACK: u64 = 256;

/// The CPU the views follow at event `k` when none is chosen: the event's,
/// or that of the last event before it that names one (a channel
/// transfer or a nice change names none). A function of the event alone,
/// so that a link, which carries the event, reopens on the CPU shown.
fn followed_cpu(p: &Player, k: u64) -> Option<u32> {
    (k.saturating_sub(FOLLOW_BACK)..=k).rev().find_map(|e| p.event_cpu(e))
}

/// Appends the tasks of queue `view` to `out`, descending through its
/// group entities into the queues they own.
fn tasks_on(sched: &Sched, view: &CpuView, names: &[String], out: &mut Vec<u32>) {
    for e in &view.entities {
        match (e.task, sched.entity_queue(e.entity)) {
            (Some(t), _) => out.push(t),
            (None, Some(q)) => tasks_on(sched, &sched.queue_view(q, names), names, out),
            (None, None) => {}
        }
    }
}

fn frame_of(lab: &mut Lab, pinned: Option<u32>, follow: bool, path: &[u32]) -> Frame {
    let nr = lab.player.config.cpus;
    let k = lab.player.event();
    let cpu = match pinned {
        Some(c) if c < nr => c,
        _ => {
            if follow {
                if let Some(c) = followed_cpu(&lab.player, k) {
                    lab.auto_cpu = c;
                }
            }
            lab.auto_cpu.min(nr - 1)
        }
    };
    let p = &mut lab.player;
    p.set_tracked(Some(cpu));
    let queues = resolve_queue(&p.sim().sched().groups, cpu, path);
    let view = match queues.last() {
        Some(&(_, _, q)) => p.sim().sched().queue_view(q, &p.sim().info.task_names),
        None => p.cpu_view(cpu),
    };
    let mut tasks_here = Vec::new();
    let names = &p.sim().info.task_names;
    let root = if queues.is_empty() { None } else { Some(p.cpu_view(cpu)) };
    tasks_on(p.sim().sched(), root.as_ref().unwrap_or(&view), names, &mut tasks_here);
    let queue = queues.into_iter().map(|(g, n, _)| (g, n)).collect();
    let pick = p.last_pick(cpu, k).and_then(|(e, path)| match e.record {
        Record::Pick {
            task,
            reason,
            v,
            vruntime,
            deadline,
            ..
        } => Some(PickInfo {
            event: e.event,
            time: e.time,
            task: (task != NIL).then_some(task),
            reason,
            path,
            v,
            vruntime,
            deadline,
        }),
        _ => None,
    });
    let entries = p.entries(k);
    let explanation = explain_event(p.sim(), p.log(), &entries);
    let sched = p.sim().sched();
    let topo = &sched.topo;
    let cpus = (0..nr as usize)
        .map(|c| {
            let rq = &sched.rqs[c];
            CpuState {
                curr: (rq.curr != NIL).then_some(rq.curr),
                nr_running: rq.nr_running,
                overloaded: sched.llc[topo.cpus[c].llc as usize]
                    .overloaded
                    .test(c as u32),
            }
        })
        .collect();
    let placement = p.last_placement(k).and_then(|(e, scan)| match e.record {
        Record::Placement {
            task,
            waker_cpu,
            prev,
            cpu,
            how,
            end,
            filtered,
            ..
        } => {
            let llc = topo.cpus.get(cpu as usize).map_or(0, |c| c.llc);
            let mask_now = (0..nr)
                .filter(|&c| {
                    topo.cpus[c as usize].llc == llc && sched.llc[llc as usize].overloaded.test(c)
                })
                .collect();
            Some(PlacementInfo {
                event: e.event,
                time: e.time,
                task,
                waker_cpu,
                prev,
                cpu,
                how,
                end,
                scan,
                filtered,
                mask_now,
            })
        }
        _ => None,
    });
    let history = p.history().iter().cloned().collect();
    Frame {
        gen: lab.gen,
        event: k,
        time: p.time(),
        computed: p.computed(),
        computed_time: p.computed_time(),
        finished: p.finished(),
        truncated: p.truncated(),
        kept_from: p.kept_from(),
        cpu,
        pinned: pinned.is_some_and(|c| c < nr),
        queue,
        view,
        tasks_here,
        pick,
        explanation,
        cpus,
        placement,
        history,
    }
}

/// A setup for a bare machine (tests of the views' geometry).
#[cfg(test)]
pub(crate) fn setup_for(preset: &str) -> Setup {
    let t = schedlab_engine::kernel::sched::topology::Topology::preset(preset).expect("topology preset");
    Setup {
        gen: 1,
        text: String::new(),
        kernel: "6.18".into(),
        eevdf: true,
        kernel_override: None,
        flags: Vec::new(),
        topo_name: t.name.clone(),
        sockets: t.sockets,
        llcs_per_socket: t.llcs_per_socket,
        cores_per_llc: t.cores_per_llc,
        threads_per_core: t.threads_per_core,
        cpus: t.cpus.clone(),
        names: Vec::new(),
        duration: 1,
        base_slice: 700_000,
        hz: 1000,
    }
}

/// The context every view uses.
pub fn use_ctx() -> Ctx {
    use_context::<Ctx>().expect("views must be mounted inside <LabProvider>")
}
