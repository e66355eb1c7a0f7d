//! What a run writes into its models' SQL in place of the calls that read
//! the run: its clock (`current_date()`, `current_timestamp()`: [`Clock`])
//! and its id (`run_id()`). Outside a run (`strata compile`, the editor's
//! compiled SQL, fixture tests) the catalog's SQL stands instead: the
//! engine's own clock, and [`NO_RUN_ID`].

use crate::sql::{Clock, Dialect};
use crate::types::Type;

/// What `run_id()` is outside a run: sixteen zeros, the shape of a run id
/// (16 hex digits) that no run has, so that rows computed outside a run
/// are told apart from any run's.
pub const NO_RUN_ID: &str = "0000000000000000";

/// The catalog function that reads the run's id.
pub const RUN_ID_FUNCTION: &str = "run_id";

/// The values of the run a model's SQL is written for (`NONE`: no run).
#[derive(Clone, Copy, Debug, Default)]
pub struct RunValues<'a> {
    /// What `current_date()` and `current_timestamp()` read (`None`: the
    /// engine's own clock).
    pub clock: Option<&'a Clock>,
    /// What `run_id()` reads (`None`: [`NO_RUN_ID`]).
    pub id: Option<&'a str>,
}

impl<'a> RunValues<'a> {
    /// Outside a run.
    pub const NONE: RunValues<'static> = RunValues {
        clock: None,
        id: None,
    };

    /// The SQL literal a call of `name` becomes in this run, if `name` reads
    /// a value the run gives.
    pub fn literal(&self, d: Dialect, name: &str) -> Option<Result<String, String>> {
        if name == RUN_ID_FUNCTION {
            return self.id.map(|id| d.cast(&d.string(id), &Type::String));
        }
        self.clock.and_then(|k| k.literal(d, name))
    }
}

/// `run_id()` outside a run: [`NO_RUN_ID`], a string in every dialect.
pub fn no_run_id(d: Dialect) -> Result<String, String> {
    d.cast(&d.string(NO_RUN_ID), &Type::String)
}
