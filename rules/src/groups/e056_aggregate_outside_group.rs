use crate::rule;

/// An aggregate function is used outside a group body.
///
/// ## What it means
///
/// `count`, `sum`, `avg`, `min`, `max` and `array_agg` combine many rows
/// into one, so they are only allowed in the `aggregate { ... }` of a group
/// body, or as window functions with `over (...)`. In a `select`, `derive`,
/// `let`, `filter` or join condition they are rejected.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64 nonnull, amount: float64 }
/// }
/// model customer_totals {
///   from orders
///   select { customer_id = customer_id, total = sum(amount) }
/// }
/// ```
///
/// ## How to fix
///
/// Group by the keys and aggregate in the group body (`group { }` with no
/// keys aggregates all rows into one):
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64 nonnull, amount: float64 }
/// }
/// model customer_totals {
///   from orders
///   group { customer_id } ( aggregate { total = sum(amount) } )
/// }
/// ```
#[rule(E056)]
pub struct AggregateOutsideGroup;
