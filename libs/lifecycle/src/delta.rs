//! Delta freezes: an input that only grew since its last freeze is frozen
//! as that freeze plus a segment of its new rows, shared by every later
//! run that reads it — and only when that is exact.
//!
//! A source declares how its rows arrive (`append-column = "id"` under
//! `[sources.NAME]` in strata.toml). Its last usable freeze `F` recorded
//! the greatest value `W` of that column. Before the run, one scan of the
//! rows above `W` gives their count and the sum of their row hashes; the
//! content hash sums are additive, so the rows at or below `W` (and those
//! whose column is NULL) have the whole source's count and sum minus
//! those. When they hash to `F`'s content hash exactly, the source is `F`
//! plus the rows above `W`: the freeze stores only those, as a segment,
//! and the frozen input is a view over `F`'s segments and it. Anything else
//! — an old row updated or deleted, a truncate and reload with other rows,
//! no earlier freeze — is a full copy, and the run says why.

use std::collections::BTreeMap;

use strata_engine::{Failure, Origin};

use crate::content::{column_in, digest, Scanned, SourcePolicy};
use crate::naming::segment;
use crate::session::Session;
use crate::state::frozen::{FrozenEarlier, How};
use crate::state::segments::{self, Segment};
use crate::state::RunRecord;

/// The longest chain of segments a relation reads: the next freeze (or
/// `append` snapshot) is a full copy, so that no relation reads hundreds of
/// small tables.
pub const MAX_SEGMENTS: usize = 64;

/// How a source with an append column is frozen, when no earlier freeze
/// has its content.
#[derive(Clone, Debug)]
pub enum Plan {
    /// `base`'s segments and a segment of the rows `column > literal`.
    Delta(Box<Delta>),
    /// A full copy, and why a delta could not be taken.
    Full(String),
}

/// A delta freeze, checked before the run.
#[derive(Clone, Debug)]
pub struct Delta {
    /// The freeze it extends.
    pub base: FrozenEarlier,
    /// `base`'s segments, in order.
    pub segments: Vec<Segment>,
    /// The append column (quoted) and `W` as a literal of its type.
    pub column: String,
    pub literal: String,
    /// The new rows: their count and the sum of their row hashes (what
    /// the segment must hold, checked once it is written).
    pub added: i64,
    pub added_sum: i128,
}

impl Delta {
    /// The condition keeping the new rows (on alias `t`).
    pub fn filter(&self) -> String {
        format!("t.{} > {}", self.column, self.literal)
    }
}

/// An exact sum of row hashes as an engine writes it.
pub fn parse_sum(text: &str) -> Option<i128> {
    text.trim().parse().ok()
}

