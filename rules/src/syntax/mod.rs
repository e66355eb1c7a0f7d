//! Codes about the text itself: parse errors and constructs not supported yet.

pub mod e060_unsupported_construct;
pub mod parse_error;
