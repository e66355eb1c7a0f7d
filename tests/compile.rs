//! `strata compile` beyond the golden snapshots (`tests/cmd/compile/*.toml`):
//!
//! * `sqlglot_parses_every_statement`: `tests/sql/parse_check.py` parses
//!   every view and check query of every valid program, for the five
//!   dialects, with sqlglot (an independent SQL parser). Skipped with a
//!   message when python3 + sqlglot are missing, except under `CI`, where
//!   that is a failure (`.ci/run` installs them). Interpreter: `$STRATA_PYTHON`,
//!   else `~/.cache/strata-venv/bin/python`, else `python3`.
//! * `postgres_*`: a throw-away PostgreSQL server (Debian's `postgresql`
//!   package; binaries in `$STRATA_PG_BIN` or the newest
//!   `/usr/lib/postgresql/*/bin`) started once per test run in a temporary
//!   directory, as the `postgres` user when the tests run as root. A watchdog
//!   stops it and removes the directory when the test process ends. Skipped
//!   with a message when PostgreSQL is missing, except under `CI`.
//!   * `postgres_exec_<fixture>`: loads `tests/sql/exec/<fixture>.data.sql`,
//!     creates the fixture's compiled PostgreSQL views and compares their
//!     rows (and the cardinality check counts) with `<fixture>.expected`.
//!   * `postgres_creates_every_view`: the compiled SQL of every valid corpus
//!     program, example, fixture and `tests/sql/programs/*.strata` creates its
//!     views over (empty) source tables, and the check queries run.
//!   * `postgres_view_types_match_the_schema`: each view column has the
//!     PostgreSQL type of the model's column type.
//! * `duckdb_exec::<fixture>`: the same fixtures on an in-memory DuckDB
//!   (`strata_engine::Warehouse`), never skipped; sections listed in
//!   `KNOWN_DUCKDB_DIFFERENCES` must still differ.
//! * `spark_exec::<fixture>`: the same fixtures on a local Spark Connect
//!   server (`support/spark.rs`, started once for this test program): each
//!   source table written to parquet by DuckDB and loaded as a `--source`
//!   file override is, the compiled Spark views created, their rows
//!   compared. Skipped like the `postgres_*` tests when PySpark is missing.
//! * `spark_sql_never_double_quotes_a_name`: no Spark statement of any valid
//!   program has a `"` outside a string literal (Spark would read the name
//!   as a string).
//! * `duckdb_and_postgres_agree_row_for_row`: every fixture section gives the
//!   same rows on both engines (skipped like the `postgres_*` tests).
//!
//! Format of `.expected` (shared with the DuckDB execution tests): `#`
//! comments; `[model]` then one line per row, the columns in the model's
//! output-schema order (as `strata check` prints it), `|`-separated, NULL as
//! an empty field, booleans `true`/`false`, floats in shortest round-trip
//! form without a trailing `.0`, dates `YYYY-MM-DD`, timestamps
//! `YYYY-MM-DD HH:MM:SS`; rows compare as a sorted list. `[check <join> on
//! <table>]` then the count the cardinality check query returns. Blank lines
//! are ignored (so a one-column row cannot be NULL: avoid that shape).

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;
use strata_lang::sql::Dialect;

#[path = "support/tools.rs"]
#[allow(dead_code)] // each test file uses its own part of the shared helpers
mod tools;
use tools::{python, root, unavailable, STRATA};
#[path = "support/pg.rs"]
mod pg;
use pg::{pg, Pg};
#[path = "support/spark.rs"]
mod spark;

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn rel(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// `strata compile FILE --dialect D --format json`, parsed.
fn compile_json(file: &Path, dialect: &str) -> Result<Value, String> {
    compile_json_models(file, dialect, &[])
}

/// `strata compile FILE MODEL... --dialect D --format json` (every model
/// when `models` is empty), parsed.
fn compile_json_models(file: &Path, dialect: &str, models: &[String]) -> Result<Value, String> {
    let out = Command::new(STRATA)
        .args(["compile", "--format", "json", "--dialect", dialect])
        .arg(file)
        .args(models)
        .output()
        .map_err(|e| format!("cannot run strata: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "strata compile --dialect {dialect} {} exited {}:\n{}",
            rel(file),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    serde_json::from_slice(&out.stdout).map_err(|e| format!("compile output is not JSON: {e}"))
}

fn str_field<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_default()
}

fn array<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v[key].as_array().map_or(&[], Vec::as_slice)
}

/// The checked module (its sources and model schemas).
fn module(file: &Path) -> strata_lang::ir::Module {
    let checked = strata_lang::check_files(&[file.to_path_buf()], &Default::default());
    assert!(
        !checked.has_errors(),
        "{} does not check: {:?}",
        rel(file),
        checked.diagnostics
    );
    checked.module
}

// ---------------------------------------------------------------------------
// The programs

/// The root programs of the corpus whose verdict is `ok` (differences.tsv
/// overrides reference.tsv), as parse_check.py selects them.
fn valid_corpus_programs() -> Vec<PathBuf> {
    let dir = root().join("tests/corpus");
    let mut verdict = BTreeMap::new();
    for name in ["reference.tsv", "differences.tsv"] {
        for line in read(&dir.join(name)).lines() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split('\t');
            if let (Some(file), Some(v)) = (parts.next(), parts.next()) {
                verdict.insert(file.to_string(), v.to_string());
            }
        }
    }
    verdict
        .into_iter()
        .filter(|(_, v)| v == "ok")
        .map(|(f, _)| dir.join(f))
        .collect()
}

