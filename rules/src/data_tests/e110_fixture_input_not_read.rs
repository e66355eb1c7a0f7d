use crate::rule;

/// A fixture test gives rows for a source or model its model does not read.
///
/// ## What it means
///
/// A fixture test (`test model "name" { given .. }`) runs its model on the
/// rows it gives for each input the model reads: the sources and models it
/// names in `from`, a join or a set operation. A `given` block for anything
/// else would never be read, so it is an error rather than a block that
/// silently does nothing (usually a typo, or a test written for another
/// model).
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
/// test enriched "unknown customers" {
///   given orders(order_id, customer_id) { (1, 10) }
///   given customer(customer_id, country) { (10, "ES") }
///   expect rows(order_id, country) { (1, "ES") }
/// }
/// ```
///
/// ## How to fix
///
/// Name an input of the model (here `customers`), or remove the block:
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
/// test enriched "unknown customers" {
///   given orders(order_id, customer_id) { (1, 10) }
///   given customers(customer_id, country) { (10, "ES") }
///   expect rows(order_id, country) { (1, "ES") }
/// }
/// ```
#[rule(E110)]
pub struct FixtureInputNotRead;
