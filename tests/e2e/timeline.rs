//! The warehouse over time end to end: `rollback`, `branches` and `gc`
//! over several runs, and inputs frozen by copying their file.

use std::time::Duration;

use strata_engine::Connection;

use crate::support::*;

on_every_engine!(rollback_gc_and_branches_over_several_runs,);

on_duckdb_and_postgres!(parquet_inputs_are_frozen_by_copy_and_collected_by_gc,);

/// Three runs of `enriched` with a changed customers file each time, a run
/// on a second branch, then: `branches` shows what each view shows,
/// `rollback` brings the first data back (atomically: a killed rollback
/// changes nothing), `gc` keeps what the views and the last runs need and
/// drops the rest (a killed gc drops nothing), and what was collected is
/// refused by name.
fn rollback_gc_and_branches_over_several_runs(kind: Kind) {
    let dir = seed_dir("timeline");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let run = |countries: [&str; 3], branch: &str| -> String {
        let file = format!("customers_{}.csv", countries.join(""));
        write(
            &dir,
            &file,
            &format!(
                "customer_id,country\n10,{}\n20,{}\n30,{}\n",
                countries[0], countries[1], countries[2]
            ),
        );
        let o = wh.strata(&[
            "run",
            "orders.strata",
            "enriched",
            "-o",
            "wh.duckdb",
            "--branch",
            branch,
            "--format",
            "json",
            "--source",
            "orders=orders.csv",
            "--source",
            &format!("customers={file}"),
        ]);
        assert_exit(&o, 0);
        json(&o)["run_id"].as_str().expect("run id").to_string()
    };
    let countries = || wh.query("SELECT country FROM v_enriched ORDER BY order_id");
    let first = run(["ES", "FR", "DE"], "main");
    let first_rows = countries();
    let second = run(["PT", "BE", "AT"], "main");
    let third = run(["IT", "NL", "PL"], "main");
    let dev = run(["SE", "NO", "FI"], "dev");
    assert_eq!(countries(), ["IT", "IT", "NL", ""]);

    // branches: main's live view shows the third run, dev's its own.
    let o = wh.strata(&["branches", "-o", "wh.duckdb", "--format", "json"]);
    assert_exit(&o, 0);
    let b = json(&o);
    assert_eq!(b[0]["branch"], "dev", "{b}");
    assert_eq!(b[0]["models"][0]["live"]["view"], "v_dev__enriched", "{b}");
    assert_eq!(b[0]["models"][0]["live"]["run_id"], dev.as_str(), "{b}");
    assert_eq!(b[1]["branch"], "main", "{b}");
    assert_eq!(b[1]["runs"], 3, "{b}");
    assert_eq!(b[1]["models"][0]["live"]["run_id"], third.as_str(), "{b}");
    assert_eq!(
        b[1]["models"][0]["staged"]["view"], "stg_main__enriched",
        "{b}"
    );

    // A killed rollback changes nothing (Spark has no transactions: killed
    // before its first change); a finished one brings the first run's rows
    // back, and is a run of its own.
    let last_moment = if kind == Kind::Spark {
        "BEFORE_CHANGES"
    } else {
        "BEFORE_COMMIT"
    };
    kill_at_failpoint(
        &wh,
        last_moment,
        &["rollback", "orders.strata", &first, "-o", "wh.duckdb"],
    );
    assert_eq!(countries(), ["IT", "IT", "NL", ""]);
    // (On Spark the killed command's lock is taken over after 45 s.)
    let o = wh.strata(&[
        "rollback",
        "orders.strata",
        &first[..6],
        "-o",
        "wh.duckdb",
        "--lock-timeout",
        "120",
    ]);
    assert_exit(&o, 0);
    assert!(
        text(&o).contains(&format!("live views back to run {first}")),
        "{}",
        text(&o)
    );
    assert_eq!(countries(), first_rows);
    let o = wh.strata(&["branches", "-o", "wh.duckdb", "--format", "json"]);
    let b = json(&o);
    let rollback_id = b[1]["last_run"]["run_id"].as_str().expect("id").to_string();
    assert_eq!(
        b[1]["models"][0]["live"]["run_id"],
        rollback_id.as_str(),
        "{b}"
    );
    // The staged view still shows the latest build.
    assert_eq!(b[1]["models"][0]["staged"]["run_id"], third.as_str(), "{b}");

    // Unknown models and runs are refused.
    let o = wh.strata(&[
        "rollback",
        "orders.strata",
        &first,
        "--model",
        "enrichd",
        "-o",
        "wh.duckdb",
    ]);
    assert_exit(&o, 2);
    assert!(text(&o).contains("did you mean `enriched`"), "{}", text(&o));
    let o = wh.strata(&["rollback", "orders.strata", "ffffffff", "-o", "wh.duckdb"]);
    assert_exit(&o, 2);

    // gc keeping one run per branch (and none by age): the rollback (it
    // shows the first run's snapshot), the third run (the staged view) and
    // dev's run stay; the second run's snapshot and frozen customers go.
    let gc = |extra: &[&str]| {
        let mut args = vec![
            "gc",
            "-o",
            "wh.duckdb",
            "--keep",
            "1",
            "--keep-days",
            "0",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        let o = wh.strata(&args);
        assert_exit(&o, 0);
        json(&o)
    };
    let listed = gc(&[]);
    assert_eq!(listed["applied"], false, "{listed}");
    let mut dropped: Vec<String> = listed["dropped"]
        .as_array()
        .expect("dropped")
        .iter()
        .map(|d| d["table"].as_str().unwrap_or("").to_string())
        .collect();
    dropped.sort();
    let mut expected = vec![
        format!("input_{second}_customers"),
        format!("snap_{second}_enriched"),
    ];
    expected.sort();
    assert_eq!(dropped, expected, "{listed}");
    if kind == Kind::Postgres {
        assert!(
            listed["dropped"][0]["bytes"].as_i64().unwrap_or(0) > 0,
            "{listed}"
        );
    }
    kill_at_failpoint(&wh, last_moment, &GC_KEEP_LAST_RUN);
    assert_eq!(
        gc(&["--lock-timeout", "120"])["dropped"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let applied = gc(&["--apply"]);
    assert_eq!(applied["applied"], true, "{applied}");
    assert_eq!(gc(&[])["dropped"].as_array().map(Vec::len), Some(0));
    assert_eq!(countries(), first_rows);

    // What was kept still replays; what was collected is refused by name.
    for kept in [&first, &third, &rollback_id] {
        let o = wh.strata(&[
            "replay",
            "orders.strata",
            kept,
            "--execute",
            "-o",
            "wh.duckdb",
        ]);
        assert_exit(&o, 0);
    }
    let o = wh.strata(&[
        "replay",
        "orders.strata",
        &second,
        "--execute",
        "-o",
        "wh.duckdb",
    ]);
    assert_exit(&o, 4);
    assert!(
        text(&o).contains("collected by `strata gc`"),
        "{}",
        text(&o)
    );
    let o = wh.strata(&["rollback", "orders.strata", &second, "-o", "wh.duckdb"]);
    assert_exit(&o, 4);
    assert!(
        text(&o).contains(&format!(
            "the snapshot of enriched (snap_{second}_enriched) was collected"
        )),
        "{}",
        text(&o)
    );
    assert_eq!(countries(), first_rows);
}

/// A parquet input is frozen by copying the file into the store beside a
/// DuckDB warehouse (`wh.duckdb.inputs/<hash>.parquet`, read through a
/// view), and loaded into a table on PostgreSQL; a rerun with the same
/// files reuses both the frozen inputs and the snapshot (its checks still
/// run); gc collects the copies no kept run reads, and the leftover of a
/// failed run; replay of the kept run still works.
fn parquet_inputs_are_frozen_by_copy_and_collected_by_gc(kind: Kind) {
    let dir = workdir("parquet-store");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "m.strata",
        r#"source orders(ns: "t") { columns: { order_id: int64, customer_id: int64 } }
source customers(ns: "t") { columns: { customer_id: int64, country: string } }
model enriched {
  from orders
  join_left customers on orders.customer_id == customers.customer_id expect many_to_one
  select { order_id = order_id, country = customers.country }
}
"#,
    );
    let parquet = |name: &str, select: &str| {
        let path = dir.join(name).display().to_string().replace('\'', "''");
        strata_engine::DuckDb::open(":memory:", Duration::ZERO)
            .expect("duckdb")
            .exec(&format!("COPY ({select}) TO '{path}' (FORMAT parquet)"))
            .expect("write parquet");
    };
    parquet(
        "orders.parquet",
        "SELECT * FROM (VALUES (1, 10), (2, 20), (3, 10)) AS t(order_id, customer_id)",
    );
    let customers = |rows: &str| {
        parquet(
            "customers.parquet",
            &format!("SELECT * FROM (VALUES {rows}) AS t(customer_id, country)"),
        )
    };
    customers("(10, 'fr'), (20, 'de')");
    let run = || {
        wh.strata(&[
            "run",
            "m.strata",
            "-o",
            "wh.duckdb",
            "--format",
            "json",
            "--source",
            "orders=orders.parquet",
            "--source",
            "customers=customers.parquet",
        ])
    };
    let store = dir.join("wh.duckdb.inputs");
    let stored = || -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&store)
            .map(|d| {
                d.map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };
    let countries = || wh.query("SELECT country FROM v_enriched ORDER BY order_id");

    let first = run();
    assert_exit(&first, 0);
    let first_id = json(&first)["run_id"].as_str().expect("run id").to_string();
    assert_eq!(countries(), ["fr", "de", "fr"]);
    let kinds = wh.query(
        "SELECT i.source, t.table_type, CASE WHEN i.file IS NULL THEN 'table' ELSE 'file' END \
         FROM \"_strata_inputs\" AS i JOIN information_schema.tables AS t \
         ON t.table_name = i.table_name AND t.table_schema = current_schema() ORDER BY i.source",
    );
    match kind {
        Kind::DuckDb => {
            assert_eq!(kinds, ["customers|VIEW|file", "orders|VIEW|file"]);
            assert_eq!(stored().len(), 2, "{:?}", stored());
            assert!(stored().iter().all(|f| f.ends_with(".parquet")));
        }
        Kind::Postgres => {
            assert_eq!(
                kinds,
                ["customers|BASE TABLE|table", "orders|BASE TABLE|table"]
            );
            assert!(!store.exists(), "no file store on PostgreSQL");
        }
        Kind::Spark => unreachable!("this test does not run on Spark"),
    }

    // The same files again: the same run, nothing frozen or built again,
    // every check run.
    let again = run();
    assert_exit(&again, 0);
    let report = json(&again);
    assert_eq!(report["run_id"], first_id.as_str());
    let t = text(&again);
    assert!(t.contains("reused snap_"), "{t}");
    assert!(
        t.contains("ok  enriched left customers: many_to_one"),
        "{t}"
    );

    // A duplicate customer: exit 3, the live data stays; on DuckDB the
    // copy the failed run made is left for gc.
    customers("(10, 'fr'), (20, 'de'), (20, 'es')");
    let bad = run();
    assert_exit(&bad, 3);
    assert_eq!(countries(), ["fr", "de", "fr"]);
    if kind == Kind::DuckDb {
        assert_eq!(stored().len(), 3);
    }

    customers("(10, 'it'), (20, 'de')");
    let second = run();
    assert_exit(&second, 0);
    let second_id = json(&second)["run_id"]
        .as_str()
        .expect("run id")
        .to_string();
    assert_eq!(countries(), ["it", "de", "it"]);

    let gc = wh.strata(&["gc", "-o", "wh.duckdb", "--keep", "1", "--keep-days", "0"]);
    assert_exit(&gc, 0);
    let listing = text(&gc);
    if kind == Kind::DuckDb {
        // The first customers file (its input view goes) and the failed
        // run's copy (no input reads it).
        assert!(listing.contains("2 files of the input store"), "{listing}");
        assert!(listing.contains("(file of customers, "), "{listing}");
        assert!(listing.contains("(file of no input, "), "{listing}");
        assert_eq!(stored().len(), 4, "only listed:\n{listing}");
    }
    wh.gc_keep_last_run();
    if kind == Kind::DuckDb {
        assert_eq!(stored().len(), 2, "{:?}", stored());
    }
    let replay = |id: &str| wh.strata(&["replay", "m.strata", id, "--execute", "-o", "wh.duckdb"]);
    assert_exit(&replay(&second_id), 0);
    // The first run's customers copy was collected.
    assert_exit(&replay(&first_id), 4);
}
