//! The materialize plugin: runs checked strata modules in a warehouse —
//! embedded DuckDB or a PostgreSQL server ([`engine`]) — (`strata run`,
//! `test`, `replay`), with contract pins and join cardinality checks that
//! abort before anything is published.
//!
//! This is the only crate that links DuckDB or a database driver. Its
//! commands register themselves with the CLI ([`commands`]).

pub mod cardinality;
pub mod checks;
pub mod commands;
pub mod engine;
pub mod incremental;
pub mod inputs;
pub mod registry;
pub mod replay;
pub mod run;
pub mod stale;
pub mod timeline;

use strata_lang::Diagnostic;

pub use cardinality::{Sampling, Summary as CardinalitySummary};
pub use engine::{Engine, Target, Warehouse};
pub use run::{run, test, RunOptions, RunReport};
pub use strata_plugin::{NoProgress, Progress};

/// Why a materialization stopped.
#[derive(Debug)]
pub enum Failure {
    /// A data check failed (pin, join cardinality, declarative test):
    /// nothing was published. Exit code 3.
    Data(Box<DataFailure>),
    /// The warehouse, a file or a table cannot be used; a database error;
    /// the lock is held. Exit code 4.
    Environment(String),
    /// Bad arguments (unknown model, pipeline or source name). Exit code 2.
    Usage(String),
}

/// A failed data check: the report up to the failure, and the failure as a
/// diagnostic (code `PinError`, pointing at the declaration it checks).
#[derive(Debug)]
pub struct DataFailure {
    pub report: Vec<String>,
    pub diagnostic: Diagnostic,
}
