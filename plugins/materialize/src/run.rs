//! `strata run` and `strata test`: materialize in the warehouse (embedded
//! DuckDB, PostgreSQL or Spark), with pins, join cardinality checks and
//! declarative tests.

use std::path::{Path, PathBuf};
use std::time::Duration;

use strata_lang::Checked;
use strata_plugin::config::{self, ConfigError};
use strata_plugin::{exit, outln, print_json, Format, Host};

use crate::{inputs, CardinalitySummary, Failure, RunOptions, RunReport, Target, Warehouse};

/// Options shared by the commands that open the warehouse.
#[derive(Debug, Clone, clap::Args)]
pub struct WarehouseArgs {
    /// The warehouse: a DuckDB file (created if missing; `:memory:` for a
    /// throw-away run), or a PostgreSQL server as
    /// `postgres://USER@HOST:PORT/DB?schema=S` (schema default `public`;
    /// TLS as libpq's `sslmode=disable|prefer|require|verify-ca|verify-full`,
    /// default `prefer`, with `sslrootcert=FILE`), or a Spark Connect
    /// server as `sc://HOST:PORT/;token=T;user_id=U?schema=DB` (database
    /// default `default`). The password comes from the URL, else
    /// `PGPASSWORD`; it and the token are never printed or recorded.
    /// Default: `$STRATA_WAREHOUSE`, else `strata.duckdb`.
    #[arg(long, short = 'o', value_name = "PATH_OR_URL")]
    pub warehouse: Option<String>,
    /// The warehouse `[targets.NAME]` of the nearest strata.toml names
    /// (`url = "..."`, `password-env = "VAR"` or `token-env = "VAR"`: the
    /// variable holding the password or the Spark Connect token).
    #[arg(long, value_name = "NAME", conflicts_with = "warehouse")]
    pub target: Option<String>,
    /// Seconds to wait for another writer to release the warehouse.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub lock_timeout: f64,
}

impl WarehouseArgs {
    /// The warehouse named by `--warehouse`, `--target` (in the strata.toml
    /// nearest `module`), `$STRATA_WAREHOUSE`, or the default file.
    pub fn target(&self, module: &Path) -> Result<Target, Failure> {
        if let Some(w) = &self.warehouse {
            return Target::parse(w, None);
        }
        if let Some(name) = &self.target {
            let project = config::discover(module).map_err(config_failure)?;
            let Some(t) = project.targets.get(name) else {
                let known: Vec<&str> = project.targets.keys().map(String::as_str).collect();
                let hint = strata_lang::suggest::closest(name, known.iter().copied())
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                let place = project
                    .path
                    .as_ref()
                    .map_or("no strata.toml was found".to_string(), |p| {
                        format!("{} has no [targets.{name}]", p.display())
                    });
                return Err(Failure::Usage(format!(
                    "unknown target '{name}': {place}{hint}"
                )));
            };
            let mut url = t.url.clone();
            if let (Target::DuckDb(path), Some(dir)) = (Target::parse(&url, None)?, project.dir()) {
                if path != ":memory:" && Path::new(&path).is_relative() {
                    url = dir.join(path).display().to_string();
                }
            }
            // The secret's variable: the password's (PostgreSQL) or the
            // token's (Spark Connect).
            let secret_env = t.password_env.as_deref().or(t.token_env.as_deref());
            return Target::parse(&url, secret_env);
        }
        match std::env::var("STRATA_WAREHOUSE") {
            Ok(w) if !w.is_empty() => Target::parse(&w, None),
            _ => Ok(Target::DuckDb("strata.duckdb".into())),
        }
    }

    pub fn open(&self, module: &Path) -> Result<Box<Warehouse>, Failure> {
        crate::engine::open(&self.target(module)?, self.lock_wait())
    }

    /// [`WarehouseArgs::open`] for reading only (`crate::engine::open_read_only`).
    pub fn open_read_only(&self, module: &Path) -> Result<Box<Warehouse>, Failure> {
        crate::engine::open_read_only(&self.target(module)?, self.lock_wait())
    }

