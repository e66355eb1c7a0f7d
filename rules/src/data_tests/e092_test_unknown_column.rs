use crate::rule;

/// A `test` check names a column the model does not output.
///
/// ## What it means
///
/// In `expect col <op> literal`, `col` must be an output column of the
/// tested model (`row_count` is the one special name: the number of rows).
/// Columns the model reads but does not output cannot be tested. The same
/// holds for the column list of a fixture test's `expect rows(col, ..)`:
/// it names output columns of the model (a `given` block's columns are
/// the input's: E112).
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// model paid_orders { from orders filter amount > 0 }
/// test paid_orders { expect order_ud > 0 }
/// ```
///
/// ## How to fix
///
/// Name an output column of the model:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// model paid_orders { from orders filter amount > 0 }
/// test paid_orders { expect order_id > 0 }
/// ```
#[rule(E092)]
pub struct TestUnknownColumn;
