//! lib/ and include/linux/ data structures the scheduler is built on.

pub mod cpumask;
pub mod rbtree;
pub mod math64;
pub mod prandom;
