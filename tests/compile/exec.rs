//! Execution fixtures (tests/sql/exec)

use super::*;

/// The sections of an `.expected` file, in file order.
pub(crate) fn parse_expected(path: &Path) -> Vec<(String, Vec<String>)> {
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

pub(crate) fn exec_dir() -> PathBuf {
    root().join("tests/sql/exec")
}

/// The rows (sorted, `.expected` text form) or the error of each section of
/// a fixture's `.expected` file, in file order, as one engine returned them.
pub(crate) type SectionRows = Vec<(String, Result<Vec<String>, String>)>;

/// The compiled view of a model (`views[].view` by `views[].model`).
pub(crate) fn view_of<'a>(compiled: &'a Value, model: &str) -> Option<&'a str> {
    array(compiled, "views")
        .iter()
        .find(|v| str_field(v, "model") == model)
        .map(|v| str_field(v, "view"))
}

/// The cardinality check query labelled `<join> on <table>`.
pub(crate) fn check_sql<'a>(compiled: &'a Value, label: &str) -> Option<&'a str> {
    array(compiled, "cardinality_checks")
        .iter()
        .find(|c| format!("{} on {}", str_field(c, "join"), str_field(c, "table")) == label)
        .map(|c| str_field(c, "sql"))
}

/// Run one fixture on PostgreSQL: the compiled (postgres) output and the
/// rows of every section of its `.expected` file.
pub(crate) fn pg_fixture_rows(pg: &Pg, name: &str) -> (Value, SectionRows) {
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
pub(crate) fn assert_fixture_rows(
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
pub(crate) fn section_model(section: &str) -> &str {
    match section.strip_prefix("check ") {
        Some(check) => check.split(' ').next().unwrap_or_default(),
        None => section,
    }
}

/// Run one fixture on PostgreSQL and compare every section of its
/// `.expected` file; all differences are reported together.
pub(crate) fn run_fixture(name: &str) {
    let Some(pg) = pg() else { return };
    let (compiled, rows) = pg_fixture_rows(pg, name);
    assert_fixture_rows("PostgreSQL", name, &compiled, &rows, &[], &[]);
}

pub(crate) fn sql_of(compiled: &Value, model: &str) -> String {
    array(compiled, "views")
        .iter()
        .find(|v| str_field(v, "model") == model)
        .map(|v| str_field(v, "sql").to_string())
        .unwrap_or_default()
}

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
        "tests/sql/exec/*.strata and the exec_fixtures! list in tests/compile/main.rs differ"
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
