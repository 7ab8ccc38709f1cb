//! Controls: step, jump to the next event of a kind (pick, preemption,
//! wakeup, block, migration, balance, reweight) and of one task, play with
//! a speed, rewind, a scrubber over the whole run, quiz mode, and the
//! keyboard (space: play/pause, arrows: step, shift+arrows: jump, Home:
//! rewind, k / t: the next kind / task to jump to, q: quiz, r: reveal,
//! 1…9: guess; `?` lists them).

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
            } else if f.kept_from.0 > 0 && f.event < f.kept_from.0 {
                format!(
                    "the records before event {} ({}) were dropped to bound memory: the state shown is exact, its explanation and timeline are gone",
                    f.kept_from.0,
                    fmt::ms(f.kept_from.1)
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
        if crate::app::typing(&ev) || ev.ctrl_key() || ev.meta_key() || ev.alt_key() {
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
            ("k", _) => {
                let i = Jump::ALL.iter().position(|&j| j == ui.jump.get_untracked()).unwrap_or(0);
                ui.jump.set(Jump::ALL[(i + 1) % Jump::ALL.len()]);
                true
            }
            ("t", _) => {
                let n = ui.setup.with_untracked(|s| s.names.len() as u32);
                ui.jump_task.update(|t| {
                    *t = match *t {
                        None if n > 0 => Some(0),
                        Some(x) if x + 1 < n => Some(x + 1),
                        _ => None,
                    }
                });
                true
            }
            ("q", _) => {
                ctx.set_quiz(ui.quiz.with_untracked(|q| q.is_none()));
                true
            }
            ("r", _) => {
                ctx.reveal();
                true
            }
            (d, _) if d.len() == 1 && d.as_bytes()[0].is_ascii_digit() && d != "0" => {
                let i = (d.as_bytes()[0] - b'1') as usize;
                match ui.frame.with_untracked(|f| f.tasks_here.get(i).copied()) {
                    Some(t) if ui.quiz.with_untracked(|q| q.is_some()) => {
                        ctx.guess(t);
                        true
                    }
                    _ => false,
                }
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
                    {move || if ui.quiz.with(|q| q.as_ref().is_some_and(|q| q.asking())) { "next pick: reveal ⇢".to_string() } else { format!("next {}{} ⇢", ui.jump.get().label(), ui.jump_task.get().map_or(String::new(), |t| format!(" of {}", ui.setup.with(|s| s.name(t).to_string())))) }}
                </button>
                <select
                    data-testid="jump-kind"
                    title="what the jump buttons and shift+arrows look for"
                    on:change=move |ev| ui.jump.set(Jump::from_label(&event_target_value(&ev)).unwrap_or(Jump::Pick))
                    prop:value=move || ui.jump.get().label()
                >
                    {Jump::ALL.iter().map(|j| view! { <option value=j.label()>{j.label()}</option> }).collect_view()}
                </select>
                <select
                    data-testid="jump-task"
                    title="jump to events of this task only (t)"
                    on:change=move |ev| ui.jump_task.set(event_target_value(&ev).parse::<u32>().ok())
                    prop:value=move || ui.jump_task.get().map_or(String::new(), |t| t.to_string())
                >
                    <option value="">"any task"</option>
                    {move || ui.setup.with(|s| s.names.iter().enumerate().map(|(i, n)| view! { <option value=i.to_string()>{n.clone()}</option> }).collect_view())}
                </select>
                <button data-testid="btn-quiz" class:on=move || ui.quiz.with(|q| q.is_some())
                    title="quiz mode: hide what comes next, let the class guess who runs next (q)"
                    on:click=move |_| ctx.set_quiz(ui.quiz.with_untracked(|q| q.is_none()))>"? quiz"</button>
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
