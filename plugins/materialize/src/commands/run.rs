//! `strata run` and `strata test`: materialize in the embedded DuckDB
//! warehouse, with pins, join cardinality checks and declarative tests.

use std::path::PathBuf;
use std::time::Duration;

use strata_lang::Checked;
use strata_plugin::{exit, outln, print_json, Format, Host};

use crate::{inputs, Failure, RunOptions, RunReport, Warehouse};

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

/// Report a failure and return its exit code.
pub fn report_failure(
    host: &dyn Host,
    failure: Failure,
    checked: &Checked,
    format: Format,
    what: &str,
) -> i32 {
    match failure {
        Failure::Usage(msg) => {
            eprintln!("error: {msg}");
            if format == Format::Json {
                print_json(
                    &serde_json::json!({ "ok": false, "error": msg, "exit_code": exit::USAGE }),
                );
            }
            exit::USAGE
        }
        Failure::Environment(msg) => host.environment_error(&msg, format),
        Failure::Data(data) => {
            match format {
                Format::Human => {
                    for line in &data.report {
                        outln!("{line}");
                    }
                    host.print_diagnostics(
                        &checked.sources,
                        std::slice::from_ref(&data.diagnostic),
                    );
                    eprintln!("error: {what} failed a data check; nothing was published");
                }
                Format::Json => print_json(&serde_json::json!({
                    "ok": false,
                    "report": data.report,
                    "failure": host.json_diagnostic(&checked.sources, &data.diagnostic),
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
            outln!("{header}");
            for (_, relation, rows) in &report.materialized {
                outln!("  materialized  {relation}  ({rows} rows)");
            }
            if !report.report.is_empty() {
                outln!("pins:");
                for line in &report.report {
                    outln!("{line}");
                }
            }
        }
        Format::Json => print_json(&serde_json::json!({
            "ok": true,
            "run_id": report.run_id,
            "materialized": report.materialized.iter().map(|(m, r, n)| serde_json::json!({"model": m, "relation": r, "rows": n})).collect::<Vec<_>>(),
            "report": report.report,
            "reused_inputs": report.reused_inputs,
            "cardinality_queries": report.cardinality_queries,
        })),
    }
}

pub fn run(args: RunArgs, host: &dyn Host) -> i32 {
    let checked = match host.checked_module(&args.select.file, &args.select.search_dir, args.format)
    {
        Ok(c) => c,
        Err(code) => return code,
    };
    let result = (|| {
        let mut opts = run_options(&args.select)?;
        opts.branch = args.branch.clone();
        opts.stage_only = args.stage_only;
        let wh = args.warehouse.open()?;
        let progress = host.progress();
        crate::run(&wh, &checked.module, &opts, progress.as_ref())
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
        let opts = run_options(&args.select)?;
        let wh = args.warehouse.open()?;
        let progress = host.progress();
        crate::test(&wh, &checked.module, &opts, progress.as_ref())
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
        Err(f) => report_failure(host, f, &checked, args.format, "test"),
    }
}
