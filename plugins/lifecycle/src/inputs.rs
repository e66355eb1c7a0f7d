//! Which relation each source reads (after overrides), checking that it
//! exists before anything runs, and freezing source contents for a run.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use strata_codes as codes;
use strata_lang::ir;
use strata_lang::{Diagnostic, Span};

use strata_engine::{Failure, FileFormat, Origin, Rows, Warehouse};

use crate::delta::{self, grouped, Plan};
use crate::naming::frozen_input;
use crate::state::frozen::{self, FrozenEarlier, How};
use crate::state::segments;
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

/// The query whose one row (the row count, the sum of row hashes, and the
/// greatest value of `max_of` when given) a relation's content hash
/// digests: a content hash is of the relation's column names and types,
/// its row count and an order-independent sum of row hashes. `filter`
/// keeps some of its rows (`WHERE ...` on `t`).
pub(crate) fn content_query(
    wh: &Warehouse,
    relation: &str,
    max_of: Option<&str>,
    filter: Option<&str>,
) -> String {
    let max = max_of.map_or(String::new(), |c| {
        format!(", {}", wh.text(&format!("MAX(t.{c})")))
    });
    let filter = filter.map_or(String::new(), |f| format!(" WHERE {f}"));
    format!(
        "SELECT COUNT(*), {}{max} FROM (SELECT * FROM {relation}) AS t{filter}",
        wh.text(&wh.hash_sum("t"))
    )
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

/// The cells of the first row of a [`content_query`]'s answer.
fn cells(rows: &Rows) -> Vec<Option<String>> {
    rows.first().cloned().unwrap_or_default()
}

/// A relation's column as `schema` names it (the name matched in any
/// case), quoted.
pub(crate) fn column_in(wh: &Warehouse, schema: &[(String, String)], name: &str) -> Option<String> {
    schema
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(n, _)| wh.ident(n))
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
/// content hash of its rows ([`digest`]), with the greatest value of the
/// source's column in `max_of` (its append column). The scans, and the
/// descriptions of the relations, run at once where the engine can
/// ([`strata_engine::Engine::rows_each`]).
pub fn source_hashes<'s>(
    wh: &Warehouse,
    sources: impl IntoIterator<Item = (&'s str, &'s Origin, &'s str)>,
    max_of: &BTreeMap<String, String>,
) -> Result<BTreeMap<String, Scanned>, Failure> {
    let mut hashes = BTreeMap::new();
    let mut scanned = Vec::new();
    for (source, origin, relation) in sources {
        match origin {
            Origin::File(path) if copied(wh, origin).is_some() => {
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
        .map(|((source, _), schema)| max_of.get(*source).and_then(|c| column_in(wh, schema, c)))
        .collect();
    let queries: Vec<String> = relations
        .iter()
        .zip(&columns)
        .map(|(r, c)| content_query(wh, r, c.as_deref(), None))
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

/// A source to freeze: where it reads, what hashing it found, how
/// strata.toml says to freeze it, and the delta planned for it.
pub struct Freezing<'a> {
    pub source: &'a str,
    pub origin: &'a Origin,
    /// The relation it is read through.
    pub relation: &'a str,
    pub scanned: &'a Scanned,
    pub policy: &'a SourcePolicy,
    /// For a source with an append column: a delta, or why a full copy.
    pub plan: Option<&'a Plan>,
}

/// How a source was frozen, as a run reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FreezeNote {
    pub source: String,
    /// `reused`, `copy`, `delta` or `hash`.
    pub how: &'static str,
    /// What the run records as its frozen input (`input_<run>_<source>`,
    /// or the earlier one reused): a relation, but for a source read in
    /// place, a name in the frozen inputs only.
    pub relation: String,
    /// The relation (SQL) the run's models read it through.
    pub reads: String,
    pub rows: i64,
    /// A delta: the rows it added, and the segments the input reads.
    pub added: Option<i64>,
    pub segments: usize,
    /// Why a source with an append column was copied in full; what a
    /// source read in place means.
    pub why: Option<String>,
    /// Whether strata.toml says how to freeze it (only those are shown).
    pub declared: bool,
}

impl std::fmt::Display for FreezeNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (s, rows) = (&self.source, grouped(self.rows));
        match (self.how, self.added) {
            ("delta", Some(added)) => write!(
                f,
                "froze {s}: +{} row{} (delta; {rows} rows in {} segments)",
                grouped(added),
                if added == 1 { "" } else { "s" },
                self.segments
            ),
            ("reused", _) => write!(f, "froze {s}: reused {} (same content)", self.relation),
            ("hash", _) => write!(f, "froze {s}: read in place, {rows} rows (freeze = \"hash\": only its content hash is kept; replay needs {s} unchanged)"),
            _ => match &self.why {
                Some(why) => write!(f, "froze {s}: full copy, {rows} rows ({why})"),
                None => write!(f, "froze {s}: full copy, {rows} rows"),
            },
        }
    }
}

/// Freeze a source: reuse an input frozen earlier with the same content
/// (one of `earlier`, from [`frozen::earlier`]); or, for `freeze =
/// "hash"`, record only its content hash and origin (as
/// `input_<run_id>_<source>`: no relation) and read it in place; or
/// add the segment of its new rows to its last freeze ([`Plan::Delta`]);
/// else freeze it as `input_<run_id>_<source>`, a view of its copy in the
/// file store ([`stored_copy`]) or a table of its rows.
pub fn freeze(
    work: &Work,
    f: &Freezing,
    run_id: &str,
    earlier: &[FrozenEarlier],
) -> Result<FreezeNote, Failure> {
    let wh = work.wh();
    let Freezing {
        source,
        origin,
        relation,
        scanned,
        policy,
        plan,
    } = *f;
    let (content, rows) = (scanned.content.as_str(), scanned.rows);
    let in_place = policy.by_hash
        && (matches!(origin, Origin::Table(_)) || wh.capabilities().file_store.is_some());
    let described = in_place_origin(origin);
    let mut note = FreezeNote {
        source: source.to_string(),
        how: "copy",
        relation: String::new(),
        reads: String::new(),
        rows,
        added: None,
        segments: 1,
        why: None,
        declared: policy.by_hash || policy.append_column.is_some(),
    };
    for e in earlier {
        if e.source != source || e.content_hash != content {
            continue;
        }
        // A source read in place is no copy: reused only by a source read
        // in place from the same origin.
        if e.how == How::Hash && !(in_place && e.origin.as_deref() == Some(described.as_str())) {
            continue;
        }
        let file_there = e.file.as_ref().is_none_or(|f| Path::new(f).is_file());
        if e.how == How::Hash || (file_there && wh.relation_exists(&e.table)?) {
            note.how = "reused";
            note.relation = e.table.clone();
            note.reads = match e.how {
                How::Hash => relation.to_string(),
                _ => wh.ident(&e.table),
            };
            return Ok(note);
        }
    }
    let table = frozen_input(run_id, source);
    note.relation = table.clone();
    let quoted = wh.ident(&table);
    note.reads = quoted.clone();
    let append = policy.append_column.as_deref();
    let mut record = frozen::Record {
        source,
        content_hash: content,
        rows,
        table: &table,
        file: None,
        how: How::Copy,
        append_column: append,
        watermark: scanned.max.as_deref(),
        origin: None,
    };
    if in_place {
        // No relation of its own (a view would stop the table it reads
        // from being dropped and loaded again, on PostgreSQL): the run
        // reads the source, replay reads its origin again.
        note.reads = relation.to_string();
        record.how = How::Hash;
        record.origin = Some(&described);
        frozen::record(wh, &record)?;
        note.how = "hash";
        return Ok(note);
    }
    if policy.by_hash {
        note.why = Some(format!(
            "freeze = \"hash\" reads tables in place, and {} is loaded into the warehouse",
            origin.describe()
        ));
    }
    if let Some(Plan::Delta(delta)) = plan {
        let segments = delta::segments_of(delta, &table);
        let new = segments.last().map(|s| s.table.clone()).unwrap_or_default();
        work.replace_table(
            &wh.ident(&new),
            &format!(
                "SELECT * FROM (SELECT * FROM {relation}) AS t WHERE {}",
                delta.filter()
            ),
        )?;
        // The segment holds exactly the rows counted before the run (none
        // arrived in between).
        let check = wh.rows(&content_query(wh, &wh.ident(&new), None, None))?;
        let cell = |i: usize| {
            check
                .first()
                .and_then(|r| r.get(i).cloned().flatten())
                .unwrap_or_default()
        };
        if cell(0).parse::<i64>().ok() != Some(delta.added)
            || delta::parse_sum(&cell(1)) != Some(delta.added_sum)
        {
            return Err(Failure::Environment(format!(
                "{} changed while the run was reading it (rows above {} arrived or changed); nothing was built, run again",
                origin.describe(),
                delta.base.watermark.as_deref().unwrap_or("")
            )));
        }
        work.replace_view(&quoted, &segments::union(wh, &segments))?;
        segments::record(wh, &table, &segments)?;
        record.how = How::Delta;
        frozen::record(wh, &record)?;
        note.how = "delta";
        note.added = Some(delta.added);
        note.segments = segments.len();
        return Ok(note);
    }
    if let Some(Plan::Full(why)) = plan {
        note.why = Some(why.clone());
    }
    let copy = stored_copy(wh, origin, content);
    match (&copy, origin) {
        (Some(copy), Origin::File(path)) => {
            if !copy.is_file() {
                store_file(path, copy, content)?;
            }
            let read = wh.read(source, &Origin::File(copy.clone()))?;
            wh.replace_view(&quoted, &read)?;
        }
        _ => work.replace_table(&quoted, &format!("SELECT * FROM {relation}"))?,
    }
    record.file = copy.as_deref();
    frozen::record(wh, &record)?;
    Ok(note)
}

/// The origin a source read in place recorded ([`in_place_origin`]).
pub fn recorded_origin(text: &str) -> Option<Origin> {
    if let Some(t) = text.strip_prefix("table ") {
        return Some(Origin::Table(t.to_string()));
    }
    text.strip_prefix("file ")
        .map(|p| Origin::File(PathBuf::from(p)))
}

/// What a source read in place reads, as its freeze records it (a file by
/// its absolute path).
fn in_place_origin(origin: &Origin) -> String {
    match origin {
        Origin::File(path) => {
            Origin::File(std::path::absolute(path).unwrap_or_else(|_| path.clone())).describe()
        }
        Origin::Table(_) => origin.describe(),
    }
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
