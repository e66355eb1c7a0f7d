use std::collections::HashMap;

use strata_codes as codes;
use strata_lang::ir;
use strata_lang::Diagnostic;

use crate::rule;

/// Two models compute the same thing: same inputs, same clauses.
///
/// ## What it means
///
/// A model's fingerprint hashes its name, its contract, its clauses and its
/// upstream fingerprints, so two models never share one: names are unique
/// (E025). This lint reports what a shared fingerprint would mean, two
/// models that differ only by their name (and their contract or
/// attributes): they read the same inputs through the same typed, resolved
/// clauses, so they produce the same rows. Every run computes and stores
/// the rows twice, and the copies drift apart as soon as one is edited and
/// the other forgotten. The comparison is on the checked clauses, so layout,
/// comments and attributes such as `owner:` do not matter.
///
/// The later model (in source order) is reported; a label shows the first.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model big_orders {
///   owner: "analytics"
///   from orders
///   filter amount > 100
/// }
/// model large_orders {
///   owner: "finance"
///   from orders
///   filter amount > 100
/// }
/// pipeline nightly { env: prod, models: [big_orders, large_orders] }
/// ```
///
/// ## How to fix
///
/// Keep one model and have its readers (or the pipeline) use it:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model big_orders {
///   owner: "analytics"
///   from orders
///   filter amount > 100
/// }
/// pipeline nightly { env: prod, models: [big_orders] }
/// ```
#[rule(W006)]
pub fn duplicate_model(module: &ir::Module, out: &mut Vec<Diagnostic>) {
    let mut models: Vec<&ir::Model> = module
        .models
        .iter()
        .filter(|m| m.ok && !m.steps.is_empty())
        .collect();
    models.sort_by_key(|m| (m.span.file, m.span.start));
    // Models with the same inputs and clause count; compared in full only
    // within a bucket, so the usual all-different module costs one pass.
    let mut buckets: HashMap<String, Vec<&ir::Model>> = HashMap::new();
    for m in models {
        let bucket = buckets.entry(shape_key(m)).or_default();
        if let Some(first) = bucket.iter().find(|other| same_computation(other, m)) {
            out.push(
                Diagnostic::new(
                    &codes::W006,
                    m.name_span,
                    format!(
                        "model '{}' computes the same rows as model '{}'",
                        m.name, first.name
                    ),
                )
                .with_label("same inputs and clauses as an earlier model")
                .with_secondary(
                    first.name_span,
                    format!("'{}' is declared here", first.name),
                )
                .with_help(format!(
                    "keep one of the two: remove '{}' and read '{}' instead",
                    m.name, first.name
                )),
            );
        } else {
            bucket.push(m);
        }
    }
}

/// The inputs (name, kind, role) and the number of clauses.
fn shape_key(m: &ir::Model) -> String {
    let mut key = format!("{}", m.steps.len());
    for i in &m.inputs {
        key.push_str(&format!("|{}:{:?}:{:?}", i.name, i.kind, i.role));
    }
    key
}

/// Same inputs, joins and typed clauses (spans and names of the models aside).
fn same_computation(a: &ir::Model, b: &ir::Model) -> bool {
    fn inputs(m: &ir::Model) -> Vec<(&str, ir::InputKind, ir::InputRole)> {
        m.inputs
            .iter()
            .map(|i| (i.name.as_str(), i.kind, i.role))
            .collect()
    }
    fn joins(m: &ir::Model) -> Vec<(strata_lang::ast::JoinKind, &str)> {
        m.joins.iter().map(|j| (j.kind, j.input.as_str())).collect()
    }
    a.steps == b.steps && inputs(a) == inputs(b) && joins(a) == joins(b)
}
