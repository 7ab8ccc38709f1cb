//! The app: reads the link (URL fragment), builds the lab, shows one of
//! three pages (the lecture view of one run, the comparison of two
//! configurations, the study page) and keeps the fragment in step with
//! what is shown.

use leptos::prelude::*;
use schedlab_engine::Overrides;
use wasm_bindgen::JsValue;

use crate::fragment::{self, Link, Page};
use crate::pages::compare::ComparePage;
use crate::pages::study::{provide_study, Runner, StudyPage};
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
        if let Some(w) = link.window {
            ui.window.set(Some((w.0 as f64, w.1 as f64)));
        }
        if let Some(c) = link.cpu {
            let nr = ui.setup.with_untracked(|s| s.nr_cpus());
            if c < nr {
                ui.pinned.set(Some(c));
            } else {
                problems.push(format!(
                    "The link's CPU {c} does not exist (the machine has {nr})."
                ));
            }
        }
        match link.event {
            Some(e) => ctx.seek(e),
            None => ctx.publish(),
        }
    }
    if !problems.is_empty() {
        ui.notice.update(|n| n.extend(problems));
    }
    ctx
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
        event: Some(ui.frame.with_untracked(|f| f.event)),
        cpu: ui.pinned.get_untracked(),
        kernel: ov.kernel,
        features: ov.features,
        window: ui
            .window
            .get_untracked()
            .map(|(a, b)| (a.max(0.0) as u64, b.max(0.0) as u64)),
        big: ui.big.get_untracked(),
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

