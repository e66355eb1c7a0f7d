//! The materialize plugin: the warehouse commands of `strata` — `run`,
//! `test`, `plan`, `replay`, `backfill`, `rollback`, `branches`, `gc`,
//! `status` (and `dashboard`), `profile`. Each verb's arguments are a
//! `strata_plugin::Verb` (its name, place and about, and what running it
//! does), registered in its own file through `inventory` with
//! `PluginCommand::of` (the CLI has no list of them). Each calls the
//! lifecycle (`strata-lifecycle`, on the engines of `strata-engine`) and
//! renders what it did.

pub mod args;
mod backfill;
mod branches;
mod fixtures;
mod gc;
mod metrics;
mod openlineage;
mod plan;
mod profile;
mod replay;
mod report;
mod rollback;
mod run;
mod status;
