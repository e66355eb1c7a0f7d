//! The warehouse lifecycle of strata: run, test, plan, replay, rollback,
//! branches, gc and incremental merges of checked modules, on any engine
//! of `strata-engine`, with contract pins and join cardinality checks that
//! abort before anything is published.
//!
//! A verb opens a [`Session`] (the warehouse, its [`State`], the progress)
//! and its steps are the session's methods, or those of the unit of work
//! the session opens; the bookkeeping tables are one [`State`], with a
//! read-only face, [`StateReader`], for the verbs that only read.
//!
//! The layers, from the bookkeeping up to the verbs (not strict: the run
//! history in [`state`] records a run's [`timing`] and [`cardinality`]
//! sampling, and `run` asks [`plan`] which models are stale). Only what
//! its callers use is public: ten modules, and the types re-exported here;
//! the steps of a run (`build`, `freeze`, `delta`, `work`, ...) are the
//! crate's own.
//!
//! * [`state`]: the `_strata_*` bookkeeping tables (schema and migrations,
//!   the run history, frozen inputs, which run each view shows), and
//!   `naming` (views, snapshots, run ids), `failpoint`, `session` and
//!   `work` (a unit of work: a transaction, or undone by hand where the
//!   engine has none);
//! * [`inputs`] (where each source reads from), `content` (content
//!   hashes, how strata.toml says to freeze a source), `delta` (freezing
//!   only the rows added since the last freeze), `freeze` (each source's
//!   freeze for a run),
//!   `checks` (pins, declarative tests), [`cardinality`] (join checks),
//!   [`registry`] (the checks run after each model), `select`,
//!   [`timing`] (what each model and check cost);
//! * `prepare` (options, models, sources, content hashes settled before
//!   anything runs), `build` (one model and its checks), `incremental`;
//! * the verbs, methods of [`Session`] (of [`StateReader`] for
//!   `branches`): `run`, `test` (and [`fixtures`]: fixture tests on an
//!   in-memory database), [`plan`] (what a run would rebuild),
//!   [`backfill`] (a corrected re-run of a past run), [`replay`] (and
//!   `verify`: today's fingerprints against a run's), `rollback`,
//!   `branches`, [`gc`].
//!
//! Its commands are registered by the `strata-materialize` plugin.

pub mod backfill;
mod branches;
mod build;
pub mod cardinality;
mod checks;
mod clock;
mod content;
mod delta;
mod failpoint;
pub mod fixtures;
mod freeze;
pub mod gc;
mod incremental;
pub mod inputs;
mod naming;
pub mod plan;
mod prepare;
pub mod registry;
pub mod replay;
mod rollback;
mod run;
mod select;
mod session;
pub mod state;
mod test;
pub mod timing;
mod verify;
mod work;

pub use branches::{Branch, BranchModel};
pub use build::RunReport;
pub use cardinality::{Sampling, Summary as CardinalitySummary};
pub use clock::parse as parse_clock;
pub use content::SourcePolicy;
pub use naming::live_view;
pub use prepare::RunOptions;
pub use rollback::Rollback;
pub use session::Session;
pub use state::{State, StateReader};
pub use strata_engine::{
    duckdb_file, redact, DataFailure, Engine, Failure, Origin, Target, Warehouse,
};
pub use strata_project::{NoProgress, Progress};
pub use verify::{verify, Verification};