fn strata_files(dir: &Path, recursive: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() && recursive {
                pending.push(p);
            } else if p.extension().is_some_and(|e| e == "strata") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every program whose compiled SQL must run: the valid corpus, the
/// examples, the execution fixtures, the edge programs and the showcase.
fn all_programs() -> Vec<PathBuf> {
    let r = root();
    let mut all = valid_corpus_programs();
    all.extend(strata_files(&r.join("examples"), true));
    all.extend(strata_files(&r.join("tests/sql/exec"), false));
    all.extend(strata_files(&r.join("tests/sql/programs"), false));
    all.push(r.join("tests/cmd/compile/compile-showcase.strata"));
    all
}

/// `(file, dialect)` pairs that must not compile (tests/sql/expected_compile_errors.txt).
fn expected_compile_errors() -> Vec<(String, String)> {
    read(&root().join("tests/sql/expected_compile_errors.txt"))
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut p = l.split('\t');
            Some((p.next()?.to_string(), p.next()?.to_string()))
        })
        .collect()
}

// ---------------------------------------------------------------------------
// sqlglot

#[test]
fn sqlglot_parses_every_statement() {
    let py = python();
    if !tools::python_imports(&py, &["sqlglot"]) {
        unavailable(&format!("`{py}` cannot import sqlglot"));
        return;
    }
    let out = Command::new(&py)
        .arg(root().join("tests/sql/parse_check.py"))
        .arg("--strata")
        .arg(STRATA)
        .arg("--root")
        .arg(root())
        .output()
        .expect("run parse_check.py");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{text}");
    assert!(out.status.success(), "parse_check.py failed:\n{text}");
}

// ---------------------------------------------------------------------------
// PostgreSQL

/// `CREATE TABLE` for every source of a module with columns (PostgreSQL types).
fn source_tables(m: &strata_lang::ir::Module) -> String {
    let d = Dialect::Postgres;
    let mut sql = String::new();
    for s in &m.sources {
        let Some(cols) = &s.columns else { continue };
        let cols: Vec<String> = cols
            .iter()
            .map(|c| {
                let ty = d.type_name(&c.ty).unwrap_or_else(|_| "TEXT".into());
                format!("{} {ty}", d.ident(&c.name))
            })
            .collect();
        sql.push_str(&format!(
            "CREATE TABLE {} ({});\n",
            d.ident(&s.name),
            cols.join(", ")
        ));
    }
    sql
}

/// The PostgreSQL type name (`pg_type.typname`) a strata type lowers to;
/// `None` for `unknown`.
fn pg_typname(ty: &str) -> Option<String> {
    if let Some(elem) = ty.strip_prefix("array<").and_then(|t| t.strip_suffix('>')) {
        return pg_typname(elem).map(|e| format!("_{e}"));
    }
    if ty.starts_with("decimal") || ty.starts_with("money") {
        return Some("numeric".into());
    }
    let name = match ty {
        "int64" => "int8",
        "float64" => "float8",
        "string" => "text",
        "bool" => "bool",
        "date" => "date",
        "timestamp" => "timestamp",
        "uuid" => "uuid",
        "json" => "json",
        _ => return None,
    };
    Some(name.into())
}

type ViewColumns = BTreeMap<String, Vec<(String, String)>>;

/// `schema -> view -> [(column, typname)]` for the views of the schemas
/// whose names start with `prefix`.
fn view_columns(pg: &Pg, prefix: &str) -> Result<BTreeMap<String, ViewColumns>, String> {
    let out = pg.psql(
        "public",
        &format!(
            "SELECT n.nspname, c.relname, a.attname, t.typname FROM pg_attribute a \
             JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
             JOIN pg_type t ON t.oid = a.atttypid \
             WHERE starts_with(n.nspname, '{prefix}') AND c.relkind = 'v' AND a.attnum > 0 \
             AND NOT a.attisdropped ORDER BY n.nspname, c.relname, a.attnum;"
        ),
    )?;
    let mut all: BTreeMap<String, ViewColumns> = BTreeMap::new();
    for line in out.lines() {
        let p: Vec<&str> = line.splitn(4, '|').collect();
        if let [schema, view, column, ty] = p[..] {
            all.entry(schema.to_string())
                .or_default()
                .entry(view.to_string())
                .or_default()
                .push((column.to_string(), ty.to_string()));
        }
    }
    Ok(all)
}

/// The rows of a view in the `.expected` text form, sorted.
fn view_rows(
    pg: &Pg,
    schema: &str,
    view: &str,
    cols: &[(String, String)],
) -> Result<Vec<String>, String> {
    let d = Dialect::Postgres;
    let items: Vec<String> = cols
        .iter()
        .map(|(name, ty)| {
            let c = d.ident(name);
            if ty == "bool" {
                format!("CASE WHEN {c} THEN 'true' WHEN NOT {c} THEN 'false' END")
            } else {
                format!("CAST({c} AS TEXT)")
            }
        })
        .collect();
    let out = pg.psql(
        schema,
        &format!("SELECT {} FROM {};", items.join(", "), d.ident(view)),
    )?;
    let mut rows: Vec<String> = out.lines().map(str::to_string).collect();
    rows.sort();
    Ok(rows)
}

