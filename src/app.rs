//! The app: reads the link (URL fragment), builds the lab, shows one of
//! three pages (the lecture view of one run, the comparison of two
//! configurations, the study page) and keeps the fragment in step with
//! what is shown.
//!
//! Ownership (the rule that keeps page switches from touching disposed
//! signals): every page's *state* — the lecture run, the comparison's two
//! runs, the study — is created in the app's own reactive owner and lives
//! as long as the app, so switching pages in any order never loses or
//! breaks it; every page's *view* is mounted in an owner of its own
//! ([`Scoped`]), so what a page provides through the context, and the
//! effects and listeners it registers, go with it when another page is
//! shown, and never shadow the app's context for the next page.

use leptos::prelude::*;
use schedlab_engine::Overrides;
use wasm_bindgen::JsCast;
use wasm_bindgen::JsValue;

use crate::fragment::{self, Link, Page};
use crate::pages::compare::{Cmp, CompareView};
use crate::pages::study::{provide_study, Runner, StudyPage, StudyState};
use crate::presets;
use crate::state::{use_ctx, Ctx, ErrorInfo, Keep};
use crate::views::*;

/// Builds the lab for `scenario` (falling back to the default preset, with
/// the error shown, if it does not build) and provides it to `children`.
/// The views can be mounted alone inside it (the browser tests do).
#[component]
pub fn LabProvider(#[prop(into)] scenario: String, children: Children) -> impl IntoView {
    let ctx = build(&scenario, Overrides::default()).0;
    provide_context(ctx);
    children()
}

/// Mounts `children` in a reactive owner of their own (a child of the
/// current one): contexts they provide, effects and cleanups they
/// register end with them.
#[component]
pub fn Scoped(children: Children) -> impl IntoView {
    let owner = Owner::current().map(|o| o.child()).unwrap_or_default();
    let view = owner.with(children);
    leptos::tachys::reactive_graph::OwnedView::new_with_owner(view, owner)
}

/// Builds a context; on an error, the default preset runs and the error is
/// returned for display.
fn build(text: &str, ov: Overrides) -> (Ctx, Option<ErrorInfo>, bool) {
    match Ctx::new(text, ov.clone()) {
        Ok(ctx) => (ctx, None, true),
        Err(e) => {
            // Maybe only the overrides are bad.
            if ov != Overrides::default() {
                if let Ok(ctx) = Ctx::new(text, Overrides::default()) {
                    ctx.ui.notice.update(|n| n.push(format!("The link's kernel or feature settings do not apply ({e}); they were ignored.")));
                    return (ctx, None, true);
                }
            }
            let ctx = Ctx::new(presets::default_preset().text, Overrides::default())
                .expect("the default preset builds");
            ctx.ui.editor.set(text.to_string());
            let info = ErrorInfo::from(&e);
            ctx.ui.error.set(Some(info.clone()));
            (ctx, Some(info), false)
        }
    }
}

/// Applies a decoded link: builds its scenario and restores its view.
fn open_link(link: &Link, mut problems: Vec<String>) -> Ctx {
    let preset_text = link
        .preset
        .as_deref()
        .and_then(presets::by_id)
        .map(|p| p.text);
    if let (Some(id), None) = (&link.preset, preset_text) {
        problems.push(format!("The link names an unknown preset `{id}`."));
    }
    let text = link
        .text
        .clone()
        .or(preset_text.map(str::to_string))
        .unwrap_or_else(|| presets::default_preset().text.to_string());
    let ov = Overrides {
        kernel: link.kernel.clone(),
        features: link.features.clone(),
        ..Default::default()
    };
    let (ctx, err, ok) = build(&text, ov);
    if let Some(e) = err {
        problems.push(format!(
            "The link's scenario does not build ({}); it is in the editor, and the default scenario runs meanwhile.",
            e.display
        ));
    }
    let ui = ctx.ui;
    ui.big.set(link.big);
    if ok {
        problems.extend(apply_view(ctx, link));
    }
    if !problems.is_empty() {
        ui.notice.update(|n| n.extend(problems));
    }
    ctx
}

