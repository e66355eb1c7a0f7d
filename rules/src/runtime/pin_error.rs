use crate::rule;

/// Materialized data broke a promise: a contract pin, a join's cardinality, or a declarative test.
///
/// ## What it means
///
/// `strata run`, `strata test` and `strata replay --execute` check the data
/// they build before anything is published:
///
/// * **contract pins** (`model m -> contract C`): every contract column is
///   present with a compatible physical type; `nonnull` columns have no
///   NULL; `enum { .. }` columns hold only listed values (NULL allowed);
///   `unique` / `primary_key` columns have no duplicated non-NULL value;
/// * **join cardinality** (`join_left c on o.k == c.k expect many_to_one`):
///   the duplicate key groups of the joined input are counted on exactly the
///   relation the model read (rows with a NULL key part excluded); for
///   `one_to_one` the from input's keys are counted too. Any duplicate key
///   group means a left row can match several right rows: the join would
///   multiply rows;
/// * **declarative tests** (`test m { expect row_count > 0; expect x >= 0 }`).
///
/// The first failing check aborts the whole run: the transaction is rolled
/// back, so the live views, snapshots and run history stay exactly as they
/// were, and the command exits with code 3. The message names the check,
/// the table that failed (the logical source or model name) and the counts,
/// with up to five sample values or keys, most frequent first. A declared
/// `unique` or `primary_key` flag never exempts a join from its count: flags
/// are declarations, data can violate them.
///
/// ## Example
///
/// Run with a `customers` table in which customer 10 appears twice:
///
/// ```strata
/// source orders(ns: "app", dataset: "orders") {
///   columns: { order_id: int64, customer_id: int64, amount: float64 }
/// }
/// source customers(ns: "app", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, country: string }
/// }
/// model enriched {
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id expect many_to_one
///   select { order_id = order_id, country = customers.country }
/// }
/// ```
///
/// fails with `join cardinality FAILED [enriched left customers]: expected
/// many_to_one but customers has 1 duplicate key groups (customer_id)` and
/// `e.g. customer_id=10 (2 rows)`.
///
/// ## How to fix
///
/// Fix the data, or make the promise true by construction: deduplicate the
/// dimension upstream, out loud, and join the deduplicated model:
///
/// ```strata
/// source orders(ns: "app", dataset: "orders") {
///   columns: { order_id: int64, customer_id: int64, amount: float64 }
/// }
/// source customers(ns: "app", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, country: string }
/// }
/// model customers_unique {
///   from customers
///   select { customer_id = customer_id, country = country }
///   dedup by customer_id
/// }
/// model enriched {
///   from orders
///   join_left customers_unique on orders.customer_id == customers_unique.customer_id expect many_to_one
///   select { order_id = order_id, country = customers_unique.country }
/// }
/// ```
#[rule(PinError)]
pub struct PinError;
