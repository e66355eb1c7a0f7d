//! The arguments the warehouse commands share: which warehouse (and how
//! long to wait for its lock), what to materialize, how to check joins.

use std::path::{Path, PathBuf};
use std::time::Duration;

use strata_lifecycle::{inputs, state, Failure, RunOptions, SourcePolicy, Target, Warehouse};
use strata_plugin::config::{self, ConfigError, Settings};

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
    /// Default: `$STRATA_WAREHOUSE`, else the project's default target
    /// (strata.toml's `[project] default-target`, or its only target), else
    /// `strata.duckdb`.
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
    /// The warehouse named by `--warehouse`, `--target` (in the command's
    /// strata.toml, `settings`), `$STRATA_WAREHOUSE`, the project's default
    /// target (`[project] default-target`, or its only `[targets.NAME]`),
    /// or the default file. The settings are read only when needed.
    pub fn target(&self, settings: &Settings) -> Result<Target, Failure> {
        if let Some(w) = &self.warehouse {
            return Target::parse(w, None);
        }
        if let Some(name) = &self.target {
            return named_target(settings.get().map_err(config_failure)?, name);
        }
        if let Ok(w) = std::env::var("STRATA_WAREHOUSE") {
            if !w.is_empty() {
                return Target::parse(&w, None);
            }
        }
        let project = settings.get().map_err(config_failure)?;
        match project.default_target() {
            Some(name) => named_target(project, name),
            None => Ok(Target::DuckDb("strata.duckdb".into())),
        }
    }

    pub fn open(&self, settings: &Settings) -> Result<Box<Warehouse>, Failure> {
        state::open(&self.target(settings)?, self.lock_wait())
    }

    /// [`WarehouseArgs::open`] for reading only (`state::open_read_only`).
    pub fn open_read_only(&self, settings: &Settings) -> Result<Box<Warehouse>, Failure> {
        state::open_read_only(&self.target(settings)?, self.lock_wait())
    }

    fn lock_wait(&self) -> Duration {
        Duration::from_secs_f64(self.lock_timeout.max(0.0))
    }
}

/// The warehouse of `[targets.NAME]`: its URL (a DuckDB path relative to
/// the project file) and the variable holding its secret.
fn named_target(project: &config::ProjectConfig, name: &str) -> Result<Target, Failure> {
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
    Target::parse(&url, secret_env)
}

/// The module file, its settings and the run id of `[FILE] RUN_ID`
/// (`rollback`, `backfill`): the file may be left out inside a project;
/// the run id may not. On failure the error is printed and the exit code
/// returned.
pub(crate) fn required_run_id(
    file: Option<PathBuf>,
    run_id: Option<String>,
    command: &str,
) -> Result<(PathBuf, Settings<'static>, String), i32> {
    match strata_plugin::project::module_then(file, run_id, command)? {
        (found, Some(run_id)) => {
            let (file, settings) = found.settings();
            Ok((file, settings, run_id))
        }
        (_, None) => {
            eprintln!(
                "error: `strata {command}` needs the RUN_ID of the run (`strata replay` lists them)"
            );
            Err(strata_plugin::exit::USAGE)
        }
    }
}

pub(crate) fn config_failure(e: ConfigError) -> Failure {
    match e {
        ConfigError::Invalid(m) => Failure::Usage(m),
        ConfigError::Unreadable(m) => Failure::Environment(m),
    }
}