/// A program loaded into its own schema: source tables (or the fixture's
/// data), its compiled views and the check queries, in one psql session.
struct Loaded {
    file: PathBuf,
    schema: String,
    compiled: Value,
}

fn load_program(pg: &Pg, file: &Path, data_sql: Option<&str>) -> Result<Loaded, String> {
    let compiled = compile_json(file, "postgres")?;
    let schema = pg.schema_name(if data_sql.is_some() { "fx" } else { "p" });
    let mut script = format!(
        "CREATE SCHEMA {schema};\nSET search_path TO {schema};\n\\echo '@@ the source tables'\n"
    );
    match data_sql {
        Some(sql) => script.push_str(sql),
        None => script.push_str(&source_tables(&module(file))),
    }
    for v in array(&compiled, "views") {
        script.push_str(&format!(
            "\n\\echo '@@ model {}'\n{}\n",
            str_field(v, "model").replace('\'', ""),
            str_field(v, "sql")
        ));
    }
    for c in array(&compiled, "cardinality_checks") {
        script.push_str(&format!(
            "\n\\echo '@@ check [{}] on {}'\n{}\n",
            str_field(c, "join").replace('\'', ""),
            str_field(c, "table").replace('\'', ""),
            str_field(c, "sql")
        ));
    }
    pg.psql(&schema, &script)
        .map_err(|e| format!("{} [postgres] {e}", rel(file)))?;
    Ok(Loaded {
        file: file.to_path_buf(),
        schema,
        compiled,
    })
}

/// Every program of `all_programs` that compiles for postgres, loaded once
/// per test run (shared by the tests below).
fn loaded_programs(pg: &Pg) -> &'static [(PathBuf, Result<Loaded, String>)] {
    static LOADED: OnceLock<Vec<(PathBuf, Result<Loaded, String>)>> = OnceLock::new();
    LOADED.get_or_init(|| {
        let programs: Vec<PathBuf> = all_programs()
            .into_iter()
            .filter(|p| compiles_for_postgres(p))
            .collect();
        // A few psql sessions at a time: connecting dominates.
        let chunk = programs.len().div_ceil(4).max(1);
        std::thread::scope(|scope| {
            let workers: Vec<_> = programs
                .chunks(chunk)
                .map(|part| {
                    scope.spawn(move || {
                        part.iter()
                            .map(|p| (p.clone(), load_program(pg, p, None)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().expect("loader thread"))
                .collect()
        })
    })
}

// ---------------------------------------------------------------------------
// Execution fixtures (tests/sql/exec)

/// The sections of an `.expected` file, in file order.
fn parse_expected(path: &Path) -> Vec<(String, Vec<String>)> {
    let mut sections: Vec<(String, Vec<String>)> = Vec::new();
    for (n, line) in read(path).lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            sections.push((name.to_string(), Vec::new()));
        } else if let Some((_, rows)) = sections.last_mut() {
            rows.push(line.to_string());
        } else {
            panic!("{}:{}: a row before any [section]", rel(path), n + 1);
        }
    }
    sections
}

fn exec_dir() -> PathBuf {
    root().join("tests/sql/exec")
}

/// The rows (sorted, `.expected` text form) or the error of each section of
/// a fixture's `.expected` file, in file order, as one engine returned them.
type SectionRows = Vec<(String, Result<Vec<String>, String>)>;

/// The compiled view of a model (`views[].view` by `views[].model`).
fn view_of<'a>(compiled: &'a Value, model: &str) -> Option<&'a str> {
    array(compiled, "views")
        .iter()
        .find(|v| str_field(v, "model") == model)
        .map(|v| str_field(v, "view"))
}

/// The cardinality check query labelled `<join> on <table>`.
fn check_sql<'a>(compiled: &'a Value, label: &str) -> Option<&'a str> {
    array(compiled, "cardinality_checks")
        .iter()
        .find(|c| format!("{} on {}", str_field(c, "join"), str_field(c, "table")) == label)
        .map(|c| str_field(c, "sql"))
}

/// Run one fixture on PostgreSQL: the compiled (postgres) output and the
/// rows of every section of its `.expected` file.
fn pg_fixture_rows(pg: &Pg, name: &str) -> (Value, SectionRows) {
    let dir = exec_dir();
    let file = dir.join(format!("{name}.strata"));
    let data = read(&dir.join(format!("{name}.data.sql")));
    let loaded = load_program(pg, &file, Some(&data)).unwrap_or_else(|e| panic!("{e}"));
    let (schema, compiled) = (&loaded.schema, &loaded.compiled);
    let columns = view_columns(pg, schema)
        .unwrap_or_else(|e| panic!("{e}"))
        .remove(schema.as_str())
        .unwrap_or_default();
    let rows = parse_expected(&dir.join(format!("{name}.expected")))
        .into_iter()
        .map(|(section, _)| {
            let got = if let Some(label) = section.strip_prefix("check ") {
                match check_sql(compiled, label) {
                    Some(sql) => pg
                        .psql(schema, sql)
                        .map(|out| out.lines().map(str::to_string).collect()),
                    None => Err("no such cardinality check in the compiled output".into()),
                }
            } else {
                match view_of(compiled, &section).and_then(|v| Some((v, columns.get(v)?))) {
                    Some((v, cols)) => view_rows(pg, schema, v, cols),
                    None => Err("no such model or view".into()),
                }
            };
            (section, got)
        })
        .collect();
    (loaded.compiled, rows)
}

