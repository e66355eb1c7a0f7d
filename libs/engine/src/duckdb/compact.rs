//! What a DuckDB file takes, and giving back the blocks dropped tables
//! left free inside it.
//!
//! DuckDB never shrinks its file: a dropped table's blocks are free inside
//! it, reused by later writes. A compaction copies every table and view
//! into a new file (`COPY FROM DATABASE`), checks the copy (the same
//! relations, the same row counts), and renames it over the warehouse:
//! one atomic step, so a compaction killed at any moment leaves either the
//! old file whole or the new one complete. It runs under the writer lock;
//! the connection then moves to the new file.
//!
//! The old file's connection must not write after the rename (its
//! write-ahead log has the new file's name): a checkpoint empties the log
//! first, and nothing is written to the old file after it.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::DuckDb;
use crate::{Compaction, Connection, Failure, Size};

/// The name the copy is attached under while it is written and checked.
const COPY_ALIAS: &str = "strata_compact";

impl DuckDb {
    /// The warehouse file, absolute; `None` in memory.
    fn file(&self) -> Option<PathBuf> {
        if self.file == ":memory:" {
            return None;
        }
        std::path::absolute(&self.file).ok()
    }

    /// The file and its write-ahead log, in bytes.
    fn bytes_on_disk(file: &Path) -> i64 {
        let len = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len() as i64);
        len(file) + len(&wal_of(file))
    }

    /// The file's size and the free blocks inside it (after a checkpoint:
    /// the blocks of tables dropped since are free only then).
    pub(super) fn file_size(&self) -> Result<Option<Size>, Failure> {
        let Some(file) = self.file() else {
            return Ok(None);
        };
        self.exec("CHECKPOINT")?;
        let free = self.rows(
            "SELECT CAST(block_size * free_blocks AS BIGINT) FROM pragma_database_size() \
             WHERE database_name = current_database()",
        )?;
        let free = free
            .first()
            .and_then(|r| r.first().cloned().flatten())
            .and_then(|v| v.parse().ok());
        Ok(Some(Size {
            what: "DuckDB file".into(),
            bytes: Self::bytes_on_disk(&file),
            free,
        }))
    }

    /// The bytes each table's blocks take (after a checkpoint, so that
    /// every segment is in a block); a block several tables share is
    /// shared out evenly between them. Views take none.
    pub(super) fn table_bytes(&self, tables: &[String]) -> Result<Vec<Option<i64>>, Failure> {
        if tables.is_empty() || self.file().is_none() {
            return Ok(vec![None; tables.len()]);
        }
        self.exec("CHECKPOINT")?;
        let listed: Vec<String> = tables.iter().map(|t| self.string(t)).collect();
        let base: std::collections::HashSet<String> = self
            .rows(&format!(
                "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database() \
                 AND schema_name = current_schema() AND table_name IN ({})",
                listed.join(", ")
            ))?
            .into_iter()
            .filter_map(|r| r.into_iter().next().flatten())
            .collect();
        let block_size: i64 = self
            .rows(
                "SELECT block_size FROM pragma_database_size() WHERE database_name = current_database()",
            )?
            .first()
            .and_then(|r| r.first().cloned().flatten())
            .and_then(|v| v.parse().ok())
            .unwrap_or(262_144);
        let parts: Vec<String> = tables
            .iter()
            .enumerate()
            .filter(|(_, t)| base.contains(*t))
            .map(|(i, t)| {
                format!(
                    "SELECT {i} AS i, block_id AS b FROM pragma_storage_info({0}) WHERE block_id >= 0 \
                     UNION ALL SELECT {i}, unnest(additional_block_ids) FROM pragma_storage_info({0})",
                    self.string(t)
                )
            })
            .collect();
        // Views (and names that are not there) take nothing.
        let mut out: Vec<Option<i64>> = vec![Some(0); tables.len()];
        if parts.is_empty() {
            return Ok(out);
        }
        let rows = self.rows(&format!(
            "SELECT DISTINCT i, b FROM ({}) AS s",
            parts.join(" UNION ALL ")
        ))?;
        let mut users: HashMap<i64, Vec<usize>> = HashMap::new();
        for r in rows {
            let cell = |k: usize| r.get(k).cloned().flatten().and_then(|v| v.parse().ok());
            if let (Some(i), Some(b)) = (cell(0), cell(1)) {
                users.entry(b).or_default().push(i as usize);
            }
        }
        for who in users.values() {
            let share = block_size / who.len() as i64;
            for &i in who {
                if let Some(Some(bytes)) = out.get_mut(i) {
                    *bytes += share;
                }
            }
        }
        Ok(out)
    }

    /// Rewrite the file without its free blocks and swap it in (see the
    /// module's text).
    pub(super) fn compact_file(&self, at: &dyn Fn(&str)) -> Result<Option<Compaction>, Failure> {
        let Some(file) = self.file() else {
            return Ok(None);
        };
        let io = |what: &str, e: std::io::Error| {
            Failure::Environment(format!("cannot compact {}: {what}: {e}", self.path))
        };
        // The log emptied: nothing of the old file lives only in it, and
        // the old connection has nothing to write to it after the swap.
        self.exec("CHECKPOINT")?;
        let before = Self::bytes_on_disk(&file);
        // What a compaction killed earlier left, then this one's copy.
        for leftover in leftover_copies(&file) {
            remove_copy(&leftover);
        }
        let copy = sibling(&file, &format!(".compact-{}", std::process::id()));
        at("before compact copy");
        let database = self
            .rows("SELECT current_database()")?
            .first()
            .and_then(|r| r.first().cloned().flatten())
            .unwrap_or_default();
        // The copy keeps the file's storage version, so that whatever read
        // the warehouse before (an older DuckDB) still can.
        let version = self.storage_version()?;
        let attach = |options: &str| {
            self.exec(&format!(
                "ATTACH {} AS {COPY_ALIAS}{options}",
                self.string(&copy.to_string_lossy())
            ))
        };
        let attached = match &version {
            Some(v) => attach(&format!(" (STORAGE_VERSION {})", self.string(v))).or_else(|_| {
                remove_copy(&copy);
                attach("")
            }),
            None => attach(""),
        };
        let written = attached
            .and_then(|()| {
                self.exec(&format!(
                    "COPY FROM DATABASE {} TO {COPY_ALIAS}; DETACH {COPY_ALIAS}",
                    self.ident(&database)
                ))
            })
            .and_then(|()| self.same_relations(&copy, &database));
        if let Err(e) = written {
            let _ = self.exec(&format!("DETACH DATABASE IF EXISTS {COPY_ALIAS}"));
            remove_copy(&copy);
            return Err(e);
        }
        std::fs::File::open(&copy)
            .and_then(|f| f.sync_all())
            .map_err(|e| io("syncing the copy", e))?;
        at("before compact swap");
        // The swap: one rename; whoever opens the warehouse from now on
        // opens the compacted file.
        std::fs::rename(&copy, &file).map_err(|e| io("renaming the copy into place", e))?;
        if let Some(dir) = file.parent() {
            let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
        }
        let after = Self::bytes_on_disk(&file);
        // Carry on with the new file (taking its lock).
        let fresh = DuckDb::open(&self.path, Duration::from_secs(30))?;
        self.conn.replace(fresh.conn.into_inner());
        Ok(Some(Compaction { before, after }))
    }

    /// The storage version of the warehouse file (`v1.2.0`), as DuckDB
    /// tags it.
    fn storage_version(&self) -> Result<Option<String>, Failure> {
        let rows = self.rows(
            "SELECT CAST(tags['storage_version'] AS VARCHAR) FROM duckdb_databases() \
             WHERE database_name = current_database()",
        )?;
        Ok(rows
            .first()
            .and_then(|r| r.first().cloned().flatten())
            .map(|v| v.trim_matches(['[', ']', '+', ' ']).to_string())
            .filter(|v| v.starts_with('v')))
    }

    /// Fail unless the copy at `copy` has the same tables and views as
    /// `database`, each table with as many rows.
    fn same_relations(&self, copy: &Path, database: &str) -> Result<(), Failure> {
        self.exec(&format!(
            "ATTACH {} AS {COPY_ALIAS} (READ_ONLY)",
            self.string(&copy.to_string_lossy())
        ))?;
        let same = (|| {
            let a = self.relations_and_rows(database)?;
            let b = self.relations_and_rows(COPY_ALIAS)?;
            Ok::<bool, Failure>(a == b)
        })();
        self.exec(&format!("DETACH {COPY_ALIAS}"))?;
        match same? {
            true => Ok(()),
            false => Err(Failure::Environment(format!(
                "cannot compact {}: the copy does not hold the same tables and rows; the warehouse was left as it was",
                self.path
            ))),
        }
    }

    /// Every table and view of `catalog` (`schema.name:type`), and the row
    /// count of each table.
    fn relations_and_rows(&self, catalog: &str) -> Result<Vec<String>, Failure> {
        let c = self.string(catalog);
        let relations = self.rows(&format!(
            "SELECT table_schema, table_name, table_type FROM information_schema.tables \
             WHERE table_catalog = {c} ORDER BY 1, 2"
        ))?;
        let mut out = Vec::new();
        let mut counts = Vec::new();
        for r in relations {
            let cell = |k: usize| r.get(k).cloned().flatten().unwrap_or_default();
            let (schema, name, kind) = (cell(0), cell(1), cell(2));
            out.push(format!("{schema}.{name}:{kind}"));
            if kind == "BASE TABLE" {
                counts.push(format!(
                    "SELECT {} || ':' || CAST(COUNT(*) AS VARCHAR) FROM {}.{}.{}",
                    self.string(&format!("{schema}.{name}")),
                    self.ident(catalog),
                    self.ident(&schema),
                    self.ident(&name)
                ));
            }
        }
        if !counts.is_empty() {
            out.extend(
                self.rows(&counts.join(" UNION ALL "))?
                    .into_iter()
                    .filter_map(|r| r.into_iter().next().flatten()),
            );
            out.sort();
        }
        Ok(out)
    }
}

/// `<file><suffix>` beside `file`.
fn sibling(file: &Path, suffix: &str) -> PathBuf {
    let mut name = file.file_name().unwrap_or_default().to_os_string();
    name.push(suffix);
    file.with_file_name(name)
}

/// DuckDB's write-ahead log of a database file.
fn wal_of(file: &Path) -> PathBuf {
    sibling(file, ".wal")
}

/// Remove a copy (and its log) left by a compaction that did not finish.
fn remove_copy(copy: &Path) {
    let _ = std::fs::remove_file(copy);
    let _ = std::fs::remove_file(wal_of(copy));
}

/// The copies earlier compactions killed midway left beside `file`
/// (`<file>.compact-<pid>`), to be removed.
fn leftover_copies(file: &Path) -> Vec<PathBuf> {
    let Some(name) = file.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return Vec::new();
    };
    let prefix = format!("{name}.compact-");
    let Some(dir) = file.parent() else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
        })
        .collect()
}
