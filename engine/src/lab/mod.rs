//! The laboratory around the kernel mirror: what drives it, what feeds it
//! and what is made of its runs.
//!
//! | module | what it is |
//! | --- | --- |
//! | [`scenario`] | the scenario format: TOML/JSON to a validated scenario, errors with line and column |
//! | [`build`] | scenario + overrides → a ready simulation (preset, flags, tunables, topology, tasks) |
//! | [`sim`], [`queue`] | the discrete-event loop: clock, seeded RNG, event queue (per-CPU slots and a heap), task programs |
//! | [`program`] | task programs compiled to flat instruction lists |
//! | [`workload`] | benchmark macros (hackbench, schbench, netperf, ...) |
//! | [`rng`] | the one random source |
//! | [`signals`] | per-CPU run-queue length and utilisation over time, decision counts |
//! | [`trace`] | the event log (every decision with its cause) and latency histograms |
//! | [`snapshot`], [`timeline`], [`explain`], [`player`] | what the viewer shows |
//! | [`results`], [`compare`], [`study`] | run results, comparisons, study tables |
//! | [`reproduce`] | the seed mails' tables beside the model's |
//! | [`perfetto`], [`import`] | traces out (ftrace text for Perfetto) and in (perf sched / trace-cmd text, rt-app JSON → scenario) |

pub mod build;
pub mod compare;
pub mod explain;
pub mod import;
pub mod perfetto;
pub mod player;
pub mod program;
pub mod queue;
pub mod reproduce;
pub mod results;
pub mod rng;
pub mod scenario;
pub mod signals;
pub mod sim;
pub mod snapshot;
pub mod study;
pub mod timeline;
pub mod trace;
pub mod workload;
