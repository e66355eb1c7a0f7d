//! The warehouse engines: everything the lifecycle (`run`, `test`,
//! `replay`, the checks) needs from a database, behind one trait, and what
//! each engine can and cannot do ([`Capabilities`]). This crate is a leaf
//! of the warehouse side: it knows nothing of runs, snapshots or checks.
//! The lifecycle writes portable SQL with the engine's dialect (quoting,
//! literals, types) and asks the engine for what differs (replacing a
//! table or a view, a row hash, reading a file, the aggregate that keeps
//! the most duplicated keys).
//!
//! `--warehouse` picks the engine by its form ([`open`], [`Target`]): a
//! path is an embedded DuckDB file (`duckdb/`; `?schema=S` after it puts
//! every relation strata creates in schema `S`), a `postgres://` URL a
//! PostgreSQL server (`postgres/`: its URL form, TLS, lock and file
//! loading), an `sc://` URL a Spark Connect server (`spark/`: connection,
//! URL form, lock, file loading, types, script splitting).

mod duckdb;
mod failure;
mod meter;
mod origin;
mod postgres;
mod spark;
pub mod target;
mod url;

use std::path::PathBuf;
use std::time::Duration;

use strata_lang::sql::Dialect;
use strata_lang::types::Type;

pub use self::duckdb::{file_of as duckdb_file, library_version as duckdb_version, DuckDb};
pub use self::postgres::{tls, PgTarget, Postgres};
pub use self::spark::{Spark, SparkTarget};
pub use failure::{DataFailure, Failure};
pub use meter::Meter;
pub use origin::{FileFormat, Origin, TableName};
pub use target::Target;
pub use url::redact;

/// How many sample values a failed check shows (duplicated keys, values
/// outside an enum, ...).
pub const SAMPLES: usize = 5;

/// What an engine can and cannot do: the one place the lifecycle reads
/// where engines differ in kind (not merely in SQL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// Multi-statement transactions: [`Engine::begin`] ... [`Engine::commit`]
    /// is all or nothing, and [`Engine::rollback`] undoes it (DuckDB,
    /// PostgreSQL). Without them (Spark) `begin`, `commit` and `rollback`
    /// do nothing: the lifecycle drops the tables a failed unit of work
    /// created, and repoints views only once every check has passed.
    pub transactions: bool,
    /// `DELETE FROM` works on the bookkeeping tables (not on Spark's
    /// parquet tables, which only append).
    pub row_deletes: bool,
    /// `ALTER TABLE ... ADD COLUMN IF NOT EXISTS`, so that bookkeeping
    /// tables of an older release get the columns added since. Without it
    /// (Spark) a missing table is created with every column at once.
    pub add_columns: bool,
    /// Where file inputs are frozen by copying the file, when the engine
    /// reads files in place and keeps its warehouse in a file (DuckDB:
    /// `<warehouse>.inputs/` beside it). `None`: file inputs are loaded
    /// into tables (PostgreSQL, Spark, an in-memory DuckDB).
    pub file_store: Option<PathBuf>,
    /// Dropping a table gives its space back to the file system at once
    /// (PostgreSQL unlinks its files; Spark deletes a managed table's
    /// directory). Without it (DuckDB) the blocks stay free inside the
    /// database file until [`Engine::compact`] rewrites it.
    pub drop_frees_space: bool,
}

/// What the warehouse takes on disk ([`Engine::size`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Size {
    /// What was measured (`DuckDB file`, `schema marts`).
    pub what: String,
    /// Bytes on disk.
    pub bytes: i64,
    /// Of which free inside it (DuckDB's free blocks), given back only by
    /// [`Engine::compact`]; `None` where dropping frees at once.
    pub free: Option<i64>,
}

/// What [`Engine::compact`] did: the bytes on disk before and after.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compaction {
    pub before: i64,
    pub after: i64,
}

/// Rows of a query as text cells (`None` for NULL).
pub type Rows = Vec<Vec<Option<String>>>;

/// An open warehouse. Implementations hold the writer lock for as long as
/// they live.
pub trait Engine {
    /// The SQL dialect this engine speaks (quoting, literals, types).
    fn dialect(&self) -> Dialect;
    /// Statements and queries sent to the warehouse since it was opened,
    /// counted where the engine sends them (its [`Meter`]): what a check
    /// of a run cost is this before and after it.
    fn statements(&self) -> usize;
    /// The warehouse as messages show it: a path, or a URL without its
    /// password.
    fn name(&self) -> &str;

