//! Load balancing (kernel/sched/fair.c, v6.18 names): periodic balancing
//! per domain (`sched_balance_domains()` → `sched_balance_rq()`), newly idle
//! balancing, NOHZ idle balancing kicked from busy ticks, and the fork-time
//! search for the idlest CPU (`sched_balance_find_dst_cpu()`).
//!
//! Simplified, and said so where it happens: no active balancing through the
//! stopper for reasons other than repeated failure; no LBF_DST_PINNED retry
//! on another destination; no NUMA-balancing locality; capacities are all
//! 1024 (no RT/IRQ pressure). Delayed (sleeping) tasks move as the version
//! lets them (LB_NO_DELAYED).

use serde::Serialize;

use crate::kernel::sched::fair::{DEQUEUE_MIGRATING, ENQUEUE_MIGRATED};
use crate::kernel::sched::features::Feature;
use crate::kernel::lib::rbtree::NIL;
use crate::kernel::sched::core::{Sched, TaskState};
use crate::kernel::sched::topology::*;
use crate::lab::trace::Record;

/// `SCHED_NR_MIGRATE_BREAK` / `sysctl_sched_nr_migrate`.
const NR_MIGRATE: u32 = 32;
/// `MAX_PINNED_INTERVAL` (ms).
const MAX_PINNED_INTERVAL: u32 = 512;

/// The per-CPU dynamic part of a `struct sched_domain`.
#[derive(Clone, Debug)]
pub struct DomainState {
    /// ms; doubles on balanced attempts up to max_interval.
    pub balance_interval: u32,
    /// jiffies (negative: before the run began).
    pub last_balance: i64,
    pub nr_balance_failed: u32,
    /// ns.
    pub max_newidle_lb_cost: u64,
    pub last_decay_max_lb_cost: u64,
    /// NI_RANDOM's success statistics (`newidle_call`, `newidle_success`,
    /// `newidle_ratio` of struct sched_domain): newidle balances counted,
    /// their successes weighted, and the success rate out of 1024.
    pub newidle_call: u32,
    pub newidle_success: u32,
    pub newidle_ratio: u32,
}

impl DomainState {
    /// sd_init() (topology.c, v6.19 / 6.18.5): newidle statistics start at
    /// a 50 % success rate.
    pub fn new(d: &Domain) -> DomainState {
        DomainState {
            balance_interval: d.min_interval,
            last_balance: 0,
            nr_balance_failed: 0,
            max_newidle_lb_cost: 0,
            last_decay_max_lb_cost: 0,
            newidle_call: 512,
            newidle_success: 256,
            newidle_ratio: 512,
        }
    }
}

/// Balancer counters ("balance" in the run's JSON).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BalanceStats {
    pub periodic: u64,
    pub newidle: u64,
    pub nohz_kicks: u64,
    pub migrations: u64,
    pub active: u64,
    pub failed: u64,
}

/// Why this CPU balances (`enum cpu_idle_type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Idle {
    NotIdle,
    Idle,
    NewlyIdle,
}

/// `enum group_type`, in pulling priority order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GroupType {
    HasSpare,
    FullyBusy,
    SmtBalance,
    Overloaded,
}

/// `enum migration_type`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MigrationType {
    Load,
    Util,
    Task,
}

/// `struct sg_lb_stats`.
#[derive(Clone, Copy, Debug, Default)]
pub struct GroupStats {
    pub avg_load: u64,
    pub group_load: u64,
    pub group_capacity: u64,
    pub group_util: u64,
    pub group_runnable: u64,
    pub sum_nr_running: u32,
    pub sum_h_nr_running: u32,
    pub idle_cpus: u32,
    pub group_weight: u32,
    pub cores: u32,
    pub group_type: Option<GroupType>,
    pub smt_group: bool,
}

impl GroupStats {
    fn gtype(&self) -> GroupType {
        self.group_type.unwrap_or(GroupType::HasSpare)
    }
}

/// `struct lb_env`.
struct Env {
    cpu: u32,
    level: usize,
    idle: Idle,
    imbalance: i64,
    migration_type: MigrationType,
    all_pinned: bool,
}

impl Sched {
    fn msecs_to_jiffies(&self, ms: u64) -> u64 {
        (ms * self.tun.hz as u64).div_ceil(1000)
    }

    /// Mirrors `get_sd_balance_interval()` (fair.c).
    fn sd_balance_interval(&self, cpu: u32, level: usize, busy: bool) -> u64 {
        let d = &self.topo.domains[cpu as usize][level];
        let mut interval = self.sd[cpu as usize][level].balance_interval as u64;
        if busy {
            interval *= d.busy_factor as u64;
        }
        let mut j = self.msecs_to_jiffies(interval);
        if busy {
            j = j.saturating_sub(1);
        }
        let max = (self.tun.hz as u64 * self.topo.nr_cpus() as u64 / 10).max(1);
        j.clamp(1, max)
    }

    /// The jiffy a domain's next periodic balance is due `interval` after
    /// its last (`sd->last_balance + interval`); a balance before the run
    /// (`balance_phases = "spread"`) may make it due from jiffy 0.
    fn balance_due(&self, cpu: u32, level: usize, interval: u64) -> u64 {
        (self.sd[cpu as usize][level].last_balance + interval as i64).max(0) as u64
    }

    /// The interval between a busy CPU's periodic balances of a domain, in
    /// jiffies (get_sd_balance_interval(sd, 1)).
    pub fn busy_balance_interval(&self, cpu: u32, level: usize) -> u64 {
        self.sd_balance_interval(cpu, level, true)
    }

    /// Mirrors `sched_balance_trigger()` (fair.c, v6.18), at every tick of a
    /// busy CPU: periodic balancing when due, and the NOHZ kick that makes
    /// an idle CPU balance on behalf of all tickless idle CPUs.
    pub(crate) fn sched_balance_trigger(&mut self, cpu: u32) {
        if self.topo.domains[cpu as usize].is_empty() {
            return;
        }
        if self.jiffies() >= self.rqs[cpu as usize].next_balance {
            let idle = if self.available_idle_cpu(cpu) { Idle::Idle } else { Idle::NotIdle };
            self.update_blocked_averages(cpu);
            self.sched_balance_domains(cpu, idle);
        }
        self.nohz_balancer_kick(cpu);
    }

    /// Mirrors `sched_balance_domains()` (fair.c, v6.18).
    fn sched_balance_domains(&mut self, cpu: u32, mut idle: Idle) {
        let jiffies = self.jiffies();
        let mut busy = idle != Idle::Idle && !self.sched_idle_cpu(cpu);
        let mut next_balance = jiffies + 60 * self.tun.hz as u64;
        let mut update_next = false;
        let mut continue_balancing = true;
        let levels = self.topo.domains[cpu as usize].len();
        for level in 0..levels {
            let need_decay = self.update_newidle_cost(cpu, level, 0);
            if !continue_balancing {
                if need_decay {
                    continue;
                }
                break;
            }
            let mut interval = self.sd_balance_interval(cpu, level, busy);
            if jiffies >= self.balance_due(cpu, level, interval) {
                self.balance_stats.periodic += 1;
                if self.sched_balance_rq(cpu, level, idle, &mut continue_balancing) > 0 {
                    idle = if self.available_idle_cpu(cpu) { Idle::Idle } else { Idle::NotIdle };
                    busy = idle != Idle::Idle && !self.sched_idle_cpu(cpu);
                }
                self.sd[cpu as usize][level].last_balance = jiffies as i64;
                interval = self.sd_balance_interval(cpu, level, busy);
            }
            let due = self.balance_due(cpu, level, interval);
            if next_balance > due {
                next_balance = due;
                update_next = true;
            }
        }
        if update_next {
            self.rqs[cpu as usize].next_balance = next_balance;
        }
    }

    /// Mirrors `update_newidle_cost()` (fair.c, v6.6; v6.17+ with
    /// NEWIDLE_COST_BUMP): track the most a newidle balance of the domain
    /// cost, decayed by 253/256 per second; v6.17 caps it at
    /// migration_cost + 200 ns, since failures now inflate it.
    fn update_newidle_cost(&mut self, cpu: u32, level: usize, cost: u64) -> bool {
        let (jiffies, hz) = (self.jiffies(), self.tun.hz as u64);
        let cap = if self.feat.has(Feature::NEWIDLE_COST_BUMP) { self.tun.migration_cost + 200 } else { u64::MAX };
        let st = &mut self.sd[cpu as usize][level];
        if cost > st.max_newidle_lb_cost {
            st.max_newidle_lb_cost = cost.min(cap);
            st.last_decay_max_lb_cost = jiffies;
        } else if jiffies > st.last_decay_max_lb_cost + hz {
            st.max_newidle_lb_cost = st.max_newidle_lb_cost * 253 / 256;
            st.last_decay_max_lb_cost = jiffies;
            return true;
        }
        false
    }

