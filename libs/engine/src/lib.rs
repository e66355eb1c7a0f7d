//! The warehouse engines: everything the lifecycle (`run`, `test`,
//! `replay`, the checks) needs from a database, and what each engine can
//! and cannot do ([`Capabilities`]). This crate is a leaf of the warehouse
//! side: it knows nothing of runs, snapshots or checks, and creates no
//! `_strata_*` relation of its own choosing (the lifecycle's `state/` names
//! the Spark lock view and the tables files are loaded into).
//!
//! An engine is four traits ([`Engine`] is all of them): the connection
//! ([`Connection`]: statements, queries, transactions, their count; the
//! writer lock is taken by [`open`]), its relations ([`Relations`]:
//! existence, columns, replacing a table or a view, reading a source),
//! the space they take ([`Storage`]), and its dialect of run-time SQL
//! ([`RunSql`]: the row hash, the sample, the most duplicated keys, type
//! compatibility and conversion). The lifecycle writes portable SQL with
//! the engine's dialect (quoting, literals, types) and asks the engine for
//! what differs.
//!
//! `--warehouse` picks the engine by its form ([`open`], [`Target`]): a
//! path is an embedded DuckDB file (`duckdb/`; `?schema=S` after it puts
//! every relation strata creates in schema `S`), a `postgres://` URL a
//! PostgreSQL server (`postgres/`: its URL form, TLS, lock and file
//! loading), an `sc://` URL a Spark Connect server (`spark/`: connection,
//! URL form, lock, file loading, types, script splitting).

mod connection;
mod duckdb;
mod failure;
mod meter;
mod origin;
mod postgres;
mod relations;
mod run_sql;
mod spark;
mod storage;
pub mod target;
mod url;

use std::path::PathBuf;
use std::time::Duration;

pub use self::duckdb::{file_of as duckdb_file, library_version as duckdb_version, DuckDb};
pub use self::postgres::{tls, PgTarget, Postgres};
pub use self::spark::{Spark, SparkTarget};
pub use connection::Connection;
pub use failure::{DataFailure, Failure};
pub use meter::Meter;
pub use origin::{FileFormat, Origin, TableName};
pub use relations::{Declared, Relations};
pub use run_sql::RunSql;
pub use storage::{Compaction, Size, Storage};
pub use target::Target;
pub use url::redact;

/// How many sample values a failed check shows (duplicated keys, values
/// outside an enum, ...).
pub const SAMPLES: usize = 5;

/// What an engine can and cannot do: the one place the lifecycle reads
/// where engines differ in kind (not merely in SQL).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Capabilities {
    /// Multi-statement transactions: [`Connection::begin`] ... [`Connection::commit`]
    /// is all or nothing, and [`Connection::rollback`] undoes it (DuckDB,
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
    /// database file until [`Storage::compact`] rewrites it.
    pub drop_frees_space: bool,
}

/// Rows of a query as text cells (`None` for NULL).
pub type Rows = Vec<Vec<Option<String>>>;

/// An open warehouse: its connection, the relations it holds, the space
/// they take, and its dialect of run-time SQL. Every engine implements the
/// four; the lifecycle holds a `&Warehouse` (`dyn Engine`) and calls any of
/// their methods on it.
pub trait Engine: Connection + Relations + Storage + RunSql {}

impl<E: Connection + Relations + Storage + RunSql> Engine for E {}

/// An open warehouse, whatever its engine.
pub type Warehouse = dyn Engine;

/// The writer lock [`open`] takes.
#[derive(Clone, Copy, Debug)]
pub struct Lock<'a> {
    /// How long another writer holding it is waited for.
    pub wait: Duration,
    /// The relation that is the lock where the engine's lock is a relation
    /// (Spark's view), named by the caller (the lifecycle's `state/`):
    /// DuckDB locks its file, PostgreSQL takes an advisory lock.
    pub relation: &'a str,
}

/// Open the warehouse `target` names for writing, taking its writer lock.
/// (The lifecycle's bookkeeping tables are its own:
/// `strata_lifecycle::state::open` creates them.)
pub fn open(target: &Target, lock: Lock) -> Result<Box<Warehouse>, Failure> {
    Ok(match target {
        Target::DuckDb(path) => Box::new(DuckDb::open(path, lock.wait)?),
        Target::Postgres(url) => Box::new(Postgres::open(url, lock.wait)?),
        Target::Spark(url) => Box::new(Spark::open(url, lock)?),
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
