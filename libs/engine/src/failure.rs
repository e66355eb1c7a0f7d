//! Why warehouse work stopped: the one error type of the warehouse side,
//! from an engine's database error to a failed data check.

use strata_lang::Diagnostic;

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