/// Compare a fixture's rows on one engine with its `.expected` file; all
/// differences are reported together. `known` lists the sections expected
/// to differ on that engine (a section listed there that matches fails too:
/// the entry is stale). A section missing from `got` is a failure, unless
/// it belongs to a model of `not_run` (one the engine refuses, asserted
/// elsewhere).
fn assert_fixture_rows(
    engine: &str,
    name: &str,
    compiled: &Value,
    got: &SectionRows,
    known: &[(&str, &str, &str)],
    not_run: &[&str],
) {
    let sections = parse_expected(&exec_dir().join(format!("{name}.expected")));
    let mut failures = Vec::new();
    let mut known_seen = Vec::new();
    for (section, expected) in &sections {
        let Some((_, rows)) = got.iter().find(|(s, _)| s == section) else {
            if !not_run.contains(&section_model(section)) {
                failures.push(format!("[{section}] was not run"));
            }
            continue;
        };
        let mut expected = expected.clone();
        expected.sort();
        let reason = known
            .iter()
            .find(|(f, s, _)| *f == name && *s == section)
            .map(|(_, _, r)| *r);
        match (rows, reason) {
            (Ok(rows), None) if *rows == expected => {}
            (Ok(rows), Some(_)) if *rows == expected => failures.push(format!(
                "[{section}] is listed as a known {engine} difference but now matches: remove the entry"
            )),
            (Ok(rows), Some(reason)) => known_seen.push(format!(
                "[{section}] known difference ({reason})\n  expected: {expected:?}\n  got:      {rows:?}"
            )),
            (Ok(rows), None) => failures.push(format!(
                "[{section}] rows differ\n  expected: {expected:?}\n  got:      {rows:?}\n  sql:\n{}",
                sql_of(compiled, section)
            )),
            (Err(e), _) => failures.push(format!("[{section}] {e}")),
        }
    }
    for k in &known_seen {
        eprintln!("tests/sql/exec/{name}.strata on {engine}: {k}");
    }
    assert!(
        failures.is_empty(),
        "tests/sql/exec/{name}.strata on {engine}: {} of {} sections differ\n\n{}",
        failures.len(),
        sections.len(),
        failures.join("\n\n")
    );
}

/// The model a section of an `.expected` file is about: `[model]`, or
/// `[check <model> <kind> <input> on <table>]`.
fn section_model(section: &str) -> &str {
    match section.strip_prefix("check ") {
        Some(check) => check.split(' ').next().unwrap_or_default(),
        None => section,
    }
}

/// Run one fixture on PostgreSQL and compare every section of its
/// `.expected` file; all differences are reported together.
fn run_fixture(name: &str) {
    let Some(pg) = pg() else { return };
    let (compiled, rows) = pg_fixture_rows(pg, name);
    assert_fixture_rows("PostgreSQL", name, &compiled, &rows, &[], &[]);
}

// ---------------------------------------------------------------------------
// Execution fixtures on DuckDB (in-memory, through strata-materialize)

/// `(fixture, section, reason)`: sections of an `.expected` file whose rows
/// on DuckDB are known to differ from the expected (and PostgreSQL) rows.
/// Strict: an entry whose section matches fails `duckdb_exec::<fixture>`.
const KNOWN_DUCKDB_DIFFERENCES: &[(&str, &str, &str)] = &[];

/// The rows of a DuckDB view in the `.expected` text form, sorted. Floats
/// are rendered by Rust (shortest round-trip, `3` not `3.0`, as PostgreSQL
/// prints them); everything else is cast to VARCHAR by DuckDB.
fn duckdb_view_rows(wh: &strata_engine::Warehouse, view: &str) -> Result<Vec<String>, String> {
    let d = Dialect::DuckDb;
    let cols = wh
        .rows(&format!(
            "SELECT column_name, data_type FROM information_schema.columns \
             WHERE table_name = {} ORDER BY ordinal_position",
            d.string(view)
        ))
        .map_err(|e| format!("{e:?}"))?;
    if cols.is_empty() {
        return Err(format!("view {view} has no columns in information_schema"));
    }
    let cols: Vec<(String, String)> = cols
        .into_iter()
        .map(|c| {
            let mut c = c.into_iter().map(Option::unwrap_or_default);
            (c.next().unwrap_or_default(), c.next().unwrap_or_default())
        })
        .collect();
    typed_view_rows(wh, d, view, &cols, |name, ty| match ty {
        "DOUBLE" | "FLOAT" => None,
        _ => Some(format!("CAST({name} AS VARCHAR)")),
    })
}

