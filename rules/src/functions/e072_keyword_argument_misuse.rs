use crate::rule;

/// A keyword argument or a date unit is written the wrong way.
///
/// ## What it means
///
/// Keyword arguments (`name: value`) exist only for the unit of `date_add`
/// and `date_sub`, which is required there: `date_add(d, days: 7)`, never
/// `date_add(d, 7)`. Any other function (including `cast`) given a keyword
/// argument is rejected. The unit of `date_trunc` and `date_diff` is a bare
/// word or a string literal (`date_trunc(d, month)`,
/// `date_diff(a, b, "day")`), not a computed value.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, ordered_on: date nonnull }
/// }
/// model order_deadlines {
///   from orders
///   select { order_id = order_id, due_on = date_add(ordered_on, 30) }
/// }
/// ```
///
/// ## How to fix
///
/// Name the unit:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, ordered_on: date nonnull }
/// }
/// model order_deadlines {
///   from orders
///   select { order_id = order_id, due_on = date_add(ordered_on, days: 30) }
/// }
/// ```
#[rule(E072)]
pub struct KeywordArgumentMisuse;
