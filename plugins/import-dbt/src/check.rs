//! Checking what is written with strata's own checker (every rule, as
//! `strata check` runs them): each dbt model's strata models against
//! declarations of what they read, then the whole module.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use strata_lang::ir;

use crate::names::{quote, written};
use crate::plan::ModelPlan;
use crate::types;

/// How a relation is declared to the models that read it.
#[derive(Clone, Debug)]
pub enum Decl {
    /// A `source` declaration (a seed, a dbt source, a needs-review model
    /// read from the table dbt builds): its text.
    Source(String),
    /// A checked model: its output columns.
    Model(Vec<ir::Column>),
}

/// `name: type [nonnull]` lines of a columns block.
pub fn column_lines(cols: &[ir::Column]) -> String {
    let mut s = String::new();
    for c in cols {
        let ty = types::declared(&c.ty).unwrap_or_else(|| "string".into());
        let _ = write!(s, "    {}: {ty}", written(&c.name));
        if !c.nullable {
            s.push_str(" nonnull");
        }
        s.push('\n');
    }
    s
}

/// Check `plans` (one dbt model's, plus `extra` text such as a contract)
/// against declarations of everything they read. The checked columns of
/// each plan, or the errors.
pub fn check_plans(
    plans: &[ModelPlan],
    extra: &str,
    decls: &BTreeMap<String, Decl>,
) -> Result<BTreeMap<String, Vec<ir::Column>>, Vec<String>> {
    let own: Vec<&str> = plans.iter().map(|p| p.name.as_str()).collect();
    let mut text = String::new();
    let mut declared: Vec<&str> = Vec::new();
    for p in plans {
        for input in p.inputs() {
            if own.contains(&input) || declared.contains(&input) {
                continue;
            }
            declared.push(input);
            match decls.get(input) {
                Some(Decl::Source(t)) => {
                    text.push_str(t);
                    text.push('\n');
                }
                Some(Decl::Model(cols)) => {
                    // A model named by a reserved word reads a source
                    // named so too: both written between backticks.
                    let source = format!("__strata_in_{input}");
                    let _ = write!(
                        text,
                        "source {}(ns: {}) {{\n  columns: {{\n{}  }}\n}}\nmodel {} {{\n  from {}\n}}\n",
                        written(&source),
                        quote("import-dbt"),
                        column_lines(cols),
                        written(input),
                        written(&source)
                    );
                }
                None => return Err(vec![format!("`{input}` is not declared")]),
            }
        }
    }
    for p in plans {
        text.push_str(&p.to_text());
    }
    text.push_str(extra);
    let checked = strata_rules::check_module_text("import-dbt.strata", &text);
    let errors: Vec<String> = checked
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{} {}", d.code, d.message))
        .collect();
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut out = BTreeMap::new();
    for m in &checked.module.models {
        if own.contains(&m.name.as_str()) {
            out.insert(m.name.clone(), m.columns.clone());
        }
    }
    Ok(out)
}
