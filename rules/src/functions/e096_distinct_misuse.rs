use crate::rule;

/// `distinct` is used inside a call that does not support it.
///
/// ## What it means
///
/// The only call that takes `distinct` is `count(distinct x)`, the number
/// of distinct non-null values of `x`. It is rejected in any other function
/// (`sum(distinct x)`), with `*` (`count(distinct *)`), and as a window
/// (`count(distinct x) over (...)`).
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, ordered_on: date nonnull }
/// }
/// model daily_buyers {
///   from orders
///   group { ordered_on } ( aggregate { buyers = count(distinct *) } )
/// }
/// ```
///
/// ## How to fix
///
/// Count the distinct values of a column (to aggregate distinct values in
/// another way, `dedup` them in an upstream model first):
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, ordered_on: date nonnull }
/// }
/// model daily_buyers {
///   from orders
///   group { ordered_on } ( aggregate { buyers = count(distinct customer_id) } )
/// }
/// ```
#[rule(E096)]
pub struct DistinctMisuse;
