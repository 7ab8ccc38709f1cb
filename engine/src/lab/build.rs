//! From a parsed scenario (plus command-line overrides) to a ready
//! simulation: resolve the kernel preset, feature flags, tunables and
//! topology, expand tasks, compile programs. Every name that does not
//! resolve is an error at the place it was written.

use std::collections::HashMap;
use std::rc::Rc;

use crate::kernel::chan::{Channel, Room};
use crate::kernel::lib::cpumask::CpuMask;
use crate::kernel::sched::features::{Feature, Features};
use crate::kernel::sched::presets::{self, Scaling, Tunables};
use crate::lab::program::{Names, Program};
use crate::lab::scenario::{self, BalancePhases, Named, Scenario, ScenarioError, TunableScaling};
use crate::kernel::sched::core::Sched;
use crate::lab::sim::{LogMode, Simulation, Static};
use crate::kernel::sched::topology::{Topology, PRESETS};

/// Settings given outside the scenario (CLI flags, the UI's compare panes).
/// They win over the scenario's own.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    pub kernel: Option<String>,
    /// Replace the scenario's patch list (`compare --base/--patch`).
    pub patches: Option<Vec<String>>,
    pub features: Vec<(String, bool)>,
    pub seed: Option<u64>,
    pub duration: Option<u64>,
}

/// The resolved configuration of a run.
#[derive(Clone, Debug)]
pub struct Config {
    pub kernel: String,
    pub patches: Vec<String>,
    pub features: Features,
    pub tunables: Tunables,
    pub topology: Rc<Topology>,
    pub cpus: u32,
    pub seed: u64,
    pub duration: u64,
    /// Results count from this time on.
    pub warmup: u64,
    pub balance_phases: BalancePhases,
}

fn unknown(what: &str, name: &str, known: &[&str]) -> String {
    let hint = scenario::suggest(name, known).map(|s| format!("; did you mean `{s}`?")).unwrap_or_default();
    format!("unknown {what} `{name}`{hint} (known: {})", known.join(", "))
}

fn feature(named: &Named) -> Result<Feature, ScenarioError> {
    Feature::from_name(&named.name).ok_or_else(|| {
        // Fifty-odd flags: a suggestion and where they are listed, rather
        // than all of them in every message.
        let names: Vec<&str> = Feature::ALL.iter().map(|f| f.name()).collect();
        let hint = scenario::suggest(&named.name, &names).map(|s| format!("; did you mean `{s}`?")).unwrap_or_default();
        let msg = format!("unknown feature flag `{}`{hint} (one of {}: `schedlab features` lists them, as the page's Kernel and features panel does)", named.name, names.len());
        ScenarioError::at(named, msg)
    })
}

