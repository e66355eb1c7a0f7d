//! Which relation each source reads (after overrides), checking that it
//! exists before anything runs, and freezing source contents for a run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use strata_lang::ir;

use crate::warehouse::{ident, string, Warehouse};
use crate::Failure;

/// Where a source's rows come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A table or view in the warehouse.
    Table(String),
    /// A `.csv`, `.parquet` or `.json` file read by DuckDB.
    File(PathBuf),
}

impl Origin {
    /// The SQL relation reading it (quoted / escaped).
    pub fn relation(&self) -> String {
        match self {
            Origin::Table(t) => ident(t),
            Origin::File(p) => {
                let path = string(&p.to_string_lossy());
                match p
                    .extension()
                    .and_then(|e| e.to_str())
                    .map(str::to_ascii_lowercase)
                    .as_deref()
                {
                    Some("parquet") => format!("read_parquet({path})"),
                    Some("json") | Some("jsonl") | Some("ndjson") => {
                        format!("read_json_auto({path})")
                    }
                    _ => format!("read_csv_auto({path})"),
                }
            }
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Origin::Table(t) => format!("table {t}"),
            Origin::File(p) => format!("file {}", p.display()),
        }
    }
}

/// `NAME=TABLE_OR_FILE` from `--source`: a value naming a file (by its
/// extension or a path separator) is a file, relative to the current
/// directory; anything else a table.
pub fn parse_source_flag(flag: &str) -> Result<(String, Origin), Failure> {
    let Some((name, value)) = flag.split_once('=') else {
        return Err(Failure::Usage(format!(
            "--source expects NAME=TABLE_OR_FILE, got '{flag}'"
        )));
    };
    let (name, value) = (name.trim(), value.trim());
    if name.is_empty() || value.is_empty() {
        return Err(Failure::Usage(format!(
            "--source expects NAME=TABLE_OR_FILE, got '{flag}'"
        )));
    }
    Ok((name.to_string(), origin_of(value, Path::new("."))))
}

fn origin_of(value: &str, base: &Path) -> Origin {
    let lower = value.to_ascii_lowercase();
    let is_file = [".csv", ".parquet", ".json", ".jsonl", ".ndjson", ".tsv"]
        .iter()
        .any(|e| lower.ends_with(e))
        || value.contains('/')
        || value.contains('\\');
    if is_file {
        let p = Path::new(value);
        Origin::File(if p.is_absolute() {
            p.to_path_buf()
        } else {
            base.join(p)
        })
    } else {
        Origin::Table(value.to_string())
    }
}

/// The origin of every source the module declares: its own name, then the
/// selected pipeline's override, then `--source` flags (last wins). An
/// unknown source name is an environment error (exit 4), like a missing
/// table or file: nothing runs.
pub fn resolve(
    module: &ir::Module,
    pipeline: Option<&ir::Pipeline>,
    flags: &[(String, Origin)],
    module_dir: &Path,
) -> Result<BTreeMap<String, Origin>, Failure> {
    let mut out: BTreeMap<String, Origin> = module
        .sources
        .iter()
        .map(|s| (s.name.clone(), Origin::Table(s.name.clone())))
        .collect();
    let known = |name: &str| -> Result<(), Failure> {
        if out_contains(module, name) {
            Ok(())
        } else {
            let hint =
                strata_lang::suggest::closest(name, module.sources.iter().map(|s| s.name.as_str()))
                    .map(|s| format!(" (did you mean `{s}`?)"))
                    .unwrap_or_default();
            Err(Failure::Environment(format!(
                "unknown source '{name}'{hint}"
            )))
        }
    };
    if let Some(p) = pipeline {
        for (name, args) in &p.sources {
            known(name)?;
            let arg = |k: &str| args.iter().find(|(a, _)| a == k).map(|(_, v)| v.clone());
            if let Some(path) = arg("path") {
                out.insert(name.clone(), origin_of(&path, module_dir));
            } else if let Some(table) = arg("dataset").or_else(|| arg("table")) {
                out.insert(name.clone(), Origin::Table(table));
            }
        }
    }
    for (name, origin) in flags {
        known(name)?;
        out.insert(name.clone(), origin.clone());
    }
    Ok(out)
}

fn out_contains(module: &ir::Module, name: &str) -> bool {
    module.sources.iter().any(|s| s.name == name)
}

