use strata_codes as codes;
use strata_lang::ir;
use strata_lang::Diagnostic;

use crate::rule;

/// A model has no contract.
///
/// ## What it means
///
/// A contract (`model m -> contract C`) is the schema a model promises to
/// the models, dashboards and people that read it: its columns, their types,
/// nullability, enums and keys. `strata check` verifies the promise at
/// compile time (E010-E013) and `strata run` checks the data against it
/// before publishing. A model without a contract can change its output
/// silently when it, or anything upstream, changes. `strata build --strict`
/// refuses such a model (E014); this lint says so earlier.
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
/// Declare the schema the model promises:
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
#[rule(W001)]
pub fn model_without_contract(module: &ir::Module, out: &mut Vec<Diagnostic>) {
    for m in module.models.iter().filter(|m| m.contract.is_none()) {
        out.push(
            Diagnostic::new(&codes::W001, m.name_span, format!("model '{}' has no contract", m.name))
                .with_label("no `-> contract` after the name")
                .with_help(format!(
                    "declare the schema it promises in a `contract` and name it: `model {} -> contract <Name> {{`",
                    m.name
                )),
        );
    }
}