    /// Run statements; a database error is an environment failure.
    fn exec(&self, sql: &str) -> Result<(), Failure>;
    /// Run a query; its rows as text.
    fn rows(&self, sql: &str) -> Result<Rows, Failure>;
    /// Run independent queries; the rows of each, in the same order. An
    /// engine that can run them at once does (Spark: each is a round trip
    /// and a job of its own); the others run them in turn.
    fn rows_each(&self, queries: &[String]) -> Result<Vec<Rows>, Failure> {
        queries.iter().map(|q| self.rows(q)).collect()
    }
    /// What this engine can and cannot do.
    fn capabilities(&self) -> Capabilities;

    /// Start a transaction (where [`Capabilities::transactions`]; else
    /// nothing).
    fn begin(&self) -> Result<(), Failure> {
        Ok(())
    }
    /// Commit the transaction (where [`Capabilities::transactions`]).
    fn commit(&self) -> Result<(), Failure> {
        Ok(())
    }
    /// Roll the transaction back; errors are ignored (there may be no
    /// open transaction).
    fn rollback(&self) {}

    /// Whether a table or view of that name exists where the warehouse
    /// keeps its relations.
    fn relation_exists(&self, name: &str) -> Result<bool, Failure>;
    /// Whether a source's table exists: a table or view of its name, where
    /// the warehouse keeps its relations, or in the schema (and catalog)
    /// it names.
    fn table_exists(&self, table: &TableName) -> Result<bool, Failure>;
    /// The columns of a relation (SQL, quoted): name and physical type.
    fn columns(&self, relation: &str) -> Result<Vec<(String, String)>, Failure>;
    /// [`Engine::columns`] of each relation, in the same order: asked at
    /// once on an engine that can (Spark), else in turn.
    fn columns_each(&self, relations: &[String]) -> Result<Vec<Vec<(String, String)>>, Failure> {
        relations.iter().map(|r| self.columns(r)).collect()
    }
    /// Whether a physical type of this engine holds values of a strata type.
    fn compatible(&self, ty: &Type, physical: &str) -> bool;
    /// The SQL relation a source origin reads. A file is read in place
    /// where the engine can (DuckDB), else loaded first (PostgreSQL).
    fn read(&self, source: &str, origin: &Origin) -> Result<String, Failure>;
    /// The first non-NULL value of `column` (quoted) in `relation` that
    /// does not convert to `ty`, with its row number when the engine can
    /// tell it.
    fn first_unconvertible(
        &self,
        relation: &str,
        column: &str,
        ty: &Type,
    ) -> Result<Option<(String, Option<String>)>, Failure>;

    /// Create or replace `table` as the rows of `select`; the rows it
    /// holds when the engine reports them with the statement (DuckDB), so
    /// that no count needs a query of its own.
    fn replace_table(&self, table: &str, select: &str) -> Result<Option<i64>, Failure>;
    /// Create or repoint `view` at `relation` (both quoted), whatever the
    /// columns of the view before.
    fn replace_view(&self, view: &str, relation: &str) -> Result<(), Failure>;
    /// [`Engine::replace_view`] for each `(view, relation)`: at once on an
    /// engine that can (Spark), else in turn.
    fn replace_views(&self, views: &[(String, String)]) -> Result<(), Failure> {
        views
            .iter()
            .try_for_each(|(view, relation)| self.replace_view(view, relation))
    }
    /// An aggregate: the exact sum (no overflow; 0 over no rows) of an
    /// integer hash of every whole row of `alias` (a relation alias), for
    /// the content hash.
    fn hash_sum(&self, alias: &str) -> String;
    /// A hash of the key columns (quoted), salted: uniform over the
    /// unsigned 64-bit range, compared with `threshold` by the sample.
    fn sample_condition(&self, keys: &[String], salt: u64, threshold: u64) -> String;
    /// An aggregate over groups `(keys..., n)`: as JSON, the up to
    /// [`SAMPLES`] groups of largest `n` as
    /// `[{"k": [key texts], "n": n}, ...]`, over the rows `filter` keeps.
    fn top_groups_json(&self, key_texts: &[String], filter: Option<&str>) -> String;

