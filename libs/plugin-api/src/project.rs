//! The project a command works on when its command line names no module:
//! the nearest `strata.toml` in the current directory or above it (as cargo
//! finds `Cargo.toml`), and the modules it names ([`ProjectConfig::modules`]).
//! A module named on the command line is used as given, in a project or not.

use std::path::{Path, PathBuf};

use crate::config::{self, ProjectConfig, Settings};
use crate::exit;

/// The module files a command taking several paths works on: `paths`, or,
/// when none is given, the modules of the project around the current
/// directory. On failure the error is printed and the exit code returned.
pub fn modules_or_project(paths: &[PathBuf], command: &str) -> Result<Vec<PathBuf>, i32> {
    if !paths.is_empty() {
        return Ok(paths.to_vec());
    }
    project_modules(command, None)
        .map(|(_, modules)| modules)
        .map_err(report)
}

/// The files `strata fmt` works on: `paths`, or, when none is given, the
/// directory of the project around the current directory (every .strata
/// file under it). On failure the error is printed and the exit code
/// returned.
pub fn paths_or_project_dir(paths: &[PathBuf], command: &str) -> Result<Vec<PathBuf>, i32> {
    if !paths.is_empty() {
        return Ok(paths.to_vec());
    }
    let here = cwd();
    let project =
        config::discover(&here).map_err(|e| report((e.exit_code(), e.message().to_string())))?;
    match project.dir() {
        Some(dir) => Ok(vec![relative_to(dir, &here)]),
        None => Err(report(outside(command, &here))),
    }
}

/// A module file a command works on, and the project settings read to
/// find it when the command line named none.
#[derive(Debug)]
pub struct Found {
    pub file: PathBuf,
    /// The project around the current directory, when the module is its.
    pub project: Option<ProjectConfig>,
}

impl Found {
    /// The module file and its settings, read at most once: those read to
    /// find it when they are its nearest `strata.toml`, else its nearest
    /// `strata.toml`, read when first asked for.
    pub fn settings(self) -> (PathBuf, Settings<'static>) {
        match self.project {
            Some(project)
                if project
                    .path
                    .as_deref()
                    .is_some_and(|p| config::nearest_is(&self.file, p)) =>
            {
                (self.file, Settings::read(project))
            }
            _ => {
                let settings = Settings::around(&self.file);
                (self.file, settings)
            }
        }
    }
}

/// The one module a command works on: `file`, or, when none is given, the
/// module of the project around the current directory (its only one). On
/// failure the error is printed and the exit code returned.
pub fn module_or_project(file: Option<&Path>, command: &str) -> Result<PathBuf, i32> {
    found_module(file, None, command).map(|f| f.file)
}

/// [`module_or_project`], with the project settings read to find it (from
/// `project_file` when it was found already).
fn found_module(
    file: Option<&Path>,
    project_file: Option<PathBuf>,
    command: &str,
) -> Result<Found, i32> {
    if let Some(f) = file {
        return Ok(Found {
            file: f.to_path_buf(),
            project: None,
        });
    }
    let (project, modules) = project_modules(command, project_file).map_err(report)?;
    match modules.as_slice() {
        [one] => Ok(Found {
            file: one.clone(),
            project: Some(project),
        }),
        many => {
            let names: Vec<String> = many.iter().map(|m| m.display().to_string()).collect();
            Err(report((
                exit::USAGE,
                format!(
                    "the project has {} modules ({}): name the one to use (`strata {command} {}`), or list the entry module in strata.toml's [project] modules",
                    many.len(),
                    names.join(", "),
                    names.first().map_or("FILE.strata", String::as_str)
                ),
            )))
        }
    }
}

/// A first argument that may be the module file or, inside a project where
/// the file may be left out, the next argument (a model, a run id, a
/// column): it is the next argument when it is neither a path that exists
/// nor a `.strata` file name and a project is around the current
/// directory. Returns the module file (if named) and that argument.
pub fn module_or_next(first: Option<PathBuf>) -> (Option<PathBuf>, Option<String>) {
    let (file, next, _) = module_or_next_found(first);
    (file, next)
}