    /// Mirrors `update_newidle_stats()` (fair.c, v6.19 33cf66d88306; 6.18.5):
    /// count one newidle balance of the domain and its `success` weight;
    /// every 1024 calls the ratio becomes the weighted successes and both
    /// counts halve, so the ratio follows the last ~1024 balances.
    fn update_newidle_stats(&mut self, cpu: u32, level: usize, success: u32) {
        let st = &mut self.sd[cpu as usize][level];
        st.newidle_call += 1;
        st.newidle_success += success;
        if st.newidle_call >= 1024 {
            st.newidle_ratio = st.newidle_success;
            st.newidle_call /= 2;
            st.newidle_success /= 2;
        }
    }

    /// NI_RANDOM's die (`sched_rng() % 1024` in sched_balance_newidle(),
    /// v6.19 / 6.18.5): the weight a balance of the domain carries if it is
    /// run, or None if the die says skip it. A domain whose balances pull
    /// with success rate r out of 1024 is balanced with probability
    /// (r + 2)/1024, and a success then counts 1024/(r + 1) times (rounded),
    /// so the ratio estimates the rate the balance would have if always run.
    fn newidle_die(&mut self, cpu: u32, level: usize) -> Option<u32> {
        if !self.feat.has(Feature::NI_RANDOM) {
            return Some(1);
        }
        let d1k = self.sched_rng[cpu as usize].next_u32() % 1024;
        let weight = 1 + self.sd[cpu as usize][level].newidle_ratio;
        if d1k > weight {
            self.update_newidle_stats(cpu, level, 0);
            return None;
        }
        Some((1024 + weight / 2) / weight)
    }

    /// Mirrors `sched_balance_newidle()` (fair.c, v6.18; `newidle_balance()`
    /// in v6.6, the same but for NEWIDLE_COST_BUMP; NI_RANDOM from v6.19 and
    /// 6.18.5): a CPU about to go idle tries to pull work, domain by domain,
    /// while its expected idle time covers the cost. Returns true if it
    /// pulled a task.
    pub(crate) fn sched_balance_newidle(&mut self, cpu: u32) -> bool {
        self.rqs[cpu as usize].idle_stamp = self.now.max(1);
        let levels = self.topo.domains[cpu as usize].len();
        if levels == 0 {
            return false;
        }
        let avg_idle = self.rqs[cpu as usize].avg_idle;
        // The domains looked at pull rq->next_balance forward to their
        // idle-interval due time (update_next_balance()), so a CPU that
        // often goes idle balances periodically at the idle interval, not
        // the busy one, while it runs again.
        let mut next_balance = self.jiffies() + self.tun.hz as u64;
        // v5.16+ (NEWIDLE_LB_COST_GATE): worth it if the expected idle time
        // covers the lowest domain's balance cost; v5.15: a fixed 0.5 ms.
        let gate = if self.feat.has(Feature::NEWIDLE_LB_COST_GATE) { self.sd[cpu as usize][0].max_newidle_lb_cost } else { self.tun.migration_cost };
        if !self.rd_overloaded() || avg_idle < gate {
            self.update_next_balance(cpu, 0, &mut next_balance);
            self.move_next_balance_forward(cpu, next_balance);
            return false;
        }
        self.update_blocked_averages(cpu);
        let mut curr_cost = 0u64;
        let mut pulled = false;
        let mut continue_balancing = true;
        for level in 0..levels {
            self.update_next_balance(cpu, level, &mut next_balance);
            if avg_idle < curr_cost + self.sd[cpu as usize][level].max_newidle_lb_cost {
                break;
            }
            if self.topo.domains[cpu as usize][level].flags & SD_BALANCE_NEWIDLE != 0 {
                let Some(weight) = self.newidle_die(cpu, level) else {
                    continue;
                };
                self.balance_stats.newidle += 1;
                pulled = self.sched_balance_rq(cpu, level, Idle::NewlyIdle, &mut continue_balancing) > 0;
                // The balance's cost: looking at every CPU of the domain.
                let mut domain_cost = self.topo.domains[cpu as usize][level].span_weight as u64 * self.tun.cost_scan;
                curr_cost += domain_cost;
                // v6.17: a balance that pulled nothing is "not effective";
                // bump the cost so that fewer follow (NEWIDLE_COST_BUMP).
                if !pulled && self.feat.has(Feature::NEWIDLE_COST_BUMP) {
                    domain_cost = 3 * self.sd[cpu as usize][level].max_newidle_lb_cost / 2;
                }
                self.update_newidle_cost(cpu, level, domain_cost);
                // update_newidle_cost(sd, cost, weight * !!pulled_task)
                // counts the balance when its cost is non-zero, as a
                // measured sched_clock() interval always is; the model's
                // cost can be 0 (costs.scan = 0), so it counts here.
                self.update_newidle_stats(cpu, level, if pulled { weight } else { 0 });
            }
            if pulled || !continue_balancing {
                break;
            }
        }
        let rq = &mut self.rqs[cpu as usize];
        rq.max_idle_balance_cost = rq.max_idle_balance_cost.max(curr_cost);
        if self.cfs_rqs[rq.cfs as usize].h_nr_queued > 0 {
            pulled = true;
        }
        self.move_next_balance_forward(cpu, next_balance);
        if pulled {
            self.rqs[cpu as usize].idle_stamp = 0;
        }
        pulled
    }

    /// Mirrors `update_next_balance()` (fair.c, v5.15–v6.18): the earliest
    /// due time of the domains a newidle balance looked at, at their idle
    /// (not busy) interval.
    fn update_next_balance(&self, cpu: u32, level: usize, next_balance: &mut u64) {
        let next = self.balance_due(cpu, level, self.sd_balance_interval(cpu, level, false));
        *next_balance = (*next_balance).min(next);
    }

    /// The end of `sched_balance_newidle()` (fair.c, v6.18; `out:` of
    /// newidle_balance() since v5.15): "Move the next balance forward".
    fn move_next_balance_forward(&mut self, cpu: u32, next_balance: u64) {
        let rq = &mut self.rqs[cpu as usize];
        rq.next_balance = rq.next_balance.min(next_balance);
    }

    /// `rd->overloaded`: some CPU has more than one task queued (kept
    /// exactly here rather than refreshed by the balancer).
    fn rd_overloaded(&self) -> bool {
        self.nr_overloaded > 0
    }

    /// Mirrors `nohz_balancer_kick()` (fair.c, v6.18): a busy CPU's tick
    /// asks an idle CPU to balance for all idle CPUs when this CPU has
    /// waiting tasks or its LLC has more than one busy CPU.
    fn nohz_balancer_kick(&mut self, cpu: u32) {
        let rq = &self.rqs[cpu as usize];
        if rq.curr == NIL || self.nr_idle_cpus == 0 || self.jiffies() < self.nohz_next_balance {
            return;
        }
        let llc = self.topo.cpus[cpu as usize].llc as usize;
        if rq.nr_running < 2 && self.llc[llc].nr_busy_cpus <= 1 {
            return;
        }
        self.balance_stats.nohz_kicks += 1;
        let jiffies = self.jiffies();
        let nr = self.topo.nr_cpus();
        let Some(ilb) = (0..nr).find(|&c| self.available_idle_cpu(c)) else { return };
        // _nohz_idle_balance(): every idle CPU whose balance is due, from
        // the one after the ILB around, then the ILB itself.
        for c in ((ilb + 1)..nr).chain(0..ilb).chain([ilb]) {
            if !self.available_idle_cpu(c) || jiffies < self.rqs[c as usize].next_balance {
                continue;
            }
            self.update_blocked_averages(c);
            self.sched_balance_domains(c, Idle::Idle);
        }
        self.nohz_next_balance = (0..nr).filter(|&c| self.available_idle_cpu(c)).map(|c| self.rqs[c as usize].next_balance).min().unwrap_or(u64::MAX);
    }

