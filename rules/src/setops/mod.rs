//! Set operations (`union`, `intersect`, `except`) and `dedup`.

pub mod e076_setop_structure;
pub mod e077_setop_misaligned;
