//! `strata build`: check, then report each model's fingerprint, output
//! schema, column lineage and join keys.

use std::path::PathBuf;

use serde::Serialize;
use strata_codes as codes;
use strata_lang::ir::{self, Column, JoinKeys};
use strata_lang::Diagnostic;

use crate::exit;
use crate::modules::{check_roots, require_models};
use crate::render::{self, Format};
use crate::text::columns_text;

#[derive(Debug, clap::Args)]
pub struct BuildArgs {
    /// The module file (or a directory of module files). Default: the
    /// project's module (strata.toml in the current directory or above); a
    /// first MODEL is then not a file.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Only these models (default: all). Unknown names are a usage error.
    #[arg(value_name = "MODEL")]
    pub models: Vec<String>,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<PathBuf>,
    /// Fail (E014) unless every built model declares `-> contract`.
    #[arg(long)]
    pub strict: bool,
    /// Output format: human or json.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Serialize)]
struct JsonJoin<'a> {
    kind: &'static str,
    input: &'a str,
    left_input: &'a str,
    expect: Option<&'static str>,
    keys: Option<&'a JoinKeys>,
}

#[derive(Serialize)]
struct JsonModel<'a> {
    name: &'a str,
    fingerprint: &'a str,
    contract: Option<&'a str>,
    columns: &'a [Column],
    lineage: &'a [ir::Lineage],
    joins: Vec<JsonJoin<'a>>,
}

pub fn run(mut args: BuildArgs) -> i32 {
    let file = match crate::project::module_and_models(args.file.take(), &mut args.models, "build")
    {
        Ok(found) => found.file,
        Err(code) => return code,
    };
    let results = match check_roots(std::slice::from_ref(&file), &args.search_dir, args.format) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let mut status = exit::OK;
    let mut json_models = Vec::new();
    let mut json_diags = Vec::new();
    for (root, mut checked) in results {
        let module = &checked.module;
        if let Err(code) = require_models(module, &args.models, &root) {
            return code;
        }
        let selected: Vec<&ir::Model> = module
            .models
            .iter()
            .filter(|m| args.models.is_empty() || args.models.contains(&m.name))
            .collect();
        let mut extra: Vec<Diagnostic> = Vec::new();
        if args.strict {
            for m in &selected {
                if m.contract.is_none() {
                    extra.push(
                        Diagnostic::new(
                            &codes::E014,
                            m.name_span,
                            format!(
                                "strict mode requires every built model to declare -> contract: {}",
                                m.name
                            ),
                        )
                        .with_help(format!(
                            "declare `model {} -> contract <Name> {{ ... }}`",
                            m.name
                        )),
                    );
                }
            }
        }
        let failed = checked.has_errors() || !extra.is_empty();
        if args.format == Format::Human {
            if !failed {
                for m in &selected {
                    print_model(m);
                }
            }
        } else {
            for m in &selected {
                json_models.push(serde_json::to_value(JsonModel {
                    name: &m.name,
                    fingerprint: &m.fingerprint,
                    contract: m.contract.as_deref(),
                    columns: &m.columns,
                    lineage: &m.lineage,
                    joins: m
                        .joins
                        .iter()
                        .map(|j| JsonJoin {
                            kind: j.kind.keyword(),
                            input: &j.input,
                            left_input: &j.left_input,
                            expect: j.expect.map(|c| c.as_str()),
                            keys: j.keys(),
                        })
                        .collect(),
                }));
            }
        }
        checked.diagnostics.extend(extra);
        strata_lang::diag::sort_diagnostics(&mut checked.diagnostics);
        if args.format == Format::Human {
            render::print_diagnostics(&checked.sources, &checked.diagnostics);
            if failed {
                eprintln!(
                    "error: {} has {}",
                    root.display(),
                    render::count_summary(&checked.diagnostics)
                );
            }
        } else {
            json_diags.extend(render::json_diagnostics(
                &checked.sources,
                &checked.diagnostics,
            ));
        }
        if failed {
            status = exit::MODULE_ERRORS;
        }
    }
    if args.format == Format::Json {
        let models: Vec<_> = json_models.into_iter().filter_map(Result::ok).collect();
        render::print_json(&serde_json::json!({
            "ok": status == exit::OK,
            "models": models,
            "diagnostics": json_diags,
        }));
    }
    status
}

fn print_model(m: &ir::Model) {
    crate::outln!("model {}", m.name);
    crate::outln!("  fingerprint  {}", m.fingerprint);
    if let Some(c) = &m.contract {
        crate::outln!("  contract     {c}");
    }
    crate::outln!("  outputs      {}", columns_text(&m.columns));
    for (i, l) in m.lineage.iter().enumerate() {
        let head = if i == 0 { "lineage " } else { "        " };
        let from: Vec<String> = l.from.iter().map(|(i, c)| format!("{i}.{c}")).collect();
        let from = if from.is_empty() {
            "(literal)".to_string()
        } else {
            from.join(", ")
        };
        crate::outln!("  {head}     {} <- {from} [{}]", l.column, l.how);
    }
    for j in &m.joins {
        let Some(card) = j.expect else {
            continue;
        };
        crate::outln!(
            "  join         {} {} expect {}",
            j.kind.keyword(),
            j.input,
            card.as_str()
        );
        if let Some(keys) = j.keys() {
            let left = if keys.left.is_empty() {
                "(none: right-only keys)".to_string()
            } else {
                keys.left.join(", ")
            };
            crate::outln!("    left keys  ({})  {left}", j.left_input);
            crate::outln!("    right keys ({})  {}", j.input, keys.right.join(", "));
        }
    }
    crate::outln!();
}
