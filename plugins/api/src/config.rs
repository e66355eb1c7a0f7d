//! The project file `strata.toml`, found by walking up from a module's
//! directory (like cargo's `Cargo.toml`). One place reads it; commands take
//! the settings they need from [`ProjectConfig`].
//!
//! ```toml
//! [project]               # what `strata run`, `check`, ... work on when no module is named
//! modules = ["shop.strata"]   # the modules' root files (default: the .strata files beside this file)
//! default-target = "local"    # the warehouse (default: the only [targets.NAME])
//! default-pipeline = "local"  # each module's pipeline (default: the module's only pipeline)
//! pipelines = { "other.strata" = "nightly" }  # a module's own default pipeline
//!
//! [lints]                 # rule code (or `warnings`, `all`) = allow | warn | deny
//! W002 = "allow"
//! W007 = "deny"
//!
//! [rules]                 # external rule executables run by `strata check`
//! external = ["tools/strata-rule-naming", "strata-rule-pii"]
//! path-discovery = true   # also run every strata-rule-* on PATH (off by default)
//!
//! [run]
//! cardinality-sample-rows = 1000000
//! only-stale = true       # `strata run` rebuilds only stale models (`--rebuild`: all)
//!
//! [gc]                    # what `strata gc` (and `run --gc`) keeps
//! keep = 10               # the last 10 runs of each branch
//! keep-days = 30          # and every run of the last 30 days
//! compact-when-free = 0.5 # gc --apply compacts a DuckDB file over half free
//!
//! [sources.orders]        # how a run freezes source `orders`
//! append-column = "order_id"  # rows arrive with greater ids: freeze only the new ones
//! freeze = "copy"         # or "hash": keep its content hash, read it in place
//! ```
//!
//! Unknown tables or keys are an error naming the file, so a typo never
//! silently disables a setting.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The name of the project file.
pub const FILE_NAME: &str = "strata.toml";

/// A rule's level (defined once, in the rule registry).
pub use strata_rules::Level;

/// The settings of a `strata.toml`, and where it was found.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ProjectConfig {
    /// The file the settings came from; `None` when no file was found.
    pub path: Option<PathBuf>,
    /// `[lints]`: level per rule code, or per group (`warnings`, `all`), in
    /// the order of the keys' names.
    pub lints: BTreeMap<String, Level>,
    /// `[rules] external`: external rule executables. A name with a `/` is
    /// a path relative to the project file's directory; a bare name is
    /// looked up on `PATH`.
    pub external_rules: Vec<String>,
    /// `[rules] path-discovery`: whether `strata check` also runs every
    /// `strata-rule-*` executable found on `PATH`. Off by default: a rule
    /// is handed the module's full text, so only rules the project (or the
    /// command line) names run unless it opts in.
    pub path_rules: bool,
    /// `[run] cardinality-sample-rows`.
    pub cardinality_sample_rows: Option<u64>,
    /// `[run] only-stale`: `strata run` rebuilds only the stale models (as
    /// `--only-stale`), so a run with nothing changed rebuilds nothing.
    pub only_stale: bool,
    /// `[targets.NAME]`: named warehouses (`--target NAME`).
    pub targets: BTreeMap<String, TargetConfig>,
    /// `[gc]`: what `strata gc` keeps when its flags do not say.
    pub gc: GcConfig,
    /// `[sources.NAME]`: how a run freezes each source it names (a source
    /// of no module here is no error: one project file serves many).
    pub sources: BTreeMap<String, SourceConfig>,
    /// `[openlineage]`: where `run` sends OpenLineage events by default.
    pub openlineage: Option<OpenLineageConfig>,
    /// `[project]`: the modules, target and pipelines commands use when the
    /// command line names none.
    pub project: ProjectSection,
}

/// The `[project]` table: what a command works on when the command line
/// names no module, target or pipeline.
#[derive(Clone, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ProjectSection {
    /// The modules' root files, relative to the project file. Default: the
    /// `.strata` files in its directory.
    #[serde(default)]
    pub modules: Vec<String>,
    /// The `[targets.NAME]` used when neither `-o`, `--target` nor
    /// `$STRATA_WAREHOUSE` names a warehouse. Default: the only target.
    pub default_target: Option<String>,
    /// The pipeline a module runs with when `--pipeline` names none (when
    /// the module has one of that name). Default: the module's only
    /// pipeline.
    pub default_pipeline: Option<String>,
    /// A module's own default pipeline, by its file (relative to the
    /// project file).
    #[serde(default)]
    pub pipelines: BTreeMap<String, String>,
}

