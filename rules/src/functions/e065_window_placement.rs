use crate::rule;

/// A window function (`over (...)`) is used where windows are not allowed.
///
/// ## What it means
///
/// A window is evaluated over the rows the model produces, so it can only be
/// an output: it may appear in `select`, `derive` and `aggregate` outputs
/// outside a group body (also inside a larger expression). It is rejected:
///
/// * in a `filter`, `let`, `sort`, group key, join condition or `dedup by`
///   key;
/// * inside another window (in its arguments, `partition_by` or `sort`);
/// * on a function that is not a window function (`upper(x) over ()`):
///   the windowable functions are `count`, `sum`, `avg`, `min`, `max`,
///   `row_number`, `rank`, `dense_rank`, `lag`, `lead`, `first_value` and
///   `last_value`;
/// * as an aggregate with `over` inside a group body.
///
/// ## Example
///
/// ```strata
/// source shipments(ns: "logistics", dataset: "shipments") {
///   columns: { shipment_id: int64 nonnull, region: string nonnull, shipped_on: date nonnull }
/// }
/// model latest_shipments {
///   from shipments
///   filter row_number() over (partition_by: [region], sort: [shipped_on desc]) == 1
/// }
/// ```
///
/// ## How to fix
///
/// Compute the window as an output in one model and filter on it
/// downstream:
///
/// ```strata
/// source shipments(ns: "logistics", dataset: "shipments") {
///   columns: { shipment_id: int64 nonnull, region: string nonnull, shipped_on: date nonnull }
/// }
/// model ranked_shipments {
///   from shipments
///   select {
///     shipment_id = shipment_id,
///     region = region,
///     rn = row_number() over (partition_by: [region], sort: [shipped_on desc])
///   }
/// }
/// model latest_shipments {
///   from ranked_shipments
///   filter rn == 1
/// }
/// ```
#[rule(E065)]
pub struct WindowPlacement;
