use strata_codes as codes;
use strata_lang::ir;
use strata_lang::Diagnostic;

use crate::rule;

/// A model has no `owner:`.
///
/// ## What it means
///
/// The `owner:` attribute names who answers for a model: who is paged when
/// its run fails, who approves a change to its contract. A model without
/// one (or with an empty one, `owner: ""`) has nobody to ask.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// contract BigOrder {
///   order_id: int64 nonnull
///   amount: float64
/// }
/// model big_orders -> contract BigOrder {
///   from orders
///   filter amount > 100
/// }
/// ```
///
/// ## How to fix
///
/// Name the team or person responsible:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// contract BigOrder {
///   order_id: int64 nonnull
///   amount: float64
/// }
/// model big_orders -> contract BigOrder {
///   owner: "analytics"
///   from orders
///   filter amount > 100
/// }
/// ```
#[rule(W002)]
pub fn model_without_owner(module: &ir::Module, out: &mut Vec<Diagnostic>) {
    for m in &module.models {
        let owner = m.attrs.iter().find(|(k, _)| k == "owner");
        let message = match owner {
            None => format!("model '{}' has no owner", m.name),
            Some((_, v)) if v.trim().is_empty() => {
                format!("model '{}' has an empty owner", m.name)
            }
            Some(_) => continue,
        };
        out.push(
            Diagnostic::new(&codes::W002, m.name_span, message)
                .with_label("nobody answers for this model")
                .with_help("add `owner: \"<team>\"` as the first line of the model's body"),
        );
    }
}
