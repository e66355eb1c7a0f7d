//! Joins and their cardinality annotations.

pub mod e079_join_cardinality;
