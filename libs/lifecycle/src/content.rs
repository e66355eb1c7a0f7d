//! What a source holds: its content hash (of its rows, or of a stored
//! file's bytes), row count and the greatest value of its append column,
//! and how strata.toml says to freeze it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use strata_engine::{Failure, FileFormat, Origin, Rows};
use strata_lang::sql::Dialect;

use crate::session::Session;

/// How strata.toml's `[sources.NAME]` says a source is frozen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourcePolicy {
    /// `append-column`: rows arrive with greater values of this column (a
    /// monotonic id, a load timestamp). A freeze whose older rows still
    /// hash to the last freeze's content is that freeze plus a segment of
    /// the new rows.
    pub append_column: Option<String>,
    /// `freeze = "hash"`: keep only the content hash and read the source
    /// in place (replay then needs the source unchanged).
    pub by_hash: bool,
}

/// What hashing a source found: its content hash and row count (what a
/// freeze records and `plan` compares), and what a delta freeze is checked
/// with.
#[derive(Clone, Debug, Default)]
pub struct Scanned {
    pub content: String,
    pub rows: i64,
    /// The exact sum of its row hashes as the engine wrote it (empty for a
    /// file hashed by its bytes).
    pub sum: String,
    /// Its columns: name and physical type.
    pub schema: Vec<(String, String)>,
    /// The greatest value of its append column, as text (`None` without
    /// one, or without rows).
    pub max: Option<String>,
    /// Hashed by its file's bytes: a file the store copies.
    pub by_file: bool,
}

/// The content hash and row count of each scanned source.
pub fn contents(scanned: &BTreeMap<String, Scanned>) -> BTreeMap<String, (String, i64)> {
    scanned
        .iter()
        .map(|(s, x)| (s.clone(), (x.content.clone(), x.rows)))
        .collect()
}

impl Session<'_> {
    /// The query whose one row (the row count, the sum of row hashes, and the
    /// greatest value of `max_of` when given) a relation's content hash
    /// digests: a content hash is of the relation's column names and types,
    /// its row count and an order-independent sum of row hashes. `filter`
    /// keeps some of its rows (`WHERE ...` on `t`).
    pub(crate) fn content_query(
        &self,
        relation: &str,
        max_of: Option<&str>,
        filter: Option<&str>,
    ) -> String {
        let wh = self.wh();
        let max = max_of.map_or(String::new(), |c| {
            format!(", {}", wh.text(&format!("MAX(t.{c})")))
        });
        let filter = filter.map_or(String::new(), |f| format!(" WHERE {f}"));
        format!(
            "SELECT COUNT(*), {}{max} FROM (SELECT * FROM {relation}) AS t{filter}",
            wh.text(&wh.hash_sum("t"))
        )
    }

    /// Whether a source is frozen by copying its file: a Parquet or JSON file
    /// on an engine with a file store ([`strata_engine::Capabilities::file_store`]). The
    /// store and the extension of the copy. (A CSV file is still imported:
    /// typing it is most of reading it.)
    fn copied(&self, origin: &Origin) -> Option<(PathBuf, &'static str)> {
        let wh = self.wh();
        let Origin::File(path) = origin else {
            return None;
        };
        let ext = match Origin::file_format(path) {
            FileFormat::Parquet => "parquet",
            FileFormat::Json => "json",
            FileFormat::Csv => return None,
        };
        Some((wh.capabilities().file_store?, ext))
    }

    /// Where a copied source's file is kept: named by its content hash, so a
    /// file seen before is recognised without reading it through the engine.
    pub(crate) fn stored_copy(&self, origin: &Origin, content: &str) -> Option<PathBuf> {
        let (store, ext) = self.copied(origin)?;
        Some(store.join(format!("{content}.{ext}")))
    }

    /// The content hash and row count of each source (name, origin, relation):
    /// the hash of the file's bytes for a file the store keeps, else the
    /// content hash of its rows ([`digest`]), with the greatest value of the
    /// source's column in `max_of` (its append column). The scans, and the
    /// descriptions of the relations, run at once where the engine can
    /// ([`strata_engine::Connection::rows_each`]).
    pub fn source_hashes<'s>(
        &self,
        sources: impl IntoIterator<Item = (&'s str, &'s Origin, &'s str)>,
        max_of: &BTreeMap<String, String>,
    ) -> Result<BTreeMap<String, Scanned>, Failure> {
        let wh = self.wh();
        let mut hashes = BTreeMap::new();
        let mut scanned = Vec::new();
        for (source, origin, relation) in sources {
            match origin {
                Origin::File(path) if self.copied(origin).is_some() => {
                    let hash = file_hash(path)?;
                    // Parquet keeps its row count in its footer: no scan.
                    let rows = wh.count(&format!("SELECT COUNT(*) FROM {relation}"))?;
                    hashes.insert(
                        source.to_string(),
                        Scanned {
                            content: hash,
                            rows,
                            by_file: true,
                            ..Scanned::default()
                        },
                    );
                }
                _ => scanned.push((source, relation)),
            }
        }
        let relations: Vec<String> = scanned.iter().map(|(_, r)| r.to_string()).collect();
        let schemas = wh.columns_each(&relations)?;
        let columns: Vec<Option<String>> = scanned
            .iter()
            .zip(&schemas)
            .map(|((source, _), schema)| {
                max_of
                    .get(*source)
                    .and_then(|c| column_in(wh.dialect(), schema, c))
            })
            .collect();
        let queries: Vec<String> = relations
            .iter()
            .zip(&columns)
            .map(|(r, c)| self.content_query(r, c.as_deref(), None))
            .collect();
        let answers = wh.rows_each(&queries)?;
        for (((source, _), rows), schema) in scanned.iter().zip(answers).zip(schemas) {
            let row = cells(&rows);
            let cell = |i: usize| row.get(i).cloned().flatten().unwrap_or_default();
            let (count, sum) = (cell(0), cell(1));
            hashes.insert(
                source.to_string(),
                Scanned {
                    content: digest(&schema, &count, &sum),
                    rows: count.parse().unwrap_or(0),
                    sum,
                    max: row.get(2).cloned().flatten(),
                    schema,
                    by_file: false,
                },
            );
        }
        Ok(hashes)
    }
}

