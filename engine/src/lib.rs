//! schedlab-engine: a deterministic simulation of the Linux fair scheduler
//! (EEVDF, v6.6 – v6.18) in the kernel's own units and integer arithmetic.
//!
//! Data flow: scenario text → [`scenario::parse`] → [`build::build`] (kernel
//! preset, flags, tunables, tasks) → [`sim::Simulation`] (discrete events,
//! seeded) → event log ([`trace`]), [`snapshot::Snapshot`]s and
//! [`results::RunResult`].

pub mod balance;
pub mod build;
pub mod cfs;
pub mod cfs_rq;
pub mod chan;
pub mod compare;
pub mod cpumask;
pub mod entity;
pub mod explain;
pub mod fair;
pub mod features;
pub mod group;
pub mod hist;
pub mod kernel;
pub mod load_avg;
pub mod patches;
pub mod pelt;
pub mod pick;
pub mod player;
pub mod program;
pub mod rbtree;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod select;
pub mod sched;
pub mod sim;
pub mod snapshot;
pub mod study;
pub mod timeline;
pub mod topology;
pub mod trace;
pub mod weight;
pub mod workload;

pub use build::{build, from_text, Config, Overrides};
pub use sim::{LogMode, Simulation};

#[cfg(test)]
mod tests;
