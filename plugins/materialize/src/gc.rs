//! `strata gc` (and `run --gc`): what no kept run needs, listed or
//! dropped.

use std::path::Path;

use strata_lifecycle::gc::{Collection, Compact, Doomed, Keep};
use strata_lifecycle::{Failure, Session};
use strata_plugin::config::{ProjectConfig, Settings};
use strata_plugin::{exit, outln, print_json, Format, Host, PluginCommand, Verb};

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
    /// Give back the space dropped tables left inside the warehouse: a
    /// DuckDB file is rewritten without its free blocks and swapped in
    /// atomically, under the writer lock (a compaction killed midway
    /// leaves the old file whole). PostgreSQL and Spark give a dropped
    /// table's space back at once. Without it, `gc --apply` compacts when
    /// `[gc] compact-when-free` of the file is free (default 0.5).
    #[arg(long)]
    pub compact: bool,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// What to keep: the flags, else the `[gc]` settings of the command's
/// strata.toml, else the last 10 runs and 30 days; and when to compact.
pub fn keep(
    runs: Option<usize>,
    days: Option<u64>,
    compact: bool,
    project: &ProjectConfig,
) -> Result<(Keep, Compact), Failure> {
    let compact = match compact {
        true => Compact::Yes,
        false => match project.gc.compact_when_free.unwrap_or(0.5) {
            f if f >= 1.0 => Compact::No,
            f => Compact::WhenFree(f),
        },
    };
    Ok((
        Keep {
            runs: runs.or(project.gc.keep).unwrap_or(10),
            days: Some(days.or(project.gc.keep_days).unwrap_or(30)),
        },
        compact,
    ))
}

pub fn gc(args: GcArgs, host: &dyn Host) -> i32 {
    let result = (|| {
        let settings = Settings::around(Path::new("."));
        let project = settings.get().map_err(config_failure)?;
        let (keep, compact) = keep(args.keep, args.keep_days, args.compact, project)?;
        let wh = args.warehouse.open(&settings)?;
        strata_lifecycle::Session::new(&*wh, &strata_lifecycle::NoProgress)
            .gc(keep, args.apply, compact)
    })();
    match result {
        Ok(c) => {
            print_collection(&c, args.format);
            exit::OK
        }
        Err(f) => report_error(host, f, args.format),
    }
}

/// Run `gc` after a successful run (`run --gc`): `--gc-keep` and
/// `--gc-keep-days` when given, else the project settings.
pub fn after_run(
    session: &Session,
    project: &ProjectConfig,
    runs: Option<usize>,
    days: Option<u64>,
) -> Result<Collection, Failure> {
    let (keep, compact) = keep(runs, days, false, project)?;
    session.gc(keep, true, compact)
}

/// Bytes as people read them: `812 B`, `12.4 kB`, `1.5 MB`, `2.1 GB`.
pub fn human_bytes(bytes: i64) -> String {
    let b = bytes as f64;
    match bytes.unsigned_abs() {
        n if n < 1_000 => format!("{bytes} B"),
        n if n < 1_000_000 => format!("{:.1} kB", b / 1e3),
        n if n < 1_000_000_000 => format!("{:.1} MB", b / 1e6),
        _ => format!("{:.2} GB", b / 1e9),
    }
}

