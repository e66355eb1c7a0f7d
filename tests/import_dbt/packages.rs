//! A project whose staging models live in an installed package
//! (tests/dbt/packaged): the package's models imported with the root's
//! overrides and the package's vars, its macros rendered with the root's
//! dispatch order, the singular tests dbt disables left out, and two
//! folders whose models read each other (orders reads order_items, whose
//! test reads orders) written as one file that checks clean.

use super::*;

#[test]
fn package_models_macros_dispatch_and_a_folder_cycle() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    copy_dir(
        &root().join("tests/dbt/packaged"),
        &tmp.path().join("packaged"),
    );
    let report = import_project(tmp.path(), "packaged", "out", &["--no-manifest"]);
    let written = files_of(&tmp.path().join("out"));
    check_snapshot("packaged", &written, &report);

    // The modules check clean: no two files import each other.
    assert_checks(tmp.path(), "out");

    let model = |name: &str| -> serde_json::Value {
        report["models"]
            .as_array()
            .and_then(|ms| ms.iter().find(|m| m["name"] == name))
            .cloned()
            .unwrap_or_else(|| panic!("no model {name} in the report"))
    };
    // The package's models are the project's, counted; the one its var
    // disables (the root sets the var in the package's scope) is not.
    for m in [
        "stg_shop__orders_tmp",
        "stg_shop__orders",
        "orders",
        "order_items",
    ] {
        assert_eq!(model(m)["status"], "converted", "{}", model(m));
    }
    assert_eq!(model("stg_shop__refunds")["status"], "disabled");
    assert_eq!(
        model("stg_shop__orders")["file"],
        "dbt_packages/shop_source/models/stg_shop__orders.sql"
    );
    assert_eq!(report["summary"]["models"], 5, "{}", report["summary"]);
    assert_eq!(report["summary"]["disabled"], 1, "{}", report["summary"]);

    // The package's dispatched macro: the root's duckdb__ rendering, as
    // the root's `dispatch:` orders; its unqualified macro: the package's.
    let stg = &written["stg_shop__orders.strata"];
    assert!(
        stg.contains("round(stg_shop__orders_tmp.amount_cents / 100.0, 2)"),
        "{stg}"
    );
    assert!(stg.contains("upper(stg_shop__orders_tmp.status)"), "{stg}");
    // The var holding `{{ source('shop', 'orders') }}` is rendered: the
    // tmp model reads the source, whose identifier is rendered with the
    // root's var in the package's scope.
    let tmp_model = &written["stg_shop__orders_tmp.strata"];
    assert!(tmp_model.contains("shop__orders"), "{tmp_model}");
    assert!(
        written["_sources.strata"].contains("table: \"raw_orders\""),
        "{}",
        written["_sources.strata"]
    );

    // orders and order_items: one file, both converted.
    assert_eq!(
        model("orders")["strata_file"],
        model("order_items")["strata_file"]
    );

    // Singular tests dbt disables (dbt_project.yml, config()) are not listed.
    let tests = report["tests"].as_array().cloned().unwrap_or_default();
    let singular: Vec<&str> = tests
        .iter()
        .filter(|t| t["test"] == "singular test")
        .filter_map(|t| t["relation"].as_str())
        .collect();
    assert_eq!(singular, vec!["no_negative_amounts"], "{tests:?}");
}
