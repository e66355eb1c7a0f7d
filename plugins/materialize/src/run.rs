//! `strata run` and `strata test`: materialize in the warehouse (embedded
//! DuckDB, PostgreSQL or Spark), with pins, join cardinality checks and
//! declarative tests.

use strata_lifecycle::gc::Collection;
use strata_lifecycle::naming::live_view;
use strata_lifecycle::RunReport;
use strata_plugin::Host;
use strata_plugin::{exit, outln, print_json, Format};

use crate::args::{run_options, CardinalityArgs, SelectArgs, WarehouseArgs};
use crate::gc::{after_run, collection_json, print_collection};
use crate::report::{cardinality_json, print_pins, report_failure};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Manual: docs/lifecycle.md (the run, its checks, what it keeps), docs/engines.md (warehouses and targets), docs/cardinality.md, in the strata source tree."
)]
pub struct RunArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    #[command(flatten)]
    pub cardinality: CardinalityArgs,
    /// The branch whose staged outputs (and, unless main, live views) this
    /// run writes.
    #[arg(long, value_name = "NAME", default_value = "main")]
    pub branch: String,
    /// Build, check and snapshot, but do not repoint the live views.
    #[arg(long)]
    pub stage_only: bool,
    /// Rebuild only the models that are stale (see `strata plan`) and
    /// those downstream of them; a fresh model keeps the snapshot its live
    /// view shows, and its checks are not run again.
    #[arg(long)]
    pub only_stale: bool,
    /// Build incremental models (`merge_strategy: append|upsert`) in full
    /// from their inputs, instead of merging their new rows into the
    /// snapshot their live view shows.
    #[arg(long)]
    pub full_refresh: bool,
    /// After a successful run, drop what `strata gc` would (with the
    /// `[gc]` settings of strata.toml).
    #[arg(long)]
    pub gc: bool,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, clap::Args)]
#[command(after_help = "Manual: docs/lifecycle.md, in the strata source tree.")]
pub struct TestArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    #[command(flatten)]
    pub cardinality: CardinalityArgs,
    /// Test incremental models built in full, as `run --full-refresh`
    /// would publish them (default: merged into the snapshot the main
    /// branch's live view shows, as `run` would).
    #[arg(long)]
    pub full_refresh: bool,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

fn print_report(report: &RunReport, format: Format, header: &str, collected: Option<&Collection>) {
    match format {
        Format::Human => {
            outln!("{header}");
            for (_, relation, rows) in &report.materialized {
                outln!("  materialized  {relation}  ({rows} rows)");
            }
            print_pins(&report.report, &report.cardinality);
            if let Some(c) = collected {
                print_collection(c, format);
            }
        }
        Format::Json => {
            let mut v = serde_json::json!({
                "ok": true,
                "run_id": report.run_id,
                "materialized": report.materialized.iter().map(|(m, r, n)| serde_json::json!({"model": m, "relation": r, "rows": n})).collect::<Vec<_>>(),
                "report": report.report,
                "reused_inputs": report.reused_inputs,
                "cardinality": cardinality_json(&report.cardinality),
            });
            if let Some(c) = collected {
                v["gc"] = collection_json(c);
            }
            if !report.skipped.is_empty() {
                v["skipped"] = skipped_json(report);
            }
            print_json(&v);
        }
    }
}

/// The models `--only-stale` did not rebuild (human format).
fn print_skipped(report: &RunReport, branch: &str) {
    for (m, run) in &report.skipped {
        outln!(
            "  fresh  {}  (not rebuilt: still run {}'s snapshot; its checks were not run again)",
            live_view(m, branch),
            run.as_deref().unwrap_or("?")
        );
    }
}

fn skipped_json(report: &RunReport) -> serde_json::Value {
    serde_json::json!(report
        .skipped
        .iter()
        .map(|(m, run)| serde_json::json!({"model": m, "live_run": run}))
        .collect::<Vec<_>>())
}

pub fn run(args: RunArgs, host: &dyn Host) -> i32 {
    let checked = match host.checked_module(&args.select.file, &args.select.search_dir, args.format)
    {
        Ok(c) => c,
        Err(code) => return code,
    };
    let result = (|| {
        let sample_rows = args.cardinality.sample_rows(&args.select.file)?;
        let mut opts = run_options(&args.select, sample_rows)?;
        opts.branch = args.branch.clone();
        opts.stage_only = args.stage_only;
        opts.only_stale = args.only_stale;
        opts.full_refresh = args.full_refresh;
        let wh = args.warehouse.open(&args.select.file)?;
        let progress = host.progress();
        let report = strata_lifecycle::run(&*wh, &checked.module, &opts, progress.as_ref())?;
        let collected = match args.gc {
            true => Some(after_run(&*wh, &args.select.file)?),
            false => None,
        };
        Ok((report, collected))
    })();
    match result {
        Ok((report, _)) if report.run_id.is_empty() => {
            match args.format {
                Format::Human => {
                    outln!(
                        "nothing to rebuild: every selected model is fresh (branch {}); no run recorded",
                        args.branch
                    );
                    print_skipped(&report, &args.branch);
                }
                Format::Json => print_json(&serde_json::json!({
                    "ok": true,
                    "run_id": null,
                    "materialized": [],
                    "skipped": skipped_json(&report),
                })),
            }
            exit::OK
        }
        Ok((report, collected)) => {
            let header = format!(
                "run {} ({}{})",
                report.run_id,
                if args.stage_only {
                    "staged only, branch "
                } else {
                    "branch "
                },
                args.branch
            );
            print_report(&report, args.format, &header, collected.as_ref());
            if args.format == Format::Human {
                print_skipped(&report, &args.branch);
            }
            exit::OK
        }
        Err(f) => report_failure(host, f, &checked, args.format, "run"),
    }
}

pub fn test(args: TestArgs, host: &dyn Host) -> i32 {
    let checked = match host.checked_module(&args.select.file, &args.select.search_dir, args.format)
    {
        Ok(c) => c,
        Err(code) => return code,
    };
    let result = (|| {
        let sample_rows = args.cardinality.sample_rows(&args.select.file)?;
        let mut opts = run_options(&args.select, sample_rows)?;
        opts.full_refresh = args.full_refresh;
        let wh = args.warehouse.open(&args.select.file)?;
        let progress = host.progress();
        strata_lifecycle::test(&*wh, &checked.module, &opts, progress.as_ref())
    })();
    match result {
        Ok(report) => {
            print_report(
                &report,
                args.format,
                "test (branch test; live views untouched)",
                None,
            );
            exit::OK
        }
        Err(f) => report_failure(host, f, &checked, args.format, "test"),
    }
}
