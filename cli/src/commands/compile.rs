//! `strata compile`: the SQL each model compiles to for a warehouse dialect,
//! then the join cardinality check queries.

use std::path::PathBuf;

use serde::Serialize;
use strata_lang::ir::{self, InputKind};
use strata_lang::sql::{self, Dialect};
use strata_lang::Diagnostic;

use super::check::check_roots;
use crate::exit;
use crate::render::{self, Format};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DialectArg {
    Duckdb,
    Postgres,
    Bigquery,
    Snowflake,
    Spark,
}

impl DialectArg {
    pub fn dialect(self) -> Dialect {
        match self {
            DialectArg::Duckdb => Dialect::DuckDb,
            DialectArg::Postgres => Dialect::Postgres,
            DialectArg::Bigquery => Dialect::BigQuery,
            DialectArg::Snowflake => Dialect::Snowflake,
            DialectArg::Spark => Dialect::Spark,
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct CompileArgs {
    /// The module file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
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

/// The name of the view a model compiles to (and upstream models read).
pub fn view_name(model: &str) -> String {
    format!("v_{model}")
}

/// The relation an input reads in compiled SQL: a source's table of the
/// same name, a model's view.
pub fn relation(d: Dialect, input: &ir::Input) -> String {
    match input.kind {
        InputKind::Source => d.ident(&input.name),
        InputKind::Model => d.ident(&view_name(&input.name)),
    }
}

/// One model's view: its name and the SQL that creates it.
#[derive(Serialize)]
pub struct JsonView {
    pub model: String,
    pub view: String,
    pub sql: String,
}

#[derive(Serialize)]
struct JsonCheck {
    model: String,
    join: String,
    cardinality: &'static str,
    table: String,
    keys: Vec<String>,
    sql: String,
}

/// Everything `compile` prints for a module: the views, then the checks.
pub struct Compiled {
    pub views: Vec<JsonView>,
    checks: Vec<JsonCheck>,
}

/// Compile the selected models (all when `wanted` is empty), in the
/// module's order.
pub fn compile_module(
    module: &ir::Module,
    wanted: &[String],
    d: Dialect,
) -> Result<Compiled, Vec<Diagnostic>> {
    let columns = sql::ModuleColumns::of(module);
    let models: Vec<&ir::Model> = module
        .models
        .iter()
        .filter(|m| wanted.is_empty() || wanted.contains(&m.name))
        .collect();
    let out = compile_models(&columns, &models, d);
    if out.errors.is_empty() {
        Ok(Compiled {
            views: out.views,
            checks: out.checks,
        })
    } else {
        Err(out.errors)
    }
}

/// Some models' views and checks, and the errors of those that do not
/// compile.
struct Part {
    views: Vec<JsonView>,
    checks: Vec<JsonCheck>,
    errors: Vec<Diagnostic>,
}

fn compile_models(columns: &sql::ModuleColumns, models: &[&ir::Model], d: Dialect) -> Part {
    let rel = |i: &ir::Input| relation(d, i);
    let mut part = Part {
        views: Vec::with_capacity(models.len()),
        checks: Vec::new(),
        errors: Vec::new(),
    };
    for m in models {
        match sql::lower_model_with(columns, m, d, &rel) {
            Ok(select) => part.views.push(JsonView {
                model: m.name.clone(),
                view: view_name(&m.name),
                sql: sql::create_view(d, &view_name(&m.name), &select),
            }),
            Err(e) => part.errors.push(e),
        }
        for c in sql::cardinality_checks(m) {
            part.checks.push(JsonCheck {
                model: m.name.clone(),
                join: format!("{} {} {}", c.model, c.join_kind.name(), c.join_input),
                cardinality: c.cardinality.as_str(),
                table: c.table.clone(),
                sql: check_query(d, m, &c),
                keys: c.keys,
            });
        }
    }
    part
}

/// The query a join cardinality check of model `m` runs: the duplicate key
/// groups of the relation it reads (a count of 0 passes).
pub fn check_query(d: Dialect, m: &ir::Model, c: &sql::CardinalityCheck) -> String {
    format!(
        "{};",
        d.duplicate_groups_query(&relation(d, &m.inputs[c.input]), &c.keys)
    )
}

pub fn run(args: CompileArgs) -> i32 {
    let results = match check_roots(
        std::slice::from_ref(&args.file),
        &args.search_dir,
        args.format,
    ) {
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
        if let Err(code) = super::check::require_models(module, &args.models, &root) {
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