/// Resolves kernel, flags, tunables and CPU count.
pub fn config(sc: &Scenario, ov: &Overrides) -> Result<Config, ScenarioError> {
    let (kname, kloc) = match &ov.kernel {
        Some(k) => (k.clone(), Named { name: k.clone(), key: "--kernel".into(), pos: scenario::Pos::START }),
        None => (sc.sim.kernel.name.clone(), sc.sim.kernel.clone()),
    };
    let preset = presets::preset(&kname).ok_or_else(|| {
        let mut e = ScenarioError::at(&kloc, unknown("kernel preset", &kname, &crate::kernel::sched::features::PRESET_NAMES));
        if ov.kernel.is_some() {
            e.pos = None;
        }
        e
    })?;

    let mut features = preset.features;
    let mut base_slice_normalized = preset.base_slice_normalized;
    let patch_list: Vec<Named> = match &ov.patches {
        Some(list) => list.iter().map(|n| Named { name: n.clone(), key: "--patch".into(), pos: scenario::Pos::START }).collect(),
        None => sc.sim.patches.clone(),
    };
    for named in &patch_list {
        let Some(p) = crate::kernel::patches::patch(&named.name) else {
            let names: Vec<&str> = crate::kernel::patches::PATCHES.iter().map(|p| p.name).collect();
            let mut e = ScenarioError::at(named, unknown("patch", &named.name, &names));
            if ov.patches.is_some() {
                e.pos = None;
            }
            return Err(e);
        };
        p.apply(&mut features);
        base_slice_normalized = p.base_slice_normalized.unwrap_or(base_slice_normalized);
    }
    for (named, on) in &sc.sim.features {
        features.set(feature(named)?, *on);
    }
    for (name, on) in &ov.features {
        let named = Named { name: name.clone(), key: "--feature".into(), pos: scenario::Pos::START };
        let mut f = feature(&named);
        if let Err(e) = &mut f {
            e.pos = None;
        }
        features.set(f?, *on);
    }

    let topology = Rc::new(topology(&sc.topology)?);
    let cpus = topology.nr_cpus();
    let hz = sc.sim.hz.map(|(h, _)| h).unwrap_or(250);
    let scaling = match sc.sim.tunable_scaling.map(|(s, _)| s) {
        Some(TunableScaling::None) => Scaling::None,
        Some(TunableScaling::Linear) => Scaling::Linear,
        _ => Scaling::Log,
    };
    let mut tunables = Tunables::new(hz, base_slice_normalized, scaling, cpus, sc.sim.base_slice.map(|(v, _)| v));
    let duration = ov.duration.unwrap_or(sc.sim.duration);
    let warmup = match sc.sim.warmup {
        Some((w, pos)) if w >= duration => {
            return Err(ScenarioError::new(
                "sim.warmup",
                Some(pos),
                format!("warmup ({}) must be shorter than the duration ({})", scenario::format_duration(w), scenario::format_duration(duration)),
            ))
        }
        Some((w, _)) => w,
        None => 0,
    };
    let c = sc.sim.costs;
    tunables.cost_context_switch = c.context_switch.unwrap_or(tunables.cost_context_switch);
    tunables.cost_thread_switch = c.thread_switch.unwrap_or(tunables.cost_thread_switch);
    tunables.cost_migration = c.migration.unwrap_or(tunables.cost_migration);
    tunables.cost_migration_llc = c.migration_llc.unwrap_or(tunables.cost_migration_llc);
    tunables.cost_scan = c.scan.unwrap_or(tunables.cost_scan);
    tunables.cost_wakeup = c.wakeup.unwrap_or(tunables.cost_wakeup);
    tunables.idle_exit = c.idle_exit;
    tunables.cost_channel_op = c.channel_op.unwrap_or(0);
    Ok(Config {
        kernel: preset.name.to_string(),
        patches: patch_list.iter().map(|n| n.name.clone()).collect(),
        features,
        tunables,
        topology,
        cpus,
        seed: ov.seed.unwrap_or(sc.sim.seed),
        duration,
        warmup,
        balance_phases: sc.sim.balance_phases.map_or(BalancePhases::Boot, |(p, _)| p),
    })
}

/// The machine of the scenario: a preset, or explicit counts (missing
/// counts are 1).
pub fn topology(t: &scenario::Topology) -> Result<Topology, ScenarioError> {
    if let Some(p) = &t.preset {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
        return Topology::preset(&p.name).ok_or_else(|| ScenarioError::at(p, unknown("topology preset", &p.name, &names)));
    }
    let get = |f: Option<(u32, scenario::Pos)>| f.map_or(1, |(v, _)| v);
    Ok(Topology::new("custom", get(t.sockets), get(t.llcs_per_socket), get(t.cores_per_llc), get(t.threads_per_core)))
}

/// Resolves channel and task names while programs compile: channels are
/// created on first use, with the capacity a `[[channel]]` gives.
/// Name lookups are hashed: a workload of 10^5 tasks names 10^5 channels
/// and wake targets.
struct Resolver<'a> {
    /// Capacity and room rule per declared channel name.
    specs: HashMap<&'a str, (u64, Room)>,
    chans: Vec<(u64, Room)>,
    chan_ids: HashMap<String, u32>,
    /// Task instance name → task id.
    tasks: HashMap<&'a str, u32>,
}

impl Names for Resolver<'_> {
    fn channel(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.chan_ids.get(name) {
            return i;
        }
        let spec = self.specs.get(name).copied().unwrap_or((scenario::DEFAULT_CHANNEL_CAPACITY, Room::Pipe { per_page: scenario::DEFAULT_CHANNEL_CAPACITY }));
        self.chans.push(spec);
        let id = self.chans.len() as u32 - 1;
        self.chan_ids.insert(name.to_string(), id);
        id
    }

    fn task(&self, name: &str) -> Option<u32> {
        self.tasks.get(name).copied()
    }
}

