use crate::rule;

/// Unknown type or domain, or a cycle of domains.
///
/// ## What it means
///
/// A source or contract field (or a `domain`) names a type that does not
/// exist. The types are `int64`, `float64`, `decimal(p, s)`, `money` or
/// `money(CUR)`, `string`, `bool`, `date`, `timestamp`, `uuid`, `json` and
/// `array(T)`, plus the names declared with `domain name = type`. Domains
/// may refer to other domains, but not in a cycle
/// (`domain a = b  domain b = a`).
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: numeric }
/// }
/// model order_amounts { from orders }
/// ```
///
/// ## How to fix
///
/// Use a strata type, or declare the name as a domain:
///
/// ```strata
/// domain numeric = decimal(12, 2)
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: numeric }
/// }
/// model order_amounts { from orders }
/// ```
#[rule(E078)]
pub struct UnknownType;
