//! `strata gc`: list (and with `--apply` drop) the snapshots and frozen
//! inputs that no kept run needs, and the stored files no frozen input
//! reads.

use std::collections::{BTreeMap, BTreeSet};

use strata_engine::{Failure, Warehouse};

use crate::failpoint::failpoint;
use crate::naming::{live_view, staged_view};
use crate::state::{frozen, history, pointers, RunRecord};
use crate::work::atomically;

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
    let runs = history::list(wh)?;
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
        for id in history::started_within(wh, days)? {
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
    let files = frozen::stored_files(wh)?;
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
        atomically(wh, |_| {
            failpoint("before changes");
            for d in dropped.iter().filter(|d| d.kind != "file") {
                let what = if files.contains_key(&d.table) {
                    "VIEW"
                } else {
                    "TABLE"
                };
                wh.exec(&format!("DROP {what} {}", wh.ident(&d.table)))?;
                if d.kind == "input" {
                    frozen::forget(wh, &d.table)?;
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

/// The files of the input store that no frozen input keeps once the
/// inputs in `dropped` are gone: those of dropped inputs, and leftovers of
/// runs that did not finish.
fn unreferenced_files(
    wh: &Warehouse,
    files: &BTreeMap<String, String>,
    dropped: &[Doomed],
) -> Result<Vec<Doomed>, Failure> {
    let Some(store) = wh.capabilities().file_store else {
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
