//! `test` blocks: declarative checks on materialized data
//! (`test model { expect ... }`) and fixture tests (`given` rows).

pub mod e091_test_unknown_model;
pub mod e092_test_unknown_column;
pub mod e094_test_literal_type_mismatch;
pub mod e101_reference_unknown_model;
pub mod e102_reference_unknown_column;
pub mod e110_fixture_input_not_read;
pub mod e111_fixture_input_missing;
pub mod e112_fixture_unknown_column;
pub mod e113_fixture_value_mismatch;
pub mod e114_fixture_row_width;
pub mod e115_test_check_misplaced;
