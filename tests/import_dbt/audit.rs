//! `strata audit` on a copy of the corpus built by dbt, with planted bugs:
//! a product row duplicated (its unique test removed) and a model summing
//! an order line's quantity after joining the products; and a model whose
//! fan-out a `group by` on the from side's key collapses.
//!
//! * every join sqlglot finds in the compiled SQL of manifest.json is in
//!   the audit (the same count per model);
//! * `--data` reports the planted fan-out with its key and the double
//!   counting with its line; the by-design join is not a fan-out;
//! * every count on the data agrees with a plain SQL count of duplicate keys;
//! * the warehouse is byte-identical after the audit;
//! * `--write-tests` writes a YAML file;
//! * dbt's warehouse loaded into a throw-away PostgreSQL cluster, `--data`
//!   with a postgres profile counts the same joins the same, as a plain
//!   count there does, creates nothing and prints no password; on a local
//!   Spark Connect server, likewise for every join counted on a relation.

use super::dbt_rows::{dbt, dbt_command, run_dbt};
use super::*;
use crate::{pg, spark};

const PLANTED: &str = "-- Planted: products repeat their key, so quantities are counted twice.
select
    i.order_id,
    sum(i.quantity) as quantity,
    max(p.title) as title
from {{ ref('stg_order_items') }} i
join {{ ref('raw_products') }} p on i.product_id = p.product_id
group by i.order_id
";

const BY_DESIGN: &str = "select o.order_id, sum(p.amount) as paid
from {{ ref('stg_orders') }} o
left join {{ ref('stg_payments') }} p on o.order_id = p.order_id
group by o.order_id
";

const SQLGLOT: &str = r#"
import json, sys
import sqlglot
from sqlglot import exp
m = json.load(open(sys.argv[1]))
out = {}
for node in m["nodes"].values():
    if node.get("resource_type") != "model" or "compiled_code" not in node:
        continue
    try:
        trees = sqlglot.parse(node["compiled_code"], read="duckdb")
    except Exception:
        continue
    out[node["name"]] = sum(len(list(t.find_all(exp.Join))) for t in trees if t is not None)
print(json.dumps(out))
"#;

