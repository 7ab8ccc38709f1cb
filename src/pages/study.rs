//! The study page (issue 6): a `[study]` scenario (a preset from
//! assets/studies or pasted) planned by the engine (`Study::new`), its runs
//! executed by a pool of web workers (src/bin/study-worker.rs; one per
//! core the browser reports, at most [`worker::MAX_WORKERS`]) while the page shows
//! progress, the result table in the seed mails' format as it fills, and
//! charts. Every cell opens its worst seed's run in the lecture view.
//!
//! The pool hands out the runs in the study's order, one at a time to each
//! worker that is free, so the first runs finish first and a slow run
//! never holds up the others; a result lands in its own cell whatever
//! order the workers finish in. Cancel terminates every worker.
//!
//! The study state lives above the page switch ([`provide_study`]), so it
//! survives a visit to the lecture view and back.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use leptos::html::Canvas;
use leptos::prelude::*;
use schedlab_engine::lab::scenario::{self, Param, StudySpec};
use schedlab_engine::lab::study::{RunKey, Study, Table, CDF_QUANTILES, SAME_SCHEDULES_MEANS};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::fragment::{Link, Page};
use crate::perf;
use crate::presets::{self, study_presets};
use crate::views::plots::{self, BarGroup, Series};
use crate::worker::{self, Reply, Request};

/// Where the runs execute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runner {
    /// A pool of the web workers trunk builds from src/bin/study-worker.rs.
    Worker,
    /// On the page, one run per task (the browser tests, and the fallback
    /// when the worker cannot start).
    InPage,
}

/// The worker's entry, copied next to index.html (src/bin/study-worker_loader.js).
pub const WORKER_URL: &str = "./study-worker_loader.js";


#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub done: usize,
    pub total: usize,
    pub running: bool,
    /// Wall-clock ms since Run, and the estimate of what is left.
    pub elapsed_ms: f64,
    pub left_ms: Option<f64>,
    pub note: String,
    /// Workers running the study (0: on the page).
    pub workers: usize,
}

/// A restriction of the study to fewer seeds, loads or cases (to try it
/// quickly), applied to the text before planning.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shrink {
    pub seeds: Option<usize>,
    /// Indices of the loads / cases kept (None: all).
    pub loads: Option<Vec<usize>>,
    pub cases: Option<Vec<usize>>,
}

/// The page's state; handles only, so it is `Copy`.
#[derive(Clone, Copy)]
pub struct StudyState {
    pub editor: RwSignal<String>,
    pub shrink: RwSignal<Shrink>,
    pub error: RwSignal<Option<String>>,
    pub progress: RwSignal<Progress>,
    /// The table of the runs done so far (None before the first Run).
    pub table: RwSignal<Option<Arc<Table>>>,
    /// The preset the table is of (None: an edited study), set at Run.
    pub ran: RwSignal<Option<&'static str>>,
    pub sorted: RwSignal<bool>,
    /// The row whose latency CDF is drawn.
    pub cdf_row: RwSignal<usize>,
    pub runner: RwSignal<Runner>,
    inner: StoredValue<Rc<RefCell<Inner>>, LocalStorage>,
}

#[derive(Default)]
struct Inner {
    /// Bumped at every Run and Cancel: replies of older runs are dropped.
    gen: u64,
    study: Option<Study>,
    started: f64,
    /// When the last run came back (per-run wall time, for measurement).
    last_done: f64,
    /// The pool of the current Run (empty: none, or on the page).
    workers: Vec<PoolWorker>,
    /// The planned study's text, sent to each worker once it is ready.
    plan: String,
    /// The next run to hand out.
    next: usize,
}

/// One worker of the pool.
struct PoolWorker {
    handle: WorkerHandle,
    /// It said it is ready (messages sent before would be lost).
    ready: bool,
    /// It failed to load or crashed.
    dead: bool,
}

struct WorkerHandle {
    worker: web_sys::Worker,
    _on_message: Closure<dyn FnMut(web_sys::MessageEvent)>,
    _on_error: Closure<dyn FnMut(web_sys::Event)>,
}

impl Drop for WorkerHandle {
    /// The handlers go before the closures they point at: a message the
    /// worker posted before terminate() may still be dispatched, and would
    /// call a dropped closure ("closure invoked recursively or after being
    /// dropped", seen after 10 minutes of the e2e monkey).
    fn drop(&mut self) {
        self.worker.set_onmessage(None);
        self.worker.set_onerror(None);
        self.worker.terminate();
    }
}

/// Creates the study state (the app does, above its pages).
pub fn provide_study(runner: Runner) -> StudyState {
    let st = StudyState {
        editor: RwSignal::new(presets::study_by_id("seed-002-hackbench").map_or(study_presets()[0].text, |p| p.text).to_string()),
        shrink: RwSignal::new(Shrink::default()),
        error: RwSignal::new(None),
        progress: RwSignal::new(Progress { done: 0, total: 0, running: false, elapsed_ms: 0.0, left_ms: None, note: String::new(), workers: 0 }),
        table: RwSignal::new(None),
        ran: RwSignal::new(None),
        sorted: RwSignal::new(false),
        cdf_row: RwSignal::new(0),
        runner: RwSignal::new(runner),
        inner: StoredValue::new_local(Rc::new(RefCell::new(Inner::default()))),
    };
    provide_context(st);
    st
}

pub fn use_study() -> StudyState {
    use_context::<StudyState>().expect("inside the app (provide_study)")
}

