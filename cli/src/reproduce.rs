//! `schedlab reproduce`: the seed mails' tables beside the model's.

use schedlab_engine::lab::reproduce::{self, Reproduction};

use crate::{progress, StudyRuns};

#[derive(clap::Args)]
pub struct Args {
    /// The seed thread whose tables to reproduce (e.g. 002) [default: every seed]
    #[arg(value_name = "SEED")]
    pub seed: Option<String>,
    #[command(flatten)]
    pub pool: StudyRuns,
    /// Print the reports as JSON
    #[arg(long)]
    pub json: bool,
}

pub fn cmd(a: Args) -> Result<String, String> {
    let mut r = Reproduction::plan(a.seed.as_deref())?;
    for s in r.studies.values_mut() {
        a.pool.apply(s)?;
    }
    let runs: usize = r.studies.values().map(|s| s.runs.len()).sum();
    let bar = progress::bar(runs as u64, "reproduce".into(), "runs");
    r.run(a.pool.threads(), &|done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
    })?;
    drop(bar);
    let reports = r.reports();
    if a.json {
        return serde_json::to_string_pretty(&reports).map(|s| s + "\n").map_err(|e| e.to_string());
    }
    Ok(reproduce::format(&reports))
}
