use crate::rule;

/// A check in the wrong kind of test: `expect rows` without `given` rows, or `expect c in m.c` with them.
///
/// ## What it means
///
/// A test with `given` blocks is a fixture test: its model runs on those
/// rows alone. A test without them checks the model's materialized data in
/// the warehouse. Two checks only make sense in one of the two:
///
/// * `expect rows(..) { .. }` compares the output of the given rows; in a
///   test without `given` there are none to compare with.
/// * `expect col in model.col` reads another model's materialized data,
///   which a fixture test never reads.
/// * `severity: warn` lets a failing check of the warehouse's data be
///   reported without blocking the run; a fixture test checks the model's
///   logic on its own rows, and its failure is always an error.
///
/// `expect row_count ..` and `expect col <op> literal` work in both.
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
/// test enriched {
///   expect rows(order_id) { (1) }
/// }
/// ```
///
/// ## How to fix
///
/// Give the model's inputs their rows, or check the warehouse's data with
/// `expect row_count` / `expect col <op> literal`:
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
/// test enriched "one order" {
///   given orders(order_id) { (1) }
///   given customers {}
///   expect rows(order_id) { (1) }
/// }
/// test enriched {
///   expect row_count > 0
/// }
/// ```
#[rule(E115)]
pub struct TestCheckMisplaced;
