//! schedlab web app: Leptos (client-side rendered) views over the schedlab
//! engine. No scheduling logic lives here; see engine/.
//!
//! - [`state`]: the engine outside the reactive graph, and the one frame
//!   signal the views draw from;
//! - [`views`]: one component per view;
//! - [`fragment`]: the URL fragment (scenario, instant, view options);
//! - [`presets`]: the lecture, comparison and study scenarios shipped with
//!   the page;
//! - [`pages`]: the comparison and study pages;
//! - [`deltas`]: the comparison's per-task table;
//! - [`worker`]: the study worker's protocol (src/bin/study-worker.rs).

mod app;
pub mod deltas;
pub mod export;
pub mod fmt;
pub mod fragment;
pub mod pages;
pub mod perf;
pub mod presets;
pub mod state;
pub mod views;
pub mod worker;

pub use app::{current_link, use_copier, App, Copier, LabProvider, LecturePage, Notice, Scoped};
