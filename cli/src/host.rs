//! The services the CLI gives plugin commands ([`strata_plugin::Host`]).

use std::path::{Path, PathBuf};

use strata_lang::{Checked, Diagnostic, SourceMap};
use strata_plugin::{Host, Progress};

use crate::exit;
use crate::modules::{check_roots, check_valid, environment_error};
use crate::render::{self, Format};

/// The CLI as the host of plugin commands.
pub struct CliHost;

impl Host for CliHost {
    fn checked_module(
        &self,
        file: &Path,
        search_dirs: &[PathBuf],
        format: Format,
    ) -> Result<Checked, i32> {
        let mut results = check_roots(&[file.to_path_buf()], search_dirs, format)?;
        let Some((root, checked)) = results.pop() else {
            return Err(exit::USAGE);
        };
        if checked.has_errors() {
            match format {
                Format::Human => {
                    render::print_diagnostics(&checked.sources, &checked.diagnostics);
                    eprintln!(
                        "error: {} has {}; nothing was run",
                        root.display(),
                        render::count_summary(&checked.diagnostics)
                    );
                }
                Format::Json => render::print_json(&serde_json::json!({
                    "ok": false,
                    "diagnostics": render::json_diagnostics(&checked.sources, &checked.diagnostics),
                })),
            }
            return Err(exit::MODULE_ERRORS);
        }
        Ok(checked)
    }

    fn valid_module(
        &self,
        file: &Path,
        search_dirs: &[PathBuf],
        what: &str,
    ) -> Result<Checked, i32> {
        check_valid(file, search_dirs, what)
    }

    fn print_diagnostics(&self, sources: &SourceMap, diagnostics: &[Diagnostic]) {
        render::print_diagnostics(sources, diagnostics);
    }

    fn json_diagnostic(&self, sources: &SourceMap, diagnostic: &Diagnostic) -> serde_json::Value {
        serde_json::to_value(render::json_diagnostic(sources, diagnostic))
            .unwrap_or(serde_json::Value::Null)
    }

    fn environment_error(&self, message: &str, format: Format) -> i32 {
        environment_error(message, format)
    }

    fn progress(&self) -> Box<dyn Progress> {
        Box::new(crate::progress::Bar::new())
    }
}
