use crate::rule;

/// A set operation or a `dedup` is in a place or form it cannot take.
///
/// ## What it means
///
/// `union [all]`, `intersect` and `except` combine the rows of the model so
/// far with those of another **model**, so:
///
/// * the right side must be a model, not a source (wrap the source in a
///   model first);
/// * they need a `from` before them, and must come before any join,
///   `select` / `derive` / `aggregate`, `group`, `sort` and `take` (joins
///   and the rest may follow them);
/// * several set operations must be consecutive;
/// * `from` and `expand` cannot come after them.
///
/// For `dedup` (one row per distinct output row) and `dedup by k1, k2` (one
/// row per key): a model cannot use both forms, each key must be a plain,
/// unqualified output column of the model, and with `dedup by` every `sort`
/// key must be an output column.
///
/// ## Example
///
/// ```strata
/// source eu_orders(ns: "shop", dataset: "eu_orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// source us_orders(ns: "shop", dataset: "us_orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model all_orders {
///   from eu_orders
///   union all us_orders
/// }
/// ```
///
/// ## How to fix
///
/// Wrap the source in a model and combine with that model:
///
/// ```strata
/// source eu_orders(ns: "shop", dataset: "eu_orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// source us_orders(ns: "shop", dataset: "us_orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model us_orders_m { from us_orders }
/// model all_orders {
///   from eu_orders
///   union all us_orders_m
/// }
/// ```
#[rule(E076)]
pub struct SetopStructure;
