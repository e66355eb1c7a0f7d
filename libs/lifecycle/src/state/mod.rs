//! The warehouse's own state, for every engine: the `_strata_*`
//! bookkeeping tables, as one object. [`State`] reads and writes them;
//! [`StateReader`] is its read-only face, for the verbs that only read
//! (`plan`, `branches`, `status`, the docs site's last runs) — SQLMesh's
//! `StateReader` / `StateSync`. Each table's reads and writes are methods
//! in a file of its own: [`schema`] declares the tables and creates or
//! migrates them ([`State::migrate`]); [`history`] the run history
//! (`_strata_runs`); [`frozen`] the frozen inputs (`_strata_inputs`);
//! [`segments`] the relations stored as segments shared with earlier ones
//! (`_strata_segments`); [`pointers`] tells from the history which run
//! each view shows; [`files`] reads a source, naming the table a file is
//! loaded into where the engine loads files. The engines create two kinds
//! of relation for the lifecycle, named in [`schema`]: Spark's writer lock
//! view and those file tables. Nothing else in the lifecycle names these
//! relations.

pub mod files;
pub mod frozen;
pub mod history;
pub mod pointers;
pub mod schema;
pub mod segments;

use std::ops::Deref;

use strata_engine::{Failure, Warehouse};

pub use history::RunRecord;
pub use pointers::{pointers, Pointers};
pub use schema::{open, open_read_only};

/// The bookkeeping tables of one warehouse, read only: what the verbs that
/// change nothing read.
#[derive(Clone, Copy)]
pub struct StateReader<'w> {
    wh: &'w Warehouse,
}

impl<'w> StateReader<'w> {
    /// The state of the warehouse `wh`, for reading.
    pub fn new(wh: &'w Warehouse) -> StateReader<'w> {
        StateReader { wh }
    }

    pub(crate) fn wh(&self) -> &'w Warehouse {
        self.wh
    }
}

/// The bookkeeping tables of one warehouse, read and written: its
/// [`StateReader`] face (through `Deref`), and the writes a run, a
/// rollback and a gc make.
#[derive(Clone, Copy)]
pub struct State<'w> {
    reader: StateReader<'w>,
}

impl<'w> State<'w> {
    /// The state of the warehouse `wh`, for reading and writing.
    pub fn new(wh: &'w Warehouse) -> State<'w> {
        State {
            reader: StateReader { wh },
        }
    }

    /// Delete the rows of bookkeeping table `table` whose `column` is
    /// `value`, where the engine can delete rows (elsewhere they stay).
    fn delete_where(&self, table: &str, column: &str, value: &str) -> Result<(), Failure> {
        let wh = self.wh();
        if !wh.capabilities().row_deletes {
            return Ok(());
        }
        wh.exec(&format!(
            "DELETE FROM {} WHERE {column} = {}",
            wh.ident(table),
            wh.string(value)
        ))
    }

    /// Its read-only face.
    pub fn reader(&self) -> StateReader<'w> {
        self.reader
    }
}

impl<'w> Deref for State<'w> {
    type Target = StateReader<'w>;

    fn deref(&self) -> &StateReader<'w> {
        &self.reader
    }
}