    /// Mirrors `should_we_balance()` (fair.c, v6.18): one CPU per group
    /// balances — a newly idle CPU if it is empty; otherwise the first idle
    /// CPU of the local group (an idle core's first, above the SMT level,
    /// with SWB_IDLE_CORE), or the group's first CPU.
    fn should_we_balance(&self, cpu: u32, level: usize, idle: Idle) -> bool {
        if idle == Idle::NewlyIdle {
            return self.rqs[cpu as usize].nr_running == 0;
        }
        let d = &self.topo.domains[cpu as usize][level];
        let group = &self.topo.spans[d.groups[0] as usize];
        let smt_level = d.flags & SD_SHARE_CPUCAPACITY != 0;
        let mut idle_smt = None;
        for c in group.iter() {
            if !self.available_idle_cpu(c) {
                continue;
            }
            if !smt_level && self.topo.threads_per_core > 1 && self.feat.has(Feature::SWB_IDLE_CORE) {
                let core = &self.topo.spans[self.topo.smt_span[c as usize] as usize];
                if !core.iter().all(|s| self.available_idle_cpu(s)) {
                    idle_smt = idle_smt.or(Some(c));
                    continue;
                }
            }
            return c == cpu;
        }
        if let Some(c) = idle_smt {
            return c == cpu;
        }
        group.first() == cpu
    }

    /// One CPU's share of a group's statistics, the loop body that
    /// `update_sg_lb_stats()` and `update_sg_wakeup_stats()` (fair.c, v6.18)
    /// have in common: load, utilisation, runnable, task counts, idleness.
    /// An idle CPU's blocked averages are brought up to date first.
    fn add_cpu_stats(&mut self, s: &mut GroupStats, i: u32) {
        if self.rqs[i as usize].curr == NIL {
            self.update_blocked_averages(i);
        }
        let rq = &self.rqs[i as usize];
        s.group_load += self.cpu_load(i);
        s.group_util += self.cpu_util_cfs(i);
        s.group_runnable += self.cpu_runnable(i);
        s.sum_h_nr_running += self.lb_nr_running(i);
        s.sum_nr_running += rq.nr_running;
        if rq.nr_running == 0 && self.available_idle_cpu(i) {
            s.idle_cpus += 1;
        }
    }

    /// The fair tasks the balancer counts on a CPU: `rq->cfs.h_nr_runnable`
    /// (LB_H_NR_RUNNABLE, v6.14+), or `h_nr_running` with delayed tasks
    /// (v5.15–v6.13).
    fn lb_nr_running(&self, cpu: u32) -> u32 {
        let cfs = &self.cfs_rqs[self.rqs[cpu as usize].cfs as usize];
        if self.feat.has(Feature::LB_H_NR_RUNNABLE) {
            cfs.h_nr_runnable
        } else {
            cfs.h_nr_queued
        }
    }

    /// Mirrors `update_sg_lb_stats()` (fair.c, v6.18) for one group.
    fn update_sg_lb_stats(&mut self, env: &Env, group: u32, local_group: bool, sg_overloaded: &mut bool) -> GroupStats {
        let topo = self.topo.clone();
        let span = &topo.spans[group as usize];
        let mut s = GroupStats::default();
        for i in span.iter() {
            self.add_cpu_stats(&mut s, i);
            if self.rqs[i as usize].nr_running > 1 {
                *sg_overloaded = true;
            }
        }
        s.group_capacity = SCHED_CAPACITY_SCALE * span.weight() as u64;
        s.group_weight = span.weight();
        s.cores = topo.span_cores[group as usize];
        // The group's flags are its child domain's: at MC level on an SMT
        // machine every group is a core.
        s.smt_group = s.cores == 1 && s.group_weight > 1;
        let pct = self.topo.domains[env.cpu as usize][env.level].imbalance_pct;
        // smt_balance() (v6.6+, LB_SMT_BALANCE): a loaded SMT core other
        // than the local one, seen by a (newly) idle CPU.
        let smt_balance = !local_group && self.feat.has(Feature::LB_SMT_BALANCE) && env.idle != Idle::NotIdle && s.smt_group && s.sum_h_nr_running > 1;
        s.group_type = Some(group_classify(pct, &s, smt_balance));
        if matches!(s.gtype(), GroupType::Overloaded) {
            s.avg_load = s.group_load * SCHED_CAPACITY_SCALE / s.group_capacity;
        }
        s
    }

    /// Mirrors `sched_balance_find_src_group()` (find_busiest_group,
    /// fair.c, v6.18) with `update_sd_lb_stats()`, `update_sd_pick_busiest()`
    /// and `calculate_imbalance()`. Also refreshes SIS_UTIL's scan budget
    /// when balancing the LLC domain (`update_idle_cpu_scan()`).
    fn find_busiest_group(&mut self, env: &mut Env) -> Option<u32> {
        let topo = self.topo.clone();
        let d = &topo.domains[env.cpu as usize][env.level];
        let mut local = GroupStats::default();
        let mut busiest: Option<(u32, GroupStats)> = None;
        let (mut total_load, mut total_capacity, mut sum_util) = (0u64, 0u64, 0u64);
        let mut sg_overloaded = false;
        for (gi, &g) in d.groups.iter().enumerate() {
            let sgs = self.update_sg_lb_stats(env, g, gi == 0, &mut sg_overloaded);
            total_load += sgs.group_load;
            total_capacity += sgs.group_capacity;
            sum_util += sgs.group_util;
            if gi == 0 {
                local = sgs;
                continue;
            }
            if update_sd_pick_busiest(&sgs, busiest.as_ref().map(|b| &b.1)) {
                busiest = Some((g, sgs));
            }
        }
        if d.span_weight == self.topo.llc_size(env.cpu) && env.idle != Idle::NewlyIdle {
            self.update_idle_cpu_scan(env.cpu, d, sum_util);
        }
        let (bg, busiest) = busiest?;
        // prefer_sibling: the child domain spreads tasks evenly.
        let prefer_sibling = env.level > 0 && self.topo.domains[env.cpu as usize][env.level - 1].flags & SD_PREFER_SIBLING != 0;
        let (lt, bt) = (local.gtype(), busiest.gtype());
        if lt > bt {
            return None;
        }
        if lt == GroupType::Overloaded {
            if local.avg_load >= busiest.avg_load {
                return None;
            }
            let avg = total_load * SCHED_CAPACITY_SCALE / total_capacity;
            if local.avg_load >= avg || 100 * busiest.avg_load <= d.imbalance_pct as u64 * local.avg_load {
                return None;
            }
        }
        let sibling = prefer_sibling && lt == GroupType::HasSpare && self.prefer_sibling_imbalance(env.idle, &busiest, &local) > 1;
        if !sibling && bt != GroupType::Overloaded {
            if env.idle == Idle::NotIdle {
                return None;
            }
            // smt_vs_nonsmt_groups(): let a non-SMT CPU pull from an SMT
            // core whose siblings share it.
            let smt_vs_nonsmt = bt == GroupType::SmtBalance && local.smt_group != busiest.smt_group;
            if !smt_vs_nonsmt {
                if busiest.group_weight > 1 && local.idle_cpus <= busiest.idle_cpus + 1 {
                    return None;
                }
                if busiest.sum_h_nr_running == 1 {
                    return None;
                }
            }
        }
        self.calculate_imbalance(env, d, &mut local, &busiest, total_load, total_capacity, prefer_sibling);
        (env.imbalance > 0).then_some(bg)
    }

