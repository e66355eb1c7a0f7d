//! Analysis over a checked strata module, as a library: what the `strata`
//! commands and the language server compute from a module beyond checking
//! it, in plain Rust values (no protocol, no rendering).
//!
//! * [`graph`]: the module as a graph of sources, models, contracts and
//!   tests, with column lineage and every column read (`strata graph`,
//!   `strata docs`, `strata diff`, the language server);
//! * [`diff`]: what changed between two versions and what downstream it
//!   reaches, breaking changes as E030 (`strata diff`);
//! * [`lineage`]: one column's lineage downstream or upstream, and the
//!   E030 of changing a source column (`strata lineage`, `strata
//!   lineage-diff --change`);
//! * [`lints`]: lint levels from `strata.toml` and level settings, and the
//!   lints added to a checked module (`strata lint`, `strata check
//!   --lints`, the language server);
//! * [`compile`]: each model's view and the join cardinality check queries
//!   for a dialect (`strata compile`, `strata docs`, the language server);
//! * [`profile`]: the time of each compile phase and of each model's SQL
//!   (`strata profile`);
//! * [`ide`]: the editor's queries over a document's module (hover,
//!   definition, references, completion, quick fixes, symbols, rename,
//!   compiled SQL), which `strata lsp` translates to the protocol.

pub mod compile;
pub mod diff;
pub mod graph;
pub mod ide;
pub mod lineage;
pub mod lints;
pub mod profile;