/// The view parts of a lecture link (window, CPU, group queues, event,
/// quiz) on the run
/// that is built; one message per part that does not apply.
fn apply_view(ctx: Ctx, link: &Link) -> Vec<String> {
    let ui = ctx.ui;
    let mut problems = Vec::new();
    let (nr, dur) = ui.setup.with_untracked(|s| (s.nr_cpus(), s.duration));
    match link.window {
        Some((a, _)) if a >= dur => problems.push("The link's timeline window lies after the end of the run; the whole run is shown.".to_string()),
        Some((a, b)) => ui.window.set(Some((a as f64, b as f64))),
        None => {}
    }
    if let Some(c) = link.cpu {
        if c < nr {
            ui.pinned.set(Some(c));
        } else {
            problems.push(format!("The link's CPU {c} does not exist (the machine has {nr}); the CPU of each event is shown."));
        }
    }
    ui.queue.set(link.queue.clone().unwrap_or_default());
    match link.event {
        Some(e) => {
            ctx.seek(e);
            let at = ui.frame.with_untracked(|f| f.event);
            if at < e {
                problems.push(format!("The link's event {e} is past the end of the run (it has {at}); the last event is shown."));
            }
        }
        None => ctx.publish(),
    }
    problems.extend(apply_queue(ctx, link));
    if link.quiz {
        ctx.set_quiz(true);
    }
    problems
}

/// Keeps of a link's group queues those the shown CPU has (each inside
/// the one before), with a notice when that is not all of them.
pub(crate) fn apply_queue(ctx: Ctx, link: &Link) -> Option<String> {
    let want = link.queue.as_ref()?;
    let (shown, cpu) = ctx.ui.frame.with_untracked(|f| (f.queue.iter().map(|q| q.0).collect::<Vec<u32>>(), f.cpu));
    if shown.len() == want.len() {
        return None;
    }
    let path = want.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
    let what = if shown.is_empty() { "the CPU's root queue is" } else { "the deepest one found is" };
    ctx.ui.queue.set(shown);
    Some(format!("The link's group queues {path} are not all on CPU {cpu} (each inside the one before); {what} shown."))
}

/// The link of what is shown now.
pub fn current_link(ctx: Ctx) -> Link {
    let ui = ctx.ui;
    let (text, ov) = ctx
        .with_lab(|l| (l.text.clone(), l.overrides.clone()))
        .unwrap_or_default();
    Link {
        preset: presets::matching(&text).map(|p| p.id.to_string()),
        text: Some(text),
        event: ui.frame.try_with_untracked(|f| f.event),
        cpu: ui.pinned.try_get_untracked().flatten(),
        kernel: ov.kernel,
        features: ov.features,
        window: ui
            .window
            .try_get_untracked()
            .flatten()
            .map(|(a, b)| (a.max(0.0) as u64, b.max(0.0) as u64)),
        queue: ui.queue.try_get_untracked().filter(|q| !q.is_empty()),
        big: ui.big.try_get_untracked().unwrap_or(false),
        quiz: ui.quiz.try_with_untracked(|q| q.is_some()).unwrap_or(false),
        ..Default::default()
    }
}

fn write_fragment(ctx: Ctx) {
    set_fragment(&current_link(ctx));
}

/// Replaces the URL fragment (no history entry).
pub(crate) fn set_fragment(link: &Link) {
    let frag = fragment::encode(link);
    if let Some(w) = web_sys::window() {
        if let Ok(h) = w.history() {
            let _ = h.replace_state_with_url(&JsValue::NULL, "", Some(&format!("#{frag}")));
        }
    }
}

/// The app's pages and their state, all owned by the app.
#[derive(Clone, Copy)]
struct Pages {
    page: RwSignal<Page>,
    ctx: Ctx,
    study: StudyState,
    /// The comparison, built the first time it is shown, in the app's owner.
    cmp: StoredValue<Option<Cmp>, LocalStorage>,
    owner: StoredValue<Owner, LocalStorage>,
    /// A study cell opened its run in the lecture view.
    from_study: RwSignal<bool>,
    help: RwSignal<bool>,
}