fn quote(s: &str) -> String {
    format!("\"{}\"", s.escape_default())
}

/// The `[study]` table as TOML (the parser's inverse for StudySpec).
pub fn study_toml(s: &StudySpec) -> String {
    let mut out = String::from("\n[study]\n");
    out += &format!("base = {}\n", quote(&s.base.name));
    let cmp: Vec<String> = s.compare.iter().map(|c| quote(&c.name)).collect();
    out += &format!("compare = [{}]\n", cmp.join(", "));
    let seeds: Vec<String> = s.seeds.iter().map(|x| x.to_string()).collect();
    out += &format!("seeds = [{}]\n", seeds.join(", "));
    if let Some(l) = &s.load {
        out += &format!("load = {}\n", quote(&l.name));
        let loads: Vec<String> = s.loads.iter().map(|(p, _)| p.to_string()).collect();
        out += &format!("loads = [{}]\n", loads.join(", "));
    }
    if !s.cases.is_empty() {
        out += "cases = [\n";
        for c in &s.cases {
            let kv: Vec<String> = c.iter().map(|(k, v)| format!("{} = {v}", k.name)).collect();
            out += &format!("  {{ {} }},\n", kv.join(", "));
        }
        out += "]\n";
    }
    if let Some(m) = &s.metric {
        out += &format!("metric = {}\n", quote(&m.name));
    }
    out
}

/// The text to plan: the editor's, or (when shrunk) the same scenario
/// printed back with fewer seeds, loads or cases in its `[study]`.
pub fn effective_text(text: &str, shrink: &Shrink) -> Result<String, String> {
    let mut sc = scenario::parse(text).map_err(|e| e.to_string())?;
    if *shrink == Shrink::default() {
        return Ok(text.to_string());
    }
    let Some(mut spec) = sc.study.take() else {
        return Err("study: the scenario has no [study] table".into());
    };
    if let Some(n) = shrink.seeds {
        spec.seeds.truncate(n.max(1));
    }
    if let Some(keep) = &shrink.loads {
        let loads: Vec<(Param, scenario::Pos)> = spec.loads.iter().enumerate().filter(|(i, _)| keep.contains(i)).map(|(_, l)| l.clone()).collect();
        if !spec.loads.is_empty() && loads.is_empty() {
            return Err("study.loads: keep at least one load level".into());
        }
        spec.loads = loads;
    }
    if let Some(keep) = &shrink.cases {
        let cases: Vec<_> = spec.cases.iter().enumerate().filter(|(i, _)| keep.contains(i)).map(|(_, c)| c.clone()).collect();
        if !spec.cases.is_empty() && cases.is_empty() {
            return Err("study.cases: keep at least one case".into());
        }
        spec.cases = cases;
    }
    let comment: String = text.lines().take_while(|l| l.trim_start().starts_with('#')).map(|l| format!("{l}\n")).collect();
    Ok(format!("{comment}{}{}", scenario::to_toml(&sc), study_toml(&spec)))
}

/// Labels of the loads and cases of a study text, for the shrink controls.
pub fn choices(text: &str) -> Option<(usize, Vec<String>, Vec<String>)> {
    let st = scenario::parse(text).ok()?.study?;
    let loads = st.loads.iter().map(|(p, _)| p.to_string().trim_matches('"').to_string()).collect();
    let cases = st
        .cases
        .iter()
        .map(|c| c.iter().map(|(_, v)| v.to_string().trim_matches('"').to_string()).collect::<Vec<_>>().join("-"))
        .collect();
    Some((st.seeds.len(), loads, cases))
}

fn fmt_ms(ms: f64) -> String {
    if ms >= 59_950.0 {
        let s = (ms / 1000.0).round() as u64;
        format!("{}m{:02}s", s / 60, s % 60)
    } else {
        format!("{:.1} s", ms / 1000.0)
    }
}

impl StudyState {
    fn with_inner<R>(&self, f: impl FnOnce(&mut Inner) -> R) -> Option<R> {
        let rc = self.inner.try_get_value()?;
        let mut i = rc.try_borrow_mut().ok()?;
        Some(f(&mut i))
    }

    /// The planned study (read-only).
    pub fn with_study<R>(&self, f: impl FnOnce(&Study) -> R) -> Option<R> {
        let rc = self.inner.try_get_value()?;
        let i = rc.try_borrow().ok()?;
        i.study.as_ref().map(f)
    }

    /// Plans the editor's study and starts its runs.
    pub fn run(&self) {
        self.cancel_quietly();
        let text = match effective_text(&self.editor.get_untracked(), &self.shrink.get_untracked()) {
            Ok(t) => t,
            Err(e) => {
                self.error.set(Some(e));
                return;
            }
        };
        let study = match Study::new(&text) {
            Ok(s) => s,
            Err(e) => {
                self.error.set(Some(e.to_string()));
                return;
            }
        };
        self.error.set(None);
        let total = study.runs.len();
        self.ran.set(self.editor.with_untracked(|t| presets::study_matching(t).map(|p| p.id)));
        self.table.set(Some(Arc::new(study.table())));
        self.cdf_row.set(0);
        let gen = self
            .with_inner(|i| {
                i.gen += 1;
                i.study = Some(study);
                i.started = perf::now();
                i.last_done = i.started;
                i.gen
            })
            .unwrap_or(0);
        self.progress.set(Progress { done: 0, total, running: true, elapsed_ms: 0.0, left_ms: None, note: String::new(), workers: 0 });
        match self.runner.get_untracked() {
            Runner::Worker => self.start_pool(gen, text, total),
            Runner::InPage => self.run_in_page(gen),
        }
        self.tick_clock(gen);
    }

