//! Lints (`W0xx`, `strata lint`): model hygiene that is not an error. Each
//! is a check over the typed IR with `phase = lint` and a default level;
//! levels and `# strata: allow(...)` suppressions are applied by
//! [`crate::lint`]. The join lints live with the joins (`crate::join`).

pub mod w001_model_without_contract;
pub mod w002_model_without_owner;
pub mod w003_model_without_explicit_outputs;
pub mod w004_classified_column_not_protected;
pub mod w005_unused_model;
pub mod w006_duplicate_model;
pub mod w090_unused_suppression;
pub mod w091_invalid_suppression;
