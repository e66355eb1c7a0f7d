//! Lowering tests: the SQL shape of each construct (execution against real
//! databases is tested in the materialize plugin and tests/).

use super::*;

fn compile(src: &str, model: &str, d: Dialect) -> String {
    let c = crate::check_text("t.strata", src);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let m = c
        .module
        .models
        .iter()
        .find(|m| m.name == model)
        .expect("model");
    let rel = |i: &ir::Input| match i.kind {
        InputKind::Source => d.ident(&i.name),
        InputKind::Model => d.ident(&format!("v_{}", i.name)),
    };
    lower_model(&c.module, m, d, &rel, RunValues::NONE).unwrap_or_else(|e| panic!("{}", e.message))
}

const SRC: &str = r#"
source orders(ns: "a") { columns: { order_id: int64 nonnull, customer_id: int64, amount: float64, d: date } }
source customers(ns: "a") { columns: { customer_id: int64 nonnull, country: string } }
"#;

#[test]
fn select_filter_join() {
    let src = format!(
        "{SRC} model m {{ from orders join_left customers on orders.customer_id == customers.customer_id expect many_to_one filter amount > 1 select {{ id = order_id, country = customers.country }} }}"
    );
    assert_eq!(
        compile(&src, "m", Dialect::DuckDb),
        "SELECT \"orders\".\"order_id\" AS \"id\", \"customers\".\"country\" AS \"country\"\nFROM \"orders\" AS \"orders\" LEFT JOIN \"customers\" AS \"customers\" ON (\"orders\".\"customer_id\" = \"customers\".\"customer_id\")\nWHERE (\"orders\".\"amount\" > 1)"
    );
    let bq = compile(&src, "m", Dialect::BigQuery);
    assert!(bq.contains("`orders`.`order_id` AS `id`"), "{bq}");
}

#[test]
fn group_having_sort_take() {
    let src = format!(
        "{SRC} model m {{ from orders group {{ customer_id }} ( aggregate {{ n = count(), total = sum(amount) }} filter n > 1 ) sort {{ total desc }} take 2..3 }}"
    );
    assert_eq!(
        compile(&src, "m", Dialect::Postgres),
        "SELECT \"orders\".\"customer_id\" AS \"customer_id\", CAST(COUNT(*) AS BIGINT) AS \"n\", CAST(SUM(\"orders\".\"amount\") AS DOUBLE PRECISION) AS \"total\"\nFROM \"orders\" AS \"orders\"\nGROUP BY \"orders\".\"customer_id\"\nHAVING (COUNT(*) > 1)\nORDER BY SUM(\"orders\".\"amount\") DESC NULLS LAST\nLIMIT 2 OFFSET 1"
    );
}

#[test]
fn filter_on_window_wraps() {
    let src = format!(
        "{SRC} model m {{ from orders select {{ id = order_id, rn = row_number() over (partition_by: [customer_id], sort: [amount desc]) }} filter rn == 1 }}"
    );
    let sql = compile(&src, "m", Dialect::DuckDb);
    assert!(sql.contains("FROM (SELECT"), "{sql}");
    assert!(sql.contains("WHERE (\"_l1\".\"rn\" = 1)"), "{sql}");
}

#[test]
fn set_ops_and_dedup() {
    let src = format!(
        "{SRC} model a {{ from orders select {{ order_id = order_id }} }} model b {{ from orders select {{ order_id = order_id }} }}
         model u {{ from a union all b intersect a }} model dd {{ from orders select {{ k = customer_id, v = amount }} dedup by k }}"
    );
    let sql = compile(&src, "u", Dialect::BigQuery);
    assert!(
        sql.contains("UNION ALL") && sql.contains("INTERSECT DISTINCT"),
        "{sql}"
    );
    let sql = compile(&src, "dd", Dialect::DuckDb);
    assert!(sql.contains("ROW_NUMBER() OVER (PARTITION BY \"orders\".\"customer_id\" ORDER BY \"orders\".\"amount\" ASC NULLS LAST)"), "{sql}");
}

