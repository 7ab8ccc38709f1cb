//! Progress on stderr, drawn only when stderr is a terminal (indicatif
//! hides its bars otherwise), so pipes, files and tests see nothing.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar of `len` steps; cleared when dropped.
pub fn bar(len: u64, what: String, unit: &str) -> Cleared {
    let pb = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    let template = format!("{{msg}} [{{bar:30}}] {{pos}}/{{len}} {unit}, {{elapsed}} (eta {{eta}})");
    pb.set_style(ProgressStyle::with_template(&template).expect("a valid template").progress_chars("=> "));
    pb.set_message(what);
    Cleared(pb)
}

/// A spinner with the elapsed time, for work without steps; cleared when
/// dropped.
pub fn busy(what: String) -> Cleared {
    let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    pb.set_style(ProgressStyle::with_template("{spinner} {msg}, {elapsed}").expect("a valid template"));
    pb.set_message(what);
    pb.enable_steady_tick(Duration::from_millis(120));
    Cleared(pb)
}

/// A progress bar that leaves no line behind (success or error alike).
pub struct Cleared(ProgressBar);

impl std::ops::Deref for Cleared {
    type Target = ProgressBar;
    fn deref(&self) -> &ProgressBar {
        &self.0
    }
}

impl Drop for Cleared {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
