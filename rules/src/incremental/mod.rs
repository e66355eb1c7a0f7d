//! Incremental models: `incremental merge_strategy: ... merge_keys: [...] cdc_column: ...`.

pub mod e086_unknown_merge_strategy;
pub mod e087_incremental_grouped_model;
pub mod e088_invalid_cdc_column;
pub mod e089_upsert_without_merge_keys;