#[test]
fn reserved_words_and_strings_are_quoted() {
    let src = format!("{SRC} model m {{ from orders filter \"order\" == \"it's\" select {{ \"select\" = \"order\" }} }}");
    let _ = src;
    // Reserved words are not valid strata names; quoting still applies to
    // every identifier, and strings are escaped.
    let src = format!("{SRC} model m {{ from orders filter customer_id == 1 and amount > 0.5 select {{ s = concat(\"it's\", order_id) }} }}");
    let sql = compile(&src, "m", Dialect::Postgres);
    assert!(sql.contains("'it''s'"), "{sql}");
    assert!(
        sql.contains("CAST(\"orders\".\"order_id\" AS TEXT)"),
        "{sql}"
    );
}

#[test]
fn passthrough_of_joined_columns() {
    let src = format!("{SRC} model p {{ from orders join_left customers on orders.customer_id == customers.customer_id expect one_to_one }}");
    let sql = compile(&src, "p", Dialect::DuckDb);
    assert!(
        sql.contains("\"customers\".\"customer_id\" AS \"customers_customer_id\""),
        "{sql}"
    );
    assert!(
        sql.contains("\"customers\".\"country\" AS \"country\""),
        "{sql}"
    );
}

#[test]
fn anti_join_is_not_exists() {
    let src = format!("{SRC} model m {{ from orders join_anti customers on orders.customer_id == customers.customer_id select {{ id = order_id }} }}");
    let sql = compile(&src, "m", Dialect::Snowflake);
    assert!(
        sql.contains("WHERE NOT EXISTS (SELECT 1 FROM \"customers\" AS \"customers\" WHERE"),
        "{sql}"
    );
}

#[test]
fn cardinality_check_sides() {
    let src = format!("{SRC} model p {{ from orders join_left customers on orders.customer_id == customers.customer_id expect one_to_one }}");
    let c = crate::check_text("t.strata", &src);
    let checks = cardinality_checks(&c.module.models[0]);
    assert_eq!(checks.len(), 2);
    assert_eq!(
        (checks[0].table.as_str(), checks[0].left_side),
        ("customers", false)
    );
    assert_eq!(
        (checks[1].table.as_str(), checks[1].left_side),
        ("orders", true)
    );
}

#[test]
fn set_op_chains_apply_left_to_right() {
    let src = format!(
        "{SRC} model a {{ from orders select {{ order_id = order_id }} }} model b {{ from orders select {{ order_id = order_id }} }}
         model u {{ from a union b intersect a }}"
    );
    let sql = compile(&src, "u", Dialect::Postgres);
    assert!(sql.contains("((SELECT"), "{sql}");
    assert!(sql.contains(")\nINTERSECT\n(SELECT"), "{sql}");
}

#[test]
fn computed_outputs_are_cast_to_their_schema_type() {
    let src = format!(
        "{SRC} model m {{ from orders select {{ one = 1, half = amount / 2, id = order_id }} }}"
    );
    let sql = compile(&src, "m", Dialect::Postgres);
    assert!(sql.contains("CAST(1 AS BIGINT) AS \"one\""), "{sql}");
    assert!(
        sql.contains("\"orders\".\"order_id\" AS \"id\""),
        "plain columns are not cast: {sql}"
    );
}

#[test]
fn postgres_specific_casts_and_remainders() {
    let src = format!("{SRC} model m {{ from orders select {{ b = cast(amount > 1, \"int64\"), r = amount % 2 }} }}");
    let sql = compile(&src, "m", Dialect::Postgres);
    assert!(
        sql.contains("CAST(CAST((\"orders\".\"amount\" > 1) AS INTEGER) AS BIGINT)"),
        "{sql}"
    );
    assert!(
        sql.contains("(CAST(\"orders\".\"amount\" AS NUMERIC) % CAST(2 AS NUMERIC))"),
        "{sql}"
    );
}

