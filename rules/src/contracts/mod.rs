//! Contracts: a model's promised output schema (`model m -> contract C`).

pub mod e010_missing_contract_column;
pub mod e011_contract_type_mismatch;
pub mod e012_contract_nonnull_violated;
pub mod e013_enum_on_non_string;
pub mod e014_strict_model_without_contract;
pub mod e061_unknown_contract;
