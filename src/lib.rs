//! schedlab web app: Leptos (client-side rendered) views over the schedlab
//! engine. No scheduling logic lives here; see engine/.
//!
//! - [`state`]: the engine outside the reactive graph, and the one frame
//!   signal the views draw from;
//! - [`views`]: one component per view;
//! - [`fragment`]: the URL fragment (scenario, instant, view options);
//! - [`presets`]: the lecture scenarios shipped with the page.

mod app;
pub mod fmt;
pub mod fragment;
pub mod perf;
pub mod presets;
pub mod state;
pub mod views;

pub use app::{current_link, App, LabProvider, Notice};
