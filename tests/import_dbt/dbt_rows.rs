//! Every converted model publishes the rows of dbt's compiled SQL (dbt from PyPI; a failure under CI when missing).

use super::*;

/// dbt, when installed.
pub(super) fn dbt() -> Option<PathBuf> {
    let path = match std::env::var_os("STRATA_DBT") {
        Some(p) => PathBuf::from(p),
        None => {
            let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
            Path::new(&home).join(".cache/strata-dbt/bin/dbt")
        }
    };
    if path.is_file() {
        Some(path)
    } else {
        tools::unavailable(&format!(
            "dbt is not installed at {} (set STRATA_DBT)",
            path.display()
        ));
        None
    }
}

pub(super) fn run_dbt(dbt: &Path, args: &[&str], cwd: &Path) {
    let o = dbt_command(dbt, args, cwd);
    assert!(
        o.status.success(),
        "dbt {args:?} failed:\n{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
}

/// Run dbt in the corpus; its output, whatever its exit code.
pub(super) fn dbt_command(dbt: &Path, args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(dbt)
        .args(args)
        .args(["--profiles-dir", "."])
        .current_dir(cwd)
        .env("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
        .env_remove("STRATA_CORPUS_REGION")
        .output()
        .unwrap_or_else(|e| panic!("cannot run dbt: {e}"))
}

/// A relation's column names and rows, every value as text (sorted rows).
pub(super) fn rows(
    conn: &duckdb::Connection,
    relation: &str,
) -> (Vec<String>, Vec<Vec<Option<String>>>) {
    let mut stmt = conn
        .prepare(&format!("DESCRIBE SELECT * FROM {relation}"))
        .unwrap_or_else(|e| panic!("{relation}: {e}"));
    let names: Vec<String> = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let cols = names
        .iter()
        .map(|n| format!("CAST(\"{}\" AS VARCHAR)", n.replace('"', "\"\"")))
        .collect::<Vec<_>>()
        .join(", ");
    let mut stmt = conn
        .prepare(&format!("SELECT {cols} FROM {relation}"))
        .unwrap_or_else(|e| panic!("{relation}: {e}"));
    let n = names.len();
    let mut out: Vec<Vec<Option<String>>> = stmt
        .query_map([], |r| {
            (0..n).map(|i| r.get::<_, Option<String>>(i)).collect()
        })
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    out.sort();
    (names, out)
}

/// The per-invocation columns of the test projects: each run's own value
/// (dbt's `run_started_at` or `invocation_id`; strata's run start and run
/// id), named and skipped when rows are compared.
pub(super) const PER_INVOCATION: &[&str] = &["loaded_at", "loaded_by"];

/// `rows` without the values of the [`PER_INVOCATION`] columns (the
/// column names kept).
pub(super) fn without_per_invocation(
    (cols, rows): (Vec<String>, Vec<Vec<Option<String>>>),
) -> (Vec<String>, Vec<Vec<Option<String>>>) {
    let kept: Vec<usize> = (0..cols.len())
        .filter(|&i| !PER_INVOCATION.contains(&cols[i].as_str()))
        .collect();
    let mut rows: Vec<Vec<Option<String>>> = rows
        .into_iter()
        .map(|r| kept.iter().map(|&i| r[i].clone()).collect())
        .collect();
    rows.sort();
    (cols, rows)
}

/// Two values are the same: equal text, or numbers within a relative 1e-9
/// (a float sum may round differently in its last digit).
pub(super) fn same_value(a: &Option<String>, b: &Option<String>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) if x != y => match (x.parse::<f64>(), y.parse::<f64>()) {
            (Ok(p), Ok(q)) => (p - q).abs() <= 1e-9 * p.abs().max(q.abs()).max(1.0),
            _ => false,
        },
        _ => a == b,
    }
}

