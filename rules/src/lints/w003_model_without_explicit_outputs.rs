use strata_codes as codes;
use strata_lang::ir::{self, InputRole, Step};
use strata_lang::Diagnostic;

use crate::rule;

/// A model has no explicit outputs: its columns are whatever its inputs have.
///
/// ## What it means
///
/// A model without `select`, `derive`, `aggregate` or `group` passes its
/// input's columns through (then the columns of its left and inner joins).
/// Its schema is then decided upstream: a column added to or dropped from
/// a source appears in or disappears from this model, and from everything
/// that reads it, without a change to this file. Listing the outputs makes
/// the model's schema part of its own text.
///
/// This lint is `allow` by default, as in the reference implementation
/// (whose W003 fires only when a model has no columns at all): filter-only
/// models are common. Enable it with `strata lint --warn W003` or
/// `W003 = "warn"` in the `[lints]` table of `strata.toml`.
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
/// ```
///
/// ## How to fix
///
/// Select the columns the model promises:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model big_orders {
///   owner: "analytics"
///   from orders
///   filter amount > 100
///   select { order_id = order_id, amount = amount }
/// }
/// ```
#[rule(W003)]
pub fn model_without_explicit_outputs(module: &ir::Module, out: &mut Vec<Diagnostic>) {
    for m in module.models.iter().filter(|m| m.ok && !m.steps.is_empty()) {
        let explicit = m
            .steps
            .iter()
            .any(|s| matches!(s, Step::Output { .. } | Step::GroupOutput { .. }));
        if explicit {
            continue;
        }
        let from = m
            .inputs
            .iter()
            .find(|i| i.role == InputRole::From)
            .map_or("its inputs", |i| i.name.as_str());
        out.push(
            Diagnostic::new(
                &codes::W003,
                m.name_span,
                format!(
                    "model '{}' has no explicit outputs: its columns are whatever `{from}` provides",
                    m.name
                ),
            )
            .with_label("no `select`, `derive`, `aggregate` or `group`")
            .with_help("list the columns it promises: `select { column = column, ... }`"),
        );
    }
}
