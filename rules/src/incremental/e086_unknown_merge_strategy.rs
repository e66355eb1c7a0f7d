use crate::rule;

/// Unknown `merge_strategy` of an incremental model.
///
/// ## What it means
///
/// `incremental merge_strategy: S` says how new rows are merged into the
/// model's table. `S` is one of:
///
/// * `replace`: rebuild the whole table (also what `incremental` alone
///   means);
/// * `append`: add the rows whose `cdc_column` is newer than the last run;
/// * `upsert`: like `append`, but rows whose `merge_keys` already exist
///   replace the old ones.
///
/// ## Example
///
/// ```strata
/// source events(ns: "app", dataset: "events") {
///   columns: { event_id: int64 nonnull, kind: string, updated_at: timestamp nonnull }
/// }
/// model events_live {
///   from events
///   incremental merge_strategy: merge merge_keys: [event_id] cdc_column: updated_at
/// }
/// ```
///
/// ## How to fix
///
/// Use one of the three strategies; here, `upsert` on the event id:
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
#[rule(E086)]
pub struct UnknownMergeStrategy;
