//! Declarative `test` blocks: `test model { expect ... }`.

pub mod e091_test_unknown_model;
pub mod e092_test_unknown_column;
pub mod e094_test_literal_type_mismatch;
pub mod e101_reference_unknown_model;
pub mod e102_reference_unknown_column;
