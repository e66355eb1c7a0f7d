//! How a third party adds a rule to strata, in Rust: this crate declares
//! W020 with `#[rule]`, exactly as the built-in rules are declared in
//! `strata-rules` (one file per code, the doc comment as the explanation),
//! and `src/main.rs` is a `strata` binary that links it by calling the CLI's
//! library entry point. The rule then takes part in `check`, and `rules` and
//! `explain W020` know it.
//!
//! A rule crate depends on `strata-lang` (the typed IR it reads),
//! `strata-rules` and `strata-rules-macros` (the registry and `#[rule]`) and
//! `inventory` (which the macro registers through). Its codes must not
//! collide with the built-in ones (tests/tidy.rs checks this crate's).

pub mod w020_join_could_promise_many_to_one;

#[cfg(test)]
mod tests;
