use strata_codes as codes;
use strata_lang::ir;
use strata_lang::{Diagnostic, Span};

use crate::rule;

/// A model outputs a classified column that is not `protected`.
///
/// ## What it means
///
/// `classification: "pii"` on a source column says what kind of data it
/// holds; `protected` says that the column is guarded: a breaking change to
/// it is refused (E030 in lineage diffs) and its handling is reviewed. A
/// column's flags survive a plain passthrough (no `select`, or a group key),
/// so a model that passes a classified column on publishes it, and this
/// lint asks for that column to be `protected` too. A column the model's own
/// contract declares `protected` is not reported.
///
/// The primary location is the model that outputs the column; a second
/// label shows the source column where the classification was declared.
///
/// ## Example
///
/// ```strata
/// source customers(ns: "crm", dataset: "customers") {
///   columns: {
///     customer_id: int64 nonnull
///     email: string classification: "pii"
///   }
/// }
/// model customer_list {
///   owner: "crm"
///   from customers
/// }
/// ```
///
/// ## How to fix
///
/// Mark the column `protected` where it is classified (or leave it out of
/// the model's outputs with a `select`):
///
/// ```strata
/// source customers(ns: "crm", dataset: "customers") {
///   columns: {
///     customer_id: int64 nonnull
///     email: string classification: "pii" protected
///   }
/// }
/// model customer_list {
///   owner: "crm"
///   from customers
/// }
/// ```
#[rule(W004)]
pub fn classified_column_not_protected(module: &ir::Module, out: &mut Vec<Diagnostic>) {
    for m in module.models.iter().filter(|m| m.ok) {
        let contract = m
            .contract
            .as_ref()
            .and_then(|c| module.contracts.iter().find(|x| &x.name == c));
        for (index, col) in m.columns.iter().enumerate() {
            let Some(class) = &col.classification else {
                continue;
            };
            let guarded_by_contract = contract.is_some_and(|c| {
                c.columns
                    .iter()
                    .any(|cc| cc.name == col.name && cc.protected)
            });
            if col.protected || guarded_by_contract {
                continue;
            }
            let mut d = Diagnostic::new(
                &codes::W004,
                m.name_span,
                format!(
                    "column '{}' of model '{}' is classified '{class}' but not protected",
                    col.name, m.name
                ),
            )
            .with_label(format!("outputs `{}` unprotected", col.name));
            if let Some((span, source, column)) = declared_at(module, m, index) {
                d = d.with_secondary(
                    span,
                    format!("`{source}.{column}` is classified '{class}' here"),
                );
            }
            out.push(d.with_help(format!(
                "mark the column `protected` where it is classified (`... classification: \"{class}\" protected`), or leave it out of this model's outputs with a `select`"
            )));
        }
    }
}

/// The source column a passed-through output column comes from, following
/// its lineage through upstream models: (span, source, column).
fn declared_at<'m>(
    module: &'m ir::Module,
    model: &'m ir::Model,
    index: usize,
) -> Option<(Span, &'m str, &'m str)> {
    let (mut input, mut column) = model
        .lineage
        .get(index)?
        .from
        .first()
        .map(|(i, c)| (i.as_str(), c.as_str()))?;
    // Each step goes one model upstream; the models form no cycle, so this
    // ends, and the bound keeps it so even on a malformed module.
    for _ in 0..=module.models.len() {
        if let Some(s) = module.sources.iter().find(|s| s.name == input) {
            return Some((s.column_span(column), input, column));
        }
        let up = module.models.iter().find(|x| x.name == input)?;
        let i = up.columns.iter().position(|c| c.name == column)?;
        (input, column) = up
            .lineage
            .get(i)?
            .from
            .first()
            .map(|(i, c)| (i.as_str(), c.as_str()))?;
    }
    None
}
