//! Reading a source where it is: a table in place, a file in place where
//! the engine can (DuckDB), else loaded into the table named here,
//! `_strata_file_<source>` ([`schema::FILE_PREFIX`]), by the engine.

use strata_engine::{Failure, Origin, Warehouse};

use super::schema;

/// The SQL relation `source` reads from `origin`.
pub fn read(wh: &Warehouse, source: &str, origin: &Origin) -> Result<String, Failure> {
    wh.read(origin, &format!("{}{source}", schema::FILE_PREFIX))
}
