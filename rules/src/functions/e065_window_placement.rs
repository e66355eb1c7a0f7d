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
/// * on a function that is not a window function (`upper(x) over ()`, with
///   or without a frame): the windowable functions are the aggregates
///   (`count`, `sum`, `avg`, `min`, `max`, ...) and `row_number`, `rank`,
///   `dense_rank`, `lag`, `lead`, `first_value` and `last_value`;
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
/// Compute the window as an output, then filter on that output (the job of
/// SQL's `QUALIFY`; strata compiles it to a subquery, which every engine
/// runs). With `filter rn == 1` on a `row_number()` partitioned by
/// `region`, the model is known to be unique on `region`, as a
/// `dedup by region` is:
///
/// ```strata
/// source shipments(ns: "logistics", dataset: "shipments") {
///   columns: { shipment_id: int64 nonnull, region: string nonnull, shipped_on: date nonnull }
/// }
/// model latest_shipments {
///   from shipments
///   select {
///     shipment_id = shipment_id,
///     region = region,
///     rn = row_number() over (partition_by: [region], sort: [shipped_on desc])
///   }
///   filter rn == 1
/// }
/// ```
#[rule(E065)]
pub struct WindowPlacement;
