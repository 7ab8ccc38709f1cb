//! The seed mails' tables beside the model's: `schedlab reproduce [SEED]`.
//!
//! assets/seeds/tables.toml transcribes every table of shared/seeds cell by
//! cell, with the mail's configuration names and the study
//! (assets/studies/) that reproduces it. Reproducing runs those studies and
//! puts, per cell, the mail's change and std beside the model's, and says
//! whether the two point the same way.
//!
//! Conventions, written down once:
//! - Every change is shown with the mails' "positive is better" sign: a
//!   table printed lkp-style (the raw change of the metric) is converted
//!   with the metric's direction.
//! - A cell shows a **clear effect** when its change is more than twice the
//!   standard deviation of the difference of the two means,
//!   `sqrt(std_base² + (std_compare · compare/base)²)` in % of the baseline
//!   (both stds as printed, in % of their own means). Where the mail
//!   printed no std (lkp's hackbench, netperf, stress-ng, unixbench tables,
//!   and 0.00 for a single run), a change of 5 % or more counts as clear.
//! - The model **agrees** on a clear cell when its change has the same sign;
//!   it agrees **clearly** when its own change is clear by the same rule
//!   (with the model's std over its seeds).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::lab::study::{Engagement, Study, Table};

/// The transcribed tables, assets/seeds/tables.toml, deflated by build.rs.
const TABLES_DEFLATED: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/tables.toml.deflate"));

macro_rules! shipped_studies {
    ($($name:literal),* $(,)?) => {
        /// Every study of assets/studies/, by name (file stem).
        pub const STUDIES: &[(&str, &str)] = &[
            $(($name, include_str!(concat!("../../../assets/studies/", $name, ".toml")))),*
        ];
    };
}

shipped_studies!(
    "seed-000-hackbench",
    "seed-000-netperf",
    "seed-000-netperf-stream",
    "seed-000-schbench",
    "seed-000-tbench",
    "seed-002-hackbench",
    "seed-002-netperf",
    "seed-002-schbench",
    "seed-002-tbench",
    "seed-003-pipe-test",
    "seed-003-stress-sigfd",
    "seed-003-stress-sigrt",
    "seed-003-stress-sigsuspend",
    "seed-003-tbench",
    "seed-004-hackbench",
    "seed-004-netperf",
    "seed-004-schbench",
    "seed-004-stress-futex",
    "seed-004-unixbench-pipe",
);

/// The text of a shipped study.
pub fn study_text(name: &str) -> Option<&'static str> {
    STUDIES.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
}

/// How a mail prints a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Convention {
    /// % change, positive = better.
    Better,
    /// % change of the metric itself.
    Raw,
}

/// One row of a mail's table.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MailRow {
    /// Case and load as the study labels its rows.
    pub case: String,
    pub load: String,
    /// The mail's own label of the row.
    pub mail: String,
    /// The baseline's value, where the mail prints it.
    #[serde(default)]
    pub base: Option<f64>,
    /// The baseline's std in % (None: not printed).
    #[serde(default)]
    pub std: Option<f64>,
    /// Per compare column: the change in % as printed, and its std in %.
    pub cells: Vec<Vec<f64>>,
    /// Per compare column: the value, where the mail prints it.
    #[serde(default)]
    pub values: Vec<f64>,
}

/// One table of a seed mail.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct MailTable {
    pub seed: String,
    pub title: String,
    pub source: String,
    pub mail_base: String,
    pub mail_compare: Vec<String>,
    /// The study that reproduces it (empty: none).
    pub study: String,
    /// Why there is no study.
    #[serde(default)]
    pub why: String,
    /// What the model is known to lack where it departs from this table,
    /// found by measurement (README, "Reproducing the seed threads"); shown
    /// under the table wherever it is reproduced, so that a reader of a
    /// cell that points the wrong way learns why (empty: nothing known).
    #[serde(default)]
    pub gap: String,
    pub base: String,
    pub compare: Vec<String>,
    pub convention: Convention,
    /// For raw tables: which way the metric is better.
    #[serde(default)]
    pub higher_is_better: Option<bool>,
    pub rows: Vec<MailRow>,
}

