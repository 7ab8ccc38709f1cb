//! Comparing two configurations on the same scenario and seeds: the
//! per-task deltas and the first event where the two runs diverge.

use serde::Serialize;

use crate::lab::build::{from_text, Overrides};
use crate::lab::scenario::ScenarioError;
use crate::lab::sim::{LogMode, Simulation};
use crate::lab::trace::{Entry, Record, Verdict};

/// A configuration: kernel preset, patches and flag overrides, written
/// `KERNEL[+PATCH...][,FLAG=on|off...]` ("6.6+reweight-fix",
/// "6.18,RUN_TO_PARITY=off"). An empty kernel keeps the scenario's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ConfigSpec {
    pub text: String,
    pub kernel: Option<String>,
    pub patches: Vec<String>,
    pub features: Vec<(String, bool)>,
}

impl ConfigSpec {
    pub fn parse(s: &str) -> Result<ConfigSpec, String> {
        let mut parts = s.split(',');
        let head = parts.next().unwrap_or("");
        let mut names = head.split('+');
        let kernel = names.next().filter(|k| !k.is_empty()).map(str::to_string);
        let patches: Vec<String> = names.map(str::to_string).collect();
        if patches.iter().any(|p| p.is_empty()) {
            return Err(format!("`{s}`: empty patch name (write KERNEL+PATCH+PATCH)"));
        }
        if let Some((i, p)) = patches.iter().enumerate().find(|(i, p)| patches[..*i].contains(p)) {
            return Err(format!("`{s}`: patch `{p}` is listed twice (patch {} and {})", patches.iter().position(|q| q == p).unwrap_or(0) + 1, i + 1));
        }
        let mut features = Vec::new();
        for f in parts {
            let (name, v) = f.split_once('=').ok_or_else(|| format!("`{s}`: `{f}` should be FLAG=on|off"))?;
            let on = match v {
                "on" | "true" | "1" => true,
                "off" | "false" | "0" => false,
                _ => return Err(format!("`{s}`: `{f}`: the value must be on or off")),
            };
            features.push((name.to_string(), on));
        }
        Ok(ConfigSpec { text: s.to_string(), kernel, patches, features })
    }

    /// The overrides this configuration applies to a scenario.
    pub fn overrides(&self, seed: Option<u64>) -> Overrides {
        Overrides {
            kernel: self.kernel.clone(),
            patches: if self.patches.is_empty() && self.kernel.is_none() { None } else { Some(self.patches.clone()) },
            features: self.features.clone(),
            seed,
            duration: None,
        }
    }
}

/// Where two runs first differ.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Divergence {
    /// Index of the first differing record in both logs.
    pub index: usize,
    pub base: Option<Entry>,
    pub patch: Option<Entry>,
}

/// The first record at which two logs differ (None: identical).
pub fn first_divergence(a: &Simulation, b: &Simulation) -> Option<Divergence> {
    let (mut ia, mut ib) = (a.log.iter(), b.log.iter());
    let mut index = 0;
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => return None,
            (x, y) if x == y => index += 1,
            (x, y) => return Some(Divergence { index, base: x, patch: y }),
        }
    }
}

/// Runs two simulations built with [`LogMode::Full`] side by side until
/// their logs first differ (or both end) and returns where, as
/// [`first_divergence`] would on their whole logs. Records both logs agree
/// on are dropped as soon as they are compared, so memory is bounded by
/// one event's records however long the runs (the logs hold only what was
/// not compared yet when this returns). Each step advances the run whose
/// log is shorter; the other waits.
pub fn run_to_divergence(a: &mut Simulation, b: &mut Simulation) -> Option<Divergence> {
    // Records compared and dropped so far (both logs agreed on all of them).
    let mut index = 0;
    let (mut more_a, mut more_b) = (true, true);
    loop {
        let common = a.log.len().min(b.log.len());
        if let Some(p) = a.log.iter().zip(b.log.iter()).position(|(x, y)| x != y) {
            return Some(Divergence { index: index + p, base: a.log.iter().nth(p), patch: b.log.iter().nth(p) });
        }
        if a.log.len() == b.log.len() {
            index += common;
            a.log.clear_kept();
            b.log.clear_kept();
        }
        let step_a = more_a && a.log.len() <= b.log.len();
        let step_b = more_b && b.log.len() <= a.log.len();
        if !step_a && !step_b {
            // The run with the shorter log is over: the longer log's next
            // record is the difference (equal lengths: both are over).
            if a.log.len() == b.log.len() {
                return None;
            }
            return Some(Divergence { index: index + common, base: a.log.iter().nth(common), patch: b.log.iter().nth(common) });
        }
        if step_a {
            more_a = a.step();
        }
        if step_b {
            more_b = b.step();
        }
    }
}

