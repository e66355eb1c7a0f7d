use std::collections::HashSet;

use strata_codes as codes;
use strata_lang::ir::{self, InputKind};
use strata_lang::Diagnostic;

use crate::rule;

/// A model is read by no model and listed in no pipeline.
///
/// ## What it means
///
/// A pipeline's `models:` names the products a run materializes; a model is
/// needed when a pipeline lists it or another model reads it (`from`, a
/// join or a set operation). A model neither read nor listed is dead code:
/// it is checked, compiled and maintained, but nothing asks for its rows.
/// Either it is a product that a pipeline forgot, or it can go.
///
/// As in the reference implementation, a module with a single model is not
/// reported (that model is obviously the product); declarative `test`s do
/// not count as readers.
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
/// model small_orders {
///   owner: "analytics"
///   from orders
///   filter amount <= 100
/// }
/// pipeline nightly { env: prod, models: [big_orders] }
/// ```
///
/// ## How to fix
///
/// List the product in a pipeline (or remove the model):
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
/// model small_orders {
///   owner: "analytics"
///   from orders
///   filter amount <= 100
/// }
/// pipeline nightly { env: prod, models: [big_orders, small_orders] }
/// ```
#[rule(W005)]
pub fn unused_model(module: &ir::Module, out: &mut Vec<Diagnostic>) {
    if module.models.len() < 2 {
        return;
    }
    let mut used: HashSet<&str> = HashSet::new();
    for m in &module.models {
        used.extend(
            m.inputs
                .iter()
                .filter(|i| i.kind == InputKind::Model && i.name != m.name)
                .map(|i| i.name.as_str()),
        );
    }
    for p in &module.pipelines {
        used.extend(p.models.iter().map(String::as_str));
    }
    for m in module
        .models
        .iter()
        .filter(|m| !used.contains(m.name.as_str()))
    {
        let help = match module.pipelines.first() {
            Some(p) => format!(
                "if it is a product, list it in a pipeline (`pipeline {} {{ models: [..., {}] }}`); otherwise remove it",
                p.name, m.name
            ),
            None => format!(
                "if it is a product, declare a pipeline that lists it (`pipeline nightly {{ env: prod, models: [{}] }}`); otherwise remove it",
                m.name
            ),
        };
        out.push(
            Diagnostic::new(
                &codes::W005,
                m.name_span,
                format!("model '{}' is not read by any model or pipeline", m.name),
            )
            .with_label("nothing reads this model")
            .with_help(help),
        );
    }
}
