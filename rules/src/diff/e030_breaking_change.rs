use crate::rule;

/// `strata diff`: a change breaks something downstream that relies on what was there.
///
/// ## What it means
///
/// `strata diff OLD NEW` (or `strata diff --base REV NEW`) compares two
/// versions of a module and follows every change downstream through the
/// old version: which models, contracts and tests read what changed. A
/// change is breaking, and the command exits 1, when:
///
/// * a column that a downstream model, contract or test reads (or a
///   `protected` column) is removed, renamed or retyped — only a decimal
///   that keeps its scale and integer digits is a compatible retype;
/// * a column that a contract or a test reads (or a protected one) may now
///   be null;
/// * a model or source that something downstream reads is removed or
///   renamed, or a removed model promised a contract;
/// * a promise is weakened: a join's `expect` is dropped or relaxed from
///   `one_to_one` to `many_to_one` (or the join removed); a model no longer
///   promises its contract; a contract loses a column, its `nonnull`,
///   `unique` or `primary_key`, accepts more enum values, changes a type or
///   is removed; a column is no longer `protected`.
///
/// Added models and columns, a changed definition, a changed join kind and
/// strengthened promises are reported with what they reach, but pass. The
/// diagnostic points at the change in the new version, at where it was in
/// the old one, and at the old version's reads of it.
///
/// ## Example
///
/// The old version:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model order_amounts {
///   from orders
///   select { order_id = order_id, amount = amount }
/// }
/// model big_orders {
///   from order_amounts
///   filter amount > 100.0
/// }
/// ```
///
/// The new version renames `amount` in `order_amounts` and changes
/// `big_orders` too; the diff reports the rename as breaking, because
/// `big_orders` read `amount` (a consumer in another module would break):
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model order_amounts {
///   from orders
///   select { order_id = order_id, total = amount }
/// }
/// model big_orders {
///   from order_amounts
///   filter total > 100.0
/// }
/// ```
///
/// ## How to fix
///
/// Keep the old column beside the new one until every consumer has moved
/// to it, then remove it in a later change:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model order_amounts {
///   from orders
///   select { order_id = order_id, amount = amount, total = amount }
/// }
/// model big_orders {
///   from order_amounts
///   filter total > 100.0
/// }
/// ```
#[rule(E030)]
pub struct BreakingChange;
