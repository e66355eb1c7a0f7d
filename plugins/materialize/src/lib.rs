//! Materialize plugin: runs modules in embedded DuckDB.