#[derive(Deserialize)]
struct TablesFile {
    table: Vec<MailTable>,
}

/// Every transcribed table, in file order.
pub fn tables() -> Vec<MailTable> {
    // The file is part of the program; tests::tables_are_consistent keeps
    // it well-formed.
    let text = miniz_oxide::inflate::decompress_to_vec(TABLES_DEFLATED).map_err(|e| format!("{e:?}")).and_then(|b| String::from_utf8(b).map_err(|e| e.to_string()));
    text.and_then(|t| crate::lab::scenario::toml_to_json(&t))
        .and_then(|v| serde_json::from_value::<TablesFile>(v).map_err(|e| e.to_string()))
        .map(|f| f.table)
        .unwrap_or_else(|e| panic!("assets/seeds/tables.toml: {e}"))
}

/// The change in % with positive = better, and its std in % of the
/// baseline, of one compare column of a mail row.
fn mail_change(t: &MailTable, row: &MailRow, col: usize) -> (f64, Option<f64>) {
    let cell = &row.cells[col];
    let printed = cell[0];
    let change = match t.convention {
        Convention::Better => printed,
        Convention::Raw if t.higher_is_better.unwrap_or(true) => printed,
        Convention::Raw => -printed,
    };
    // A std of 0.00 is a single run: no spread was measured.
    let measured = |s: Option<f64>| s.filter(|&s| s > 0.0);
    let noise = match (measured(row.std), measured(cell.get(1).copied())) {
        (Some(a), Some(b)) => Some(diff_std(a, b, printed)),
        _ => None,
    };
    (change, noise)
}

/// The std of the difference of two means, in % of the first, from their
/// stds in % of their own means and the raw change `raw_pct` between them.
pub fn diff_std(std_a: f64, std_b: f64, raw_pct: f64) -> f64 {
    let scaled_b = std_b * (1.0 + raw_pct / 100.0);
    (std_a * std_a + scaled_b * scaled_b).sqrt()
}

/// Whether a change stands out of its noise (see the module doc).
pub fn is_clear(change: f64, noise: Option<f64>) -> bool {
    match noise {
        Some(n) => change.abs() > 2.0 * n,
        None => change.abs() >= NO_STD_THRESHOLD,
    }
}

/// A change that counts as clear where no std was printed, in %.
pub const NO_STD_THRESHOLD: f64 = 5.0;

/// One cell: the mail beside the model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CellReport {
    pub case: String,
    pub load: String,
    pub mail_label: String,
    /// The mail's configuration of this column.
    pub column: String,
    /// The mail: change (positive = better), its noise, whether clear.
    pub mail_change: f64,
    pub mail_noise: Option<f64>,
    pub mail_std: Option<f64>,
    pub mail_clear: bool,
    /// The model (None: not run).
    pub model: Option<ModelCell>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct ModelCell {
    pub change: f64,
    pub noise: f64,
    /// The compare column's std in % of its mean.
    pub std: f64,
    pub clear: bool,
    /// Every seed's run of the compare configuration switched exactly as
    /// the table's baseline's (`study::Cell::switched_like`): the change
    /// never altered a decision on this load.
    pub same_schedules: bool,
}

impl CellReport {
    /// Same direction as the mail (only meaningful for clear mail cells).
    pub fn agrees(&self) -> Option<bool> {
        let m = self.model?;
        Some(m.change.signum() == self.mail_change.signum() && m.change != 0.0)
    }

    /// What the model says about the mail's cell (None: the model did not
    /// run it). The CLI and the Studies page word it each their own way.
    pub fn verdict(&self) -> Option<Verdict> {
        let m = self.model?;
        Some(match (self.mail_clear, self.agrees()) {
            (true, Some(true)) if m.clear => Verdict::Agrees,
            (true, Some(true)) => Verdict::AgreesWithinNoise,
            (true, _) => Verdict::Disagrees,
            (false, _) if self.mail_change.abs() < 5.0 && m.change.abs() > 15.0 => Verdict::SmallButLarge,
            (false, _) => Verdict::NoClearEffect,
        })
    }
}

