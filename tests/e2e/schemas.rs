//! Sources in a schema of their own, on every engine: a declaration's
//! `schema:` / `table:` is read (not the table named like the source in
//! the warehouse's schema), `--source NAME=schema.table` and a pipeline's
//! `from(dataset: "schema.table")` read a qualified table, a different
//! table is a different run, `status` judges freshness on it, OpenLineage
//! names it, and a name that is not there or not a name fails before
//! anything runs.

use crate::support::*;

on_every_engine!(sources_are_read_in_their_own_schema);

/// A schema (a Spark database) of its own for this test, created.
fn raw_schema(kind: Kind, wh: &Wh) -> Option<String> {
    let name = match kind {
        Kind::DuckDb => "raw".to_string(),
        Kind::Postgres => crate::pg::pg()?.schema_name("raw"),
        // Created by the support.
        Kind::Spark => return Some(crate::spark::spark()?.database("raw")),
    };
    wh.open()
        .exec(&format!("CREATE SCHEMA {}", wh.ident(&name)))
        .expect("create the schema");
    Some(name)
}

fn run_id(o: &std::process::Output) -> String {
    text(o)
        .lines()
        .find_map(|l| l.strip_prefix("run "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no run id:\n{}", text(o)))
        .to_string()
}

fn sources_are_read_in_their_own_schema(kind: Kind) {
    let dir = workdir("schemas");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let Some(raw) = raw_schema(kind, &wh) else {
        return;
    };
    let q = |table: &str| format!("{}.{}", wh.ident(&raw), wh.ident(table));
    let rows = |pairs: &str| {
        format!(
            "SELECT CAST(customer_id AS BIGINT) AS customer_id, CAST(country AS {}) AS country \
             FROM (VALUES {pairs}) AS t(customer_id, country)",
            wh.type_name("VARCHAR")
        )
    };
    let admin = wh.open();
    for sql in [
        format!(
            "CREATE TABLE {} AS {}",
            q("customer"),
            rows("(10, 'ES'), (20, 'FR')")
        ),
        format!(
            "CREATE TABLE {} AS {}",
            q("customer_v2"),
            rows("(10, 'PT'), (20, 'BE')")
        ),
        // Named like the source, where the warehouse keeps its relations:
        // a source that names its schema does not read it.
        format!("CREATE TABLE customers AS {}", rows("(10, 'XX')")),
    ] {
        admin.exec(&sql).unwrap_or_else(|e| panic!("{sql}: {e:?}"));
    }
    drop(admin);
    write(&dir, "orders.csv", ORDERS);
    write(
        &dir,
        "m.strata",
        &format!(
            r#"source orders(ns: "app") {{
  columns: {{ order_id: int64, customer_id: int64, amount: float64 }}
}}

source customers(schema: "{raw}", table: "customer") {{
  columns: {{ customer_id: int64 nonnull, country: string }}
}}

model enriched {{
  from orders
  join_left customers on orders.customer_id == customers.customer_id expect many_to_one
  select {{ order_id = order_id, country = customers.country }}
}}

pipeline moved {{
  models: [enriched]
  sources: {{
    orders: from(path: "orders.csv")
    customers: from(dataset: "{raw}.customer_v2")
  }}
}}
"#
        ),
    );
    let run = |extra: &[&str]| {
        let args = [
            &[
                "run",
                "m.strata",
                "-o",
                "wh.duckdb",
                "--openlineage",
                "events.jsonl",
            ][..],
            extra,
        ]
        .concat();
        wh.strata(&args)
    };
    let countries = || wh.query("SELECT order_id, country FROM v_enriched ORDER BY order_id");

    // The declaration's schema and table.
    let first = run(&["--source", "orders=orders.csv"]);
    assert_exit(&first, 0);
    assert_eq!(countries(), ["1|ES", "2|ES", "3|FR", "4|"]);
    let events = std::fs::read_to_string(dir.join("events.jsonl")).expect("events");
    let expected = match kind {
        Kind::Spark | Kind::DuckDb => format!("\"name\":\"{raw}.customer\""),
        Kind::Postgres => format!("\"name\":\"postgres.{raw}.customer\""),
    };
    assert!(events.contains(&expected), "{expected} in\n{events}");

    // Fresh as it stands; stale once the table in the schema changes.
    let status = || {
        wh.strata(&[
            "status",
            "m.strata",
            "-o",
            "wh.duckdb",
            "--source",
            "orders=orders.csv",
        ])
    };
    let o = status();
    assert_exit(&o, 0);
    assert!(
        text(&o)
            .lines()
            .any(|l| l.contains("enriched") && l.contains("fresh")),
        "{}",
        text(&o)
    );

    // The same rows in another table are another input: another run.
    let moved = run(&[
        "--source",
        "orders=orders.csv",
        "--source",
        &format!("customers={raw}.customer_v2"),
    ]);
    assert_exit(&moved, 0);
    assert_ne!(run_id(&first), run_id(&moved));
    assert_eq!(countries(), ["1|PT", "2|PT", "3|BE", "4|"]);
    // Named on the command line as the declaration names it: the first run.
    let again = run(&[
        "--source",
        "orders=orders.csv",
        "--source",
        &format!("customers={raw}.customer"),
    ]);
    assert_exit(&again, 0);
    assert_eq!(run_id(&first), run_id(&again));
    assert_eq!(countries(), ["1|ES", "2|ES", "3|FR", "4|"]);

    // The table in the schema changes: the input of the last run is stale.
    wh.open()
        .exec(&format!("INSERT INTO {} VALUES (30, 'DE')", q("customer")))
        .expect("insert");
    let o = status();
    assert_exit(&o, 0);
    assert!(
        text(&o)
            .lines()
            .any(|l| l.contains("enriched") && l.contains("stale")),
        "{}",
        text(&o)
    );

    // A pipeline's override names a qualified table.
    let o = run(&["--pipeline", "moved"]);
    assert_exit(&o, 0);
    assert_eq!(countries(), ["1|PT", "2|PT", "3|BE", "4|"]);

    // A table or a schema that is not there: nothing runs (exit 4); a name
    // that is not one: a usage error (exit 2).
    for (value, code, says) in [
        (
            format!("{raw}.nope"),
            4,
            format!("reads table {raw}.nope, which does not exist"),
        ),
        (
            "no_such_schema.customer".to_string(),
            4,
            "reads table no_such_schema.customer, which does not exist".to_string(),
        ),
        (
            format!("{raw}..customer"),
            2,
            "has an empty name".to_string(),
        ),
    ] {
        let o = run(&[
            "--source",
            "orders=orders.csv",
            "--source",
            &format!("customers={value}"),
        ]);
        assert_exit(&o, code);
        assert!(text(&o).contains(&says), "{says} in\n{}", text(&o));
    }
    assert_eq!(countries(), ["1|PT", "2|PT", "3|BE", "4|"]);
}