#[test]
fn non_bool_conditions_are_cast() {
    let src = format!(
        "{SRC} model m {{ from orders filter customer_id + 1 select {{ id = order_id }} }}"
    );
    let sql = compile(&src, "m", Dialect::Postgres);
    assert!(
        sql.contains("WHERE ((\"orders\".\"customer_id\" + 1) <> 0)"),
        "{sql}"
    );
}

#[test]
fn dedup_row_number_never_collides_with_an_output() {
    let src = format!(
        "{SRC} model m {{ from orders select {{ __rn = order_id, k = customer_id }} dedup by k }}"
    );
    let sql = compile(&src, "m", Dialect::DuckDb);
    assert!(sql.contains("AS \"__rn_\""), "{sql}");
}

/// What SQL cannot express is reported by the checker, at its span, with
/// the code of the mistake (the reference accepts these at check time and
/// fails only when it compiles them, with E070).
#[test]
fn what_sql_cannot_express_is_caught_by_the_checker() {
    let cases = [
        ("from orders select { id = order_id } dedup sort { amount }", "E076", "sort keys must be output columns"),
        ("from orders select { rn = row_number() }", "E065", "row_number() is a window function: it needs over(...)"),
        ("from orders select { x = lag(amount) }", "E065", "lag() is a window function"),
        ("from orders group { customer_id } ( aggregate { n = count() } ) sort { order_id }", "E040", "unknown column 'order_id' in the group's keys and aggregates"),
        ("from orders group { customer_id } ( aggregate { n = count() } ) select { i = order_id }", "E040", "after a group only its keys and aggregates exist"),
        ("from orders group { customer_id } ( aggregate { n = count() } ) select { a = orders.amount }", "E040", "'orders.amount' is not available after the group"),
        ("from orders join_semi customers on orders.customer_id == customers.customer_id filter customers.country == \"FR\"", "E040", "read only in its `on` condition"),
        ("from orders select { t = -d }", "E053", "unary minus needs a number or money, got date"),
    ];
    for (body, code, text) in cases {
        let src = format!("{SRC} model m {{ {body} }}");
        let c = crate::check_text("t.strata", &src);
        let d = c
            .diagnostics
            .iter()
            .find(|d| d.code == code)
            .unwrap_or_else(|| panic!("{body}: no {code} in {:?}", c.diagnostics));
        assert!(
            d.message.contains(text) || d.help.as_deref().is_some_and(|h| h.contains(text)),
            "{body}: {d:?}"
        );
        assert_eq!(c.diagnostics.len(), 1, "{body}: {:?}", c.diagnostics);
    }
}

/// A group key keeps its column's name, so the qualified column still means
/// the key after the group, and the SQL uses the key.
#[test]
fn qualified_group_key_after_the_group_is_the_key() {
    let src = format!("{SRC} model m {{ from orders group {{ customer_id }} ( aggregate {{ n = count() }} ) join_left customers on orders.customer_id == customers.customer_id select {{ customer_id = customer_id, n = n, country = customers.country }} }}");
    for d in Dialect::ALL {
        let sql = compile(&src, "m", d);
        assert!(sql.contains("customer_id"), "{sql}");
    }
}

#[test]
fn a_constant_group_key_is_no_column_position() {
    let src = format!("{SRC} model m {{ from orders let kind = 0 group {{ customer_id, kind }} ( aggregate {{ n = count() }} ) }}");
    let sql = compile(&src, "m", Dialect::DuckDb);
    assert!(
        sql.ends_with("GROUP BY \"orders\".\"customer_id\", CAST(0 AS BIGINT)"),
        "{sql}"
    );
}

const GENERATED: &str = r#"
source orders(ns: "a") { columns: { order_id: int64 nonnull, status: int64, placed: date } }
model statuses {
  rows(code: int64 nonnull, label: string nonnull) {
    (1, "placed")
    (2, "shipped")
  }
}
model calendar {
  series day from cast("2024-02-27", "date") to cast("2024-03-02", "date")
  derive { day = day, dow = date_part(day, isodow) }
}
model months { series m from cast("2024-01-01", "date") to current_date() step 1 months }
model nums { series n from 1 to 10 step 3 filter n > 1 }
model stamps { series t from cast("2024-01-01 00:00:00", "timestamp") to cast("2024-01-03 00:00:00", "timestamp") step 12 days }
model daily {
  from orders
  join_left calendar on orders.placed == calendar.day expect many_to_one
  join_left statuses on orders.status == statuses.code expect many_to_one
  select { order_id = order_id, day = calendar.day, label = statuses.label }
}
"#;

