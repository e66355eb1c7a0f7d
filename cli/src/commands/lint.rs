//! `strata lint`: check modules, then run every lint at its level (default,
//! `strata.toml`'s `[lints]`, then `--allow/--warn/--deny`), with the
//! suppression comments applied; report as text, JSON or SARIF.

use std::path::PathBuf;

use serde::Serialize;

use crate::exit;
use crate::levels::{add_lints, LevelArgs};
use crate::modules::check_roots;
use crate::render::{self, Format};

/// The arguments of `strata lint` (its help text is on `Command::Lint`).
#[derive(Debug, clap::Args)]
pub struct LintArgs {
    /// Module files, or directories (every *.strata file under them). Each
    /// file is linted as the root of its own module, with its imports.
    /// Default: the project's modules (strata.toml in the current directory
    /// or above: its `[project] modules`, or the .strata files beside it).
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<PathBuf>,
    /// Output format: human (diagnostics on stderr, a summary on stdout),
    /// json (one document on stdout, diagnostics as `strata check` prints
    /// them) or sarif (SARIF 2.1.0 on stdout, for code-scanning tools).
    #[arg(long, value_enum, default_value_t = LintFormat::Human)]
    pub format: LintFormat,
    #[command(flatten)]
    pub levels: LevelArgs,
}

/// Output format of `strata lint`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LintFormat {
    /// Human-readable text; diagnostics rendered with source snippets.
    #[default]
    Human,
    /// One machine-readable JSON document on stdout.
    Json,
    /// A SARIF 2.1.0 log on stdout (GitHub code scanning and other tools).
    Sarif,
}

impl LintFormat {
    /// The format environment failures are reported in (a SARIF log has no
    /// place for them: stderr only).
    fn plain(self) -> Format {
        match self {
            LintFormat::Human | LintFormat::Sarif => Format::Human,
            LintFormat::Json => Format::Json,
        }
    }
}

#[derive(Serialize)]
struct JsonModule {
    file: String,
    ok: bool,
    diagnostics: Vec<render::JsonDiagnostic>,
}

pub fn run(args: LintArgs) -> i32 {
    if let Err(code) = args.levels.validate() {
        return code;
    }
    let paths = match crate::project::modules_or_project(&args.paths, "lint") {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mut results = match check_roots(&paths, &args.search_dir, args.format.plain()) {
        Ok(r) => r,
        Err(code) => return code,
    };
    if let Err(code) = add_lints(&mut results, None, &args.levels) {
        return code;
    }
    match args.format {
        LintFormat::Human => {
            for (root, c) in &results {
                render::print_diagnostics(&c.sources, &c.diagnostics);
                let root = root.display();
                if c.has_errors() {
                    eprintln!(
                        "error: {root} has {}",
                        render::count_summary(&c.diagnostics)
                    );
                } else if c.diagnostics.is_empty() {
                    crate::outln!("lint OK: {root}");
                } else {
                    crate::outln!("lint: {root}: {}", render::count_summary(&c.diagnostics));
                }
            }
        }
        LintFormat::Json => {
            let modules: Vec<JsonModule> = results
                .iter()
                .map(|(root, c)| JsonModule {
                    file: root.display().to_string(),
                    ok: !c.has_errors(),
                    diagnostics: render::json_diagnostics(&c.sources, &c.diagnostics),
                })
                .collect();
            render::print_json(&serde_json::json!({ "modules": modules }));
        }
        LintFormat::Sarif => {
            let files: Vec<(&strata_lang::SourceMap, &[strata_lang::Diagnostic])> = results
                .iter()
                .map(|(_, c)| (&c.sources, c.diagnostics.as_slice()))
                .collect();
            render::print_json(&crate::sarif::log(&files));
        }
    }
    if results.iter().any(|(_, c)| c.has_errors()) {
        exit::MODULE_ERRORS
    } else {
        exit::OK
    }
}
