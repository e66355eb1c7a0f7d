//! The run's clock: what `current_date()` and `current_timestamp()` read in
//! a run. A run reads the time it started (UTC) once, writes it into the SQL
//! of every model that asks as a literal, hashes it into the run id and
//! records it, so a replay computes the same rows and a run id still names
//! everything its rows depend on.

use crate::ir::{self, TExprKind};
use crate::sql::Dialect;
use crate::types::Type;

/// How much of the clock a model reads: the date, or the whole timestamp.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ClockPart {
    Date,
    Timestamp,
}

impl ClockPart {
    /// The part the catalog function `name` reads, if it reads the clock.
    pub fn of_function(name: &str) -> Option<ClockPart> {
        match name {
            "current_date" => Some(ClockPart::Date),
            "current_timestamp" => Some(ClockPart::Timestamp),
            _ => None,
        }
    }

    /// The finest part any of `models` reads (`None`: none reads the clock).
    pub fn read_by<'m>(models: impl IntoIterator<Item = &'m ir::Model>) -> Option<ClockPart> {
        models.into_iter().filter_map(reads).max()
    }
}

/// The finest part of the clock `model` reads.
pub fn reads(model: &ir::Model) -> Option<ClockPart> {
    let mut part = None;
    for step in &model.steps {
        for e in step.exprs() {
            e.walk(&mut |x| {
                if let TExprKind::Call(c) = &x.kind {
                    part = part.max(ClockPart::of_function(&c.name));
                }
            });
        }
    }
    part
}

/// A run's clock: a UTC timestamp, `YYYY-MM-DD HH:MM:SS.ffffff`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Clock {
    utc: String,
}

impl Clock {
    /// The clock at `utc`, which the caller formats as
    /// `YYYY-MM-DD HH:MM:SS.ffffff` (a parsed, valid time).
    pub fn new(utc: impl Into<String>) -> Clock {
        Clock { utc: utc.into() }
    }

    /// The timestamp, `YYYY-MM-DD HH:MM:SS.ffffff`.
    pub fn timestamp(&self) -> &str {
        &self.utc
    }

    /// The date, `YYYY-MM-DD`.
    pub fn date(&self) -> &str {
        self.utc.get(..10).unwrap_or(&self.utc)
    }

    /// What of the clock a run's rows depend on when its models read
    /// `part`: the date alone, or the whole timestamp (hashed into the run
    /// id; compared by `plan` to say a model is stale).
    pub fn key(&self, part: ClockPart) -> &str {
        match part {
            ClockPart::Date => self.date(),
            ClockPart::Timestamp => self.timestamp(),
        }
    }

    /// The SQL literal a call of the clock function `name` becomes, if it
    /// is one.
    pub fn literal(&self, d: Dialect, name: &str) -> Option<Result<String, String>> {
        let (text, ty) = match ClockPart::of_function(name)? {
            ClockPart::Date => (self.date(), Type::Date),
            ClockPart::Timestamp => (self.timestamp(), Type::Timestamp),
        };
        Some(d.cast(&d.string(text), &ty))
    }
}
