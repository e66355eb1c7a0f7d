//! Incremental models (`incremental merge_strategy: append|upsert`): a run
//! merges the model's new rows into the snapshot its live view shows
//! instead of rebuilding it.
//!
//! * The new rows are the rows of the model's query whose `cdc_column` is
//!   greater than the previous snapshot's greatest value (the watermark,
//!   a literal in the query, which the engine's planner pushes down to the
//!   scan of the input that column comes from).
//! * `append` adds them to the previous snapshot; `upsert` first removes
//!   the previous rows that have the merge keys of a new row (NULL keys
//!   match each other).
//! * The first run of a branch, `--full-refresh`, and a model whose
//!   fingerprint changed since its previous snapshot (the model or one
//!   upstream of it was edited) build in full.
//! * A run's snapshot of an `append` model is not a copy: it is a view over
//!   the previous snapshot's segments (the table of its first full build,
//!   then one segment per run) and a segment of this run's new rows
//!   (`seg_snap_<run>_<model>`), recorded in `state::segments`.

use std::collections::BTreeMap;

use strata_lang::fingerprint::{compare_recorded, Recorded};
use strata_lang::ir;
use strata_lang::types::Type;

use strata_engine::Failure;

use crate::delta::MAX_SEGMENTS;
use crate::naming::segment;
use crate::session::Session;
use crate::state::pointers;
use crate::state::segments::{self, Segment};
use crate::work::Work;

impl Session<'_> {
    /// The previous snapshot each incremental model of `models` merges into on
    /// `branch`: the one its live view shows, when the run that built it had
    /// the model's current fingerprint and the table still exists. Each
    /// incremental model built in full gets a report line in `notes` saying
    /// why.
    pub(crate) fn bases(
        &self,
        models: &[&ir::Model],
        branch: &str,
        full_refresh: bool,
        notes: &mut Vec<String>,
    ) -> Result<BTreeMap<String, String>, Failure> {
        let wh = self.wh();
        let mut bases = BTreeMap::new();
        if models.iter().all(|m| m.incremental.is_none()) {
            return Ok(bases);
        }
        let live = pointers(&self.reader().runs()?).live;
        for m in models.iter().filter(|m| m.incremental.is_some()) {
            let why = match live.get(&(branch.to_string(), m.name.clone())) {
                _ if full_refresh => "--full-refresh".to_string(),
                None => format!("first run on branch {branch}"),
                Some((_, r)) => {
                    let same = r
                        .fingerprints
                        .get(&m.name)
                        .is_some_and(|fp| compare_recorded(fp, &m.fingerprint) == Recorded::Same);
                    let table = &r.snapshots[&m.name];
                    if !same {
                        format!(
                            "the model or a model upstream changed since run {}",
                            r.run_id
                        )
                    } else if !wh.relation_exists(table)? {
                        format!("run {}'s snapshot was collected", r.run_id)
                    } else {
                        bases.insert(m.name.clone(), table.clone());
                        continue;
                    }
                }
            };
            notes.push(format!("  incremental {}: built in full ({why})", m.name));
        }
        Ok(bases)
    }

    /// The query that merges the new rows of `select` (the model's query) into
    /// the snapshot `base`, and the report line saying what it merges.
    pub(crate) fn merge(
        &self,
        m: &ir::Model,
        inc: &ir::Incremental,
        base: &str,
        select: &str,
    ) -> Result<Merge, Failure> {
        let wh = self.wh();
        let base_q = wh.ident(base);
        let cdc = wh.ident(&inc.cdc_column);
        let (query, new, old) = (
            wh.ident("_strata_query"),
            wh.ident("_strata_new"),
            wh.ident("_strata_old"),
        );
        let ty = m
            .columns
            .iter()
            .find(|c| c.name == inc.cdc_column)
            .map(|c| c.ty.clone())
            .ok_or_else(|| {
                Failure::Environment(format!(
                    "model {}: cdc_column {} is not an output column",
                    m.name, inc.cdc_column
                ))
            })?;
        let dialect = wh.dialect();
        // The watermark as a typed literal: its text, cast back.
        let unsupported = |e: String| {
            Failure::Environment(format!(
                "model {}: its cdc_column {} cannot be compared on {}: {}",
                m.name,
                inc.cdc_column,
                dialect.name(),
                e
            ))
        };
        let max = dialect
            .cast_from(&format!("MAX({cdc})"), &ty, &Type::String)
            .map_err(unsupported)?;
        let text = wh.rows(&format!("SELECT {max} FROM {base_q}"))?;
        let watermark = text
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next().flatten());
        let new_rows = match &watermark {
            Some(w) => {
                let literal = dialect.cast(&wh.string(w), &ty).map_err(unsupported)?;
                format!("SELECT * FROM ({select}) AS {query} WHERE {cdc} > {literal}")
            }
            None => select.to_string(),
        };
        let columns: Vec<String> = m.columns.iter().map(|c| wh.ident(&c.name)).collect();
        let list = columns.join(", ");
        let (strategy, sql) = if inc.merge_keys.is_empty() {
            (
                "append".to_string(),
                format!(
                    "SELECT {list} FROM {base_q}\nUNION ALL\nSELECT {list} FROM ({new_rows}) AS {new}"
                ),
            )
        } else {
            let on: Vec<String> = inc
                .merge_keys
                .iter()
                .map(|k| {
                    let k = wh.ident(k);
                    format!("{new}.{k} IS NOT DISTINCT FROM {old}.{k}")
                })
                .collect();
            let keys: Vec<&str> = inc.merge_keys.iter().map(|k| k.as_str()).collect();
            (
                format!("upsert on {}", keys.join(", ")),
                format!(
                    "WITH {new} AS ({new_rows})\nSELECT {list} FROM {base_q} AS {old} WHERE NOT EXISTS (SELECT 1 FROM {new} WHERE {})\nUNION ALL\nSELECT {list} FROM {new}",
                    on.join(" AND ")
                ),
            )
        };
        let since = match &watermark {
            Some(w) => format!("rows with {} > {w}", inc.cdc_column),
            None => "every row (the previous snapshot is empty)".to_string(),
        };
        let line = format!("  incremental {}: {strategy} into {base}: {since}", m.name);
        Ok(Merge {
            sql,
            new_rows: format!("SELECT {list} FROM ({new_rows}) AS {new}"),
            line,
        })
    }
}