    /// Mirrors `calculate_imbalance()` (fair.c, v6.18).
    #[allow(clippy::too_many_arguments)]
    fn calculate_imbalance(&self, env: &mut Env, d: &Domain, local: &mut GroupStats, busiest: &GroupStats, total_load: u64, total_capacity: u64, prefer_sibling: bool) {
        let (lt, bt) = (local.gtype(), busiest.gtype());
        if bt == GroupType::SmtBalance {
            env.migration_type = MigrationType::Task;
            env.imbalance = 1;
            return;
        }
        if lt == GroupType::HasSpare {
            if bt > GroupType::FullyBusy && d.flags & SD_SHARE_LLC == 0 {
                env.migration_type = MigrationType::Util;
                env.imbalance = local.group_capacity.max(local.group_util) as i64 - local.group_util as i64;
                if env.idle != Idle::NotIdle && env.imbalance == 0 {
                    env.migration_type = MigrationType::Task;
                    env.imbalance = 1;
                }
                return;
            }
            env.migration_type = MigrationType::Task;
            if busiest.group_weight == 1 || prefer_sibling {
                env.imbalance = self.prefer_sibling_imbalance(env.idle, busiest, local);
            } else {
                env.imbalance = (local.idle_cpus as i64 - busiest.idle_cpus as i64).max(0);
            }
            if d.flags & SD_NUMA != 0 {
                env.imbalance = adjust_numa_imbalance(env.imbalance, local.sum_nr_running as i64 + 1, imb_numa_nr(&self.topo, env.cpu, env.level));
            }
            env.imbalance >>= 1;
            return;
        }
        let avg = total_load * SCHED_CAPACITY_SCALE / total_capacity.max(1);
        if lt < GroupType::Overloaded {
            local.avg_load = local.group_load * SCHED_CAPACITY_SCALE / local.group_capacity;
            if local.avg_load >= busiest.avg_load || local.avg_load >= avg {
                env.imbalance = 0;
                return;
            }
        }
        env.migration_type = MigrationType::Load;
        let a = busiest.avg_load.saturating_sub(avg) * busiest.group_capacity;
        let b = avg.saturating_sub(local.avg_load) * local.group_capacity;
        env.imbalance = (a.min(b) / SCHED_CAPACITY_SCALE) as i64;
    }

    /// The task imbalance that prefer_sibling spreads: `sibling_imbalance()`
    /// (v6.6+, LB_SIBLING_IMBALANCE), or, in find_busiest_group() and
    /// calculate_imbalance() of v5.15–v6.5, the plain difference of the two
    /// groups' task counts, whether or not this CPU is idle.
    fn prefer_sibling_imbalance(&self, idle: Idle, busiest: &GroupStats, local: &GroupStats) -> i64 {
        if self.feat.has(Feature::LB_SIBLING_IMBALANCE) {
            sibling_imbalance(idle, busiest, local)
        } else {
            (busiest.sum_nr_running as i64 - local.sum_nr_running as i64).max(0)
        }
    }

    /// Mirrors `update_idle_cpu_scan()` (fair.c, v6.18), SIS_UTIL: the scan
    /// budget for the next wakeups in this LLC, from its utilisation:
    /// x = Σutil/llc; t = min(x²·pct²/(10000·1024), 1024);
    /// nr_idle_scan = (1024 − t)·llc/1024.
    fn update_idle_cpu_scan(&mut self, cpu: u32, d: &Domain, sum_util: u64) {
        if !self.feat.has(Feature::SIS_UTIL) {
            return;
        }
        let nr = sis_util_scan(d.span_weight as u64, d.imbalance_pct as u64, sum_util);
        let llc = self.topo.cpus[cpu as usize].llc as usize;
        self.llc[llc].nr_idle_scan = nr as u32;
    }

    /// Mirrors `sched_balance_find_src_rq()` (find_busiest_queue, v6.18).
    fn find_busiest_queue(&self, env: &Env, group: u32) -> Option<u32> {
        let mut busiest = None;
        let (mut busiest_load, mut busiest_util, mut busiest_nr) = (0u64, 0u64, 0u32);
        for i in self.topo.spans[group as usize].iter() {
            let nr = self.lb_nr_running(i);
            if nr == 0 {
                continue;
            }
            match env.migration_type {
                MigrationType::Load => {
                    let load = self.cpu_load(i);
                    if nr == 1 && load as i64 > env.imbalance {
                        continue;
                    }
                    if load > busiest_load || busiest.is_none() {
                        busiest_load = load;
                        busiest = Some(i);
                    }
                }
                MigrationType::Util => {
                    let util = self.cpu_util_cfs(i);
                    if nr <= 1 {
                        continue;
                    }
                    if busiest_util < util || busiest.is_none() {
                        busiest_util = util;
                        busiest = Some(i);
                    }
                }
                MigrationType::Task => {
                    if busiest_nr < nr {
                        busiest_nr = nr;
                        busiest = Some(i);
                    }
                }
            }
        }
        busiest
    }

    /// Mirrors `sched_balance_rq()` (load_balance, fair.c, v6.18). Returns
    /// the number of tasks moved.
    fn sched_balance_rq(&mut self, cpu: u32, level: usize, idle: Idle, continue_balancing: &mut bool) -> u32 {
        let mut env = Env { cpu, level, idle, imbalance: 0, migration_type: MigrationType::Task, all_pinned: true };
        if !self.should_we_balance(cpu, level, idle) {
            *continue_balancing = false;
            return self.balanced(cpu, level, idle, false);
        }
        let Some(group) = self.find_busiest_group(&mut env) else {
            return self.balanced(cpu, level, idle, false);
        };
        let Some(busiest) = self.find_busiest_queue(&env, group) else {
            return self.balanced(cpu, level, idle, false);
        };
        let mut moved = 0;
        env.all_pinned = true;
        if self.rqs[busiest as usize].nr_running > 1 {
            moved = self.detach_attach(&mut env, busiest);
            if env.all_pinned {
                return self.balanced(cpu, level, idle, true);
            }
        }
        let st = &mut self.sd[cpu as usize][level];
        if moved == 0 {
            self.balance_stats.failed += 1;
            if idle != Idle::NewlyIdle {
                st.nr_balance_failed += 1;
            }
            let tries = self.topo.domains[cpu as usize][level].cache_nice_tries;
            // need_active_balance(): imbalanced_active_balance(). The count
            // stays: until the stopper has pushed a task (which clears it),
            // every failed balance kicks it again. What the stopper moves
            // is not this balance's: sched_balance_rq() returns 0.
            if env.migration_type == MigrationType::Task && self.sd[cpu as usize][level].nr_balance_failed > tries + 2 {
                self.active_balance(busiest, cpu);
            }
        } else {
            st.nr_balance_failed = 0;
        }
        let st = &mut self.sd[cpu as usize][level];
        st.balance_interval = self.topo.domains[cpu as usize][level].min_interval;
        moved
    }

    /// The out_balanced / out_all_pinned tail of `sched_balance_rq()`: no
    /// imbalance found, so back off (double the interval) except for
    /// newidle balancing.
    fn balanced(&mut self, cpu: u32, level: usize, idle: Idle, all_pinned: bool) -> u32 {
        let d = &self.topo.domains[cpu as usize][level];
        let st = &mut self.sd[cpu as usize][level];
        st.nr_balance_failed = 0;
        if idle == Idle::NewlyIdle {
            return 0;
        }
        if (all_pinned && st.balance_interval < MAX_PINNED_INTERVAL) || st.balance_interval < d.max_interval {
            st.balance_interval *= 2;
        }
        0
    }

    /// Mirrors `detach_tasks()` + `attach_tasks()` (fair.c, v6.18): walk the
    /// source's tasks from least recently run, moving those that may and
    /// should move until the imbalance is gone.
    fn detach_attach(&mut self, env: &mut Env, src: u32) -> u32 {
        let loop_max = NR_MIGRATE.min(self.rqs[src as usize].nr_running);
        let mut moved = 0;
        let mut candidates = [NIL; NR_MIGRATE as usize];
        let mut n = 0;
        let mut t = self.rqs[src as usize].cfs_tasks_tail;
        while t != NIL && n < loop_max as usize {
            candidates[n] = t;
            n += 1;
            t = self.tasks[t as usize].lru_prev;
        }
        for &p in &candidates[..n] {
            if env.idle != Idle::NotIdle && self.rqs[src as usize].nr_running <= 1 {
                break;
            }
            if !self.can_migrate_task(env, src, p) {
                continue;
            }
            let failed = self.sd[env.cpu as usize][env.level].nr_balance_failed;
            match env.migration_type {
                MigrationType::Load => {
                    let load = self.task_h_load(p).max(1);
                    if (load >> failed.min(63)) as i64 > env.imbalance {
                        continue;
                    }
                    env.imbalance -= load as i64;
                }
                MigrationType::Util => {
                    let util = self.ents[self.tasks[p as usize].se as usize].avg.util_avg.max(self.ents[self.tasks[p as usize].se as usize].avg.task_util_est() as u64);
                    // v6.8+ (LB_UTIL_FAILED_SHIFT): failed balances let a
                    // larger task go, as for load; before, it must fit.
                    let shift = if self.feat.has(Feature::LB_UTIL_FAILED_SHIFT) { failed.min(63) } else { 0 };
                    if (util >> shift) as i64 > env.imbalance {
                        continue;
                    }
                    env.imbalance -= util as i64;
                }
                MigrationType::Task => env.imbalance -= 1,
            }
            self.move_queued_task(p, src, env.cpu);
            moved += 1;
            if env.idle == Idle::NewlyIdle || env.imbalance <= 0 {
                break;
            }
        }
        moved
    }