    /// Updates the elapsed time twice a second while running.
    fn tick_clock(&self, gen: u64) {
        let st = *self;
        set_timeout(
            move || {
                if st.with_inner(|i| i.gen) != Some(gen) || !st.progress.with_untracked(|p| p.running) {
                    return;
                }
                let started = st.with_inner(|i| i.started).unwrap_or(0.0);
                st.progress.update(|p| p.elapsed_ms = perf::now() - started);
                st.tick_clock(gen);
            },
            std::time::Duration::from_millis(500),
        );
    }

    /// Starts the pool for Run number `gen`; each worker gets the plan
    /// once it is ready, then runs one by one.
    fn start_pool(&self, gen: u64, text: String, total: usize) {
        let cores = web_sys::window().map(|w| w.navigator().hardware_concurrency());
        let n = worker::pool_size(cores, total);
        let mut workers = Vec::with_capacity(n);
        for k in 0..n {
            match self.spawn(gen, k) {
                Some(handle) => workers.push(PoolWorker { handle, ready: false, dead: false }),
                None => break,
            }
        }
        if workers.is_empty() {
            self.fall_back(gen, "the browser refused to start the study worker");
            return;
        }
        let started = workers.len();
        self.with_inner(|i| {
            i.workers = workers;
            i.plan = text;
            i.next = 0;
        });
        self.progress.update(|p| p.workers = started);
    }