impl Pages {
    /// The comparison, built from `link` the first time.
    fn cmp(&self, link: Option<&Link>) -> Cmp {
        if let Some(c) = self.cmp.get_value() {
            if let Some(l) = link {
                let problems = c.apply_link(l);
                self.ctx.ui.notice.update(|n| n.extend(problems));
            }
            return c;
        }
        let big = self.ctx.ui.big;
        let default = Link { page: Page::Compare, ..Default::default() };
        let l = link.unwrap_or(&default);
        let (c, problems) = self.owner.with_value(|o| o.with(|| Cmp::from_link(l, Some(big))));
        self.ctx.ui.notice.update(|n| n.extend(problems));
        self.cmp.set_value(Some(c));
        c
    }

    /// The link of the page shown, with projector mode, which belongs to
    /// no page's state but to the app.
    fn shown_link(&self) -> Link {
        let link = match self.page.get_untracked() {
            Page::Lecture => current_link(self.ctx),
            Page::Compare => self.cmp(None).link(),
            Page::Study => self.study.link(),
        };
        Link { big: self.ctx.ui.big.get_untracked(), ..link }
    }

    /// Shows page `p`; the page left stops playing.
    fn go(&self, p: Page) {
        let from = self.page.get_untracked();
        if from == p {
            return;
        }
        match from {
            Page::Lecture => self.ctx.set_playing(false),
            Page::Compare => {
                if let Some(c) = self.cmp.get_value() {
                    c.playing.set(false);
                }
            }
            Page::Study => {}
        }
        if p == Page::Compare {
            self.cmp(None);
        }
        self.page.set(p);
    }
}

