//! A dbt project dbt built into a DuckDB file (`tests/dbt/warehouse`:
//! sources in a schema of their own, declaring no columns; a seed typed by
//! `column_types` against DuckDB's CSV sniffer; a model reading
//! `run_started_at` and `invocation_id`), imported and run as the import prints it:
//!
//! * the import asks dbt's warehouse for the sources' columns and leaves
//!   the file byte-identical;
//! * every model converts, and every command the import prints works as
//!   printed;
//! * `strata run ROOT --target dbt` publishes into schema `strata` of
//!   dbt's own file, beside dbt's relations, and every converted model
//!   publishes the rows dbt built (`loaded_at`, dbt's `run_started_at`, is
//!   per-invocation: named and skipped).
//!
//! And a PostgreSQL profile (a throw-away server): the sources' columns
//! read from it, the password never printed nor written (`password-env`
//! names the profile's variable), and `--target dbt` runs on it.

use super::dbt_rows::{dbt, rows, run_dbt, same_value, without_per_invocation};
use super::*;

#[test]
fn a_dbt_built_warehouse_is_read_and_run_side_by_side() {
    let Some(dbt) = dbt() else { return };
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let project = tmp.path().join("shopwh");
    copy_dir(&root().join("tests/dbt/warehouse"), &project);
    let file = project.join("shopwh.duckdb");
    {
        // What a loader left: the raw tables, in schema `raw`.
        let c = duckdb::Connection::open(&file).unwrap_or_else(|e| panic!("{e}"));
        c.execute_batch(
            "CREATE SCHEMA raw;
             CREATE TABLE raw.customers_raw AS SELECT * FROM (VALUES (1, 'Ann'), (2, 'Bo'), (3, 'Cy')) AS t(id, name);
             CREATE TABLE raw.orders AS SELECT * FROM (VALUES
               (10, 1, CAST(5.5 AS DOUBLE), '1'), (11, 1, 2.0, '2'), (12, 2, 7.25, '3'), (13, 3, 1.0, '9')
             ) AS t(id, customer_id, amount, code);",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    }
    run_dbt(&dbt, &["build"], &project);
    assert!(!project.join("target/catalog.json").exists());
    let before = std::fs::read(&file).unwrap_or_else(|e| panic!("{e}"));

    // The import, as a user runs it; then its report.
    let o = strata(&["import-dbt", "shopwh", "-o", "out"], tmp.path());
    let printed = text(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{printed}{}", text(&o.stderr));
    let report = import_with(tmp.path(), "shopwh", "out-json");
    assert_eq!(
        std::fs::read(&file).unwrap_or_else(|e| panic!("{e}")),
        before,
        "the import never writes to dbt's warehouse"
    );
    assert_eq!(report["summary"]["converted"], 5, "{printed}");
    for s in report["sources"].as_array().cloned().unwrap_or_default() {
        assert_eq!(s["types_from"], serde_json::json!(["warehouse"]), "{s}");
    }
    let toml = std::fs::read_to_string(tmp.path().join("out/strata.toml")).unwrap_or_default();
    assert!(
        toml.contains("[targets.dbt]\nurl = \"../shopwh/shopwh.duckdb?schema=strata\""),
        "{toml}"
    );

    // Every command it prints, as printed.
    let next: Vec<&str> = printed
        .lines()
        .filter_map(|l| l.trim().strip_prefix("strata "))
        .collect();
    assert!(
        next.iter().any(|c| c.ends_with("--target dbt")),
        "{printed}"
    );
    // The seed typed by column_types runs from its file too.
    let seeds_wh = next
        .iter()
        .find(|c| c.contains("--pipeline seeds"))
        .and_then(|c| c.split_whitespace().skip_while(|a| *a != "-o").nth(1))
        .unwrap_or_else(|| panic!("no seeds pipeline printed: {printed}"));
    for line in &next {
        let args: Vec<&str> = line.split_whitespace().collect();
        let o = strata(&args, tmp.path());
        assert_eq!(
            o.status.code(),
            Some(0),
            "strata {line}: {}{}",
            text(&o.stdout),
            text(&o.stderr)
        );
    }

    // Side by side in dbt's file: dbt's relation and strata's view.
    let c = duckdb::Connection::open(&file).unwrap_or_else(|e| panic!("{e}"));
    let mut compared = 0;
    for m in report["models"].as_array().cloned().unwrap_or_default() {
        assert_eq!(m["status"], "converted", "{m}");
        let name = m["name"].as_str().unwrap_or_default();
        let (dbt_cols, dbt_rows) = without_per_invocation(rows(&c, &format!("main.\"{name}\"")));
        let (s_cols, s_rows) = without_per_invocation(rows(&c, &format!("strata.\"v_{name}\"")));
        assert_eq!(s_cols, dbt_cols, "{name}: the columns");
        assert_eq!(s_rows.len(), dbt_rows.len(), "{name}: the rows");
        for (a, b) in s_rows.iter().zip(&dbt_rows) {
            assert!(
                a.iter().zip(b).all(|(x, y)| same_value(x, y)),
                "{name}: strata's row {a:?}, dbt's {b:?}"
            );
        }
        compared += 1;
    }
    assert_eq!(compared, 5);
    // In the seeds pipeline, strata read codes.csv itself, with the seed's
    // column_types: `007` kept as text, the weights as decimal(10,2); the
    // rows dbt built from the table it loaded.
    let s = duckdb::Connection::open(tmp.path().join(seeds_wh)).unwrap_or_else(|e| panic!("{e}"));
    let (dbt_cols, dbt_rows) = rows(&c, "main.code_weights");
    let (s_cols, s_rows) = rows(&s, "v_code_weights");
    assert_eq!(s_cols, dbt_cols);
    assert_eq!(s_rows, dbt_rows, "code_weights on the seeds pipeline");
    assert!(
        s_rows.contains(&vec![
            Some("007".to_string()),
            Some("seven".to_string()),
            Some("0.07".to_string())
        ]),
        "{s_rows:?}"
    );
    // dbt's invocation id is the id of strata's run, as its history shows.
    let (_, ids) = rows(
        &c,
        "(SELECT DISTINCT loaded_by FROM strata.v_customer_totals)",
    );
    let (_, runs) = rows(
        &c,
        "(SELECT run_id FROM strata._strata_runs WHERE models LIKE '%customer_totals%' ORDER BY started_at DESC LIMIT 1)",
    );
    assert_eq!(ids, runs, "run_id() is the run's id");
}

/// Import `project` into `out` as JSON; the report.
fn import_with(tmp: &Path, project: &str, out: &str) -> serde_json::Value {
    let o = strata(&["import-dbt", project, "-o", out, "--format", "json"], tmp);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_postgres_profile_is_read_with_the_password_it_names_and_never_shows() {
    let Some(pg) = pg::pg() else { return };
    let raw = pg.schema_name("raw");
    pg.psql(
        "public",
        &format!(
            "CREATE SCHEMA {raw}; CREATE SCHEMA IF NOT EXISTS strata; CREATE SCHEMA IF NOT EXISTS analytics;
             CREATE TABLE {raw}.customers(id bigint, name text, amount numeric(10,2));
             INSERT INTO {raw}.customers VALUES (1, 'Ann', 2.50), (2, 'Bo', 3.25);"
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    for (dir, password) in [
        (
            "by-env",
            "\"{{ env_var('STRATA_TEST_PG_PW') }}\"".to_string(),
        ),
        ("given", format!("\"{}\"", pg::PASSWORD)),
    ] {
        let project = tmp.path().join(dir);
        std::fs::create_dir_all(project.join("models")).unwrap_or_else(|e| panic!("{e}"));
        let write = |f: &str, t: String| {
            std::fs::write(project.join(f), t).unwrap_or_else(|e| panic!("{e}"))
        };
        write("dbt_project.yml", "name: pgshop\nprofile: pgshop\n".into());
        write(
            "profiles.yml",
            format!(
                "pgshop:\n  target: dev\n  outputs:\n    dev:\n      type: postgres\n      host: 127.0.0.1\n      port: {}\n      user: postgres\n      password: {password}\n      dbname: postgres\n      schema: analytics\n",
                pg.port
            ),
        );
        write(
            "models/sources.yml",
            format!("version: 2\nsources:\n  - name: shop\n    schema: {raw}\n    tables:\n      - name: customers\n"),
        );
        write(
            "models/stg_customers.sql",
            "select id, name, amount from {{ source('shop', 'customers') }}\n".into(),
        );
        let out = format!("{dir}-out");
        let o = Command::new(STRATA)
            .args(["import-dbt", dir, "-o", &out])
            .current_dir(tmp.path())
            .env("STRATA_TEST_PG_PW", pg::PASSWORD)
            .env_remove("PGPASSWORD")
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let printed = format!("{}{}", text(&o.stdout), text(&o.stderr));
        assert_eq!(o.status.code(), Some(0), "{printed}");
        assert!(printed.contains("1 of 1 models converted"), "{printed}");
        let toml =
            std::fs::read_to_string(tmp.path().join(&out).join("strata.toml")).unwrap_or_default();
        let md =
            std::fs::read_to_string(tmp.path().join(&out).join("IMPORT.md")).unwrap_or_default();
        for shown in [&printed, &toml, &md] {
            assert!(
                !shown.contains(pg::PASSWORD),
                "the password shown:\n{shown}"
            );
        }
        assert!(
            toml.contains(&format!(
                "url = \"postgres://postgres@127.0.0.1:{}/postgres?schema=strata\"",
                pg.port
            )),
            "{toml}"
        );
        assert!(md.contains("| warehouse |"), "{md}");
        if dir == "by-env" {
            assert!(
                toml.contains("password-env = \"STRATA_TEST_PG_PW\""),
                "{toml}"
            );
            // The printed command runs on the server dbt's profile names.
            let o = Command::new(STRATA)
                .args(["run", &format!("{out}/pgshop.strata"), "--target", "dbt"])
                .current_dir(tmp.path())
                .env("STRATA_TEST_PG_PW", pg::PASSWORD)
                .output()
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(
                o.status.code(),
                Some(0),
                "{}{}",
                text(&o.stdout),
                text(&o.stderr)
            );
            let rows = pg
                .psql(
                    "strata",
                    "SELECT id, name, amount FROM v_stg_customers ORDER BY id",
                )
                .unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(rows, "1|Ann|2.50\n2|Bo|3.25\n");
        } else {
            assert!(!toml.contains("password-env"), "{toml}");
        }
    }
}
