//! The warehouse lifecycle of strata: run, test, plan, replay, rollback,
//! branches, gc and incremental merges of checked modules, on any engine
//! of `strata-engine`, with contract pins and join cardinality checks that
//! abort before anything is published.
//!
//! The layers, each importing only those above it:
//!
//! * [`state`]: the `_strata_*` bookkeeping tables (schema and migrations,
//!   the run history, frozen inputs, which run each view shows), and
//!   [`naming`] (views, snapshots, run ids), [`failpoint`] and [`work`]
//!   (a unit of work: a transaction, or undone by hand where the engine has
//!   none);
//! * [`inputs`] (where each source reads from), [`content`] (content
//!   hashes, how strata.toml says to freeze a source), [`delta`] (freezing
//!   only the rows added since the last freeze), [`freeze`] (each source's
//!   freeze for a run),
//!   [`checks`] (pins, declarative tests), [`cardinality`] (join checks),
//!   [`registry`] (the checks run after each model), [`select`],
//!   [`timing`] (what each model and check cost);
//! * [`prepare`] (options, models, sources, content hashes settled before
//!   anything runs), [`build`] (one model and its checks), [`incremental`];
//! * the verbs: [`run`], [`test`] (and [`fixtures`]: fixture tests on an
//!   in-memory database), [`plan`] (what a run would rebuild),
//!   [`backfill`] (a corrected re-run of a past run), [`replay`] (and
//!   [`verify`]: today's fingerprints against a run's),
//!   [`mod@rollback`], [`branches`], [`gc`].
//!
//! Its commands are registered by the `strata-materialize` plugin.

pub mod backfill;
pub mod branches;
pub mod build;
pub mod cardinality;
pub mod checks;
pub mod clock;
pub mod content;
pub mod delta;
pub mod failpoint;
pub mod fixtures;
pub mod freeze;
pub mod gc;
pub mod incremental;
pub mod inputs;
pub mod naming;
pub mod plan;
pub mod prepare;
pub mod registry;
pub mod replay;
pub mod rollback;
pub mod run;
pub mod select;
pub mod state;
pub mod test;
pub mod timing;
pub mod verify;
pub mod work;

pub use build::RunReport;
pub use cardinality::{Sampling, Summary as CardinalitySummary};
pub use prepare::RunOptions;
pub use run::run;
pub use strata_engine::{redact, DataFailure, Engine, Failure, Origin, Target, Warehouse};
pub use strata_project::{NoProgress, Progress};
pub use test::test;
