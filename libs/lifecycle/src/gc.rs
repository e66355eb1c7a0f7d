//! `strata gc`: list (and with `--apply` drop) the snapshots, frozen
//! inputs and segments that no kept run needs, and the stored files no
//! frozen input reads; say what the warehouse takes and what each kept run
//! costs; and give the space back where dropping does not (`--compact`, or
//! past a threshold: DuckDB rewrites its file).
//!
//! A relation stored as segments (a delta freeze, an `append` model's
//! snapshot) is a view over tables it shares with earlier and later ones:
//! a segment is dropped only when no kept run reads it.

use std::collections::{BTreeMap, BTreeSet};

use strata_engine::{Compaction, Failure, Size};

use crate::failpoint::failpoint;
use crate::naming::{live_view, staged_view};
use crate::session::Session;
use crate::state::frozen::How;
use crate::state::segments::Segment;
use crate::state::{pointers, RunRecord};

/// What `gc` keeps.
#[derive(Clone, Copy, Debug)]
pub struct Keep {
    /// The last this many runs of each branch.
    pub runs: usize,
    /// Runs started less than this many days ago.
    pub days: Option<u64>,
}

/// Whether `gc` gives back the space dropped tables leave inside the
/// warehouse ([`strata_engine::Storage::compact`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Compact {
    /// Never.
    No,
    /// Now (`--compact`), whatever is free.
    Yes,
    /// After `--apply`, when more than this fraction of the warehouse is
    /// free inside it (and at least [`AUTO_COMPACT_MIN_BYTES`]).
    WhenFree(f64),
}

/// Less free space than this is not worth rewriting the warehouse for
/// (an automatic compaction only).
pub const AUTO_COMPACT_MIN_BYTES: i64 = 64 << 20;

/// A table `gc` drops (or would drop).
#[derive(Debug)]
pub struct Doomed {
    pub table: String,
    /// `snapshot`, `input` (a table, or a view: of a stored file, over
    /// segments, of a source read in place), `segment` (a table a
    /// relation stored as segments read), or `file` (a file of the input
    /// store: `table` is its path).
    pub kind: &'static str,
    /// The model or source it holds.
    pub of: String,
    pub rows: i64,
    /// Its size on disk, where the engine tells.
    pub bytes: Option<i64>,
    /// A view (its storage is its segments, or a file, or a source).
    pub view: bool,
}

/// What a kept run costs: the bytes of the tables it reads that no other
/// kept run reads (what dropping it alone would give back), and of all the
/// tables it reads.
#[derive(Debug)]
pub struct RunCost {
    pub run_id: String,
    pub own: Option<i64>,
    pub reads: Option<i64>,
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
    /// What each kept run costs, in the order of `kept`.
    pub costs: Vec<RunCost>,
    /// The bytes of every table the kept runs read, where the engine tells.
    pub kept_bytes: Option<i64>,
    /// What the warehouse takes (after the drops and the compaction, when
    /// applied), where the engine tells; and the input store's files.
    pub size: Option<Size>,
    pub store_bytes: Option<i64>,
    /// Whether dropping gives the space back at once on this engine.
    pub drop_frees_space: bool,
    /// What a compaction did.
    pub compacted: Option<Compaction>,
    /// `--compact` on an engine with nothing to compact.
    pub nothing_to_compact: bool,
}

