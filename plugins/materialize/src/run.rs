//! `strata run` and `strata test`: materialize in the warehouse (embedded
//! DuckDB, PostgreSQL or Spark), with pins, join cardinality checks and
//! declarative tests.

use strata_lifecycle::gc::Collection;
use strata_lifecycle::live_view;
use strata_lifecycle::RunReport;
use strata_plugin::{exit, outln, print_json, Format};
use strata_plugin::{Host, PluginCommand, Verb};

use crate::args::{run_options, CardinalityArgs, SelectArgs, Selection, WarehouseArgs};
use crate::fixtures as fixture_report;
use crate::gc::{after_run, collection_json, print_collection};
use crate::metrics::{MetricsArgs, Outcome};
use crate::openlineage::{self, OpenLineageArgs};
use crate::report::{cardinality_json, print_pins, report_error, report_failure};
use strata_lifecycle::fixtures::{self, FixtureRun};

#[derive(Debug, clap::Args)]
#[command(
    after_help = "Manual: docs/lifecycle.md (the run, its checks, what it keeps), docs/engines.md (warehouses and targets), docs/cardinality.md, docs/metrics.md (--metrics-file), docs/openlineage.md (--openlineage), docs/reference-options.md (the reference's --freshness and --seed), in the strata source tree."
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
    /// The time `current_date()` and `current_timestamp()` read, UTC unless
    /// it names an offset: a date (`2026-12-07`) or a date and time
    /// (`2026-12-07T10:30:00Z`). Default: when the run starts. Recorded with
    /// the run, so `replay --execute` reads it again.
    #[arg(long, value_name = "TIME", value_parser = strata_lifecycle::parse_clock)]
    pub now: Option<strata_lang::sql::Clock>,
    /// Rebuild only the models that are stale (see `strata plan`) and
    /// those downstream of them; a fresh model keeps the snapshot its live
    /// view shows, and its checks are not run again. The default when
    /// strata.toml says `[run] only-stale = true`.
    #[arg(long, conflicts_with = "rebuild")]
    pub only_stale: bool,
    /// Rebuild every selected model, stale or not (overrides strata.toml's
    /// `[run] only-stale = true`).
    #[arg(long)]
    pub rebuild: bool,
    /// Build incremental models (`merge_strategy: append|upsert`) in full
    /// from their inputs, instead of merging their new rows into the
    /// snapshot their live view shows.
    #[arg(long)]
    pub full_refresh: bool,
    /// After a successful run, drop what `strata gc` would (with the
    /// `[gc]` settings of strata.toml).
    #[arg(long)]
    pub gc: bool,
    /// With --gc: keep the last N runs of each branch (overrides `[gc]
    /// keep` of strata.toml; default 10).
    #[arg(long, value_name = "N", requires = "gc")]
    pub gc_keep: Option<usize>,
    /// With --gc: also keep every run started less than D days ago
    /// (overrides `[gc] keep-days`; default 30).
    #[arg(long, value_name = "D", requires = "gc")]
    pub gc_keep_days: Option<u64>,
    #[command(flatten)]
    pub metrics: MetricsArgs,
    #[command(flatten)]
    pub openlineage: OpenLineageArgs,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// What `strata test --help` says after the options: the two phases, what
/// runs when, and the exit codes.
pub const TEST_HELP: &str = "\
Fixture tests run first: each `test MODEL \"name\" { given .. expect rows .. }` runs its
model on the rows the test gives, through the same compiled SQL and checks (contract pins,
join promises) a run uses, on one in-memory DuckDB. They need no warehouse, no source data
and no pipeline. A failure shows the row diff: - expected rows the model did not output,
+ output rows nothing expected.

Then, unless a fixture test failed, the data phase: the selected models are materialized
into the `test` branch of the warehouse with every pin and join check, and the declarative
tests (`test MODEL { expect .. }`) run on them; live views are never touched.

When no data is named (no -o, --target or $STRATA_WAREHOUSE, no --pipeline, no --source)
and the default warehouse (strata.duckdb) does not exist or lacks the sources, the data
phase is skipped and the report says why, as long as fixture tests ran. Data that is named
but missing is an error, as is a module with neither fixture tests nor data.

Exit codes: 0 every test passed; 1 module errors; 2 usage; 3 a test or check failed;
4 environment (the named warehouse or its data is missing, a database error).