/// The rows of `view` (its columns `cols`, name and type) in the
/// `.expected` text form, sorted: each column as `text` writes it (given
/// its quoted name and type), or, where it says `None`, a float rendered by
/// Rust in shortest round-trip form (`3`, not `3.0`).
fn typed_view_rows(
    wh: &strata_engine::Warehouse,
    d: Dialect,
    view: &str,
    cols: &[(String, String)],
    text: impl Fn(&str, &str) -> Option<String>,
) -> Result<Vec<String>, String> {
    let items: Vec<Option<String>> = cols.iter().map(|(n, ty)| text(&d.ident(n), ty)).collect();
    let select: Vec<String> = cols
        .iter()
        .zip(&items)
        .map(|((n, _), item)| item.clone().unwrap_or_else(|| d.ident(n)))
        .collect();
    let rows = wh
        .rows(&format!(
            "SELECT {} FROM {}",
            select.join(", "),
            d.ident(view)
        ))
        .map_err(|e| format!("{e:?}"))?;
    let mut rows: Vec<String> = rows
        .into_iter()
        .map(|row| {
            let cells: Vec<String> = row
                .into_iter()
                .zip(&items)
                .map(|(cell, item)| {
                    let cell = cell.unwrap_or_default();
                    match cell.parse::<f64>() {
                        Ok(f) if item.is_none() => f.to_string(),
                        _ => cell,
                    }
                })
                .collect();
            cells.join("|")
        })
        .collect();
    rows.sort();
    Ok(rows)
}

/// Rows as `|`-separated lines, NULL as an empty field (psql `-At -F '|'`).
fn text_rows(rows: Vec<Vec<Option<String>>>) -> Vec<String> {
    rows.into_iter()
        .map(|r| {
            r.into_iter()
                .map(Option::unwrap_or_default)
                .collect::<Vec<_>>()
                .join("|")
        })
        .collect()
}

/// Run one fixture on a fresh in-memory DuckDB: the compiled (duckdb) output
/// and the rows of every section of its `.expected` file.
fn duckdb_fixture_rows(name: &str) -> (Value, SectionRows) {
    let dir = exec_dir();
    let file = dir.join(format!("{name}.strata"));
    let data = read(&dir.join(format!("{name}.data.sql")));
    let compiled = compile_json(&file, "duckdb").unwrap_or_else(|e| panic!("{e}"));
    let wh = strata_engine::open(
        &strata_engine::Target::DuckDb(":memory:".into()),
        std::time::Duration::from_secs(5),
    )
    .unwrap_or_else(|e| panic!("cannot open an in-memory DuckDB: {e:?}"));
    wh.exec(&data)
        .unwrap_or_else(|e| panic!("tests/sql/exec/{name}.data.sql [duckdb] {e:?}"));
    let rows = engine_section_rows(&*wh, "duckdb", name, &compiled, duckdb_view_rows, &[]);
    (compiled, rows)
}

/// Create the compiled views of fixture `name` on `wh` (an engine behind
/// `strata_engine`), then the rows of every section of its
/// `.expected` file but those of the models in `skip`: a check's count from
/// its compiled query, a model's rows through `view_rows`.
fn engine_section_rows(
    wh: &strata_engine::Warehouse,
    engine: &str,
    name: &str,
    compiled: &Value,
    view_rows: fn(&strata_engine::Warehouse, &str) -> Result<Vec<String>, String>,
    skip: &[&str],
) -> SectionRows {
    for v in array(compiled, "views") {
        wh.exec(str_field(v, "sql")).unwrap_or_else(|e| {
            panic!(
                "tests/sql/exec/{name}.strata [{engine}] model {}: {e:?}",
                str_field(v, "model")
            )
        });
    }
    parse_expected(&exec_dir().join(format!("{name}.expected")))
        .into_iter()
        .filter(|(section, _)| !skip.contains(&section_model(section)))
        .map(|(section, _)| {
            let got = if let Some(label) = section.strip_prefix("check ") {
                match check_sql(compiled, label) {
                    Some(sql) => wh.rows(sql).map(text_rows).map_err(|e| format!("{e:?}")),
                    None => Err("no such cardinality check in the compiled output".into()),
                }
            } else {
                match view_of(compiled, &section) {
                    Some(v) => view_rows(wh, v),
                    None => Err("no such model or view".into()),
                }
            };
            (section, got)
        })
        .collect()
}

/// Run one fixture on DuckDB and compare every section of its `.expected`
/// file (except `KNOWN_DUCKDB_DIFFERENCES`, which must still differ).
fn run_duckdb_fixture(name: &str) {
    let (compiled, rows) = duckdb_fixture_rows(name);
    assert_fixture_rows(
        "DuckDB",
        name,
        &compiled,
        &rows,
        KNOWN_DUCKDB_DIFFERENCES,
        &[],
    );
}

