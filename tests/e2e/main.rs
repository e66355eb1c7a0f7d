//! End-to-end tests: the `strata` binary against real warehouses — a DuckDB
//! file, a schema of a throw-away PostgreSQL server, a database of a local
//! Spark Connect server — with data written by the tests. What a user would
//! see: exit codes, report lines, and what the published views return
//! afterwards. Every test runs on DuckDB and PostgreSQL (`<test>::duckdb`,
//! `<test>::postgres`); the lifecycle's core runs on Spark too
//! (`<test>::spark`: the seed, keys, upstream models and overrides, test and
//! replay, a second writer, a killed run, the shop example, rollback / gc /
//! branches, plan and --only-stale, incremental models), where each
//! statement takes a distributed job (0.3 to 3 s here) and the whole list
//! would take most of an hour; Spark behind TLS goes through nginx in front
//! of the server (`support/spark.rs`). The tests name the warehouse `wh.duckdb` (or
//! `:memory:`) and `Wh::strata` points that argument at the engine's
//! warehouse.
//!
//! One file per verb (`run`, `cardinality`, `test_replay`, `timeline`,
//! `plan`, `incremental`; `delta`: freezes and gc as the warehouse grows,
//! `delta_history`: over an older warehouse, killed midway;
//! `history`: timings, verify, status, profile, backfill, metrics;
//! `lineage_events`: OpenLineage events)
//! and one for what differs by engine (`engines`),
//! over what they share (`support`): a test is `<verb>::<test>::<engine>`.

#[path = "../support/pg.rs"]
mod pg;
#[path = "../support/spark.rs"]
mod spark;
#[path = "../support/tools.rs"]
#[allow(dead_code)]
mod tools;

#[macro_use]
mod support;

mod cardinality;
mod delta;
mod delta_history;
mod engines;
mod fixtures;
mod generated;
mod history;
mod incremental;
mod lineage_events;
mod plan;
mod run;
mod schemas;
mod test_replay;
mod timeline;
