//! Which relation each source reads (after overrides), checking that it
//! exists before anything runs, and freezing source contents for a run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use strata_codes as codes;
use strata_lang::ir;
use strata_lang::{Diagnostic, Span};

use strata_engine::{Failure, FileFormat, Origin, Rows, Warehouse};

use crate::naming::frozen_input;
use crate::state::frozen::{self, FrozenEarlier};
use crate::work::Work;

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

/// Fail (exit 4) unless every origin in `needed` exists; every missing one
/// is named.
pub fn check_exist(
    wh: &Warehouse,
    origins: &BTreeMap<String, Origin>,
    needed: &[String],
) -> Result<(), Failure> {
    let mut missing = Vec::new();
    let mut tables = Vec::new();
    for name in needed {
        let Some(origin) = origins.get(name) else {
            continue;
        };
        let ok = match origin {
            Origin::Table(t) => wh.relation_exists(t)?,
            Origin::File(p) => p.is_file(),
        };
        if !ok {
            missing.push(format!(
                "source '{name}' reads {}, which does not exist",
                origin.describe()
            ));
            if matches!(origin, Origin::Table(_)) {
                tables.push(name);
            }
        }
    }
    let hint = match tables.as_slice() {
        [] => String::new(),
        [name] => format!(
            "; load it into the warehouse {}, or point the source elsewhere with --source {name}=FILE_OR_TABLE",
            wh.name()
        ),
        _ => format!(
            "; load the tables into the warehouse {}, or point the sources elsewhere with --source NAME=FILE_OR_TABLE",
            wh.name()
        ),
    };
    match missing.as_slice() {
        [] => Ok(()),
        [one] => Err(Failure::Environment(format!("{one}{hint}"))),
        all => Err(Failure::Environment(format!(
            "{} sources cannot be read: {}{hint}",
            all.len(),
            all.join("; ")
        ))),
    }
}

/// The relation each source in `needed` reads (files loaded first where
/// the engine cannot read them in place).
pub fn read_all(
    wh: &Warehouse,
    origins: &BTreeMap<String, Origin>,
    needed: &[String],
) -> Result<BTreeMap<String, String>, Failure> {
    needed
        .iter()
        .filter_map(|s| origins.get(s).map(|o| (s, o)))
        .map(|(s, o)| Ok((s.clone(), wh.read(s, o)?)))
        .collect()
}

/// Fail (exit 3) unless, for every source in `relations` that declares its
/// columns, each declared column is in the relation it reads (extra columns
/// are fine) with values that convert to the declared type. Every problem
/// of every source is reported at once, each at its column's declaration:
/// the source, where it reads, the column, what was found and, for a value
/// that does not convert, the first one (with its row, for a file).
pub fn check_columns(
    wh: &Warehouse,
    module: &ir::Module,
    origins: &BTreeMap<String, Origin>,
    relations: &BTreeMap<String, String>,
) -> Result<(), Failure> {
    let mut problems: Vec<(Span, String)> = Vec::new();
    let declared: Vec<(&String, &String, &Origin, &ir::Source, &Vec<ir::Column>)> = relations
        .iter()
        .filter_map(|(name, relation)| {
            let source = module.sources.iter().find(|s| &s.name == name)?;
            Some((
                name,
                relation,
                origins.get(name)?,
                source,
                source.columns.as_ref()?,
            ))
        })
        .collect();
    let described = wh.columns_each(
        &declared
            .iter()
            .map(|(_, relation, ..)| relation.to_string())
            .collect::<Vec<_>>(),
    )?;
    for ((name, relation, origin, source, columns), found) in declared.into_iter().zip(described) {
        let at = format!("source '{name}' ({})", origin.describe());
        for (i, col) in columns.iter().enumerate() {
            let span = source.column_spans.get(i).copied().unwrap_or(source.span);
            let Some((physical_name, physical)) = found
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(&col.name))
            else {
                let names: Vec<&str> = found.iter().map(|(n, _)| n.as_str()).collect();
                problems.push((
                    span,
                    format!(
                        "{at} has no column '{}' (it has {})",
                        col.name,
                        names.join(", ")
                    ),
                ));
                continue;
            };
            if wh.compatible(&col.ty, physical) {
                continue;
            }
            let bad = wh.first_unconvertible(relation, &wh.ident(physical_name), &col.ty)?;
            if let Some((value, row)) = bad {
                // Shown as SQL would write it, and cut short.
                let value: String = value.chars().take(60).collect();
                let row_no = match (origin, row) {
                    (Origin::File(_), Some(row)) => format!(" in data row {row}"),
                    _ => String::new(),
                };
                problems.push((
                    span,
                    format!(
                        "{at}: column '{}' is {physical} and holds {}{row_no}, which does not convert to {}",
                        col.name,
                        wh.string(&value),
                        col.ty
                    ),
                ));
            }
        }
    }
    let mut problems = problems.into_iter();
    let Some((span, first)) = problems.next() else {
        return Ok(());
    };
    let mut d = Diagnostic::new(&codes::PinError, span, first)
        .with_label("declared here")
        .with_note("no model was built: the live data is unchanged");
    for (span, problem) in problems {
        d = d.with_secondary(span, problem);
    }
    Err(crate::checks::fail(&[], d))
}