/// The model beside one mail cell (see the module doc for the rules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Verdict {
    /// The mail shows a clear effect and the model's change has its sign
    /// and is clear too.
    Agrees,
    /// Same sign as the mail's clear effect, but within the model's noise.
    AgreesWithinNoise,
    /// The mail shows a clear effect and the model's change has the other
    /// sign (or is zero).
    Disagrees,
    /// The mail shows no clear effect and a change under 5 %, the model
    /// one over 15 %.
    SmallButLarge,
    /// The mail shows no clear effect: nothing to agree with.
    NoClearEffect,
}

/// One table reproduced (or why not).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TableReport {
    pub seed: String,
    pub title: String,
    pub source: String,
    pub study: String,
    pub why: String,
    /// The table's known gap (`MailTable::gap`).
    pub gap: String,
    pub configs: Vec<String>,
    pub cells: Vec<CellReport>,
    /// Per configuration (in `configs` order): how often the patches'
    /// mechanisms came into play over the table's runs.
    pub engagement: Vec<Engagement>,
}

/// Puts a study's table beside a mail table. Cells the study lacks (a row
/// or configuration it does not run) have no model figures.
pub fn compare_table(t: &MailTable, model: Option<&Table>) -> TableReport {
    let mut cells = Vec::new();
    for row in &t.rows {
        for (col, name) in t.compare.iter().enumerate() {
            let (change, noise) = mail_change(t, row, col);
            let model = model.and_then(|m| model_cell(m, &row.case, &row.load, &t.base, name));
            cells.push(CellReport {
                case: row.case.clone(),
                load: row.load.clone(),
                mail_label: row.mail.clone(),
                column: t.mail_compare.get(col).cloned().unwrap_or_default(),
                mail_change: change,
                mail_noise: noise,
                mail_std: row.cells[col].get(1).copied().filter(|&s| s > 0.0),
                mail_clear: is_clear(change, noise),
                model,
            });
        }
    }
    TableReport {
        seed: t.seed.clone(),
        title: t.title.clone(),
        source: t.source.clone(),
        study: t.study.clone(),
        why: t.why.clone(),
        gap: t.gap.clone(),
        configs: std::iter::once(t.base.clone()).chain(t.compare.iter().cloned()).collect(),
        cells,
        engagement: Vec::new(),
    }
}

/// The model's change from configuration `base` to `compare` in one row.
fn model_cell(m: &Table, case: &str, load: &str, base: &str, compare: &str) -> Option<ModelCell> {
    let row = m.rows.iter().find(|r| r.case == case && r.load == load)?;
    let col = |name: &str| m.configs.iter().position(|c| c == name);
    let (b, c) = (&row.cells[col(base)?], &row.cells[col(compare)?]);
    let same_schedules = b.switched_like == c.switched_like;
    if b.runs == 0 || c.runs == 0 || b.mean == 0.0 {
        return None;
    }
    let raw = (c.mean - b.mean) / b.mean * 100.0;
    let change = if m.higher_is_better { raw } else { -raw } + 0.0;
    let noise = diff_std(b.std_pct, c.std_pct, raw);
    let clear = b.runs > 1 && c.runs > 1 && is_clear(change, Some(noise));
    Some(ModelCell { change, noise, std: c.std_pct, clear, same_schedules })
}

/// The agreement figures of a set of cells.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Cells with model figures.
    pub cells: usize,
    /// Of those, where the mail shows a clear effect.
    pub clear: usize,
    /// Of those, where the model's change has the same sign.
    pub agree: usize,
    /// Of those, where the model's change is also clear.
    pub agree_clearly: usize,
    /// Cells where the mail's change is under 5 % but the model's over 15 %.
    pub small_but_large: usize,
    /// Cells with a printed std, and of those where the model's std is at
    /// most twice the mail's.
    pub with_std: usize,
    pub std_within_2x: usize,
    /// Cells of tables that have no study.
    pub not_modelled: usize,
    /// Clear cells where the model's two configurations switched alike on
    /// every seed: the change never acted on the load.
    pub clear_same_schedules: usize,
}