fn planted_corpus() -> tempfile::TempDir {
    let tmp = corpus_copy();
    let project = tmp.path().join("corpus");
    let products = project.join("seeds/raw_products.csv");
    let mut text = std::fs::read_to_string(&products).unwrap_or_else(|e| panic!("{e}"));
    let first = text.lines().nth(1).unwrap_or_default().to_string();
    text.push_str(&format!("{first}\n"));
    std::fs::write(&products, text).unwrap_or_else(|e| panic!("{e}"));
    let seeds = project.join("seeds/seeds.yml");
    let yml = std::fs::read_to_string(&seeds).unwrap_or_else(|e| panic!("{e}"));
    let yml = yml.replacen(
        "      - name: product_id\n        data_tests:\n          - unique\n",
        "      - name: product_id\n        data_tests:\n",
        1,
    );
    std::fs::write(&seeds, yml).unwrap_or_else(|e| panic!("{e}"));
    for (name, sql) in [("planted_sales", PLANTED), ("paid_per_order", BY_DESIGN)] {
        std::fs::write(project.join(format!("models/marts/{name}.sql")), sql)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    tmp
}

fn json_of(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}):\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn audit_finds_every_join_and_the_planted_fan_out_read_only() {
    let Some(dbt) = dbt() else { return };
    let Some(python) = tools::python_with(&["sqlglot"]) else {
        return;
    };
    let tmp = planted_corpus();
    let project = tmp.path().join("corpus");
    run_dbt(&dbt, &["deps"], &project);
    run_dbt(&dbt, &["seed"], &project);
    // The corpus has a model dbt itself refuses (sql_error): the others build.
    dbt_command(&dbt, &["run"], &project);
    dbt_command(&dbt, &["compile"], &project);

    // Every join sqlglot finds.
    let script = tmp.path().join("joins.py");
    std::fs::write(&script, SQLGLOT).unwrap_or_else(|e| panic!("{e}"));
    let o = Command::new(&python)
        .arg(&script)
        .arg(project.join("target/manifest.json"))
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let glot: BTreeMap<String, u64> =
        serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}"));
    let warehouse = project.join("corpus.duckdb");
    let before = std::fs::read(&warehouse).unwrap_or_else(|e| panic!("{e}"));
    let out = strata(
        &[
            "audit",
            "corpus",
            "--data",
            "--format",
            "json",
            "--write-tests",
            "tests.yml",
        ],
        tmp.path(),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let audit = json_of(&out);
    let after = std::fs::read(&warehouse).unwrap_or_else(|e| panic!("{e}"));
    assert!(before == after, "the warehouse changed during the audit");

    let joins = audit["joins"].as_array().cloned().unwrap_or_default();
    let mut ours: BTreeMap<String, u64> = BTreeMap::new();
    for j in &joins {
        *ours
            .entry(j["model"].as_str().unwrap_or_default().to_string())
            .or_default() += 1;
    }
    let glot: BTreeMap<String, u64> = glot.into_iter().filter(|(_, n)| *n > 0).collect();
    assert!(glot.len() >= 15, "{glot:?}");
    assert_eq!(ours, glot, "joins per model: strata audit, then sqlglot");

    let find = |model: &str| {
        joins
            .iter()
            .find(|j| j["model"] == model)
            .cloned()
            .unwrap_or_else(|| panic!("no join of {model}"))
    };
    let planted = find("planted_sales");
    assert_eq!(planted["verdict"], "fans_out_today", "{planted:#}");
    assert_eq!(planted["data"]["duplicate_groups"], 1);
    let example = planted["data"]["examples"][0].as_str().unwrap_or_default();
    assert!(example.starts_with("product_id=10 (2 rows)"), "{example}");
    assert_eq!(planted["double_counts"][0]["text"], "sum(i.quantity)");
    assert_eq!(planted["double_counts"][0]["at"]["line"], 4);
    assert_eq!(planted["double_counts"][0]["at"]["line_in"], "model");
    assert_eq!(planted["at"]["file"], "models/marts/planted_sales.sql");
    assert_eq!(planted["at"]["line"], 7);
    let by_design = find("paid_per_order");
    assert_eq!(
        by_design["verdict"], "one_to_many_by_design",
        "{by_design:#}"
    );
    assert!(by_design["data"].is_null());

    // Every count agrees with a plain count of duplicate keys.
    let conn = duckdb::Connection::open_with_flags(
        &warehouse,
        duckdb::Config::default()
            .access_mode(duckdb::AccessMode::ReadOnly)
            .unwrap_or_else(|e| panic!("{e}")),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let counted = plain_counts_agree(
        &joins,
        |k| format!("\"{k}\""),
        |sql| {
            conn.query_row(sql, [], |r| r.get(0))
                .unwrap_or_else(|e| panic!("{sql}: {e}"))
        },
    );
    assert!(counted >= 3, "{counted} joins counted");
    let tests =
        std::fs::read_to_string(tmp.path().join("tests.yml")).unwrap_or_else(|e| panic!("{e}"));
    assert!(tests.contains("version: 2"), "{tests}");
    assert!(
        !tests.contains("raw_products"),
        "a test that fails today: {tests}"
    );
    on_postgres(tmp.path(), &conn, &joins);
    on_spark(tmp.path(), &conn, &joins);
}

/// A PostgreSQL type for a DuckDB column type (the values loaded as CSV).
fn pg_type(duckdb: &str) -> &'static str {
    let t = duckdb.to_ascii_uppercase();
    match t.as_str() {
        "INTEGER" => "integer",
        "BIGINT" => "bigint",
        "SMALLINT" | "TINYINT" => "smallint",
        "DOUBLE" => "double precision",
        "FLOAT" => "real",
        "BOOLEAN" => "boolean",
        "DATE" => "date",
        "TIMESTAMP" => "timestamp",
        "TIMESTAMP WITH TIME ZONE" => "timestamptz",
        _ if t.starts_with("DECIMAL") || t == "HUGEINT" => "numeric",
        _ => "text",
    }
}

