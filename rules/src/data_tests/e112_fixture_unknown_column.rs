use crate::rule;

/// A `given` block lists a column its input does not have.
///
/// ## What it means
///
/// The column list of `given input(col, ..)` names columns of that input:
/// a source's declared columns, or an upstream model's output columns.
/// The rows give values for these columns; every other column of the input
/// is NULL (or, when declared `nonnull`, its type's zero value).
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
///   given orders(order_id, customer) { (1, 10) }
///   given customers(customer_id, country) { (10, "ES") }
///   expect rows(order_id, country) { (1, "ES") }
/// }
/// ```
///
/// ## How to fix
///
/// Use the input's column name (`strata build` lists the columns of a
/// model):
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
///   given orders(order_id, customer_id) { (1, 10) }
///   given customers(customer_id, country) { (10, "ES") }
///   expect rows(order_id, country) { (1, "ES") }
/// }
/// ```
#[rule(E112)]
pub struct FixtureUnknownColumn;
