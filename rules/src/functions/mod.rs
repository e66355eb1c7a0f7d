//! Expressions and function calls: the catalog, arguments, windows.

pub mod e055_expression_not_allowed;
pub mod e059_unknown_function;
pub mod e062_wrong_arity;
pub mod e063_bad_argument;
pub mod e064_misplaced_star;
pub mod e065_window_placement;
pub mod e066_invalid_window_frame;
pub mod e067_ordering_written_twice;
pub mod e071_unknown_date_unit;
pub mod e072_keyword_argument_misuse;
pub mod e073_date_diff_mixed_types;
pub mod e074_invalid_json_key;
pub mod e096_distinct_misuse;
