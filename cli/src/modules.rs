//! The modules named on the command line, checked: the roots a command
//! is given expanded and checked with every rule, and the failures every
//! command reports the same way.

use std::path::{Path, PathBuf};

use strata_lang::ir;
use strata_lang::{Checked, LoadOptions};
use strata_rules::ModuleInput;

use crate::exit;
use crate::render::{self, Format};

/// Report an environment failure (exit 4): on stderr, and with
/// `--format json` also as the JSON document on stdout.
pub fn environment_error(message: &str, format: Format) -> i32 {
    eprintln!("error: {message}");
    if format == Format::Json {
        render::print_json(
            &serde_json::json!({ "error": message, "exit_code": exit::ENVIRONMENT }),
        );
    }
    exit::ENVIRONMENT
}

/// Fail (exit 2) unless every wanted model exists in the module.
pub fn require_models(module: &ir::Module, wanted: &[String], root: &Path) -> Result<(), i32> {
    for w in wanted {
        if !module.models.iter().any(|m| &m.name == w) {
            let hint =
                strata_lang::suggest::closest(w, module.models.iter().map(|m| m.name.as_str()))
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
            eprintln!("error: no model '{w}' in {}{hint}", root.display());
            return Err(exit::USAGE);
        }
    }
    Ok(())
}

/// Expand the paths and check each root ([`strata_rules::check_module`]);
/// `Err(code)` on a usage/environment problem (already reported).
pub fn check_roots(
    paths: &[PathBuf],
    search_dirs: &[PathBuf],
    format: Format,
) -> Result<Vec<(PathBuf, Checked)>, i32> {
    let options = LoadOptions {
        search_dirs: search_dirs.to_vec(),
        ..LoadOptions::default()
    };
    let roots = crate::inputs::expand_paths(paths).map_err(|e| environment_error(&e, format))?;
    let mut out = Vec::new();
    for root in roots {
        let checked =
            strata_rules::check_module(ModuleInput::Files(std::slice::from_ref(&root)), &options);
        if let Some((path, e)) = checked.io_errors.first() {
            return Err(environment_error(
                &format!("cannot read {}: {e}", path.display()),
                format,
            ));
        }
        out.push((root, checked));
    }
    Ok(out)
}

/// Check the one module rooted at `file` for a command that needs a valid
/// module (graph, diff, docs): its diagnostics go to stderr; `Err(1)` when
/// it has errors, `Err(4)` when it cannot be read.
pub fn check_valid(file: &Path, search_dirs: &[PathBuf], what: &str) -> Result<Checked, i32> {
    if file.is_dir() {
        eprintln!(
            "error: {} is a directory: {what} reads one module, given by its root file",
            file.display()
        );
        return Err(exit::USAGE);
    }
    let (root, checked) = check_roots(&[file.to_path_buf()], search_dirs, Format::Human)?
        .pop()
        .ok_or(exit::USAGE)?;
    render::print_diagnostics(&checked.sources, &checked.diagnostics);
    if checked.has_errors() {
        eprintln!(
            "error: {} has {}",
            root.display(),
            render::count_summary(&checked.diagnostics)
        );
        return Err(exit::MODULE_ERRORS);
    }
    Ok(checked)
}
