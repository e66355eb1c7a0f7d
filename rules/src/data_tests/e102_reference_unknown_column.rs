use crate::rule;

/// A referential test names a column the referenced model does not output.
///
/// ## What it means
///
/// In `expect col in m.c`, `c` must be an output column of the
/// referenced model `m`. Columns that `m` reads but does not output cannot
/// be referenced.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// model customer_dim { from customers }
/// model paid_orders { from orders filter amount > 0 }
/// test paid_orders { expect customer_id in customer_dim.id }
/// ```
///
/// ## How to fix
///
/// Name an output column of the referenced model:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// model customer_dim { from customers }
/// model paid_orders { from orders filter amount > 0 }
/// test paid_orders { expect customer_id in customer_dim.customer_id }
/// ```
#[rule(E102)]
pub struct ReferenceUnknownColumn;