    fn lock_wait(&self) -> Duration {
        Duration::from_secs_f64(self.lock_timeout.max(0.0))
    }
}

fn config_failure(e: ConfigError) -> Failure {
    match e {
        ConfigError::Invalid(m) => Failure::Usage(m),
        ConfigError::Unreadable(m) => Failure::Environment(m),
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

/// Options of the runtime join cardinality checks.
#[derive(Debug, Clone, clap::Args)]
pub struct CardinalityArgs {
    /// Check relations of more than N rows on a sample of about N rows
    /// instead of all of them. The sample is chosen by a hash of the join
    /// keys, so every row of a sampled key is in it and a duplicated key
    /// that is sampled is always caught. A duplicate found fails as usual; a
    /// pass is reported as `sampled (n of M rows)`, never `ok`, and proves
    /// nothing to later checks. Default: exact, unless strata.toml sets
    /// `[run] cardinality-sample-rows`; this flag overrides it.
    #[arg(long, value_name = "N", value_parser = parse_sample_rows)]
    pub cardinality_sample_rows: Option<u64>,
}

/// `--cardinality-sample-rows N`: a whole number of rows, at least 1.
fn parse_sample_rows(text: &str) -> Result<u64, String> {
    match text.trim().replace('_', "").parse::<u64>() {
        Ok(0) => Err(
            "the sample bound must be at least 1 row (leave the flag out for exact checks)".into(),
        ),
        Ok(n) => Ok(n),
        Err(_) => Err(format!(
            "expected a number of rows (at least 1), got '{text}'"
        )),
    }
}

impl CardinalityArgs {
    /// The row bound: the flag, else the project setting of the module's
    /// strata.toml, else none (exact).
    pub fn sample_rows(&self, module: &Path) -> Result<Option<u64>, Failure> {
        if self.cardinality_sample_rows.is_some() {
            return Ok(self.cardinality_sample_rows);
        }
        config::discover(module)
            .map(|c| c.cardinality_sample_rows)
            .map_err(config_failure)
    }
}

#[derive(Debug, clap::Args)]
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

/// Report a failure and return its exit code.
pub fn report_failure(
    host: &dyn Host,
    failure: Failure,
    checked: &Checked,
    format: Format,
    what: &str,
) -> i32 {
    match failure {
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
        other => report_error(host, other, format),
    }
}

/// Report a usage or environment failure (a data failure, which needs the
/// module to point into, is reported by [`report_failure`]); its exit code.
pub fn report_error(host: &dyn Host, failure: Failure, format: Format) -> i32 {
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
        Failure::Data(data) => host.environment_error(&data.diagnostic.message, format),
    }
}

pub fn run_options(select: &SelectArgs, sample_rows: Option<u64>) -> Result<RunOptions, Failure> {
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
        sample_rows,
        only_stale: false,
        full_refresh: false,
    })
}

