//! The lints added to a checked module at its levels: the `[lints]` table
//! of the nearest `strata.toml` (`strata-project` reads it) and the level
//! settings of the command line (`strata lint`'s `--allow/--warn/--deny`,
//! parsed by the CLI), made into levels by `strata_rules`'
//! `Levels::configured`, the one way levels are made.

use std::path::Path;

use strata_lang::diag::sort_diagnostics;
use strata_lang::Checked;
use strata_project::{self as config, ConfigError, ProjectConfig};
use strata_rules::lint::Levels;
use strata_rules::Level;

/// Why the lints of a module could not be run.
#[derive(Debug)]
pub enum LintError {
    /// Its `strata.toml` cannot be read or is not valid.
    Config(ConfigError),
    /// A `[lints]` entry or a level setting names no lint or group (a usage
    /// error).
    Levels(String),
}

/// A path as the user would write it: relative to the current directory
/// when it is below it.
fn shown(path: &Path) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
        .display()
        .to_string()
}

/// The levels for one root module ([`Levels::configured`]): the defaults,
/// its `strata.toml`'s `[lints]`, then `settings`. `Err` is the message of
/// a bad `[lints]` table or setting.
fn levels_for(project: &ProjectConfig, settings: &[(Level, String)]) -> Result<Levels, String> {
    let file = project.path.as_deref().map(shown);
    let table = file
        .as_deref()
        .map(|file| (project.lints.iter().map(|(k, v)| (k.as_str(), *v)), file));
    Levels::configured(table, settings)
}

/// Run the lints over one checked root, at the levels of `project` (when
/// the caller has read it, else of the root's nearest strata.toml) and
/// `settings`, and merge their diagnostics with the module's in source
/// order. On an `Err` the module is left as it was.
pub fn add_lints(
    root: &Path,
    checked: &mut Checked,
    project: Option<&ProjectConfig>,
    settings: &[(Level, String)],
) -> Result<(), LintError> {
    let levels = match project {
        Some(project) => levels_for(project, settings),
        None => levels_for(
            &config::discover(root).map_err(LintError::Config)?,
            settings,
        ),
    }
    .map_err(LintError::Levels)?;
    let lints = strata_rules::lint::lint(checked, &levels);
    checked.diagnostics.extend(lints);
    sort_diagnostics(&mut checked.diagnostics);
    Ok(())
}

impl LintError {
    /// What to tell the user.
    pub fn message(&self) -> &str {
        match self {
            LintError::Config(e) => e.message(),
            LintError::Levels(m) => m,
        }
    }

    /// The exit code: the project file's failure, or a usage error.
    pub fn exit_code(&self) -> i32 {
        match self {
            LintError::Config(e) => e.exit_code(),
            LintError::Levels(_) => strata_project::exit::USAGE,
        }
    }
}