impl Session<'_> {
    /// The plan of each source with an append column (and no `freeze =
    /// "hash"`) among `scanned`: a delta from its last usable freeze when its
    /// older rows are unchanged, else a full copy and why. `runs` is the
    /// history (oldest first), `overrides` where each source reads now (as
    /// runs record it).
    pub fn delta_plan(
        &self,
        runs: &[RunRecord],
        scanned: &BTreeMap<String, Scanned>,
        relations: &BTreeMap<String, String>,
        policies: &BTreeMap<String, SourcePolicy>,
        origins: &BTreeMap<String, Origin>,
    ) -> Result<BTreeMap<String, Plan>, Failure> {
        let wh = self.wh();
        let mut plans = BTreeMap::new();
        let wanted: Vec<(&String, &Scanned, &String)> = scanned
            .iter()
            .filter_map(|(s, x)| {
                let p = policies.get(s)?;
                Some((s, x, p.append_column.as_ref().filter(|_| !p.by_hash)?))
            })
            .collect();
        if wanted.is_empty() {
            return Ok(plans);
        }
        let frozen = self.reader().frozen_all()?;
        let known = self.reader().segments()?;
        // (source, delta, its query)
        let mut checks: Vec<(String, Delta, String)> = Vec::new();
        for (source, x, append) in wanted {
            let full = |why: String| Plan::Full(why);
            if x.by_file {
                plans.insert(
                    source.clone(),
                    full("a Parquet or JSON file is frozen by copying the file".into()),
                );
                continue;
            }
            let Some(column) = column_in(wh.dialect(), &x.schema, append) else {
                plans.insert(
                    source.clone(),
                    full(format!(
                        "its append column {append} is not one of its columns"
                    )),
                );
                continue;
            };
            let origin = origins.get(source).map(Origin::describe);
            let base = match self.last_freeze(runs, &frozen, &known, source, origin.as_deref())? {
                Ok(base) => base,
                Err(why) => {
                    plans.insert(source.clone(), full(why));
                    continue;
                }
            };
            // A freeze taken without this append column (by a strata from
            // before delta freezes, or before strata.toml declared it): its
            // greatest value, read from it once. Its content hash still
            // decides.
            let recorded = base
                .append_column
                .as_deref()
                .is_some_and(|c| c.eq_ignore_ascii_case(append));
            let watermark = match recorded {
                true => base.watermark.clone(),
                false => match self.greatest(&base.table, &column) {
                    Ok(w) => w,
                    Err(why) => {
                        plans.insert(
                            source.clone(),
                            full(format!(
                                "its last freeze, {}, cannot be read by {append}: {why}",
                                base.table
                            )),
                        );
                        continue;
                    }
                },
            };
            let Some(watermark) = watermark else {
                plans.insert(
                    source.clone(),
                    full(format!(
                        "its last freeze, {}, has no {append} values",
                        base.table
                    )),
                );
                continue;
            };
            let ty = x
                .schema
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(append))
                .map(|(_, t)| t.clone())
                .unwrap_or_default();
            let literal = format!("CAST({} AS {ty})", wh.string(&watermark));
            let segments = segments::of(&known, &base.table, || Ok(base.rows))?;
            if segments.len() >= MAX_SEGMENTS {
                plans.insert(
                    source.clone(),
                    full(format!(
                        "its last freeze, {}, reads {} segments: a full copy starts a new chain",
                        base.table,
                        segments.len()
                    )),
                );
                continue;
            }
            let delta = Delta {
                base: FrozenEarlier {
                    watermark: Some(watermark),
                    ..base
                },
                segments,
                column,
                literal,
                added: 0,
                added_sum: 0,
            };
            let query = self.content_query(&relations[source], None, Some(&delta.filter()));
            checks.push((source.clone(), delta, query));
        }
        if checks.is_empty() {
            return Ok(plans);
        }
        let queries: Vec<String> = checks.iter().map(|(_, _, q)| q.clone()).collect();
        let answers = match wh.rows_each(&queries) {
            Ok(a) => a,
            Err(e) => {
                let why = first_line(e);
                for (source, delta, _) in checks {
                    plans.insert(
                        source,
                        Plan::Full(format!(
                            "its rows above the last freeze's {} cannot be read: {why}",
                            delta.base.watermark.unwrap_or_default()
                        )),
                    );
                }
                return Ok(plans);
            }
        };
        for ((source, mut delta, _), rows) in checks.into_iter().zip(answers) {
            let x = &scanned[&source];
            let row = rows.first().cloned().unwrap_or_default();
            let cell = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
            let sums = (parse_sum(&x.sum), parse_sum(&cell(1)));
            let added: i64 = cell(0).parse().unwrap_or(0);
            let (Some(total), Some(new)) = sums else {
                plans.insert(
                    source,
                    Plan::Full("its content hash sums cannot be read as numbers".into()),
                );
                continue;
            };
            let old_rows = x.rows - added;
            let old = digest(&x.schema, &old_rows.to_string(), &(total - new).to_string());
            let w = delta.base.watermark.clone().unwrap_or_default();
            let append = policies[&source].append_column.clone().unwrap_or_default();
            if old != delta.base.content_hash {
                let then = delta.base.rows;
                let how = match old_rows.cmp(&then) {
                    std::cmp::Ordering::Less => format!(
                        "{} of them gone: deleted, or moved above {w}",
                        grouped(then - old_rows)
                    ),
                    std::cmp::Ordering::Greater => format!(
                        "{} more of them: added at or below {w}",
                        grouped(old_rows - then)
                    ),
                    std::cmp::Ordering::Equal => {
                        "an old row was updated: as many rows, other content".into()
                    }
                };
                plans.insert(
                    source,
                    Plan::Full(format!(
                        "rows with {append} <= {w} changed since {}: {how}",
                        delta.base.table
                    )),
                );
                continue;
            }
            delta.added = added;
            delta.added_sum = new;
            plans.insert(source, Plan::Delta(Box::new(delta)));
        }
        Ok(plans)
    }

    /// The newest freeze of `source` a delta can extend: a copy or a delta
    /// (not one read in place), recorded by a run that read it from the same
    /// origin when there is one, whose storage is all there. `Err` says why
    /// there is none.
    fn last_freeze(
        &self,
        runs: &[RunRecord],
        frozen: &BTreeMap<String, FrozenEarlier>,
        known: &BTreeMap<String, Vec<Segment>>,
        source: &str,
        origin: Option<&str>,
    ) -> Result<Result<FrozenEarlier, String>, Failure> {
        let mut seen = Vec::new();
        let same_origin = |r: &RunRecord| {
            let recorded = r.overrides.get(source).map(String::as_str);
            let default = format!("table {source}");
            recorded.unwrap_or(&default) == origin.unwrap_or(&default)
        };
        let mut newest: Option<String> = None;
        for pass_same_origin in [true, false] {
            for r in runs.iter().rev() {
                if r.is_rollback() || same_origin(r) != pass_same_origin {
                    continue;
                }
                let Some(table) = r.inputs.get(source) else {
                    continue;
                };
                if seen.contains(table) {
                    continue;
                }
                seen.push(table.clone());
                newest.get_or_insert_with(|| table.clone());
                let Some(f) = frozen.get(table) else {
                    continue;
                };
                if f.how == How::Hash || f.file.is_some() {
                    continue;
                }
                if self.reader().intact(known, &f.table)? {
                    return Ok(Ok(f.clone()));
                }
            }
        }
        Ok(Err(match newest {
            None => "the first freeze of this source".to_string(),
            Some(t) => match frozen.get(&t) {
                Some(f) if f.how == How::Hash => format!(
                    "its last freeze, {t}, read it in place (freeze = \"hash\"): there is no copy to add to"
                ),
                _ => format!("its last freeze, {t}, was collected by `strata gc`"),
            },
        }))
    }

    /// The greatest value of `column` (quoted) in the frozen `table`, as text
    /// (as [`Session::content_query`] writes it), or the first line of why it cannot be
    /// read.
    fn greatest(&self, table: &str, column: &str) -> Result<Option<String>, String> {
        let wh = self.wh();
        let query = format!(
            "SELECT {} FROM {} AS t",
            wh.text(&format!("MAX(t.{column})")),
            wh.ident(table)
        );
        match wh.rows(&query) {
            Ok(rows) => Ok(rows.first().and_then(|r| r.first().cloned().flatten())),
            Err(e) => Err(first_line(e)),
        }
    }
}