/// Root component of the schedlab web app.
#[component]
pub fn App() -> impl IntoView {
    // The page's static "loading" line (index.html) goes once we run.
    if let Some(el) = document().get_element_by_id("loading") {
        el.remove();
    }
    let hash = location_hash().unwrap_or_default();
    let (link, problems) = fragment::decode(&hash);
    let page = RwSignal::new(link.page);
    // The link a comparison page opens with (then the page's own state).
    let page_link = StoredValue::new(link.clone());
    let study = provide_study(Runner::Worker);
    if let Some(p) = link.study_preset.as_deref().and_then(presets::study_by_id) {
        study.editor.set(p.text.to_string());
    } else if let (Page::Study, Some(t)) = (link.page, &link.text) {
        study.editor.set(t.clone());
    }
    let lecture_link = if link.page == Page::Lecture { link.clone() } else { Link::default() };
    let ctx = open_link(&lecture_link, problems);
    provide_context(ctx);
    let ui = ctx.ui;
    // Set when a study cell opened its run in the lecture view.
    let from_study = RwSignal::new(false);

    // The study page's link.
    Effect::new(move |_| {
        study.editor.track();
        if page.get() == Page::Study {
            set_fragment(&study.link());
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
        ui.window.track();
        ui.big.track();
        if ui.playing.get() {
            return;
        }
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        pending.set_value(
            set_timeout_with_handle(
                move || write_fragment(ctx),
                std::time::Duration::from_millis(250),
            )
            .ok(),
        );
    });
    // Opening another link in the same page (editing the fragment).
    let handle = window_event_listener(leptos::ev::hashchange, move |_| {
        let hash = location_hash().unwrap_or_default();
        if hash == fragment::encode(&current_link(ctx)) {
            return;
        }
        let (link, problems) = fragment::decode(&hash);
        if link.page != page.get_untracked() {
            page_link.set_value(link.clone());
            if let Some(p) = link.study_preset.as_deref().and_then(presets::study_by_id) {
                study.editor.set(p.text.to_string());
            }
            page.set(link.page);
            return;
        }
        if link.page != Page::Lecture {
            return;
        }
        let text = link.text.clone().or(link
            .preset
            .as_deref()
            .and_then(presets::by_id)
            .map(|p| p.text.to_string()));
        if let Some(text) = text {
            ui.editor.set(text.clone());
            let ov = Overrides {
                kernel: link.kernel.clone(),
                features: link.features.clone(),
                ..Default::default()
            };
            let keep = link.event.map_or(Keep::Start, Keep::Event);
            if ctx.load(&text, ov, keep).is_err() {
                ui.notice.update(|n| {
                    n.push("The new link's scenario does not build; see the editor.".to_string())
                });
            }
        }
        ui.notice.update(|n| n.extend(problems));
    });
    on_cleanup(move || handle.remove());

    // A study cell opens its run here.
    let open_run = Callback::new(move |text: String| {
        ui.editor.set(text.clone());
        ui.window.set(None);
        ui.pinned.set(None);
        ui.queue.set(Vec::new());
        let _ = ctx.load(&text, Overrides::default(), Keep::Start);
        from_study.set(true);
        page.set(Page::Lecture);
    });
    let go = move |p: Page| {
        if p == Page::Compare {
            page_link.set_value(Link { page: Page::Compare, ..Default::default() });
        }
        page.set(p);
    };
    let nav = move || {
        Page::ALL
            .into_iter()
            .map(|p| {
                view! {
                    <button class="nav" data-testid=format!("nav-{}", p.id()) class:on=move || page.get() == p
                        aria-current=move || if page.get() == p { "page" } else { "false" }
                        on:click=move |_| go(p)>{p.label()}</button>
                }
            })
            .collect_view()
    };
    // The log hash of the shown run once it is computed (a study's run
    // must match the study's value).
    let opened_hash = move || {
        if !ui.frame.with(|f| f.finished && !f.truncated) {
            return String::new();
        }
        ctx.with_lab(|l| format!("{:016x}", l.player.log().hash.0)).unwrap_or_default()
    };
    let body = move || match page.get() {
        Page::Lecture => view! {
            {move || from_study.get().then(|| view! {
                <div class="back-bar">
                    <button data-testid="back-to-study" on:click=move |_| { from_study.set(false); page.set(Page::Study); }>"← back to the study"</button>
                    <span class="muted">"this is one run of the study: its configuration and seed are written into the scenario"</span>
                    <span class="muted" data-testid="opened-hash" data-hash=opened_hash>{move || {
                        let h = opened_hash();
                        if h.is_empty() { "computing the run…".to_string() } else { format!("log hash {h} (as in the study)") }
                    }}</span>
                </div>
            })}
            <LecturePage />
        }
        .into_any(),
        Page::Compare => view! { <ComparePage link=page_link.get_value() /> }.into_any(),
        Page::Study => view! { <StudyPage on_open=open_run /> }.into_any(),
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
                <button data-testid="btn-big" class:on=move || ui.big.get() title="large fonts for a projector (b); kept in the link" on:click=move |_| ui.big.update(|b| *b = !*b)>"A+ projector"</button>
                <button data-testid="btn-share" title="copy a link to exactly this view" on:click=move |_| copy_link(ctx)>"copy link"</button>
            </header>
            <Notice />
            {body}
        </div>
    }
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
                    <div class="grid2">
                        <TreeView />
                        <EligibilityView />
                    </div>
                    <div class="grid2">
                        <LagView />
                        <TopologyView />
                    </div>
                    <TimelineView />
                </main>
            </div>
    }
}

fn copy_link(ctx: Ctx) {
    // On the lecture page the fragment may lag behind (it is debounced);
    // the other pages keep theirs current.
    if location_hash().is_none_or(|h| fragment::decode(&h).0.page == Page::Lecture) {
        write_fragment(ctx);
    }
    let Some(w) = web_sys::window() else { return };
    let href = w.location().href().unwrap_or_default();
    // navigator.clipboard.writeText(href), where available.
    let clip = js_sys::Reflect::get(&w.navigator(), &JsValue::from_str("clipboard"))
        .ok()
        .filter(|c| c.is_object());
    let write = clip
        .as_ref()
        .and_then(|c| js_sys::Reflect::get(c, &JsValue::from_str("writeText")).ok());
    if let (Some(c), Some(f)) = (
        clip,
        write.and_then(|f| f.dyn_into::<js_sys::Function>().ok()),
    ) {
        let _ = f.call1(&c, &JsValue::from_str(&href));
        ctx.ui.notice.update(|n| n.push("Link copied.".to_string()));
    } else {
        ctx.ui.notice.update(|n| n.push(format!("Link: {href}")));
    }
}

use wasm_bindgen::JsCast;

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
