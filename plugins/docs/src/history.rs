//! Each model's last run, from the warehouse's run history (read only).

use std::collections::BTreeMap;

use strata_lifecycle::state::RunRecord;
use strata_lifecycle::{Failure, StateReader};

/// The last run that built a model.
#[derive(Debug)]
pub struct LastRun {
    pub run_id: String,
    pub started_at: String,
    pub branch: String,
    pub stage_only: bool,
    /// The snapshot the run built, and its rows (`None` once `gc` dropped it).
    pub snapshot: String,
    pub rows: Option<i64>,
    /// The run's report lines about this model: `(status, text)`, status
    /// `ok`, `sampled` or `note`.
    pub checks: Vec<(&'static str, String)>,
}

/// The last run of each of `models`: the latest build on branch `main`,
/// else the latest on any branch (rollbacks build nothing). A warehouse
/// without a run history has none.
pub fn last_runs(
    state: &StateReader,
    models: &[&str],
) -> Result<BTreeMap<String, LastRun>, Failure> {
    let mut out = BTreeMap::new();
    if !state.has_history()? {
        return Ok(out);
    }
    let runs = state.runs()?;
    let builds: Vec<&RunRecord> = runs.iter().rev().filter(|r| !r.is_rollback()).collect();
    for &m in models {
        let built = |r: &&&RunRecord| r.snapshots.contains_key(m);
        let Some(run) = builds
            .iter()
            .filter(|r| r.branch == "main")
            .find(built)
            .or_else(|| builds.iter().find(built))
        else {
            continue;
        };
        let snapshot = run.snapshots.get(m).cloned().unwrap_or_default();
        let rows = state.snapshot_rows(&snapshot)?;
        let checks = report_lines(&run.report, m, &snapshot);
        out.insert(
            m.to_string(),
            LastRun {
                run_id: run.run_id.clone(),
                started_at: run.started_at.clone(),
                branch: run.branch.clone(),
                stage_only: run.stage_only,
                snapshot,
                rows,
                checks,
            },
        );
    }
    Ok(out)
}

/// The lines of a run's report about `model`: its pins (`m.col: ...`), its
/// join checks (`m left c: ...`), its tests (`test m: ...`), and a reused
/// or merged snapshot.
fn report_lines(report: &str, model: &str, snapshot: &str) -> Vec<(&'static str, String)> {
    let about = |subject: &str| {
        subject
            .strip_prefix("test ")
            .unwrap_or(subject)
            .strip_prefix(model)
            .is_some_and(|rest| rest.starts_with(['.', ' ', ':']))
    };
    let mut out = Vec::new();
    for line in report.lines() {
        let t = line.trim();
        if let Some(subject) = t.strip_prefix("ok  ") {
            if about(subject) {
                out.push(("ok", subject.to_string()));
            }
        } else if let Some(rest) = t.strip_prefix("sampled (") {
            if let Some((_, subject)) = rest.split_once(")  ") {
                if about(subject) {
                    out.push(("sampled", t.to_string()));
                }
            }
        } else if t.contains(snapshot) && !snapshot.is_empty() {
            out.push(("note", t.to_string()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_models_lines_of_the_report() {
        let report = "  ok  a.id: nonnull\n  ok  ab.id: nonnull\n  ok  a left c: many_to_one (c unique on id)\n  sampled (10 of 99 rows)  a inner d: many_to_one (d unique on k, in the sample)\n  ok  test a: row_count > 0 (3)\n  ok  test ab: row_count > 0 (3)\n  reused snap_1_a: an earlier run with this run's id built it";
        let lines = report_lines(report, "a", "snap_1_a");
        let statuses: Vec<&str> = lines.iter().map(|(s, _)| *s).collect();
        assert_eq!(statuses, ["ok", "ok", "sampled", "ok", "note"], "{lines:?}");
        assert_eq!(lines[0].1, "a.id: nonnull");
    }
}
