use crate::rule;

/// Module files import each other in a cycle.
///
/// ## What it means
///
/// `import a.b` merges the declarations of `a/b.strata` into the module at
/// that point. Following the imports from the root module leads back to a
/// file that is already being imported (a file may also import itself), so
/// the merge would never end. The message names the file that closes the
/// cycle.
///
/// ## Example
///
/// `orders.strata`, the root module:
///
/// ```strata
/// import customers
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64 }
/// }
/// ```
///
/// `customers.strata`, next to it:
///
/// ```strata
/// import orders
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// ```
///
/// ## How to fix
///
/// Imports must form a tree: move what both files need into a third file
/// that imports nothing of theirs, or import in one direction only. Here
/// `customers.strata` no longer imports `orders`:
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// ```
#[rule(F045)]
pub struct CircularImport;