/// The tables of dbt's DuckDB schema `main`, each with its columns and
/// their types (as `ty` writes DuckDB's for another engine), in order.
fn main_tables(
    duck: &duckdb::Connection,
    ty: impl Fn(&str) -> String,
) -> BTreeMap<String, Vec<(String, String)>> {
    let mut stmt = duck
        .prepare(
            "select table_name, column_name, data_type from information_schema.columns \
             where table_schema = 'main' order by table_name, ordinal_position",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let cols: Vec<(String, String, String)> = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
        .collect();
    let mut tables: BTreeMap<String, Vec<(String, String)>> = BTreeMap::new();
    for (t, c, t_ty) in cols {
        tables.entry(t).or_default().push((c, ty(&t_ty)));
    }
    tables
}

/// dbt's warehouse loaded into a throw-away PostgreSQL cluster (schema
/// `main`, as the manifest names it): `audit --data` with a postgres
/// profile (its password from profiles.yml, never printed) gives every
/// join the count it had on DuckDB, which a plain count on PostgreSQL
/// agrees with; no relation is created.
fn on_postgres(tmp: &Path, duck: &duckdb::Connection, duck_joins: &[serde_json::Value]) {
    let Some(server) = pg::pg() else { return };
    let mut load = String::from("DROP SCHEMA IF EXISTS main CASCADE; CREATE SCHEMA main;\n");
    let tables = main_tables(duck, str::to_string);
    assert!(tables.len() >= 20, "{tables:?}");
    for (t, cols) in &tables {
        let csv = tmp.join(format!("pg-{t}.csv"));
        duck.execute_batch(&format!(
            "COPY (SELECT * FROM main.\"{t}\") TO '{}' (FORMAT csv, HEADER false)",
            csv.display()
        ))
        .unwrap_or_else(|e| panic!("{t}: {e}"));
        let defs: Vec<String> = cols
            .iter()
            .map(|(c, ty)| format!("\"{c}\" {}", pg_type(ty)))
            .collect();
        load.push_str(&format!(
            "CREATE TABLE main.\"{t}\" ({});\n\\copy main.\"{t}\" from '{}' with (format csv)\n",
            defs.join(", "),
            csv.display()
        ));
    }
    server
        .psql("main", &load)
        .unwrap_or_else(|e| panic!("loading dbt's warehouse into PostgreSQL: {e}"));
    let relations = || {
        server
            .psql("main", "SELECT count(*) FROM pg_class;")
            .unwrap_or_else(|e| panic!("{e}"))
    };
    let before = relations();

    let profiles = tmp.join("pg-profile");
    std::fs::create_dir_all(&profiles).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(
        profiles.join("profiles.yml"),
        format!(
            "corpus:\n  target: pg\n  outputs:\n    pg:\n      type: postgres\n      host: 127.0.0.1\n      port: {}\n      user: postgres\n      password: {}\n      dbname: postgres\n      schema: main\n      threads: 1\n",
            server.port,
            pg::PASSWORD
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = Command::new(STRATA)
        .args([
            "audit",
            "corpus",
            "--data",
            "--format",
            "json",
            "--profiles-dir",
        ])
        .arg(&profiles)
        .current_dir(tmp)
        .env_remove("PGPASSWORD")
        .env_remove("DBT_PROFILES_DIR")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let printed = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!printed.contains(pg::PASSWORD), "the password was printed");
    assert_eq!(out.status.code(), Some(0), "{printed}");
    let audit = json_of(&out);
    assert!(
        audit["warehouse"]
            .as_str()
            .is_some_and(|w| w.starts_with("postgres://postgres@127.0.0.1:")),
        "{}",
        audit["warehouse"]
    );
    assert_eq!(relations(), before, "the audit created a relation");

    // The same joins counted, with the same verdicts and counts as on
    // DuckDB, and a plain count on PostgreSQL agrees with each.
    // A CTE counted on its own SQL is DuckDB's SQL (dbt compiled the corpus
    // for DuckDB): date_spine's `range()` does not run on PostgreSQL, and
    // the audit says so instead of a verdict on the data.
    let pg_joins = audit["joins"].as_array().cloned().unwrap_or_default();
    let (failed, pg_joins): (Vec<_>, Vec<_>) = pg_joins.into_iter().partition(|j| {
        j["evidence"]
            .as_str()
            .is_some_and(|e| e.contains("the count on the data failed"))
    });
    let failed: Vec<&str> = failed.iter().filter_map(|j| j["model"].as_str()).collect();
    assert_eq!(failed, ["date_spine"], "counts that failed on PostgreSQL");
    let duck_joins: Vec<serde_json::Value> = duck_joins
        .iter()
        .filter(|j| j["model"] != "date_spine")
        .cloned()
        .collect();
    assert_eq!(
        verdicts(&pg_joins),
        verdicts(&duck_joins),
        "PostgreSQL, then DuckDB"
    );
    let counted = plain_counts_agree(
        &pg_joins,
        |k| format!("\"{k}\""),
        |sql| {
            server
                .psql("main", &format!("{sql};"))
                .unwrap_or_else(|e| panic!("{sql}: {e}"))
                .trim()
                .parse()
                .unwrap_or_else(|e| panic!("{sql}: {e}"))
        },
    );
    assert!(counted >= 3, "{counted} joins counted on PostgreSQL");
}

/// A Spark type for a DuckDB column type.
fn spark_type(duckdb: &str) -> String {
    let t = duckdb.to_ascii_uppercase();
    match t.as_str() {
        "INTEGER" => "INT".into(),
        "BIGINT" | "DOUBLE" | "FLOAT" | "BOOLEAN" | "DATE" | "TIMESTAMP" => t,
        "SMALLINT" | "TINYINT" => "SMALLINT".into(),
        "HUGEINT" => "DECIMAL(38,0)".into(),
        _ if t.starts_with("DECIMAL") => t,
        _ => "STRING".into(),
    }
}

/// The joins as compared across warehouses: verdict and count by place.
fn verdicts(joins: &[serde_json::Value]) -> BTreeMap<String, (String, Option<i64>)> {
    joins
        .iter()
        .map(|j| {
            (
                format!(
                    "{} {}:{} {}",
                    j["model"], j["at"]["file"], j["at"]["line"], j["joined"]
                ),
                (
                    j["verdict"].as_str().unwrap_or_default().to_string(),
                    j["data"]["duplicate_groups"].as_i64(),
                ),
            )
        })
        .collect()
}

/// dbt's warehouse loaded into a local Spark Connect server (database
/// `main`): `audit --data -o sc://...` counts every join DuckDB counted on
/// a relation the same (the ones counted on a CTE's SQL are DuckDB's SQL,
/// which Spark does not read: the audit says the count failed), a plain
/// count on Spark agrees, no table is created, the token is never printed.
fn on_spark(tmp: &Path, duck: &duckdb::Connection, duck_joins: &[serde_json::Value]) {
    let Some(server) = spark::spark() else { return };
    let open = |db: &str| {
        strata_engine::open_read_only(
            &strata_engine::Target::parse(&server.url(db), None)
                .unwrap_or_else(|e| panic!("{e:?}")),
            std::time::Duration::from_secs(10),
        )
        .unwrap_or_else(|e| panic!("{e:?}\n{}", server.log()))
    };
    let wh = open("default");
    wh.exec("DROP DATABASE IF EXISTS `main` CASCADE; CREATE DATABASE `main`")
        .unwrap_or_else(|e| panic!("{e:?}"));
    let tables = main_tables(duck, spark_type);
    for (t, cols) in &tables {
        let defs: Vec<String> = cols.iter().map(|(c, ty)| format!("`{c}` {ty}")).collect();
        wh.exec(&format!(
            "CREATE TABLE `main`.`{t}` ({}) USING parquet",
            defs.join(", ")
        ))
        .unwrap_or_else(|e| panic!("{t}: {e:?}"));
        let text_cols: Vec<String> = cols
            .iter()
            .map(|(c, _)| format!("CAST(\"{c}\" AS VARCHAR)"))
            .collect();
        let mut q = duck
            .prepare(&format!(
                "SELECT {} FROM main.\"{t}\"",
                text_cols.join(", ")
            ))
            .unwrap_or_else(|e| panic!("{t}: {e}"));
        let n = cols.len();
        let rows: Vec<String> = q
            .query_map([], |r| {
                (0..n)
                    .map(|i| r.get::<_, Option<String>>(i))
                    .collect::<Result<Vec<_>, _>>()
            })
            .unwrap_or_else(|e| panic!("{e}"))
            .map(|r| {
                let r = r.unwrap_or_else(|e| panic!("{e}"));
                let vals: Vec<String> = r
                    .iter()
                    .zip(cols)
                    .map(|(v, (_, ty))| match v {
                        Some(v) => format!(
                            "CAST('{}' AS {ty})",
                            v.replace('\\', "\\\\").replace('\'', "\\'")
                        ),
                        None => format!("CAST(NULL AS {ty})"),
                    })
                    .collect();
                format!("({})", vals.join(", "))
            })
            .collect();
        if !rows.is_empty() {
            wh.exec(&format!(
                "INSERT INTO `main`.`{t}` VALUES {}",
                rows.join(", ")
            ))
            .unwrap_or_else(|e| panic!("{t}: {e:?}"));
        }
    }
    let tables_now = || {
        wh.rows("SHOW TABLES IN `main`")
            .unwrap_or_else(|e| panic!("{e:?}"))
            .len()
    };
    let before = tables_now();
    let url = server.url("main");
    let out = strata(&["audit", "corpus", "-o", &url, "--format", "json"], tmp);
    let printed = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(!printed.contains(spark::TOKEN), "the token was printed");
    assert_eq!(out.status.code(), Some(0), "{printed}");
    assert_eq!(tables_now(), before, "the audit created a table");
    let audit = json_of(&out);
    let joins = audit["joins"].as_array().cloned().unwrap_or_default();
    let (failed, joins): (Vec<_>, Vec<_>) = joins.into_iter().partition(|j| {
        j["evidence"]
            .as_str()
            .is_some_and(|e| e.contains("the count on the data failed"))
    });
    let on_sql: Vec<&serde_json::Value> = duck_joins
        .iter()
        .filter(|j| {
            j["data"]["relation"]
                .as_str()
                .is_some_and(|r| r.starts_with('('))
        })
        .collect();
    assert_eq!(
        failed
            .iter()
            .map(|j| j["model"].clone())
            .collect::<Vec<_>>(),
        on_sql
            .iter()
            .map(|j| j["model"].clone())
            .collect::<Vec<_>>(),
        "the counts that failed on Spark are those of DuckDB's SQL"
    );
    let duck_rest: Vec<serde_json::Value> = duck_joins
        .iter()
        .filter(|j| {
            !on_sql
                .iter()
                .any(|o| o["at"] == j["at"] && o["model"] == j["model"])
        })
        .cloned()
        .collect();
    assert_eq!(verdicts(&joins), verdicts(&duck_rest), "Spark, then DuckDB");
    let counted = plain_counts_agree(
        &joins,
        |k| format!("`{k}`"),
        |sql| {
            let rows = wh.rows(sql).unwrap_or_else(|e| panic!("{sql}: {e:?}"));
            rows[0][0]
                .as_deref()
                .unwrap_or_default()
                .parse()
                .unwrap_or_else(|e| panic!("{sql}: {e}"))
        },
    );
    assert!(counted >= 3, "{counted} joins counted on Spark");
}

/// Every join counted on the data agrees with a plain count of duplicate
/// key groups (NULL keys left out), run by `count` (identifiers quoted by
/// `quote`); how many were compared.
fn plain_counts_agree(
    joins: &[serde_json::Value],
    quote: impl Fn(&str) -> String,
    count: impl Fn(&str) -> i64,
) -> usize {
    let mut counted = 0;
    for j in joins {
        let Some(data) = j["data"].as_object() else {
            continue;
        };
        let keys: Vec<String> = data["keys"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|k| k.as_str().map(&quote))
            .collect();
        let sql = format!(
            "SELECT count(*) FROM (SELECT {k} FROM {rel} WHERE {nn} GROUP BY {k} HAVING count(*) > 1) AS d",
            k = keys.join(", "),
            rel = data["relation"].as_str().unwrap_or_default(),
            nn = keys
                .iter()
                .map(|k| format!("{k} IS NOT NULL"))
                .collect::<Vec<_>>()
                .join(" AND ")
        );
        assert_eq!(
            Some(count(&sql)),
            data["duplicate_groups"].as_i64(),
            "{j:#}"
        );
        counted += 1;
    }
    counted
}
