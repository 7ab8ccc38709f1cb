//! The pages beside the lecture view (which is the app's own layout of
//! the views, see app.rs).

pub mod compare;
pub mod study;
pub mod study_mail;
