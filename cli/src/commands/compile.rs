//! `strata compile`: the SQL each model compiles to for a warehouse dialect,
//! then the join cardinality check queries.

use std::path::PathBuf;

use strata_analysis::compile::compile_module;
use strata_plugin::DialectArg;

use crate::exit;
use crate::modules::{check_roots, require_models};
use crate::render::{self, Format};

#[derive(Debug, clap::Args)]
pub struct CompileArgs {
    /// The module file. Default: the project's module (strata.toml in the
    /// current directory or above); a first MODEL is then not a file.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Only these models (default: all), in dependency order.
    #[arg(value_name = "MODEL")]
    pub models: Vec<String>,
    /// Target warehouse dialect.
    #[arg(long, value_enum, default_value_t = DialectArg::Duckdb)]
    pub dialect: DialectArg,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<PathBuf>,
    /// Output format: human (SQL text) or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run(mut args: CompileArgs) -> i32 {
    let file =
        match crate::project::module_and_models(args.file.take(), &mut args.models, "compile") {
            Ok(found) => found.file,
            Err(code) => return code,
        };
    let results = match check_roots(std::slice::from_ref(&file), &args.search_dir, args.format) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let d = args.dialect.dialect();
    for (root, checked) in results {
        if checked.has_errors() {
            render::print_diagnostics(&checked.sources, &checked.diagnostics);
            eprintln!(
                "error: {} has {}",
                root.display(),
                render::count_summary(&checked.diagnostics)
            );
            return exit::MODULE_ERRORS;
        }
        let module = &checked.module;
        if let Err(code) = require_models(module, &args.models, &root) {
            return code;
        }
        let compiled = match compile_module(module, &args.models, d) {
            Ok(c) => c,
            Err(diags) => {
                match args.format {
                    Format::Human => {
                        render::print_diagnostics(&checked.sources, &diags);
                        eprintln!(
                            "error: {} cannot be compiled for {}",
                            root.display(),
                            d.name()
                        );
                    }
                    Format::Json => render::print_json(&serde_json::json!({
                        "ok": false,
                        "dialect": d.name(),
                        "diagnostics": render::json_diagnostics(&checked.sources, &diags),
                    })),
                }
                return exit::MODULE_ERRORS;
            }
        };
        match args.format {
            Format::Json => render::print_json(&serde_json::json!({
                "dialect": d.name(),
                "views": compiled.views,
                "cardinality_checks": compiled.checks,
            })),
            Format::Human => {
                use std::fmt::Write as _;
                let mut out = String::new();
                for v in &compiled.views {
                    let _ = write!(out, "-- model {}\n{}\n\n", v.model, v.sql);
                }
                for c in &compiled.checks {
                    let _ = write!(
                        out,
                        "-- join cardinality check [{}]: expect {}: {} unique on ({}); passes when the count is 0\n{}\n\n",
                        c.join,
                        c.cardinality,
                        c.table,
                        c.keys.join(", "),
                        c.sql
                    );
                }
                render::print_text(out.trim_end());
            }
        }
        // The process exits next: freeing the module piece by piece would
        // only cost time (see `check::run`).
        std::mem::forget((checked, compiled));
    }
    exit::OK
}
