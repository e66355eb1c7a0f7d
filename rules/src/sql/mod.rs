//! Codes of SQL generation: what a warehouse dialect cannot express.

pub mod e070_dialect_cannot_express;
