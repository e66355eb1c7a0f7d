//! The warehouse's own state, for every engine: the `_strata_*`
//! bookkeeping tables. [`schema`] declares them and creates or migrates
//! them; [`history`] reads and writes the run history (`_strata_runs`);
//! [`frozen`] the frozen inputs (`_strata_inputs`); [`segments`] the
//! relations stored as segments shared with earlier ones
//! (`_strata_segments`); [`pointers`] tells
//! from the history which run each view shows; [`files`] reads a source,
//! naming the table a file is loaded into where the engine loads files.
//! The engines create two kinds of relation for the lifecycle, named in
//! [`schema`]: Spark's writer lock view and those file tables. Nothing else
//! in the lifecycle names these relations.

pub mod files;
pub mod frozen;
pub mod history;
pub mod pointers;
pub mod schema;
pub mod segments;

pub use history::RunRecord;
pub use pointers::{pointers, Pointers};
pub use schema::{open, open_read_only};
