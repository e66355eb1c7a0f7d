use crate::rule;

/// An expression that only compile-time functions can evaluate is used in a model.
///
/// ## What it means
///
/// Some expressions exist only for compile-time `fn` bodies and have no
/// value inside a model: list literals `[a, b]`, list comprehensions
/// `[x for x in xs]`, `model` values, and strings with `${...}`
/// interpolation (templates). In a model, write a plain string, build
/// strings with `concat` or `||`, and compare with several `==` joined by
/// `or` instead of `in [...]`.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, status: string }
/// }
/// model order_labels {
///   from orders
///   select { order_id = order_id, label = "order ${order_id}" }
/// }
/// ```
///
/// ## How to fix
///
/// Build the value with an expression a model can evaluate:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, status: string }
/// }
/// model order_labels {
///   from orders
///   select { order_id = order_id, label = concat("order ", order_id) }
/// }
/// ```
#[rule(E055)]
pub struct ExpressionNotAllowed;
