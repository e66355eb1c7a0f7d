//! The relations stored as segments, `_strata_segments`: a delta freeze
//! and the snapshot of an `append` model are views over the tables they
//! share with earlier ones (the first full copy, then one segment per run
//! that added rows). Read and written here only.
//!
//! A relation with no rows here is a table of its own (or a view of a
//! stored file, or of a source read in place): it is its own storage.

use std::collections::BTreeMap;

use strata_engine::Failure;

use super::schema::SEGMENTS;
use super::{State, StateReader};

/// A segment: a table, and its rows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    pub table: String,
    pub rows: i64,
}

impl StateReader<'_> {
    /// The segments of every relation stored as segments, in order: of each
    /// relation, its last recording (the greatest `generation`), read by
    /// `ordinal`. A relation last recorded as itself is a table of its own
    /// again and is left out.
    pub fn segments(&self) -> Result<BTreeMap<String, Vec<Segment>>, Failure> {
        let wh = self.wh();
        let rows = wh.rows(&format!(
            "SELECT relation, ordinal, segment, row_count, generation FROM {}",
            wh.ident(SEGMENTS)
        ))?;
        let mut recorded = Vec::with_capacity(rows.len());
        for r in rows {
            let cell = |i: usize| r.get(i).cloned().flatten();
            let (Some(relation), Some(table)) = (cell(0), cell(2)) else {
                continue;
            };
            let number = |i: usize| cell(i).and_then(|n| n.parse::<i64>().ok()).unwrap_or(0);
            recorded.push(Recorded {
                relation,
                generation: number(4),
                ordinal: number(1),
                segment: Segment {
                    table,
                    rows: number(3),
                },
            });
        }
        Ok(chains(recorded))
    }

    /// Whether `relation` and every segment it reads are there.
    pub fn intact(
        &self,
        known: &BTreeMap<String, Vec<Segment>>,
        relation: &str,
    ) -> Result<bool, Failure> {
        let wh = self.wh();
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

    /// The query reading `segments` (tables) one after the other, as a
    /// relation: `(SELECT * FROM a UNION ALL SELECT * FROM b) AS alias`.
    pub fn segments_union(&self, segments: &[Segment]) -> String {
        let wh = self.wh();
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
}

/// A row of `_strata_segments`.
struct Recorded {
    relation: String,
    generation: i64,
    ordinal: i64,
    segment: Segment,
}

/// Each relation's chain from its rows, in whatever order the engine gave
/// them (Spark has none): the last recording's, by ordinal.
fn chains(recorded: Vec<Recorded>) -> BTreeMap<String, Vec<Segment>> {
    let mut last: BTreeMap<String, (i64, BTreeMap<i64, Segment>)> = BTreeMap::new();
    for r in recorded {
        let entry = last
            .entry(r.relation)
            .or_insert_with(|| (r.generation, BTreeMap::new()));
        if r.generation > entry.0 {
            *entry = (r.generation, BTreeMap::new());
        }
        if r.generation == entry.0 {
            entry.1.insert(r.ordinal, r.segment);
        }
    }
    last.into_iter()
        .map(|(relation, (_, chain))| (relation, chain.into_values().collect::<Vec<_>>()))
        .filter(|(relation, chain)| !matches!(chain.as_slice(), [one] if one.table == *relation))
        .collect()
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

impl State<'_> {
    /// Record that `relation` reads `segments`, in order, as its newest
    /// recording (one more than any before: where rows cannot be deleted, a
    /// relation made again after a killed run keeps its earlier rows).
    pub fn record_segments(&self, relation: &str, segments: &[Segment]) -> Result<(), Failure> {
        let wh = self.wh();
        if segments.is_empty() {
            return Ok(());
        }
        let quoted = wh.ident(SEGMENTS);
        let rows: Vec<String> = segments
            .iter()
            .enumerate()
            .map(|(i, s)| {
                format!(
                    "SELECT {} AS relation, CAST({i} AS BIGINT) AS ordinal, {} AS segment, CAST({} AS BIGINT) AS row_count",
                    wh.string(relation),
                    wh.string(&s.table),
                    s.rows
                )
            })
            .collect();
        wh.exec(&format!(
            "INSERT INTO {quoted} (relation, ordinal, segment, row_count, generation) \
             SELECT v.relation, v.ordinal, v.segment, v.row_count, g.n FROM ({}) AS v \
             CROSS JOIN (SELECT COALESCE(MAX(generation), 0) + 1 AS n FROM {quoted} WHERE relation = {}) AS g",
            rows.join(" UNION ALL "),
            wh.string(relation)
        ))
    }

    /// `relation`, just written as a table of its own, is its own storage
    /// again: where rows cannot be deleted and a killed run recorded it as
    /// segments, a newer recording says so (itself, its one segment).
    pub fn own_segments(&self, relation: &str, rows: i64) -> Result<(), Failure> {
        let wh = self.wh();
        if wh.capabilities().row_deletes {
            return Ok(());
        }
        let recorded = wh.count(&format!(
            "SELECT COUNT(*) FROM {} WHERE relation = {}",
            wh.ident(SEGMENTS),
            wh.string(relation)
        ))?;
        if recorded == 0 {
            return Ok(());
        }
        self.record_segments(
            relation,
            &[Segment {
                table: relation.to_string(),
                rows,
            }],
        )
    }

    /// Forget the segments of a relation that was dropped (where rows can be
    /// deleted; elsewhere they stay, naming a relation that is gone).
    pub fn forget_segments(&self, relation: &str) -> Result<(), Failure> {
        self.delete_where(SEGMENTS, "relation", relation)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(relation: &str, generation: i64, ordinal: i64, table: &str) -> Recorded {
        Recorded {
            relation: relation.to_string(),
            generation,
            ordinal,
            segment: Segment {
                table: table.to_string(),
                rows: 1,
            },
        }
    }

    fn tables(chains: &BTreeMap<String, Vec<Segment>>, relation: &str) -> Vec<String> {
        chains[relation].iter().map(|s| s.table.clone()).collect()
    }

    /// A relation recorded twice (a killed run's chain, then its rerun's
    /// after a gc) reads its last recording only, whatever the row order;
    /// rows of an older release (generation 0) are the first recording.
    #[test]
    fn the_last_recording_of_a_relation_is_its_chain_in_any_row_order() {
        let rows = || {
            vec![
                row("in_r", 1, 2, "seg_r"),
                row("in_r", 2, 1, "seg_r"),
                row("in_r", 1, 0, "in_1"),
                row("in_r", 2, 0, "in_1"),
                row("in_r", 1, 1, "seg_2"),
                row("old", 0, 1, "seg_old"),
                row("old", 0, 0, "base"),
            ]
        };
        for reversed in [false, true] {
            let mut recorded = rows();
            if reversed {
                recorded.reverse();
            }
            let chains = chains(recorded);
            assert_eq!(tables(&chains, "in_r"), ["in_1", "seg_r"]);
            assert_eq!(tables(&chains, "old"), ["base", "seg_old"]);
        }
    }

    /// A relation last recorded as itself is a table of its own again.
    #[test]
    fn a_relation_recorded_as_itself_is_its_own_storage() {
        let chains = chains(vec![
            row("in_r", 1, 0, "in_1"),
            row("in_r", 1, 1, "seg_r"),
            row("in_r", 2, 0, "in_r"),
        ]);
        assert!(!chains.contains_key("in_r"));
    }
}
