use crate::rule;

/// An incremental model has no valid `cdc_column`.
///
/// ## What it means
///
/// `append` and `upsert` find the new rows by comparing the change-data
/// column, `cdc_column: c`, with its high-water mark from the last run.
/// The column must be given, and it must be an output column of the model.
///
/// ## Example
///
/// ```strata
/// source events(ns: "app", dataset: "events") {
///   columns: { event_id: int64 nonnull, kind: string, updated_at: timestamp nonnull }
/// }
/// model events_log {
///   from events
///   incremental merge_strategy: append
/// }
/// ```
///
/// ## How to fix
///
/// Name an output column that grows with every change, usually an update
/// timestamp:
///
/// ```strata
/// source events(ns: "app", dataset: "events") {
///   columns: { event_id: int64 nonnull, kind: string, updated_at: timestamp nonnull }
/// }
/// model events_log {
///   from events
///   incremental merge_strategy: append cdc_column: updated_at
/// }
/// ```
#[rule(E088)]
pub struct InvalidCdcColumn;
