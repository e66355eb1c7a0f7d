//! `strata import-dbt`: a dbt project as strata modules — its models
//! translated (helpers for CTEs), its tests as contract pins, tests and
//! models of failing rows, a `seeds` pipeline that runs on its seed files,
//! and a fan-out audit of every join (the promise written and the
//! evidence for it, or "no evidence: this join can repeat rows").
//!
//! The library does the work ([`import`], [`write`]); `command` parses the
//! arguments and prints. Files with one job each: reading the project
//! (`project`, `properties`, `yaml`, `seeds`, `catalog`), the warehouse its
//! profile names (`profile`: sources' columns, the `dbt` target), rendering its
//! Jinja (`jinja`), SQL to strata (`sql`, `plan`), tests to promises
//! (`promises`), checking (`check`), the report (`report`); `import` runs
//! them in order, one step a file. `audit` is `strata audit` and the
//! import's fan-out audit: one analysis of every join, whose verdicts are
//! the join promises the import writes.

pub mod audit;
pub mod catalog;
pub mod check;
mod command;
pub mod error;
pub mod import;
pub mod init;
pub mod jinja;
pub mod names;
mod packages;
pub mod plan;
pub mod profile;
pub mod project;
pub mod promises;
pub mod properties;
pub mod report;
pub mod seeds;
pub mod sql;
pub mod types;
pub mod write;
pub mod yaml;

pub use error::Failure;
pub use import::{import, Import, Options, PIPELINE};
pub use report::Report;
