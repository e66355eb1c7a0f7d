//! The connection: what every engine must do. Send statements and
//! queries, count them, run a unit of work in a transaction where it can,
//! and say what it can and cannot do. The writer lock is taken when the
//! engine is opened ([`crate::open`]) and held for as long as it lives.

use strata_lang::sql::Dialect;
use strata_lang::types::Type;

use crate::{Capabilities, Failure, Rows};

/// An open connection to a warehouse.
pub trait Connection {
    /// The SQL dialect this engine speaks (quoting, literals, types).
    fn dialect(&self) -> Dialect;
    /// Statements and queries sent to the warehouse since it was opened,
    /// counted where the engine sends them (its [`crate::Meter`]): what a
    /// check of a run cost is this before and after it.
    fn statements(&self) -> usize;
    /// The warehouse as messages show it: a path, or a URL without its
    /// password.
    fn name(&self) -> &str;
    /// What this engine can and cannot do.
    fn capabilities(&self) -> Capabilities;

    /// Run statements; a database error is an environment failure.
    fn exec(&self, sql: &str) -> Result<(), Failure>;
    /// Run a query; its rows as text.
    fn rows(&self, sql: &str) -> Result<Rows, Failure>;
    /// Run independent queries; the rows of each, in the same order. An
    /// engine that can run them at once does (Spark: each is a round trip
    /// and a job of its own); the others run them in turn.
    fn rows_each(&self, queries: &[String]) -> Result<Vec<Rows>, Failure> {
        queries.iter().map(|q| self.rows(q)).collect()
    }

    /// Start a transaction (where [`Capabilities::transactions`]; else
    /// nothing).
    fn begin(&self) -> Result<(), Failure> {
        Ok(())
    }
    /// Commit the transaction (where [`Capabilities::transactions`]).
    fn commit(&self) -> Result<(), Failure> {
        Ok(())
    }
    /// Roll the transaction back; errors are ignored (there may be no
    /// open transaction).
    fn rollback(&self) {}

    /// A quoted identifier.
    fn ident(&self, name: &str) -> String {
        self.dialect().ident(name)
    }
    /// A string literal.
    fn string(&self, value: &str) -> String {
        self.dialect().string(value)
    }
    /// `sql` cast to the engine's text type.
    fn text(&self, sql: &str) -> String {
        let ty = self
            .dialect()
            .type_name(&Type::String)
            .unwrap_or_else(|_| "VARCHAR".into());
        format!("CAST({sql} AS {ty})")
    }
    /// A single integer (the first cell of the first row).
    fn count(&self, sql: &str) -> Result<i64, Failure> {
        let rows = self.rows(sql)?;
        Ok(rows
            .first()
            .and_then(|r| r.first())
            .and_then(|c| c.as_deref())
            .and_then(|s| s.parse::<i64>().ok())
            .unwrap_or(0))
    }
}