/// What a record decided, for telling behaviour from wording: the
/// record's kind and the fields that say what happened. None for records
/// that only describe or charge (ticks, checks that did not preempt,
/// channel traffic, idle exits, the numbers a pick saw): two runs whose
/// behavioural records agree picked, switched, placed and preempted alike.
pub fn behaviour(r: &Record) -> Option<(&'static str, Vec<(&'static str, u64)>)> {
    let n = |x: u32| x as u64;
    Some(match *r {
        Record::Pick { cpu, task, .. } => ("pick", vec![("cpu", n(cpu)), ("task", n(task))]),
        Record::Switch { cpu, prev, next, voluntary } => {
            ("switch", vec![("cpu", n(cpu)), ("prev", n(prev)), ("next", n(next)), ("voluntary", voluntary as u64)])
        }
        Record::Placement { task, cpu, .. } => ("placement", vec![("task", n(task)), ("cpu", n(cpu))]),
        Record::Migrate { task, from, to } => ("migration", vec![("task", n(task)), ("from", n(from)), ("to", n(to))]),
        Record::WakeupCheck { cpu, curr, wakee, verdict: Verdict::Preempt } => {
            ("preemption", vec![("cpu", n(cpu)), ("curr", n(curr)), ("wakee", n(wakee))])
        }
        _ => return None,
    })
}

/// Where two runs first behave differently.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BehaviourDivergence {
    /// Index of the differing record in each full log (None: that log's
    /// behaviour ended first).
    pub base_index: Option<usize>,
    pub patch_index: Option<usize>,
    pub base: Option<Entry>,
    pub patch: Option<Entry>,
    /// The fields that differ: "kind" when the records are of different
    /// kinds, else "time" and the names of [`behaviour`]'s fields.
    pub fields: Vec<&'static str>,
}

/// The first behavioural record (see [`behaviour`]) at which two logs
/// differ, in kind, fields or time (None: they behave identically).
pub fn first_behavioural_divergence(a: &Simulation, b: &Simulation) -> Option<BehaviourDivergence> {
    let mut ia = a.log.iter().enumerate().filter_map(|(i, e)| Some((i, e, behaviour(&e.record)?)));
    let mut ib = b.log.iter().enumerate().filter_map(|(i, e)| Some((i, e, behaviour(&e.record)?)));
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => return None,
            (Some((i, ea, ka)), Some((j, eb, kb))) => {
                let mut fields = Vec::new();
                if ka.0 != kb.0 {
                    fields.push("kind");
                } else {
                    if ea.time != eb.time {
                        fields.push("time");
                    }
                    fields.extend(ka.1.iter().zip(&kb.1).filter(|(x, y)| x.1 != y.1).map(|(x, _)| x.0));
                }
                if !fields.is_empty() {
                    return Some(BehaviourDivergence { base_index: Some(i), patch_index: Some(j), base: Some(ea), patch: Some(eb), fields });
                }
            }
            (x, y) => {
                return Some(BehaviourDivergence {
                    base_index: x.as_ref().map(|x| x.0),
                    patch_index: y.as_ref().map(|y| y.0),
                    base: x.map(|x| x.1),
                    patch: y.map(|y| y.1),
                    fields: vec!["kind"],
                })
            }
        }
    }
}

