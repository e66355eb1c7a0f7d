//! The warehouse's own state, for every engine: the `_strata_*`
//! bookkeeping tables. [`schema`] declares them and creates or migrates
//! them; [`history`] reads and writes the run history (`_strata_runs`);
//! [`frozen`] the frozen inputs (`_strata_inputs`); [`pointers`] tells
//! from the history which run each view shows. Nothing else in the
//! lifecycle names these tables.

pub mod frozen;
pub mod history;
pub mod pointers;
pub mod schema;

pub use history::RunRecord;
pub use pointers::{pointers, Pointers};
pub use schema::{open, open_read_only};