/// The content hash of a relation of `schema` with `count` rows whose row
/// hashes sum to `sum` (both as the engine writes them).
pub(crate) fn digest(schema: &[(String, String)], count: &str, sum: &str) -> String {
    let mut h = Sha256::new();
    for (name, ty) in schema {
        h.update(name.as_bytes());
        h.update(b":");
        h.update(ty.as_bytes());
        h.update(b",");
    }
    h.update(b"|");
    h.update(count.as_bytes());
    h.update(b"|");
    h.update(sum.as_bytes());
    hex128(h)
}

/// The cells of the first row of a [`Session::content_query`]'s answer.
fn cells(rows: &Rows) -> Vec<Option<String>> {
    rows.first().cloned().unwrap_or_default()
}

/// A relation's column as `schema` names it (the name matched in any
/// case), quoted.
pub(crate) fn column_in(
    dialect: Dialect,
    schema: &[(String, String)],
    name: &str,
) -> Option<String> {
    schema
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(n, _)| dialect.ident(n))
}

/// The first 128 bits of a SHA-256, in hex: the form of every content
/// hash.
fn hex128(h: Sha256) -> String {
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The content hash of a file: SHA-256 of its bytes (cut to 128 bits, as
/// a relation's is).
pub fn file_hash(path: &Path) -> Result<String, Failure> {
    let mut file = std::fs::File::open(path)
        .map_err(|e| Failure::Environment(format!("cannot read {}: {e}", path.display())))?;
    let mut h = Sha256::new();
    std::io::copy(&mut file, &mut h)
        .map_err(|e| Failure::Environment(format!("cannot read {}: {e}", path.display())))?;
    Ok(hex128(h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parquet_and_json_files_are_copied_into_the_store_of_a_duckdb_file() {
        let dir = std::env::temp_dir().join(format!("strata-store-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let db = dir.join("w.duckdb");
        let open = |p: &str| {
            strata_engine::DuckDb::open(p, std::time::Duration::ZERO)
                .unwrap_or_else(|e| panic!("{e:?}"))
        };
        let file = open(&db.to_string_lossy());
        let memory = open(":memory:");
        let origin = |p: &str| Origin::File(PathBuf::from(p));
        let stored_copy = |wh: &strata_engine::DuckDb, o: &Origin, content: &str| {
            Session::new(wh, &crate::NoProgress).stored_copy(o, content)
        };
        assert_eq!(
            stored_copy(&file, &origin("in/o.parquet"), "ab12"),
            Some(dir.join("w.duckdb.inputs/ab12.parquet"))
        );
        assert_eq!(
            stored_copy(&file, &origin("e.ndjson"), "cd"),
            Some(dir.join("w.duckdb.inputs/cd.json"))
        );
        assert_eq!(stored_copy(&file, &origin("o.csv"), "ab12"), None);
        assert_eq!(stored_copy(&file, &Origin::table("o"), "ab12"), None);
        assert_eq!(stored_copy(&memory, &origin("o.parquet"), "ab12"), None);
        // The hash is of the bytes: the same bytes, the same hash.
        std::fs::write(dir.join("a"), b"rows").unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(dir.join("b"), b"rows").unwrap_or_else(|e| panic!("{e}"));
        let hash = |n: &str| file_hash(&dir.join(n)).unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(hash("a"), hash("b"));
        assert_eq!(hash("a").len(), 32);
        drop(file);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// DuckDB's content hash sums the row hashes in two BIGINT halves: the
    /// same number as the plain HUGEINT sum, and 0 over no rows.
    #[test]
    fn the_duckdb_hash_sum_is_the_exact_sum_of_the_row_hashes() {
        let wh = strata_engine::DuckDb::open(":memory:", std::time::Duration::ZERO)
            .unwrap_or_else(|e| panic!("{e:?}"));
        for filter in ["", " WHERE id < 0"] {
            let rows = format!(
                "(SELECT id, CAST(id * 7 AS VARCHAR) AS s FROM range(20000) AS r(id){filter}) AS t"
            );
            let sum = |expr: &str| {
                strata_engine::Connection::rows(
                    &wh,
                    &format!("SELECT CAST({expr} AS VARCHAR) FROM {rows}"),
                )
                .unwrap_or_else(|e| panic!("{e:?}"))
            };
            let ours = sum(&strata_engine::RunSql::hash_sum(&wh, "t"));
            assert_eq!(
                ours,
                sum("COALESCE(SUM(CAST(hash(t) AS HUGEINT)), 0)"),
                "{filter}"
            );
            assert_eq!(ours.len(), 1);
        }
    }
}