/// Records `from..to` of a log (clamped), with their indices: the
/// comparison's log diff around a divergence.
pub fn log_window(sim: &Simulation, from: usize, to: usize) -> Vec<(usize, Entry)> {
    sim.log.iter().enumerate().skip(from).take(to.saturating_sub(from)).collect()
}

/// Welch's unequal-variances t test of two samples.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Welch {
    pub t: f64,
    /// Welch–Satterthwaite degrees of freedom.
    pub df: f64,
    /// Two-sided p-value: the chance of a |t| this large if the means were
    /// equal.
    pub p: f64,
}

/// Welch's t test: t = (ȳ − x̄) / √(s²x/nx + s²y/ny), df by
/// Welch–Satterthwaite, p = I_{df/(df+t²)}(df/2, 1/2) (the two tails of
/// Student's t). None with fewer than two values on a side. When both
/// samples are constant, p is 0 if the means differ and 1 if not (no
/// noise: the difference is exact).
pub fn welch(xs: &[f64], ys: &[f64]) -> Option<Welch> {
    if xs.len() < 2 || ys.len() < 2 {
        return None;
    }
    let (mx, sx) = mean_std(xs);
    let (my, sy) = mean_std(ys);
    let (vx, vy) = (sx * sx / xs.len() as f64, sy * sy / ys.len() as f64);
    let se2 = vx + vy;
    if se2 == 0.0 {
        let p = if mx == my { 1.0 } else { 0.0 };
        return Some(Welch { t: if mx == my { 0.0 } else { f64::INFINITY.copysign(my - mx) }, df: f64::INFINITY, p });
    }
    let t = (my - mx) / se2.sqrt();
    let df = se2 * se2 / (vx * vx / (xs.len() as f64 - 1.0) + vy * vy / (ys.len() as f64 - 1.0));
    let p = reg_inc_beta(df / 2.0, 0.5, df / (df + t * t)).clamp(0.0, 1.0);
    Some(Welch { t, df, p })
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, 9 terms: ~15 digits).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x)Γ(1−x) = π / sin(πx).
        return (std::f64::consts::PI / (std::f64::consts::PI * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularized incomplete beta function I_x(a, b), by its continued
/// fraction (modified Lentz), using the symmetry I_x(a,b) = 1 − I_{1−x}(b,a)
/// where the fraction converges slowly.
fn reg_inc_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let front = (ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln()).exp();
    if x > (a + 1.0) / (a + b + 2.0) {
        return 1.0 - reg_inc_beta(b, a, 1.0 - x);
    }
    const TINY: f64 = 1e-300;
    let (mut c, mut d) = (1.0, 1.0 - (a + b) * x / (a + 1.0));
    if d.abs() < TINY {
        d = TINY;
    }
    d = 1.0 / d;
    let mut f = d;
    for m in 1..300 {
        let m = m as f64;
        // Even step.
        let num = m * (b - m) * x / ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
        d = 1.0 + num * d;
        d = if d.abs() < TINY { 1.0 / TINY } else { 1.0 / d };
        c = 1.0 + num / c;
        if c.abs() < TINY {
            c = TINY;
        }
        f *= c * d;
        // Odd step.
        let num = -(a + m) * (a + b + m) * x / ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
        d = 1.0 + num * d;
        d = if d.abs() < TINY { 1.0 / TINY } else { 1.0 / d };
        c = 1.0 + num / c;
        if c.abs() < TINY {
            c = TINY;
        }
        let delta = c * d;
        f *= delta;
        if (delta - 1.0).abs() < 1e-15 {
            break;
        }
    }
    front * f / a
}

/// Mean and sample standard deviation.
pub fn mean_std(xs: &[f64]) -> (f64, f64) {
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, var.sqrt())
}

/// One metric of one task under both configurations, over the runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Delta {
    pub task: String,
    pub metric: &'static str,
    pub base_mean: f64,
    pub base_std: f64,
    pub patch_mean: f64,
    pub patch_std: f64,
    /// (patch − base) / base, in %.
    pub change_pct: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub base: ConfigSpec,
    pub patch: ConfigSpec,
    pub runs: u32,
    pub deltas: Vec<Delta>,
    /// In the first run (first seed).
    pub divergence: Option<Divergence>,
}

