//! The frozen inputs, `_strata_inputs`: one row per stored copy of a
//! source's content (a table, a view of a file in the input store, a view
//! over the segments of a delta freeze, or a view reading the source in
//! place for `freeze = "hash"`), read and written here only.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use strata_engine::Failure;

use super::schema::INPUTS;
use super::{State, StateReader};

/// How an input was frozen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum How {
    /// A copy of its rows: a table, or a view of a file copied into the
    /// input store.
    Copy,
    /// A view over segments: an earlier freeze's, and one of the rows
    /// added since.
    Delta,
    /// No relation: the source was read in place, only its content hash
    /// is kept.
    Hash,
}

impl How {
    pub fn as_str(self) -> &'static str {
        match self {
            How::Copy => "copy",
            How::Delta => "delta",
            How::Hash => "hash",
        }
    }

    fn parse(text: Option<&str>) -> How {
        match text {
            Some("delta") => How::Delta,
            Some("hash") => How::Hash,
            _ => How::Copy,
        }
    }
}

/// An input frozen by an earlier run (a row of `_strata_inputs`).
#[derive(Clone, Debug)]
pub struct FrozenEarlier {
    pub source: String,
    pub content_hash: String,
    pub table: String,
    pub rows: i64,
    /// The stored copy its view reads, for a file frozen by copying it.
    pub file: Option<String>,
    pub how: How,
    /// The append column it was frozen with, and its greatest value then
    /// (as text): where a delta from it starts.
    pub append_column: Option<String>,
    pub watermark: Option<String>,
    /// What a `hash` freeze reads in place.
    pub origin: Option<String>,
}

/// What a freeze records.
pub struct Record<'a> {
    pub source: &'a str,
    pub content_hash: &'a str,
    pub rows: i64,
    pub table: &'a str,
    pub file: Option<&'a Path>,
    pub how: How,
    pub append_column: Option<&'a str>,
    pub watermark: Option<&'a str>,
    pub origin: Option<&'a str>,
}

const COLUMNS: &str =
    "source, content_hash, table_name, row_count, file, frozen_as, append_column, append_max, origin";

fn parse_rows(rows: strata_engine::Rows) -> Vec<FrozenEarlier> {
    rows.into_iter()
        .filter_map(|r| {
            let mut cells = r.into_iter();
            Some(FrozenEarlier {
                source: cells.next()??,
                content_hash: cells.next()??,
                table: cells.next()??,
                rows: cells
                    .next()
                    .flatten()
                    .and_then(|n| n.parse().ok())
                    .unwrap_or(0),
                file: cells.next().flatten(),
                how: How::parse(cells.next().flatten().as_deref()),
                append_column: cells.next().flatten(),
                watermark: cells.next().flatten(),
                origin: cells.next().flatten(),
            })
        })
        .collect()
}

impl StateReader<'_> {
    /// The inputs frozen earlier with one of these content hashes: one lookup
    /// for every input of a run.
    pub fn frozen_earlier<'h>(
        &self,
        hashes: impl IntoIterator<Item = &'h str>,
    ) -> Result<Vec<FrozenEarlier>, Failure> {
        let wh = self.wh();
        let hashes: Vec<String> = hashes.into_iter().map(|h| wh.string(h)).collect();
        if hashes.is_empty() {
            return Ok(Vec::new());
        }
        Ok(parse_rows(wh.rows(&format!(
            "SELECT {COLUMNS} FROM {} WHERE content_hash IN ({})",
            wh.ident(INPUTS),
            hashes.join(", ")
        ))?))
    }

    /// Every frozen input, by its table (the last row of a table wins: a row
    /// Spark could not delete names a table that is gone, and one frozen again
    /// under that name is recorded after it).
    pub fn frozen_all(&self) -> Result<BTreeMap<String, FrozenEarlier>, Failure> {
        let wh = self.wh();
        Ok(
            parse_rows(wh.rows(&format!("SELECT {COLUMNS} FROM {}", wh.ident(INPUTS)))?)
                .into_iter()
                .map(|f| (f.table.clone(), f))
                .collect(),
        )
    }

    /// The content hash of every frozen input, by its table.
    pub fn frozen_hashes(&self) -> Result<HashMap<String, String>, Failure> {
        let wh = self.wh();
        Ok(wh
            .rows(&format!(
                "SELECT table_name, content_hash FROM {}",
                wh.ident(INPUTS)
            ))?
            .into_iter()
            .filter_map(|r| {
                let mut r = r.into_iter();
                Some((r.next()??, r.next()??))
            })
            .collect())
    }

    /// The stored file each frozen input's view reads, by its table.
    pub fn stored_files(&self) -> Result<BTreeMap<String, String>, Failure> {
        let wh = self.wh();
        Ok(wh
            .rows(&format!(
                "SELECT table_name, file FROM {} WHERE file IS NOT NULL",
                wh.ident(INPUTS)
            ))?
            .into_iter()
            .filter_map(|r| Some((r.first()?.clone()?, r.get(1)?.clone()?)))
            .collect())
    }
}

impl State<'_> {
    /// Record a frozen input.
    pub fn record_frozen(&self, r: &Record) -> Result<(), Failure> {
        let wh = self.wh();
        let text = |v: Option<&str>| v.map_or("NULL".to_string(), |v| wh.string(v));
        let file = r.file.map(|c| c.to_string_lossy().into_owned());
        wh.exec(&format!(
            "INSERT INTO {} ({COLUMNS}) VALUES ({}, {}, {}, {}, {}, {}, {}, {}, {})",
            wh.ident(INPUTS),
            wh.string(r.source),
            wh.string(r.content_hash),
            wh.string(r.table),
            r.rows,
            text(file.as_deref()),
            wh.string(r.how.as_str()),
            text(r.append_column),
            text(r.watermark),
            text(r.origin),
        ))
    }

    /// Forget a frozen input whose table was dropped. Without row deletes
    /// (Spark's parquet tables) the row stays: it names a table that no longer
    /// exists, which a freeze never reuses (it checks that the table is there).
    pub fn forget_frozen(&self, table: &str) -> Result<(), Failure> {
        self.delete_where(INPUTS, "table_name", table)
    }
}
