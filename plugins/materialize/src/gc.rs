//! `strata gc` (and `run --gc`): what no kept run needs, listed or
//! dropped.

use std::path::Path;

use strata_lifecycle::gc::{Collection, Doomed, Keep};
use strata_lifecycle::{Failure, Warehouse};
use strata_plugin::config;
use strata_plugin::{exit, outln, print_json, Format, Host};

use crate::args::{config_failure, WarehouseArgs};
use crate::report::report_error;

#[derive(Debug, Clone, clap::Args)]
#[command(after_help = "Manual: docs/lifecycle.md, in the strata source tree.")]
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
    let project = config::discover(start).map_err(config_failure)?;
    Ok(Keep {
        runs: runs.or(project.gc.keep).unwrap_or(10),
        days: Some(days.or(project.gc.keep_days).unwrap_or(30)),
    })
}

pub fn gc(args: GcArgs, host: &dyn Host) -> i32 {
    let result = (|| {
        let keep = keep(args.keep, args.keep_days, Path::new("."))?;
        let wh = args.warehouse.open(Path::new("."))?;
        strata_lifecycle::gc::gc(&*wh, keep, args.apply)
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
    strata_lifecycle::gc::gc(wh, keep(None, None, module)?, true)
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
