//! `strata run` and `strata test`: materialize in the embedded DuckDB
//! warehouse, with pins, join cardinality checks and declarative tests.

use std::path::PathBuf;
use std::time::Duration;

use strata_lang::Checked;
use strata_materialize::{inputs, Failure, RunOptions, RunReport, Warehouse};

use super::check::check_roots;
use crate::exit;
use crate::render::{self, Format};

/// Options shared by the commands that open the warehouse.
#[derive(Debug, Clone, clap::Args)]
pub struct WarehouseArgs {
    /// The DuckDB warehouse file (created if missing); `:memory:` for a
    /// throw-away run.
    #[arg(
        long,
        short = 'o',
        value_name = "PATH",
        default_value = "strata.duckdb"
    )]
    pub warehouse: String,
    /// Seconds to wait for another writer to release the warehouse.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub lock_timeout: f64,
}

impl WarehouseArgs {
    pub fn open(&self) -> Result<Warehouse, Failure> {
        Warehouse::open(
            &self.warehouse,
            Duration::from_secs_f64(self.lock_timeout.max(0.0)),
        )
    }
}

/// Options selecting what to materialize.
#[derive(Debug, Clone, clap::Args)]
pub struct SelectArgs {
    /// The module file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Only these models (and the models they read); default: all.
    #[arg(value_name = "MODEL")]
    pub models: Vec<String>,
    /// Use this pipeline's model selection and source overrides.
    #[arg(long, value_name = "NAME")]
    pub pipeline: Option<String>,
    /// Read a source from a table or a .csv/.parquet/.json file instead of
    /// the table named after it (repeatable).
    #[arg(long = "source", value_name = "NAME=TABLE_OR_FILE")]
    pub sources: Vec<String>,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    /// The branch whose staged outputs (and, unless main, live views) this
    /// run writes.
    #[arg(long, value_name = "NAME", default_value = "main")]
    pub branch: String,
    /// Build, check and snapshot, but do not repoint the live views.
    #[arg(long)]
    pub stage_only: bool,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, clap::Args)]
pub struct TestArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// Check the module; on errors render them and return the exit code.
pub fn checked_module(
    file: &PathBuf,
    search_dirs: &[PathBuf],
    format: Format,
) -> Result<Checked, i32> {
    let mut results = check_roots(std::slice::from_ref(file), search_dirs, format)?;
    let Some((root, checked)) = results.pop() else {
        return Err(exit::USAGE);
    };
    if checked.has_errors() {
        match format {
            Format::Human => {
                render::print_diagnostics(&checked.sources, &checked.diagnostics);
                eprintln!(
                    "error: {} has {}; nothing was run",
                    root.display(),
                    render::count_summary(&checked.diagnostics)
                );
            }
            Format::Json => render::print_json(&serde_json::json!({
                "ok": false,
                "diagnostics": render::json_diagnostics(&checked.sources, &checked.diagnostics),
            })),
        }
        return Err(exit::MODULE_ERRORS);
    }
    Ok(checked)
}

/// Report a failure and return its exit code.
pub fn report_failure(failure: Failure, checked: &Checked, format: Format, what: &str) -> i32 {
    match failure {
        Failure::Usage(msg) => {
            eprintln!("error: {msg}");
            if format == Format::Json {
                render::print_json(
                    &serde_json::json!({ "ok": false, "error": msg, "exit_code": exit::USAGE }),
                );
            }
            exit::USAGE
        }
        Failure::Environment(msg) => super::check::environment_error(&msg, format),
        Failure::Data(data) => {
            match format {
                Format::Human => {
                    for line in &data.report {
                        crate::outln!("{line}");
                    }
                    render::print_diagnostics(
                        &checked.sources,
                        std::slice::from_ref(&data.diagnostic),
                    );
                    eprintln!("error: {what} failed a data check; nothing was published");
                }
                Format::Json => render::print_json(&serde_json::json!({
                    "ok": false,
                    "report": data.report,
                    "failure": render::json_diagnostic(&checked.sources, &data.diagnostic),
                    "exit_code": exit::DATA_CHECK,
                })),
            }
            exit::DATA_CHECK
        }
    }
}

pub fn run_options(select: &SelectArgs) -> Result<RunOptions, Failure> {
    let sources = select
        .sources
        .iter()
        .map(|s| inputs::parse_source_flag(s))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RunOptions {
        module_path: select.file.clone(),
        models: select.models.clone(),
        pipeline: select.pipeline.clone(),
        sources,
        branch: "main".into(),
        stage_only: false,
    })
}

fn print_report(report: &RunReport, format: Format, header: &str) {
    match format {
        Format::Human => {
            crate::outln!("{header}");
            for (_, relation, rows) in &report.materialized {
                crate::outln!("  materialized  {relation}  ({rows} rows)");
            }
            if !report.report.is_empty() {
                crate::outln!("pins:");
                for line in &report.report {
                    crate::outln!("{line}");
                }
            }
        }
        Format::Json => render::print_json(&serde_json::json!({
            "ok": true,
            "run_id": report.run_id,
            "materialized": report.materialized.iter().map(|(m, r, n)| serde_json::json!({"model": m, "relation": r, "rows": n})).collect::<Vec<_>>(),
            "report": report.report,
            "reused_inputs": report.reused_inputs,
            "cardinality_queries": report.cardinality_queries,
        })),
    }
}

pub fn run(args: RunArgs) -> i32 {
    let checked = match checked_module(&args.select.file, &args.select.search_dir, args.format) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let result = (|| {
        let mut opts = run_options(&args.select)?;
        opts.branch = args.branch.clone();
        opts.stage_only = args.stage_only;
        let wh = args.warehouse.open()?;
        let progress = crate::progress::Bar::new();
        strata_materialize::run(&wh, &checked.module, &opts, &progress)
    })();
    match result {
        Ok(report) => {
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
            print_report(&report, args.format, &header);
            exit::OK
        }
        Err(f) => report_failure(f, &checked, args.format, "run"),
    }
}

pub fn test(args: TestArgs) -> i32 {
    let checked = match checked_module(&args.select.file, &args.select.search_dir, args.format) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let result = (|| {
        let opts = run_options(&args.select)?;
        let wh = args.warehouse.open()?;
        let progress = crate::progress::Bar::new();
        strata_materialize::test(&wh, &checked.module, &opts, &progress)
    })();
    match result {
        Ok(report) => {
            print_report(
                &report,
                args.format,
                "test (branch test; live views untouched)",
            );
            exit::OK
        }
        Err(f) => report_failure(f, &checked, args.format, "test"),
    }
}
