//! `strata run` end to end: publishing, a failed check keeping the live
//! data, sources resolved and checked before anything runs, the writer
//! lock, a killed run, the shop example and file overrides.

use std::path::Path;
use std::time::Duration;

use strata_engine::Connection;

use crate::support::*;

on_every_engine!(
    seed_enriched_publishes_then_a_duplicate_aborts_and_keeps_live_data,
    upstream_models_staged_in_the_run_and_pipeline_overrides,
    second_writer_waits_then_names_the_holder,
    killed_run_leaves_previous_state_and_next_run_succeeds,
    shop_example_runs_and_broken_variant_keeps_live_data,
    file_overrides_keep_their_lists,
    a_csv_file_is_read_with_its_declared_text_and_decimal_types,
);

on_duckdb_and_postgres!(
    missing_sources_and_unknown_names_fail_before_running,
    sources_that_do_not_match_their_columns_fail_before_any_model_is_built,
);

fn seed_enriched_publishes_then_a_duplicate_aborts_and_keeps_live_data(kind: Kind) {
    let dir = seed_dir("seed");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let run = |customers: &str| {
        let source = format!("customers={customers}");
        let mut args = [&["run"][..], &ENRICHED_FROM_CSV[..]].concat();
        if let Some(last) = args.last_mut() {
            *last = &source;
        }
        wh.strata(&args)
    };
    let ok = run("customers.csv");
    assert_exit(&ok, 0);
    let out = text(&ok);
    assert!(
        out.contains("  materialized  v_enriched  (4 rows)"),
        "{out}"
    );
    assert!(
        out.contains(
            "  ok  enriched left customers: many_to_one (customers unique on customer_id)"
        ),
        "{out}"
    );
    let before = wh.query("SELECT order_id, country FROM v_enriched ORDER BY order_id");
    assert_eq!(before, ["1|ES", "2|ES", "3|FR", "4|"]);

    let bad = run("customers_dup.csv");
    assert_exit(&bad, 3);
    let out = text(&bad);
    assert!(
        out.contains("join cardinality FAILED [enriched left customers]: expected many_to_one but customers has 2 duplicate key groups (customer_id)"),
        "{out}"
    );
    assert!(
        out.contains("e.g. customer_id=10 (3 rows), customer_id=20 (2 rows)"),
        "{out}"
    );
    // Nothing was published: the live view returns the previous rows, and
    // the failed run left no history.
    assert_eq!(
        wh.query("SELECT order_id, country FROM v_enriched ORDER BY order_id"),
        before
    );
    assert_eq!(wh.query("SELECT COUNT(*) FROM _strata_runs"), ["1"]);
}

fn upstream_models_staged_in_the_run_and_pipeline_overrides(kind: Kind) {
    let dir = workdir("upstream");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "m.strata",
        r#"source raw_customers(ns: "a") { columns: { customer_id: int64, country: string } }
source orders(ns: "a") { columns: { order_id: int64, customer_id: int64 } }
model customers { from raw_customers filter country != "XX" }
model enriched {
  from orders
  join_left customers on orders.customer_id == customers.customer_id expect many_to_one
  select { order_id = order_id, country = customers.country }
}
pipeline local {
  models: [enriched]
  sources: { raw_customers: from(path: "data/customers.csv"), orders: from(path: "data/orders.csv") }
}
pipeline dup {
  models: [enriched]
  sources: { raw_customers: from(path: "data/customers_dup.csv"), orders: from(path: "data/orders.csv") }
}
"#,
    );
    write(
        &dir,
        "data/orders.csv",
        "order_id,customer_id\n1,10\n2,20\n",
    );
    write(
        &dir,
        "data/customers.csv",
        "customer_id,country\n10,ES\n20,FR\n20,XX\n",
    );
    write(
        &dir,
        "data/customers_dup.csv",
        "customer_id,country\n10,ES\n20,FR\n20,BE\n",
    );
    // The duplicate 20 is filtered out by the upstream model: the check
    // counts the staged upstream output, not the raw source.
    let ok = wh.strata(&["run", "m.strata", "--pipeline", "local", "-o", "wh.duckdb"]);
    assert_exit(&ok, 0);
    assert!(
        text(&ok).contains(
            "  ok  enriched left customers: many_to_one (customers unique on customer_id)"
        ),
        "{}",
        text(&ok)
    );
    assert_eq!(
        wh.query("SELECT * FROM v_enriched ORDER BY 1"),
        ["1|ES", "2|FR"]
    );
    let bad = wh.strata(&["run", "m.strata", "--pipeline", "dup", "-o", "wh.duckdb"]);
    assert_exit(&bad, 3);
    assert!(
        text(&bad).contains("but customers has 1 duplicate key groups (customer_id)"),
        "{}",
        text(&bad)
    );
    assert_eq!(
        wh.query("SELECT * FROM v_enriched ORDER BY 1"),
        ["1|ES", "2|FR"]
    );
}

