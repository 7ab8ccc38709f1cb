//! Comparing two configurations on the same scenario and seeds: the
//! per-task deltas and the first event where the two runs diverge.

use serde::Serialize;

use crate::lab::build::{from_text, Overrides};
use crate::lab::scenario::ScenarioError;
use crate::lab::sim::{LogMode, Simulation};
use crate::lab::trace::Entry;

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
        let mode = if i == 0 { LogMode::Full } else { LogMode::HashOnly };
        let (mut a, _) = from_text(text, &base.overrides(seed), mode)?;
        let (mut b, _) = from_text(text, &patch.overrides(seed), mode)?;
        a.run();
        b.run();
        if i == 0 {
            divergence = first_divergence(&a, &b);
        }
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
}
