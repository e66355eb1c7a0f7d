//! Lint levels: the defaults, changed by the `[lints]` table of the
//! nearest `strata.toml`, then by level settings in order (`strata lint`'s
//! `--allow/--warn/--deny`), and the lints added to a checked module at
//! those levels.

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

/// Apply level settings `(level, code or group)` to `levels`, in order (a
/// later one wins). The message of an `Err` names the flag as given.
pub fn apply_settings(levels: &mut Levels, settings: &[(Level, String)]) -> Result<(), String> {
    for (level, key) in settings {
        levels
            .set(key, *level, &format!("`--{level} {key}`"))
            .map_err(|e| format!("--{level} {key}: {}", e.message))?;
    }
    Ok(())
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

/// The levels for one root module: the defaults, its `strata.toml`, then
/// `settings`. `Err` is the message of a bad `[lints]` table or setting.
pub fn levels_for(project: &ProjectConfig, settings: &[(Level, String)]) -> Result<Levels, String> {
    let mut levels = Levels::defaults();
    if let Some(path) = &project.path {
        levels
            .set_table(
                project.lints.iter().map(|(k, v)| (k.as_str(), *v)),
                &shown(path),
            )
            .map_err(|e| e.message)?;
    }
    apply_settings(&mut levels, settings)?;
    Ok(levels)
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