    /// Starts worker `k` of Run `gen`; its messages are dropped once
    /// another Run (or Cancel) replaced it.
    fn spawn(&self, gen: u64, k: usize) -> Option<WorkerHandle> {
        let st = *self;
        let w = web_sys::Worker::new(WORKER_URL).ok()?;
        let current = move || st.with_inner(|i| i.gen) == Some(gen);
        let on_message = Closure::<dyn FnMut(web_sys::MessageEvent)>::new(move |ev: web_sys::MessageEvent| {
            if current() {
                st.on_reply(k, &ev.data().as_string().unwrap_or_default());
            }
        });
        let on_error = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
            ev.prevent_default();
            if current() {
                st.worker_failed(k);
            }
        });
        w.set_onmessage(Some(on_message.as_ref().unchecked_ref()));
        w.set_onerror(Some(on_error.as_ref().unchecked_ref()));
        Some(WorkerHandle { worker: w, _on_message: on_message, _on_error: on_error })
    }

    /// Hands worker `k` the next run not yet handed out, if any.
    fn dispatch(&self, k: usize) {
        let total = self.progress.with_untracked(|p| p.total);
        let out = self.with_inner(|i| {
            let w = i.workers.get(k).filter(|w| w.ready && !w.dead)?;
            if i.next >= total {
                return None;
            }
            let index = i.next;
            i.next += 1;
            Some((w.handle.worker.clone(), index))
        });
        if let Some(Some((w, index))) = out {
            let _ = w.post_message(&JsValue::from_str(&worker::encode(&Request::Run { index })));
        }
    }

    /// Worker `k` could not be loaded or crashed. Before any worker was
    /// ready the study runs on the page instead; a worker that dies later
    /// stops the study with an error.
    fn worker_failed(&self, k: usize) {
        let state = self.with_inner(|i| {
            let was_ready = i.workers.get(k).is_some_and(|w| w.ready);
            if let Some(w) = i.workers.get_mut(k) {
                w.dead = true;
            }
            let any_ready = i.workers.iter().any(|w| w.ready);
            let all_dead = i.workers.iter().all(|w| w.dead);
            (was_ready, any_ready, all_dead, i.gen)
        });
        let Some((was_ready, any_ready, all_dead, gen)) = state else { return };
        if was_ready {
            self.error.set(Some("a study worker stopped with an error (see the browser console)".into()));
            self.cancel_quietly();
        } else if all_dead && !any_ready && self.progress.with_untracked(|p| p.running) {
            self.with_inner(|i| i.workers.clear());
            self.fall_back(gen, "the study worker could not be loaded");
        }
    }

    fn fall_back(&self, gen: u64, why: &str) {
        self.runner.set(Runner::InPage);
        self.progress.update(|p| {
            p.note = format!("{why}; running on the page between frames instead");
            p.workers = 0;
        });
        self.run_in_page(gen);
    }

    fn on_reply(&self, k: usize, msg: &str) {
        match worker::decode_reply(msg) {
            Ok(Reply::Ready) => {
                let out = self.with_inner(|i| {
                    let plan = i.plan.clone();
                    let w = i.workers.get_mut(k)?;
                    w.ready = true;
                    Some((w.handle.worker.clone(), plan))
                });
                if let Some(Some((w, text))) = out {
                    let _ = w.post_message(&JsValue::from_str(&worker::encode(&Request::Plan { text })));
                    self.dispatch(k);
                }
            }
            Ok(Reply::Planned { runs }) => {
                let want = self.progress.with_untracked(|p| p.total);
                if runs != want {
                    self.error.set(Some(format!("the worker planned {runs} runs, the page {want}")));
                }
            }
            Ok(Reply::Done { index, value }) => {
                self.record(index, value.into_run_value());
                self.dispatch(k);
            }
            Ok(Reply::Failed { index, message }) => {
                self.error.set(Some(match index {
                    Some(i) => format!("run {i}: {message}"),
                    None => message,
                }));
                self.cancel_quietly();
            }
            // The pool's workers are never asked for an import, a chart or a trace.
            Ok(Reply::Imported { .. } | Reply::Svg { .. } | Reply::Trace { .. }) => self.error.set(Some("the worker answered a question nobody asked".into())),
            Err(e) => self.error.set(Some(e)),
        }
    }

    fn record(&self, index: usize, value: schedlab_engine::lab::study::RunValue) {
        let out = self.with_inner(|i| {
            let s = i.study.as_mut()?;
            if index >= s.runs.len() || s.values[index].is_some() {
                return None;
            }
            s.record(index, value);
            let now = perf::now();
            perf::record("study_run_ms", now - i.last_done);
            i.last_done = now;
            Some((s.table(), s.done(), s.runs.len(), i.started))
        });
        let Some(Some((table, done, total, started))) = out else { return };
        self.table.set(Some(Arc::new(table)));
        let elapsed = perf::now() - started;
        let finished = done == total;
        self.progress.update(|p| {
            p.done = done;
            p.elapsed_ms = elapsed;
            p.left_ms = (done > 0 && !finished).then(|| elapsed / done as f64 * (total - done) as f64);
            p.running = !finished;
        });
    }

    /// One run per task, yielding to the browser in between.
    fn run_in_page(&self, gen: u64) {
        let st = *self;
        set_timeout(
            move || {
                if st.with_inner(|i| i.gen) != Some(gen) {
                    return;
                }
                let next = st
                    .with_study(|s| {
                        let i = s.values.iter().position(Option::is_none)?;
                        Some((i, s.run_one(i)))
                    })
                    .flatten();
                match next {
                    None => {}
                    Some((i, Ok(v))) => {
                        st.record(i, v);
                        st.run_in_page(gen);
                    }
                    Some((i, Err(e))) => {
                        st.error.set(Some(format!("run {i}: {e}")));
                        st.progress.update(|p| p.running = false);
                    }
                }
            },
            std::time::Duration::from_millis(0),
        );
    }

    fn cancel_quietly(&self) {
        self.with_inner(|i| {
            i.gen += 1;
            // Terminating is the only way to stop a run in progress; the
            // next Run starts a fresh pool.
            i.workers.clear();
        });
        self.progress.update(|p| p.running = false);
    }

    /// Stops the study (the runs done so far stay in the table).
    pub fn cancel(&self) {
        if !self.progress.with_untracked(|p| p.running) {
            return;
        }
        self.cancel_quietly();
        self.progress.update(|p| {
            p.left_ms = None;
            p.note = format!("cancelled after {} of {} runs", p.done, p.total);
        });
    }

    /// The scenario of one cell's worst seed.
    pub fn cell_scenario(&self, row: usize, config: usize) -> Option<(String, u64)> {
        let table = self.table.get_untracked()?;
        let seed = table.rows.get(row)?.cells.get(config)?.worst_seed?;
        self.with_study(|s| (s.run_scenario_text(RunKey { row, config, seed }), seed))
    }

    /// The link of the page.
    pub fn link(&self) -> Link {
        let text = self.editor.get_untracked();
        let preset = presets::study_matching(&text);
        let sh = self.shrink.get_untracked();
        Link {
            page: Page::Study,
            study_preset: preset.map(|p| p.id.to_string()),
            text: preset.is_none().then_some(text),
            study_seeds: sh.seeds,
            study_loads: sh.loads,
            study_cases: sh.cases,
            ..Default::default()
        }
    }

    /// Opens a study link: its text or preset and how it was shrunk.
    /// Returns a message per part that could not be applied.
    pub fn apply_link(&self, link: &Link) -> Vec<String> {
        let mut problems = Vec::new();
        match link.study_preset.as_deref() {
            Some(id) => match presets::study_by_id(id) {
                Some(p) => self.editor.set(p.text.to_string()),
                None => problems.push(format!("The link names an unknown study preset `{id}`; the study shown is kept.")),
            },
            None => {
                if let Some(t) = &link.text {
                    self.editor.set(t.clone());
                }
            }
        }
        let mut sh = Shrink::default();
        let choice = self.editor.with_untracked(|t| choices(t));
        match choice {
            Some((nseeds, loads, cases)) => {
                if let Some(n) = link.study_seeds {
                    if n <= nseeds {
                        sh.seeds = (n < nseeds).then_some(n);
                    } else {
                        problems.push(format!("The link asks for {n} study seeds; the study has {nseeds}, all are run."));
                    }
                }
                for (want, len, field, what) in [(&link.study_loads, loads.len(), &mut sh.loads, "load levels"), (&link.study_cases, cases.len(), &mut sh.cases, "cases")] {
                    if let Some(w) = want {
                        let ok: Vec<usize> = w.iter().copied().filter(|&i| i < len).collect();
                        if ok.len() != w.len() || ok.is_empty() {
                            problems.push(format!("The link's study {what} {w:?} are not all among the study's {len}; {}.", if ok.is_empty() { "all are kept" } else { "the others are kept" }));
                        }
                        if !ok.is_empty() && ok.len() < len {
                            *field = Some(ok);
                        }
                    }
                }
            }
            None => {
                if link.study_seeds.is_some() || link.study_loads.is_some() || link.study_cases.is_some() {
                    problems.push("The link shrinks a study, but its text has no [study] table to shrink.".to_string());
                }
            }
        }
        self.shrink.set(sh);
        problems
    }
}