/// Fail (exit 4) unless every origin in `needed` exists.
pub fn check_exist(
    wh: &Warehouse,
    origins: &BTreeMap<String, Origin>,
    needed: &[String],
) -> Result<(), Failure> {
    for name in needed {
        let Some(origin) = origins.get(name) else {
            continue;
        };
        let ok = match origin {
            Origin::Table(t) => wh.relation_exists(t)?,
            Origin::File(p) => p.is_file(),
        };
        if !ok {
            let hint = match origin {
                Origin::Table(_) => format!(
                    "; load it into the warehouse {}, or point the source elsewhere with --source {name}=FILE_OR_TABLE",
                    wh.path
                ),
                Origin::File(_) => String::new(),
            };
            return Err(Failure::Environment(format!(
                "source '{name}' reads {}, which does not exist{hint}",
                origin.describe()
            )));
        }
    }
    Ok(())
}

/// A content hash of a relation: its column names and types, its row count
/// and an order-independent sum of row hashes.
pub fn content_hash(wh: &Warehouse, relation: &str) -> Result<(String, i64), Failure> {
    let schema = wh.rows(&format!("DESCRIBE SELECT * FROM {relation}"))?;
    let rows = wh.rows(&format!(
        "SELECT COUNT(*), CAST(COALESCE(SUM(CAST(hash(t) AS HUGEINT)), 0) AS VARCHAR) FROM (SELECT * FROM {relation}) AS t"
    ))?;
    let (count, sum) = rows
        .first()
        .map(|r| {
            (
                r.first().cloned().flatten().unwrap_or_default(),
                r.get(1).cloned().flatten().unwrap_or_default(),
            )
        })
        .unwrap_or_default();
    let mut h = Sha256::new();
    for col in &schema {
        h.update(
            col.first()
                .cloned()
                .flatten()
                .unwrap_or_default()
                .as_bytes(),
        );
        h.update(b":");
        h.update(col.get(1).cloned().flatten().unwrap_or_default().as_bytes());
        h.update(b",");
    }
    h.update(b"|");
    h.update(count.as_bytes());
    h.update(b"|");
    h.update(sum.as_bytes());
    let digest: String = h
        .finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok((digest, count.parse().unwrap_or(0)))
}

/// Freeze a source: reuse a table frozen earlier with the same content, or
/// copy the rows into `input_<run_id>_<source>`. Returns the table name.
pub fn freeze(
    wh: &Warehouse,
    source: &str,
    origin: &Origin,
    content: &str,
    rows: i64,
    run_id: &str,
) -> Result<(String, bool), Failure> {
    let existing = wh.rows(&format!(
        "SELECT table_name FROM \"_strata_inputs\" WHERE content_hash = {} AND source = {}",
        string(content),
        string(source)
    ))?;
    for row in existing {
        if let Some(Some(t)) = row.first() {
            if wh.relation_exists(t)? {
                return Ok((t.clone(), true));
            }
        }
    }
    let table = format!("input_{run_id}_{source}");
    wh.exec(&format!(
        "CREATE OR REPLACE TABLE {} AS SELECT * FROM {}",
        ident(&table),
        origin.relation()
    ))?;
    wh.exec(&format!(
        "INSERT INTO \"_strata_inputs\" VALUES ({}, {}, {}, {rows})",
        string(content),
        string(source),
        string(&table)
    ))?;
    Ok((table, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_flags() {
        let (n, o) = parse_source_flag("orders=data/orders.csv").unwrap_or_else(|_| panic!());
        assert_eq!(n, "orders");
        assert_eq!(o, Origin::File(PathBuf::from("./data/orders.csv")));
        let (_, o) = parse_source_flag("orders=orders_dev").unwrap_or_else(|_| panic!());
        assert_eq!(o, Origin::Table("orders_dev".into()));
        assert!(parse_source_flag("orders").is_err());
        assert!(parse_source_flag("=x").is_err());
    }

    #[test]
    fn file_relations_are_escaped() {
        let o = Origin::File(PathBuf::from("it's.parquet"));
        assert_eq!(o.relation(), "read_parquet('it''s.parquet')");
        assert_eq!(Origin::Table("a\"b".into()).relation(), "\"a\"\"b\"");
    }
}