/// Every fixture's every section gives the same rows on DuckDB as on
/// PostgreSQL (sections in `KNOWN_DUCKDB_DIFFERENCES` are reported only).
#[test]
fn duckdb_and_postgres_agree_row_for_row() {
    let Some(pg) = pg() else { return };
    let mut failures = Vec::new();
    let mut compared = 0;
    for name in FIXTURES {
        let (_, on_pg) = pg_fixture_rows(pg, name);
        let (compiled, on_duck) = duckdb_fixture_rows(name);
        for ((section, p), (_, d)) in on_pg.iter().zip(&on_duck) {
            compared += 1;
            let known = KNOWN_DUCKDB_DIFFERENCES
                .iter()
                .find(|(f, s, _)| f == name && s == section);
            match (p, d, known) {
                (Ok(p), Ok(d), _) if p == d => {}
                (_, _, Some((_, _, reason))) => {
                    eprintln!("{name} [{section}]: known DuckDB difference ({reason})");
                }
                (Ok(p), Ok(d), None) => failures.push(format!(
                    "{name} [{section}] rows differ\n  postgres: {p:?}\n  duckdb:   {d:?}\n  duckdb sql:\n{}",
                    sql_of(&compiled, section)
                )),
                (p, d, None) => failures.push(format!(
                    "{name} [{section}] postgres: {p:?}\n  duckdb: {d:?}"
                )),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "DuckDB vs PostgreSQL: {compared} sections compared, {} differ\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

// ---------------------------------------------------------------------------
// Execution fixtures on Spark (the local Spark Connect server of support/spark.rs)

/// `(fixture, section, reason)`: sections known to differ on Spark. Strict,
/// as on DuckDB.
const KNOWN_SPARK_DIFFERENCES: &[(&str, &str, &str)] = &[];

/// `(fixture, model)`: models that do not compile for Spark (E070, as
/// `tests/sql/expected_compile_errors.txt` says); the fixture runs without
/// them, and each must still be refused.
const SPARK_REFUSED_MODELS: &[(&str, &str)] = &[("keywords", "by-key")];

fn spark_refused(fixture: &str) -> Vec<&'static str> {
    SPARK_REFUSED_MODELS
        .iter()
        .filter(|(f, _)| *f == fixture)
        .map(|(_, m)| *m)
        .collect()
}

/// The rows of a Spark view in the `.expected` text form, sorted: floats
/// rendered by Rust (shortest round-trip), timestamps without the `T`,
/// everything else cast to STRING by Spark.
fn spark_view_rows(wh: &strata_engine::Warehouse, view: &str) -> Result<Vec<String>, String> {
    let d = Dialect::Spark;
    let cols = wh.columns(&d.ident(view)).map_err(|e| format!("{e:?}"))?;
    typed_view_rows(wh, d, view, &cols, |name, ty| {
        match ty.to_ascii_lowercase().as_str() {
            "double" | "float" => None,
            "timestamp" | "timestamp_ntz" => {
                Some(format!("date_format({name}, 'yyyy-MM-dd HH:mm:ss')"))
            }
            _ => Some(format!("CAST({name} AS STRING)")),
        }
    })
}

/// Run one fixture on a fresh Spark database: each table of its
/// `.data.sql` (made in an in-memory DuckDB) written to a parquet file and
/// loaded the way a `--source NAME=FILE` override is; then the compiled
/// (spark) views, the rows of every section. `None` when Spark is missing
/// (outside CI).
fn spark_fixture_rows(name: &str) -> Option<(Value, SectionRows)> {
    let spark = spark::spark()?;
    let (duck, spark_d) = (Dialect::DuckDb, Dialect::Spark);
    let dir = exec_dir();
    let file = dir.join(format!("{name}.strata"));
    let refused = spark_refused(name);
    for model in &refused {
        let out = Command::new(STRATA)
            .args(["compile", "--dialect", "spark"])
            .arg(&file)
            .arg(model)
            .output()
            .expect("run strata");
        assert!(
            out.status.code() == Some(1) && String::from_utf8_lossy(&out.stderr).contains("E070"),
            "{name}: model {model} is listed in SPARK_REFUSED_MODELS but compiles for Spark: remove the entry"
        );
    }
    let others: Vec<String> = module(&file)
        .models
        .iter()
        .map(|m| m.name.to_string())
        .filter(|m| !refused.contains(&m.as_str()))
        .collect();
    let compiled = compile_json_models(&file, "spark", &others).unwrap_or_else(|e| panic!("{e}"));
    let local = strata_engine::open(
        &strata_engine::Target::DuckDb(":memory:".into()),
        std::time::Duration::from_secs(5),
    )
    .unwrap_or_else(|e| panic!("cannot open an in-memory DuckDB: {e:?}"));
    local
        .exec(&read(&dir.join(format!("{name}.data.sql"))))
        .unwrap_or_else(|e| panic!("tests/sql/exec/{name}.data.sql [duckdb] {e:?}"));
    let tables = local
        .rows("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' ORDER BY 1")
        .unwrap_or_else(|e| panic!("{e:?}"));
    let files =
        std::env::temp_dir().join(format!("strata-spark-exec-{}-{name}", std::process::id()));
    fs::create_dir_all(&files).unwrap_or_else(|e| panic!("{}: {e}", files.display()));
    let url = spark.url(&spark.database(&format!("exec_{name}")));
    let target = strata_engine::Target::parse(&url, None).unwrap_or_else(|e| panic!("{e:?}"));
    let wh = strata_engine::open_read_only(&target, std::time::Duration::from_secs(5))
        .unwrap_or_else(|e| panic!("cannot reach the Spark Connect server: {e:?}"));
    for table in tables.iter().filter_map(|r| r.first().cloned().flatten()) {
        let parquet = files.join(format!("{table}.parquet"));
        local
            .exec(&format!(
                "COPY {} TO {} (FORMAT parquet)",
                duck.ident(&table),
                duck.string(&parquet.to_string_lossy())
            ))
            .unwrap_or_else(|e| panic!("{name}: cannot write {table} as parquet: {e:?}"));
        let loaded = wh
            .read(&table, &strata_engine::Origin::File(parquet))
            .unwrap_or_else(|e| panic!("{name} [spark]: cannot load {table}: {e:?}"));
        wh.exec(&format!(
            "CREATE VIEW {} AS SELECT * FROM {loaded}",
            spark_d.ident(&table)
        ))
        .unwrap_or_else(|e| panic!("{e:?}"));
    }
    let _ = fs::remove_dir_all(&files);
    let rows = engine_section_rows(&*wh, "spark", name, &compiled, spark_view_rows, &refused);
    Some((compiled, rows))
}

/// Run one fixture on Spark and compare every section of its `.expected`
/// file (except `KNOWN_SPARK_DIFFERENCES`, which must still differ, and the
/// sections of `SPARK_REFUSED_MODELS`, which must still be refused).
fn run_spark_fixture(name: &str) {
    if let Some((compiled, rows)) = spark_fixture_rows(name) {
        let refused = spark_refused(name);
        assert_fixture_rows(
            "Spark",
            name,
            &compiled,
            &rows,
            KNOWN_SPARK_DIFFERENCES,
            &refused,
        );
    }
}

fn sql_of(compiled: &Value, model: &str) -> String {
    array(compiled, "views")
        .iter()
        .find(|v| str_field(v, "model") == model)
        .map(|v| str_field(v, "sql").to_string())
        .unwrap_or_default()
}

macro_rules! exec_fixtures {
    ($($name:ident),* $(,)?) => {
        const FIXTURES: &[&str] = &[$(stringify!($name)),*];
        mod postgres_exec {
            $(#[test] fn $name() { super::run_fixture(stringify!($name)); })*
        }
        mod duckdb_exec {
            $(#[test] fn $name() { super::run_duckdb_fixture(stringify!($name)); })*
        }
        mod spark_exec {
            $(#[test] fn $name() { super::run_spark_fixture(stringify!($name)); })*
        }
    };
}

exec_fixtures!(
    chained,
    dates,
    dedup,
    filters,
    groups,
    joins,
    keywords,
    nulls,
    setops,
    sort_take,
    strings_math,
    windows_expand,
);

/// Every fixture has its three files and a test above; every section names
/// a model or check of the fixture, and every model has a section.
#[test]
fn exec_fixtures_are_complete() {
    let dir = exec_dir();
    let mut on_disk: Vec<String> = strata_files(&dir, false)
        .iter()
        .filter_map(|p| p.file_stem()?.to_str().map(str::to_string))
        .collect();
    on_disk.sort();
    assert_eq!(
        on_disk, FIXTURES,
        "tests/sql/exec/*.strata and the exec_fixtures! list in tests/compile.rs differ"
    );
    let mut problems = Vec::new();
    for name in FIXTURES {
        let file = dir.join(format!("{name}.strata"));
        for ext in ["data.sql", "expected"] {
            if !dir.join(format!("{name}.{ext}")).exists() {
                problems.push(format!("{name}: missing {name}.{ext}"));
            }
        }
        let m = module(&file);
        let compiled = compile_json(&file, "postgres").unwrap_or_else(|e| panic!("{e}"));
        let checks: Vec<String> = array(&compiled, "cardinality_checks")
            .iter()
            .map(|c| {
                format!(
                    "check {} on {}",
                    str_field(c, "join"),
                    str_field(c, "table")
                )
            })
            .collect();
        let sections = parse_expected(&dir.join(format!("{name}.expected")));
        for (section, _) in &sections {
            if !m.models.iter().any(|x| &x.name == section) && !checks.contains(section) {
                problems.push(format!("{name}.expected: [{section}] is no model or check"));
            }
        }
        for model in &m.models {
            if !sections.iter().any(|(s, _)| s == &model.name) {
                problems.push(format!("{name}.expected: no [{}] section", model.name));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

// ---------------------------------------------------------------------------
// Every program on PostgreSQL

/// Programs whose PostgreSQL SQL is expected not to exist (E070).
fn compiles_for_postgres(file: &Path) -> bool {
    let name = rel(file);
    !expected_compile_errors()
        .iter()
        .any(|(f, d)| f == &name && d == "postgres")
}

#[test]
fn postgres_creates_every_view() {
    let Some(pg) = pg() else { return };
    let programs = loaded_programs(pg);
    let (mut views, mut checks) = (0, 0);
    let mut failures = Vec::new();
    for (_, loaded) in programs {
        match loaded {
            Ok(l) => {
                views += array(&l.compiled, "views").len();
                checks += array(&l.compiled, "cardinality_checks").len();
            }
            Err(e) => failures.push(e.clone()),
        }
    }
    eprintln!(
        "postgres: {} programs loaded ({views} views created, {checks} check queries run), {} failed",
        programs.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} programs fail on PostgreSQL:\n\n{}",
        failures.len(),
        programs.len(),
        failures.join("\n\n")
    );
}

#[test]
fn postgres_view_types_match_the_schema() {
    let Some(pg) = pg() else { return };
    let mut failures = Vec::new();
    let mut compared = 0;
    let loaded = loaded_programs(pg);
    let all_columns = view_columns(pg, "p_").unwrap_or_else(|e| panic!("{e}"));
    // A program whose views do not create fails postgres_creates_every_view.
    for l in loaded.iter().filter_map(|(_, l)| l.as_ref().ok()) {
        let file = rel(&l.file);
        let columns = all_columns.get(&l.schema).cloned().unwrap_or_default();
        let m = module(&l.file);
        for v in array(&l.compiled, "views") {
            let Some(model) = m.models.iter().find(|x| x.name == str_field(v, "model")) else {
                continue;
            };
            let got = columns
                .get(str_field(v, "view"))
                .cloned()
                .unwrap_or_default();
            let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
            let want: Vec<&str> = model.columns.iter().map(|c| c.name.as_str()).collect();
            if names != want {
                failures.push(format!(
                    "{file} model {}: view columns {names:?}, schema {want:?}",
                    model.name
                ));
                continue;
            }
            for (col, (_, typname)) in model.columns.iter().zip(&got) {
                let ty = col.ty.to_string();
                let Some(want) = pg_typname(&ty) else {
                    continue;
                };
                compared += 1;
                if &want != typname {
                    failures.push(format!(
                        "{file} model {} column {}: {ty} should be PostgreSQL {want}, the view has {typname}",
                        model.name, col.name
                    ));
                }
            }
        }
    }
    eprintln!(
        "postgres: {compared} view column types compared, {} differ",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} view columns have the wrong PostgreSQL type:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------
// The command line

/// `--format json` is for programs: an error must be JSON on stdout too
/// (like `strata check --format json`), not only rendered text on stderr.
#[test]
fn compile_errors_are_json_with_format_json() {
    let out = Command::new(STRATA)
        .current_dir(root().join("tests/cmd/compile"))
        .args([
            "compile",
            "compile-e070-uuid-bigquery.strata",
            "--dialect",
            "bigquery",
            "--format",
            "json",
        ])
        .output()
        .expect("run strata");
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json: Result<Value, _> = serde_json::from_str(&stdout);
    assert!(
        json.is_ok() && stdout.contains("\"code\": \"E070\""),
        "stdout is not a JSON report with the E070 diagnostic:\nstdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The views come upstream first whatever the declaration order, and the
/// models named on the command line are compiled alone.
#[test]
fn views_in_dependency_order_and_model_selection() {
    let dir = std::env::temp_dir().join(format!("strata-compile-order-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("order.strata");
    fs::write(
        &file,
        "model c { from b }\nmodel b { from a filter x > 1 }\nmodel a { from s }\n\
         source s(ns: \"t\", dataset: \"s\") { columns: { x: int64 } }\n",
    )
    .expect("write");
    for d in ["duckdb", "postgres", "bigquery", "snowflake", "spark"] {
        let all = compile_json(&file, d).unwrap_or_else(|e| panic!("{e}"));
        let models: Vec<&str> = array(&all, "views")
            .iter()
            .map(|v| str_field(v, "model"))
            .collect();
        assert_eq!(models, ["a", "b", "c"], "{d}");
    }
    let out = Command::new(STRATA)
        .args(["compile", "--format", "json", "--dialect", "postgres"])
        .arg(&file)
        .arg("b")
        .output()
        .expect("run strata");
    let json: Value = serde_json::from_slice(&out.stdout).expect("json");
    let models: Vec<&str> = array(&json, "views")
        .iter()
        .map(|v| str_field(v, "model"))
        .collect();
    assert_eq!(models, ["b"]);
    let _ = fs::remove_dir_all(&dir);
}

/// The first `"` outside a string literal and a backtick-quoted name, if
/// any: Spark reads `"k"` as the string 'k', so `"k" IS NOT NULL` would be
/// true for every row and a check would count nothing.
fn spark_double_quote(sql: &str) -> Option<usize> {
    let mut chars = sql.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some(i),
            // A string: backslash escapes the next character.
            '\'' => {
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '\'' => break,
                        _ => {}
                    }
                }
            }
            // A name: a doubled backtick is a backtick inside it, which the
            // scan sees as the name closing and reopening.
            '`' => {
                for (_, c) in chars.by_ref() {
                    if c == '`' {
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    None
}

#[test]
fn spark_sql_never_double_quotes_a_name() {
    assert_eq!(
        spark_double_quote("SELECT `a\"b`, 'it\\'s \"x\"' FROM `t`"),
        None
    );
    assert_eq!(
        spark_double_quote("SELECT 1 WHERE \"k\" IS NOT NULL"),
        Some(15)
    );
    let skip = expected_compile_errors();
    let mut statements = 0;
    let mut failures = Vec::new();
    for file in all_programs() {
        if skip.iter().any(|(f, d)| f == &rel(&file) && d == "spark") {
            continue;
        }
        let compiled = match compile_json(&file, "spark") {
            Ok(c) => c,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        let views = array(&compiled, "views")
            .iter()
            .map(|v| str_field(v, "sql"));
        let checks = array(&compiled, "cardinality_checks")
            .iter()
            .map(|c| str_field(c, "sql"));
        for sql in views.chain(checks) {
            statements += 1;
            if let Some(at) = spark_double_quote(sql) {
                failures.push(format!(
                    "{}: a double quote at byte {at}:\n{sql}",
                    rel(&file)
                ));
            }
        }
    }
    assert!(
        statements > 300,
        "only {statements} Spark statements compiled"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
