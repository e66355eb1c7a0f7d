//! A checked module compiled for a warehouse dialect: each model's view
//! and the join cardinality check queries. `strata compile` prints them,
//! `strata docs` shows them on each model's page, the language server
//! answers `strata/compiledSql` with them.

use serde::Serialize;
use std::collections::HashMap;
use strata_lang::ir::{self, InputKind};

use strata_lang::sql::{self, Dialect};
use strata_lang::table_name::TableName;
use strata_lang::Diagnostic;

/// The name of the view a model compiles to (and upstream models read).
pub fn view_name(model: &str) -> String {
    format!("v_{model}")
}

/// The relation each input reads in compiled SQL: a source's table (in
/// its schema, where its declaration names one), a model's view.
pub struct Relations<'m> {
    dialect: Dialect,
    sources: HashMap<&'m str, &'m TableName>,
}

impl<'m> Relations<'m> {
    pub fn of(module: &'m ir::Module, dialect: Dialect) -> Relations<'m> {
        let mut sources = HashMap::new();
        for s in &module.sources {
            // The first declaration of a name, as the checker resolves it.
            sources.entry(s.name.as_str()).or_insert(&s.table);
        }
        Relations { dialect, sources }
    }

    pub fn input(&self, input: &ir::Input) -> String {
        let d = self.dialect;
        match input.kind {
            InputKind::Source => match self.sources.get(input.name.as_str()) {
                Some(table) => d.table(table),
                None => d.ident(&input.name),
            },
            InputKind::Model => d.ident(&view_name(&input.name)),
        }
    }
}

/// One model's view: its name and the SQL that creates it.
#[derive(Serialize)]
pub struct View {
    pub model: String,
    pub view: String,
    pub sql: String,
}

/// One join cardinality check: what it counts, and its query.
#[derive(Serialize)]
pub struct Check {
    pub model: String,
    /// `<model> <join kind> <input>`.
    pub join: String,
    pub cardinality: &'static str,
    pub table: String,
    pub keys: Vec<String>,
    pub sql: String,
}

/// Everything a module compiles to: the views, then the checks.
pub struct Compiled {
    pub views: Vec<View>,
    pub checks: Vec<Check>,
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
    let out = compile_models(&columns, &Relations::of(module, d), &models, d);
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
    views: Vec<View>,
    checks: Vec<Check>,
    errors: Vec<Diagnostic>,
}

fn compile_models(
    columns: &sql::ModuleColumns,
    relations: &Relations,
    models: &[&ir::Model],
    d: Dialect,
) -> Part {
    let rel = |i: &ir::Input| relations.input(i);
    let mut part = Part {
        views: Vec::with_capacity(models.len()),
        checks: Vec::new(),
        errors: Vec::new(),
    };
    for m in models {
        match sql::lower_model_with(columns, m, d, &rel, sql::RunValues::NONE) {
            Ok(select) => part.views.push(View {
                model: m.name.clone(),
                view: view_name(&m.name),
                sql: sql::create_view(d, &view_name(&m.name), &select),
            }),
            Err(e) => part.errors.push(e),
        }
        for c in sql::cardinality_checks(m) {
            part.checks.push(Check {
                model: m.name.clone(),
                join: format!("{} {} {}", c.model, c.join_kind.name(), c.join_input),
                cardinality: c.cardinality.as_str(),
                table: c.table.clone(),
                sql: check_query(relations, m, &c),
                keys: c.keys,
            });
        }
    }
    part
}

/// The query a join cardinality check of model `m` runs: the duplicate key
/// groups of the relation it reads (a count of 0 passes).
pub fn check_query(relations: &Relations, m: &ir::Model, c: &sql::CardinalityCheck) -> String {
    format!(
        "{};",
        relations
            .dialect
            .duplicate_groups_query(&relations.input(&m.inputs[c.input]), &c.keys)
    )
}
