//! The mirror of the Linux kernel: what the kernel does, in its names,
//! units and integer arithmetic. Nothing here imports the laboratory
//! except [`crate::lab::trace`], the event log it writes to.

pub mod chan;
pub mod cpuidle;
pub mod lib;
pub mod patches;
pub mod sched;
