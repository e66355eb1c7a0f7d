use crate::rule;

/// A `*` is used where it means nothing.
///
/// ## What it means
///
/// A `*` as a value is only meaningful as the single argument of
/// `count(*)`, which counts rows. Anywhere else (`sum(*)`, `upper(*)`,
/// `count(*) over (...)`, `x * *`) it is rejected. `count()` also counts
/// rows, and is the form to use as a window: `count() over (...)`.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64 nonnull, amount: float64 }
/// }
/// model customer_totals {
///   from orders
///   group { customer_id } ( aggregate { total = sum(*) } )
/// }
/// ```
///
/// ## How to fix
///
/// Name the column to aggregate (or count rows with `count(*)`):
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64 nonnull, amount: float64 }
/// }
/// model customer_totals {
///   from orders
///   group { customer_id } ( aggregate { total = sum(amount), orders = count(*) } )
/// }
/// ```
#[rule(E064)]
pub struct MisplacedStar;