fn missing_sources_and_unknown_names_fail_before_running(kind: Kind) {
    let dir = seed_dir("missing");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let fails = |args: &[&str], code: i32, expected: &str| {
        let o = wh.strata(&[&["run", "orders.strata"][..], args].concat());
        assert_exit(&o, code);
        assert!(text(&o).contains(expected), "{expected}\n{}", text(&o));
    };
    let wh = ["-o", "wh.duckdb"];
    fails(
        &wh,
        4,
        "source 'customers' reads table customers, which does not exist",
    );
    fails(
        &[&wh[..], &["--source", "custmers=customers.csv"]].concat(),
        4,
        "unknown source 'custmers' (did you mean `customers`?)",
    );
    fails(
        &[
            &wh[..],
            &[
                "--source",
                "customers=nope.csv",
                "--source",
                "orders=orders.csv",
            ],
        ]
        .concat(),
        4,
        "file ./nope.csv, which does not exist",
    );
    // Every missing source is named, not only the first.
    fails(
        &[&wh[..], &["--source", "customers=nope.csv", "--source", "orders=gone.csv"]].concat(),
        4,
        "2 sources cannot be read: source 'customers' reads file ./nope.csv, which does not exist; source 'orders' reads file ./gone.csv, which does not exist",
    );
    fails(&["enrich"], 2, "did you mean `enriched`?");
}

fn sources_that_do_not_match_their_columns_fail_before_any_model_is_built(kind: Kind) {
    let dir = seed_dir("source-columns");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    assert_exit(
        &wh.strata(&[&["run"][..], &ENRICHED_FROM_CSV[..]].concat()),
        0,
    );
    write(&dir, "customers_renamed.csv", "customer_id,land\n10,ES\n");
    write(
        &dir,
        "orders_bad.csv",
        "order_id,customer_id,amount\n1,10,5.0\n2,x,7.5\n3,20,abc\n",
    );
    for command in ["run", "test"] {
        let o = wh.strata(&[
            command,
            "orders.strata",
            "-o",
            "wh.duckdb",
            "--source",
            "orders=orders_bad.csv",
            "--source",
            "customers=customers_renamed.csv",
        ]);
        assert_exit(&o, 3);
        let out = text(&o);
        // Every problem of every source, each naming its file, column and
        // what was found.
        let varchar = wh.type_name("VARCHAR");
        for expected in [
            "source 'customers' (file ./customers_renamed.csv) has no column 'country' (it has customer_id, land)".to_string(),
            format!("source 'orders' (file ./orders_bad.csv): column 'customer_id' is {varchar} and holds 'x' in data row 2, which does not convert to int64"),
            format!("source 'orders' (file ./orders_bad.csv): column 'amount' is {varchar} and holds 'abc' in data row 3, which does not convert to float64"),
            "no model was built".to_string(),
        ] {
            assert!(out.contains(&expected), "{command}: {expected}\n{out}");
        }
    }
    // Nothing was built: the live data is the first run's.
    assert_eq!(
        wh.query("SELECT * FROM v_enriched ORDER BY 1"),
        ["1|ES", "2|ES", "3|FR", "4|"]
    );
    // Extra columns, and columns in another order or case, are fine.
    write(
        &dir,
        "customers_wide.csv",
        "Country,note,CUSTOMER_ID\nES,x,10\nFR,y,20\n",
    );
    let o = wh.strata(&[
        "run",
        "orders.strata",
        "enriched",
        "-o",
        "wh.duckdb",
        "--source",
        "orders=orders.csv",
        "--source",
        "customers=customers_wide.csv",
    ]);
    assert_exit(&o, 0);
}