impl Summary {
    pub fn of<'a>(cells: impl IntoIterator<Item = &'a CellReport>) -> Summary {
        let mut s = Summary::default();
        for c in cells {
            let Some(m) = c.model else {
                s.not_modelled += 1;
                continue;
            };
            s.cells += 1;
            if c.mail_clear {
                s.clear += 1;
                s.clear_same_schedules += m.same_schedules as usize;
                if c.agrees() == Some(true) {
                    s.agree += 1;
                    s.agree_clearly += m.clear as usize;
                }
            }
            if c.mail_change.abs() < 5.0 && m.change.abs() > 15.0 {
                s.small_but_large += 1;
            }
            if let Some(std) = c.mail_std {
                s.with_std += 1;
                s.std_within_2x += (m.std <= 2.0 * std) as usize;
            }
        }
        s
    }

    pub fn agree_pct(&self) -> f64 {
        if self.clear == 0 {
            0.0
        } else {
            self.agree as f64 * 100.0 / self.clear as f64
        }
    }
}

/// A reproduction: the tables of some seeds and the studies behind them.
pub struct Reproduction {
    pub tables: Vec<MailTable>,
    /// The studies to run, by name.
    pub studies: BTreeMap<String, Study>,
}

impl Reproduction {
    /// Plans the reproduction of the tables of `seed` (all seeds: None).
    pub fn plan(seed: Option<&str>) -> Result<Reproduction, String> {
        let tables: Vec<MailTable> = tables().into_iter().filter(|t| seed.is_none_or(|s| t.seed == s)).collect();
        if tables.is_empty() {
            let seeds: Vec<String> = self::tables().into_iter().map(|t| t.seed).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
            return Err(format!("no table of seed `{}` (seeds: {})", seed.unwrap_or(""), seeds.join(", ")));
        }
        let mut studies = BTreeMap::new();
        for t in tables.iter().filter(|t| !t.study.is_empty()) {
            if studies.contains_key(&t.study) {
                continue;
            }
            let text = study_text(&t.study).ok_or_else(|| format!("table `{}` names study `{}`, which is not shipped", t.title, t.study))?;
            let mut s = Study::new(text).map_err(|e| format!("{}: {e}", t.study))?;
            s.count_engagement = true;
            // Only what the study's tables read: seed 004's futex table
            // has no PLACE_BONUS column, seed 003's stressors one load of
            // three (a third of the futex study's 80 s on 2 cores).
            let read = tables.iter().filter(|o| o.study == t.study);
            let configs: Vec<&str> = read.clone().flat_map(|o| std::iter::once(&o.base).chain(&o.compare)).map(String::as_str).collect();
            let rows: Vec<(&str, &str)> = read.flat_map(|o| o.rows.iter().map(|r| (r.case.as_str(), r.load.as_str()))).collect();
            s.keep(&configs, &rows);
            studies.insert(t.study.clone(), s);
        }
        Ok(Reproduction { tables, studies })
    }

    /// Runs every planned run on `threads` threads; `progress(done, total)`
    /// after each.
    #[cfg(not(target_arch = "wasm32"))]
    pub fn run(&mut self, threads: usize, progress: &(dyn Fn(usize, usize) + Sync)) -> Result<(), String> {
        let mut studies: Vec<&mut Study> = self.studies.values_mut().collect();
        crate::lab::study::run_many(&mut studies, threads, progress)
    }

    /// The reports, table by table.
    pub fn reports(&self) -> Vec<TableReport> {
        self.tables
            .iter()
            .map(|t| {
                let study = self.studies.get(&t.study);
                let mut r = compare_table(t, study.map(|s| s.table()).as_ref());
                if let Some(s) = study {
                    let rows: Vec<(&str, &str)> = t.rows.iter().map(|r| (r.case.as_str(), r.load.as_str())).collect();
                    r.engagement = r.configs.iter().map(|c| s.engagement(c, &rows)).collect();
                }
                r
            })
            .collect()
    }
}