/// The instance names of the tasks: "name" or "name.0" .. "name.{n-1}".
fn instance_names(tasks: &[scenario::TaskSpec]) -> Vec<String> {
    let mut names = Vec::new();
    for spec in tasks {
        for k in 0..spec.count {
            names.push(if spec.count == 1 { spec.name.clone() } else { format!("{}.{k}", spec.name) });
        }
    }
    names
}

/// Builds the simulation a scenario describes.
pub fn build(sc: &Scenario, ov: &Overrides, mode: LogMode) -> Result<(Simulation, Config), ScenarioError> {
    let cfg = config(sc, ov)?;
    let (tasks, channels, measures) = crate::lab::workload::expand_all(sc, cfg.cpus)?;
    let mut sched = Sched::new(cfg.topology.clone(), cfg.features, cfg.tunables);
    seed_sched_rng(&mut sched, cfg.seed);
    if cfg.balance_phases == BalancePhases::Spread {
        spread_balance_phases(&mut sched, cfg.seed);
    }
    let group_ids = add_groups(&mut sched, &sc.groups);
    let names = instance_names(&tasks);
    let mut info = Static {
        task_names: Vec::with_capacity(names.len()),
        programs: Vec::new(),
        task_prog: Vec::new(),
        task_start: Vec::new(),
        duration: cfg.duration,
        warmup: cfg.warmup,
        seed: cfg.seed,
        workloads: Vec::new(),
    };
    // The first [[channel]] of a name gives its capacity and wake-ups.
    let mut specs = HashMap::with_capacity(channels.len());
    for c in &channels {
        specs.entry(c.name.as_str()).or_insert((c.capacity, c.room()));
    }
    let tasks_by_name = names.iter().enumerate().map(|(i, n)| (n.as_str(), i as u32)).collect();
    let mut resolver = Resolver { specs, chans: Vec::new(), chan_ids: HashMap::new(), tasks: tasks_by_name };
    // Tasks naming one `process` share its address space (mm). Maps, not
    // lists: a workload of 65 536 netperf pairs names as many processes
    // and workers, and linear lookups made the build quadratic (413 s).
    let mut processes: HashMap<&str, u32> = HashMap::new();
    let mut spec_first: Vec<u32> = Vec::with_capacity(tasks.len());
    for (i, spec) in tasks.iter().enumerate() {
        let key = if i < sc.tasks.len() { format!("task[{i}]") } else { format!("task `{}`", spec.name) };
        let prog = Program::compile(&spec.program.stmts, &mut resolver, cfg.tunables.cost_channel_op)
            .map_err(|u| ScenarioError::new(format!("{key}.program"), Some(u.pos), u.what))?;
        let affinity = Rc::new(match &spec.affinity {
            Some((list, pos)) => {
                if let Some(&bad) = list.0.iter().find(|&&c| c >= cfg.cpus) {
                    return Err(ScenarioError::new(
                        format!("{key}.affinity"),
                        Some(*pos),
                        format!("CPU {bad} does not exist (the machine has {} CPU{})", cfg.cpus, if cfg.cpus == 1 { "" } else { "s" }),
                    ));
                }
                CpuMask::from_cpus(cfg.cpus, list.0.iter().copied())
            }
            None => CpuMask::full(cfg.cpus),
        });
        let tg = match &spec.group {
            None => crate::kernel::lib::rbtree::NIL,
            Some(g) => match group_ids.get(&g.name) {
                Some(&id) => id,
                None => return Err(ScenarioError::at(g, format!("no group named `{}`", g.name))),
            },
        };
        info.programs.push(prog);
        let prog_id = info.programs.len() as u32 - 1;
        spec_first.push(sched.tasks.len() as u32);
        for _ in 0..spec.count {
            let t = sched.add_task_in(affinity.clone(), spec.nice, spec.policy, spec.slice, tg);
            let task = &mut sched.tasks[t as usize];
            task.want_preempt = spec.want_preempt;
            if let Some(p) = &spec.process {
                task.mm = *processes.entry(p.as_str()).or_insert(t);
            }
            info.task_names.push(names[t as usize].clone());
            info.task_prog.push(prog_id);
            info.task_start.push(spec.start);
        }
    }
    sched.chans = resolver.chans.iter().map(|&(cap, room)| Channel::new(cap, room)).collect();
    let spec_by_name: HashMap<&str, usize> = tasks.iter().enumerate().rev().map(|(i, t)| (t.name.as_str(), i)).collect();
    for m in measures {
        let mut workers = Vec::new();
        for w in &m.workers {
            if let Some(&i) = spec_by_name.get(w.as_str()) {
                workers.extend(spec_first[i]..spec_first[i] + tasks[i].count);
            }
        }
        info.workloads.push(crate::lab::sim::WorkloadRun { measure: m, workers });
    }
    Ok((Simulation::new(sched, info, mode), cfg))
}

