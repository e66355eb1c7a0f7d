//! `strata rollback`: the live views back to an earlier run's snapshots.

use std::path::PathBuf;

use strata_plugin::{exit, outln, print_json, Format, Host, PluginCommand, Verb};

use crate::args::{required_run_id, WarehouseArgs};
use crate::report::report_error;

#[derive(Debug, clap::Args)]
#[command(after_help = "Manual: docs/lifecycle.md, in the strata source tree.")]
pub struct RollbackArgs {
    /// The module file (its strata.toml names `--target`s; it is recorded
    /// with the rollback).
    /// Default: the project's module (strata.toml in the current directory
    /// or above).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The run to go back to (required): its id, or a unique prefix of it
    /// (`strata replay` lists them).
    #[arg(value_name = "RUN_ID")]
    pub run_id: Option<String>,
    /// Only these models of the run (repeatable); default: every model it
    /// built.
    #[arg(long = "model", value_name = "NAME")]
    pub models: Vec<String>,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn rollback(args: RollbackArgs, host: &dyn Host) -> i32 {
    let (file, settings, run_id) =
        match required_run_id(args.file.clone(), args.run_id.clone(), "rollback") {
            Ok(f) => f,
            Err(code) => return code,
        };
    let result = (|| {
        let wh = args.warehouse.open(&settings)?;
        strata_lifecycle::Session::new(&*wh, &strata_lifecycle::NoProgress).rollback_to(
            &file.display().to_string(),
            &run_id,
            &args.models,
        )
    })();
    let r = match result {
        Ok(r) => r,
        Err(f) => return report_error(host, f, args.format),
    };
    match args.format {
        Format::Human => {
            outln!(
                "rollback {} (branch {}): live views back to run {}",
                r.run_id,
                r.branch,
                r.to
            );
            for (_, view, snapshot) in &r.repointed {
                outln!("  {view} -> {snapshot}");
            }
        }
        Format::Json => print_json(&serde_json::json!({
            "ok": true,
            "run_id": r.run_id,
            "rolled_back_to": r.to,
            "branch": r.branch,
            "views": r.repointed.iter().map(|(m, v, s)| serde_json::json!({"model": m, "view": v, "snapshot": s})).collect::<Vec<_>>(),
        })),
    }
    exit::OK
}

impl Verb for RollbackArgs {
    const NAME: &'static str = "rollback";
    const ORDER: usize = 14;
    const ABOUT: &'static str =
        "Point the live views back at an earlier run's snapshots, in one transaction \
     (recorded as a run of its own)";
    fn run(self, host: &dyn Host) -> i32 {
        rollback(self, host)
    }
}

inventory::submit! { PluginCommand::of::<RollbackArgs>() }
