//! `schedlab compare`: one scenario under two configurations.

use schedlab_engine::lab::compare::{compare, ConfigSpec};

use crate::{progress, ScenarioArg};

#[derive(clap::Args)]
#[command(after_help = "CONFIG is KERNEL[+PATCH...][,FLAG=on|off...], e.g. --base 6.6 --patch 6.6+reweight-fix")]
pub struct Args {
    #[command(flatten)]
    pub scenario: ScenarioArg,
    /// The baseline configuration
    #[arg(long, value_name = "CONFIG", value_parser = ConfigSpec::parse)]
    pub base: ConfigSpec,
    /// The configuration compared against it
    #[arg(long, value_name = "CONFIG", value_parser = ConfigSpec::parse)]
    pub patch: ConfigSpec,
    /// Seeds per configuration (the scenario's seed, +1, ...)
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub runs: u32,
    /// Print the comparison as JSON
    #[arg(long)]
    pub json: bool,
}

pub fn cmd(a: Args) -> Result<String, String> {
    let text = a.scenario.read()?;
    let busy = progress::busy(format!("comparing {} against {}, {} run(s) each", a.patch.text, a.base.text, a.runs));
    let c = compare(&text, &a.base, &a.patch, a.runs).map_err(|e| format!("{}: {e}", a.scenario.path))?;
    drop(busy);
    if a.json {
        return serde_json::to_string_pretty(&c).map(|s| s + "\n").map_err(|e| e.to_string());
    }
    let mut out = format!("base: {}   patch: {}   runs: {}\n", c.base.text, c.patch.text, c.runs);
    out += &format!("{:<16} {:<14} {:>14} {:>8} {:>14} {:>8} {:>9}\n", "task", "metric", "base", "(std)", "patch", "(std)", "change");
    for d in &c.deltas {
        out += &format!(
            "{:<16} {:<14} {:>14.3} {:>8.3} {:>14.3} {:>8.3} {:>+8.2}%\n",
            d.task, d.metric, d.base_mean, d.base_std, d.patch_mean, d.patch_std, d.change_pct
        );
    }
    match &c.divergence {
        None => out += "the two runs are identical (no divergence)\n",
        Some(d) => {
            let at = d.base.or(d.patch).map(|e| (e.time, e.event)).unwrap_or((0, 0));
            out += &format!(
                "first divergence: record {} (event {}, t = {} ns)\n  base:  {:?}\n  patch: {:?}\n",
                d.index,
                at.1,
                at.0,
                d.base.map(|e| e.record),
                d.patch.map(|e| e.record)
            );
        }
    }
    Ok(out)
}
