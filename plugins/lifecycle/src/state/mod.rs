//! The warehouse's own state, for every engine: the `_strata_*`
//! bookkeeping tables. [`schema`] declares them and creates or migrates
//! them; [`history`] reads and writes the run history (`_strata_runs`);
//! [`frozen`] the frozen inputs (`_strata_inputs`); [`segments`] the
//! relations stored as segments shared with earlier ones
//! (`_strata_segments`); [`pointers`] tells
//! from the history which run each view shows. Nothing else in the
//! lifecycle names these tables.

pub mod frozen;
pub mod history;
pub mod pointers;
pub mod schema;
pub mod segments;

pub use history::RunRecord;
pub use pointers::{pointers, Pointers};
pub use schema::{open, open_read_only};