fn print_report(
    report: &RunReport,
    format: Format,
    header: &str,
    collected: Option<&crate::timeline::Collection>,
) {
    use super::timeline::{collection_json, print_collection};
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
            crate::run::live_view(m, branch),
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

/// The pins report, then the cardinality summary (human format).
pub fn print_pins(report: &[String], cardinality: &CardinalitySummary) {
    if !report.is_empty() {
        outln!("pins:");
        for line in report {
            outln!("{line}");
        }
    }
    for line in cardinality.lines() {
        outln!("{line}");
    }
}

/// The cardinality checks of a run as JSON: the counts, the sampling, and
/// each check side's outcome with the time its query took.
pub fn cardinality_json(c: &CardinalitySummary) -> serde_json::Value {
    use crate::cardinality::{Outcome, ProofSource};
    let results: Vec<serde_json::Value> = c
        .results
        .iter()
        .map(|r| {
            let mut v = serde_json::json!({
                "check": r.bracket,
                "expect": r.cardinality.as_str(),
                "side": if r.left_side { "left" } else { "right" },
                "table": r.table,
                "keys": r.keys,
                "ms": (r.ms * 1000.0).round() / 1000.0,
            });
            match &r.outcome {
                Outcome::Counted => v["outcome"] = "ok".into(),
                Outcome::ProvenEarlier { by, keys } => {
                    v["outcome"] = match by {
                        ProofSource::Construction(_) => "proven_by_construction",
                        _ => "proven_earlier",
                    }
                    .into();
                    v["proven_by"] = by.to_string().into();
                    v["proven_on"] = serde_json::json!(keys);
                }
                Outcome::Sampled { rows, of, reused } => {
                    v["outcome"] = "sampled".into();
                    v["sample_rows"] = (*rows).into();
                    v["total_rows"] = (*of).into();
                    if let Some(b) = reused {
                        v["sample_of"] = b.clone().into();
                    }
                }
            }
            v
        })
        .collect();
    serde_json::json!({
        "checks": c.checks(),
        "queries_executed": c.queries_executed,
        "proven_earlier": c.proven_earlier(),
        "proven_by_construction": c.proven_by_construction(),
        "sampled": c.sampled(),
        "sample_rows": c.sampling.map(|s| s.rows),
        "sample_salt": c.sampling.map(|s| s.salt_hex()),
        "results": results,
    })
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
        let report = crate::run(&*wh, &checked.module, &opts, progress.as_ref())?;
        let collected = match args.gc {
            true => Some(super::timeline::after_run(&*wh, &args.select.file)?),
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
        crate::test(&*wh, &checked.module, &opts, progress.as_ref())
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

#[derive(Debug, clap::Args)]
pub struct PlanArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    #[command(flatten)]
    pub warehouse: WarehouseArgs,
    /// The branch whose live views the plan compares with.
    #[arg(long, value_name = "NAME", default_value = "main")]
    pub branch: String,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

/// `strata plan`: what `run --only-stale` would rebuild, and why.
pub fn plan(args: PlanArgs, host: &dyn Host) -> i32 {
    let checked = match host.checked_module(&args.select.file, &args.select.search_dir, args.format)
    {
        Ok(c) => c,
        Err(code) => return code,
    };
    let result = (|| {
        let mut opts = run_options(&args.select, None)?;
        opts.branch = args.branch.clone();
        let wh = args.warehouse.open(&args.select.file)?;
        let progress = host.progress();
        crate::run::plan_run(&*wh, &checked.module, &opts, progress.as_ref())
    })();
    let verdicts = match result {
        Ok(v) => v,
        Err(f) => return report_failure(host, f, &checked, args.format, "plan"),
    };
    let stale = verdicts.iter().filter(|v| !v.why.is_fresh()).count();
    match args.format {
        Format::Human => {
            outln!(
                "plan (branch {}): {stale} of {} models to rebuild; nothing was built",
                args.branch,
                verdicts.len()
            );
            for v in &verdicts {
                let run = v
                    .live_run
                    .as_ref()
                    .map_or(String::new(), |r| format!("  (live: run {r})"));
                let word = if v.why.is_fresh() { "fresh" } else { "stale" };
                let why = if v.why.is_fresh() {
                    String::new()
                } else {
                    format!("  {}", v.why)
                };
                outln!("  {word}  {}{why}{run}", v.model);
            }
        }
        Format::Json => print_json(&serde_json::json!({
            "branch": args.branch,
            "stale": stale,
            "models": verdicts.iter().map(|v| {
                let mut j = serde_json::json!({
                    "model": v.model,
                    "stale": !v.why.is_fresh(),
                    "reason": v.why.code(),
                    "why": v.why.to_string(),
                    "live_run": v.live_run,
                });
                if let crate::stale::Why::InputChanged(x) | crate::stale::Why::Upstream(x) = &v.why {
                    j["because_of"] = x.clone().into();
                }
                j
            }).collect::<Vec<_>>(),
        })),
    }
    exit::OK
}
