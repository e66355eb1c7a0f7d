use crate::rule;

/// A `test` check compares a column with a literal of another type.
///
/// ## What it means
///
/// In `expect col <op> literal`, the literal's type must be exactly the
/// column's type: an integer literal (`1`) is `int64`, a decimal literal
/// (`1.5`) is `float64`, a string literal is `string`, `true` / `false`
/// are `bool`. There is no widening: an `int64` literal does not test a
/// `float64` column. `null` has no type, so `expect c == null` is always
/// rejected, and `date`, `timestamp`, `money` and `decimal` columns
/// cannot be compared with a literal (test a derived column instead, such as
/// `cast(d, "string")`).
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// model paid_orders { from orders filter amount > 0 }
/// test paid_orders { expect amount > 0 }
/// ```
///
/// ## How to fix
///
/// Write the literal in the column's type:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// model paid_orders { from orders filter amount > 0 }
/// test paid_orders { expect amount > 0.0 }
/// ```
#[rule(E094)]
pub struct TestLiteralTypeMismatch;
