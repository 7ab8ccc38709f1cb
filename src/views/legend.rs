//! The task legend: each task's colour, the same in the timeline's
//! slices, the trees' rings and the bars' swatches (a colour-blind safe
//! palette that no cause marker uses, see `fmt::TASK_COLORS`).

use leptos::prelude::*;

use crate::fmt;
use crate::state::use_ctx;

/// At most this many tasks are listed (the rest share the colours).
const MAX_LISTED: usize = 48;

#[component]
pub fn TaskLegend() -> impl IntoView {
    let ui = use_ctx().ui;
    let items = move || {
        ui.setup.with(|s| {
            let n = s.names.len();
            let listed = s
                .names
                .iter()
                .take(MAX_LISTED)
                .enumerate()
                .map(|(i, name)| {
                    view! {
                        <span class="lg-task" data-testid="task-legend-item" data-task=i>
                            <i class="swatch" style=format!("background:{}", fmt::task_color(i as u32))></i>{name.clone()}
                        </span>
                    }
                })
                .collect_view();
            let more = (n > MAX_LISTED).then(|| {
                view! { <span class="muted">{format!(" … and {} more (colours repeat every {} tasks)", n - MAX_LISTED, fmt::PALETTE)}</span> }
            });
            (listed, more)
        })
    };
    view! {
        <div class="legend task-legend" data-testid="task-legend" aria-label="task colours">
            <span class="muted">"tasks: "</span>
            {items}
        </div>
    }
}
