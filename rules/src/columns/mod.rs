//! Column references: bare and qualified names, `expand`.

pub mod e040_unknown_column;
pub mod e041_unknown_qualifier;
pub mod e075_invalid_expand;