/// How a change compares with the noise: beyond the larger std% of the two
/// columns it counts.
fn verdict(change: f64, std_base: f64, std_cmp: f64) -> (&'static str, &'static str) {
    let noise = std_base.max(std_cmp);
    if change > noise {
        ("better", "▲ better")
    } else if change < -noise {
        ("worse", "▼ worse")
    } else {
        ("noise", "within noise")
    }
}

#[component]
fn ResultTable(on_open: Callback<(usize, usize)>) -> impl IntoView {
    let st = use_study();
    move || {
        let Some(t) = st.table.get() else {
            return view! { <p class="muted">"Run the study to fill the table."</p> }.into_any();
        };
        let order: Vec<usize> = if st.sorted.get() { t.sorted_rows() } else { (0..t.rows.len()).collect() };
        let head = t
            .configs
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, c)| view! { <th scope="col" title=c.clone()>{format!("compare% (std%) [{i}] {c}")}</th> })
            .collect_view();
        let rows = order
            .into_iter()
            .map(|r| {
                let row = &t.rows[r];
                let base = &row.cells[0];
                let cells = row
                    .cells
                    .iter()
                    .enumerate()
                    .map(|(c, cell)| {
                        let (class, words, shown) = if c == 0 {
                            ("base", String::new(), format!("1.00 ({:.2})", cell.std_pct))
                        } else {
                            let ch = cell.change_pct.unwrap_or(0.0);
                            let (class, words) = if cell.same_schedules {
                                // Not "no effect": the load never reached the code the change touches.
                                ("same", "= same schedules")
                            } else {
                                verdict(ch, base.std_pct, cell.std_pct)
                            };
                            (class, words.to_string(), format!("{ch:+.2} ({:.2})", cell.std_pct))
                        };
                        let pending = cell.runs < t.seeds.len();
                        let title = format!(
                            "{} runs; mean {:.4} {}; open seed {} in the lecture view{}",
                            cell.runs,
                            cell.mean,
                            t.unit,
                            cell.worst_seed.map_or("–".into(), |s| s.to_string()),
                            if cell.same_schedules { format!("\n{SAME_SCHEDULES_MEANS}") } else { String::new() }
                        );
                        view! {
                            <td class=format!("cell {class}{}", if pending { " pending" } else { "" }) data-testid="study-cell" data-row=r data-config=c>
                                <button class="cell-link" disabled=cell.worst_seed.is_none() title=title on:click=move |_| on_open.run((r, c))>
                                    {shown}
                                    {(!words.is_empty()).then(|| view! { <span class="verdict">{words.clone()}</span> })}
                                </button>
                            </td>
                        }
                    })
                    .collect_view();
                view! {
                    <tr data-testid="study-row" class:selected=move || st.cdf_row.get() == r>
                        <th scope="row"><button class="row-link" title="show this row's latency CDF" on:click=move |_| st.cdf_row.set(r)>{row.case.clone()}</button></th>
                        <td>{row.load.clone()}</td>
                        {cells}
                    </tr>
                }
            })
            .collect_view();
        let direction = if t.higher_is_better { "higher is better" } else { "lower is better" };
        view! {
            <p class="metric-line" data-testid="study-metric">
                {format!("{} — metric: {} ({}), {direction}; {} seed{}. compare% is the change of the mean against the baseline, positive = better; changes within the larger std% of the two columns count as noise.", t.workload, t.metric.name(), t.unit, t.seeds.len(), if t.seeds.len() == 1 { "" } else { "s" })}
            </p>
            <table class="study-table" data-testid="study-table" data-complete=t.complete.to_string()>
                <thead><tr><th scope="col">"case"</th><th scope="col">"load"</th><th scope="col">{format!("baseline(std%) {}", t.configs[0])}</th>{head}</tr></thead>
                <tbody>{rows}</tbody>
            </table>
        }
        .into_any()
    }
}

/// Means over the seeds run so far, per (row, config): value, std, switch
/// rate, and the CDF averaged quantile by quantile.
fn aggregates(s: &Study, row: usize, config: usize) -> Option<(f64, f64, f64, Vec<f64>)> {
    let vals: Vec<&schedlab_engine::lab::study::RunValue> = s
        .runs
        .iter()
        .zip(&s.values)
        .filter(|(k, _)| k.row == row && k.config == config)
        .filter_map(|(_, v)| v.as_ref())
        .collect();
    if vals.is_empty() {
        return None;
    }
    let xs: Vec<f64> = vals.iter().map(|v| v.value).collect();
    let (m, sd) = schedlab_engine::lab::compare::mean_std(&xs);
    let sw = vals.iter().map(|v| v.switches_per_sec).sum::<f64>() / vals.len() as f64;
    let cdf = (0..CDF_QUANTILES.len())
        .map(|q| vals.iter().map(|v| v.wakeup_cdf.get(q).copied().unwrap_or(0) as f64).sum::<f64>() / vals.len() as f64)
        .collect();
    Some((m, sd, sw, cdf))
}

/// What the charts show, computed once for the canvas and the SVG files.
struct Charts {
    /// One bar chart per case: (case, title, groups).
    bars: Vec<(String, String, Vec<BarGroup>)>,
    cdf: (String, Vec<Series>),
    rates: (String, Vec<Series>, Vec<String>),
    configs: Vec<String>,
    unit: &'static str,
}