    /// Mirrors `can_migrate_task()` (fair.c, v6.18; the delayed and
    /// eligibility tests by flag).
    fn can_migrate_task(&mut self, env: &mut Env, src: u32, p: u32) -> bool {
        let se = self.tasks[p as usize].se;
        // v6.14+ (LB_NO_DELAYED): a delayed (sleeping) task moves only when
        // the balancer migrates load. v6.12/v6.13 move it like any queued
        // task; it completes its dequeue on the destination.
        if self.feat.has(Feature::LB_NO_DELAYED) && self.ents[se as usize].sched_delayed && env.migration_type != MigrationType::Load {
            return false;
        }
        let failed = self.sd[env.cpu as usize][env.level].nr_balance_failed;
        if failed == 0 && self.task_is_ineligible_on_dst_cpu(p, env.cpu) {
            return false;
        }
        if !self.cpu_allowed(p, env.cpu) {
            return false;
        }
        env.all_pinned = false;
        if self.rqs[src as usize].curr == p {
            return false;
        }
        let hot = self.task_hot(env, src, p);
        !hot || failed > self.topo.domains[env.cpu as usize][env.level].cache_nice_tries
    }

    /// Mirrors `task_is_ineligible_on_dst_cpu()` (fair.c, v6.14+,
    /// LB_PREFER_ELIGIBLE): with PLACE_LAG, a task that is not eligible on
    /// its own queue would carry its negative lag along, so it is left
    /// alone while its group's queue on the destination
    /// (`task_group(p)->cfs_rq[dest_cpu]`, the root queue for a task of the
    /// root group) has entities queued.
    fn task_is_ineligible_on_dst_cpu(&self, p: u32, dst: u32) -> bool {
        if !self.feat.has(Feature::LB_PREFER_ELIGIBLE) || !self.feat.has(Feature::PLACE_LAG) {
            return false;
        }
        let (dst_q, _, _) = self.group_queue(self.tasks[p as usize].tg, dst);
        let se = self.tasks[p as usize].se;
        self.cfs_rqs[dst_q as usize].nr_queued > 0 && !self.entity_eligible(self.ents[se as usize].cfs_rq, se)
    }

    /// Mirrors `task_hot()` (fair.c, v6.18; v5.15/v6.5 for the last
    /// buddy): a task that ran within the last migration_cost (0.5 ms) is
    /// cache-hot — except SCHED_IDLE tasks and moves between SMT siblings;
    /// the buddies are hot too.
    fn task_hot(&self, env: &Env, src: u32, p: u32) -> bool {
        let t = &self.tasks[p as usize];
        if t.policy == crate::kernel::sched::core::Policy::Idle {
            return false;
        }
        if self.topo.domains[env.cpu as usize][env.level].flags & SD_SHARE_CPUCAPACITY != 0 {
            return false;
        }
        let se = t.se;
        let q = self.ents[se as usize].cfs_rq;
        // Buddy candidates are cache hot: the next buddy, and under CFS
        // (v5.15–v6.5) the last buddy too.
        let cfs = &self.cfs_rqs[q as usize];
        if self.feat.has(Feature::CACHE_HOT_BUDDY) && self.rqs[env.cpu as usize].nr_running > 0 && (cfs.next == se || cfs.last == se) {
            return true;
        }
        let _ = src;
        let delta = self.now as i64 - self.ents[se as usize].exec_start as i64;
        delta < self.tun.migration_cost as i64
    }

    /// `detach_task()` + `attach_task()`: move a queued, not running task.
    fn move_queued_task(&mut self, p: u32, src: u32, dst: u32) {
        self.dequeue_task_fair(src, p, DEQUEUE_MIGRATING);
        self.set_task_cpu(p, dst, true);
        self.enqueue_task_fair(dst, p, ENQUEUE_MIGRATED);
        let delayed = self.ents[self.tasks[p as usize].se as usize].sched_delayed;
        let t = &mut self.tasks[p as usize];
        // A delayed task is still asleep; it only moved queue.
        if !delayed {
            t.state = TaskState::Runnable;
        }
        self.balance_stats.migrations += 1;
        self.trace(Record::Migrate { task: p, from: src, to: dst });
        // attach_task(): the arrival may preempt.
        self.wakeup_preempt_pub(dst, p);
    }

    /// The kick of active balancing in `sched_balance_rq()` (fair.c,
    /// v5.15–v6.18): the stopper is queued on the busiest CPU unless its
    /// running task may not run on `dst` or a push is already pending. It
    /// runs at once (the stop class preempts every other), which the model
    /// has as a reschedule; `active_load_balance_cpu_stop()` does the rest
    /// from `__schedule()`. A busiest CPU with one fair task qualifies: the
    /// stopper is a task of that CPU too, so its `nr_running <= 1` test
    /// passes, and spreading single running tasks over idle CPUs is what
    /// imbalanced_active_balance() is for.
    fn active_balance(&mut self, busiest: u32, dst: u32) {
        let rq = &self.rqs[busiest as usize];
        let p = rq.curr;
        if p == NIL || rq.push_cpu != NIL || !self.cpu_allowed(p, dst) {
            return;
        }
        self.balance_stats.active += 1;
        self.rqs[busiest as usize].push_cpu = dst;
        self.resched_curr(busiest, crate::lab::trace::Cause::ActiveBalance);
    }

    /// Mirrors `active_load_balance_cpu_stop()` (fair.c, v5.15–v6.18), run
    /// on `cpu` before its next pick: detach_one_task() pushes the least
    /// recently run fair task that may run on the push CPU — the one the
    /// stopper preempted, if it is the only one; cache-hot or not
    /// (LBF_ACTIVE_LB) — and a push clears the failure count of the push
    /// CPU's lowest domain spanning `cpu`.
    pub(crate) fn active_load_balance_cpu_stop(&mut self, cpu: u32) {
        let dst = std::mem::replace(&mut self.rqs[cpu as usize].push_cpu, NIL);
        let topo = self.topo.clone();
        let Some(level) = topo.domains[dst as usize].iter().position(|d| topo.spans[d.span as usize].test(cpu)) else {
            return;
        };
        let failed = self.sd[dst as usize][level].nr_balance_failed;
        let mut p = self.rqs[cpu as usize].cfs_tasks_tail;
        while p != NIL && (!self.cpu_allowed(p, dst) || (failed == 0 && self.task_is_ineligible_on_dst_cpu(p, dst))) {
            p = self.tasks[p as usize].lru_prev;
        }
        if p == NIL {
            return;
        }
        self.move_queued_task(p, cpu, dst);
        self.sd[dst as usize][level].nr_balance_failed = 0;
    }

    /// Mirrors `sched_balance_find_dst_cpu()` (find_idlest_cpu, v6.18): the
    /// fork-time slow path, from the highest domain with the flag down:
    /// the idlest group, then its idlest CPU.
    pub(crate) fn find_idlest_cpu(&mut self, cpu: u32, level: usize, p: u32, this_cpu: u32, prev_cpu: u32, sd_flag: u32) -> u32 {
        let _ = this_cpu;
        let topo = self.topo.clone();
        if !topo.spans[topo.domains[cpu as usize][level].span as usize].intersects(&self.tasks[p as usize].affinity) {
            return prev_cpu;
        }
        let mut cpu = cpu;
        let mut new_cpu = cpu;
        let mut level = Some(level);
        while let Some(l) = level {
            let d = &topo.domains[cpu as usize][l];
            if d.flags & sd_flag == 0 {
                level = l.checked_sub(1);
                continue;
            }
            let Some(group) = self.find_idlest_group(cpu, l, p) else {
                level = l.checked_sub(1);
                continue;
            };
            new_cpu = self.find_idlest_group_cpu(group, p, cpu);
            if new_cpu == cpu {
                level = l.checked_sub(1);
                continue;
            }
            cpu = new_cpu;
            let weight = d.span_weight;
            level = None;
            for (i, td) in topo.domains[cpu as usize].iter().enumerate() {
                if weight <= td.span_weight {
                    break;
                }
                if td.flags & sd_flag != 0 {
                    level = Some(i);
                }
            }
        }
        new_cpu
    }

