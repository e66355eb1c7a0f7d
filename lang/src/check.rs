//! Loading a module (imports) and checking it into the typed IR.
//! (Being written: the entry points below are the stable API.)

use std::path::PathBuf;

use crate::diag::Diagnostic;
use crate::ir;
use crate::span::SourceMap;

/// Where imports are looked up besides the root module's directory.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    pub search_dirs: Vec<PathBuf>,
}

/// The result of checking a module: its files, the typed IR and every
/// diagnostic, in source order.
#[derive(Debug, Default)]
pub struct Checked {
    pub sources: SourceMap,
    pub module: ir::Module,
    pub diagnostics: Vec<Diagnostic>,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }
}

/// Check one module given as text. `path` names it in diagnostics and is the
/// base directory for its imports.
pub fn check_text(path: impl Into<PathBuf>, text: &str) -> Checked {
    let mut sources = SourceMap::new();
    sources.add(path.into(), text);
    Checked {
        sources,
        ..Checked::default()
    }
}

/// Check the module made of the given root files (each with its imports).
pub fn check_files(paths: &[PathBuf], options: &LoadOptions) -> Checked {
    let _ = (paths, options);
    Checked::default()
}
