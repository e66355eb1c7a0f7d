//! What changed between two versions of a module, column by column, and
//! what downstream each change reaches (its blast radius), followed through
//! the old version's graph: the consumers that relied on what was there.
//!
//! A change is **breaking** (E030) when it can invalidate a consumer:
//!
//! * a column that a downstream model, contract or test reads (or a
//!   `protected` one) is removed, renamed or retyped (only widening a
//!   decimal keeps it compatible);
//! * a column that a contract or test reads (or a protected one) becomes
//!   nullable;
//! * a model or source that something reads is removed or renamed;
//! * a promise is weakened: a join's `expect` dropped or relaxed from
//!   `one_to_one` to `many_to_one`, a model no longer promising its
//!   contract, a contract losing a column, its `nonnull`, `unique` or
//!   `primary_key`, gaining enum values or changing a type, or removed.
//!
//! Everything else (added models and columns, a changed definition, a
//! changed join kind, a strengthened promise) is reported with its blast
//! radius but does not fail the gate.

mod change;
mod columns;
mod models;
mod nodes;
mod pair;
mod report;

pub use change::{describe_downstream, Change, Downstream, Kind};
pub use pair::{Pair, Version};
