use crate::rule;

/// The two sides of a set operation do not have the same columns.
///
/// ## What it means
///
/// A set operation matches columns by position, so both sides must carry
/// the same column names in the same order (the order of the output schema,
/// which `strata check` prints). The left side is the model so far,
/// including any `let` defined before the set operation. Each pair of
/// columns must also have a common type (numbers mix; `money` of different
/// currencies and, say, a `string` with an `int64` do not). The result is
/// nullable where either side is.
///
/// ## Example
///
/// ```strata
/// source eu(ns: "shop", dataset: "eu_orders") {
///   columns: { id: int64 nonnull, region: string }
/// }
/// source us(ns: "shop", dataset: "us_orders") {
///   columns: { region: string, id: int64 nonnull }
/// }
/// model eu_m { from eu }
/// model us_m { from us }
/// model all_m { from eu_m union all us_m }
/// ```
///
/// ## How to fix
///
/// Give both sides the same outputs in the same order:
///
/// ```strata
/// source eu(ns: "shop", dataset: "eu_orders") {
///   columns: { id: int64 nonnull, region: string }
/// }
/// source us(ns: "shop", dataset: "us_orders") {
///   columns: { region: string, id: int64 nonnull }
/// }
/// model eu_m { from eu  select { order_id = id, order_region = region } }
/// model us_m { from us  select { order_id = id, order_region = region } }
/// model all_m { from eu_m union all us_m }
/// ```
#[rule(E077)]
pub struct SetopMisaligned;