/// [`module_or_next`], with the project file found to tell (read once
/// more by nobody: the command's settings are read from it).
fn module_or_next_found(
    first: Option<PathBuf>,
) -> (Option<PathBuf>, Option<String>, Option<PathBuf>) {
    match first {
        Some(f) if !f.exists() && f.extension().is_none_or(|e| e != "strata") => {
            match config::find(&cwd()) {
                Some(project) => (None, Some(f.to_string_lossy().into_owned()), Some(project)),
                None => (Some(f), None, None),
            }
        }
        other => (other, None, None),
    }
}

/// For a command whose positionals are `[FILE] [MODEL]...`: the module file
/// (named, or the project's) and the models, the first of which may have
/// been parsed as the file ([`module_or_next`]). On failure the error is
/// printed and the exit code returned.
pub fn module_and_models(
    file: Option<PathBuf>,
    models: &mut Vec<String>,
    command: &str,
) -> Result<Found, i32> {
    let (file, first, project) = module_or_next_found(file);
    models.splice(0..0, first);
    found_module(file.as_deref(), project, command)
}

/// For a command whose positionals are `[FILE] [ARG]`: the module file
/// (named, or the project's) and ARG, which, when only one positional is
/// given inside a project, is that one unless it names a module
/// ([`module_or_next`]). On failure the error is printed and the exit
/// code returned.
pub fn module_then(
    file: Option<PathBuf>,
    next: Option<String>,
    command: &str,
) -> Result<(Found, Option<String>), i32> {
    let (file, next, project) = match next {
        Some(n) => (file, Some(n), None),
        None => module_or_next_found(file),
    };
    Ok((found_module(file.as_deref(), project, command)?, next))
}

/// The settings of the project around the current directory (the defaults
/// outside any project), for commands that read no module (`gc`,
/// `branches`). On failure the error is printed and the exit code returned.
pub fn current() -> Result<ProjectConfig, i32> {
    config::discover(&cwd()).map_err(|e| report((e.exit_code(), e.message().to_string())))
}

fn cwd() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// The project around the current directory and its modules, as paths
/// relative to it; an error (exit code and message) outside a project or
/// in one without modules.
fn project_modules(
    command: &str,
    project_file: Option<PathBuf>,
) -> Result<(ProjectConfig, Vec<PathBuf>), (i32, String)> {
    let here = cwd();
    let project = match project_file {
        Some(path) => config::load(&path),
        None => config::discover(&here),
    }
    .map_err(|e| (e.exit_code(), e.message().to_string()))?;
    let Some(file) = project.path.clone() else {
        return Err(outside(command, &here));
    };
    let modules = project
        .modules()
        .map_err(|e| (e.exit_code(), e.message().to_string()))?;
    if modules.is_empty() {
        return Err((
            exit::USAGE,
            format!(
                "the project of {} has no module: no .strata file beside it and no [project] modules; write one, or name a module (`strata {command} FILE.strata`)",
                file.display()
            ),
        ));
    }
    let modules = modules.iter().map(|m| relative_to(m, &here)).collect();
    Ok((project, modules))
}

/// The error of a command that names no module outside any project.
fn outside(command: &str, here: &Path) -> (i32, String) {
    (
        exit::USAGE,
        format!(
            "no module named and no strata.toml in {} or above: name a module (`strata {command} FILE.strata`), or make a project with `strata init`",
            here.display()
        ),
    )
}

/// `path` as the user would type it from `dir`: relative (with `..` where
/// needed), or as it is when there is no relative form.
fn relative_to(path: &Path, dir: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match pathdiff::diff_paths(&absolute, dir) {
        Some(p) if p.as_os_str().is_empty() => PathBuf::from("."),
        Some(p) => p,
        None => absolute,
    }
}

fn report((code, message): (i32, String)) -> i32 {
    eprintln!("error: {message}");
    code
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shown_relative_to_the_directory() {
        let root = Path::new("/p/shop");
        assert_eq!(
            relative_to(Path::new("/p/shop/orders.strata"), root),
            PathBuf::from("orders.strata")
        );
        assert_eq!(
            relative_to(Path::new("/p/shop/orders.strata"), &root.join("models")),
            PathBuf::from("../orders.strata")
        );
    }
}
