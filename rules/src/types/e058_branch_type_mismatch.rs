use crate::rule;

/// The values of `coalesce`, `if` or `case` have no common type.
///
/// ## What it means
///
/// `coalesce(a, b, ...)`, the two branches of `if(cond, then, else)` and the
/// values of `case(cond1, v1, cond2, v2, ..., else)` must share one type.
/// Numbers mix (`int64` with `float64` gives `float64`; a `decimal` or
/// `money` absorbs plain numbers) and `null` fits anywhere; anything else,
/// such as a `string` with an `int64` or a `date` with a `timestamp`, does
/// not.
///
/// ## Example
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// model customer_names {
///   from customers
///   select { customer_id = customer_id, name = coalesce(name, 0) }
/// }
/// ```
///
/// ## How to fix
///
/// Give every branch the same type:
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// model customer_names {
///   from customers
///   select { customer_id = customer_id, name = coalesce(name, "unknown") }
/// }
/// ```
#[rule(E058)]
pub struct BranchTypeMismatch;
