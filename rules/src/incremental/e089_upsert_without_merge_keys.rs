use crate::rule;

/// An `upsert` model has no valid `merge_keys`.
///
/// ## What it means
///
/// `upsert` replaces existing rows that have the same key as a new row, so
/// it needs `merge_keys: [k1, ...]`, and each key must be a plain output
/// column of the model (not an expression). The sub-keys come in this
/// order: `merge_strategy`, `merge_keys`, `cdc_column`.
///
/// ## Example
///
/// ```strata
/// source events(ns: "app", dataset: "events") {
///   columns: { event_id: int64 nonnull, kind: string, updated_at: timestamp nonnull }
/// }
/// model events_live {
///   from events
///   incremental merge_strategy: upsert cdc_column: updated_at
/// }
/// ```
///
/// ## How to fix
///
/// Give the columns that identify a row:
///
/// ```strata
/// source events(ns: "app", dataset: "events") {
///   columns: { event_id: int64 nonnull, kind: string, updated_at: timestamp nonnull }
/// }
/// model events_live {
///   from events
///   incremental merge_strategy: upsert merge_keys: [event_id] cdc_column: updated_at
/// }
/// ```
#[rule(E089)]
pub struct UpsertWithoutMergeKeys;
