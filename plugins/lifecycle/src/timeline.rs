//! The warehouse over time, from its run history (`_strata_runs`):
//! `rollback` the live views to an earlier run's snapshots, list the
//! `branches`, and `gc` what no kept run needs.
//!
//! What a view points at is read from the history, not from the view's
//! text: a branch's live view of a model points at the snapshot of the
//! latest published run (or rollback) of that branch that built it, its
//! staged view at the latest run of any kind that built it.

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::{Warehouse, INPUTS, RUNS};
use crate::replay::{self, RunRecord};
use crate::run::{live_view, staged_view};
use crate::Failure;

/// How the history row of a rollback reports it (`rollback to run ID`).
pub(crate) const ROLLBACK: &str = "rollback to run ";

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

/// Repoint the live views of run `prefix`'s models (or of `models` among
/// them) at that run's snapshots, in one transaction, and record it as a run
/// of its own. Refused when a snapshot it needs was collected.
pub fn rollback(
    wh: &Warehouse,
    module: &str,
    prefix: &str,
    models: &[String],
) -> Result<Rollback, Failure> {
    let target = replay::find(wh, prefix)?;
    let chosen: Vec<String> = if models.is_empty() {
        target.snapshots.keys().cloned().collect()
    } else {
        for m in models {
            if !target.snapshots.contains_key(m) {
                let hint =
                    strata_lang::suggest::closest(m, target.snapshots.keys().map(String::as_str))
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
    for m in &chosen {
        let snapshot = &target.snapshots[m];
        if !wh.relation_exists(snapshot)? {
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
    let run_id = crate::run::short_hash(&parts);
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
    in_transaction(wh, || {
        let views: Vec<(String, String)> = repointed
            .iter()
            .map(|(_, view, snapshot)| (wh.ident(view), wh.ident(snapshot)))
            .collect();
        wh.replace_views(&views)?;
        replay::record(wh, &record)
    })?;
    Ok(Rollback {
        to: target.run_id,
        run_id,
        branch: target.branch,
        repointed,
    })
}

/// Run `f` in a transaction: committed if it succeeds, rolled back if not.
/// (On Spark, with no transactions, what `f` did before a failure stays
/// done: the failpoint `before changes` is where nothing is changed yet.)
fn in_transaction(wh: &Warehouse, f: impl FnOnce() -> Result<(), Failure>) -> Result<(), Failure> {
    wh.begin()?;
    crate::run::failpoint("before changes");
    match f() {
        Ok(()) => {
            crate::run::failpoint_before_commit();
            wh.commit()
        }
        Err(e) => {
            wh.rollback();
            Err(e)
        }
    }
}

/// The files of the input store that no frozen input keeps once the
/// inputs in `dropped` are gone: those of dropped inputs, and leftovers of
/// runs that did not finish.
fn unreferenced_files(
    wh: &Warehouse,
    files: &BTreeMap<String, String>,
    dropped: &[Doomed],
) -> Result<Vec<Doomed>, Failure> {
    let Some(store) = wh.file_store() else {
        return Ok(Vec::new());
    };
    let Ok(entries) = std::fs::read_dir(&store) else {
        return Ok(Vec::new()); // no store yet
    };
    let kept: BTreeSet<&str> = files
        .iter()
        .filter(|(t, _)| !dropped.iter().any(|d| &d.table == *t))
        .map(|(_, f)| f.as_str())
        .collect();
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry
            .map_err(|e| Failure::Environment(format!("cannot list {}: {e}", store.display())))?;
        let path = entry.path().to_string_lossy().into_owned();
        if kept.contains(path.as_str()) {
            continue;
        }
        let of = files
            .iter()
            .find(|(_, f)| **f == path)
            .and_then(|(t, _)| dropped.iter().find(|d| &d.table == t))
            .map_or_else(|| "no input".to_string(), |d| d.of.clone());
        out.push(Doomed {
            table: path,
            kind: "file",
            of,
            rows: 0,
            bytes: entry.metadata().ok().map(|m| m.len() as i64),
        });
    }
    out.sort_by(|a, b| a.table.cmp(&b.table));
    Ok(out)
}

/// Which run each view of a branch points at, from the history: `(branch,
/// model)` -> the run, with its position in the history (oldest first).
#[derive(Debug, Default)]
pub(crate) struct Pointers {
    /// The run whose snapshot the live view shows.
    pub live: BTreeMap<(String, String), (usize, RunRecord)>,
    /// The run whose snapshot the staged view shows.
    pub staged: BTreeMap<(String, String), (usize, RunRecord)>,
}

/// What each view shows, from `runs` (oldest first: a later run overwrites
/// an earlier one).
pub(crate) fn pointers(runs: &[RunRecord]) -> Pointers {
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

/// One branch of the warehouse.
#[derive(Debug)]
pub struct Branch {
    pub name: String,
    /// The branch's latest run (id, time).
    pub last_run: (String, String),
    pub runs: usize,
    pub models: Vec<BranchModel>,
}

/// A model of a branch: its views and the runs they show.
#[derive(Debug)]
pub struct BranchModel {
    pub model: String,
    /// `(view, run id)` when the live view exists.
    pub live: Option<(String, String)>,
    /// `(view, run id)` when the staged view exists.
    pub staged: Option<(String, String)>,
}

/// Every branch the history names, with its models and views.
pub fn branches(wh: &Warehouse) -> Result<Vec<Branch>, Failure> {
    let runs = replay::list(wh)?;
    let p = pointers(&runs);
    let mut out: BTreeMap<String, Branch> = BTreeMap::new();
    for r in &runs {
        let b = out.entry(r.branch.clone()).or_insert_with(|| Branch {
            name: r.branch.clone(),
            last_run: Default::default(),
            runs: 0,
            models: Vec::new(),
        });
        b.runs += 1;
        b.last_run = (r.run_id.clone(), r.started_at.clone());
    }
    let models: BTreeSet<&(String, String)> = p.live.keys().chain(p.staged.keys()).collect();
    for key @ (branch, model) in models {
        let view = |name: String, run: Option<&RunRecord>| -> Result<_, Failure> {
            Ok(match run {
                Some(r) if wh.relation_exists(&name)? => Some((name, r.run_id.clone())),
                _ => None,
            })
        };
        let live = view(live_view(model, branch), p.live.get(key).map(|(_, r)| r))?;
        let staged = view(
            staged_view(model, branch),
            p.staged.get(key).map(|(_, r)| r),
        )?;
        if let Some(b) = out.get_mut(branch) {
            b.models.push(BranchModel {
                model: model.clone(),
                live,
                staged,
            });
        }
    }
    Ok(out.into_values().collect())
}

/// What `gc` keeps.
#[derive(Clone, Copy, Debug)]
pub struct Keep {
    /// The last this many runs of each branch.
    pub runs: usize,
    /// Runs started less than this many days ago.
    pub days: Option<u64>,
}

/// A table `gc` drops (or would drop).
#[derive(Debug)]
pub struct Doomed {
    pub table: String,
    /// `snapshot`, `input` (a table, or the view of a stored file), or
    /// `file` (a file of the input store: `table` is its path).
    pub kind: &'static str,
    /// The model or source it holds.
    pub of: String,
    pub rows: i64,
    /// Its size on disk, where the engine tells.
    pub bytes: Option<i64>,
}

/// What `gc` found.
#[derive(Debug)]
pub struct Collection {
    /// Run ids kept, and why (`last N of branch B`, `newer than D days`,
    /// `live view of M`, ...), oldest first.
    pub kept: Vec<(String, String)>,
    pub dropped: Vec<Doomed>,
    /// Whether the tables were dropped (`--apply`), or only listed.
    pub applied: bool,
}

/// Collect the snapshots and frozen inputs that no kept run references.
/// A kept run is one of the last `keep.runs` of its branch, one newer than
/// `keep.days`, or one whose snapshot a live or staged view shows (its
/// inputs are kept so that it can still be replayed). Drops only with
/// `apply`, in one transaction.
pub fn gc(wh: &Warehouse, keep: Keep, apply: bool) -> Result<Collection, Failure> {
    let runs = replay::list(wh)?;
    let mut why: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut by_branch: BTreeMap<&str, Vec<&RunRecord>> = BTreeMap::new();
    for r in &runs {
        by_branch.entry(&r.branch).or_default().push(r);
    }
    for (branch, list) in &by_branch {
        let mut ids: Vec<&str> = Vec::new();
        for r in list.iter().rev() {
            if ids.len() == keep.runs {
                break;
            }
            if !ids.contains(&r.run_id.as_str()) {
                ids.push(&r.run_id);
            }
        }
        let reason = match keep.runs {
            1 => format!("the last run of branch {branch}"),
            n => format!("one of the last {n} runs of branch {branch}"),
        };
        for id in ids {
            why.entry(id.to_string())
                .or_default()
                .insert(reason.clone());
        }
    }
    if let Some(days) = keep.days {
        let recent = wh.rows(&format!(
            "SELECT DISTINCT run_id FROM {} WHERE started_at >= CAST(current_timestamp AS TIMESTAMP) - INTERVAL '{days} days'",
            wh.ident(RUNS)
        ))?;
        for id in recent
            .into_iter()
            .filter_map(|r| r.into_iter().next().flatten())
        {
            why.entry(id)
                .or_default()
                .insert(format!("newer than {days} days"));
        }
    }
    let p = pointers(&runs);
    for ((branch, model), (_, r)) in &p.live {
        why.entry(r.run_id.clone())
            .or_default()
            .insert(format!("shown by {}", live_view(model, branch)));
    }
    for ((branch, model), (_, r)) in &p.staged {
        why.entry(r.run_id.clone())
            .or_default()
            .insert(format!("shown by {}", staged_view(model, branch)));
    }
    let mut needed: BTreeSet<&str> = BTreeSet::new();
    for r in runs.iter().filter(|r| why.contains_key(&r.run_id)) {
        needed.extend(r.snapshots.values().map(String::as_str));
        needed.extend(r.inputs.values().map(String::as_str));
        // Replaying an incremental run starts from the snapshot it merged
        // into.
        needed.extend(r.bases.values().map(String::as_str));
    }
    let mut candidates: BTreeMap<&str, (&'static str, &str)> = BTreeMap::new();
    for r in &runs {
        for (m, t) in &r.snapshots {
            candidates.insert(t, ("snapshot", m));
        }
        for (s, t) in &r.inputs {
            candidates.insert(t, ("input", s));
        }
    }
    // The stored file each frozen input's view reads.
    let files: BTreeMap<String, String> = wh
        .rows(&format!(
            "SELECT table_name, file FROM {} WHERE file IS NOT NULL",
            wh.ident(INPUTS)
        ))?
        .into_iter()
        .filter_map(|r| Some((r.first()?.clone()?, r.get(1)?.clone()?)))
        .collect();
    let mut dropped = Vec::new();
    for (table, (kind, of)) in candidates {
        if needed.contains(table) || !wh.relation_exists(table)? {
            continue;
        }
        let quoted = wh.ident(table);
        dropped.push(Doomed {
            table: table.to_string(),
            kind,
            of: of.to_string(),
            rows: wh.count(&format!("SELECT COUNT(*) FROM {quoted}"))?,
            bytes: wh.relation_bytes(table)?,
        });
    }
    dropped.extend(unreferenced_files(wh, &files, &dropped)?);
    if apply && !dropped.is_empty() {
        in_transaction(wh, || {
            for d in dropped.iter().filter(|d| d.kind != "file") {
                let what = if files.contains_key(&d.table) {
                    "VIEW"
                } else {
                    "TABLE"
                };
                wh.exec(&format!("DROP {what} {}", wh.ident(&d.table)))?;
                // Without row-level deletes (Spark's parquet tables) the
                // row stays: it names a table that no longer exists, which a
                // freeze never reuses (it checks that the table is there).
                if d.kind == "input" && wh.deletes_rows() {
                    wh.exec(&format!(
                        "DELETE FROM {} WHERE table_name = {}",
                        wh.ident(INPUTS),
                        wh.string(&d.table)
                    ))?;
                }
            }
            Ok(())
        })?;
        // Only once no view reads them (a gc killed here leaves files that
        // the next one collects).
        for d in dropped.iter().filter(|d| d.kind == "file") {
            std::fs::remove_file(&d.table)
                .map_err(|e| Failure::Environment(format!("cannot remove {}: {e}", d.table)))?;
        }
    }
    let mut kept: Vec<(String, String)> = Vec::new();
    for r in &runs {
        if let Some(reasons) = why.get(&r.run_id) {
            if !kept.iter().any(|(id, _)| id == &r.run_id) {
                let reasons: Vec<&str> = reasons.iter().map(String::as_str).collect();
                kept.push((r.run_id.clone(), reasons.join("; ")));
            }
        }
    }
    Ok(Collection {
        kept,
        dropped,
        applied: apply,
    })
}
