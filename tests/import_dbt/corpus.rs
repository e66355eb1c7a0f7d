//! The corpus imported: snapshots of the strata and the report, `strata check` on it, and determinism.

use super::*;

#[test]
fn corpus_snapshot_check_and_determinism() {
    let tmp = corpus_copy();
    let report = import_corpus(tmp.path(), "out");
    let again = import_corpus(tmp.path(), "out2");
    assert_eq!(report, again, "the same project imports to the same report");
    let written = files_of(&tmp.path().join("out"));
    for (rel, t) in &written {
        let other = tmp.path().join("out2").join(rel);
        assert_eq!(
            std::fs::read_to_string(&other).ok().as_deref(),
            Some(t.as_str()),
            "{rel} differs between two imports"
        );
    }
    check_snapshot("corpus", &written, &report);

    // The modules check clean.
    assert_checks(tmp.path(), "out");

    // dbt unit tests: fixture tests that run with no warehouse, the one
    // dbt fails failing too; what cannot be carried is reported, each with
    // its reason.
    unit_tests(tmp.path(), &report);

    // What the corpus is there to show.
    let status = |m: &str| -> String {
        report["models"]
            .as_array()
            .and_then(|ms| ms.iter().find(|x| x["name"] == m))
            .map(|x| x["status"].as_str().unwrap_or("").to_string())
            .unwrap_or_else(|| panic!("no model {m} in the report"))
    };
    for m in [
        "stg_customers",
        "stg_orders",
        "stg_payments",
        "customers",
        "orders",
        "post_aggregate",
        "exists_semi",
        "not_exists_anti",
        "union_all_model",
        "window_rank",
        "star_models",
        "vars_and_env",
        "self_join",
        "pivot_methods",
        "uses_round",
        "surrogate_key",
        "reads_review",
        "extract_year",
        "full_outer",
        "cross_join",
        "right_join",
        "qualify_latest",
        "qualify_alias",
        "reserved_column",
        "window_frames",
        "constants",
        "date_spine",
        "calendar",
        "date",
        "latest_order_per_customer",
        "dedup_subquery",
        "string_agg_model",
        "invocation_stamp",
    ] {
        assert_eq!(status(m), "converted", "{m}");
    }
    for m in [
        "uses_run_query",
        "not_in_subquery",
        "sql_error",
        "frame_interval",
        "qualify_grouped",
    ] {
        assert_eq!(status(m), "needs_review", "{m}");
    }
    assert_eq!(status("disabled_model"), "disabled");
    let summary = &report["summary"];
    assert!(
        summary["converted"].as_u64().unwrap_or(0) >= 40,
        "{summary}"
    );
    // The fan-out audit: customers' joins rest on group-by evidence, a
    // join on a repeated key has none.
    let joins = report["joins"].as_array().cloned().unwrap_or_default();
    let join = |model: &str, right: &str| {
        joins
            .iter()
            .find(|j| j["strata_model"] == model && j["strata_right"] == right)
            .cloned()
            .unwrap_or_else(|| panic!("no join {model} -> {right}: {joins:?}"))
    };
    let j = join("customers", "customers__customer_orders");
    assert_eq!(j["promise"], "one_to_one", "{j}");
    assert!(
        j["evidence"]
            .as_str()
            .unwrap_or("")
            .contains("customer_orders unique on (customer_id): group by"),
        "{j}"
    );
    let j = join("payments_per_order", "stg_payments");
    assert_eq!(j["promise"], serde_json::Value::Null);
    assert!(
        j["evidence"]
            .as_str()
            .unwrap_or("")
            .starts_with("no evidence: this join can repeat rows"),
        "{j}"
    );
    // A model deduplicated by QUALIFY row_number() ... = 1 is unique on
    // its partition key (and the customers on theirs: one_to_one).
    let j = join("latest_order_per_customer", "qualify_alias");
    assert_eq!(j["promise"], "one_to_one", "{j}");
    assert!(
        j["evidence"]
            .as_str()
            .unwrap_or("")
            .contains("unique on (customer_id): model qualify_alias: qualify row_number() ... = 1"),
        "{j}"
    );
    let j = join("latest_order_per_customer", "dedup_subquery");
    assert_eq!(j["promise"], "one_to_one", "{j}");
    assert!(
        j["evidence"]
            .as_str()
            .unwrap_or("")
            .contains("row_number() ... = 1 keeps one row per partition"),
        "{j}"
    );
    let j = join("countries_seen", "distinct_countries");
    assert!(
        j["evidence"]
            .as_str()
            .unwrap_or("")
            .contains("select distinct"),
        "{j}"
    );
}

/// The unit tests of the corpus: carried as fixture tests (dict, csv
/// inline and from a fixture file) that `strata test --only fixtures` runs
/// and passes, the one expecting a wrong row failing; a `sql` format,
/// `overrides` and a model that needs review reported as not carried.
fn unit_tests(tmp: &Path, report: &serde_json::Value) {
    let entry = |name: &str| -> serde_json::Value {
        report["tests"]
            .as_array()
            .and_then(|ts| ts.iter().find(|t| t["test"] == format!("unit test {name}")))
            .cloned()
            .unwrap_or_else(|| panic!("no unit test {name} in the report"))
    };
    for name in [
        "unknown_country_when_customer_missing",
        "amounts_as_csv",
        "wrong_country_fails",
        "cents_to_amount_and_lower_status",
        "test_rounding",
        "test_string_agg",
    ] {
        let e = entry(name);
        assert_eq!(e["carried_as"], "fixture", "{e}");
    }
    for (name, why) in [
        ("customers_given_as_sql", "format sql"),
        ("with_overrides", "`overrides` (vars)"),
    ] {
        let e = entry(name);
        assert_eq!(e["carried_as"], "not_carried", "{e}");
        assert!(e["detail"].as_str().unwrap_or("").contains(why), "{e}");
    }
    let root = format!("out/{}", report["root"].as_str().unwrap_or(""));
    let o = strata(
        &["test", &root, "--only", "fixtures", "--format", "json"],
        tmp,
    );
    let out: serde_json::Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}{}", text(&o.stdout), text(&o.stderr)));
    assert_eq!(o.status.code(), Some(3), "{out}");
    let results: Vec<(String, bool)> = out["fixtures"]["tests"]
        .as_array()
        .map(|ts| {
            ts.iter()
                .map(|t| {
                    (
                        t["label"].as_str().unwrap_or("").to_string(),
                        t["ok"].as_bool().unwrap_or(false),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let mut results = results;
    results.sort();
    assert_eq!(
        results,
        [
            ("orders_with_customer \"amounts_as_csv\"".to_string(), true),
            (
                "orders_with_customer \"unknown_country_when_customer_missing\"".to_string(),
                true
            ),
            (
                "orders_with_customer \"wrong_country_fails\"".to_string(),
                false
            ),
            (
                "stg_orders \"cents_to_amount_and_lower_status\"".to_string(),
                true
            ),
            ("string_agg_model \"test_string_agg\"".to_string(), true),
            ("uses_round \"test_rounding\"".to_string(), true),
        ],
        "{out}"
    );
}
