//! Codes `strata diff` reports when comparing two versions of a module.

pub mod e030_breaking_change;
