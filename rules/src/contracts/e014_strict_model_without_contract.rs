use crate::rule;

/// `build --strict`: a built model has no contract.
///
/// ## What it means
///
/// `strata build --strict` requires every model it builds to declare the
/// schema it promises with `-> contract C`. Only the strict build reports
/// this: `strata check` and a plain `strata build` accept models without a
/// contract (`strata lint` warns about them).
///
/// ## Example
///
/// Built with `strata build --strict`:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model big_orders {
///   from orders
///   filter amount > 100
/// }
/// ```
///
/// ## How to fix
///
/// Declare a contract for the model:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// contract BigOrder {
///   order_id: int64 nonnull
///   amount: float64
/// }
/// model big_orders -> contract BigOrder {
///   from orders
///   filter amount > 100
/// }
/// ```
#[rule(E014)]
pub struct StrictModelWithoutContract;
