//! One module per subcommand.

pub mod build;
pub mod check;
pub mod compile;
pub mod completions;
pub mod diff;
pub mod explain;
pub mod fmt;
pub mod grammar;
pub mod graph;
pub mod lint;
pub mod man;
pub mod rules;
