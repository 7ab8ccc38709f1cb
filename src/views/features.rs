//! Kernel preset and feature flags: every flag of the engine's list with
//! its doc as a tooltip; toggling one rebuilds the run with an override, so
//! "X on vs off" is one click.

use leptos::prelude::*;
use schedlab_engine::kernel::sched::features::PRESET_NAMES;
use schedlab_engine::kernel::sched::presets;

use crate::state::use_ctx;

#[component]
pub fn FeaturesPanel() -> impl IntoView {
    let ctx = use_ctx();
    let ui = ctx.ui;
    let kernel_value = move || {
        ui.setup
            .with(|s| s.kernel_override.clone().unwrap_or_default())
    };
    let scenario_kernel = move || {
        ui.setup.with(|s| {
            if s.kernel_override.is_some() {
                "scenario's".to_string()
            } else {
                format!("scenario's ({})", s.kernel)
            }
        })
    };
    let on_kernel = move |ev: leptos::ev::Event| {
        let v = event_target_value(&ev);
        ctx.set_kernel(if v.is_empty() { None } else { Some(v) });
    };
    // The engine's description of the kernel preset in effect.
    let kernel_summary = move || {
        ui.setup.with(|s| {
            let k = s.kernel_override.as_deref().unwrap_or(&s.kernel);
            presets::preset(k).map(|p| format!("v{}: {}", p.name, p.summary)).unwrap_or_default()
        })
    };
    let any_override = move || {
        ui.setup
            .with(|s| s.kernel_override.is_some() || s.flags.iter().any(|f| f.overridden))
    };
    let flags = move || {
        ui.setup.with(|s| {
            s.flags
                .iter()
                .map(|f| {
                    let name = f.name;
                    let tip = format!("{}\n\n{}: {}", f.doc, "origin", f.origin);
                    let class = if f.overridden { "flag overridden" } else { "flag" };
                    view! {
                        <label class=class title=tip data-testid=format!("feature-{name}")>
                            <input
                                type="checkbox"
                                prop:checked=f.on
                                on:change=move |ev| ctx.toggle_feature(name, event_target_checked(&ev))
                            />
                            <span class="flag-name">{name}</span>
                        </label>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <section class="panel features-panel" data-testid="features-panel">
            <h2>"Kernel and features"</h2>
            <label class="row">
                "kernel "
                <select data-testid="kernel" on:change=on_kernel prop:value=kernel_value>
                    <option value="">{scenario_kernel}</option>
                    {PRESET_NAMES
                        .iter()
                        .map(|k| {
                            let tip = presets::preset(k).map(|p| format!("{}\n\nsource: {}", p.summary, p.source)).unwrap_or_default();
                            view! { <option value=*k title=tip>{format!("v{k}")}</option> }
                        })
                        .collect_view()}
                </select>
                {move || any_override().then(|| view! {
                    <button class="small" data-testid="reset-overrides" on:click=move |_| ctx.set_overrides(Default::default())>"reset"</button>
                })}
            </label>
            <p class="muted small-text" data-testid="kernel-summary">{kernel_summary}</p>
            <p class="muted small-text">"Hover a flag for what it does; a changed flag is highlighted and rebuilds the run at the same instant."</p>
            <div class="flags">{flags}</div>
        </section>
    }
}
