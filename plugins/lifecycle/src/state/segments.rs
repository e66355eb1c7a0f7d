//! The relations stored as segments, `_strata_segments`: a delta freeze
//! and the snapshot of an `append` model are views over the tables they
//! share with earlier ones (the first full copy, then one segment per run
//! that added rows). Read and written here only.
//!
//! A relation with no rows here is a table of its own (or a view of a
//! stored file, or of a source read in place): it is its own storage.

use std::collections::BTreeMap;

use strata_engine::{Failure, Warehouse};

use super::schema::SEGMENTS;

/// A segment: a table, and its rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub table: String,
    pub rows: i64,
}

/// The segments of every relation stored as segments, in order.
pub fn all(wh: &Warehouse) -> Result<BTreeMap<String, Vec<Segment>>, Failure> {
    let rows = wh.rows(&format!(
        "SELECT relation, ordinal, segment, row_count FROM {}",
        wh.ident(SEGMENTS)
    ))?;
    let mut by: BTreeMap<String, BTreeMap<i64, Segment>> = BTreeMap::new();
    for r in rows {
        let cell = |i: usize| r.get(i).cloned().flatten();
        let (Some(relation), Some(position), Some(table)) = (cell(0), cell(1), cell(2)) else {
            continue;
        };
        let position: i64 = position.parse().unwrap_or(0);
        let rows = cell(3).and_then(|n| n.parse().ok()).unwrap_or(0);
        // A relation recorded twice (a run repeated on Spark, whose rows
        // cannot be deleted) has the same segments each time.
        by.entry(relation)
            .or_default()
            .insert(position, Segment { table, rows });
    }
    Ok(by
        .into_iter()
        .map(|(r, s)| (r, s.into_values().collect()))
        .collect())
}

/// The segments of `relation`: those recorded, else the relation itself
/// (a table of its own, of `rows` rows).
pub fn of(
    known: &BTreeMap<String, Vec<Segment>>,
    relation: &str,
    rows: impl FnOnce() -> Result<i64, Failure>,
) -> Result<Vec<Segment>, Failure> {
    Ok(match known.get(relation) {
        Some(segments) => segments.clone(),
        None => vec![Segment {
            table: relation.to_string(),
            rows: rows()?,
        }],
    })
}

/// Whether `relation` and every segment it reads are there.
pub fn intact(
    wh: &Warehouse,
    known: &BTreeMap<String, Vec<Segment>>,
    relation: &str,
) -> Result<bool, Failure> {
    if !wh.relation_exists(relation)? {
        return Ok(false);
    }
    for s in known.get(relation).into_iter().flatten() {
        if !wh.relation_exists(&s.table)? {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Record that `relation` reads `segments`, in order.
pub fn record(wh: &Warehouse, relation: &str, segments: &[Segment]) -> Result<(), Failure> {
    if segments.is_empty() {
        return Ok(());
    }
    let values: Vec<String> = segments
        .iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                "({}, {i}, {}, {})",
                wh.string(relation),
                wh.string(&s.table),
                s.rows
            )
        })
        .collect();
    wh.exec(&format!(
        "INSERT INTO {} (relation, ordinal, segment, row_count) VALUES {}",
        wh.ident(SEGMENTS),
        values.join(", ")
    ))
}

/// Forget the segments of a relation that was dropped (where rows can be
/// deleted; elsewhere they stay, naming a relation that is gone).
pub fn forget(wh: &Warehouse, relation: &str) -> Result<(), Failure> {
    if !wh.capabilities().row_deletes {
        return Ok(());
    }
    wh.exec(&format!(
        "DELETE FROM {} WHERE relation = {}",
        wh.ident(SEGMENTS),
        wh.string(relation)
    ))
}

/// The query reading `segments` (tables) one after the other, as a
/// relation: `(SELECT * FROM a UNION ALL SELECT * FROM b) AS alias`.
pub fn union(wh: &Warehouse, segments: &[Segment]) -> String {
    let parts: Vec<String> = segments
        .iter()
        .map(|s| format!("SELECT * FROM {}", wh.ident(&s.table)))
        .collect();
    format!(
        "({}) AS {}",
        parts.join(" UNION ALL "),
        wh.ident("_strata_union")
    )
}