fn charts(st: StudyState, t: &Table) -> Charts {
    let cases: Vec<String> = {
        let mut c: Vec<String> = t.rows.iter().map(|r| r.case.clone()).collect();
        c.dedup();
        c
    };
    let configs = t.configs.clone();
    let bars = cases
        .iter()
        .map(|case| {
            let groups: Vec<BarGroup> = st
                .with_study(|s| {
                    t.rows
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| &r.case == case)
                        .map(|(ri, r)| BarGroup { label: r.load.clone(), bars: (0..configs.len()).map(|c| aggregates(s, ri, c).map(|a| (a.0, a.1))).collect() })
                        .collect()
                })
                .unwrap_or_default();
            (case.clone(), format!("{case}: {} by load (mean ± std over seeds)", t.metric.name()), groups)
        })
        .collect();
    let row = st.cdf_row.try_get_untracked().unwrap_or(0).min(t.rows.len().saturating_sub(1));
    // One series per configuration, its points from the study.
    let per_config = |points: &dyn Fn(&Study, usize) -> Vec<(f64, f64)>| -> Vec<Series> {
        st.with_study(|s| configs.iter().enumerate().map(|(c, name)| Series { name: name.clone(), points: points(s, c) }).collect())
            .unwrap_or_default()
    };
    let cdf_series = per_config(&|s, c| {
        aggregates(s, row, c)
            .map(|a| a.3.iter().zip(CDF_QUANTILES).map(|(&ns, q)| ((ns / 1e3).max(1.0), q)).collect())
            .unwrap_or_default()
    });
    let r = t.rows.get(row).map_or(String::new(), |r| format!("{} {}", r.case, r.load));
    let first = cases.first().cloned().unwrap_or_default();
    let rows: Vec<usize> = t.rows.iter().enumerate().filter(|(_, r)| r.case == first).map(|(i, _)| i).collect();
    let labels: Vec<String> = rows.iter().map(|&i| t.rows[i].load.clone()).collect();
    let rate_series = per_config(&|s, c| rows.iter().enumerate().filter_map(|(x, &ri)| Some((x as f64, aggregates(s, ri, c)?.2))).collect());
    Charts {
        bars,
        cdf: (format!("wakeup latency CDF: {r}"), cdf_series),
        rates: (format!("{first}: context switches per simulated second"), rate_series, labels),
        configs,
        unit: t.unit,
    }
}

/// Saves one chart as SVG: `which` is "bars-N", "cdf" or "rates". The
/// study worker draws it (plotters-svg is in its .wasm); errors, now or
/// when the worker answers, go to `error`.
fn save_chart(st: StudyState, which: &str, error: RwSignal<Option<String>>) -> Result<(), String> {
    use plots::ChartSvg;
    let t = st.table.get_untracked().ok_or("run the study first")?;
    let c = charts(st, &t);
    let (w, h) = (900, 320);
    // JSON has no NaN: drop what is not finite (the canvas skips it too).
    let finite = |s: &[Series]| -> Vec<Series> {
        s.iter().map(|s| Series { name: s.name.clone(), points: s.points.iter().copied().filter(|p| p.0.is_finite() && p.1.is_finite()).collect() }).collect()
    };
    let chart = match which {
        "cdf" => ChartSvg::Lines { w, h, title: c.cdf.0, x_label: "µs (log)".into(), y_label: "fraction of wakeups".into(), series: finite(&c.cdf.1), x_labels: None, log_x: true },
        "rates" => ChartSvg::Lines { w, h, title: c.rates.0, x_label: "load".into(), y_label: "switches/s".into(), series: finite(&c.rates.1), x_labels: Some(c.rates.2), log_x: false },
        b => {
            let i: usize = b.trim_start_matches("bars-").parse().map_err(|_| "no such chart")?;
            let (_, title, groups) = c.bars.get(i).ok_or("no such chart")?;
            let groups = groups
                .iter()
                .map(|g| BarGroup { label: g.label.clone(), bars: g.bars.iter().map(|b| b.filter(|(m, s)| m.is_finite() && s.is_finite())).collect() })
                .collect();
            ChartSvg::Bars { w, h, title: title.clone(), y_label: c.unit.into(), configs: c.configs, groups }
        }
    };
    let name = format!("schedlab-study-{which}.svg");
    worker::ask(
        &Request::ChartSvg { chart },
        Box::new(move |reply| {
            let r = match reply {
                Ok(Reply::Svg { svg }) => crate::export::download_text(&name, "image/svg+xml", &svg),
                Ok(Reply::Failed { message, .. }) => Err(message),
                Ok(_) => Err("unexpected answer from the worker".into()),
                Err(e) => Err(e),
            };
            let _ = error.try_set(r.err());
        }),
    );
    Ok(())
}

