use crate::rule;

/// A fixture row has more or fewer values than its column list.
///
/// ## What it means
///
/// A row of a `given` or `expect rows` block holds one value per column of
/// the block's list, in the same order. A missing value is not NULL by
/// default: write `null` (a column left out of the list altogether is
/// NULL).
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull primary_key, country: string }
/// }
/// model enriched {
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id expect many_to_one
///   select { order_id = order_id, country = customers.country }
/// }
/// test enriched "a known customer" {
///   given orders(order_id, customer_id) { (1) }
///   given customers(customer_id, country) { (10, "ES", "Spain") }
///   expect rows(order_id, country) { (1, null) }
/// }
/// ```
///
/// ## How to fix
///
/// Give one value per listed column:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull primary_key, country: string }
/// }
/// model enriched {
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id expect many_to_one
///   select { order_id = order_id, country = customers.country }
/// }
/// test enriched "a known customer" {
///   given orders(order_id, customer_id) { (1, null) }
///   given customers(customer_id, country) { (10, "ES") }
///   expect rows(order_id, country) { (1, null) }
/// }
/// ```
#[rule(E114)]
pub struct FixtureRowWidth;
