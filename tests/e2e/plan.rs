//! `strata plan` and `run --only-stale` end to end.

use crate::support::*;

on_every_engine!(plan_and_only_stale_rebuild_exactly_what_changed,);

/// `plan` names exactly the models a changed input or a changed model
/// reaches, and `run --only-stale` rebuilds exactly those: the others keep
/// their snapshot, and the run record says what was skipped.
fn plan_and_only_stale_rebuild_exactly_what_changed(kind: Kind) {
    let dir = seed_dir("stale");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let module = |threshold: &str| {
        format!(
            r#"source orders(ns: "a") {{ columns: {{ order_id: int64, customer_id: int64, amount: float64 }} }}
source customers(ns: "a") {{ columns: {{ customer_id: int64, country: string }} }}
model enriched {{
  from orders
  join_left customers on orders.customer_id == customers.customer_id expect many_to_one
  select {{ order_id = order_id, country = customers.country, amount = amount }}
}}
model by_country {{ from enriched group {{ country }} ( aggregate {{ n = count() }} ) }}
model big_orders {{ from orders filter amount > {threshold} select {{ order_id = order_id }} }}
"#
        )
    };
    write(&dir, "m.strata", &module("2.0"));
    let with = |command: &str, customers: &str, extra: &[&str]| {
        let customers = format!("customers={customers}");
        let mut args = vec![
            command,
            "m.strata",
            "-o",
            "wh.duckdb",
            "--format",
            "json",
            "--source",
            "orders=orders.csv",
            "--source",
            &customers,
        ];
        args.extend_from_slice(extra);
        let o = wh.strata(&args);
        assert_exit(&o, 0);
        json(&o)
    };
    let plan = |customers: &str| -> Vec<(String, String)> {
        let v = with("plan", customers, &[]);
        v["models"]
            .as_array()
            .expect("models")
            .iter()
            .map(|m| {
                (
                    m["model"].as_str().unwrap_or("").to_string(),
                    m["reason"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
        p.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    assert_eq!(
        plan("customers.csv"),
        pairs(&[
            ("enriched", "never_built"),
            ("by_country", "never_built"),
            ("big_orders", "never_built")
        ])
    );
    // Nothing is built by a plan.
    assert!(wh.query("SELECT COUNT(*) FROM _strata_runs") == ["0"]);
    let first = with("run", "customers.csv", &[]);
    let first_id = first["run_id"].as_str().expect("id").to_string();
    assert_eq!(
        plan("customers.csv"),
        pairs(&[
            ("enriched", "fresh"),
            ("by_country", "fresh"),
            ("big_orders", "fresh")
        ])
    );
    // The customers changed: enriched reads them, by_country reads enriched.
    write(
        &dir,
        "customers2.csv",
        "customer_id,country\n10,PT\n20,FR\n30,DE\n",
    );
    let changed = plan("customers2.csv");
    assert_eq!(
        changed,
        pairs(&[
            ("enriched", "input_changed"),
            ("by_country", "upstream"),
            ("big_orders", "fresh")
        ])
    );
    let second = with("run", "customers2.csv", &["--only-stale"]);
    let built: Vec<&str> = second["materialized"]
        .as_array()
        .expect("materialized")
        .iter()
        .filter_map(|m| m["model"].as_str())
        .collect();
    assert_eq!(built, ["enriched", "by_country"], "{second}");
    assert_eq!(second["skipped"][0]["model"], "big_orders", "{second}");
    assert_eq!(
        second["skipped"][0]["live_run"],
        first_id.as_str(),
        "{second}"
    );
    let id = second["run_id"].as_str().expect("id");
    let record = wh.strata(&[
        "replay",
        "m.strata",
        id,
        "-o",
        "wh.duckdb",
        "--format",
        "json",
    ]);
    assert_eq!(
        json(&record)["models"],
        serde_json::json!(["enriched", "by_country"])
    );
    assert_eq!(json(&record)["skipped"], serde_json::json!(["big_orders"]));
    assert_eq!(
        wh.query("SELECT country FROM v_enriched ORDER BY order_id"),
        ["PT", "PT", "FR", ""]
    );
    assert_eq!(wh.query("SELECT COUNT(*) FROM v_big_orders"), ["2"]);
    // Nothing stale: nothing built, nothing recorded.
    let runs = wh.query("SELECT COUNT(*) FROM _strata_runs");
    let third = with("run", "customers2.csv", &["--only-stale"]);
    assert_eq!(third["run_id"], serde_json::Value::Null, "{third}");
    assert_eq!(
        third["skipped"].as_array().map(Vec::len),
        Some(3),
        "{third}"
    );
    assert_eq!(wh.query("SELECT COUNT(*) FROM _strata_runs"), runs);
    // A changed model: only it.
    write(&dir, "m.strata", &module("6.0"));
    assert_eq!(
        plan("customers2.csv"),
        pairs(&[
            ("enriched", "fresh"),
            ("by_country", "fresh"),
            ("big_orders", "fingerprint_changed")
        ])
    );
    let fourth = with("run", "customers2.csv", &["--only-stale"]);
    assert_eq!(
        fourth["materialized"].as_array().map(Vec::len),
        Some(1),
        "{fourth}"
    );
    assert_eq!(wh.query("SELECT COUNT(*) FROM v_big_orders"), ["1"]);
}