#[component]
fn Plots() -> impl IntoView {
    let st = use_study();
    let cdf = NodeRef::<Canvas>::new();
    let rates = NodeRef::<Canvas>::new();
    let bars_box = NodeRef::<leptos::html::Div>::new();
    let drawn = RwSignal::new(String::new());
    let error = RwSignal::new(None::<String>);
    // Redraw when the window's size or zoom (the device pixel ratio) or
    // the colour scheme changes: charts are drawn at their shown size, in
    // the page's theme.
    let resized = RwSignal::new(0u32);
    if let Some(w) = web_sys::window() {
        let bump = move |_: &web_sys::Event| resized.update(|n| *n += 1);
        let mut on = vec![gloo::events::EventListener::new(&w, "resize", bump)];
        if let Ok(Some(mql)) = w.match_media("(prefers-color-scheme: dark)") {
            on.push(gloo::events::EventListener::new(&mql, "change", bump));
        }
        // Removed when the page is left (the stored value is dropped).
        StoredValue::new_local(on);
    }
    // Projector mode draws the charts larger (plots::prepare reads it from
    // the page, after this frame's update).
    let big = use_context::<crate::state::Ctx>().map(|c| c.ui.big);
    // Redraw (in an animation frame) when the table changes.
    Effect::new(move |_| {
        st.table.track();
        st.cdf_row.track();
        resized.track();
        if let Some(b) = big {
            b.track();
        }
        request_animation_frame(move || {
            let Some(t) = st.table.try_get_untracked().flatten() else { return };
            let c = charts(st, &t);
            let mut n = 0;
            if let Some(bx) = bars_box.try_get_untracked().flatten() {
                let canvases = bx.get_elements_by_tag_name("canvas");
                for (ci, (_, title, groups)) in c.bars.iter().enumerate() {
                    let Some(el) = canvases.item(ci as u32).and_then(|e| e.dyn_into::<web_sys::HtmlCanvasElement>().ok()) else { continue };
                    n += plots::draw_bars(&el, title, c.unit, &c.configs, groups);
                }
            }
            if let Some(el) = cdf.try_get_untracked().flatten() {
                n += plots::draw_lines(&el, &c.cdf.0, "µs (log)", "fraction of wakeups", &c.cdf.1, None, true);
            }
            if let Some(el) = rates.try_get_untracked().flatten() {
                n += plots::draw_lines(&el, &c.rates.0, "load", "switches/s", &c.rates.1, Some(&c.rates.2), false);
            }
            let _ = drawn.try_set(n.to_string());
        });
    });
    let cases = move || {
        st.table.with(|t| {
            let mut c: Vec<String> = t.as_ref().map(|t| t.rows.iter().map(|r| r.case.clone()).collect()).unwrap_or_default();
            c.dedup();
            c
        })
    };
    let legend = move || {
        st.table.with(|t| {
            t.as_ref()
                .map(|t| t.configs.iter().enumerate().map(|(i, c)| format!("{} = {c}", plots::SERIES[i % plots::SERIES.len()].1)).collect::<Vec<_>>().join(", "))
                .unwrap_or_default()
        })
    };
    let svg_button = move |which: String| {
        view! { <button class="small" data-testid="chart-svg" data-chart=which.clone() title="save this chart as SVG" on:click=move |_| error.set(save_chart(st, &which, error).err())>"SVG"</button> }
    };
    view! {
        <section class="panel plots" data-testid="study-plots" data-drawn=move || drawn.get()>
            <h2>"Charts" <span class="sub">{move || format!("colours: {}", legend())}</span> {move || error.get().map(|e| view! { <span class="warn-text">{e}</span> })}</h2>
            <div class="bars" node_ref=bars_box>
                {move || cases().into_iter().enumerate().map(|(i, c)| view! {
                    <figure>
                        <canvas class="plot" data-testid="plot-bars" aria-label=format!("{c}: the metric by load, bars per configuration")></canvas>
                        {svg_button(format!("bars-{i}"))}
                    </figure>
                }).collect_view()}
            </div>
            <div class="grid2">
                <figure>
                    <canvas class="plot" node_ref=cdf data-testid="plot-cdf" aria-label="wakeup latency CDF of the selected row"></canvas>
                    <figcaption class="muted">{svg_button("cdf".into())}"Wakeup latency CDF of the selected row (click a case name in the table), per configuration. Several seeds are merged by averaging each quantile's value over the seeds, not by pooling the samples."</figcaption>
                </figure>
                <figure>
                    <canvas class="plot" node_ref=rates data-testid="plot-rates" aria-label="context switches per second by load"></canvas>
                    <figcaption class="muted">{svg_button("rates".into())}"Context switches of the workload's tasks per simulated second, by load (first case), mean over seeds."</figcaption>
                </figure>
            </div>
        </section>
    }
}

/// One checkbox per load level or case; unticking one drops its index
/// from `field` of the shrink (None again when all are ticked).
fn choice_boxes(st: StudyState, labels: Vec<String>, testid: &'static str, field: fn(&mut Shrink) -> &mut Option<Vec<usize>>) -> impl IntoView {
    let n = labels.len();
    let kept = field(&mut st.shrink.get_untracked()).clone();
    labels
        .into_iter()
        .enumerate()
        .map(|(i, label)| {
            let on = kept.as_ref().is_none_or(|k| k.contains(&i));
            view! {
                <label class="chk"><input type="checkbox" data-testid=testid data-index=i prop:checked=on
                    on:change=move |ev| {
                        let checked = event_target_checked(&ev);
                        st.shrink.update(|s| {
                            let slot = field(s);
                            let mut k = slot.clone().unwrap_or_else(|| (0..n).collect());
                            k.retain(|&x| x != i);
                            if checked { k.push(i); k.sort(); }
                            *slot = (k.len() != n).then_some(k);
                        });
                    } />{label}</label>
            }
        })
        .collect_view()
}

