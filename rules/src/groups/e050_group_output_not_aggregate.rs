use crate::rule;

/// An output of a group body is neither an aggregate nor a group key.
///
/// ## What it means
///
/// Inside `group { keys } ( aggregate { ... } )`, each output must be either
///
/// * a bare reference to a group key (`region = region`), or
/// * a single aggregate call at the top: `count`, `sum`, `avg`, `min`,
///   `max` or `array_agg`, whose arguments may be any expression.
///
/// Anything else is rejected: a plain column that is not a key, a qualified
/// key (`orders.region`), and an aggregate wrapped in an expression
/// (`avg(fee) * 2`, `case(sum(x) > 1, ...)`).
///
/// ## Example
///
/// ```strata
/// source shipments(ns: "logistics", dataset: "shipments") {
///   columns: { region: string nonnull, fee: money nonnull }
/// }
/// model fees_by_region {
///   from shipments
///   group { region } ( aggregate { avg_fee_x2 = avg(fee) * 2 } )
/// }
/// ```
///
/// ## How to fix
///
/// Aggregate in the group body and compute from the aggregates in a
/// downstream model:
///
/// ```strata
/// source shipments(ns: "logistics", dataset: "shipments") {
///   columns: { region: string nonnull, fee: money nonnull }
/// }
/// model fees_by_region {
///   from shipments
///   group { region } ( aggregate { avg_fee = avg(fee) } )
/// }
/// model doubled_fees_by_region {
///   from fees_by_region
///   select { region = region, avg_fee_x2 = avg_fee * 2 }
/// }
/// ```
#[rule(E050)]
pub struct GroupOutputNotAggregate;