/// The `[openlineage]` table: one of `url` (an `http(s)://` endpoint) or
/// `file` (JSON lines appended; relative to the project file).
#[derive(Clone, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct OpenLineageConfig {
    pub url: Option<String>,
    pub file: Option<String>,
    /// The environment variable holding the API key (sent as a bearer
    /// token; never printed).
    pub api_key_env: Option<String>,
    /// The jobs' namespace (default `strata`).
    pub namespace: Option<String>,
}

/// The `[gc]` table.
#[derive(Clone, Copy, Debug, PartialEq, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct GcConfig {
    /// Keep the last this many runs of each branch.
    pub keep: Option<usize>,
    /// Keep every run started less than this many days ago.
    pub keep_days: Option<u64>,
    /// `gc --apply` (and `run --gc`) compacts a DuckDB warehouse when more
    /// than this fraction of its file is free blocks (and at least 64 MiB);
    /// 1 never. Default 0.5.
    pub compact_when_free: Option<f64>,
}

/// A `[sources.NAME]` table: how a run freezes the source.
#[derive(Clone, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct SourceConfig {
    /// The column whose values grow as rows arrive (a monotonic id, a load
    /// timestamp): a run whose older rows are unchanged freezes only the
    /// rows above the last freeze's greatest value.
    pub append_column: Option<String>,
    /// `copy` (the default: exact replay) or `hash` (only the content hash
    /// is kept; the source is read in place, and replay needs it unchanged).
    #[serde(default)]
    pub freeze: Freeze,
}

/// How a source is frozen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Freeze {
    #[default]
    Copy,
    Hash,
}

/// A `[targets.NAME]` table: a warehouse and where its secret comes from.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct TargetConfig {
    /// A DuckDB path (relative to the project file), a `postgres://` URL or
    /// an `sc://` (Spark Connect) URL.
    pub url: String,
    /// The environment variable holding the password (PostgreSQL).
    pub password_env: Option<String>,
    /// The environment variable holding the bearer token (Spark Connect).
    pub token_env: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    lints: BTreeMap<String, Level>,
    #[serde(default)]
    rules: RawRules,
    #[serde(default)]
    run: RawRun,
    #[serde(default)]
    targets: BTreeMap<String, TargetConfig>,
    #[serde(default)]
    gc: GcConfig,
    #[serde(default)]
    sources: BTreeMap<String, SourceConfig>,
    openlineage: Option<OpenLineageConfig>,
    #[serde(default)]
    project: ProjectSection,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawRules {
    #[serde(default)]
    external: Vec<String>,
    path_discovery: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawRun {
    cardinality_sample_rows: Option<u64>,
    only_stale: Option<bool>,
}

/// Why a project file could not be used.
#[derive(Debug, PartialEq, Eq)]
pub enum ConfigError {
    /// The file exists but cannot be read (exit 4).
    Unreadable(String),
    /// The file is not valid (exit 2): the message names the file and the
    /// offending key.
    Invalid(String),
}

impl ConfigError {
    pub fn message(&self) -> &str {
        match self {
            ConfigError::Unreadable(m) | ConfigError::Invalid(m) => m,
        }
    }

    /// The exit code for this failure: environment if unreadable, usage if invalid.
    pub fn exit_code(&self) -> i32 {
        match self {
            ConfigError::Unreadable(_) => crate::exit::ENVIRONMENT,
            ConfigError::Invalid(_) => crate::exit::USAGE,
        }
    }
}

/// The nearest `strata.toml` in `start` (a module file or a directory) or
/// one of its ancestors, as a canonical path (`a/../strata.toml` is
/// `strata.toml`).
pub fn find(start: &Path) -> Option<PathBuf> {
    let start = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
    let dir = if start.is_dir() {
        start.as_path()
    } else {
        start.parent()?
    };
    dir.ancestors()
        .map(|d| d.join(FILE_NAME))
        .find(|p| p.is_file())
        .map(|p| std::fs::canonicalize(&p).unwrap_or(p))
}

/// The project settings for a module file or directory: the nearest
/// `strata.toml`, or the defaults when there is none.
pub fn discover(start: &Path) -> Result<ProjectConfig, ConfigError> {
    match find(start) {
        Some(path) => load(&path),
        None => Ok(ProjectConfig::default()),
    }
}

/// Read and validate one project file.
pub fn load(path: &Path) -> Result<ProjectConfig, ConfigError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| ConfigError::Unreadable(format!("cannot read {}: {e}", path.display())))?;
    parse(&text, path)
}