/// The study page. `on_open` receives a cell's run scenario (the app opens
/// it in the lecture view).
#[component]
pub fn StudyPage(on_open: Callback<String>) -> impl IntoView {
    let st = use_study();
    let open_cell = Callback::new(move |(row, config): (usize, usize)| {
        if let Some((text, _)) = st.cell_scenario(row, config) {
            on_open.run(text);
        }
    });
    let current = move || st.editor.with(|t| presets::study_matching(t).map_or("", |p| p.id).to_string());
    let pick = move |ev: leptos::ev::Event| {
        if let Some(p) = presets::study_by_id(&event_target_value(&ev)) {
            st.editor.set(p.text.to_string());
            st.shrink.set(Shrink::default());
        }
    };
    let comment = move || st.editor.with(|t| presets::comment(t));
    let choice = move || st.editor.with(|t| choices(t));
    let shrink_controls = move || {
        let Some((nseeds, loads, cases)) = choice() else {
            return view! { <span></span> }.into_any();
        };
        let sh = st.shrink.get_untracked();
        let load_boxes = choice_boxes(st, loads, "load-choice", |s| &mut s.loads);
        let case_boxes = choice_boxes(st, cases, "case-choice", |s| &mut s.cases);
        view! {
            <div class="shrink">
                <label>"seeds " <input type="number" min="1" max=nseeds data-testid="study-seeds" prop:value=sh.seeds.unwrap_or(nseeds).to_string()
                    on:change=move |ev| { if let Ok(n) = event_target_value(&ev).parse::<usize>() { st.shrink.update(|s| s.seeds = (n < nseeds).then_some(n.max(1))) } } />
                    {format!(" of {nseeds}")}</label>
                <span class="muted">" loads: "</span>{load_boxes}
                <span class="muted">" cases: "</span>{case_boxes}
            </div>
        }
        .into_any()
    };
    let progress = move || {
        let p = st.progress.get();
        let pct = if p.total == 0 { 0.0 } else { p.done as f64 * 100.0 / p.total as f64 };
        let left = p.left_ms.map_or(String::new(), |l| format!(", about {} left", fmt_ms(l)));
        view! {
            <div class="study-progress" data-testid="study-progress" data-done=p.done data-total=p.total data-running=p.running.to_string() data-workers=p.workers>
                <progress max=p.total.max(1) value=p.done aria-label="runs done"></progress>
                <span data-testid="study-progress-text">{format!(" {} / {} runs ({pct:.0} %) · {} elapsed{left}", p.done, p.total, fmt_ms(p.elapsed_ms))}</span>
                {(p.workers > 0).then(|| view! { <span class="muted">{format!(" · {} worker{}", p.workers, if p.workers == 1 { "" } else { "s" })}</span> })}
                {(!p.note.is_empty()).then(|| view! { <span class="muted">{format!(" · {}", p.note)}</span> })}
            </div>
        }
    };
    let text = move || st.table.with(|t| t.as_ref().map(|t| t.format(st.sorted.get())).unwrap_or_default());
    let copied = RwSignal::new(String::new());
    let copier = crate::app::use_copier();
    view! {
        <div class="study-page" data-testid="study-page">
            <div class="layout">
                <aside class="side">
                    <section class="panel">
                        <h2>"Study"</h2>
                        <label class="row">"preset "
                            <select data-testid="study-preset" prop:value=current on:change=pick>
                                <option value="">"(edited)"</option>
                                {study_presets().iter().map(|p| view! { <option value=p.id>{p.label}</option> }).collect_view()}
                            </select>
                        </label>
                        <div class="preset-explanation">{move || comment().into_iter().map(|p| view! { <p>{p}</p> }).collect_view()}</div>
                        <textarea class="editor study-editor" data-testid="study-editor" spellcheck="false" aria-label="study scenario (TOML with a [study] table)"
                            prop:value=move || st.editor.get()
                            on:input=move |ev| { st.editor.set(event_target_value(&ev)); st.shrink.set(Shrink::default()); }></textarea>
                        {move || st.error.get().map(|e| view! { <div class="scenario-error" role="alert" data-testid="study-error">{e}</div> })}
                    </section>
                </aside>
                <main class="main">
                    <section class="panel">
                        <div class="buttons">
                            <button data-testid="study-run" class="play" on:click=move |_| st.run()>"▶ run"</button>
                            <button data-testid="study-cancel" disabled=move || !st.progress.with(|p| p.running) on:click=move |_| st.cancel()>"■ cancel"</button>
                            <label class="chk"><input type="checkbox" data-testid="study-sorted" prop:checked=move || st.sorted.get() on:change=move |ev| st.sorted.set(event_target_checked(&ev)) />"sorted: worst regression first"</label>
                            <button data-testid="study-copy" on:click=move |_| {
                                match copier {
                                    Some(c) => c.copy(text(), "The table (mail text) was copied to the clipboard."),
                                    None => copied.set("open the text below and copy it".into()),
                                }
                            }>"copy as text"</button>
                            <button data-testid="study-mail" title="the table in the mails' format, as a .txt file" on:click=move |_| {
                                let _ = crate::export::download_text("schedlab-study.txt", "text/plain", &text());
                            }>"download text"</button>
                            <button data-testid="study-csv" title="every cell with its per-seed values, as CSV" on:click=move |_| {
                                let csv = st.table.with_untracked(|t| t.as_ref().map(|t| t.csv(st.sorted.get_untracked())));
                                match csv {
                                    Some(c) => { let _ = crate::export::download_text("schedlab-study.csv", "text/csv", &c); }
                                    None => copied.set("run the study first".into()),
                                }
                            }>"download CSV"</button>
                            <span class="muted" role="status">{move || copied.get()}</span>
                        </div>
                        {shrink_controls}
                        {progress}
                        <ResultTable on_open=open_cell />
                        <super::study_mail::MailBeside />
                        <details class="study-text-box">
                            <summary>"as text (the mails' format)"</summary>
                            <pre data-testid="study-text">{text}</pre>
                        </details>
                    </section>
                    <Plots />
                </main>
            </div>
        </div>
    }
}
