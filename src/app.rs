use leptos::prelude::*;

/// Root component of the schedlab web app.
#[component]
pub fn App() -> impl IntoView {
    view! {
        <div class="app" data-testid="app">
            <header class="app-header">
                <h1 class="app-title" data-testid="title">"schedlab"</h1>
                <span class="app-subtitle">"a Linux fair-scheduler laboratory"</span>
            </header>
            <main>
                <p class="note" data-testid="note">
                    "EEVDF and CFS, simulated deterministically in your browser. "
                    "The scenario views are on their way."
                </p>
            </main>
        </div>
    }
}
