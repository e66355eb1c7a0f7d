//! Reading a source where it is: a table in place, a file in place where
//! the engine can (DuckDB), else loaded into the table named here,
//! `_strata_file_<source>` ([`schema::FILE_PREFIX`]), by the engine.

use strata_engine::{Failure, Origin};

use super::{schema, State};

impl State<'_> {
    /// The SQL relation `source` reads from `origin`.
    pub fn source_relation(&self, source: &str, origin: &Origin) -> Result<String, Failure> {
        let wh = self.wh();
        wh.read(origin, &format!("{}{source}", schema::FILE_PREFIX))
    }
}