impl Work<'_> {
    /// Build `table` as the snapshot `base` merged with the new rows of
    /// `select` (the model's query). With `share` (a run's snapshot), an
    /// `append` model's `table` is a view over `base`'s segments and a segment
    /// of the new rows; otherwise (`upsert`, a test's or a replay's table) a
    /// table of its own. Returns the report line, and the rows when they are
    /// known without counting.
    pub(crate) fn build_merged(
        &self,
        m: &ir::Model,
        inc: &ir::Incremental,
        (base, table): (&str, &str),
        select: &str,
        share: bool,
    ) -> Result<(String, Option<i64>), Failure> {
        let work = self;
        let wh = work.wh();
        let merge = self.merge(m, inc, base, select)?;
        let known = match share && inc.merge_keys.is_empty() {
            true => self.reader().segments()?,
            false => Default::default(),
        };
        let long = known.get(base).is_some_and(|s| s.len() >= MAX_SEGMENTS);
        if !(share && inc.merge_keys.is_empty()) || long {
            work.replace_table(&wh.ident(table), &merge.sql)?;
            if long {
                // (A killed run may have recorded this snapshot as segments.)
                let rows = wh.count(&format!("SELECT COUNT(*) FROM {}", wh.ident(table)))?;
                self.state().own_segments(table, rows)?;
            }
            let line = match long {
                true => format!(
                    "{} (a table: {base} reads {MAX_SEGMENTS} segments, a new chain starts)",
                    merge.line
                ),
                false => merge.line,
            };
            return Ok((line, None));
        }
        let new = segment(table);
        let added = match work.replace_table(&wh.ident(&new), &merge.new_rows)? {
            Some(n) => n,
            None => wh.count(&format!("SELECT COUNT(*) FROM {}", wh.ident(&new)))?,
        };
        let mut parts = segments::of(&known, base, || {
            wh.count(&format!("SELECT COUNT(*) FROM {}", wh.ident(base)))
        })?;
        if added == 0 {
            // Nothing new: the snapshot reads the previous one's segments.
            wh.exec(&format!("DROP TABLE {}", wh.ident(&new)))?;
        } else {
            parts.push(Segment {
                table: new,
                rows: added,
            });
        }
        work.replace_view(&wh.ident(table), &self.reader().segments_union(&parts))?;
        self.state().record_segments(table, &parts)?;
        let rows = parts.iter().map(|p| p.rows).sum();
        let line = format!(
            "{} (+{added} rows as a segment; the snapshot reads {} segments, shared with {base})",
            merge.line,
            parts.len()
        );
        Ok((line, Some(rows)))
    }
}

/// A merge: the query of the whole merged snapshot, that of the new rows
/// alone (in the model's columns), and the report line.
pub(crate) struct Merge {
    pub sql: String,
    pub new_rows: String,
    pub line: String,
}
