//! `strata backfill`: a corrected re-run of a past run. Every source the
//! correction does not override reads the old run's frozen input, on the
//! old run's branch (unless told otherwise), with every pin, join check
//! and test; it is recorded as `backfill_of` the old run with its reason,
//! and publishes nothing if a check fails (it is a `run`).

use std::collections::BTreeMap;

use strata_engine::{Failure, Origin};

use crate::content::SourcePolicy;
use crate::session::Session;

use crate::prepare::RunOptions;

/// What to correct and how.
#[derive(Clone, Debug, Default)]
pub struct Backfill {
    /// The run to correct (an id or a unique prefix).
    pub run: String,
    /// Why: recorded with the new run.
    pub reason: String,
    /// Corrected sources (win over the old run's frozen inputs).
    pub sources: Vec<(String, Origin)>,
    /// Only these models (and the models they read); default: the old
    /// run's models.
    pub models: Vec<String>,
    /// Default: the old run's branch.
    pub branch: Option<String>,
    pub stage_only: bool,
}

impl Session<'_> {
    /// The run options of the correction of `b`, from the recorded run: its
    /// frozen inputs for every source not overridden; `policies` say how each
    /// source is frozen (strata.toml's `[sources.NAME]`).
    pub fn backfill_options(
        &self,
        b: &Backfill,
        module_path: &std::path::Path,
        sample_rows: Option<u64>,
        policies: BTreeMap<String, SourcePolicy>,
    ) -> Result<RunOptions, Failure> {
        let wh = self.wh();
        if b.reason.trim().is_empty() {
            return Err(Failure::Usage(
                "--reason must say why the correction is made (it is recorded with the run)".into(),
            ));
        }
        let old = self.reader().find_run(&b.run)?;
        if old.is_rollback() {
            return Err(Failure::Usage(format!(
                "run {} is a rollback, not a build: backfill the run it rolled back to",
                old.run_id
            )));
        }
        let mut sources = b.sources.clone();
        for (source, table) in &old.inputs {
            if sources.iter().any(|(s, _)| s == source) {
                continue;
            }
            if !wh.relation_exists(table)? {
                return Err(Failure::Environment(format!(
                    "the frozen input of source '{source}' of run {} ({table}) is gone (collected by `strata gc`?): give it with --source {source}=TABLE_OR_FILE",
                    old.run_id
                )));
            }
            sources.push((source.clone(), Origin::table(table)));
        }
        Ok(RunOptions {
            module_path: module_path.to_path_buf(),
            models: match b.models.is_empty() {
                true => old.models.clone(),
                false => b.models.clone(),
            },
            pipeline: None,
            named_models_only: false,
            sources,
            branch: b.branch.clone().unwrap_or_else(|| old.branch.clone()),
            stage_only: b.stage_only,
            sample_rows,
            only_stale: false,
            full_refresh: false,
            policies,
            backfill: Some((old.run_id.clone(), b.reason.trim().to_string())),
            // The correction computes what the run would have with the right
            // data: at the run's time.
            clock: old.clock.clone().map(strata_lang::sql::Clock::new),
        })
    }
}
