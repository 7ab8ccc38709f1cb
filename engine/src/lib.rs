//! schedlab-engine: a deterministic simulation of the Linux fair scheduler
//! (CFS v5.15, EEVDF v6.6 – v6.18) in the kernel's own units and integer
//! arithmetic.
//!
//! The crate has two halves:
//!
//! - [`kernel`]: the mirror of the kernel. [`kernel::sched`] follows
//!   kernel/sched/ file by file (`core.c`, `fair.c` with its EEVDF pick,
//!   PELT, wake-up placement and load balancing, `topology.c`,
//!   `features.h`, the kernel presets and the patch registry);
//!   [`kernel::lib`] holds lib/rbtree.c and the cpumask helpers;
//!   [`kernel::chan`] the pipe, socket and futex wake paths. Each function
//!   that mirrors a kernel function names it and the kernel version.
//! - [`lab`]: the laboratory around it: the discrete-event loop
//!   ([`lab::sim`]), task programs and workload macros, the scenario
//!   format, the event log the mirror writes to ([`lab::trace`]), and what
//!   is made of runs (snapshots, timelines, explanations, results,
//!   comparisons, studies, the viewer's player).
//!
//! The mirror imports nothing of the laboratory but [`lab::trace`], the
//! event log and statistics it records into.
//!
//! Data flow: scenario text → [`lab::scenario::parse`] → [`lab::build::build`]
//! (kernel preset, flags, tunables, tasks) → [`lab::sim::Simulation`]
//! (discrete events, seeded) → event log ([`lab::trace`]),
//! [`lab::snapshot::Snapshot`]s and [`lab::results::RunResult`].

pub mod kernel;
pub mod lab;

pub use lab::build::{build, from_text, Config, Overrides};
pub use lab::sim::{LogMode, Simulation};

#[cfg(test)]
mod tests;
