use crate::rule;

/// A construct this implementation does not support yet.
///
/// ## What it means
///
/// The program is valid strata, but it uses a part of the language that this
/// implementation does not compile yet: compile-time generators, that is a
/// top-level call of a `fn` that expands into models, or a `fn` call in a
/// pipeline's `models: [...]`. The message names the construct. Nothing is
/// silently skipped: a module that uses it is rejected rather than checked
/// half-way.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, country: string }
/// }
/// fn countries() -> List<Str> { ["es", "fr"] }
/// fn by_country(cs: List<Str>) -> List<Model> {
///   [ model "orders_${c}" { from orders filter country == c } for c in cs ]
/// }
/// by_country(countries())
/// ```
///
/// ## How to fix
///
/// Write out what the construct would have produced; here, one model per
/// country:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, country: string }
/// }
/// model orders_es { from orders filter country == "es" }
/// model orders_fr { from orders filter country == "fr" }
/// ```
#[rule(E060)]
pub struct UnsupportedConstruct;
