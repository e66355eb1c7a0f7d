use crate::rule;

/// A `test` block names a model that does not exist.
///
/// ## What it means
///
/// `test m { expect ... }` runs its checks against the model `m` after it is
/// materialized, so `m` must be a model of the module (a source cannot be
/// tested directly: wrap it in a model). `strata check` validates tests
/// too, before any data is touched.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// model paid_orders { from orders filter amount > 0 }
/// test paid_order { expect row_count > 0 }
/// ```
///
/// ## How to fix
///
/// Name the model to test:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// model paid_orders { from orders filter amount > 0 }
/// test paid_orders { expect row_count > 0 }
/// ```
#[rule(E091)]
pub struct TestUnknownModel;
