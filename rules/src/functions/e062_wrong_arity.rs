use crate::rule;

/// A function is called with the wrong number of arguments.
///
/// ## What it means
///
/// Each function takes a fixed number of arguments, a range, or a minimum;
/// the message says which (`upper() takes exactly 1 argument(s)`,
/// `substring() takes 2..3 argument(s)`, `coalesce() takes at least 1
/// argument(s)`). `cast` takes exactly two (`cast(x, "int64")`), and
/// `json_build` an even number (key, value pairs).
///
/// ## Example
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// model customer_initials {
///   from customers
///   select { customer_id = customer_id, initials = substring(name) }
/// }
/// ```
///
/// ## How to fix
///
/// Pass the arguments the function takes; `substring(s, start, length)`
/// counts `start` from 1:
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// model customer_initials {
///   from customers
///   select { customer_id = customer_id, initials = substring(name, 1, 2) }
/// }
/// ```
#[rule(E062)]
pub struct WrongArity;
