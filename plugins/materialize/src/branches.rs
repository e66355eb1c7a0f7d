//! `strata branches`: each branch's models, views and the runs they show.

use std::path::Path;

use strata_lifecycle::Failure;
use strata_plugin::config::Settings;
use strata_plugin::{exit, outln, print_json, Format, Host, PluginCommand, Verb};

use crate::args::WarehouseArgs;
use crate::report::report_error;

#[derive(Debug, clap::Args)]
#[command(after_help = "Manual: docs/lifecycle.md, in the strata source tree.")]
pub struct BranchesArgs {
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn branches(args: BranchesArgs, host: &dyn Host) -> i32 {
    let result = (|| {
        let wh = args.warehouse.open(&Settings::around(Path::new(".")))?;
        Ok::<_, Failure>((
            strata_lifecycle::StateReader::new(&*wh).branches()?,
            wh.name().to_string(),
        ))
    })();
    let (branches, warehouse) = match result {
        Ok(b) => b,
        Err(f) => return report_error(host, f, args.format),
    };
    match args.format {
        Format::Human => {
            if branches.is_empty() {
                outln!("no runs recorded in {warehouse}");
            }
            for b in &branches {
                outln!(
                    "{}  last run {} at {}  ({} run{})",
                    b.name,
                    b.last_run.0,
                    b.last_run.1,
                    b.runs,
                    if b.runs == 1 { "" } else { "s" }
                );
                for m in &b.models {
                    let show = |v: &Option<(String, String)>| {
                        v.as_ref()
                            .map_or("-".to_string(), |(view, run)| format!("{view} (run {run})"))
                    };
                    outln!(
                        "  {}  live {}  staged {}",
                        m.model,
                        show(&m.live),
                        show(&m.staged)
                    );
                }
            }
        }
        Format::Json => {
            let view = |v: &Option<(String, String)>| {
                v.as_ref()
                    .map(|(view, run)| serde_json::json!({"view": view, "run_id": run}))
            };
            print_json(&serde_json::json!(branches
                .iter()
                .map(|b| serde_json::json!({
                    "branch": b.name,
                    "runs": b.runs,
                    "last_run": {"run_id": b.last_run.0, "started_at": b.last_run.1},
                    "models": b.models.iter().map(|m| serde_json::json!({
                        "model": m.model, "live": view(&m.live), "staged": view(&m.staged),
                    })).collect::<Vec<_>>(),
                }))
                .collect::<Vec<_>>()));
        }
    }
    exit::OK
}

impl Verb for BranchesArgs {
    const NAME: &'static str = "branches";
    const ORDER: usize = 15;
    const ABOUT: &'static str =
        "List the warehouse's branches: each model's live and staged views and the runs \
     they show";
    fn run(self, host: &dyn Host) -> i32 {
        branches(self, host)
    }
}

inventory::submit! { PluginCommand::of::<BranchesArgs>() }