/// Parse the text of a project file found at `path`.
pub fn parse(text: &str, path: &Path) -> Result<ProjectConfig, ConfigError> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        ConfigError::Invalid(format!(
            "invalid {}: {}",
            path.display(),
            e.to_string().trim_end()
        ))
    })?;
    if raw.run.cardinality_sample_rows == Some(0) {
        return Err(ConfigError::Invalid(format!(
            "invalid {}: [run] cardinality-sample-rows must be at least 1 (a number of rows; leave it out for exact checks)",
            path.display()
        )));
    }
    if let Some(f) = raw.gc.compact_when_free {
        if !(0.0..=1.0).contains(&f) {
            return Err(ConfigError::Invalid(format!(
                "invalid {}: [gc] compact-when-free must be a fraction between 0 and 1 (1 never compacts), got {f}",
                path.display()
            )));
        }
    }
    for (name, source) in &raw.sources {
        if source
            .append_column
            .as_deref()
            .is_some_and(|c| c.trim().is_empty())
        {
            return Err(ConfigError::Invalid(format!(
                "invalid {}: [sources.{name}] append-column is empty (name a column, or leave it out)",
                path.display()
            )));
        }
    }
    if let Some(ol) = &raw.openlineage {
        if ol.url.is_some() == ol.file.is_some() {
            return Err(ConfigError::Invalid(format!(
                "invalid {}: [openlineage] needs exactly one of url (an http(s):// endpoint) or file (JSON lines)",
                path.display()
            )));
        }
    }
    if let Some(t) = &raw.project.default_target {
        if !raw.targets.contains_key(t) {
            let known: Vec<&str> = raw.targets.keys().map(String::as_str).collect();
            return Err(ConfigError::Invalid(format!(
                "invalid {}: [project] default-target = \"{t}\" names no [targets.{t}] (targets: {})",
                path.display(),
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            )));
        }
    }
    Ok(ProjectConfig {
        path: Some(path.to_path_buf()),
        lints: raw.lints,
        external_rules: raw.rules.external,
        path_rules: raw.rules.path_discovery.unwrap_or(false),
        cardinality_sample_rows: raw.run.cardinality_sample_rows,
        only_stale: raw.run.only_stale.unwrap_or(false),
        targets: raw.targets,
        gc: raw.gc,
        sources: raw.sources,
        openlineage: raw.openlineage,
        project: raw.project,
    })
}

impl ProjectConfig {
    /// The directory of the project file (relative external rule paths are
    /// resolved against it).
    pub fn dir(&self) -> Option<&Path> {
        self.path.as_deref().and_then(Path::parent)
    }

    /// The target a command uses when the command line names none:
    /// `[project] default-target`, else the only `[targets.NAME]`.
    pub fn default_target(&self) -> Option<&str> {
        match &self.project.default_target {
            Some(t) => Some(t),
            None if self.targets.len() == 1 => self.targets.keys().next().map(String::as_str),
            None => None,
        }
    }

    /// The project's modules (their root files): `[project] modules`, else
    /// the `.strata` files beside the project file, by name. Empty without
    /// a project file; an error names a listed module that is not there.
    pub fn modules(&self) -> Result<Vec<PathBuf>, ConfigError> {
        let (Some(path), Some(dir)) = (&self.path, self.dir()) else {
            return Ok(Vec::new());
        };
        if !self.project.modules.is_empty() {
            return self
                .project
                .modules
                .iter()
                .map(|m| {
                    let file = dir.join(m);
                    match file.is_file() {
                        true => Ok(file),
                        false => Err(ConfigError::Invalid(format!(
                            "{}: [project] modules names {m}, which is not a file in {}",
                            path.display(),
                            dir.display()
                        ))),
                    }
                })
                .collect();
        }
        let entries = std::fs::read_dir(dir)
            .map_err(|e| ConfigError::Unreadable(format!("cannot read {}: {e}", dir.display())))?;
        let mut found: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "strata") && p.is_file())
            .collect();
        found.sort();
        Ok(found)
    }

    /// The pipeline `--pipeline` defaults to for `module` (one of the
    /// module's `pipelines`): its `[project] pipelines` entry, else
    /// `default-pipeline` when the module has it, else the module's only
    /// pipeline. `None` without a project file: outside a project a module
    /// runs without a pipeline unless told.
    pub fn default_pipeline(&self, module: &Path, pipelines: &[&str]) -> Option<String> {
        let dir = self.dir()?;
        let own = self
            .project
            .pipelines
            .iter()
            .find(|(file, _)| same_file(&dir.join(file), module));
        if let Some((_, p)) = own {
            return Some(p.clone());
        }
        match &self.project.default_pipeline {
            Some(p) if pipelines.contains(&p.as_str()) => Some(p.clone()),
            _ if pipelines.len() == 1 => pipelines.first().map(|p| p.to_string()),
            _ => None,
        }
    }
}