    /// The bytes a table takes on disk, when the engine tells (PostgreSQL
    /// does; an embedded DuckDB file does not say per table).
    fn relation_bytes(&self, _table: &str) -> Result<Option<i64>, Failure> {
        Ok(None)
    }
    /// [`Engine::relation_bytes`] of each table, in the same order: asked
    /// at once where the engine can. A view takes none (`Some(0)` or
    /// `None`). DuckDB shares a block between small tables: each is given
    /// its share, so the bytes of all tables add up to the blocks they use.
    fn relation_bytes_each(&self, tables: &[String]) -> Result<Vec<Option<i64>>, Failure> {
        tables.iter().map(|t| self.relation_bytes(t)).collect()
    }
    /// What the whole warehouse takes on disk, when the engine tells.
    fn size(&self) -> Result<Option<Size>, Failure> {
        Ok(None)
    }
    /// Give back the space that dropped tables left free inside the
    /// warehouse, where dropping does not ([`Capabilities::drop_frees_space`]):
    /// DuckDB rewrites its file without the free blocks and swaps it in
    /// atomically (a compaction killed midway leaves the old file whole).
    /// `at` is called with `before compact copy` and `before compact swap`
    /// (the lifecycle's failpoints). `None`: nothing to do on this engine.
    fn compact(&self, _at: &dyn Fn(&str)) -> Result<Option<Compaction>, Failure> {
        Ok(None)
    }

    /// A quoted identifier.
    fn ident(&self, name: &str) -> String {
        self.dialect().ident(name)
    }
    /// A string literal.
    fn string(&self, value: &str) -> String {
        self.dialect().string(value)
    }
    /// `sql` cast to the engine's text type.
    fn text(&self, sql: &str) -> String {
        let ty = self
            .dialect()
            .type_name(&Type::String)
            .unwrap_or_else(|_| "VARCHAR".into());
        format!("CAST({sql} AS {ty})")
    }
    /// A single integer (the first cell of the first row).
    fn count(&self, sql: &str) -> Result<i64, Failure> {
        let rows = self.rows(sql)?;
        Ok(rows
            .first()
            .and_then(|r| r.first())
            .and_then(|c| c.as_deref())
            .and_then(|s| s.parse::<i64>().ok())
            .unwrap_or(0))
    }
}

/// An open warehouse, whatever its engine.
pub type Warehouse = dyn Engine;

/// Open the warehouse `target` names for writing: another writer holding
/// it is waited for up to `lock_timeout`. (The lifecycle's bookkeeping
/// tables are its own: `strata_lifecycle::state::open` creates them.)
pub fn open(target: &Target, lock_timeout: Duration) -> Result<Box<Warehouse>, Failure> {
    Ok(match target {
        Target::DuckDb(path) => Box::new(DuckDb::open(path, lock_timeout)?),
        Target::Postgres(url) => Box::new(Postgres::open(url, lock_timeout)?),
        Target::Spark(url) => Box::new(Spark::open(url, lock_timeout)?),
    })
}

/// Open the warehouse `target` names for reading only: a DuckDB file must
/// exist (it is opened read-only, waiting up to `lock_timeout` for a
/// writer), a PostgreSQL session is read-only and takes no lock. Nothing is
/// created: a warehouse without a run history has no `_strata_runs` table.
pub fn open_read_only(target: &Target, lock_timeout: Duration) -> Result<Box<Warehouse>, Failure> {
    Ok(match target {
        Target::DuckDb(path) => Box::new(DuckDb::open_read_only(path, lock_timeout)?),
        Target::Postgres(url) => Box::new(Postgres::open_read_only(url)?),
        Target::Spark(url) => Box::new(Spark::open_read_only(url)?),
    })
}

/// The relation an embedded DuckDB reads a file origin through, for an
/// engine that loads files from the client (PostgreSQL, Spark).
pub(crate) fn duckdb_file_relation(source: &str, origin: &Origin) -> Result<String, Failure> {
    DuckDb::open(":memory:", Duration::ZERO)?.read(source, origin)
}

/// ` FILTER (WHERE f)` after an aggregate, or nothing.
pub(crate) fn filter_clause(filter: Option<&str>) -> String {
    filter
        .map(|f| format!(" FILTER (WHERE {f})"))
        .unwrap_or_default()
}

/// An unsigned sampling threshold moved into the signed range, for an
/// engine whose hash is a uniform signed 64-bit integer.
pub(crate) fn signed_threshold(threshold: u64) -> i64 {
    (threshold ^ (1 << 63)) as i64
}

/// A database error while running `sql`, as one failure.
pub(crate) fn db_error(error: impl std::fmt::Display, sql: &str) -> Failure {
    Failure::Environment(format!(
        "database error: {error}\n  while running: {}",
        first_line(sql)
    ))
}

fn first_line(sql: &str) -> String {
    let line = sql.trim().lines().next().unwrap_or("");
    match line.char_indices().nth(160) {
        Some((i, _)) => format!("{}...", &line[..i]),
        None => line.to_string(),
    }
}
