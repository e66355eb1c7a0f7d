//! Reading a source where it is: a table in place, a file in place where
//! the engine can (DuckDB), else loaded into the table named here,
//! `_strata_file_<source>` ([`schema::FILE_PREFIX`]), by the engine.

use strata_engine::{Declared, Failure, Origin};
use strata_lang::ir;

use super::{schema, State};

impl State<'_> {
    /// The SQL relation `source` reads from `origin`; a file is read with
    /// the types the source declares for its columns (`declared`) where the
    /// engine reads it so ([`strata_engine::Relations::read_file`]).
    pub fn source_relation(
        &self,
        source: &str,
        declared: &[ir::Column],
        origin: &Origin,
    ) -> Result<String, Failure> {
        let declared: Vec<Declared> = declared
            .iter()
            .map(|c| (c.name.to_string(), c.ty.clone()))
            .collect();
        self.wh().read(
            origin,
            &declared,
            &format!("{}{source}", schema::FILE_PREFIX),
        )
    }
}

/// The columns `module` declares for its source `source` (none when it
/// declares none).
pub fn declared<'m>(module: &'m ir::Module, source: &str) -> &'m [ir::Column] {
    module
        .sources
        .iter()
        .find(|s| s.name == source)
        .and_then(|s| s.columns.as_deref())
        .unwrap_or(&[])
}
