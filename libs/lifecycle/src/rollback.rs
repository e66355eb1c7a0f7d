//! `strata rollback`: point the live views back at an earlier run's
//! snapshots, in one unit of work, recorded as a run of its own.

use std::collections::BTreeMap;

use strata_engine::Failure;

use crate::failpoint::failpoint;
use crate::naming::{live_view, short_hash};
use crate::session::Session;
use crate::state::history::{RunRecord, ROLLBACK};

/// What a rollback did.
#[derive(Debug)]
pub struct Rollback {
    /// The run rolled back to.
    pub to: String,
    /// The rollback's own run id (recorded in the history).
    pub run_id: String,
    pub branch: String,
    /// `(model, live view, snapshot)`.
    pub repointed: Vec<(String, String, String)>,
}

impl Session<'_> {
    /// Repoint the live views of run `prefix`'s models (or of `models` among
    /// them) at that run's snapshots, in one transaction, and record it as a run
    /// of its own. Refused when a snapshot it needs was collected.
    pub fn rollback_to(
        &self,
        module: &str,
        prefix: &str,
        models: &[String],
    ) -> Result<Rollback, Failure> {
        let wh = self.wh();
        let target = self.reader().find_run(prefix)?;
        let chosen: Vec<String> = if models.is_empty() {
            target.snapshots.keys().cloned().collect()
        } else {
            for m in models {
                if !target.snapshots.contains_key(m) {
                    let hint = strata_lang::suggest::closest(
                        m,
                        target.snapshots.keys().map(String::as_str),
                    )
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
                    return Err(Failure::Usage(format!(
                        "run {} did not build model '{m}'{hint}",
                        target.run_id
                    )));
                }
            }
            models.to_vec()
        };
        let mut gone = Vec::new();
        let known = self.reader().segments()?;
        for m in &chosen {
            let snapshot = &target.snapshots[m];
            if !self.reader().intact(&known, snapshot)? {
                gone.push(format!("{m} ({snapshot})"));
            }
        }
        if !gone.is_empty() {
            return Err(Failure::Environment(format!(
                "cannot roll back to run {}: the snapshot of {} was collected by `strata gc`; nothing was changed",
                target.run_id,
                gone.join(", ")
            )));
        }
        let snapshots: BTreeMap<String, String> = chosen
            .iter()
            .map(|m| (m.clone(), target.snapshots[m].clone()))
            .collect();
        let mut parts = vec!["rollback".to_string(), target.run_id.clone()];
        parts.extend(chosen.iter().cloned());
        let run_id = short_hash(&parts);
        let record = RunRecord {
            run_id: run_id.clone(),
            started_at: String::new(),
            module: module.to_string(),
            branch: target.branch.clone(),
            stage_only: false,
            models: chosen.clone(),
            fingerprints: chosen
                .iter()
                .filter_map(|m| Some((m.clone(), target.fingerprints.get(m)?.clone())))
                .collect(),
            overrides: target.overrides.clone(),
            inputs: target.inputs.clone(),
            snapshots: snapshots.clone(),
            report: format!("{ROLLBACK}{}", target.run_id),
            timings: Default::default(),
            backfill_of: None,
            reason: None,
            // The snapshots shown again were built at the target run's clock.
            clock: target.clock.clone(),
            sampling: target.sampling,
            skipped: Vec::new(),
            bases: chosen
                .iter()
                .filter_map(|m| Some((m.clone(), target.bases.get(m)?.clone())))
                .collect(),
        };
        let repointed: Vec<(String, String, String)> = snapshots
            .iter()
            .map(|(m, snapshot)| (m.clone(), live_view(m, &target.branch), snapshot.clone()))
            .collect();
        self.atomically(|_| {
            failpoint("before changes");
            let views: Vec<(String, String)> = repointed
                .iter()
                .map(|(_, view, snapshot)| (wh.ident(view), wh.ident(snapshot)))
                .collect();
            wh.replace_views(&views)?;
            self.state().record_run(&record)
        })?;
        Ok(Rollback {
            to: target.run_id,
            run_id,
            branch: target.branch,
            repointed,
        })
    }
}
