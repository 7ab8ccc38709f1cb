//! schedlab web app: Leptos (client-side rendered) views over the schedlab
//! engine. No scheduling logic lives here; see engine/.

mod app;

pub use app::App;
