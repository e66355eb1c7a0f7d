use crate::rule;

/// A referential test names a model that does not exist.
///
/// ## What it means
///
/// `expect col in m.c` checks that every non-null value of `col` in the
/// tested model appears in column `c` of model `m` (a foreign key). `m`
/// must be a model of the module; a source cannot be referenced directly:
/// wrap it in a model.
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
/// test paid_orders { expect customer_id in customers_dim.customer_id }
/// ```
///
/// ## How to fix
///
/// Reference a model:
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
#[rule(E101)]
pub struct ReferenceUnknownModel;