const METRICS: [&str; 6] = ["cpu_time_ms", "switches", "involuntary", "wakeup_p50_us", "wakeup_p99_us", "ops"];

fn metrics(sim: &Simulation) -> Vec<(String, [f64; 6])> {
    sim.results("")
        .tasks
        .iter()
        .map(|t| {
            let l = t.wakeup_latency_ns;
            (
                t.name.clone(),
                [
                    t.cpu_time_ns as f64 / 1e6,
                    t.nr_switches as f64,
                    t.nr_involuntary_switches as f64,
                    l.p50 as f64 / 1e3,
                    l.p99 as f64 / 1e3,
                    t.ops as f64,
                ],
            )
        })
        .collect()
}

/// Runs the scenario under both configurations for `runs` seeds (the
/// scenario's seed, +1, ...) and compares.
pub fn compare(text: &str, base: &ConfigSpec, patch: &ConfigSpec, runs: u32) -> Result<Comparison, ScenarioError> {
    let seed0 = crate::lab::scenario::parse(text)?.sim.seed;
    let mut per_run: Vec<(Vec<(String, [f64; 6])>, Vec<(String, [f64; 6])>)> = Vec::new();
    let mut divergence = None;
    for i in 0..runs.max(1) {
        let seed = Some(seed0.wrapping_add(i as u64));
        // The first seed's logs find the first divergence; the others only
        // give metrics.
        let mode = if i == 0 { LogMode::Full } else { LogMode::Schedule };
        let (mut a, _) = from_text(text, &base.overrides(seed), mode)?;
        let (mut b, _) = from_text(text, &patch.overrides(seed), mode)?;
        if i == 0 {
            divergence = run_to_divergence(&mut a, &mut b);
            // The rest of the runs only gives metrics: hash records, keep
            // none (the mode is read per event; the run is the same).
            for s in [&mut a, &mut b] {
                s.log.clear_kept();
                s.log.mode = LogMode::HashOnly;
            }
        }
        a.run();
        b.run();
        per_run.push((metrics(&a), metrics(&b)));
    }
    let mut deltas = Vec::new();
    for (ti, (name, _)) in per_run[0].0.iter().enumerate() {
        for (mi, metric) in METRICS.iter().enumerate() {
            let xs: Vec<f64> = per_run.iter().map(|r| r.0[ti].1[mi]).collect();
            let ys: Vec<f64> = per_run.iter().map(|r| r.1[ti].1[mi]).collect();
            let (bm, bs) = mean_std(&xs);
            let (pm, ps) = mean_std(&ys);
            let change_pct = if bm == 0.0 { 0.0 } else { (pm - bm) / bm * 100.0 };
            deltas.push(Delta { task: name.clone(), metric, base_mean: bm, base_std: bs, patch_mean: pm, patch_std: ps, change_pct });
        }
    }
    Ok(Comparison { base: base.clone(), patch: patch.clone(), runs: runs.max(1), deltas, divergence })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_syntax() {
        let s = ConfigSpec::parse("6.6+reweight-fix+deadline-tree,RUN_TO_PARITY=off").unwrap();
        assert_eq!(s.kernel.as_deref(), Some("6.6"));
        assert_eq!(s.patches, vec!["reweight-fix", "deadline-tree"]);
        assert_eq!(s.features, vec![("RUN_TO_PARITY".to_string(), false)]);
        assert!(ConfigSpec::parse("6.6+").is_err());
        // A patch applies once; a study cell's scenario could not list it twice.
        assert_eq!(ConfigSpec::parse("6.6+sis-filter+sis-filter").unwrap_err(), "`6.6+sis-filter+sis-filter`: patch `sis-filter` is listed twice (patch 1 and 2)");
        assert!(ConfigSpec::parse("6.6,X=maybe").is_err());
    }

    /// Hand-computed: samples 2, 4, 4, 4, 5, 5, 7, 9 have mean 5 and sample
    /// variance 32/7, std 2.138.
    #[test]
    fn mean_and_sample_std() {
        let (m, s) = mean_std(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(m, 5.0);
        assert!((s - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }

    const SC: &str = "[sim]\nduration = \"200ms\"\n[[task]]\nname = \"hog\"\ncount = 2\nprogram = \"run\"\n\
        [[task]]\nname = \"tick\"\nprogram = \"loop { sleep 3ms; run 1ms }\"\n";

    /// Welch's test against values derivable by hand. Student's t with one
    /// degree of freedom is the Cauchy distribution: P(|T| > 1) = 1/2. With
    /// 10 degrees of freedom, 2.228139 is the two-sided 5 % critical value
    /// of the tables. Samples {1, 2} and {3, 4}: means 1.5 and 3.5,
    /// variances 0.5 each, se² = 0.25 + 0.25, t = 2 / √0.5 = 2√2, df =
    /// 0.25 / (0.0625 + 0.0625) = 2; for df = 2 the tail has the closed
    /// form p = 1 − t / √(2 + t²) = 1 − 2√2 / √10 = 0.105573.
    #[test]
    fn welch_t_test() {
        assert!((reg_inc_beta(0.5, 0.5, 0.5) - 0.5).abs() < 1e-12);
        let p10 = reg_inc_beta(5.0, 0.5, 10.0 / (10.0 + 2.228139f64.powi(2)));
        assert!((p10 - 0.05).abs() < 2e-6, "{p10}");
        let w = welch(&[1.0, 2.0], &[3.0, 4.0]).unwrap();
        assert!((w.t - 8f64.sqrt()).abs() < 1e-12, "{w:?}");
        assert!((w.df - 2.0).abs() < 1e-12, "{w:?}");
        assert!((w.p - (1.0 - 8f64.sqrt() / 10f64.sqrt())).abs() < 1e-9, "{w:?}");
        // Equal samples: t = 0, p = 1. Too few values: no test.
        let same = welch(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!((same.t, same.p), (0.0, 1.0));
        assert_eq!(welch(&[1.0], &[2.0, 3.0]), None);
        // Constant samples: an exact difference.
        assert_eq!(welch(&[2.0, 2.0], &[3.0, 3.0]).unwrap().p, 0.0);
    }

    /// Two configurations that only reword (the same decisions at the same
    /// times) show no behavioural divergence even where the raw logs
    /// differ; a real change is found, with its fields.
    #[test]
    fn behavioural_divergence_ignores_wording() {
        // The O(1) fast path (seed 000 3/4) picks what the tree walk
        // picks, by another way: the pick records differ (reason, path),
        // the schedule does not.
        let base = ConfigSpec::parse("6.6+deadline-tree").unwrap();
        let stats = ConfigSpec::parse("6.6+deadline-tree+pick-fastpath").unwrap();
        let run = |c: &ConfigSpec| {
            let (mut s, _) = from_text(SC, &c.overrides(None), LogMode::Full).unwrap();
            s.run();
            s
        };
        let (a, b) = (run(&base), run(&stats));
        assert!(first_divergence(&a, &b).is_some(), "the raw logs differ in how the picks were made");
        assert_eq!(first_behavioural_divergence(&a, &b), None);
        // 6.18 and 6.12 differ in the base slice (0.70 vs 0.75 ms), but at
        // HZ 250 every slice ends at a tick: the deadlines the picks saw
        // differ, the schedule does not.
        let a = run(&ConfigSpec::parse("6.18").unwrap());
        let c = run(&ConfigSpec::parse("6.12").unwrap());
        assert!(first_divergence(&a, &c).is_some());
        assert_eq!(first_behavioural_divergence(&a, &c), None);
        let c = run(&ConfigSpec::parse("5.15").unwrap());
        let d = first_behavioural_divergence(&a, &c).expect("CFS and EEVDF schedule differently");
        let (ea, eb) = (d.base.unwrap(), d.patch.unwrap());
        // Everything before it behaved alike, and the fields named differ.
        let before = |s: &Simulation, i: usize| -> Vec<_> {
            s.log.iter().take(i).filter_map(|e| behaviour(&e.record).map(|k| (e.time, k))).collect()
        };
        assert_eq!(before(&a, d.base_index.unwrap()), before(&c, d.patch_index.unwrap()));
        assert!(!d.fields.is_empty());
        let (ka, kb) = (behaviour(&ea.record).unwrap(), behaviour(&eb.record).unwrap());
        for f in &d.fields {
            match *f {
                "time" => assert_ne!(ea.time, eb.time),
                "kind" => assert_ne!(ka.0, kb.0),
                name => assert_ne!(ka.1.iter().find(|x| x.0 == name), kb.1.iter().find(|x| x.0 == name)),
            }
        }
        assert_eq!(log_window(&a, 3, 6).iter().map(|x| x.0).collect::<Vec<_>>(), vec![3, 4, 5]);
    }

    /// Identical configurations never diverge.
    #[test]
    fn identical_configs_do_not_diverge() {
        let a = ConfigSpec::parse("6.18").unwrap();
        let c = compare(SC, &a, &a, 2).unwrap();
        assert_eq!(c.divergence, None);
        assert!(c.deltas.iter().all(|d| d.change_pct == 0.0));
    }

    /// The divergence marker points at the first differing record: the
    /// records before it are equal in both logs and the one at it is not.
    #[test]
    fn divergence_points_at_first_difference() {
        let base = ConfigSpec::parse("6.18").unwrap();
        let patch = ConfigSpec::parse("6.12").unwrap();
        let (mut a, _) = from_text(SC, &base.overrides(None), LogMode::Full).unwrap();
        let (mut b, _) = from_text(SC, &patch.overrides(None), LogMode::Full).unwrap();
        a.run();
        b.run();
        let d = first_divergence(&a, &b).expect("6.12 schedules this differently (0.75 ms slices)");
        let (ea, eb): (Vec<Entry>, Vec<Entry>) = (a.log.iter().collect(), b.log.iter().collect());
        assert_eq!(ea[..d.index], eb[..d.index]);
        assert_ne!(ea.get(d.index), eb.get(d.index));
        assert_eq!(d.base, ea.get(d.index).copied());
    }

    /// Streaming both runs finds the same divergence as comparing their
    /// whole logs: for a different kernel (6.12's 0.75 ms slices), for a
    /// run that is a prefix of the other (the same scenario cut at 9 ms:
    /// the longer log's next record, against nothing), and for identical
    /// runs (none). Identical runs keep at most one event's records.
    #[test]
    fn streamed_divergence_is_the_whole_logs_divergence() {
        let built = |spec: &str, duration: Option<u64>| {
            let mut ov = ConfigSpec::parse(spec).unwrap().overrides(None);
            ov.duration = duration;
            from_text(SC, &ov, LogMode::Full).unwrap().0
        };
        for (x, y) in [(("6.18", None), ("6.12", None)), (("6.18", None), ("6.18", Some(9_000_000))), (("6.18", Some(9_000_000)), ("6.18", None)), (("6.18", None), ("6.18", None))] {
            let (mut a, mut b) = (built(x.0, x.1), built(y.0, y.1));
            let streamed = run_to_divergence(&mut a, &mut b);
            if streamed.is_none() {
                assert!(a.log.len() < 64 && b.log.len() < 64, "{} and {} records kept", a.log.len(), b.log.len());
            }
            let (mut a, mut b) = (built(x.0, x.1), built(y.0, y.1));
            a.run();
            b.run();
            assert_eq!(streamed, first_divergence(&a, &b), "{x:?} vs {y:?}");
        }
        let (mut a, mut b) = (built("6.18", None), built("6.18", Some(9_000_000)));
        let d = run_to_divergence(&mut a, &mut b).expect("the shorter run ends first");
        assert!(d.base.is_some() && d.patch.is_none(), "{d:?}");
    }
}