impl Session<'_> {
    /// Collect the snapshots, frozen inputs and segments that no kept run
    /// references. A kept run is one of the last `keep.runs` of its branch,
    /// one newer than `keep.days`, or one whose snapshot a live or staged view
    /// shows (its inputs are kept so that it can still be replayed). Drops
    /// only with `apply`, in one transaction; then compacts as `compact` says.
    pub fn gc(&self, keep: Keep, apply: bool, compact: Compact) -> Result<Collection, Failure> {
        let wh = self.wh();
        let runs = self.reader().runs()?;
        let why = self.kept_runs(&runs, keep)?;
        let frozen = self.reader().frozen_all()?;
        let known = self.reader().segments()?;
        // What each relation a run names is stored in: its segments, or itself.
        let storage = |relation: &str| -> Vec<String> {
            match known.get(relation) {
                Some(s) => s.iter().map(|s| s.table.clone()).collect(),
                None => vec![relation.to_string()],
            }
        };
        // A source read in place (`freeze = "hash"`) has no relation of its
        // own.
        let stored = |t: &String| frozen.get(t).is_none_or(|f| f.how != How::Hash);
        // The relations a run reads. Replaying an incremental run starts from
        // the snapshot it merged into.
        let relations_of = |r: &RunRecord| -> Vec<String> {
            r.snapshots
                .values()
                .chain(r.inputs.values())
                .chain(r.bases.values())
                .filter(|t| stored(t))
                .cloned()
                .collect()
        };
        let mut needed: BTreeSet<String> = BTreeSet::new();
        let mut needed_storage: BTreeSet<String> = BTreeSet::new();
        let mut reads: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for r in runs.iter().filter(|r| why.contains_key(&r.run_id)) {
            for rel in relations_of(r) {
                for t in storage(&rel) {
                    needed_storage.insert(t.clone());
                    reads.entry(r.run_id.clone()).or_default().insert(t);
                }
                needed.insert(rel);
            }
        }
        let mut candidates: BTreeMap<String, (&'static str, String)> = BTreeMap::new();
        for r in &runs {
            for (m, t) in &r.snapshots {
                candidates.insert(t.clone(), ("snapshot", m.clone()));
            }
            for (s, t) in r.inputs.iter().filter(|(_, t)| stored(t)) {
                candidates.insert(t.clone(), ("input", s.clone()));
            }
        }
        // The stored file each frozen input's view reads.
        let files = self.reader().stored_files()?;
        let is_view = |t: &str| known.contains_key(t) || files.contains_key(t);
        let mut dropped = Vec::new();
        let mut listed: BTreeSet<String> = BTreeSet::new();
        for (table, (kind, of)) in &candidates {
            if needed.contains(table)
                || needed_storage.contains(table)
                || !wh.relation_exists(table)?
            {
                continue;
            }
            let rows = match (frozen.get(table), known.get(table)) {
                (Some(f), _) => f.rows,
                (None, Some(segments)) => segments.iter().map(|s| s.rows).sum(),
                (None, None) => wh.count(&format!("SELECT COUNT(*) FROM {}", wh.ident(table)))?,
            };
            listed.insert(table.clone());
            dropped.push(Doomed {
                table: table.clone(),
                kind,
                of: of.clone(),
                rows,
                bytes: None,
                view: is_view(table),
            });
        }
        // The segments no kept relation reads: of the relations dropped here,
        // and of those a gc that stopped midway dropped already.
        let mut segment_of: BTreeMap<&str, (&str, &Segment)> = BTreeMap::new();
        for (relation, segs) in &known {
            for s in segs {
                segment_of.entry(&s.table).or_insert((relation, s));
            }
        }
        for (table, (relation, s)) in segment_of {
            if needed_storage.contains(table)
                || listed.contains(table)
                || !wh.relation_exists(table)?
            {
                continue;
            }
            let of = candidates
                .get(relation)
                .map_or_else(|| relation.to_string(), |(kind, of)| format!("{kind} {of}"));
            listed.insert(table.to_string());
            dropped.push(Doomed {
                table: table.to_string(),
                kind: "segment",
                of,
                rows: s.rows,
                bytes: None,
                view: false,
            });
        }
        // Sizes, asked at once: of what goes and of what the kept runs read.
        let kept_tables: Vec<String> = needed_storage.iter().cloned().collect();
        let mut asked: Vec<String> = dropped.iter().map(|d| d.table.clone()).collect();
        asked.extend(kept_tables.iter().cloned());
        let sizes = wh.relation_bytes_each(&asked)?;
        let (gone, kept_sizes) = sizes.split_at(dropped.len());
        for (d, b) in dropped.iter_mut().zip(gone) {
            d.bytes = *b;
        }
        let size_of: BTreeMap<&str, Option<i64>> = kept_tables
            .iter()
            .map(String::as_str)
            .zip(kept_sizes.iter().copied())
            .collect();
        dropped.extend(self.unreferenced_files(&files, &dropped)?);
        if apply && !dropped.is_empty() {
            self.atomically(|_| {
                failpoint("before changes");
                // Views first: a table a view reads cannot be dropped before it
                // on PostgreSQL.
                let (views, tables): (Vec<&Doomed>, Vec<&Doomed>) = dropped
                    .iter()
                    .filter(|d| d.kind != "file")
                    .partition(|d| d.view);
                for d in views.iter().chain(&tables) {
                    let what = if d.view { "VIEW" } else { "TABLE" };
                    wh.exec(&format!("DROP {what} {}", wh.ident(&d.table)))?;
                    if d.kind == "input" {
                        self.state().forget_frozen(&d.table)?;
                    }
                    if known.contains_key(&d.table) {
                        self.state().forget_segments(&d.table)?;
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
        let total = |tables: &mut dyn Iterator<Item = &String>| -> Option<i64> {
            tables
                .map(|t| size_of.get(t.as_str()).copied().flatten())
                .sum()
        };
        let costs = kept
            .iter()
            .map(|(id, _)| {
                let mine = reads.get(id).cloned().unwrap_or_default();
                let alone = mine.iter().filter(|t| {
                    !reads
                        .iter()
                        .any(|(other, ts)| other != id && ts.contains(*t))
                });
                RunCost {
                    run_id: id.clone(),
                    own: total(&mut alone.into_iter()),
                    reads: total(&mut mine.iter()),
                }
            })
            .collect();
        let capabilities = wh.capabilities();
        let mut compacted = None;
        let mut nothing_to_compact = false;
        let mut size = wh.size()?;
        let worth = match (compact, &size) {
            (Compact::Yes, _) => true,
            (Compact::WhenFree(fraction), Some(s)) if apply && !capabilities.drop_frees_space => {
                let free = s.free.unwrap_or(0);
                free >= AUTO_COMPACT_MIN_BYTES && free as f64 > fraction * s.bytes as f64
            }
            _ => false,
        };
        if worth {
            compacted = wh.compact(&|point| failpoint(point))?;
            nothing_to_compact = compacted.is_none();
            if compacted.is_some() {
                size = wh.size()?;
            }
        }
        Ok(Collection {
            kept,
            dropped,
            applied: apply,
            costs,
            kept_bytes: total(&mut kept_tables.iter()),
            size,
            store_bytes: self.store_bytes(),
            drop_frees_space: capabilities.drop_frees_space,
            compacted,
            nothing_to_compact,
        })
    }

    /// The runs kept, each with why.
    fn kept_runs(
        &self,
        runs: &[RunRecord],
        keep: Keep,
    ) -> Result<BTreeMap<String, BTreeSet<String>>, Failure> {
        let mut why: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut by_branch: BTreeMap<&str, Vec<&RunRecord>> = BTreeMap::new();
        for r in runs {
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
            for id in self.reader().runs_started_within(days)? {
                why.entry(id)
                    .or_default()
                    .insert(format!("newer than {days} days"));
            }
        }
        let p = pointers(runs);
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
        Ok(why)
    }

    /// The bytes of the input store's files (DuckDB beside a file).
    fn store_bytes(&self) -> Option<i64> {
        let wh = self.wh();
        let store = wh.capabilities().file_store?;
        let entries = std::fs::read_dir(store).ok()?;
        Some(
            entries
                .filter_map(|e| e.ok()?.metadata().ok())
                .map(|m| m.len() as i64)
                .sum(),
        )
    }

    /// The files of the input store that no frozen input keeps once the
    /// inputs in `dropped` are gone: those of dropped inputs, and leftovers of
    /// runs that did not finish.
    fn unreferenced_files(
        &self,
        files: &BTreeMap<String, String>,
        dropped: &[Doomed],
    ) -> Result<Vec<Doomed>, Failure> {
        let wh = self.wh();
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
            let entry = entry.map_err(|e| {
                Failure::Environment(format!("cannot list {}: {e}", store.display()))
            })?;
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
                view: false,
            });
        }
        out.sort_by(|a, b| a.table.cmp(&b.table));
        Ok(out)
    }
}
