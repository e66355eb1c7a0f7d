//! How a third party adds a rule to strata, in Rust: this crate declares
//! its code W020 below, as `strata-codes` declares the built-in ones, and
//! documents it with `#[rule(crate::W020)]`, exactly as the built-in rules
//! are documented in `strata-rules` (one file per code, the doc comment as
//! the explanation). `src/main.rs` is a `strata` binary that links it by
//! calling the CLI's library entry point. The rule then takes part in
//! `check`, and `rules` and `explain W020` know it.
//!
//! A rule crate depends on `strata-codes` (to declare its codes),
//! `strata-lang` (the typed IR it reads), `strata-rules` and
//! `strata-rules-macros` (the registry and `#[rule]`) and `inventory` (which
//! the macro registers through). Its codes must not collide with the
//! built-in ones (tests/tidy/ checks this crate's).

use strata_codes::{Code, Level, Phase};

/// `join-could-promise-many-to-one`: see
/// [`w020_join_could_promise_many_to_one`].
pub const W020: Code = Code::warning(
    "W020",
    "join-could-promise-many-to-one",
    Phase::Lint,
    Level::Warn,
);

pub mod w020_join_could_promise_many_to_one;

#[cfg(test)]
mod tests;
