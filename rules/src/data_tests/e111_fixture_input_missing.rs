use crate::rule;

/// A fixture test gives no rows for an input its model reads.
///
/// ## What it means
///
/// A fixture test runs its model on literal rows only: no warehouse, no
/// source data. Every source or model the tested model reads needs a
/// `given` block, or the test would silently depend on data it does not
/// show. An input with no rows is written `given name {}` (as dbt's
/// `rows: []`).
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
/// test enriched "orders without a customer" {
///   given orders(order_id, customer_id) { (1, null) }
///   expect rows(order_id, country) { (1, null) }
/// }
/// ```
///
/// ## How to fix
///
/// Give the input's rows, none if the test needs none:
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
/// test enriched "orders without a customer" {
///   given orders(order_id, customer_id) { (1, null) }
///   given customers {}
///   expect rows(order_id, country) { (1, null) }
/// }
/// ```
#[rule(E111)]
pub struct FixtureInputMissing;
