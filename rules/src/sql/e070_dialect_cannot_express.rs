use crate::rule;

/// The target SQL dialect cannot express a model.
///
/// ## What it means
///
/// `strata compile --dialect D` lowers every model to SQL for warehouse `D`
/// (duckdb, postgres, bigquery, snowflake or spark). A few things exist in strata
/// but not in every warehouse: a type with no counterpart (BigQuery and
/// Snowflake have no `uuid` type; a `decimal` precision beyond the
/// warehouse's limit), or a function the dialect has no equivalent for
/// (`array_index_of` in BigQuery, `array_sort` in PostgreSQL), or a model
/// name the warehouse's catalog refuses (Spark names tables and views with
/// ASCII letters, digits and `_` only: a model `"by-key"` or `países` can
/// have no views there; rename it `by_key` or `paises`). The module is
/// valid strata: `strata check` accepts it, and other dialects may compile
/// it. No SQL is printed for a dialect that cannot express every selected
/// model.
///
/// ## Example
///
/// Compiled with `strata compile --dialect bigquery`:
///
/// ```strata
/// source events(ns: "app", dataset: "events") {
///   columns: { id: int64 nonnull, session: string }
/// }
/// model typed {
///   from events
///   select { id = id, session = cast(session, "uuid") }
/// }
/// ```
///
/// ## How to fix
///
/// Keep the value in a type the warehouse has (BigQuery stores UUIDs as
/// strings), or compile for a dialect that has the type:
///
/// ```strata
/// source events(ns: "app", dataset: "events") {
///   columns: { id: int64 nonnull, session: string }
/// }
/// model typed {
///   from events
///   select { id = id, session = lower(session) }
/// }
/// ```
#[rule(E070)]
pub struct DialectCannotExpress;