/// The query whose one row (the row count, the sum of row hashes) a
/// relation's content hash digests: a content hash is of the relation's
/// column names and types, its row count and an order-independent sum of
/// row hashes.
fn content_query(wh: &Warehouse, relation: &str) -> String {
    format!(
        "SELECT COUNT(*), {} FROM (SELECT * FROM {relation}) AS t",
        wh.text(&wh.hash_sum("t"))
    )
}

/// The content hash and row count of a relation of `schema` whose
/// [`content_query`] answered `rows`.
fn digest(schema: &[(String, String)], rows: &Rows) -> (String, i64) {
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
    (hex128(h), count.parse().unwrap_or(0))
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

/// Whether a source is frozen by copying its file: a Parquet or JSON file
/// on an engine with a file store ([`strata_engine::Capabilities::file_store`]). The
/// store and the extension of the copy. (A CSV file is still imported:
/// typing it is most of reading it.)
fn copied(wh: &Warehouse, origin: &Origin) -> Option<(PathBuf, &'static str)> {
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
fn stored_copy(wh: &Warehouse, origin: &Origin, content: &str) -> Option<PathBuf> {
    let (store, ext) = copied(wh, origin)?;
    Some(store.join(format!("{content}.{ext}")))
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

/// The content hash and row count of each source (name, origin, relation):
/// the hash of the file's bytes for a file the store keeps, else the
/// content hash of its rows ([`digest`]). The scans, and the descriptions
/// of the relations, run at once where the engine can
/// ([`strata_engine::Engine::rows_each`]).
pub fn source_hashes<'s>(
    wh: &Warehouse,
    sources: impl IntoIterator<Item = (&'s str, &'s Origin, &'s str)>,
) -> Result<BTreeMap<String, (String, i64)>, Failure> {
    let mut hashes = BTreeMap::new();
    let mut scanned = Vec::new();
    for (source, origin, relation) in sources {
        match origin {
            Origin::File(path) if copied(wh, origin).is_some() => {
                let hash = file_hash(path)?;
                // Parquet keeps its row count in its footer: no scan.
                let rows = wh.count(&format!("SELECT COUNT(*) FROM {relation}"))?;
                hashes.insert(source.to_string(), (hash, rows));
            }
            _ => scanned.push((source, relation)),
        }
    }
    let relations: Vec<String> = scanned.iter().map(|(_, r)| r.to_string()).collect();
    let queries: Vec<String> = relations.iter().map(|r| content_query(wh, r)).collect();
    let answers = wh.rows_each(&queries)?;
    let schemas = wh.columns_each(&relations)?;
    for (((source, _), rows), schema) in scanned.iter().zip(answers).zip(schemas) {
        hashes.insert(source.to_string(), digest(&schema, &rows));
    }
    Ok(hashes)
}

/// Copy `from` into the store as `to`, checking on the copy that the file
/// still has the content hash the run was planned with. The copy is
/// renamed into place, so the store never holds half a file.
fn store_file(from: &Path, to: &Path, content: &str) -> Result<(), Failure> {
    let io = |e: std::io::Error| {
        Failure::Environment(format!(
            "cannot copy {} into the input store {}: {e}",
            from.display(),
            to.display()
        ))
    };
    if let Some(dir) = to.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let partial = to.with_extension(format!("partial-{}", std::process::id()));
    std::fs::copy(from, &partial).map_err(io)?;
    if file_hash(&partial)? != content {
        let _ = std::fs::remove_file(&partial);
        return Err(Failure::Environment(format!(
            "{} changed while the run was reading it; nothing was built, run again",
            from.display()
        )));
    }
    std::fs::rename(&partial, to).map_err(io)
}

/// Freeze a source: reuse an input frozen earlier with the same content
/// (one of `earlier`, from [`frozen::earlier`]), or freeze it as
/// `input_<run_id>_<source>` — a view of its copy in the file store
/// ([`stored_copy`]), else a table of its rows. Returns the relation's name
/// and whether it was reused.
pub fn freeze(
    work: &Work,
    source: &str,
    (origin, relation): (&Origin, &str),
    (content, rows): (&str, i64),
    run_id: &str,
    earlier: &[FrozenEarlier],
) -> Result<(String, bool), Failure> {
    let wh = work.wh();
    for e in earlier {
        if e.source != source || e.content_hash != content {
            continue;
        }
        let file_there = e.file.as_ref().is_none_or(|f| Path::new(f).is_file());
        if file_there && wh.relation_exists(&e.table)? {
            return Ok((e.table.clone(), true));
        }
    }
    let table = frozen_input(run_id, source);
    let copy = stored_copy(wh, origin, content);
    match (&copy, origin) {
        (Some(copy), Origin::File(path)) => {
            if !copy.is_file() {
                store_file(path, copy, content)?;
            }
            let read = wh.read(source, &Origin::File(copy.clone()))?;
            wh.replace_view(&wh.ident(&table), &read)?;
        }
        _ => work.replace_table(&wh.ident(&table), &format!("SELECT * FROM {relation}"))?,
    }
    frozen::record(wh, (source, content, rows), &table, copy.as_deref())?;
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
        assert_eq!(
            stored_copy(&file, &origin("in/o.parquet"), "ab12"),
            Some(dir.join("w.duckdb.inputs/ab12.parquet"))
        );
        assert_eq!(
            stored_copy(&file, &origin("e.ndjson"), "cd"),
            Some(dir.join("w.duckdb.inputs/cd.json"))
        );
        assert_eq!(stored_copy(&file, &origin("o.csv"), "ab12"), None);
        assert_eq!(stored_copy(&file, &Origin::Table("o".into()), "ab12"), None);
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
                strata_engine::Engine::rows(
                    &wh,
                    &format!("SELECT CAST({expr} AS VARCHAR) FROM {rows}"),
                )
                .unwrap_or_else(|e| panic!("{e:?}"))
            };
            let ours = sum(&strata_engine::Engine::hash_sum(&wh, "t"));
            assert_eq!(
                ours,
                sum("COALESCE(SUM(CAST(hash(t) AS HUGEINT)), 0)"),
                "{filter}"
            );
            assert_eq!(ours.len(), 1);
        }
    }

    #[test]
    fn file_relations_are_escaped() {
        let wh = strata_engine::DuckDb::open(":memory:", std::time::Duration::ZERO)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let read = |o: Origin| {
            strata_engine::Engine::read(&wh, "s", &o).unwrap_or_else(|e| panic!("{e:?}"))
        };
        assert_eq!(
            read(Origin::File(PathBuf::from("it's.parquet"))),
            "read_parquet('it''s.parquet')"
        );
        assert_eq!(read(Origin::Table("a\"b".into())), "\"a\"\"b\"");
    }
}
