//! The run history, `_strata_runs`: one row per run (or rollback), read
//! and written here only.

use std::collections::BTreeMap;

use strata_engine::Failure;

use super::schema::{run_columns, RUNS};
use super::{State, StateReader};
use crate::cardinality::Sampling;
use crate::timing::Timings;

/// How the history row of a rollback reports it (`rollback to run ID`).
pub const ROLLBACK: &str = "rollback to run ";

/// One recorded run.
#[derive(Clone, Debug, Default)]
pub struct RunRecord {
    pub run_id: String,
    pub started_at: String,
    pub module: String,
    pub branch: String,
    pub stage_only: bool,
    pub models: Vec<String>,
    pub fingerprints: BTreeMap<String, String>,
    pub overrides: BTreeMap<String, String>,
    /// Source -> frozen input table.
    pub inputs: BTreeMap<String, String>,
    /// Model -> snapshot table.
    pub snapshots: BTreeMap<String, String>,
    pub report: String,
    /// The bound and salt of the run's sampled cardinality checks; `None`
    /// when they were exact.
    pub sampling: Option<Sampling>,
    /// Selected models `--only-stale` found fresh and did not rebuild.
    pub skipped: Vec<String>,
    /// Incremental model -> the previous snapshot its new rows were merged
    /// into (a model built in full is not in it).
    pub bases: BTreeMap<String, String>,
    /// What each model cost (empty for a rollback, or a run recorded by a
    /// strata from before timings).
    pub timings: Timings,
    /// `strata backfill`: the run this one corrects.
    pub backfill_of: Option<String>,
    /// `strata backfill --reason`.
    pub reason: Option<String>,
    /// The clock the run's models read (`current_date()`, ...), UTC
    /// `YYYY-MM-DD HH:MM:SS.ffffff`; `None` when none read it.
    pub clock: Option<String>,
}

impl RunRecord {
    /// Whether this row records a `strata rollback` (not a build).
    pub fn is_rollback(&self) -> bool {
        self.report.starts_with(ROLLBACK)
    }
}

/// `{"rows": N, "salt": "hex"}` as a run records it.
fn parse_sampling(s: &Option<String>) -> Option<Sampling> {
    let v: serde_json::Value = serde_json::from_str(s.as_deref()?).ok()?;
    Some(Sampling {
        rows: v["rows"].as_u64()?,
        salt: Sampling::parse_salt(v["salt"].as_str()?)?,
    })
}

fn parse<T: serde::de::DeserializeOwned + Default>(s: &Option<String>) -> T {
    s.as_deref()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default()
}