Manual: docs/fixtures.md, docs/lifecycle.md, docs/metrics.md (--metrics-file) and
docs/reference-options.md (the reference's --fixtures and --seed), in the strata source tree.";

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
    /// The time `current_date()` and `current_timestamp()` read, in the
    /// fixture tests and the data phase alike: a date (`2026-12-07`) or a
    /// date and time (`2026-12-07T10:30:00Z`), UTC unless it names an
    /// offset. Default: when the tests start. A fixture test of a model
    /// that reads the clock needs it to expect the same rows every day.
    #[arg(long, value_name = "TIME", value_parser = strata_lifecycle::parse_clock)]
    pub now: Option<strata_lang::sql::Clock>,
    /// Run only the fixture tests (no warehouse is opened), or only the
    /// data phase (materialize into the `test` branch, then the
    /// declarative tests). Default: both, fixture tests first.
    #[arg(long, value_enum, value_name = "WHICH")]
    pub only: Option<Only>,
    /// Run only the fixture tests whose label (`model "name"`, as the
    /// report shows it) contains TEXT; the data phase is not filtered.
    #[arg(long, value_name = "TEXT")]
    pub filter: Option<String>,
    #[command(flatten)]
    pub metrics: MetricsArgs,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Which tests `strata test --only` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Only {
    /// The fixture tests: each model on the rows its test gives.
    Fixtures,
    /// The warehouse's data: materialize, pins, join checks, declarative tests.
    Data,
}

pub(crate) fn print_report(
    report: &RunReport,
    format: Format,
    header: &str,
    collected: Option<&Collection>,
) {
    match format {
        Format::Human => {
            outln!("{header}");
            // How the sources strata.toml names were frozen (a delta, or
            // why a full copy).
            for note in report.frozen.iter().filter(|n| n.declared) {
                outln!("  {note}");
            }
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
                "inputs": report.frozen.iter().map(|n| serde_json::json!({
                    "source": n.source, "freeze": n.how, "relation": n.relation, "rows": n.rows,
                    "added_rows": n.added, "segments": n.segments, "why": n.why,
                })).collect::<Vec<_>>(),
                "cardinality": cardinality_json(&report.cardinality),
                "timings": report.timings,
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
    let (select, checked) = match args.select.clone().checked("run", host, args.format) {
        Ok(c) => c,
        Err(code) => return code,
    };
    if let Err(f) = args.metrics.check_writable() {
        return crate::report::report_error(host, f, args.format);
    }
    let lineage = match args
        .openlineage
        .emitter(&select.settings(), &select.file, select.pipeline.as_deref())
        .and_then(|e| e.map(|e| e.start().map(|()| e)).transpose())
    {
        Ok(e) => e,
        Err(f) => return report_error(host, f, args.format),
    };
    let started = std::time::Instant::now();
    let mut used = None;
    let result = (|| {
        let sample_rows = args.cardinality.sample_rows(&select.project);
        let mut opts = run_options(&select, sample_rows)?;
        opts.branch = args.branch.clone();
        opts.stage_only = args.stage_only;
        opts.only_stale = args.only_stale || (select.project.only_stale && !args.rebuild);
        opts.full_refresh = args.full_refresh;
        opts.clock = args.now.clone();
        used = Some(opts.clone());
        let wh = args.warehouse.open(&select.settings())?;
        let progress = host.progress();
        let session = strata_lifecycle::Session::new(&*wh, progress.as_ref());
        let report = session.run(&checked.module, &opts)?;
        let collected = match args.gc {
            true => Some(after_run(
                &session,
                &select.project,
                args.gc_keep,
                args.gc_keep_days,
            )?),
            false => None,
        };
        Ok((report, collected))
    })();
    let outcome = Outcome {
        command: "run",
        module: &select.file,
        branch: &args.branch,
        seconds: started.elapsed().as_secs_f64(),
        report: result.as_ref().ok().map(|(r, _)| r),
        failure: result.as_ref().err(),
        fixtures: (0, 0),
    };
    if let Err(f) = args.metrics.write(&outcome) {
        return crate::report::report_error(host, f, args.format);
    }
    let sent = openlineage::finish(
        lineage.as_ref(),
        &checked.module,
        used.as_ref(),
        &args.warehouse,
        &select.settings(),
        result.as_ref().map(|(r, _)| r),
    );
    let code = match result {
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
    };
    openlineage::exit_code(sent, code)
}

pub fn test(args: TestArgs, host: &dyn Host) -> i32 {
    let (select, checked) = match args.select.clone().checked("test", host, args.format) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let module = &checked.module;
    if let Err(f) = args.metrics.check_writable() {
        return report_error(host, f, args.format);
    }
    let started = std::time::Instant::now();
    let opts = match run_options(&select, args.cardinality.sample_rows(&select.project)) {
        Ok(mut o) => {
            o.full_refresh = args.full_refresh;
            o.clock = args.now.clone();
            o
        }
        Err(f) => return report_error(host, f, args.format),
    };
    // 1. The fixture tests, on their own rows.
    let fixtures = match args.only {
        Some(Only::Data) => None,
        _ => {
            let run = fixtures::select(module, &opts, args.filter.as_deref()).and_then(|tests| {
                fixtures::run(
                    module,
                    &tests,
                    opts.clock.as_ref(),
                    host.progress().as_ref(),
                )
            });
            match run {
                Ok(run) => Some(run),
                Err(f) => return report_error(host, f, args.format),
            }
        }
    };
    let ran = fixtures.as_ref().map_or(0, |f| f.results.len());
    let failed = fixtures.as_ref().map_or(0, FixtureRun::failed);
    if args.format == Format::Human {
        if let Some(run) = &fixtures {
            fixture_report::print_run(run, module);
            fixture_report::print_failures(run, &checked, host);
        }
    }
    // 2. The warehouse's data, when there is some to read.
    let data = if args.only == Some(Only::Fixtures) {
        Data::Skipped("--only fixtures".to_string())
    } else if failed > 0 {
        Data::Skipped(format!(
            "{failed} fixture test{} failed",
            if failed == 1 { "" } else { "s" }
        ))
    } else {
        data_phase(&args, &select, module, &opts, ran > 0, host)
    };
    let outcome = Outcome {
        command: "test",
        module: &select.file,
        branch: "test",
        seconds: started.elapsed().as_secs_f64(),
        report: match &data {
            Data::Ran(r) => Some(r),
            _ => None,
        },
        failure: match &data {
            Data::Failed(f) => Some(f),
            _ => None,
        },
        fixtures: (ran - failed, failed),
    };
    if let Err(f) = args.metrics.write(&outcome) {
        return report_error(host, f, args.format);
    }
    finish_test(&args, &checked, fixtures.as_ref(), data, host)
}

/// What the data phase of `strata test` did.
enum Data {
    Ran(RunReport),
    /// Not run, and why.
    Skipped(String),
    Failed(strata_lifecycle::Failure),
}

/// Whether the command line (or the environment) names the data to test:
/// a warehouse, a pipeline (or the project's default pipeline) or a source
/// override.
fn data_named(args: &TestArgs, select: &Selection) -> bool {
    args.warehouse.warehouse.is_some()
        || args.warehouse.target.is_some()
        || std::env::var("STRATA_WAREHOUSE").is_ok_and(|w| !w.is_empty())
        || select.pipeline.is_some()
        || !select.sources.is_empty()
}

/// Materialize into the `test` branch and run the declarative tests; with
/// no data named and fixture tests run, a default warehouse that is not
/// there (or lacks the sources) skips this instead of failing.
fn data_phase(
    args: &TestArgs,
    select: &Selection,
    module: &strata_lang::ir::Module,
    opts: &strata_lifecycle::RunOptions,
    fixtures_ran: bool,
    host: &dyn Host,
) -> Data {
    let may_skip = fixtures_ran && args.only.is_none() && !data_named(args, select);
    let result = (|| {
        let target = args.warehouse.target(&select.settings())?;
        if may_skip {
            if let strata_lifecycle::Target::DuckDb(path) = &target {
                let file = strata_lifecycle::duckdb_file(path);
                if file != ":memory:" && !std::path::Path::new(file).exists() {
                    return Ok(Err(format!(
                        "no warehouse: {file} does not exist (name one with -o or --target, or a pipeline whose sources are files with --pipeline)"
                    )));
                }
            }
        }
        let wh = args.warehouse.open(&select.settings())?;
        let progress = host.progress();
        let session = strata_lifecycle::Session::new(&*wh, progress.as_ref());
        if may_skip {
            if let Some(why) = session.missing_data(module, opts)? {
                return Ok(Err(format!("no data to read: {why}")));
            }
        }
        session.test(module, opts).map(Ok)
    })();
    match result {
        Ok(Ok(report)) => Data::Ran(report),
        Ok(Err(why)) => Data::Skipped(why),
        Err(f) => Data::Failed(f),
    }
}

/// Report the data phase and the outcome of the whole command; its exit code.
fn finish_test(
    args: &TestArgs,
    checked: &strata_lang::Checked,
    fixtures: Option<&FixtureRun>,
    data: Data,
    host: &dyn Host,
) -> i32 {
    let failed = fixtures.map_or(0, FixtureRun::failed);
    let fixtures_json = fixtures.map(|f| fixture_report::run_json(f, checked, host));
    let header = "test (branch test; live views untouched)";
    match (args.format, data) {
        (Format::Human, Data::Ran(report)) => {
            print_report(&report, Format::Human, header, None);
            exit::OK
        }
        (Format::Human, Data::Skipped(why)) => {
            outln!("declarative tests and data checks: not run ({why})");
            if failed > 0 {
                eprintln!(
                    "error: {failed} fixture test{} failed; no warehouse was read",
                    if failed == 1 { "" } else { "s" }
                );
                return exit::DATA_CHECK;
            }
            if fixtures.is_some_and(|f| f.results.is_empty()) {
                let filter = args
                    .filter
                    .as_deref()
                    .map(|f| format!(" whose label contains '{f}'"))
                    .unwrap_or_default();
                eprintln!("note: no fixture test{filter} among the selected models");
            }
            exit::OK
        }
        (Format::Human, Data::Failed(f)) => report_failure(host, f, checked, Format::Human, "test"),
        (Format::Json, data) => {
            let (mut v, code) = match data {
                Data::Ran(report) => {
                    let v = serde_json::json!({
                        "ok": true,
                        "run_id": report.run_id,
                        "materialized": report.materialized.iter().map(|(m, r, n)| serde_json::json!({"model": m, "relation": r, "rows": n})).collect::<Vec<_>>(),
                        "report": report.report,
                        "reused_inputs": report.reused_inputs,
                        "cardinality": cardinality_json(&report.cardinality),
                        "data": {"ran": true},
                    });
                    (v, exit::OK)
                }
                Data::Skipped(why) => {
                    let code = if failed > 0 {
                        exit::DATA_CHECK
                    } else {
                        exit::OK
                    };
                    let v = serde_json::json!({
                        "ok": failed == 0,
                        "data": {"ran": false, "reason": why},
                    });
                    (v, code)
                }
                Data::Failed(strata_lifecycle::Failure::Data(d)) => {
                    let v = serde_json::json!({
                        "ok": false,
                        "report": d.report,
                        "failure": host.json_diagnostic(&checked.sources, &d.diagnostic),
                        "data": {"ran": true},
                    });
                    (v, exit::DATA_CHECK)
                }
                Data::Failed(strata_lifecycle::Failure::Usage(msg)) => {
                    eprintln!("error: {msg}");
                    (serde_json::json!({"ok": false, "error": msg}), exit::USAGE)
                }
                Data::Failed(strata_lifecycle::Failure::Environment(msg)) => {
                    eprintln!("error: {msg}");
                    (
                        serde_json::json!({"ok": false, "error": msg}),
                        exit::ENVIRONMENT,
                    )
                }
            };
            if let Some(f) = fixtures_json {
                v["fixtures"] = f;
            }
            if code != exit::OK {
                v["exit_code"] = code.into();
            }
            print_json(&v);
            code
        }
    }
}

impl Verb for RunArgs {
    const NAME: &'static str = "run";
    const ORDER: usize = 10;
    const ABOUT: &'static str = "Materialize the module in the warehouse (DuckDB, PostgreSQL or Spark): build, check (pins, join \
     cardinality, tests) and publish, all or nothing";
    fn run(self, host: &dyn Host) -> i32 {
        run(self, host)
    }
}

inventory::submit! { PluginCommand::of::<RunArgs>() }

impl Verb for TestArgs {
    const NAME: &'static str = "test";
    const ORDER: usize = 11;
    const ABOUT: &'static str =
        "Run the fixture tests (each model on the rows its test gives, no warehouse \
     needed), then materialize into the `test` branch and run the declarative tests; \
     live views are never touched";

    fn more(command: clap::Command) -> clap::Command {
        command.after_long_help(TEST_HELP)
    }

    fn run(self, host: &dyn Host) -> i32 {
        test(self, host)
    }
}

inventory::submit! { PluginCommand::of::<TestArgs>() }