fn pct(x: f64) -> String {
    format!("{x:+.2}")
}

/// The report as text: per table the mail's and the model's change side by
/// side, then the agreement figures per seed and in all.
pub fn format(reports: &[TableReport]) -> String {
    let mut s = String::new();
    for r in reports {
        s += &format!("seed {} — {}\n", r.seed, r.title);
        s += &format!("  {}\n", r.source);
        if r.study.is_empty() {
            s += &format!("  not reproduced: {}\n\n", r.why);
            continue;
        }
        s += &format!("  study {} ({})\n", r.study, r.configs.join(" → "));
        s += &format!("  {:<16} {:<12} {:<28} {:>18} {:>18}  {}\n", "case", "load", "column", "mail %(noise)", "model %(noise)", "");
        for c in &r.cells {
            let noise = |n: Option<f64>| n.map_or("   -".into(), |n| format!("{n:.2}"));
            let mail = format!("{} ({})", pct(c.mail_change), noise(c.mail_noise));
            let model = c.model.map_or("not run".to_string(), |m| format!("{} ({:.2})", pct(m.change), m.noise));
            let verdict = match c.verdict() {
                None => "",
                Some(Verdict::Agrees) => "agree",
                Some(Verdict::AgreesWithinNoise) => "agree (model within noise)",
                Some(Verdict::Disagrees) => "DISAGREE",
                Some(Verdict::SmallButLarge) => "mail <5 %, model >15 %",
                Some(Verdict::NoClearEffect) => "(mail: no clear effect)",
            };
            let same = if c.model.is_some_and(|m| m.same_schedules) { "; same schedules: the change never acts here" } else { "" };
            let column: String = c.column.chars().take(28).collect();
            s += &format!("  {:<16} {:<12} {:<28} {:>18} {:>18}  {verdict}{same}\n", c.case, c.load, column, mail, model);
        }
        if !r.gap.is_empty() {
            s += &format!("  {GAP_CAPTION}: {}\n", r.gap);
        }
        for (config, e) in r.configs.iter().zip(&r.engagement) {
            s += &format!(
                "  in {config}: {} wake-ups, {} wake-up preemptions, {} skipped as same priority, {} queued reweights ({} at non-zero lag), {} CPUs filtered, {} of {} idle-CPU scans for an idle core (never filtered)\n",
                e.wakeups, e.wakeup_preemptions, e.same_prio_skips, e.reweights, e.reweights_nonzero_lag, e.cpus_filtered, e.core_scans, e.scans
            );
        }
        s += "\n";
    }
    s += &format_summary(reports);
    s
}

/// The words before a table's known gap, in the report and on the page.
pub const GAP_CAPTION: &str = "what the model lacks here";

/// The agreement figures per seed and in all.
pub fn format_summary(reports: &[TableReport]) -> String {
    let mut seeds: BTreeMap<&str, Vec<&CellReport>> = BTreeMap::new();
    for r in reports {
        seeds.entry(r.seed.as_str()).or_default().extend(r.cells.iter());
    }
    let mut s = format!("{SUMMARY_CAPTION}\n");
    s += &summary_header();
    for (seed, cells) in &seeds {
        s += &summary_line(seed, Summary::of(cells.iter().copied()));
    }
    s += &summary_line("all", Summary::of(reports.iter().flat_map(|r| r.cells.iter())));
    s
}

/// The line above the agreement figures.
pub const SUMMARY_CAPTION: &str = "agreement (clear: the mail's change exceeds twice its noise; without a printed std, 5 %)\n\
     unreached: clear cells where the model's two configurations switched alike on every seed (the change never acted)";

/// The column heads of [`summary_line`].
pub fn summary_header() -> String {
    format!(
        "{:<6} {:>5} {:>6} {:>6} {:>8} {:>8} {:>10} {:>11} {:>12} {:>13}\n",
        "seed", "cells", "clear", "agree", "agree%", "clearly", "unreached", "<5% vs >15%", "std <= 2x", "not modelled"
    )
}