impl StateReader<'_> {
    /// The rows of a run's snapshot, `None` once `gc` dropped it.
    pub fn snapshot_rows(&self, snapshot: &str) -> Result<Option<i64>, Failure> {
        let wh = self.wh();
        if !wh.relation_exists(snapshot)? {
            return Ok(None);
        }
        Ok(Some(wh.count(&format!(
            "SELECT COUNT(*) FROM {}",
            wh.ident(snapshot)
        ))?))
    }

    /// Whether the warehouse has a run history at all (one opened read-only
    /// before any run has none).
    pub fn has_history(&self) -> Result<bool, Failure> {
        let wh = self.wh();
        wh.relation_exists(RUNS)
    }

    /// Every recorded run, oldest first.
    pub fn runs(&self) -> Result<Vec<RunRecord>, Failure> {
        let wh = self.wh();
        let rows = wh.rows(&format!(
            "SELECT run_id, {}, module, branch, {}, models, fingerprints, overrides, inputs, snapshots, report, sampling, skipped, bases, timings, backfill_of, reason, clock FROM {} ORDER BY started_at, run_id",
            wh.text("started_at"),
            wh.text("stage_only"),
            wh.ident(RUNS)
        ))?;
        Ok(rows
            .into_iter()
            .map(|r| {
                let cell = |i: usize| r.get(i).cloned().flatten().unwrap_or_default();
                RunRecord {
                    run_id: cell(0),
                    started_at: cell(1),
                    module: cell(2),
                    branch: cell(3),
                    stage_only: cell(4) == "true",
                    models: parse(&r.get(5).cloned().flatten()),
                    fingerprints: parse(&r.get(6).cloned().flatten()),
                    overrides: parse(&r.get(7).cloned().flatten()),
                    inputs: parse(&r.get(8).cloned().flatten()),
                    snapshots: parse(&r.get(9).cloned().flatten()),
                    report: cell(10),
                    sampling: parse_sampling(&r.get(11).cloned().flatten()),
                    skipped: parse(&r.get(12).cloned().flatten()),
                    bases: parse(&r.get(13).cloned().flatten()),
                    timings: parse(&r.get(14).cloned().flatten()),
                    backfill_of: r.get(15).cloned().flatten(),
                    reason: r.get(16).cloned().flatten(),
                    clock: r.get(17).cloned().flatten(),
                }
            })
            .collect())
    }

    /// The ids of the runs started less than `days` days ago (by the
    /// warehouse's clock).
    pub fn runs_started_within(&self, days: u64) -> Result<Vec<String>, Failure> {
        let wh = self.wh();
        Ok(wh
            .rows(&format!(
                "SELECT DISTINCT run_id FROM {} WHERE started_at >= CAST(current_timestamp AS TIMESTAMP) - INTERVAL '{days} days'",
                wh.ident(RUNS)
            ))?
            .into_iter()
            .filter_map(|r| r.into_iter().next().flatten())
            .collect())
    }

    /// The most recent run whose id starts with `prefix`.
    pub fn find_run(&self, prefix: &str) -> Result<RunRecord, Failure> {
        let runs = self.runs()?;
        let matching: Vec<&RunRecord> = runs
            .iter()
            .filter(|r| r.run_id.starts_with(prefix))
            .collect();
        let mut ids: Vec<&str> = Vec::new();
        for r in &matching {
            if !ids.contains(&r.run_id.as_str()) {
                ids.push(&r.run_id);
            }
        }
        match ids.len() {
            0 => Err(Failure::Usage(format!(
                "no recorded run matches '{prefix}' (strata replay FILE lists the runs)"
            ))),
            1 => Ok(matching.last().map(|r| (*r).clone()).unwrap_or_default()),
            _ => Err(Failure::Usage(format!(
                "run id prefix '{prefix}' is ambiguous: {}",
                ids.join(", ")
            ))),
        }
    }
}

impl State<'_> {
    /// Append `r` to the run history (its `started_at` is the current time).
    pub fn record_run(&self, r: &RunRecord) -> Result<(), Failure> {
        let wh = self.wh();
        let json = |v: serde_json::Value| wh.string(&v.to_string());
        let sampling = match r.sampling {
            Some(s) => json(serde_json::json!({"rows": s.rows, "salt": s.salt_hex()})),
            None => "NULL".to_string(),
        };
        let skipped = match r.skipped.is_empty() {
            true => "NULL".to_string(),
            false => json(serde_json::json!(r.skipped)),
        };
        let bases = match r.bases.is_empty() {
            true => "NULL".to_string(),
            false => json(serde_json::json!(r.bases)),
        };
        let timings = match r.timings.models.is_empty() {
            true => "NULL".to_string(),
            false => json(serde_json::json!(r.timings)),
        };
        let text = |v: &Option<String>| v.as_deref().map_or("NULL".to_string(), |t| wh.string(t));
        let (backfill_of, reason, clock) = (text(&r.backfill_of), text(&r.reason), text(&r.clock));
        wh.exec(&format!(
            "INSERT INTO {} ({}) VALUES ({}, current_timestamp, {}, {}, {}, {}, {}, {}, {}, {}, {}, {sampling}, {skipped}, {bases}, {timings}, {backfill_of}, {reason}, {clock})",
            wh.ident(RUNS),
            run_columns(),
            wh.string(&r.run_id),
            wh.string(&r.module),
            wh.string(&r.branch),
            r.stage_only,
            json(serde_json::json!(r.models)),
            json(serde_json::json!(r.fingerprints)),
            json(serde_json::json!(r.overrides)),
            json(serde_json::json!(r.inputs)),
            json(serde_json::json!(r.snapshots)),
            wh.string(&r.report),
        ))
    }
}
