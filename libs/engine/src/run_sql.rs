//! The dialect of run-time SQL: what the lifecycle's checks and content
//! hashes write differently on each engine, beyond quoting and types
//! (`strata_lang::sql::Dialect`): a row hash, a sample, the most
//! duplicated keys as JSON, which physical types hold a strata type, and
//! the first value of a column that does not convert.

use strata_lang::types::Type;

use crate::{Connection, Failure};

/// An engine's run-time SQL.
pub trait RunSql: Connection {
    /// An aggregate: the exact sum (no overflow; 0 over no rows) of an
    /// integer hash of every whole row of `alias` (a relation alias), for
    /// the content hash.
    fn hash_sum(&self, alias: &str) -> String;
    /// A hash of the key columns (quoted), salted: uniform over the
    /// unsigned 64-bit range, compared with `threshold` by the sample.
    fn sample_condition(&self, keys: &[String], salt: u64, threshold: u64) -> String;
    /// An aggregate over groups `(keys..., n)`: as JSON, the up to
    /// [`crate::SAMPLES`] groups of largest `n` as
    /// `[{"k": [key texts], "n": n}, ...]`, over the rows `filter` keeps.
    fn top_groups_json(&self, key_texts: &[String], filter: Option<&str>) -> String;
    /// Whether a physical type of this engine holds values of a strata type.
    fn compatible(&self, ty: &Type, physical: &str) -> bool;
    /// The first non-NULL value of `column` (quoted) in `relation` that
    /// does not convert to `ty`, with its row number when the engine can
    /// tell it.
    fn first_unconvertible(
        &self,
        relation: &str,
        column: &str,
        ty: &Type,
    ) -> Result<Option<(String, Option<String>)>, Failure>;
}
