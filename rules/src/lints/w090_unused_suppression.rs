use crate::rule;

/// A `# strata: allow(...)` comment suppresses nothing.
///
/// ## What it means
///
/// A suppression comment on the line above a model, source or contract
/// silences the listed lints for that declaration only. When a listed lint
/// does not fire on the declaration (the problem was fixed, or the code is
/// the wrong one), the comment is stale: it would hide the lint if the
/// problem came back, without anyone deciding so again. Each unused code is
/// reported at its place in the comment. Whether a lint would fire is
/// judged before levels apply, so suppressing a lint that is allowed by
/// default (`W003`) is used when the model has the problem.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// # strata: allow(W002)
/// model big_orders {
///   owner: "analytics"
///   from orders
///   filter amount > 100
/// }
/// ```
///
/// ## How to fix
///
/// Remove the code from the comment (and the comment when it lists no other
/// code):
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model big_orders {
///   owner: "analytics"
///   from orders
///   filter amount > 100
/// }
/// ```
#[rule(W090)]
pub struct UnusedSuppression;