pub fn collection_json(c: &Collection) -> serde_json::Value {
    serde_json::json!({
        "applied": c.applied,
        "kept_runs": c.kept.iter().zip(&c.costs).map(|((id, why), cost)| serde_json::json!({
            "run_id": id, "why": why, "own_bytes": cost.own, "reads_bytes": cost.reads,
        })).collect::<Vec<_>>(),
        "dropped": c.dropped.iter().map(|d| serde_json::json!({
            "table": d.table, "kind": d.kind, "of": d.of, "rows": d.rows, "bytes": d.bytes,
        })).collect::<Vec<_>>(),
        "kept_bytes": c.kept_bytes,
        "warehouse": c.size.as_ref().map(|s| serde_json::json!({
            "what": s.what, "bytes": s.bytes, "free_bytes": s.free,
        })),
        "store_bytes": c.store_bytes,
        "compacted": c.compacted.map(|k| serde_json::json!({"before": k.before, "after": k.after})),
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
        let (files, relations): (Vec<&Doomed>, Vec<&Doomed>) =
            c.dropped.iter().partition(|d| d.kind == "file");
        // A view's rows are its segments' (or a file's, or a source's).
        let (views, tables): (Vec<&Doomed>, Vec<&Doomed>) = relations.iter().partition(|d| d.view);
        let rows: i64 = tables.iter().map(|d| d.rows).sum();
        let bytes: Option<i64> = tables.iter().map(|d| d.bytes).sum();
        let views = match views.len() {
            0 => String::new(),
            n => format!(" and {}", plural(n, "view")),
        };
        let stored = match files.len() {
            0 => String::new(),
            n => format!(
                " and {} of the input store ({} bytes)",
                plural(n, "file"),
                files.iter().filter_map(|d| d.bytes).sum::<i64>()
            ),
        };
        outln!(
            "gc: {verb} {}{views} ({rows} rows{}){stored}; {} kept",
            plural(tables.len(), "table"),
            bytes.map_or(String::new(), |b| format!(", {b} bytes")),
            plural(c.kept.len(), "run")
        );
    }
    for d in &c.dropped {
        let bytes = d.bytes.map_or(String::new(), |b| format!("{b} bytes"));
        let size = if d.kind == "file" {
            bytes
        } else if d.view {
            format!("a view of {} rows", d.rows)
        } else if bytes.is_empty() {
            format!("{} rows", d.rows)
        } else {
            format!("{} rows, {bytes}", d.rows)
        };
        outln!("  {verb}  {}  ({} of {}, {size})", d.table, d.kind, d.of);
    }
    for ((id, why), cost) in c.kept.iter().zip(&c.costs) {
        let costs = match (cost.own, cost.reads) {
            (Some(own), Some(reads)) => format!(
                "; costs {} alone, reads {}",
                human_bytes(own),
                human_bytes(reads)
            ),
            _ => String::new(),
        };
        outln!("  keep  run {id}  ({why}{costs})");
    }
    print_size(c);
    if !c.dropped.is_empty() && !c.applied {
        outln!("(nothing was dropped: run again with --apply to drop these)");
    }
}

/// What the warehouse takes, what the kept runs read, and what a
/// compaction gave back (human format).
fn print_size(c: &Collection) {
    if let Some(k) = c.compacted {
        outln!(
            "compacted: {} -> {} (the file rewritten without its free blocks)",
            human_bytes(k.before),
            human_bytes(k.after)
        );
    }
    if c.nothing_to_compact {
        outln!("compact: nothing to do here (dropping a table gives its space back at once)");
    }
    let mut parts = Vec::new();
    if let Some(s) = &c.size {
        let free = match s.free {
            Some(f) if f > 0 && !c.drop_frees_space => format!(
                ", {} of it free blocks (`strata gc --compact` gives them back)",
                human_bytes(f)
            ),
            _ => String::new(),
        };
        parts.push(format!("{} {}{free}", s.what, human_bytes(s.bytes)));
    }
    if let Some(b) = c.store_bytes.filter(|b| *b > 0) {
        parts.push(format!("input store {}", human_bytes(b)));
    }
    if let Some(k) = c.kept_bytes {
        parts.push(format!("the kept runs read {}", human_bytes(k)));
    }
    if !parts.is_empty() {
        outln!("warehouse: {}", parts.join("; "));
    }
}

impl Verb for GcArgs {
    const NAME: &'static str = "gc";
    const ORDER: usize = 16;
    const ABOUT: &'static str =
        "List (and with --apply drop) the snapshots and frozen inputs that no kept run \
     needs";
    fn run(self, host: &dyn Host) -> i32 {
        gc(self, host)
    }
}

inventory::submit! { PluginCommand::of::<GcArgs>() }
