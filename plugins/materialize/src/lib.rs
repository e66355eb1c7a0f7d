//! The materialize plugin: runs checked strata modules in embedded DuckDB
//! (`strata run`, `test`, `replay`), with contract pins and join
//! cardinality checks that abort before anything is published.
//!
//! This is the only crate that links DuckDB.

pub mod cardinality;
pub mod checks;
pub mod inputs;
pub mod replay;
pub mod run;
pub mod warehouse;

use strata_lang::Diagnostic;

pub use cardinality::{Sampling, Summary as CardinalitySummary};
pub use run::{run, test, RunOptions, RunReport};
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

/// Receives progress while a run works (a progress bar on a terminal).
pub trait Progress {
    /// A step starts: `label` says what (`build enriched`, `check ...`).
    fn step(&self, label: &str);
    /// Everything is done (or failed).
    fn finish(&self);
}

/// Progress that shows nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn step(&self, _label: &str) {}
    fn finish(&self) {}
}
