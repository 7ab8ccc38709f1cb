//! The scenario panel: a preset picker, the editor (errors shown inline with
//! key, line and column, the line highlighted, while the last good scenario
//! keeps running) and the scenario's explanation (its leading comment).

use leptos::html::Textarea;
use leptos::prelude::*;

use crate::presets::{self, lecture_presets};
use crate::state::{use_ctx, Keep};

/// Editor line height in px (CSS .editor, .gutter use the same).
const LINE_H: f64 = 18.0;
const PAD: f64 = 6.0;

#[component]
pub fn ScenarioPanel() -> impl IntoView {
    let ctx = use_ctx();
    let ui = ctx.ui;
    let area = NodeRef::<Textarea>::new();
    let scroll = RwSignal::new(0.0f64);
    let pending = StoredValue::new(None::<TimeoutHandle>);

    let run_now = move || {
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        pending.set_value(None);
        let text = ui.editor.get_untracked();
        let same = ctx.with_lab(|l| l.text == text).unwrap_or(false);
        if same {
            ui.error.set(None);
            return;
        }
        let ov = ctx.overrides();
        let t = ui.frame.with_untracked(|f| f.time);
        let _ = ctx.load(&text, ov, Keep::Time(t));
    };
    let on_input = move |ev: leptos::ev::Event| {
        ui.editor.set(event_target_value(&ev));
        if let Some(h) = pending.get_value() {
            h.clear();
        }
        let h = set_timeout_with_handle(run_now, std::time::Duration::from_millis(450)).ok();
        pending.set_value(h);
    };
    let on_keydown = move |ev: web_sys::KeyboardEvent| {
        if ev.key() == "Enter" && (ev.ctrl_key() || ev.meta_key()) {
            ev.prevent_default();
            run_now();
        }
    };
    let pick_preset = move |ev: leptos::ev::Event| {
        let id = event_target_value(&ev);
        if let Some(p) = presets::by_id(&id) {
            ui.editor.set(p.text.to_string());
            ui.window.set(None);
            ui.pinned.set(None);
            let _ = ctx.load(p.text, Default::default(), Keep::Start);
        }
    };
    let current_preset = move || {
        ui.setup
            .with(|s| presets::matching(&s.text).map_or("", |p| p.id).to_string())
    };
    let line_count = move || {
        ui.editor
            .with(|t| t.lines().count().max(1) + usize::from(t.ends_with('\n')))
    };
    let err_line = move || ui.error.with(|e| e.as_ref().and_then(|e| e.line));
    let gutter = move || {
        let err = err_line();
        (1..=line_count())
            .map(|i| {
                let class = if Some(i as u32) == err {
                    "gl err"
                } else {
                    "gl"
                };
                view! { <div class=class>{i}</div> }
            })
            .collect_view()
    };
    let band = move || {
        err_line().map(|l| {
            let top = PAD + LINE_H * (l as f64 - 1.0) - scroll.get();
            view! { <div class="err-band" data-testid="error-band" data-line=l style=format!("top:{top}px;height:{LINE_H}px")></div> }
        })
    };
    // Bring a new error's line into view.
    Effect::new(move |_| {
        if let (Some(line), Some(a)) = (err_line(), area.get()) {
            let top = LINE_H * (line as f64 - 1.0);
            let h = a.client_height() as f64;
            let cur = a.scroll_top() as f64;
            if top < cur || top + LINE_H > cur + h {
                a.set_scroll_top((top - h / 3.0).max(0.0) as i32);
                scroll.set(a.scroll_top() as f64);
            }
        }
    });
    let title = move || {
        ui.editor
            .with(|t| presets::title(t))
            .unwrap_or_else(|| "Your scenario".to_string())
    };
    let explanation = move || {
        ui.editor
            .with(|t| presets::explanation(t))
            .into_iter()
            .map(|p| view! { <p>{p}</p> })
            .collect_view()
    };
    view! {
        <section class="panel scenario-panel" data-testid="scenario-panel">
            <h2>"Scenario"</h2>
            <label class="row">
                "preset "
                <select data-testid="preset" on:change=pick_preset prop:value=current_preset>
                    <option value="">"(edited)"</option>
                    {lecture_presets()
                        .iter()
                        .map(|p| view! { <option value=p.id>{presets::title(p.text).unwrap_or_else(|| p.id.to_string())}</option> })
                        .collect_view()}
                </select>
            </label>
            <div class="preset-explanation" data-testid="preset-explanation">
                <h3>{title}</h3>
                {explanation}
            </div>
            <div class="editor-wrap">
                <div class="gutter" aria-hidden="true" style=move || format!("transform:translateY({}px)", -scroll.get())>{gutter}</div>
                <div class="editor-box">
                    {band}
                    <textarea
                        node_ref=area
                        class="editor"
                        data-testid="editor"
                        spellcheck="false"
                        autocomplete="off"
                        aria-label="scenario (TOML)"
                        prop:value=move || ui.editor.get()
                        on:input=on_input
                        on:keydown=on_keydown
                        on:scroll=move |_| {
                            if let Some(a) = area.get_untracked() {
                                scroll.set(a.scroll_top() as f64);
                            }
                        }
                    ></textarea>
                </div>
            </div>
            <div class="editor-actions">
                <button data-testid="btn-run" on:click=move |_| run_now() title="build and run now (Ctrl+Enter); edits also run after a pause">"run"</button>
                <span class="muted">"edits run by themselves after a pause"</span>
            </div>
            {move || ui.error.get().map(|e| view! {
                <div class="scenario-error" data-testid="scenario-error" data-line=e.line.unwrap_or(0) data-col=e.col.unwrap_or(0) role="alert">
                    <strong>{match (e.line, e.col) {
                        (Some(l), Some(c)) => format!("line {l}, column {c}"),
                        _ => "error".to_string(),
                    }}</strong>
                    {format!(" · {}: {}", if e.key.is_empty() { "syntax" } else { e.key.as_str() }, e.msg)}
                    <div class="muted">"The last good scenario keeps running."</div>
                </div>
            })}
        </section>
    }
}
