//! `schedlab study`: the scenario's `[study]` as the seed mails' table.

use schedlab_engine::lab::study::{run_many, Study};

use crate::{progress, ScenarioArg, StudyRuns};

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub scenario: ScenarioArg,
    #[command(flatten)]
    pub pool: StudyRuns,
    /// Add the table ordered worst regression first
    #[arg(long)]
    pub sorted: bool,
    /// Print every cell, with its per-seed values, as JSON
    #[arg(long)]
    pub json: bool,
}

pub fn cmd(a: Args) -> Result<String, String> {
    let text = a.scenario.read()?;
    let mut study = Study::new(&text).map_err(|e| format!("{}: {e}", a.scenario.path))?;
    a.pool.apply(&mut study)?;
    let bar = progress::bar(study.runs.len() as u64, format!("study {}", a.scenario.path), "runs");
    run_many(&mut [&mut study], a.pool.threads(), &|done, _| bar.set_position(done as u64))?;
    drop(bar);
    let table = study.table();
    if a.json {
        return serde_json::to_string_pretty(&table).map(|s| s + "\n").map_err(|e| e.to_string());
    }
    let mut out = table.format(false);
    if a.sorted {
        out += "\nsorted, worst first:\n";
        out += &table.format(true);
    }
    Ok(out)
}