fn second_writer_waits_then_names_the_holder(kind: Kind) {
    let dir = seed_dir("lock");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let holder = wh.open();
    let start = std::time::Instant::now();
    let o = wh.strata(&[
        "run",
        "orders.strata",
        "-o",
        "wh.duckdb",
        "--lock-timeout",
        "1",
        "--source",
        "orders=orders.csv",
        "--source",
        "customers=customers.csv",
    ]);
    assert_exit(&o, 4);
    assert!(
        start.elapsed() >= Duration::from_millis(900),
        "did not wait"
    );
    assert!(
        text(&o).contains("is locked by another writer"),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).to_lowercase().contains("pid"),
        "the holder is named: {}",
        text(&o)
    );
    drop(holder);
}

fn killed_run_leaves_previous_state_and_next_run_succeeds(kind: Kind) {
    let dir = seed_dir("kill");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    // A large fact input so the run has real work to do (Spark reads a file
    // through SQL literals: a smaller one).
    let rows = if kind == Kind::Spark {
        2_000
    } else {
        2_000_000u64
    };
    let mut big = String::from("order_id,customer_id,amount\n");
    for i in 0..rows {
        big.push_str(&format!("{i},{},{}.5\n", 10 + (i % 3) * 10, i % 100));
    }
    write(&dir, "big.csv", &big);
    // On Spark the next run waits for the killed run's lock to expire.
    let args = |orders: &str| {
        vec![
            "run".to_string(),
            "orders.strata".into(),
            "enriched".into(),
            "-o".into(),
            "wh.duckdb".into(),
            "--lock-timeout".into(),
            "120".into(),
            "--source".into(),
            format!("orders={orders}"),
            "--source".into(),
            "customers=customers.csv".into(),
        ]
    };
    fn strs(v: &[String]) -> Vec<&str> {
        v.iter().map(String::as_str).collect()
    }
    assert_exit(&wh.strata(&strs(&args("orders.csv"))), 0);
    let before = wh.query("SELECT * FROM v_enriched ORDER BY order_id");
    // The worst moment to die: with a transaction, every model built and
    // checked and the views repointed, just before COMMIT; without one
    // (Spark), every model built and checked, just before the first view is
    // repointed.
    let point = if kind == Kind::Spark {
        "BEFORE_PUBLISH"
    } else {
        "BEFORE_COMMIT"
    };
    kill_at_failpoint(&wh, point, &strs(&args("big.csv")));
    let after = wh.query("SELECT * FROM v_enriched ORDER BY order_id");
    assert!(
        after == before,
        "live data changed after the kill: {} rows",
        after.len()
    );
    assert_eq!(wh.query("SELECT COUNT(*) FROM _strata_runs"), ["1"]);
    let again = wh.strata(&strs(&args("big.csv")));
    assert_exit(&again, 0);
    assert_eq!(
        wh.query("SELECT COUNT(*) FROM v_enriched"),
        [rows.to_string()]
    );
}

