//! The import's fan-out audit is `strata audit`'s: every model's SQL, as the
//! import reads it (dbt's compiled SQL, or the Jinja rendered), audited
//! once; a translated join's promise is the verdict on the same join (the
//! same line and column of the same SQL), and the report lists every join
//! of every model, converted or not.

use super::{Outcome, State};
use crate::audit::{self, Audit, Verdict};
use crate::plan::{ModelPlan, Promise, Step};
use crate::project::ModelFile;
use crate::report::{JoinEntry, Status};

impl State<'_> {
    /// Audit every model that is not disabled.
    pub(super) fn audit_models(&mut self) {
        let project = self.project;
        let sql = project
            .models
            .iter()
            .enumerate()
            .map(|(i, m)| {
                let o = &self.outcomes[i];
                if o.status == Some(Status::Disabled) {
                    return Err("disabled in its config".to_string());
                }
                match &self.sql_of[i] {
                    Some(text) => Ok(text.clone()),
                    None if m.python => Err("a Python model: no SQL to read".to_string()),
                    None => Err(o.reasons.first().map_or_else(
                        || "no SQL".to_string(),
                        |r| format!("its Jinja does not render here: {}", r.message),
                    )),
                }
            })
            .collect();
        let from_manifest = self.report.compiled_from_manifest;
        self.audit = Some(audit::audit_sql(
            project,
            self.manifest.as_ref(),
            sql,
            from_manifest,
        ));
    }
}

/// The promise of each join of `plans` (the translation of `model`): the
/// audit's `many_to_one` or `one_to_one`, on a join strata can check.
pub(super) fn promise(plans: &mut [ModelPlan], audit: &Audit, model: &str) {
    for p in plans {
        for step in &mut p.steps {
            let Step::Join(j) = step else { continue };
            let verdict = audit
                .joins
                .iter()
                .find(|a| a.model == model && a.span == (j.line, j.column))
                .map(|a| a.verdict);
            j.promise = match verdict {
                _ if !j.kind.can_promise() || j.keys.is_none() => None,
                Some(Verdict::ManyToOne) => Some(Promise::ManyToOne),
                Some(Verdict::OneToOne) => Some(Promise::OneToOne),
                _ => None,
            };
        }
    }
}

/// The report's joins: the audit's, in the order of the models and their
/// SQL, each with the strata join it became.
pub(super) fn entries(audit: &Audit, models: &[ModelFile], outcomes: &[Outcome]) -> Vec<JoinEntry> {
    let mut out = Vec::new();
    for (m, o) in models.iter().zip(outcomes) {
        let mut joins: Vec<&audit::Join> =
            audit.joins.iter().filter(|j| j.model == m.name).collect();
        joins.sort_by_key(|j| j.span);
        for j in joins {
            let strata = o.plans.iter().find_map(|p| {
                p.joins()
                    .find(|s| (s.line, s.column) == j.span)
                    .map(|s| (p.name.clone(), s))
            });
            out.push(JoinEntry {
                model: m.name.clone(),
                strata_model: strata.as_ref().map(|(n, _)| n.clone()),
                strata_right: strata.as_ref().map(|(_, s)| s.input.clone()),
                kind: j.kind.clone(),
                left: j.from.clone(),
                right: j.joined.clone(),
                keys: j.keys.iter().map(|k| k.right.clone()).collect(),
                left_keys: j
                    .keys
                    .iter()
                    .map(|k| k.left.clone().unwrap_or_default())
                    .collect(),
                verdict: j.verdict,
                promise: strata
                    .as_ref()
                    .and_then(|(_, s)| s.promise)
                    .map(|p| p.as_str().to_string()),
                evidence: j.evidence.clone(),
                double_counts: j
                    .double_counts
                    .iter()
                    .map(|d| format!("{} at {}", d.text, d.at.line_text()))
                    .collect(),
                grain: j.grain.clone(),
                file: j.at.file.clone(),
                line: j.at.line,
            });
        }
    }
    out
}
