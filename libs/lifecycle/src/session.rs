//! A session: one verb's hold on the warehouse. `run`, `test`, `backfill`,
//! `plan`, `replay`, `rollback` and `gc` each open one
//! ([`Session::new`]) over the warehouse their command opened and the
//! progress it reports to, and every step of the verb is a method of the
//! session (in the file of the step: `prepare.rs`, `inputs.rs`,
//! `content.rs`, `delta.rs`, `incremental.rs`, `plan.rs`, ...) or of the
//! unit of work it opens ([`Work`](crate::work::Work), which derefs to
//! it). The session reads and writes the bookkeeping tables through its
//! [`State`]. What a verb is asked to do (the selection, the sources,
//! `strata.toml`'s policies, the clock) is its `RunOptions`; what each
//! model cost is counted by the engine (`Connection::statements`) and
//! kept in the run's `Timings`.

use strata_engine::Warehouse;

use crate::state::{State, StateReader};
use crate::Progress;

/// One verb's warehouse, its state and its progress.
#[derive(Clone, Copy)]
pub struct Session<'w> {
    wh: &'w Warehouse,
    state: State<'w>,
    progress: &'w dyn Progress,
}

impl<'w> Session<'w> {
    /// A session on `wh` (opened with its bookkeeping tables:
    /// [`crate::state::open`]), reporting to `progress`.
    pub fn new(wh: &'w Warehouse, progress: &'w dyn Progress) -> Session<'w> {
        Session {
            wh,
            state: State::new(wh),
            progress,
        }
    }

    /// The warehouse.
    pub(crate) fn wh(&self) -> &'w Warehouse {
        self.wh
    }

    /// Its bookkeeping tables.
    pub fn state(&self) -> State<'w> {
        self.state
    }

    /// Its bookkeeping tables, read only.
    pub fn reader(&self) -> StateReader<'w> {
        self.state.reader()
    }

    /// Where the session reports what it is doing.
    pub(crate) fn progress(&self) -> &'w dyn Progress {
        self.progress
    }
}