/// Root component of the schedlab web app.
#[component]
pub fn App() -> impl IntoView {
    // The page's static "loading" line (index.html) goes once we run.
    if let Some(el) = document().get_element_by_id("loading") {
        el.remove();
    }
    let hash = location_hash().unwrap_or_default();
    let (link, problems) = fragment::decode(&hash);
    let study = provide_study(Runner::Worker);
    let mut problems = problems;
    if link.page == Page::Study {
        problems.extend(study.apply_link(&link));
    }
    let lecture_link = if link.page == Page::Lecture { link.clone() } else { Link { big: link.big, ..Default::default() } };
    let ctx = open_link(&lecture_link, problems);
    provide_context(ctx);
    let ui = ctx.ui;
    let copier = Copier { notice: ui.notice, fallback: RwSignal::new(None) };
    provide_context(copier);
    let pages = Pages {
        page: RwSignal::new(link.page),
        ctx,
        study,
        cmp: StoredValue::new_local(None),
        owner: StoredValue::new_local(Owner::current().unwrap_or_default()),
        from_study: RwSignal::new(false),
        help: RwSignal::new(false),
    };
    let page = pages.page;
    if link.page == Page::Compare {
        pages.cmp(Some(&link));
    }

    // The study page's link.
    Effect::new(move |_| {
        study.editor.track();
        study.shrink.track();
        ui.big.track();
        if page.get() == Page::Study {
            set_fragment(&pages.shown_link());
        }
    });
    // Keep the fragment in step (debounced; not while playing).
    let pending = StoredValue::new(None::<TimeoutHandle>);
    Effect::new(move |_| {
        if page.get() != Page::Lecture {
            return;
        }
        ui.frame.with(|f| (f.event, f.gen));
        ui.setup.track();
        ui.pinned.track();
        ui.queue.track();
        ui.window.track();
        ui.big.track();
        ui.quiz.with(|q| q.is_some());
        if ui.playing.get() {
            return;
        }
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        pending.set_value(
            set_timeout_with_handle(
                move || {
                    if page.try_get_untracked() == Some(Page::Lecture) {
                        write_fragment(ctx)
                    }
                },
                std::time::Duration::from_millis(250),
            )
            .ok(),
        );
    });
    // Opening another link in the same page (editing the fragment).
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        let hash = location_hash().unwrap_or_default();
        let (link, problems) = fragment::decode(&hash);
        if hash == fragment::encode(&pages.shown_link()) {
            return;
        }
        ui.notice.update(|n| n.extend(problems));
        // Projector mode is every page's (a link copied on any page in
        // projector mode reopens in it).
        ui.big.set(link.big);
        match link.page {
            Page::Compare => {
                pages.cmp(Some(&link));
            }
            Page::Study => {
                let p = study.apply_link(&link);
                ui.notice.update(|n| n.extend(p));
            }
            Page::Lecture => {
                let text = link.text.clone().or(link.preset.as_deref().and_then(presets::by_id).map(|p| p.text.to_string()));
                if let Some(text) = text {
                    ui.editor.set(text.clone());
                    let ov = Overrides { kernel: link.kernel.clone(), features: link.features.clone(), ..Default::default() };
                    ui.window.set(None);
                    ui.pinned.set(None);
                    ui.quiz.set(None);
                    if ctx.load(&text, ov, Keep::Start).is_err() {
                        ui.notice.update(|n| n.push("The new link's scenario does not build; see the editor.".to_string()));
                    } else {
                        let p = apply_view(ctx, &link);
                        ui.notice.update(|n| n.extend(p));
                    }
                }
            }
        }
        pages.go(link.page);
    });
    on_cleanup(move || handle.remove());
    // Keys that work on every page: b (projector), ? (help), Escape.
    let keys = window_event_listener(leptos::ev::keydown, move |ev: web_sys::KeyboardEvent| {
        if typing(&ev) || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        match ev.key().as_str() {
            "b" | "B" => ui.big.update(|b| *b = !*b),
            "?" => pages.help.update(|h| *h = !*h),
            "Escape" => pages.help.set(false),
            _ => return,
        }
        ev.prevent_default();
    });
    on_cleanup(move || keys.remove());

    // A study cell opens its run here.
    let open_run = Callback::new(move |text: String| {
        ui.editor.set(text.clone());
        ui.window.set(None);
        ui.pinned.set(None);
        ui.queue.set(Vec::new());
        ui.quiz.set(None);
        let _ = ctx.load(&text, Overrides::default(), Keep::Start);
        pages.from_study.set(true);
        pages.go(Page::Lecture);
    });
    // A comparison pane opens its run here.
    let open_pane = Callback::new(move |(text, ov, event): (String, Overrides, u64)| {
        ui.editor.set(text.clone());
        ui.window.set(None);
        ui.pinned.set(None);
        ui.queue.set(Vec::new());
        ui.quiz.set(None);
        if ctx.load(&text, ov, Keep::Event(event)).is_err() {
            ui.notice.update(|n| n.push("That run does not build here; see the editor.".to_string()));
        }
        pages.from_study.set(false);
        pages.go(Page::Lecture);
    });
    let nav = move || {
        Page::ALL
            .into_iter()
            .map(|p| {
                view! {
                    <button class="nav" data-testid=format!("nav-{}", p.id()) class:on=move || page.get() == p
                        aria-current=move || if page.get() == p { "page" } else { "false" }
                        on:click=move |_| pages.go(p)>{p.label()}</button>
                }
            })
            .collect_view()
    };
    // The schedule hash of the shown run once it is computed (a study's
    // run must match the study's value).
    let opened_hash = move || {
        if !ui.frame.with(|f| f.finished && !f.truncated) {
            return String::new();
        }
        ctx.with_lab(|l| format!("{:016x}", l.player.log().schedule.0)).unwrap_or_default()
    };
    let from_study = pages.from_study;
    let body = move || match page.get() {
        Page::Lecture => view! {
            <Scoped>
                {move || from_study.get().then(|| view! {
                    <div class="back-bar">
                        <button data-testid="back-to-study" on:click=move |_| { from_study.set(false); pages.go(Page::Study); }>"← back to the study"</button>
                        <span class="muted">"this is one run of the study: its configuration and seed are written into the scenario"</span>
                        <span class="muted" data-testid="opened-hash" data-hash=opened_hash>{move || {
                            let h = opened_hash();
                            if !h.is_empty() {
                                format!("schedule hash {h} (as in the study)")
                            } else if ui.frame.with(|f| f.truncated) {
                                // The study ran the whole run; the viewer
                                // keeps only its start, so there is no hash
                                // to compare (a smaller cell has one).
                                "the run is longer than the viewer keeps: its schedule hash cannot be checked here".to_string()
                            } else {
                                "computing the run…".to_string()
                            }
                        }}</span>
                    </div>
                })}
                <LecturePage />
            </Scoped>
        }
        .into_any(),
        Page::Compare => {
            let cmp = pages.cmp(None);
            view! { <Scoped><CompareView cmp=cmp open_run=open_pane /></Scoped> }.into_any()
        }
        Page::Study => view! { <Scoped><StudyPage on_open=open_run /></Scoped> }.into_any(),
    };
    view! {
        <div class="app" class:big=move || ui.big.get() data-testid="app" data-page=move || page.get().id()>
            <header class="app-header">
                <h1 class="app-title" data-testid="title">"schedlab"</h1>
                <span class="app-subtitle">"a Linux fair-scheduler laboratory"</span>
                <nav class="pages" aria-label="pages">{nav}</nav>
                <Show when=move || page.get() == Page::Lecture>
                    <span class="kernel-badge" data-testid="kernel-badge">{move || ui.setup.with(|s| format!("kernel {} · {} · HZ {} · base slice {:.2} ms", s.kernel, s.topo_name, s.hz, s.base_slice as f64 / 1e6))}</span>
                </Show>
                <span class="spacer"></span>
                <button data-testid="btn-help" title="keyboard keys (?)" on:click=move |_| pages.help.update(|h| *h = !*h)>"? keys"</button>
                <button data-testid="btn-big" class:on=move || ui.big.get() title="large fonts for a projector (b); kept in the link" on:click=move |_| ui.big.update(|b| *b = !*b)>"A+ projector"</button>
                <button data-testid="btn-share" title="copy a link to exactly this view" on:click=move |_| copy_link(pages, copier)>"copy link"</button>
            </header>
            <Notice />
            <CopyBox text=copier.fallback />
            <Show when=move || pages.help.get()>
                <KeyHelp on_close=Callback::new(move |_| pages.help.set(false)) />
            </Show>
            {body}
        </div>
    }
}

