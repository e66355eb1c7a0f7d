//! Which run each view shows, read from the history rather than from the
//! views' text: a branch's live view of a model shows the snapshot of the
//! latest published run (or rollback) of that branch that built it, its
//! staged view the latest run of any kind that built it.

use std::collections::BTreeMap;

use super::history::RunRecord;

/// Which run each view of a branch points at, from the history: `(branch,
/// model)` -> the run, with its position in the history (oldest first).
#[derive(Debug, Default)]
pub struct Pointers {
    /// The run whose snapshot the live view shows.
    pub live: BTreeMap<(String, String), (usize, RunRecord)>,
    /// The run whose snapshot the staged view shows.
    pub staged: BTreeMap<(String, String), (usize, RunRecord)>,
}

/// What each view shows, from `runs` (oldest first: a later run overwrites
/// an earlier one).
pub fn pointers(runs: &[RunRecord]) -> Pointers {
    let mut p = Pointers::default();
    for (at, r) in runs.iter().enumerate() {
        for m in r.snapshots.keys() {
            let key = (r.branch.clone(), m.clone());
            if !r.stage_only {
                p.live.insert(key.clone(), (at, r.clone()));
            }
            // A rollback repoints live views only.
            if !r.is_rollback() {
                p.staged.insert(key, (at, r.clone()));
            }
        }
    }
    p
}