    /// Mirrors `update_sg_wakeup_stats()` (fair.c, v6.18) for a task not yet
    /// on any queue (fork).
    fn wakeup_stats(&mut self, cpu: u32, level: usize, group: u32, p: u32) -> GroupStats {
        let topo = self.topo.clone();
        let span = &topo.spans[group as usize];
        let affinity = self.tasks[p as usize].affinity.clone();
        let mut s = GroupStats::default();
        for i in span.iter().filter(|&i| affinity.test(i)) {
            self.add_cpu_stats(&mut s, i);
        }
        s.group_capacity = SCHED_CAPACITY_SCALE * span.weight() as u64;
        s.group_weight = span.weight();
        let pct = self.topo.domains[cpu as usize][level].imbalance_pct;
        s.group_type = Some(group_classify(pct, &s, false));
        if matches!(s.gtype(), GroupType::FullyBusy | GroupType::Overloaded) {
            s.avg_load = s.group_load * SCHED_CAPACITY_SCALE / s.group_capacity;
        }
        s
    }

    /// Mirrors `sched_balance_find_dst_group()` (find_idlest_group, v6.18).
    fn find_idlest_group(&mut self, cpu: u32, level: usize, p: u32) -> Option<u32> {
        let topo = self.topo.clone();
        let d = &topo.domains[cpu as usize][level];
        let mut local: Option<GroupStats> = None;
        let mut idlest: Option<(u32, GroupStats)> = None;
        for (gi, &g) in d.groups.iter().enumerate() {
            if !self.topo.spans[g as usize].intersects(&self.tasks[p as usize].affinity) {
                continue;
            }
            let sgs = self.wakeup_stats(cpu, level, g, p);
            if gi == 0 {
                local = Some(sgs);
                continue;
            }
            if update_pick_idlest(idlest.as_ref().map(|i| &i.1), &sgs) {
                idlest = Some((g, sgs));
            }
        }
        let (ig, idlest) = idlest?;
        let Some(local) = local else { return Some(ig) };
        let (lt, it) = (local.gtype(), idlest.gtype());
        if lt < it {
            return None;
        }
        if lt > it {
            return Some(ig);
        }
        match lt {
            GroupType::Overloaded | GroupType::FullyBusy => {
                let imbalance = 1024 * (d.imbalance_pct as u64 - 100) / 100;
                if d.flags & SD_NUMA != 0 && idlest.avg_load + imbalance >= local.avg_load {
                    return None;
                }
                if idlest.avg_load >= local.avg_load + imbalance {
                    return None;
                }
                if 100 * local.avg_load <= d.imbalance_pct as u64 * idlest.avg_load {
                    return None;
                }
            }
            GroupType::SmtBalance => return None,
            GroupType::HasSpare => {
                if d.flags & SD_NUMA != 0 {
                    let allowed = self.topo.spans[d.groups[0] as usize].iter().filter(|&c| self.cpu_allowed(p, c)).count() as i64;
                    let imb_numa = allowed.min(imb_numa_nr(&self.topo, cpu, level));
                    let imbalance = (local.idle_cpus as i64 - idlest.idle_cpus as i64).abs();
                    if adjust_numa_imbalance(imbalance, local.sum_nr_running as i64 + 1, imb_numa) == 0 {
                        return None;
                    }
                }
                if local.idle_cpus >= idlest.idle_cpus {
                    return None;
                }
            }
        }
        Some(ig)
    }

    /// Mirrors `sched_balance_find_dst_group_cpu()` (v6.18): a SCHED_IDLE
    /// CPU, else the most recently idled CPU (no cpuidle exit latencies are
    /// modelled), else the least loaded.
    fn find_idlest_group_cpu(&self, group: u32, p: u32, this_cpu: u32) -> u32 {
        let span = &self.topo.spans[group as usize];
        if span.weight() == 1 {
            return span.first();
        }
        let (mut min_load, mut least_loaded) = (u64::MAX, this_cpu);
        let (mut latest_idle, mut shallowest) = (0u64, None);
        for i in span.iter().filter(|&i| self.cpu_allowed(p, i)) {
            if self.sched_idle_cpu(i) {
                return i;
            }
            if self.available_idle_cpu(i) {
                if self.rqs[i as usize].idle_stamp > latest_idle {
                    latest_idle = self.rqs[i as usize].idle_stamp;
                    shallowest = Some(i);
                }
            } else if shallowest.is_none() {
                let load = self.cpu_load(i);
                if load < min_load {
                    min_load = load;
                    least_loaded = i;
                }
            }
        }
        shallowest.unwrap_or(least_loaded)
    }
}

/// SIS_UTIL's `nr_idle_scan` (update_idle_cpu_scan(), v6.18), in the
/// kernel's integer arithmetic.
pub fn sis_util_scan(llc_weight: u64, pct: u64, sum_util: u64) -> u64 {
    let x = sum_util / llc_weight;
    let tmp = x * x * pct * pct / (10000 * SCHED_CAPACITY_SCALE);
    let tmp = tmp.min(SCHED_CAPACITY_SCALE);
    let y = SCHED_CAPACITY_SCALE - tmp;
    y * llc_weight / SCHED_CAPACITY_SCALE
}

/// Mirrors `group_classify()` (v6.18) for the types a symmetric machine
/// produces (no misfit, asym packing or imbalanced-by-affinity groups).
fn group_classify(pct: u32, s: &GroupStats, smt_balance: bool) -> GroupType {
    let pct = pct as u64;
    let overloaded = s.sum_nr_running > s.group_weight
        && (s.group_capacity * 100 < s.group_util * pct || s.group_capacity * pct < s.group_runnable * 100);
    if overloaded {
        return GroupType::Overloaded;
    }
    if smt_balance {
        return GroupType::SmtBalance;
    }
    let has_capacity = s.sum_nr_running < s.group_weight
        || (s.group_capacity * pct >= s.group_runnable * 100 && s.group_capacity * 100 > s.group_util * pct);
    if !has_capacity {
        return GroupType::FullyBusy;
    }
    GroupType::HasSpare
}

/// Mirrors `update_sd_pick_busiest()` (v6.18).
fn update_sd_pick_busiest(sgs: &GroupStats, busiest: Option<&GroupStats>) -> bool {
    if sgs.sum_h_nr_running == 0 {
        return false;
    }
    let Some(b) = busiest else { return true };
    let (st, bt) = (sgs.gtype(), b.gtype());
    if st != bt {
        return st > bt;
    }
    match st {
        GroupType::Overloaded => sgs.avg_load > b.avg_load,
        // avg_load is only computed for overloaded groups, so two fully busy
        // groups tie and the later one wins — unless the busiest so far is an
        // SMT core, which needs the help more.
        GroupType::FullyBusy => sgs.avg_load > b.avg_load || (sgs.avg_load == b.avg_load && !b.smt_group),
        GroupType::SmtBalance | GroupType::HasSpare => {
            if st == GroupType::SmtBalance && sgs.idle_cpus == 0 && b.idle_cpus == 0 {
                return sgs.avg_load > b.avg_load;
            }
            !(sgs.idle_cpus > b.idle_cpus || (sgs.idle_cpus == b.idle_cpus && sgs.sum_nr_running <= b.sum_nr_running))
        }
    }
}

/// Mirrors `update_pick_idlest()` (v6.18).
fn update_pick_idlest(idlest: Option<&GroupStats>, sgs: &GroupStats) -> bool {
    let Some(i) = idlest else { return true };
    let (st, it) = (sgs.gtype(), i.gtype());
    if st != it {
        return st < it;
    }
    match st {
        GroupType::Overloaded | GroupType::FullyBusy => i.avg_load > sgs.avg_load,
        GroupType::SmtBalance => false,
        GroupType::HasSpare => !(i.idle_cpus > sgs.idle_cpus || (i.idle_cpus == sgs.idle_cpus && i.group_util <= sgs.group_util)),
    }
}