/// The focus is in a text field (keys are the field's).
pub(crate) fn typing(ev: &web_sys::KeyboardEvent) -> bool {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|el| el.closest("textarea, input, select").ok().flatten())
        .is_some()
}

/// The lecture view of one run: scenario and features beside the
/// controls, explainer, tree, eligibility line, lag, topology and timeline.
#[component]
pub fn LecturePage() -> impl IntoView {
    view! {
            <div class="layout">
                <aside class="side">
                    <ScenarioPanel />
                    <FeaturesPanel />
                    <crate::views::traces::TracePanel />
                </aside>
                <main class="main">
                    <Controls />
                    <Explainer />
                    <div class="grid2 stage">
                        <TreeView />
                        <EligibilityView />
                    </div>
                    <TaskLegend />
                    <div class="grid2">
                        <LagView />
                        <TopologyView />
                    </div>
                    <TimelineView />
                </main>
            </div>
    }
}

fn copy_link(pages: Pages, copier: Copier) {
    // Each page's fragment may lag behind (it is debounced): write it now.
    set_fragment(&pages.shown_link());
    let Some(w) = web_sys::window() else { return };
    let href = w.location().href().unwrap_or_default();
    copier.copy(href, "Link copied to the clipboard.");
}

/// Copies text to the clipboard and says so only once the browser has
/// said it did; when it refuses (or has no clipboard), the text is shown
/// in a selected field to copy by hand. The app provides one.
#[derive(Clone, Copy)]
pub struct Copier {
    notice: RwSignal<Vec<String>>,
    /// The text shown for copying by hand.
    fallback: RwSignal<Option<String>>,
}

