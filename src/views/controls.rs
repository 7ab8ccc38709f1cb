//! Controls: step, jump to the next pick / preemption / wakeup, play with a
//! speed, rewind, a scrubber over the whole run, the large-font mode, and
//! the keyboard (space: play/pause, arrows: step, shift+arrows: jump, Home:
//! rewind).

use leptos::prelude::*;
use schedlab_engine::lab::player::Direction;

use crate::fmt;
use crate::state::{use_ctx, Jump};

#[component]
pub fn Controls() -> impl IntoView {
    let ctx = use_ctx();
    let ui = ctx.ui;
    let label = move || {
        ui.frame.with(|f| {
            let total = if f.finished {
                format!("{}", f.computed)
            } else {
                format!("{}+", f.computed)
            };
            format!("event {} / {} · {}", f.event, total, fmt::ms(f.time))
        })
    };
    let progress = move || {
        ui.frame.with(|f| {
            if f.truncated {
                format!(
                    "run cut at {} events (the viewer's limit), {} simulated",
                    f.computed,
                    fmt::ms(f.computed_time)
                )
            } else if !f.finished {
                let dur = ui.setup.with(|s| s.duration).max(1);
                format!(
                    "computing the run: {:.0} % ({} events)",
                    f.computed_time as f64 * 100.0 / dur as f64,
                    f.computed
                )
            } else {
                String::new()
            }
        })
    };
    let speed_label = move || {
        format!(
            "{}/s",
            fmt::duration_short(10f64.powf(ui.speed.get()) * 1e3)
        )
    };
    let on_key = move |ev: web_sys::KeyboardEvent| {
        if let Some(t) = ev.target() {
            use wasm_bindgen::JsCast;
            if let Some(el) = t.dyn_ref::<web_sys::Element>() {
                let tag = el.tag_name();
                if matches!(tag.as_str(), "TEXTAREA" | "INPUT" | "SELECT")
                    || el
                        .closest("textarea, input, select")
                        .ok()
                        .flatten()
                        .is_some()
                {
                    return;
                }
            }
        }
        if ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
            return;
        }
        let handled = match (ev.key().as_str(), ev.shift_key()) {
            (" ", _) => {
                ctx.toggle_play();
                true
            }
            ("ArrowRight", false) => {
                ctx.step();
                true
            }
            ("ArrowLeft", false) => {
                ctx.step_back();
                true
            }
            ("ArrowRight", true) => {
                ctx.jump(Direction::Forward);
                true
            }
            ("ArrowLeft", true) => {
                ctx.jump(Direction::Backward);
                true
            }
            ("Home", _) => {
                ctx.rewind();
                true
            }
            ("b", _) | ("B", _) => {
                ui.big.update(|b| *b = !*b);
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

    view! {
        <section class="controls" data-testid="controls">
            <div class="buttons">
                <button data-testid="btn-rewind" title="rewind to the start (Home)" on:click=move |_| ctx.rewind()>"⇤ start"</button>
                <button data-testid="btn-jump-back" title=move || format!("previous {} (shift+←)", ui.jump.get().label()) on:click=move |_| ctx.jump(Direction::Backward)>
                    {move || format!("⇠ prev {}", ui.jump.get().label())}
                </button>
                <button data-testid="btn-back" title="one event back (←)" on:click=move |_| ctx.step_back()>"◀"</button>
                <button data-testid="btn-play" class="play" title="play / pause (space)" on:click=move |_| ctx.toggle_play()>
                    {move || if ui.playing.get() { "❚❚ pause" } else { "▶ play" }}
                </button>
                <button data-testid="btn-step" title="one event forward (→)" on:click=move |_| ctx.step()>"step ▶"</button>
                <button data-testid="btn-jump" title=move || format!("next {} (shift+→)", ui.jump.get().label()) on:click=move |_| ctx.jump(Direction::Forward)>
                    {move || format!("next {} ⇢", ui.jump.get().label())}
                </button>
                <select
                    data-testid="jump-kind"
                    title="what the jump buttons and shift+arrows look for"
                    on:change=move |ev| ui.jump.set(Jump::from_label(&event_target_value(&ev)))
                    prop:value=move || ui.jump.get().label()
                >
                    {Jump::ALL.iter().map(|j| view! { <option value=j.label()>{j.label()}</option> }).collect_view()}
                </select>
                <label class="speed" title="simulated time per second of playing">
                    "speed "
                    <input
                        type="range"
                        data-testid="speed"
                        min="0"
                        max="6"
                        step="0.1"
                        prop:value=move || ui.speed.get().to_string()
                        on:input=move |ev| {
                            if let Ok(v) = event_target_value(&ev).parse::<f64>() {
                                ui.speed.set(v.clamp(0.0, 6.0));
                            }
                        }
                    />
                    <span class="speed-label" data-testid="speed-label">{speed_label}</span>
                </label>
                <span class="event-label" data-testid="event-label">{label}</span>
            </div>
            <input
                type="range"
                class="scrubber"
                data-testid="scrubber"
                min="0"
                max=move || ui.frame.with(|f| f.computed.to_string())
                prop:value=move || ui.frame.with(|f| f.event.to_string())
                on:input=move |ev| {
                    if let Ok(k) = event_target_value(&ev).parse::<u64>() {
                        ctx.seek(k);
                    }
                }
                aria-label="position in the run (event number)"
            />
            <div class="progress" data-testid="progress">{progress}</div>
        </section>
    }
}
