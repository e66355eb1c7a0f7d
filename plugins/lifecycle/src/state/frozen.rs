//! The frozen inputs, `_strata_inputs`: one row per stored copy of a
//! source's content (a table, or a view of a file in the input store),
//! read and written here only.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use strata_engine::{Failure, Warehouse};

use super::schema::INPUTS;

/// An input frozen by an earlier run (a row of `_strata_inputs`).
pub struct FrozenEarlier {
    pub source: String,
    pub content_hash: String,
    pub table: String,
    /// The stored copy its view reads, for a file frozen by copying it.
    pub file: Option<String>,
}

/// The inputs frozen earlier with one of these content hashes: one lookup
/// for every input of a run.
pub fn earlier<'h>(
    wh: &Warehouse,
    hashes: impl IntoIterator<Item = &'h str>,
) -> Result<Vec<FrozenEarlier>, Failure> {
    let hashes: Vec<String> = hashes.into_iter().map(|h| wh.string(h)).collect();
    if hashes.is_empty() {
        return Ok(Vec::new());
    }
    let rows = wh.rows(&format!(
        "SELECT source, content_hash, table_name, file FROM {} WHERE content_hash IN ({})",
        wh.ident(INPUTS),
        hashes.join(", ")
    ))?;
    Ok(rows
        .into_iter()
        .filter_map(|r| {
            let mut cells = r.into_iter();
            Some(FrozenEarlier {
                source: cells.next()??,
                content_hash: cells.next()??,
                table: cells.next()??,
                file: cells.next().flatten(),
            })
        })
        .collect())
}

/// Record that `table` holds `rows` rows of `source` with content hash
/// `content` (read through a view of the stored `file`, when given).
pub fn record(
    wh: &Warehouse,
    (source, content, rows): (&str, &str, i64),
    table: &str,
    file: Option<&Path>,
) -> Result<(), Failure> {
    let file = file.map_or("NULL".to_string(), |c| wh.string(&c.to_string_lossy()));
    wh.exec(&format!(
        "INSERT INTO {} (content_hash, source, table_name, row_count, file) VALUES ({}, {}, {}, {rows}, {file})",
        wh.ident(INPUTS),
        wh.string(content),
        wh.string(source),
        wh.string(table)
    ))
}

/// The content hash of every frozen input, by its table.
pub fn content_hashes(wh: &Warehouse) -> Result<HashMap<String, String>, Failure> {
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
pub fn stored_files(wh: &Warehouse) -> Result<BTreeMap<String, String>, Failure> {
    Ok(wh
        .rows(&format!(
            "SELECT table_name, file FROM {} WHERE file IS NOT NULL",
            wh.ident(INPUTS)
        ))?
        .into_iter()
        .filter_map(|r| Some((r.first()?.clone()?, r.get(1)?.clone()?)))
        .collect())
}

/// Forget a frozen input whose table was dropped. Without row deletes
/// (Spark's parquet tables) the row stays: it names a table that no longer
/// exists, which a freeze never reuses (it checks that the table is there).
pub fn forget(wh: &Warehouse, table: &str) -> Result<(), Failure> {
    if !wh.capabilities().row_deletes {
        return Ok(());
    }
    wh.exec(&format!(
        "DELETE FROM {} WHERE table_name = {}",
        wh.ident(INPUTS),
        wh.string(table)
    ))
}