impl Copier {
    pub fn copy(&self, text: String, done: &'static str) {
        let (notice, fallback) = (self.notice, self.fallback);
        let Some(w) = web_sys::window() else { return };
        let clip = js_sys::Reflect::get(&w.navigator(), &JsValue::from_str("clipboard")).ok().filter(|c| c.is_object());
        let write = clip.as_ref().and_then(|c| js_sys::Reflect::get(c, &JsValue::from_str("writeText")).ok());
        let promise = match (clip, write.and_then(|f| f.dyn_into::<js_sys::Function>().ok())) {
            (Some(c), Some(f)) => f.call1(&c, &JsValue::from_str(&text)).ok().and_then(|p| p.dyn_into::<js_sys::Promise>().ok()),
            _ => None,
        };
        let Some(promise) = promise else {
            fallback.set(Some(text));
            return;
        };
        leptos::task::spawn_local(async move {
            match wasm_bindgen_futures::JsFuture::from(promise).await {
                Ok(_) => {
                    let _ = notice.try_update(|n| n.push(done.to_string()));
                }
                Err(_) => {
                    let _ = fallback.try_set(Some(text));
                }
            }
        });
    }
}

/// The app's copier (None outside the app: the views mounted alone).
pub fn use_copier() -> Option<Copier> {
    use_context::<Copier>()
}

/// The field a refused copy falls back to: the text, selected.
#[component]
fn CopyBox(text: RwSignal<Option<String>>) -> impl IntoView {
    let input = NodeRef::<leptos::html::Textarea>::new();
    Effect::new(move |_| {
        if text.with(|t| t.is_some()) {
            if let Some(el) = input.get() {
                let _ = el.focus();
                el.select();
            }
        }
    });
    view! {
        <Show when=move || text.with(|t| t.is_some())>
            <div class="notice copy-box" data-testid="copy-box" role="status">
                <p>"The browser did not let the page use the clipboard. The text is selected below: copy it with Ctrl+C (⌘C)."</p>
                <textarea node_ref=input readonly data-testid="copy-text" rows="3" prop:value=move || text.get().unwrap_or_default()></textarea>
                <button class="small" on:click=move |_| text.set(None)>"close"</button>
            </div>
        </Show>
    }
}

/// The keyboard keys, shown with `?`.
#[component]
fn KeyHelp(on_close: Callback<()>) -> impl IntoView {
    let keys: [(&str, &str); 12] = [
        ("?", "this help (Escape closes it)"),
        ("b", "projector mode: large fonts (every page)"),
        ("space", "play / pause"),
        ("→ / ←", "one event forward / back (Compare: one time step of either run)"),
        ("shift+→ / shift+←", "next / previous event of the chosen kind (and task)"),
        ("Home", "back to the start"),
        ("k", "choose the next kind to jump to: pick, preemption, wakeup, block, migration, balance, reweight"),
        ("t", "jump to events of the next task (then: all tasks again)"),
        ("q", "quiz mode on / off"),
        ("1 … 9", "quiz: guess the entity of that number (as listed)"),
        ("r", "quiz: reveal the answer"),
        ("Ctrl+Enter", "run the edited scenario"),
    ];
    view! {
        <div class="help-overlay" data-testid="key-help" role="dialog" aria-label="keyboard keys" on:click=move |_| on_close.run(())>
            <div class="help-box" on:click=|ev| ev.stop_propagation()>
                <h2>"Keys"</h2>
                <table>
                    {keys.into_iter().map(|(k, what)| view! { <tr><th scope="row"><kbd>{k}</kbd></th><td>{what}</td></tr> }).collect_view()}
                </table>
                <button class="small" on:click=move |_| on_close.run(())>"close"</button>
            </div>
        </div>
    }
}

/// Problems with the link, and other one-off messages.
#[component]
pub fn Notice() -> impl IntoView {
    let ui = use_ctx().ui;
    view! {
        <Show when=move || ui.notice.with(|n| !n.is_empty())>
            <div class="notice" data-testid="notice" role="status">
                <ul>{move || ui.notice.get().into_iter().map(|m| view! { <li>{m}</li> }).collect_view()}</ul>
                <button class="small" on:click=move |_| ui.notice.set(Vec::new())>"dismiss"</button>
            </div>
        </Show>
    }
}