/// The kernel seeds each CPU's `sched_rng()` from its entropy pool at
/// boot; a run draws those seeds from a generator of its own, started
/// apart from the workload's (which starts at `seed`), so the scheduler's
/// dice never shift the workload's draws.
fn seed_sched_rng(sched: &mut Sched, seed: u64) {
    let mut pool = crate::lab::rng::Rng::new(seed ^ 0x7363_6865_645f_726e);
    for cpu in 0..sched.rqs.len() as u32 {
        let (a, b) = (pool.next_u64(), pool.next_u64());
        sched.seed_sched_rng(cpu, [a as u32, (a >> 32) as u32, b as u32, (b >> 32) as u32]);
    }
}

/// `balance_phases = "spread"`: each CPU's domains were last balanced at
/// some jiffy of their busy interval before the run. The phases are
/// spread evenly rather than drawn one by one: CPU i of a level sits at
/// the fraction u + i/φ (mod 1) of the interval, u drawn from the seed (a
/// stream of its own, so the run's random source is the same either way).
/// Any set of CPUs, every LLC's balancing CPUs among them, then has its
/// balances due evenly over the interval, and every window of a run sees
/// the share of them a long run averages; independent draws made that
/// share itself differ from seed to seed.
fn spread_balance_phases(sched: &mut Sched, seed: u64) {
    const INV_PHI: u64 = 0x9e37_79b9_7f4a_7c15; // 2^64 / φ
    let mut rng = crate::lab::rng::Rng::new(seed ^ 0xba1a_9ce0_9a5e_5eed);
    let levels = (0..sched.topo.nr_cpus()).map(|c| sched.topo.domains[c as usize].len()).max().unwrap_or(0);
    for level in 0..levels {
        let u = rng.next_u64();
        for cpu in 0..sched.topo.nr_cpus() {
            if level >= sched.topo.domains[cpu as usize].len() {
                continue;
            }
            let frac = u.wrapping_add((cpu as u64).wrapping_mul(INV_PHI));
            let busy = sched.busy_balance_interval(cpu, level);
            sched.sd[cpu as usize][level].last_balance = -(((frac as u128 * busy as u128) >> 64) as i64);
        }
    }
}

/// Creates the scenario's groups, parents first (the parser has checked
/// that every parent exists and there is no cycle): in passes over the
/// list, each creating, in file order, every group whose parent exists.
/// Returns name → id.
fn add_groups(sched: &mut Sched, groups: &[scenario::GroupSpec]) -> HashMap<String, u32> {
    let mut ids: HashMap<String, u32> = HashMap::with_capacity(groups.len());
    while ids.len() < groups.len() {
        let before = ids.len();
        for g in groups {
            if ids.contains_key(&g.name) {
                continue;
            }
            let parent = match &g.parent {
                None => crate::kernel::lib::rbtree::NIL,
                Some(p) => match ids.get(&p.name) {
                    Some(&id) => id,
                    None => continue,
                },
            };
            let shares = match g.shares {
                Some(s) => crate::kernel::sched::weight::scale_load(s),
                None => crate::kernel::sched::group::shares_from_weight(g.weight),
            };
            let id = sched.add_group(&g.name, parent, shares, g.idle);
            ids.insert(g.name.clone(), id);
        }
        if ids.len() == before {
            break;
        }
    }
    ids
}

/// Parses and builds in one go.
pub fn from_text(text: &str, ov: &Overrides, mode: LogMode) -> Result<(Simulation, Config), ScenarioError> {
    build(&scenario::parse(text)?, ov, mode)
}
