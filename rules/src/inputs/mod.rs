//! Declarations and inputs: sources, models read by name, imports.

pub mod e020_unknown_input;
pub mod e021_source_without_columns;
pub mod e022_import_not_found;
pub mod e025_duplicate_declaration;
pub mod e026_invalid_source_table;
pub mod e120_generated_input_misuse;
pub mod f001_model_cycle;
pub mod f045_circular_import;
