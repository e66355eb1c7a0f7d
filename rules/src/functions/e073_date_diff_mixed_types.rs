use crate::rule;

/// `date_diff` compares a `date` with a `timestamp`.
///
/// ## What it means
///
/// `date_diff(a, b, unit)` needs its first two arguments to be of the same
/// temporal type: two `date`s or two `timestamp`s.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, ordered_on: date nonnull, shipped_at: timestamp }
/// }
/// model shipping_delays {
///   from orders
///   select { order_id = order_id, days_to_ship = date_diff(ordered_on, shipped_at, day) }
/// }
/// ```
///
/// ## How to fix
///
/// Convert one side so that both have the same type:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, ordered_on: date nonnull, shipped_at: timestamp }
/// }
/// model shipping_delays {
///   from orders
///   select {
///     order_id = order_id,
///     days_to_ship = date_diff(ordered_on, cast(shipped_at, "date"), day)
///   }
/// }
/// ```
#[rule(E073)]
pub struct DateDiffMixedTypes;