/// Mirrors `sibling_imbalance()` (v6.18).
fn sibling_imbalance(idle: Idle, busiest: &GroupStats, local: &GroupStats) -> i64 {
    if idle == Idle::NotIdle || busiest.sum_nr_running == 0 {
        return 0;
    }
    let (nb, nl) = (busiest.cores as i64, local.cores as i64);
    if nb == nl {
        return (busiest.sum_nr_running as i64 - local.sum_nr_running as i64).max(0);
    }
    let mut imb = (nl * busiest.sum_nr_running as i64 - nb * local.sum_nr_running as i64).max(0);
    imb = (2 * imb + nl + nb) / (nl + nb);
    if imb <= 1 && local.sum_nr_running == 0 && busiest.sum_nr_running > 1 {
        imb = 2;
    }
    imb
}

/// Mirrors `adjust_numa_imbalance()` (v6.18): allow a small imbalance
/// between nodes while the destination is lightly loaded.
fn adjust_numa_imbalance(imbalance: i64, dst_running: i64, imb_numa_nr: i64) -> i64 {
    if dst_running > imb_numa_nr {
        return imbalance;
    }
    if imbalance <= 2 {
        return 0;
    }
    imbalance
}

/// `sd->imb_numa_nr` as `build_sched_domains()` computes it: for the first
/// level above the LLC, 1/8 of its span with one LLC per node, else the
/// number of LLCs; scaled up for higher levels.
fn imb_numa_nr(topo: &Topology, cpu: u32, level: usize) -> i64 {
    let doms = &topo.domains[cpu as usize];
    let mut imb = 0i64;
    let mut imb_span = 1i64;
    for (i, d) in doms.iter().enumerate().take(level + 1) {
        let child_llc = i > 0 && doms[i - 1].flags & SD_SHARE_LLC != 0;
        let value = if d.flags & SD_SHARE_LLC == 0 && child_llc {
            let nr_llcs = d.span_weight / doms[i - 1].span_weight;
            imb = if nr_llcs == 1 { (d.span_weight >> 3) as i64 } else { nr_llcs as i64 }.max(1);
            imb_span = doms.iter().skip(i + 1).find(|p| p.flags & SD_NUMA != 0).map_or(d.span_weight, |p| p.span_weight) as i64;
            imb
        } else {
            imb * (d.span_weight as i64 / imb_span).max(1)
        };
        if i == level {
            return value;
        }
    }
    imb
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SIS_UTIL's scan budget for a 112-CPU LLC (imbalance_pct 117) at
    /// 0/5/15/…/85 % utilisation, Σutil = pct·1024·112/100.
    ///
    /// The kernel's integer arithmetic, by hand for 25 %: x = Σutil/112 =
    /// 256; t = 256²·117²/(10000·1024) = 897 122 304/10 240 000 = 87;
    /// nr = (1024 − 87)·112/1024 = 102. For 85 %: Σutil = 97 484, x = 870,
    /// t = 870²·117²/10 240 000 = 1011, nr = 13·112/1024 = 1.
    ///
    /// The patch's own table (112/112/108/103/92/80/64/47/24/0, in the
    /// commit message of 70fb5ccf2ebb) was computed with the v3 formula,
    /// scan% = 100 − util%²/72, which the merged 1024-scaled arithmetic
    /// approximates: the two agree to within one CPU at every point. Both are
    /// checked: the kernel's values exactly, the table to ±1, and the v3
    /// formula reproduces the table exactly.
    #[test]
    fn sis_util_matches_kernel_and_patch_table() {
        let table = [(0u64, 112u64), (5, 112), (15, 108), (25, 103), (35, 92), (45, 80), (55, 64), (65, 47), (75, 24), (85, 0)];
        let kernel = [112u64, 111, 108, 102, 93, 81, 65, 47, 25, 1];
        for (i, (pct, nr)) in table.into_iter().enumerate() {
            let sum_util = pct * 1024 * 112 / 100;
            let got = sis_util_scan(112, 117, sum_util);
            assert_eq!(got, kernel[i], "{pct}%");
            assert!(got.abs_diff(nr) <= 1, "{pct}%: {got} vs table {nr}");
            // The v3 formula the table was made with (util% as an integer).
            let v3 = (100 - (pct * pct / 72).min(100)) * 112 / 100;
            assert_eq!(v3, nr, "v3 formula at {pct}%");
        }
    }

    #[test]
    fn classify() {
        let g = GroupStats { sum_nr_running: 3, group_weight: 2, group_capacity: 2048, group_util: 2048, group_runnable: 3072, ..Default::default() };
        assert_eq!(group_classify(117, &g, false), GroupType::Overloaded);
        let g = GroupStats { sum_nr_running: 1, group_weight: 2, group_capacity: 2048, group_util: 1024, group_runnable: 1024, ..Default::default() };
        assert_eq!(group_classify(117, &g, false), GroupType::HasSpare);
        let g = GroupStats { sum_nr_running: 2, group_weight: 2, group_capacity: 2048, group_util: 2000, group_runnable: 2048, ..Default::default() };
        assert_eq!(group_classify(117, &g, false), GroupType::FullyBusy);
    }

    use crate::kernel::sched::core::Policy;
    use crate::kernel::sched::weight::scale_load;

    /// Two CPUs of the 2cpu-vm; CPU 0 balances (pulls) from CPU 1, which
    /// runs `r` and has `p` queued. r joins an empty queue (placed at V,
    /// no lag); p joins with vlag −2 ms, inflated by place_entity() to
    /// −2·(1024 + 1024)/1024 = −4 ms: p sits 4 ms right of r, V is halfway,
    /// so p is not eligible. The clock is 10 ms, p never ran: cache-cold.
    fn two_cpus(kernel: &str, tg: u32, s: Option<Sched>) -> (Sched, u32, Env) {
        let mut s = s.unwrap_or_else(|| crate::tests::audit::sched_on(kernel, "2cpu-vm", &[]));
        s.cfs_rqs[1].min_vruntime = 0;
        let both = std::rc::Rc::new(crate::kernel::lib::cpumask::CpuMask::full(2));
        let (r, p) = (s.add_task_in(both.clone(), 0, Policy::Normal, None, tg), s.add_task_in(both, 0, Policy::Normal, None, tg));
        for (t, vlag) in [(r, 0), (p, -2_000_000)] {
            s.set_task_cpu(t, 1, true);
            let se = s.tasks[t as usize].se;
            s.ents[se as usize].vlag = vlag;
            s.enqueue_task_fair(1, t, crate::kernel::sched::fair::ENQUEUE_WAKEUP);
            s.tasks[t as usize].on_rq = true;
        }
        s.rqs[1].curr = r;
        s.note_idle(1);
        s.set_next_task_fair(r);
        let pse = s.tasks[p as usize].se;
        assert!(!s.feat.has(Feature::EEVDF) || !s.entity_eligible(s.ents[pse as usize].cfs_rq, pse));
        s.now = 10_000_000;
        let env = Env { cpu: 0, level: 0, idle: Idle::Idle, imbalance: 1, migration_type: MigrationType::Task, all_pinned: true };
        (s, p, env)
    }

    /// Items 2 and 10 (`can_migrate_task()`): a delayed task on the source.
    /// v6.12.0 has no delayed test: it can move. v6.14+ ("Do not try to
    /// migrate delayed dequeue task", in 6.18) refuses it unless
    /// `env->migration_type == migrate_load`.
    #[test]
    fn delayed_tasks_move_by_version_and_migration_type() {
        for (kernel, mt, want) in [("6.12", MigrationType::Task, true), ("6.18", MigrationType::Task, false), ("6.18", MigrationType::Load, true)] {
            let (mut s, p, mut env) = two_cpus(kernel, NIL, None);
            // The eligibility preference is item 10's other half; off here.
            s.feat.set(Feature::LB_PREFER_ELIGIBLE, false);
            let se = s.tasks[p as usize].se;
            s.ents[se as usize].sched_delayed = true;
            env.migration_type = mt;
            assert_eq!(s.can_migrate_task(&mut env, 1, p), want, "{kernel} {mt:?}");
        }
    }

    /// Items 2 and 7: the balancer counts a CPU's fair tasks as
    /// `cfs.h_nr_queued` up to v6.13, delayed-dequeue tasks included, and as
    /// `cfs.h_nr_runnable` from v6.14 ("sched/fair: Use the new
    /// cfs_rq.h_nr_runnable", LB_H_NR_RUNNABLE). CPU 1 holds two queued
    /// tasks of which one is delayed (queued, not runnable): 6.12 counts 2,
    /// 6.18 counts 1.
    #[test]
    fn the_balancer_counts_delayed_tasks_until_6_14() {
        for (kernel, want) in [("6.12", 2), ("6.18", 1)] {
            let (mut s, _, _) = two_cpus(kernel, NIL, None);
            let q = s.rqs[1].cfs as usize;
            (s.cfs_rqs[q].h_nr_queued, s.cfs_rqs[q].h_nr_runnable) = (2, 1);
            assert_eq!(s.lb_nr_running(1), want, "{kernel}");
        }
    }

    /// Item 10 (`task_is_ineligible_on_dst_cpu()`, v6.14+): the test looks
    /// at `task_group(p)->cfs_rq[dest_cpu]`. p (not eligible, see
    /// `two_cpus`) is in group g; CPU 0's root queue has an entity queued
    /// but g's queue on CPU 0 is empty, so p may move. A task of the root
    /// group is refused while the root queue on CPU 0 is not empty.
    #[test]
    fn prefer_eligible_looks_at_the_tasks_group_queue() {
        for grouped in [true, false] {
            let mut s = crate::tests::audit::sched_on("6.18", "2cpu-vm", &[]);
            let tg = if grouped { s.add_group("g", NIL, scale_load(1024), false) } else { NIL };
            // Something queued on CPU 0's root queue.
            let other = s.add_task(std::rc::Rc::new(crate::kernel::lib::cpumask::CpuMask::full(1)), 0, Policy::Normal, None);
            s.enqueue_task_fair(0, other, crate::kernel::sched::fair::ENQUEUE_WAKEUP);
            let (mut s, p, mut env) = two_cpus("6.18", tg, Some(s));
            assert!(s.cfs_rqs[s.rqs[0].cfs as usize].nr_queued > 0);
            assert_eq!(s.can_migrate_task(&mut env, 1, p), grouped, "grouped={grouped}");
        }
    }

    /// Item 9 (`task_hot()`, v5.15/v6.5): "Buddy candidates are cache hot":
    /// with CACHE_HOT_BUDDY and a busy destination, the last buddy is hot
    /// like the next buddy, so a cold-by-time p is refused.
    #[test]
    fn cfs_last_buddy_is_cache_hot() {
        for (last, want) in [(false, true), (true, false)] {
            let (mut s, p, mut env) = two_cpus("5.15", NIL, None);
            s.rqs[0].nr_running = 1;
            s.note_idle(0);
            if last {
                s.cfs_rqs[1].last = s.tasks[p as usize].se;
            }
            assert_eq!(s.can_migrate_task(&mut env, 1, p), want, "last={last}");
        }
    }

    /// prefer_sibling's task imbalance, busiest = 4 tasks on 2 cores,
    /// local = 1 task on 1 core. v6.5 (find_busiest_group(): "busiest->
    /// sum_nr_running > local->sum_nr_running + 1"; calculate_imbalance():
    /// nr_diff = 4 − 1) gives 3, idle or not. v6.6+ sibling_imbalance():
    /// 0 for a busy CPU; idle: ncores_local = 1, ncores_busiest = 2,
    /// imb = 1·4 − 2·1 = 2, normalised (2·2 + 1 + 2)/(1 + 2) = 7/3 = 2.
    #[test]
    fn prefer_sibling_imbalance_by_version() {
        let busiest = GroupStats { sum_nr_running: 4, cores: 2, ..Default::default() };
        let local = GroupStats { sum_nr_running: 1, cores: 1, ..Default::default() };
        let v65 = crate::tests::audit::sched_on("6.5", "2cpu-vm", &[]);
        let v66 = crate::tests::audit::sched_on("6.6", "2cpu-vm", &[]);
        assert_eq!(v65.prefer_sibling_imbalance(Idle::NotIdle, &busiest, &local), 3);
        assert_eq!(v65.prefer_sibling_imbalance(Idle::Idle, &busiest, &local), 3);
        assert_eq!(v66.prefer_sibling_imbalance(Idle::NotIdle, &busiest, &local), 0);
        assert_eq!(v66.prefer_sibling_imbalance(Idle::Idle, &busiest, &local), 2);
    }

    /// update_sg_lb_stats(): "if (!local_group && smt_balance(env, sgs,
    /// group))" (v6.6+). One task queued on each of CPUs 0 and 4 (one core
    /// of the i7-4790); CPU 1 balances the MC domain as an idle CPU. Core
    /// {0,4} runs two tasks: group_smt_balance from CPU 1's view under
    /// v6.6, but never as CPU 0's own (local) group, and no such type in
    /// v6.5.
    #[test]
    fn only_a_remote_loaded_smt_core_is_smt_balance() {
        for (kernel, remote_smt) in [("6.5", false), ("6.6", true), ("6.18", true)] {
            let mut s = crate::tests::audit::sched_on(kernel, "i7-4790", &[]);
            for cpu in [0, 4] {
                let t = s.add_task(std::rc::Rc::new(crate::kernel::lib::cpumask::CpuMask::full(8)), 0, Policy::Normal, None);
                s.set_task_cpu(t, cpu, true);
                s.enqueue_task_fair(cpu, t, crate::kernel::sched::fair::ENQUEUE_WAKEUP);
                s.tasks[t as usize].on_rq = true;
            }
            let level = 1;
            let core0 = s.topo.domains[1][level].groups.iter().copied().find(|&g| s.topo.spans[g as usize].test(0)).unwrap();
            let mut flag = false;
            let remote = Env { cpu: 1, level, idle: Idle::Idle, imbalance: 0, migration_type: MigrationType::Task, all_pinned: true };
            let sgs = s.update_sg_lb_stats(&remote, core0, false, &mut flag);
            assert_eq!(sgs.sum_h_nr_running, 2);
            assert_eq!(sgs.gtype() == GroupType::SmtBalance, remote_smt, "{kernel}: core 0 seen from CPU 1");
            let own = Env { cpu: 0, ..remote };
            let sgs = s.update_sg_lb_stats(&own, core0, true, &mut flag);
            assert_ne!(sgs.gtype(), GroupType::SmtBalance, "{kernel}: core 0 as CPU 0's local group");
        }
    }

    /// newidle_balance() (v5.15–v6.18) ends with "Move the next balance
    /// forward": each domain it looked at offers its due time at the idle
    /// interval (update_next_balance(): last_balance +
    /// get_sd_balance_interval(sd, 0)). CPU 1 of the i7-4790, both domains
    /// last balanced at jiffy 10, its next periodic balance set far ahead
    /// (jiffy 1000) by a balance while busy. SMT domain {1,5}: interval 2
    /// ms → msecs_to_jiffies(2) at HZ 250 = 1, due at 11; MC (8 CPUs): 8 ms
    /// → 2, due at 12. Without overload it returns at once, having looked
    /// at the SMT domain only: 11. With overload and a long average idle it
    /// visits both: min(11, 12) = 11; with the SMT domain's last balance
    /// moved to jiffy 20 (due 21), the MC domain's 12.
    #[test]
    fn a_newidle_balance_pulls_the_next_periodic_balance_forward() {
        for (overloaded, smt_last, want) in [(false, 10, 11), (true, 10, 11), (true, 20, 12)] {
            let mut s = crate::tests::audit::sched_on("6.6", "i7-4790", &[]);
            s.now = 30 * s.tun.tick_nsec;
            s.nr_overloaded = overloaded as u32;
            s.rqs[1].avg_idle = 10_000_000;
            s.rqs[1].next_balance = 1000;
            s.sd[1][0].last_balance = smt_last;
            s.sd[1][1].last_balance = 10;
            assert!(!s.sched_balance_newidle(1));
            assert_eq!(s.rqs[1].next_balance, want, "overloaded={overloaded} smt_last={smt_last}");
        }
    }

    #[test]
    fn imb_numa_for_presets() {
        let t = Topology::preset("xeon-8260-2s").unwrap();
        // NUMA over two single-LLC nodes: 96 >> 3 = 12? No: nr_llcs =
        // 96/48 = 2 (the child is the 48-CPU LLC), so imb = 2.
        assert_eq!(imb_numa_nr(&t, 0, 2), 2);
    }
}
