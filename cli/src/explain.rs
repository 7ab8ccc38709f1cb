//! `schedlab explain` (the first events, in words) and `schedlab expand`
//! (what the workload macros became).

use schedlab_engine::lab::player::Player;
use schedlab_engine::Overrides;

use crate::ScenarioArg;

#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub scenario: ScenarioArg,
    /// How many events to explain
    #[arg(long, value_name = "N", default_value_t = 40, value_parser = clap::value_parser!(u64).range(1..))]
    pub events: u64,
}

pub fn cmd(a: Args) -> Result<String, String> {
    let text = a.scenario.read()?;
    let mut p = Player::new(&text, &Overrides::default()).map_err(|e| format!("{}: {e}", a.scenario.path))?;
    let mut out = String::new();
    for _ in 0..a.events {
        if !p.step() {
            break;
        }
        let k = p.event();
        let ex = schedlab_engine::lab::explain::explain_event(p.sim(), p.log(), &p.entries(k));
        out += &format!("#{k} {}: {}\n", schedlab_engine::lab::scenario::format_duration(p.time()), ex.headline);
        for l in &ex.lines {
            out += &format!("    {l}\n");
        }
    }
    Ok(out)
}

#[derive(clap::Args)]
pub struct ExpandArgs {
    #[command(flatten)]
    pub scenario: ScenarioArg,
}

pub fn expand(a: ExpandArgs) -> Result<String, String> {
    let text = a.scenario.read()?;
    let path = &a.scenario.path;
    let sc = schedlab_engine::lab::scenario::parse(&text).map_err(|e| format!("{path}: {e}"))?;
    let cfg = schedlab_engine::lab::build::config(&sc, &Overrides::default()).map_err(|e| format!("{path}: {e}"))?;
    let (tasks, channels, measures) = schedlab_engine::lab::workload::expand_all(&sc, cfg.cpus).map_err(|e| format!("{path}: {e}"))?;
    Ok(schedlab_engine::lab::workload::to_toml(&tasks, &channels, &measures))
}
