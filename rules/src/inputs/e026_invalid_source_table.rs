use crate::rule;

/// A source's `table:`, `schema:` or `catalog:` does not name a table.
///
/// ## What it means
///
/// A source reads the table its declaration names: `schema:` and `table:`
/// (`source customers(schema: "raw", table: "customer")`), or a qualified
/// `table:` (`table: "raw.customer"`, `table: "lake.raw.customer"`), with
/// `catalog:` for a DuckDB attached database, the PostgreSQL database or a
/// Spark catalog. A pipeline's `sources:` override names it the same way,
/// with `dataset:` for `table:`. The name is checked before anything runs:
/// a part that is empty (`raw..customer`, a dot at an end), more than three
/// parts, a double quote left open, a `schema:` of two parts, a schema given
/// twice (by `schema:` and by a qualified `table:`), or a `catalog:` with no
/// schema. This code is specific to this implementation: the reference
/// implementation reads the table named like the source and keeps these
/// arguments as metadata.
///
/// ## Example
///
/// ```strata
/// source customers(schema: "raw", table: "crm.customer") {
///   columns: { id: int64 nonnull }
/// }
/// model c { from customers }
/// ```
///
/// ## How to fix
///
/// Name the schema once, and write a name that holds a dot in double
/// quotes (`table: "raw.\"odd.name\""`):
///
/// ```strata
/// source customers(schema: "raw", table: "customer") {
///   columns: { id: int64 nonnull }
/// }
/// model c { from customers }
/// ```
#[rule(E026)]
pub struct InvalidSourceTable;
