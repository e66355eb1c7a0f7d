use crate::rule;

/// A date function is given a unit it does not know.
///
/// ## What it means
///
/// Date arithmetic works in whole calendar units:
///
/// * `date_add(d, days: n)` and `date_sub(d, ...)` take one keyword
///   argument among `years`, `quarters`, `months`, `weeks` and `days`;
/// * `date_trunc(d, unit)` takes `year`, `quarter`, `month`, `week` or
///   `day`;
/// * `date_diff(a, b, unit)` takes `year`, `quarter`, `month`, `week`,
///   `weeks` or `day`.
///
/// Units smaller than a day (`hours`, `minutes`...) are not supported.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, ordered_on: date nonnull }
/// }
/// model order_deadlines {
///   from orders
///   select { order_id = order_id, due_on = date_add(ordered_on, month: 1) }
/// }
/// ```
///
/// ## How to fix
///
/// Use one of the supported units (plural for `date_add` and `date_sub`):
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, ordered_on: date nonnull }
/// }
/// model order_deadlines {
///   from orders
///   select { order_id = order_id, due_on = date_add(ordered_on, months: 1) }
/// }
/// ```
#[rule(E071)]
pub struct UnknownDateUnit;
