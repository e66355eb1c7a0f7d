use crate::rule;

/// A model reads a source that declares no `columns:`.
///
/// ## What it means
///
/// A source's `columns: { ... }` block is what the checker knows about the
/// table: without it, nothing that reads the source can be type-checked. A
/// source without columns is accepted as long as no model reads it (it can
/// still be catalog metadata); the error is reported where a model reads it.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders")
/// model recent_orders {
///   from orders
/// }
/// ```
///
/// ## How to fix
///
/// Declare the columns of the table, with their types and flags:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model recent_orders {
///   from orders
/// }
/// ```
#[rule(E021)]
pub struct SourceWithoutColumns;
