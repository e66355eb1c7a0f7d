//! What strata's commands share below the command line: the project file
//! `strata.toml`, found by walking up from a module's directory (like
//! cargo's `Cargo.toml`) and read once per command ([`Settings`]), each
//! feature's settings typed in a file of its own (`targets.rs`, `gc.rs`,
//! `sources.rs`, `openlineage.rs`, `rules.rs`, `run.rs`, `modules.rs` for
//! `[project]`); the exit codes ([`exit`]); and the [`Progress`] a long
//! command reports. The libraries (`analysis`, the lifecycle) take their
//! settings from here, not from the command-line plugin API.
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

pub mod exit;
mod gc;
mod modules;
mod openlineage;
mod progress;
mod rules;
mod run;
mod settings;
mod sources;
mod targets;

pub use gc::GcConfig;
pub use modules::ProjectSection;
pub use openlineage::OpenLineageConfig;
pub use progress::{NoProgress, Progress};
pub use settings::Settings;
pub use sources::{Freeze, SourceConfig};
pub use targets::TargetConfig;

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
    /// `[sources.NAME]`: how a run freezes each source it names.
    pub sources: BTreeMap<String, SourceConfig>,
    /// `[openlineage]`: where `run` sends OpenLineage events by default.
    pub openlineage: Option<OpenLineageConfig>,
    /// `[project]`: the modules, target and pipelines commands use when the
    /// command line names none.
    pub project: ProjectSection,
}

/// The file as written, one field per table.
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    lints: BTreeMap<String, Level>,
    #[serde(default)]
    rules: rules::RawRules,
    #[serde(default)]
    run: run::RawRun,
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

/// Why a project file could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
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
            ConfigError::Unreadable(_) => exit::ENVIRONMENT,
            ConfigError::Invalid(_) => exit::USAGE,
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

/// Whether `project` (a `strata.toml` found already, canonical) is the
/// nearest one of `start` (a module file or a directory), as [`find`]
/// would say, without searching again: no `strata.toml` is looked for in
/// the directories from `start`'s up to `project`'s (none when they are
/// the same; `project` itself was just read); outside that directory,
/// [`find`] answers.
pub fn nearest_is(start: &Path, project: &Path) -> bool {
    let start = std::path::absolute(start).unwrap_or_else(|_| start.to_path_buf());
    let (Some(dir), Some(project_dir)) = (
        if start.is_dir() {
            Some(start.as_path())
        } else {
            start.parent()
        },
        project.parent(),
    ) else {
        return false;
    };
    for d in dir.ancestors() {
        if std::fs::canonicalize(d).is_ok_and(|c| c == project_dir) {
            return true;
        }
        let candidate = d.join(FILE_NAME);
        if candidate.is_file() {
            return std::fs::canonicalize(&candidate).unwrap_or(candidate) == project;
        }
    }
    false
}

/// The project settings for a module file or directory: the nearest
/// `strata.toml`, or the defaults when there is none. A command reads them
/// once, through [`Settings`].
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

/// Parse the text of a project file found at `path`: each table read, then
/// checked by its feature's file, in the order of the tables.
pub fn parse(text: &str, path: &Path) -> Result<ProjectConfig, ConfigError> {
    let raw: RawConfig = toml::from_str(text).map_err(|e| {
        ConfigError::Invalid(format!(
            "invalid {}: {}",
            path.display(),
            e.to_string().trim_end()
        ))
    })?;
    raw.run.validate(path)?;
    raw.gc.validate(path)?;
    sources::validate(&raw.sources, path)?;
    if let Some(ol) = &raw.openlineage {
        ol.validate(path)?;
    }
    raw.project.validate(&raw.targets, path)?;
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
}

#[cfg(test)]
mod tests;