#[test]
fn converted_models_publish_the_rows_of_dbt_s_compiled_sql() {
    let Some(dbt) = dbt() else { return };
    let tmp = corpus_copy();
    let project = tmp.path().join("corpus");
    run_dbt(&dbt, &["deps"], &project);
    // dbt_utils.star reads the columns of a relation that exists: build
    // the one star_models reads before compiling.
    run_dbt(&dbt, &["seed", "--select", "raw_customers"], &project);
    run_dbt(&dbt, &["run", "--select", "stg_customers"], &project);
    run_dbt(&dbt, &["compile"], &project);

    // dbt's side: the seeds read as strata reads them, then each model's
    // compiled SQL, in dbt's dependency order.
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(project.join("target/manifest.json")).unwrap_or_default(),
    )
    .unwrap_or_else(|e| panic!("manifest.json: {e}"));
    let dbt_db = duckdb::Connection::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
    dbt_db
        .execute_batch("ATTACH ':memory:' AS corpus; USE corpus;")
        .unwrap_or_else(|e| panic!("{e}"));
    for seed in walk(&project.join("seeds")) {
        if seed.extension().is_some_and(|e| e == "csv") {
            let name = seed
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            dbt_db
                .execute_batch(&format!(
                    "CREATE TABLE main.\"{name}\" AS SELECT * FROM read_csv_auto('{}')",
                    seed.display()
                ))
                .unwrap_or_else(|e| panic!("seed {name}: {e}"));
        }
    }
    let nodes = manifest["nodes"].as_object().cloned().unwrap_or_default();
    let mut pending: Vec<(String, String)> = nodes
        .values()
        .filter(|n| n["resource_type"] == "model" && n["config"]["materialized"] != "ephemeral")
        .filter_map(|n| {
            Some((
                n["name"].as_str()?.to_string(),
                n["compiled_code"].as_str()?.to_string(),
            ))
        })
        .collect();
    pending.sort();
    let mut built: Vec<String> = Vec::new();
    // Dependency order by retrying: a model whose inputs are not built yet
    // fails and waits for the next round.
    loop {
        let before = pending.len();
        pending.retain(|(name, sql)| {
            let ok = dbt_db
                .execute_batch(&format!("CREATE TABLE main.\"{name}\" AS {sql}"))
                .is_ok();
            if ok {
                built.push(name.clone());
            }
            !ok
        });
        if pending.len() == before {
            break;
        }
    }

    // strata's side: the Jinja rendered by import-dbt, and dbt's compiled
    // SQL of target/manifest.json (which `dbt compile` just wrote).
    for (out, flags) in [("out", &["--no-manifest"][..]), ("out-manifest", &[][..])] {
        let compared = compare_with_dbt(tmp.path(), out, flags, &dbt_db, &built);
        eprintln!("{out}: {compared} converted models publish the rows of dbt's compiled SQL");
    }
}

/// Import the corpus into `out` (with `flags`), run its `seeds` pipeline,
/// and compare every converted model it runs with dbt's table; the number
/// compared.
fn compare_with_dbt(
    tmp: &Path,
    out: &str,
    flags: &[&str],
    dbt_db: &duckdb::Connection,
    built: &[String],
) -> usize {
    let report = import_corpus_with(tmp, out, flags);
    let root = format!("{out}/corpus.strata");
    let wh = format!("{out}.duckdb");
    let o = strata(&["run", &root, "--pipeline", "seeds", "-o", &wh], tmp);
    assert_ok(&o);
    let strata_db = duckdb::Connection::open(tmp.join(&wh)).unwrap_or_else(|e| panic!("{e}"));
    let mut compared = 0;
    let mut differences: Vec<String> = Vec::new();
    for m in report["models"].as_array().cloned().unwrap_or_default() {
        if m["status"] != "converted" || m["in_pipeline"] != true {
            continue;
        }
        let name = m["name"].as_str().unwrap_or_default();
        if name == "ephemeral_helper" {
            // dbt inlines an ephemeral model: there is no table to compare.
            continue;
        }
        assert!(
            built.contains(&name.to_string()),
            "dbt's compiled SQL of {name} did not run"
        );
        let (dbt_cols, dbt_rows) =
            without_per_invocation(rows(dbt_db, &format!("main.\"{name}\"")));
        let (s_cols, s_rows) = without_per_invocation(rows(&strata_db, &format!("\"v_{name}\"")));
        compared += 1;
        if s_cols != dbt_cols {
            differences.push(format!("{name}: columns {s_cols:?}, dbt's {dbt_cols:?}"));
        } else if s_rows.len() != dbt_rows.len() {
            differences.push(format!(
                "{name}: {} rows, dbt's {}",
                s_rows.len(),
                dbt_rows.len()
            ));
        } else if let Some((a, b)) = s_rows
            .iter()
            .zip(&dbt_rows)
            .find(|(a, b)| !a.iter().zip(b.iter()).all(|(x, y)| same_value(x, y)))
        {
            differences.push(format!("{name}: strata's row {a:?}, dbt's {b:?}"));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n"));
    assert!(compared >= 40, "only {compared} models compared");
    // dbt's invocation id is strata's run id: the id of the run that built
    // the rows, as its history records it.
    let (_, ids) = rows(
        &strata_db,
        "(SELECT DISTINCT loaded_by FROM \"v_invocation_stamp\")",
    );
    let (_, runs) = rows(&strata_db, "(SELECT DISTINCT run_id FROM \"_strata_runs\")");
    assert_eq!(ids, runs, "run_id() is the run's id");
    compared
}
