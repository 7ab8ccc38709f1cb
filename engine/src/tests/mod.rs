//! In-crate tests: kernel-derived oracles computed by hand, scheduler
//! invariants over random scenarios, and the fast path's equivalence.

#[cfg(target_arch = "wasm32")]
wasm_bindgen_test::wasm_bindgen_test_configure!(run_in_browser);

pub(crate) mod audit;
mod balance;
mod cfs;
mod cfs65;
mod idle;
mod chan;
mod invariants;
mod patches;
mod queue;
mod oracles;
mod warmup;
mod fuzz;
mod spin;
mod stale_curr;

use crate::kernel::sched::features::{Feature, Features, PRESET_NAMES};
use crate::kernel::sched::presets::{self, Scaling, Tunables};
use crate::kernel::sched::core::{Policy, Sched};
use crate::kernel::sched::weight::LoadWeight;

pub(crate) const MS: u64 = 1_000_000;

/// A one-CPU scheduler with a preset's flags (plus overrides), v0 at 0 so
/// that vruntimes read as plain numbers.
pub(crate) fn sched(preset: &str, overrides: &[(Feature, bool)]) -> Sched {
    let i = PRESET_NAMES.iter().position(|p| *p == preset).unwrap();
    let mut f = Features::preset(i);
    for &(flag, on) in overrides {
        f.set(flag, on);
    }
    let p = presets::preset(preset).unwrap();
    let topo = std::rc::Rc::new(crate::kernel::sched::topology::Topology::preset("1cpu").unwrap());
    let mut s = Sched::new(topo, f, Tunables::new(250, p.base_slice_normalized, Scaling::Log, 1, None));
    s.cfs_rqs[0].min_vruntime = 0;
    s
}

/// Queues an entity with the given weight, vruntime and deadline directly in
/// the tree (as `__enqueue_entity()` + `account_entity_enqueue()` would),
/// without placement. Returns its entity id.
pub(crate) fn queue(s: &mut Sched, weight: u64, vruntime: u64, deadline: u64) -> u32 {
    let t = s.add_task(one_cpu(), 0, Policy::Normal, None);
    let se = s.tasks[t as usize].se;
    let e = &mut s.ents[se as usize];
    e.load = LoadWeight::with_weight(crate::kernel::sched::weight::scale_load(weight));
    e.vruntime = vruntime;
    e.deadline = deadline;
    e.on_rq = true;
    s.tasks[t as usize].on_rq = true;
    s.__enqueue_entity(0, se);
    s.account_entity_enqueue(0, se);
    s.add_nr_running(0, 1);
    s.cfs_rqs[0].h_nr_queued += 1;
    s.cfs_rqs[0].h_nr_runnable += 1;
    se
}

/// The affinity of a task on the one-CPU test machine.
pub(crate) fn one_cpu() -> std::rc::Rc<crate::kernel::lib::cpumask::CpuMask> {
    std::rc::Rc::new(crate::kernel::lib::cpumask::CpuMask::full(1))
}
