//! `strata rollback`, `strata branches` and `strata gc`: the warehouse over
//! time, from its run history.

use std::path::{Path, PathBuf};

use strata_plugin::config;
use strata_plugin::{exit, outln, print_json, Format, Host};

use super::run::{report_error, WarehouseArgs};
use crate::timeline::{self, Collection, Doomed, Keep};
use crate::{Failure, Warehouse};

#[derive(Debug, clap::Args)]
pub struct RollbackArgs {
    /// The module file (its strata.toml names `--target`s; it is recorded
    /// with the rollback).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// The run to go back to: its id, or a unique prefix of it (`strata
    /// replay FILE` lists them).
    #[arg(value_name = "RUN_ID")]
    pub run_id: String,
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
    let result = (|| {
        let wh = args.warehouse.open(&args.file)?;
        timeline::rollback(
            &*wh,
            &args.file.display().to_string(),
            &args.run_id,
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

#[derive(Debug, clap::Args)]
pub struct BranchesArgs {
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn branches(args: BranchesArgs, host: &dyn Host) -> i32 {
    let result = (|| {
        let wh = args.warehouse.open(Path::new("."))?;
        Ok::<_, Failure>((timeline::branches(&*wh)?, wh.name().to_string()))
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

#[derive(Debug, Clone, clap::Args)]
pub struct GcArgs {
    /// Keep the last N runs of each branch. Default: `[gc] keep` of
    /// strata.toml, else 10.
    #[arg(long, value_name = "N")]
    pub keep: Option<usize>,
    /// Also keep every run started less than D days ago. Default: `[gc]
    /// keep-days` of strata.toml, else 30.
    #[arg(long, value_name = "D")]
    pub keep_days: Option<u64>,
    /// Drop what is listed (in one transaction); without it, only list.
    #[arg(long)]
    pub apply: bool,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// What to keep: the flags, else the `[gc]` settings of the strata.toml
/// nearest `start`, else the last 10 runs and 30 days.
pub fn keep(runs: Option<usize>, days: Option<u64>, start: &Path) -> Result<Keep, Failure> {
    let project = config::discover(start).map_err(|e| match e {
        config::ConfigError::Invalid(m) => Failure::Usage(m),
        config::ConfigError::Unreadable(m) => Failure::Environment(m),
    })?;
    Ok(Keep {
        runs: runs.or(project.gc.keep).unwrap_or(10),
        days: Some(days.or(project.gc.keep_days).unwrap_or(30)),
    })
}

pub fn gc(args: GcArgs, host: &dyn Host) -> i32 {
    let result = (|| {
        let keep = keep(args.keep, args.keep_days, Path::new("."))?;
        let wh = args.warehouse.open(Path::new("."))?;
        timeline::gc(&*wh, keep, args.apply)
    })();
    match result {
        Ok(c) => {
            print_collection(&c, args.format);
            exit::OK
        }
        Err(f) => report_error(host, f, args.format),
    }
}

/// Run `gc` after a successful run (`run --gc`), with the project settings.
pub fn after_run(wh: &Warehouse, module: &Path) -> Result<Collection, Failure> {
    timeline::gc(wh, keep(None, None, module)?, true)
}

pub fn collection_json(c: &Collection) -> serde_json::Value {
    serde_json::json!({
        "applied": c.applied,
        "kept_runs": c.kept.iter().map(|(id, why)| serde_json::json!({"run_id": id, "why": why})).collect::<Vec<_>>(),
        "dropped": c.dropped.iter().map(|d| serde_json::json!({
            "table": d.table, "kind": d.kind, "of": d.of, "rows": d.rows, "bytes": d.bytes,
        })).collect::<Vec<_>>(),
    })
}

pub fn print_collection(c: &Collection, format: Format) {
    if format == Format::Json {
        print_json(&collection_json(c));
        return;
    }
    let verb = if c.applied { "dropped" } else { "would drop" };
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    if c.dropped.is_empty() {
        outln!(
            "gc: nothing to collect ({} kept)",
            plural(c.kept.len(), "run")
        );
    } else {
        let (files, tables): (Vec<&Doomed>, Vec<&Doomed>) =
            c.dropped.iter().partition(|d| d.kind == "file");
        let rows: i64 = tables.iter().map(|d| d.rows).sum();
        let bytes: Option<i64> = tables.iter().map(|d| d.bytes).sum();
        let stored = match files.len() {
            0 => String::new(),
            n => format!(
                " and {} of the input store ({} bytes)",
                plural(n, "file"),
                files.iter().filter_map(|d| d.bytes).sum::<i64>()
            ),
        };
        outln!(
            "gc: {verb} {} ({rows} rows{}){stored}; {} kept",
            plural(tables.len(), "table"),
            bytes.map_or(String::new(), |b| format!(", {b} bytes")),
            plural(c.kept.len(), "run")
        );
    }
    for d in &c.dropped {
        let bytes = d.bytes.map_or(String::new(), |b| format!("{b} bytes"));
        let size = if d.kind == "file" {
            bytes
        } else if bytes.is_empty() {
            format!("{} rows", d.rows)
        } else {
            format!("{} rows, {bytes}", d.rows)
        };
        outln!("  {verb}  {}  ({} of {}, {size})", d.table, d.kind, d.of);
    }
    for (id, why) in &c.kept {
        outln!("  keep  run {id}  ({why})");
    }
    if c.dropped.is_empty() {
        return;
    }
    if !c.applied {
        outln!("(nothing was dropped: run again with --apply to drop these)");
    }
}
