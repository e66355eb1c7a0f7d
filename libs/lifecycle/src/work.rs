//! A unit of work on the warehouse: all or nothing. Where the engine has
//! transactions ([`Capabilities::transactions`]: DuckDB, PostgreSQL) it is
//! one transaction. Where it has none (Spark) the tables it creates are
//! remembered and dropped if it fails; every caller makes the repoint of
//! views its last change, after every check, so that a failure leaves
//! every view as it was.
//!
//! [`Capabilities::transactions`]: strata_engine::Capabilities

use std::cell::RefCell;
use std::ops::Deref;

use strata_engine::Failure;

use crate::failpoint::failpoint;
use crate::session::Session;

/// An open unit of work of a session (whose steps it derefs to).
pub struct Work<'w> {
    session: Session<'w>,
    transactions: bool,
    /// Tables and views created in it (`TABLE` or `VIEW`, quoted name),
    /// on an engine without transactions.
    created: RefCell<Vec<(&'static str, String)>>,
    /// On a scratch database: nothing to undo, nothing to keep.
    scratch: bool,
}

impl<'w> Session<'w> {
    /// Open a unit of work.
    pub(crate) fn begin(&self) -> Result<Work<'w>, Failure> {
        let transactions = self.wh().capabilities().transactions;
        if transactions {
            self.wh().begin()?;
        }
        Ok(Work {
            session: *self,
            transactions,
            created: RefCell::default(),
            scratch: false,
        })
    }

    /// Work on a scratch database whose contents nobody keeps (the fixture
    /// tests' in-memory DuckDB): no transaction, nothing remembered to
    /// undo, so it costs no statement of its own; whatever it creates, the
    /// next unit of work replaces.
    pub(crate) fn scratch(&self) -> Work<'w> {
        Work {
            session: *self,
            transactions: false,
            created: RefCell::default(),
            scratch: true,
        }
    }

    /// Run `f` as one unit of work: committed if it succeeds, undone if
    /// not.
    pub(crate) fn atomically<T>(
        &self,
        f: impl FnOnce(&Work<'w>) -> Result<T, Failure>,
    ) -> Result<T, Failure> {
        let work = self.begin()?;
        match f(&work) {
            Ok(value) => {
                work.commit()?;
                Ok(value)
            }
            Err(e) => {
                work.rollback();
                Err(e)
            }
        }
    }
}

impl<'w> Deref for Work<'w> {
    type Target = Session<'w>;

    fn deref(&self) -> &Session<'w> {
        &self.session
    }
}

impl Work<'_> {
    /// Create or replace `table` (quoted) as the rows of `select`; a
    /// failure drops it again. Its rows, when the engine reports them
    /// ([`Relations::replace_table`]).
    ///
    /// [`Relations::replace_table`]: strata_engine::Relations::replace_table
    pub fn replace_table(&self, table: &str, select: &str) -> Result<Option<i64>, Failure> {
        let rows = self.wh().replace_table(table, select)?;
        if !self.transactions && !self.scratch {
            self.created.borrow_mut().push(("TABLE", table.to_string()));
        }
        Ok(rows)
    }

    /// Create or replace `view` (quoted) reading `relation`; a failure
    /// drops it again. (Not for the views a run publishes: those are
    /// repointed last, never dropped.)
    pub fn replace_view(&self, view: &str, relation: &str) -> Result<(), Failure> {
        self.wh().replace_view(view, relation)?;
        if !self.transactions && !self.scratch {
            self.created.borrow_mut().push(("VIEW", view.to_string()));
        }
        Ok(())
    }

    /// Keep everything it did (after the failpoint `before commit`).
    pub fn commit(self) -> Result<(), Failure> {
        failpoint("before commit");
        if self.transactions {
            self.wh().commit()?;
        }
        Ok(())
    }

    /// Undo what it did: roll the transaction back, or drop the tables it
    /// created (errors are ignored: this is already a failure path).
    pub fn rollback(self) {
        if self.transactions {
            self.wh().rollback();
            return;
        }
        for (kind, name) in self.created.borrow().iter().rev() {
            let _ = self.wh().exec(&format!("DROP {kind} IF EXISTS {name}"));
        }
    }
}