/// One line of the agreement figures, headed `name`.
pub fn summary_line(name: &str, s: Summary) -> String {
    format!(
        "{name:<6} {:>5} {:>6} {:>6} {:>7.0}% {:>8} {:>10} {:>11} {:>12} {:>13}\n",
        s.cells,
        s.clear,
        s.agree,
        s.agree_pct(),
        s.agree_clearly,
        s.clear_same_schedules,
        s.small_but_large,
        format!("{}/{}", s.std_within_2x, s.with_std),
        s.not_modelled
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What build.rs deflated inflates to the file line for line, its
    /// whole-line comments blank (so a parse error's line is the file's).
    #[test]
    fn the_deflated_tables_are_the_file_without_its_comments() {
        let text = String::from_utf8(miniz_oxide::inflate::decompress_to_vec(TABLES_DEFLATED).unwrap()).unwrap();
        let file = include_str!("../../../assets/seeds/tables.toml");
        assert_eq!(text.lines().count(), file.lines().count());
        for (n, (got, line)) in text.lines().zip(file.lines()).enumerate() {
            let want = if line.trim_start().starts_with('#') { "" } else { line };
            assert_eq!(got, want, "line {}", n + 1);
        }
        assert!(file.lines().any(|l| l.starts_with('#')), "the file has comments to blank");
        assert!(TABLES_DEFLATED.len() * 3 < text.len(), "{} of {} bytes", TABLES_DEFLATED.len(), text.len());
    }

    /// Every table parses, names a shipped study (or says why not), has one
    /// [change, std] per compare column, and every row it names exists in
    /// its study with both configurations.
    #[test]
    fn tables_are_consistent() {
        let tables = tables();
        assert!(tables.len() >= 20);
        for t in &tables {
            assert_eq!(t.compare.len(), t.mail_compare.len(), "{}", t.title);
            assert!(t.convention == Convention::Better || t.higher_is_better.is_some(), "{}: raw tables say which way is better", t.title);
            if t.study.is_empty() {
                assert!(!t.why.is_empty(), "{}: a table without a study says why", t.title);
                assert!(t.gap.is_empty(), "{}: a table without a study has a why, not a gap", t.title);
                continue;
            }
            let study = Study::new(study_text(&t.study).unwrap_or_else(|| panic!("{}: no study {}", t.title, t.study))).unwrap();
            for c in std::iter::once(&t.base).chain(&t.compare) {
                assert!(study.configs.iter().any(|s| &s.text == c), "{}: study {} lacks configuration {c}", t.title, t.study);
            }
            for r in &t.rows {
                assert_eq!(r.cells.len(), t.compare.len(), "{} {} {}", t.title, r.case, r.load);
                assert!(study.rows.iter().any(|s| s.case == r.case && s.load == r.load), "{}: study {} has no row {} / {}", t.title, t.study, r.case, r.load);
            }
        }
    }

    /// A table's known gap is printed under its rows, where a reader of a
    /// cell that points the wrong way looks; a table without one prints no
    /// caption. Seed 004's futex table names what its 125–200 % cells lack.
    #[test]
    fn a_known_gap_is_printed_under_its_table() {
        let tables = tables();
        let futex = tables.iter().find(|t| t.study == "seed-004-stress-futex").unwrap();
        assert!(futex.gap.contains("get_futex_key()"), "{}", futex.gap);
        let text = format(&[compare_table(futex, None)]);
        let rows_end = text.rfind("\n  futex ").unwrap();
        let gap_at = text.find(&format!("  {GAP_CAPTION}: ")).unwrap_or_else(|| panic!("{text}"));
        assert!(gap_at > rows_end, "{text}");
        let plain = tables.iter().find(|t| t.gap.is_empty() && !t.study.is_empty()).unwrap();
        assert!(!format(&[compare_table(plain, None)]).contains(GAP_CAPTION));
    }

    /// The mails' benchmarks run for seconds to minutes, so their figures
    /// are the steady state: every seed study discards its start (fork
    /// placement, the new tasks' PELT ramp, the first balances): 30 ms for
    /// seeds 000/002's hackbench, 50–200 ms for the others; and still
    /// measures a window after it.
    #[test]
    fn every_seed_study_measures_past_its_start() {
        for (name, text) in STUDIES {
            let sim = crate::lab::scenario::parse(text).unwrap().sim;
            let warmup = sim.warmup.map_or(0, |(w, _)| w);
            assert!(warmup >= 30_000_000, "{name}: warm-up {warmup} ns");
            assert!(sim.duration > warmup, "{name}: no window after the warm-up");
        }
    }

    /// Hand-computed from seed 004's schbench 100 % row: 13696 (5.25 %) →
    /// 1040 (69.03 %), printed −92.4 %. Lower latency is better, so +92.4;
    /// the compare std in baseline units is 69.03 · (1 − 0.924) = 5.246 %,
    /// the noise sqrt(5.25² + 5.246²) = 7.42 %, and 92.4 > 2 · 7.42: clear.
    #[test]
    fn raw_lkp_cells_convert_sign_and_noise() {
        let t = tables().into_iter().find(|t| t.title == "schbench p90 latency, CFS vs EEVDF").unwrap();
        let row = t.rows.iter().find(|r| r.mail == "100%").unwrap();
        let (change, noise) = mail_change(&t, row, 0);
        assert!((change - 92.4).abs() < 1e-9);
        assert!((noise.unwrap() - 7.4218).abs() < 1e-3);
        assert!(is_clear(change, noise));
        // The 50 % row: +2.2 % slower (−2.2 better), noise
        // sqrt(0.1225 + 0.47012²) = sqrt(0.34351) = 0.5861; 2.2 > 1.172: clear.
        let row = t.rows.iter().find(|r| r.mail == "50%").unwrap();
        let (change, noise) = mail_change(&t, row, 0);
        assert!((change + 2.2).abs() < 1e-9);
        assert!((noise.unwrap() - 0.5861).abs() < 1e-3);
        assert!(is_clear(change, noise));
    }

    /// Without a printed std, 5 % is the line: seed 004's futex −0.8 % is
    /// not clear, −11.3 % is. A printed 0.00 (one run) is no std.
    #[test]
    fn cells_without_std_use_the_5_percent_line() {
        assert!(!is_clear(-0.8, None));
        assert!(is_clear(-11.3, None));
        let t = tables().into_iter().find(|t| t.seed == "002" && t.title == "schbench").unwrap();
        let (change, noise) = mail_change(&t, &t.rows[0], 0);
        assert_eq!((change, noise), (-8.82, None));
    }

    /// The summary counts agreement only on clear cells, and cells of
    /// tables without a study apart.
    #[test]
    fn summary_counts() {
        let cell = |mail: f64, clear: bool, model: Option<f64>| CellReport {
            case: String::new(),
            load: String::new(),
            mail_label: String::new(),
            column: String::new(),
            mail_change: mail,
            mail_noise: None,
            mail_std: Some(1.0),
            mail_clear: clear,
            model: model.map(|m| ModelCell { change: m, noise: 1.0, std: 3.0, clear: m.abs() > 2.0, same_schedules: false }),
        };
        let cells = [cell(10.0, true, Some(4.0)), cell(-10.0, true, Some(1.0)), cell(1.0, false, Some(20.0)), cell(3.0, true, Some(0.5)), cell(8.0, true, None)];
        let s = Summary::of(&cells);
        assert_eq!((s.cells, s.clear, s.agree, s.agree_clearly), (4, 3, 2, 1));
        assert_eq!(s.small_but_large, 1);
        assert_eq!((s.with_std, s.std_within_2x), (4, 0));
        assert_eq!(s.not_modelled, 1);
        assert_eq!(s.clear_same_schedules, 0);
        // A clear cell whose runs switched alike counts as unreached; an
        // unclear one does not.
        let same = |mail: f64, clear: bool| {
            let mut c = cell(mail, clear, Some(0.0));
            c.model.as_mut().unwrap().same_schedules = true;
            c
        };
        assert_eq!(Summary::of(&[same(10.0, true), same(1.0, false), cell(-10.0, true, Some(1.0))]).clear_same_schedules, 1);
        assert!(format(&[TableReport { cells: vec![same(10.0, true)], study: "s".into(), ..compare_table(&tables()[0], None) }])
            .contains("DISAGREE; same schedules: the change never acts here"));
        // Those cells' verdicts: +10 clear, model +4 clear (4 > 2): agrees;
        // −10 clear, model +1: other sign; +1 not clear, model +20: the
        // <5 % vs >15 % case; +3 clear, model +0.5 unclear (0.5 ≤ 2):
        // within noise; no model: none.
        let v: Vec<Option<Verdict>> = cells.iter().map(CellReport::verdict).collect();
        assert_eq!(v, [Some(Verdict::Agrees), Some(Verdict::Disagrees), Some(Verdict::SmallButLarge), Some(Verdict::AgreesWithinNoise), None]);
        // A clear mail change the model puts at exactly 0 disagrees; an
        // unclear one beside a small model change has no clear effect.
        assert_eq!(cell(10.0, true, Some(0.0)).verdict(), Some(Verdict::Disagrees));
        assert_eq!(cell(1.0, false, Some(-3.0)).verdict(), Some(Verdict::NoClearEffect));
    }

    /// A table's pair is "same schedules" when its own two configurations
    /// switched alike, whichever is the study's first column (seed 004's
    /// PLACE_BONUS tables compare its second and third). In
    /// `never_acting_study()` 6.18 with TG_LOAD_AVG_RATELIMIT off switches
    /// exactly as 6.18 (no task group to rate-limit): that pair is
    /// unreached, with a change of exactly 0, while against 6.6 (another
    /// base slice) it is not.
    #[test]
    fn a_pair_that_switched_alike_is_unreached_whichever_column_is_the_baseline() {
        let t = crate::lab::study::tests::never_acting_study().table();
        for row in &t.rows {
            let pair = model_cell(&t, &row.case, &row.load, "6.18", "6.18,TG_LOAD_AVG_RATELIMIT=off").unwrap();
            assert!(pair.same_schedules, "{pair:?}");
            assert_eq!(pair.change, 0.0);
            let against_first = model_cell(&t, &row.case, &row.load, "6.6", "6.18,TG_LOAD_AVG_RATELIMIT=off").unwrap();
            assert!(!against_first.same_schedules, "{against_first:?}");
            // The study's own mark is against its first column only.
            assert!(!row.cells[3].same_schedules);
        }
    }

    /// The summary line the CLI and the Studies page print: 9 cells, 7
    /// clear, 2 agree (2/7 = 29 %), 1 clearly, 5 unreached, 1
    /// small-but-large, 0 of 4 stds within 2x, 1 not modelled; under the
    /// header's columns.
    #[test]
    fn summary_line_columns() {
        let s = Summary {
            cells: 9,
            clear: 7,
            agree: 2,
            agree_clearly: 1,
            small_but_large: 1,
            with_std: 4,
            std_within_2x: 0,
            not_modelled: 1,
            clear_same_schedules: 5,
        };
        let line = summary_line("002", s);
        assert_eq!(line.split_whitespace().collect::<Vec<_>>(), ["002", "9", "7", "2", "29%", "1", "5", "1", "0/4", "1"]);
        let head = summary_header();
        assert_eq!(line.len(), head.len(), "{head}{line}");
        // Each figure ends where its column head does.
        for (h, v) in [("cells", " 9 "), ("agree%", " 29% "), ("unreached", " 5 "), ("std <= 2x", " 0/4 ")] {
            assert_eq!(head.find(h).unwrap() + h.len(), line.find(v).unwrap() + v.len() - 1, "{h}");
        }
        assert!(format_summary(&[]).ends_with(&(head + &summary_line("all", Summary::default()))));
    }
}
