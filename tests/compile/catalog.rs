//! The function catalog, function by function: one program a function
//! (`tests/sql/programs/fn-<name>.strata`, written from the catalog entry's
//! example over one table of every type), so that every test over
//! `tests/sql/programs` covers every function in every dialect — sqlglot
//! parses its SQL (`sqlglot_parses_every_statement`), PostgreSQL creates its
//! view with the column types of the model (`postgres_*`), Spark never sees
//! a double-quoted name — and DuckDB runs it here on rows of edge cases.
//! A dialect that cannot express a function says so at compile time (E070,
//! listed in `tests/sql/expected_compile_errors.txt`).

use super::*;

/// The table every example reads.
const TABLE: &str = "source t(ns: \"catalog\", dataset: \"t\") {\n  columns: {\n    k: string nonnull\n    i: int64\n    f: float64\n    d: decimal(10,2)\n    s: string\n    b: bool\n    dt: date\n    ts: timestamp\n    j: json\n    a: array(int64)\n    tz: timestamptz\n  }\n}\n";

fn program_path(name: &str) -> PathBuf {
    root().join(format!("tests/sql/programs/fn-{name}.strata"))
}

/// The program of one catalog function.
fn program(f: &strata_lang::catalog::Function) -> String {
    let model = if f.aggregate && !f.example.contains(" over ") {
        format!(
            "model m {{\n  from t\n  group {{ k }} (\n    aggregate {{ x = {} }}\n  )\n}}\n",
            f.example
        )
    } else {
        format!(
            "model m {{\n  from t\n  select {{ k = k, x = {} }}\n}}\n",
            f.example
        )
    };
    format!(
        "# Written from the function catalog (libs/lang/src/catalog/) by tests/compile/catalog.rs:\n# {}: {}\n{TABLE}\n{model}",
        f.signature, f.summary
    )
}

/// Every catalog function has its program, as the catalog writes it today
/// (`STRATA_BLESS=1` rewrites them), and no program is left of a function
/// that is gone.
#[test]
fn every_function_has_its_program() {
    let bless = std::env::var_os("STRATA_BLESS").is_some();
    let mut stale = Vec::new();
    for f in strata_lang::catalog::functions() {
        let path = program_path(f.name);
        let want = program(f);
        if fs::read_to_string(&path).ok().as_deref() != Some(want.as_str()) {
            if bless {
                fs::write(&path, &want).unwrap_or_else(|e| panic!("{e}"));
            } else {
                stale.push(rel(&path));
            }
        }
    }
    let names: Vec<String> = strata_lang::catalog::functions()
        .map(|f| format!("fn-{}.strata", f.name))
        .collect();
    let dir = root().join("tests/sql/programs");
    for entry in fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
    {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with("fn-") && !names.contains(&name) {
            stale.push(format!("{name} (no such function)"));
        }
    }
    assert!(
        stale.is_empty(),
        "programs that differ from the catalog (STRATA_BLESS=1 rewrites them): {stale:?}"
    );
}

/// Rows of edge cases: nulls, negatives, zero, halves, empty strings, a
/// leap day, the turn of a year.
const ROWS: &str = "INSERT INTO t VALUES
 ('a', 1, 2.5, 2.50, 'abc', true, DATE '2024-02-29', TIMESTAMP '2024-02-29 23:59:59', '{\"k\": 1, \"a\": {\"b\": 2}}', [1, 2, 3], TIMESTAMPTZ '2024-03-31 00:59:59+00'),
 ('a', -7, -2.5, -0.05, '', false, DATE '2023-12-31', TIMESTAMP '2023-12-31 00:00:00', '{\"k\": null}', [], TIMESTAMPTZ '2024-10-27 01:00:00+00'),
 ('b', 0, 0.0, 0.00, 'a,b', NULL, DATE '2024-01-01', TIMESTAMP '2024-01-01 12:30:45', 'null', [2], TIMESTAMPTZ '1969-12-31 23:30:00-05:30'),
 ('b', NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)";

/// The programs `tests/sql/expected_compile_errors.txt` says DuckDB
/// refuses with an E070.
fn refused_on_duckdb() -> Vec<String> {
    let list = fs::read_to_string(root().join("tests/sql/expected_compile_errors.txt"))
        .unwrap_or_else(|e| panic!("{e}"));
    list.lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let mut parts = l.split('\t');
            let (file, dialect) = (parts.next()?, parts.next()?);
            (dialect == "duckdb").then(|| file.to_string())
        })
        .collect()
}

/// Every function's DuckDB SQL runs on the edge rows (except the ones
/// DuckDB refuses at compile time, E070).
#[test]
fn every_function_runs_on_duckdb() {
    let db = duckdb::Connection::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
    db.execute_batch(
        "CREATE TABLE t (k VARCHAR, i BIGINT, f DOUBLE, d DECIMAL(10,2), s VARCHAR, b BOOLEAN, dt DATE, ts TIMESTAMP, j JSON, a BIGINT[], tz TIMESTAMPTZ);",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    db.execute_batch(ROWS).unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    let refused = refused_on_duckdb();
    for f in strata_lang::catalog::functions() {
        let path = program_path(f.name);
        if refused.contains(&rel(&path)) {
            // Listed with its reason: it must be an E070, not SQL.
            if compile_json(&path, "duckdb").is_ok() {
                failures.push(format!("{}: listed as E070 on duckdb but compiles", f.name));
            }
            continue;
        }
        let compiled = match compile_json(&path, "duckdb") {
            Ok(c) => c,
            Err(e) => {
                failures.push(format!("{}: {e}", f.name));
                continue;
            }
        };
        for v in array(&compiled, "views") {
            let sql = str_field(v, "sql");
            let run = db
                .execute_batch(sql)
                .and_then(|()| db.execute_batch("SELECT * FROM v_m"));
            if let Err(e) = run {
                failures.push(format!("{}: {e}\n{sql}", f.name));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
