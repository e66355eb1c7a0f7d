use crate::rule;

/// `and` / `or` is applied to a value that is not a `bool`.
///
/// ## What it means
///
/// Both operands of `and` and `or` must be of type `bool`. There is no
/// truthiness: a string, a number or a bare `null` is not a condition.
/// Remember that `and` binds tighter than `or` and looser than comparisons,
/// so `a and b == 1` is `a and (b == 1)`.
///
/// ## Example
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, is_active: bool, email: string }
/// }
/// model reachable_customers {
///   from customers
///   filter is_active and email
/// }
/// ```
///
/// ## How to fix
///
/// Turn each operand into a `bool` with a comparison:
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, is_active: bool, email: string }
/// }
/// model reachable_customers {
///   from customers
///   filter is_active and email != ""
/// }
/// ```
#[rule(E052)]
pub struct LogicOnNonBool;
