//! `strata test` with fixture tests beside a warehouse: the fixture tests
//! run first on their own rows (an in-memory DuckDB whatever the
//! warehouse), then the declarative tests on the engine's materialized
//! data; a failing fixture test stops before the warehouse is touched.

use crate::support::*;

on_every_engine!(fixture_tests_run_before_the_data_phase,);

/// The seed with a fixture test that holds and a declarative test.
fn module(expected_country: &str) -> String {
    format!(
        "{SEED}
test enriched \"an order of an unknown customer has no country\" {{
  given orders(order_id, customer_id) {{
    (1, 10)
    (2, 99)
  }}
  given customers(customer_id, country) {{
    (10, \"{expected_country}\")
  }}
  expect rows(order_id, country) {{
    (1, \"ES\")
    (2, null)
  }}
}}
test enriched \"a customer given twice breaks the promise\" {{
  given orders(order_id, customer_id) {{ (1, 10) }}
  given customers(customer_id, country) {{ (10, \"ES\") (10, \"FR\") }}
  expect row_count == 1
}}
test enriched {{ expect row_count == 4 }}
"
    )
}

fn fixture_tests_run_before_the_data_phase(kind: Kind) {
    let dir = seed_dir("fixtures");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(&dir, "t.strata", &module("ES"));
    let args = &ENRICHED_FROM_CSV[2..];
    // The passing fixture test, then the data phase on the engine.
    let mut t = vec![
        "test",
        "t.strata",
        "enriched",
        "--filter",
        "unknown customer",
    ];
    t.extend(args);
    let o = wh.strata(&t);
    assert_exit(&o, 0);
    let out = text(&o);
    assert!(
        out.contains(
            "  ok    enriched \"an order of an unknown customer has no country\"  (2 rows)"
        ),
        "{out}"
    );
    assert!(out.contains("fixture tests: 1 passed, 0 failed"), "{out}");
    assert!(
        out.contains("  ok  test enriched: row_count == 4 (4)"),
        "{out}"
    );
    // The broken promise fails on its rows, with the run's PinError text and
    // the key, and the warehouse is not read: no relation was made.
    let mut t = vec!["test", "t.strata", "enriched", "--format", "json"];
    t.extend(args);
    let before = wh.strata(&["replay", "t.strata", "-o", "wh.duckdb", "--format", "json"]);
    let o = wh.strata(&t);
    assert_exit(&o, 3);
    let v = json(&o);
    assert_eq!(v["data"]["ran"], false, "{v}");
    assert_eq!(v["fixtures"]["passed"], 1, "{v}");
    let failure = &v["fixtures"]["tests"][1]["failure"];
    let message = failure["message"].as_str().unwrap_or_default();
    assert!(
        message
            .starts_with("join cardinality FAILED [enriched left customers]: expected many_to_one"),
        "{v}"
    );
    assert!(
        failure["notes"]
            .to_string()
            .contains("customer_id=10 (2 rows)"),
        "{v}"
    );
    let after = wh.strata(&["replay", "t.strata", "-o", "wh.duckdb", "--format", "json"]);
    assert_eq!(
        text(&before),
        text(&after),
        "a failed fixture test ran nothing"
    );
    // A wrong expected row: the diff, exit 3, the data phase skipped.
    write(&dir, "t.strata", &module("FR"));
    let mut t = vec!["test", "t.strata", "enriched", "--filter", "unknown"];
    t.extend(args);
    let o = wh.strata(&t);
    assert_exit(&o, 3);
    let out = text(&o);
    assert!(out.contains("1 changed row"), "{out}");
    assert!(
        out.contains("- 1         \"ES\"     (changed: country)"),
        "{out}"
    );
    assert!(out.contains("+ 1         \"FR\""), "{out}");
    assert!(
        out.contains("declarative tests and data checks: not run (1 fixture test failed)"),
        "{out}"
    );
}
