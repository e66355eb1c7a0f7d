//! The relations a warehouse holds: whether one exists, its columns,
//! replacing a table or a view, and reading a source where it is.

use std::path::Path;

use strata_lang::types::Type;

use crate::{Connection, Failure, Origin, TableName};

/// A column a source declares: its name and type.
pub type Declared = (String, Type);

/// The relations of a warehouse, where it keeps them.
pub trait Relations: Connection {
    /// Whether a table or view of that name exists where the warehouse
    /// keeps its relations.
    fn relation_exists(&self, name: &str) -> Result<bool, Failure>;
    /// Whether a source's table exists: a table or view of its name, where
    /// the warehouse keeps its relations, or in the schema (and catalog)
    /// it names.
    fn table_exists(&self, table: &TableName) -> Result<bool, Failure>;
    /// The columns of a relation (SQL, quoted): name and physical type.
    fn columns(&self, relation: &str) -> Result<Vec<(String, String)>, Failure>;
    /// [`Relations::columns`] of each relation, in the same order: asked
    /// at once on an engine that can (Spark), else in turn.
    fn columns_each(&self, relations: &[String]) -> Result<Vec<Vec<(String, String)>>, Failure> {
        relations.iter().map(|r| self.columns(r)).collect()
    }

    /// Create or replace `table` as the rows of `select`; the rows it
    /// holds when the engine reports them with the statement (DuckDB), so
    /// that no count needs a query of its own.
    fn replace_table(&self, table: &str, select: &str) -> Result<Option<i64>, Failure>;
    /// Create or repoint `view` at `relation` (both quoted), whatever the
    /// columns of the view before.
    fn replace_view(&self, view: &str, relation: &str) -> Result<(), Failure>;
    /// [`Relations::replace_view`] for each `(view, relation)`: at once on
    /// an engine that can (Spark), else in turn.
    fn replace_views(&self, views: &[(String, String)]) -> Result<(), Failure> {
        views
            .iter()
            .try_for_each(|(view, relation)| self.replace_view(view, relation))
    }

    /// The SQL relation a source file is read through: the file in place
    /// where the engine can (DuckDB), else the table `table` (unquoted,
    /// named by the caller: the lifecycle's `state/`) replaced by the
    /// file's rows, read on the client by the embedded DuckDB (PostgreSQL,
    /// Spark). `declared` are the columns the source declares: a CSV file's
    /// text columns and decimals are read with those types
    /// ([`crate::duckdb::file_relation`]).
    fn read_file(&self, file: &Path, declared: &[Declared], table: &str)
        -> Result<String, Failure>;
    /// The SQL relation a source origin reads: a table where it is, or a
    /// file through [`Relations::read_file`] (loaded into `table` where
    /// the engine loads files).
    fn read(&self, origin: &Origin, declared: &[Declared], table: &str) -> Result<String, Failure> {
        match origin {
            Origin::Table(t) => Ok(self.dialect().table(t)),
            Origin::File(path) => self.read_file(path, declared, table),
        }
    }
}