/// Options selecting what to materialize.
#[derive(Debug, Clone, clap::Args)]
pub struct SelectArgs {
    /// The module file. Default: the project's module (`[project] modules`
    /// of the strata.toml in the current directory or above, or the one
    /// .strata file beside it).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Only these models (and the models they read); default: all. In a
    /// project the module file may be left out: a first name that is not a
    /// file is a model.
    #[arg(value_name = "MODEL")]
    pub models: Vec<String>,
    /// Use this pipeline's model selection and source overrides. Default,
    /// in a project: strata.toml's `[project] pipelines` entry for the
    /// module, else `default-pipeline`, else the module's only pipeline.
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

/// What a warehouse command works on, its defaults applied: the module
/// file (named, or the project's), the models, the pipeline (named, or the
/// project's default for the module) and the source overrides.
#[derive(Debug, Clone)]
pub struct Selection {
    pub file: PathBuf,
    pub models: Vec<String>,
    pub pipeline: Option<String>,
    /// Whether `--pipeline` named the pipeline (not the project's default).
    pub pipeline_named: bool,
    pub sources: Vec<String>,
    pub search_dir: Vec<PathBuf>,
    /// The settings of the module's strata.toml (the defaults without one),
    /// read once for the whole command.
    pub project: config::ProjectConfig,
}

impl Selection {
    /// The command's settings, as read when the selection was made.
    pub fn settings(&self) -> Settings<'_> {
        Settings::Read(&self.project)
    }
}

impl SelectArgs {
    /// The module file and models, with the project's module when the
    /// command line names none (a first argument that is neither a file
    /// nor a `.strata` path is then a model). On failure the error is
    /// printed and the exit code returned.
    pub fn resolve(self, command: &str) -> Result<Selection, i32> {
        let SelectArgs {
            file,
            mut models,
            pipeline,
            sources,
            search_dir,
        } = self;
        let found = strata_plugin::project::module_and_models(file, &mut models, command)?;
        let (file, settings) = found.settings();
        let project = settings.into_config().map_err(|e| {
            eprintln!("error: {}", e.message());
            e.exit_code()
        })?;
        Ok(Selection {
            project,
            file,
            models,
            pipeline_named: pipeline.is_some(),
            pipeline,
            sources,
            search_dir,
        })
    }

    /// [`SelectArgs::resolve`], then the module checked (its errors
    /// reported) and the project's default pipeline applied.
    pub fn checked(
        self,
        command: &str,
        host: &dyn strata_plugin::Host,
        format: strata_plugin::Format,
    ) -> Result<(Selection, strata_lang::Checked), i32> {
        let mut select = self.resolve(command)?;
        let checked = host.checked_module(&select.file, &select.search_dir, format)?;
        if select.pipeline.is_none() {
            let names: Vec<&str> = checked
                .module
                .pipelines
                .iter()
                .map(|p| p.name.as_str())
                .collect();
            select.pipeline = select.project.default_pipeline(&select.file, &names);
        }
        Ok((select, checked))
    }
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
    pub fn sample_rows(&self, project: &config::ProjectConfig) -> Option<u64> {
        self.cardinality_sample_rows
            .or(project.cardinality_sample_rows)
    }
}

/// How each source is frozen: `[sources.NAME]` of a project's strata.toml.
pub fn source_policies(
    project: &config::ProjectConfig,
) -> std::collections::BTreeMap<String, SourcePolicy> {
    project
        .sources
        .iter()
        .map(|(name, s)| {
            let policy = SourcePolicy {
                append_column: s.append_column.clone(),
                by_hash: s.freeze == config::Freeze::Hash,
            };
            (name.clone(), policy)
        })
        .collect()
}

pub fn run_options(select: &Selection, sample_rows: Option<u64>) -> Result<RunOptions, Failure> {
    let sources = select
        .sources
        .iter()
        .map(|s| inputs::parse_source_flag(s))
        .collect::<Result<Vec<_>, _>>()?;
    let policies = source_policies(&select.project);
    Ok(RunOptions {
        module_path: select.file.clone(),
        models: select.models.clone(),
        pipeline: select.pipeline.clone(),
        named_models_only: !select.pipeline_named,
        sources,
        branch: "main".into(),
        stage_only: false,
        sample_rows,
        only_stale: false,
        full_refresh: false,
        policies,
        backfill: None,
        clock: None,
    })
}
