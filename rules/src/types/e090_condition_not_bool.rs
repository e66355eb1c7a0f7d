use crate::rule;

/// The condition of `if` or `case` is not a `bool`.
///
/// ## What it means
///
/// The first argument of `if(cond, then, else)` and every condition of
/// `case(cond1, v1, cond2, v2, ..., else)` must be of type `bool`. A number
/// or a string is not a condition: compare it with something.
///
/// ## Example
///
/// ```strata
/// source order_lines(ns: "shop", dataset: "order_lines") {
///   columns: { line_id: int64 nonnull, quantity: int64 nonnull }
/// }
/// model line_sizes {
///   from order_lines
///   select { line_id = line_id, size = if(quantity, "bulk", "single") }
/// }
/// ```
///
/// ## How to fix
///
/// Write the condition as a comparison:
///
/// ```strata
/// source order_lines(ns: "shop", dataset: "order_lines") {
///   columns: { line_id: int64 nonnull, quantity: int64 nonnull }
/// }
/// model line_sizes {
///   from order_lines
///   select { line_id = line_id, size = if(quantity > 10, "bulk", "single") }
/// }
/// ```
#[rule(E090)]
pub struct ConditionNotBool;
