//! Execution fixtures on DuckDB (in-memory, through strata-materialize)

use super::*;

/// `(fixture, section, reason)`: sections of an `.expected` file whose rows
/// on DuckDB are known to differ from the expected (and PostgreSQL) rows.
/// Strict: an entry whose section matches fails `duckdb_exec::<fixture>`.
const KNOWN_DUCKDB_DIFFERENCES: &[(&str, &str, &str)] = &[];

/// `(fixture, model)`: models DuckDB refuses at compile time (E070), whose
/// rows are compared on PostgreSQL and Spark only. Strict: a listed model
/// that compiles for DuckDB fails the test.
const DUCKDB_REFUSED_MODELS: &[(&str, &str)] = &[
    // at_time_zone(): the embedded DuckDB is built without ICU.
    ("time_zones", "madrid_wall"),
];

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
pub(crate) fn typed_view_rows(
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
    let (refused, others) = refused_and_others(
        &file,
        name,
        "duckdb",
        ("DUCKDB_REFUSED_MODELS", DUCKDB_REFUSED_MODELS),
    );
    let compiled = compile_json_models(&file, "duckdb", &others).unwrap_or_else(|e| panic!("{e}"));
    let wh = strata_engine::open(
        &strata_engine::Target::DuckDb(":memory:".into()),
        strata_engine::Lock {
            wait: std::time::Duration::from_secs(5),
            relation: "_strata_lock",
        },
    )
    .unwrap_or_else(|e| panic!("cannot open an in-memory DuckDB: {e:?}"));
    wh.exec(&data)
        .unwrap_or_else(|e| panic!("tests/sql/exec/{name}.data.sql [duckdb] {e:?}"));
    let rows = engine_section_rows(&*wh, "duckdb", name, &compiled, duckdb_view_rows, &refused);
    (compiled, rows)
}

/// Create the compiled views of fixture `name` on `wh` (an engine behind
/// `strata_engine`), then the rows of every section of its
/// `.expected` file but those of the models in `skip`: a check's count from
/// its compiled query, a model's rows through `view_rows`.
pub(crate) fn engine_section_rows(
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
pub(crate) fn run_duckdb_fixture(name: &str) {
    let (compiled, rows) = duckdb_fixture_rows(name);
    assert_fixture_rows(
        "DuckDB",
        name,
        &compiled,
        &rows,
        KNOWN_DUCKDB_DIFFERENCES,
        &refused_in(DUCKDB_REFUSED_MODELS, name),
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
        let refused = refused_in(DUCKDB_REFUSED_MODELS, name);
        let on_pg = on_pg
            .iter()
            .filter(|(section, _)| !refused.contains(&section_model(section)));
        for ((section, p), (_, d)) in on_pg.zip(&on_duck) {
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
