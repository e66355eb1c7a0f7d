use crate::rule;

/// A model reads an input that is neither a source nor a model.
///
/// ## What it means
///
/// The name after `from`, after a `join_left` / `join_inner` / `join_anti` /
/// `join_semi`, or after a set operation (`union`, `intersect`, `except`)
/// must be a declared `source` or `model` of the module or of a file it
/// imports. Sources are looked up first, then models; declaration order does
/// not matter. Names are case-sensitive and there is no `schema.table` form.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model recent_orders {
///   from order
///   filter order_id > 1000
/// }
/// ```
///
/// ## How to fix
///
/// Read a declared source or model (or declare the source, with its
/// `columns:`):
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model recent_orders {
///   from orders
///   filter order_id > 1000
/// }
/// ```
#[rule(E020)]
pub struct UnknownInput;