/// Whether two paths name the same file (compared as absolute paths,
/// symbolic links resolved when they exist).
fn same_file(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| {
        std::fs::canonicalize(p)
            .or_else(|_| std::path::absolute(p))
            .unwrap_or_else(|_| p.to_path_buf())
    };
    canon(a) == canon(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_ok(text: &str) -> ProjectConfig {
        match parse(text, Path::new("strata.toml")) {
            Ok(c) => c,
            Err(e) => panic!("{}", e.message()),
        }
    }

    #[test]
    fn reads_every_table() {
        let c = parse_ok(
            "[lints]\nW002 = \"allow\"\nwarnings = \"deny\"\n\n[rules]\nexternal = [\"tools/strata-rule-x\"]\n\n[run]\ncardinality-sample-rows = 1000\n",
        );
        assert_eq!(c.lints.get("W002"), Some(&Level::Allow));
        assert_eq!(c.lints.get("warnings"), Some(&Level::Deny));
        assert_eq!(c.external_rules, vec!["tools/strata-rule-x".to_string()]);
        assert!(!c.path_rules, "PATH discovery is off by default");
        assert_eq!(c.cardinality_sample_rows, Some(1000));
        assert!(parse_ok("[rules]\npath-discovery = true\n").path_rules);
        assert!(!parse_ok("[rules]\npath-discovery = false\n").path_rules);
        let t = parse_ok(
            "[targets.prod]\nurl = \"postgres://a@db/w?schema=marts\"\npassword-env = \"PROD_PW\"\n[targets.local]\nurl = \"dev.duckdb\"\n",
        );
        assert_eq!(t.targets["prod"].password_env.as_deref(), Some("PROD_PW"));
        let spark = parse_ok("[targets.cluster]\nurl = \"sc://spark:15002/?schema=marts\"\ntoken-env = \"SPARK_TOKEN\"\n");
        assert_eq!(
            spark.targets["cluster"].token_env.as_deref(),
            Some("SPARK_TOKEN")
        );
        assert_eq!(t.targets["local"].url, "dev.duckdb");
        let ol = parse_ok("[openlineage]\nurl = \"http://m:5000\"\napi-key-env = \"OL_KEY\"\n");
        let ol = ol.openlineage.expect("[openlineage]");
        assert_eq!(ol.api_key_env.as_deref(), Some("OL_KEY"));
        assert!(parse(
            "[openlineage]\nurl = \"http://m\"\nfile = \"e.jsonl\"\n",
            Path::new("strata.toml")
        )
        .is_err());
        assert!(parse("[openlineage]\n", Path::new("strata.toml")).is_err());
        assert!(parse(
            "[targets.x]\nurl = \"u\"\npassword = \"p\"\n",
            Path::new("strata.toml")
        )
        .is_err());
    }

    #[test]
    fn sources_say_how_they_are_frozen() {
        let c = parse_ok(
            "[sources.orders]\nappend-column = \"order_id\"\n[sources.events]\nfreeze = \"hash\"\n[gc]\ncompact-when-free = 0.25\n",
        );
        assert_eq!(
            c.sources["orders"].append_column.as_deref(),
            Some("order_id")
        );
        assert_eq!(c.sources["orders"].freeze, Freeze::Copy);
        assert_eq!(c.sources["events"].freeze, Freeze::Hash);
        assert_eq!(c.gc.compact_when_free, Some(0.25));
        for bad in [
            "[sources.orders]\nfreeze = \"snapshot\"\n",
            "[sources.orders]\nappend_column = \"id\"\n",
            "[sources.orders]\nappend-column = \" \"\n",
            "[gc]\ncompact-when-free = 2\n",
        ] {
            match parse(bad, Path::new("/p/strata.toml")) {
                Err(ConfigError::Invalid(m)) => assert!(m.contains("/p/strata.toml"), "{m}"),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn empty_file_is_the_defaults() {
        let c = parse_ok("");
        assert!(c.lints.is_empty() && c.external_rules.is_empty() && !c.path_rules);
        assert_eq!(ProjectConfig { path: None, ..c }, ProjectConfig::default());
        assert_eq!(c.cardinality_sample_rows, None);
    }

    #[test]
    fn unknown_keys_and_bad_levels_are_errors_naming_the_file() {
        for bad in [
            "[lint]\nW001 = \"allow\"\n",
            "[lints]\nW001 = \"loud\"\n",
            "[run]\ncardinality_sample_rows = 5\n",
            "[run]\ncardinality-sample-rows = -5\n",
            "[run]\ncardinality-sample-rows = 0\n",
        ] {
            match parse(bad, Path::new("/p/strata.toml")) {
                Err(ConfigError::Invalid(m)) => assert!(m.contains("/p/strata.toml"), "{m}"),
                other => panic!("{bad:?} gave {other:?}"),
            }
        }
    }

    #[test]
    fn the_project_table_names_modules_target_and_pipelines() {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join(FILE_NAME);
        for f in ["b.strata", "a.strata", "notes.md"] {
            std::fs::write(dir.path().join(f), "").expect("write");
        }
        // Defaults: the .strata files beside it, by name; the only target;
        // a module's only pipeline.
        let c = parse("[targets.local]\nurl = \"w.duckdb\"\n", &path).expect("valid");
        let modules = c.modules().expect("modules");
        assert_eq!(
            modules,
            vec![dir.path().join("a.strata"), dir.path().join("b.strata")]
        );
        assert_eq!(c.default_target(), Some("local"));
        let a = dir.path().join("a.strata");
        assert_eq!(c.default_pipeline(&a, &["local"]).as_deref(), Some("local"));
        assert_eq!(c.default_pipeline(&a, &["local", "prod"]), None);
        assert_eq!(c.default_pipeline(&a, &[]), None);
        // Two targets and no default-target: none.
        let two = parse(
            "[targets.a]\nurl = \"a.duckdb\"\n[targets.b]\nurl = \"b.duckdb\"\n",
            &path,
        )
        .expect("valid");
        assert_eq!(two.default_target(), None);
        // Said in [project].
        let c = parse(
            "[project]\nmodules = [\"b.strata\"]\ndefault-target = \"b\"\ndefault-pipeline = \"prod\"\npipelines = { \"a.strata\" = \"nightly\" }\n[targets.a]\nurl = \"a.duckdb\"\n[targets.b]\nurl = \"b.duckdb\"\n",
            &path,
        )
        .expect("valid");
        assert_eq!(
            c.modules().expect("modules"),
            vec![dir.path().join("b.strata")]
        );
        assert_eq!(c.default_target(), Some("b"));
        let b = dir.path().join("b.strata");
        assert_eq!(
            c.default_pipeline(&b, &["local", "prod"]).as_deref(),
            Some("prod")
        );
        assert_eq!(c.default_pipeline(&b, &["local"]).as_deref(), Some("local"));
        assert_eq!(
            c.default_pipeline(&a, &["local", "prod"]).as_deref(),
            Some("nightly")
        );
        // Outside a project (no file): no modules, no default pipeline.
        let none = ProjectConfig::default();
        assert!(none.modules().expect("none").is_empty());
        assert_eq!(none.default_pipeline(&a, &["local"]), None);
        // A listed module that is not there, a default target that names
        // no target: errors naming the file.
        let missing = parse("[project]\nmodules = [\"c.strata\"]\n", &path).expect("valid");
        assert!(
            matches!(missing.modules(), Err(ConfigError::Invalid(m)) if m.contains("c.strata"))
        );
        assert!(matches!(
            parse("[project]\ndefault-target = \"prod\"\n", &path),
            Err(ConfigError::Invalid(m)) if m.contains("default-target") && m.contains("strata.toml")
        ));
        assert!(parse("[project]\nmodule = [\"a.strata\"]\n", &path).is_err());
        assert!(parse_ok("[run]\nonly-stale = true\n").only_stale);
    }

    #[test]
    fn found_by_walking_up() {
        let root = std::env::temp_dir().join(format!("strata-config-{}", std::process::id()));
        let deep = root.join("a/b");
        std::fs::create_dir_all(&deep).expect("temp dir");
        std::fs::write(root.join(FILE_NAME), "[lints]\nW001 = \"deny\"\n").expect("write");
        std::fs::write(deep.join("m.strata"), "").expect("write");
        let found = find(&deep.join("m.strata"));
        assert_eq!(found, Some(root.join(FILE_NAME)));
        let c = discover(&deep).expect("valid");
        assert_eq!(c.lints.get("W001"), Some(&Level::Deny));
        std::fs::remove_dir_all(&root).ok();
    }
}