/// The first line of what a failure says.
fn first_line(e: Failure) -> String {
    let why = match e {
        Failure::Environment(m) | Failure::Usage(m) => m,
        Failure::Data(d) => d.diagnostic.message.clone(),
    };
    why.lines().next().unwrap_or("").to_string()
}

/// The segments of a delta freeze of `relation`: `delta`'s base's and the
/// new one's.
pub fn segments_of(delta: &Delta, relation: &str) -> Vec<Segment> {
    let mut all = delta.segments.clone();
    all.push(Segment {
        table: segment(relation),
        rows: delta.added,
    });
    all
}

/// A number with its thousands grouped (`20,200,000`).
pub fn grouped(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_grouped_by_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(20_200_000), "20,200,000");
        assert_eq!(grouped(-1234567), "-1,234,567");
    }

    #[test]
    fn sums_are_read_as_the_engines_write_them() {
        assert_eq!(parse_sum("0"), Some(0));
        assert_eq!(
            parse_sum("-170141183460469231731687303715884105727"),
            Some(-170141183460469231731687303715884105727)
        );
        assert_eq!(parse_sum("12.5"), None);
    }

    /// The content hash of a relation is additive: the rows at or below a
    /// watermark hash (by subtraction) to what a scan of them alone gives,
    /// and the sum over no rows is the engine's 0.
    #[test]
    fn the_older_rows_hash_by_subtraction_as_a_scan_of_them_does() {
        let wh = strata_engine::DuckDb::open(":memory:", std::time::Duration::ZERO)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let wh: &strata_engine::Warehouse = &wh;
        let session = Session::new(wh, &crate::NoProgress);
        wh.exec("CREATE TABLE o AS SELECT i AS id, CAST(i * 7 AS VARCHAR) AS s FROM range(5000) AS r(i)")
            .unwrap_or_else(|e| panic!("{e:?}"));
        let schema = wh.columns("o").unwrap_or_else(|e| panic!("{e:?}"));
        let row = |filter: Option<&str>| {
            let rows = wh
                .rows(&session.content_query("o", None, filter))
                .unwrap_or_else(|e| panic!("{e:?}"));
            let r = rows.first().cloned().unwrap_or_default();
            (
                r.first().cloned().flatten().unwrap_or_default(),
                r.get(1).cloned().flatten().unwrap_or_default(),
            )
        };
        let (all_n, all_sum) = row(None);
        let (new_n, new_sum) = row(Some("t.id > 3999"));
        let (old_n, old_sum) = row(Some("NOT (t.id > 3999)"));
        let n = |t: &str| t.parse::<i64>().unwrap_or(-1);
        let sum = |t: &str| parse_sum(t).unwrap_or_else(|| panic!("{t}"));
        assert_eq!(n(&all_n) - n(&new_n), n(&old_n));
        assert_eq!(sum(&all_sum) - sum(&new_sum), sum(&old_sum));
        assert_eq!(
            digest(
                &schema,
                &(n(&all_n) - n(&new_n)).to_string(),
                &(sum(&all_sum) - sum(&new_sum)).to_string()
            ),
            digest(&schema, &old_n, &old_sum)
        );
        let (none_n, none_sum) = row(Some("t.id < 0"));
        assert_eq!((none_n.as_str(), none_sum.as_str()), ("0", "0"));
    }
}