/// The shop example publishes; its `broken` pipeline fails its check (exit
/// 3) and the live views keep their rows; `strata docs` then shows the last
/// good run, read from the warehouse.
fn shop_example_runs_and_broken_variant_keeps_live_data(kind: Kind) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shop");
    let dir = workdir("shop");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let module = root.join("shop.strata").display().to_string();
    let ok = wh.strata(&["run", &module, "--pipeline", "local", "-o", "wh.duckdb"]);
    assert_exit(&ok, 0);
    let out = text(&ok);
    assert!(
        out.contains("  materialized  v_enriched_orders  (10 rows)"),
        "{out}"
    );
    assert!(
        out.contains("  ok  test enriched_orders: row_count == 10 (10)"),
        "{out}"
    );
    let before = wh.query("SELECT * FROM v_customer_cards ORDER BY customer_id");
    let bad = wh.strata(&["run", &module, "--pipeline", "broken", "-o", "wh.duckdb"]);
    assert_exit(&bad, 3);
    assert!(
        text(&bad).contains("customers has 1 duplicate key groups (customer_id)"),
        "{}",
        text(&bad)
    );
    assert_eq!(
        wh.query("SELECT * FROM v_customer_cards ORDER BY customer_id"),
        before
    );
    // The docs site reads the last good run from the warehouse (read only).
    let docs = wh.strata(&["docs", &module, "--out", "site", "--warehouse", "wh.duckdb"]);
    assert_exit(&docs, 0);
    let page = std::fs::read_to_string(dir.join("site/models/enriched_orders.html"))
        .expect("the model's page");
    assert!(
        page.contains("<dt>Rows</dt><dd>10 in <code>snap_"),
        "{page}"
    );
    assert!(
        page.contains("test enriched_orders: row_count == 10 (10)"),
        "{page}"
    );
}

/// A parquet file with a list column, given as a source override: every
/// engine reads its lists element by element (commas, quotes, backslashes,
/// braces, a control character, NULL elements, empty and NULL lists;
/// PostgreSQL and Spark load the file through the client), so `expand`
/// gives the same rows.
fn file_overrides_keep_their_lists(kind: Kind) {
    let dir = workdir("file-lists");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "m.strata",
        r#"source s(ns: "t", dataset: "s") { columns: { id: int64 nonnull, tags: array(string) } }
model tagged { from s expand tags as tag select { id = id, tag = tag } }
"#,
    );
    let parquet = dir.join("s.parquet");
    strata_engine::DuckDb::open(":memory:", Duration::from_secs(5))
        .expect("an in-memory DuckDB")
        .exec(&format!(
            r#"COPY (SELECT * FROM (VALUES (1, ['a', 'b']), (2, ['c, d', NULL, 'e' || chr(92) || 'f', 'g' || chr(12)]), (3, NULL), (4, ['x"y', '{{z}}']), (5, [])) t(id, tags)) TO '{}' (FORMAT parquet)"#,
            parquet.display()
        ))
        .expect("write the parquet file");
    let o = wh.strata(&[
        "run",
        "m.strata",
        "-o",
        "wh.duckdb",
        "--source",
        "s=s.parquet",
    ]);
    assert_exit(&o, 0);
    let mut rows = wh.query("SELECT id, tag FROM v_tagged");
    rows.sort();
    assert_eq!(
        rows,
        ["1|a", "1|b", "2|", "2|c, d", "2|e\\f", "2|g\u{c}", "4|x\"y", "4|{z}"]
    );
}

/// A CSV file is read with the types its source declares for text and
/// decimals (DuckDB's sniffer would read `007` as 7 and `0.07` as a
/// double): `007` stays `007`, the decimal is exact; the other columns are
/// typed by the sniffer and checked against their declaration as before.
fn a_csv_file_is_read_with_its_declared_text_and_decimal_types(kind: Kind) {
    let dir = seed_dir("typed");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "codes.csv",
        "code,label,weight,n\n007,seven,0.07,1\n1,one,1.5,2\n2,two,2.25,3\n",
    );
    write(
        &dir,
        "c.strata",
        r#"source codes(ns: "a") { columns: { code: string, label: string, weight: decimal(10,2), n: int64 } }
model coded {
  from codes
  select { code = code, weight = weight, n = n }
}
"#,
    );
    let o = wh.strata(&[
        "run",
        "c.strata",
        "-o",
        "wh.duckdb",
        "--source",
        "codes=codes.csv",
    ]);
    assert_exit(&o, 0);
    let mut rows = wh.query(&format!(
        "SELECT code, CAST(weight AS {}), n FROM v_coded",
        wh.type_name("VARCHAR")
    ));
    rows.sort();
    assert_eq!(rows, ["007|0.07|1", "1|1.50|2", "2|2.25|3"]);
}
