use crate::rule;

/// A function argument has the wrong type.
///
/// ## What it means
///
/// A function argument is not of the kind the function accepts, for example
/// `upper() argument 1 must be str, got int64`. The kinds are: `str`
/// (exactly `string`), `int` (exactly `int64`), `num` (`int64`, `float64`,
/// `decimal` or `money`), `temporal` (`date` or `timestamp`), `json`, and a
/// typed array. A `null` argument is accepted anywhere except where a
/// container is expected. The same code reports an unusable array type (an
/// `array` without exactly one element type, or `cast(x, "array")`).
///
/// ## Example
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// model customer_keys {
///   from customers
///   select { customer_key = upper(customer_id) }
/// }
/// ```
///
/// ## How to fix
///
/// Pass a value of the expected type, converting it with `cast` when that is
/// what you mean:
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// model customer_keys {
///   from customers
///   select { customer_key = upper(cast(customer_id, "string")) }
/// }
/// ```
#[rule(E063)]
pub struct BadArgument;
