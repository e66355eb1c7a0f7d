//! The statements an engine sends, counted where it sends them (one
//! place per engine: its statement, its query, its batch of queries), so
//! that what a check of a run cost ([`Connection::statements`] before and
//! after) needs no wrapper around the engine.
//!
//! [`Connection::statements`]: crate::Connection::statements

use std::cell::Cell;

/// A count of statements sent.
#[derive(Debug, Default)]
pub struct Meter(Cell<usize>);

impl Meter {
    /// `n` more statements were sent.
    pub fn add(&self, n: usize) {
        self.0.set(self.0.get() + n);
    }

    /// Statements sent so far.
    pub fn count(&self) -> usize {
        self.0.get()
    }
}