#[test]
fn rows_and_series_compile_for_every_dialect() {
    for d in Dialect::ALL {
        for m in ["statuses", "calendar", "months", "nums", "stamps", "daily"] {
            let sql = compile(GENERATED, m, d);
            assert!(!sql.is_empty());
        }
    }
    let rows = compile(GENERATED, "statuses", Dialect::DuckDb);
    assert_eq!(
        rows,
        "SELECT \"_generated\".\"code\" AS \"code\", \"_generated\".\"label\" AS \"label\"\nFROM (SELECT CAST(v.\"code\" AS BIGINT) AS \"code\", CAST(v.\"label\" AS VARCHAR) AS \"label\" FROM (VALUES (1, 'placed'), (2, 'shipped')) AS v(\"code\", \"label\")) AS \"_generated\""
    );
    let nums = compile(GENERATED, "nums", Dialect::Postgres);
    assert!(
        nums.contains("generate_series(CAST(1 AS BIGINT), CAST(10 AS BIGINT), 3)"),
        "{nums}"
    );
    let bq = compile(GENERATED, "statuses", Dialect::BigQuery);
    assert!(
        bq.contains("UNION ALL SELECT CAST(2 AS INT64) AS `code`"),
        "{bq}"
    );
    let spark = compile(GENERATED, "months", Dialect::Spark);
    assert!(spark.contains("INTERVAL 1 MONTH"), "{spark}");
}

#[test]
fn a_series_to_current_date_reads_the_run_clock() {
    let c = crate::check_text("t.strata", GENERATED);
    let m = c
        .module
        .models
        .iter()
        .find(|m| m.name == "months")
        .expect("model");
    assert!(reads_clock(m).is_some());
}

#[test]
fn run_id_is_the_runs_id_in_a_run_and_the_zero_id_outside() {
    let src = format!("{SRC} model m {{ from orders select {{ id = order_id, run = run_id() }} }}");
    let c = crate::check_text("t.strata", &src);
    assert!(!c.has_errors(), "{:?}", c.diagnostics);
    let m = &c.module.models[0];
    let col = m.columns.iter().find(|c| c.name == "run").expect("column");
    assert_eq!(col.ty, crate::types::Type::String);
    assert!(!col.nullable, "run_id() is never null");
    let rel = |i: &ir::Input| Dialect::DuckDb.ident(&i.name);
    let clock = Clock::new("2026-12-08 01:02:03.000000");
    for d in [
        Dialect::DuckDb,
        Dialect::Postgres,
        Dialect::Spark,
        Dialect::BigQuery,
        Dialect::Snowflake,
    ] {
        let string = d.type_name(&crate::types::Type::String).expect("type");
        let outside = lower_model(&c.module, m, d, &rel, RunValues::NONE).expect("sql");
        assert!(
            outside.contains(&format!("CAST('{NO_RUN_ID}' AS {string})")),
            "{outside}"
        );
        let run = RunValues {
            clock: Some(&clock),
            id: Some("0123456789abcdef"),
        };
        let inside = lower_model(&c.module, m, d, &rel, run).expect("sql");
        assert!(
            inside.contains(&format!("CAST('0123456789abcdef' AS {string})")),
            "{inside}"
        );
        assert!(!inside.contains(NO_RUN_ID), "{inside}");
    }
    // A run's id is user text no more than a literal is: quoted as one.
    let odd = RunValues {
        clock: None,
        id: Some("it's"),
    };
    let sql = lower_model(&c.module, m, Dialect::DuckDb, &rel, odd).expect("sql");
    assert!(sql.contains("'it''s'"), "{sql}");
}
