use crate::rule;

/// `append` or `upsert` on a grouped model.
///
/// ## What it means
///
/// An `append` or `upsert` model only processes the rows that changed
/// since the last run. A model with group keys cannot be maintained that
/// way: an aggregate over a group needs all the rows of the group, not just
/// the new ones. Only `replace` (a full rebuild) works for grouped models.
///
/// ## Example
///
/// ```strata
/// source events(ns: "app", dataset: "events") {
///   columns: { event_id: int64 nonnull, kind: string, updated_at: timestamp nonnull }
/// }
/// model event_counts {
///   from events
///   incremental merge_strategy: append cdc_column: updated_at
///   group { kind } ( aggregate { n = count(), updated_at = max(updated_at) } )
/// }
/// ```
///
/// ## How to fix
///
/// Make the row-level model incremental and aggregate it downstream with a
/// full rebuild:
///
/// ```strata
/// source events(ns: "app", dataset: "events") {
///   columns: { event_id: int64 nonnull, kind: string, updated_at: timestamp nonnull }
/// }
/// model events_log {
///   from events
///   incremental merge_strategy: append cdc_column: updated_at
/// }
/// model event_counts {
///   from events_log
///   group { kind } ( aggregate { n = count() } )
/// }
/// ```
#[rule(E087)]
pub struct IncrementalGroupedModel;
