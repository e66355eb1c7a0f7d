//! The materialize plugin: runs checked strata modules in embedded DuckDB
//! (`strata run`, `test`, `replay`), with contract pins and join
//! cardinality checks that abort before anything is published.
//!
//! This is the only crate that links DuckDB. Its commands register
//! themselves with the CLI ([`commands`]).

pub mod checks;
pub mod commands;
pub mod inputs;
pub mod registry;
pub mod replay;
pub mod run;
pub mod warehouse;

use strata_lang::Diagnostic;

pub use run::{run, test, RunOptions, RunReport};
pub use strata_plugin::{NoProgress, Progress};
pub use warehouse::Warehouse;

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
