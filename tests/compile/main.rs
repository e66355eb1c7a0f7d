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

#[path = "../support/tools.rs"]
#[allow(dead_code)] // each test file uses its own part of the shared helpers
mod tools;
use tools::{root, STRATA};
#[path = "../support/pg.rs"]
mod pg;
use pg::{pg, Pg};
#[path = "../support/spark.rs"]
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
/// The models of exec fixture `name` a `(fixture, model)` table lists.
fn refused_in(table: &[(&'static str, &'static str)], name: &str) -> Vec<&'static str> {
    table
        .iter()
        .filter(|(f, _)| *f == name)
        .map(|(_, m)| *m)
        .collect()
}

/// The models of exec fixture `name` listed in `refused` (a table of
/// `(fixture, model)` a dialect refuses, named `table` in messages), each
/// checked to be refused still (E070), and the names of the others.
fn refused_and_others(
    file: &Path,
    name: &str,
    dialect: &str,
    (table, refused): (&str, &[(&'static str, &'static str)]),
) -> (Vec<&'static str>, Vec<String>) {
    let refused = refused_in(refused, name);
    for model in &refused {
        let out = Command::new(STRATA)
            .args(["compile", "--dialect", dialect])
            .arg(file)
            .arg(model)
            .output()
            .expect("run strata");
        assert!(
            out.status.code() == Some(1) && String::from_utf8_lossy(&out.stderr).contains("E070"),
            "{name}: model {model} is listed in {table} but compiles for {dialect}: remove the entry"
        );
    }
    let others = module(file)
        .models
        .iter()
        .map(|m| m.name.to_string())
        .filter(|m| !refused.contains(&m.as_str()))
        .collect();
    (refused, others)
}

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

mod catalog;
mod cli;
mod duckdb_fixtures;
mod exec;
mod postgres;
mod programs;
mod spark_fixtures;
mod sqlglot;

#[allow(unused_imports)]
use {
    cli::*, duckdb_fixtures::*, exec::*, postgres::*, programs::*, spark_fixtures::*, sqlglot::*,
};

macro_rules! exec_fixtures {
    ($($name:ident),* $(,)?) => {
        pub(crate) const FIXTURES: &[&str] = &[$(stringify!($name)),*];
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
    catalog_functions,
    chained,
    dates,
    dedup,
    filters,
    frames,
    generated,
    groups,
    joins,
    keywords,
    nulls,
    quoted_names,
    setops,
    sort_take,
    strings_math,
    time_zones,
    windows_expand,
);
