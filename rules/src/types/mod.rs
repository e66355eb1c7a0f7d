//! Types of expressions: comparisons, logic, arithmetic, branches, type names.

pub mod e051_cannot_compare;
pub mod e052_logic_on_non_bool;
pub mod e053_unsupported_operation;
pub mod e058_branch_type_mismatch;
pub mod e078_unknown_type;
pub mod e090_condition_not_bool;
