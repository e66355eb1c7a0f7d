use std::collections::{BTreeMap, BTreeSet};

use strata_lang::types::Type;

use super::*;

fn rel(cols: &[(&str, Type)], is_model: bool) -> RelInfo {
    RelInfo {
        columns: cols
            .iter()
            .map(|(n, t)| ColInfo {
                name: (*n).into(),
                ty: Some(t.clone()),
            })
            .collect(),
        is_model,
    }
}

fn known() -> BTreeMap<String, RelInfo> {
    let mut k = BTreeMap::new();
    k.insert(
        "orders".into(),
        rel(
            &[
                ("id", Type::Int64),
                ("customer_id", Type::Int64),
                ("amount", Type::Int64),
                ("ordered_on", Type::Date),
                ("status", Type::String),
            ],
            false,
        ),
    );
    k.insert(
        "customers".into(),
        rel(&[("id", Type::Int64), ("name", Type::String)], true),
    );
    k
}

fn translate_model(sql_text: &str) -> R<Vec<String>> {
    let k = known();
    let taken = BTreeSet::new();
    let resolve = |parts: &[String]| match parts {
        [one] => {
            let n = one.trim_start_matches("$ref$").to_string();
            if k.contains_key(&n) {
                Named::Relation(n)
            } else {
                Named::Unknown(format!("unknown `{one}`"))
            }
        }
        _ => Named::Unknown("unknown".into()),
    };
    let cx = Context {
        model: "m",
        known: &k,
        taken: &taken,
        resolve: &resolve,
        duckdb: true,
    };
    let d = dialect("duckdb");
    translate(sql_text, d.as_ref(), &cx).map(|t| t.plans.iter().map(|p| p.to_text()).collect())
}

fn one(sql_text: &str) -> String {
    match translate_model(sql_text) {
        Ok(v) => v.join("\n"),
        Err(r) => panic!("refused: {r:?}"),
    }
}

#[test]
fn ctes_that_alias_are_inlined_and_the_last_is_the_model() {
    let t = one("with o as (select * from \"$ref$orders\"), final as (select id as order_id, amount / 100 as amount from o) select * from final");
    assert_eq!(
        t,
        "model m {\n  from orders\n  select { order_id = orders.id, amount = orders.amount / 100 }\n}\n"
    );
}

#[test]
fn grouping_joins_and_helpers() {
    let t = one("with per as (select customer_id, count(*) as n, sum(amount) as total from \"$ref$orders\" group by 1) select c.id, c.name, per.n from \"$ref$customers\" c left join per on c.id = per.customer_id");
    assert!(t.contains("model m__per {\n  from orders\n  group { orders.customer_id } (\n    aggregate { n = count(), total = sum(orders.amount) }\n  )\n}"), "{t}");
    assert!(
        t.contains("join_left m__per on customers.id == m__per.customer_id"),
        "{t}"
    );
}

#[test]
fn post_aggregate_expressions_use_a_grouped_helper() {
    let t = one("select status, sum(amount) * 2 as twice from \"$ref$orders\" group by status having count(*) > 1");
    assert!(t.contains("model m__grouped {"), "{t}");
    assert!(t.contains("filter agg_2 > 1"), "{t}");
    assert!(
        t.contains("select { status = m__grouped.status, twice = m__grouped.agg_1 * 2 }"),
        "{t}"
    );
}

#[test]
fn null_in_between_case_and_dates() {
    let t = one("select id, case when amount is null then 0 when amount between 1 and 5 then 1 else 2 end as bucket, status in ('a', 'b') as ab, ordered_on >= '2024-01-01' as recent from \"$ref$orders\"");
    assert!(t.contains("bucket = case(not coalesce(orders.amount == orders.amount, false), 0, orders.amount >= 1 and orders.amount <= 5, 1, 2)"), "{t}");
    assert!(
        t.contains("ab = orders.status == \"a\" or orders.status == \"b\""),
        "{t}"
    );
    assert!(
        t.contains("recent = orders.ordered_on >= cast(\"2024-01-01\", \"date\")"),
        "{t}"
    );
    let t = one("select id, ordered_on + interval 3 day as later, concat(status, id) as s from \"$ref$orders\"");
    assert!(
        t.contains("later = cast(date_add(orders.ordered_on, days: 3), \"timestamp\")"),
        "{t}"
    );
    assert!(t.contains("s = concat(coalesce(orders.status, \"\"), coalesce(cast(orders.id, \"string\"), \"\"))"), "{t}");
}

#[test]
fn exists_becomes_a_semi_join_and_not_in_is_refused() {
    let t = one("select id from \"$ref$orders\" o where exists (select 1 from \"$ref$customers\" c where c.id = o.customer_id) and amount > 0");
    assert!(
        t.contains("join_semi customers on customers.id == orders.customer_id"),
        "{t}"
    );
    assert!(t.contains("filter orders.amount > 0"), "{t}");
    let r = translate_model("select id from \"$ref$orders\" where customer_id not in (select id from \"$ref$customers\")");
    assert!(r.is_err_and(|r| r.message.contains("NOT EXISTS")));
}

#[test]
fn stars_unions_and_windows() {
    let t = one("select * exclude (status) from \"$ref$orders\"");
    assert!(t.contains("select { id = orders.id, customer_id = orders.customer_id, amount = orders.amount, ordered_on = orders.ordered_on }"), "{t}");
    let t = one("select id from \"$ref$orders\" union all select id from \"$ref$customers\"");
    assert!(t.contains("union all"), "{t}");
    let t = one("select id, row_number() over (partition by customer_id order by ordered_on desc) as rn from \"$ref$orders\"");
    assert!(t.contains("rn = row_number() over (partition_by: [orders.customer_id], sort: [orders.ordered_on desc])"), "{t}");
}

#[test]
fn ordered_aggregates_and_strptime() {
    let t = one("select customer_id, string_agg(status, ', ' order by ordered_on desc) as s, listagg(status, '|') within group (order by id) as l, string_agg(status) as u, percentile_cont(0.9) within group (order by amount) as p, quantile_disc(amount, 0.5) as q from \"$ref$orders\" group by customer_id");
    for want in [
        "s = string_agg(orders.status, \", \", sort: [orders.ordered_on desc])",
        "l = string_agg(orders.status, \"|\", sort: [orders.id])",
        "u = string_agg(orders.status, \",\", sort: [orders.status])",
        "p = percentile_cont(orders.amount, 0.9)",
        "q = percentile_disc(orders.amount, 0.5)",
    ] {
        assert!(t.contains(want), "{want} in {t}");
    }
    let t = one("select strptime(status, '%d/%m/%Y') as t from \"$ref$orders\"");
    assert!(
        t.contains("t = strptime(orders.status, \"%d/%m/%Y\")"),
        "{t}"
    );
    for (sql_text, why) in [
        ("select percentile_cont(1.5) within group (order by amount) as p from \"$ref$orders\"", "between 0 and 1"),
        ("select percentile_cont(0.5) within group (order by amount desc) as p from \"$ref$orders\"", "ascending"),
        ("select string_agg(status, status) as s from \"$ref$orders\"", "separator"),
        ("select strptime(status, '%b %Y') as t from \"$ref$orders\"", "strptime"),
    ] {
        let r = translate_model(sql_text);
        assert!(r.as_ref().is_err_and(|r| r.message.contains(why)), "{sql_text}: {r:?}");
    }
}

#[test]
fn refusals_name_the_line() {
    let r = translate_model("select id,\n  initcap(status) as r\nfrom \"$ref$orders\"");
    let r = r.err().unwrap_or_else(|| panic!("initcap() translated"));
    assert!(r.message.contains("initcap"), "{r:?}");
    assert_eq!(r.line, 2);
    // The catalog's functions DuckDB computes alike translate.
    let t = one("select id, round(amount, 1) as r, md5(status) as h from \"$ref$orders\"");
    assert!(t.contains("r = round(orders.amount, 1)"), "{t}");
    assert!(t.contains("h = md5(orders.status)"), "{t}");
    let t = one("select extract(year from ordered_on) as y, date_part('isodow', ordered_on) as w, month(ordered_on) as m, greatest(id, 0) as g, mod(id, 3) as r from \"$ref$orders\"");
    for want in [
        "y = date_part(orders.ordered_on, year)",
        "w = date_part(orders.ordered_on, isodow)",
        "m = date_part(orders.ordered_on, month)",
        "g = greatest(orders.id, 0)",
        "r = orders.id % 3",
    ] {
        assert!(t.contains(want), "{want} in {t}");
    }
    // DuckDB's dow counts from Sunday 0: strata's isodow modulo 7.
    let t = one("select extract(dow from ordered_on) as d, date_part('dow', ordered_on) as e, dayofweek(ordered_on) as f from \"$ref$orders\"");
    assert!(
        t.contains("d = date_part(orders.ordered_on, isodow) % 7, e = date_part(orders.ordered_on, isodow) % 7, f = date_part(orders.ordered_on, isodow) % 7"),
        "{t}"
    );
    let r = translate_model("select extract(epoch from ordered_on) as d from \"$ref$orders\"");
    assert!(r.is_err_and(|r| r.message.contains("EXTRACT(EPOCH")));
    let r = translate_model("select id from\n\"$ref$nope\"");
    assert!(r.is_err_and(|r| r.line == 2));
    let r = translate_model("select id frm x");
    assert!(r.is_err_and(|r| r.message.starts_with("SQL syntax error")));
    // A full join's USING merges the key columns of both sides.
    let r = translate_model(
        "select id from \"$ref$orders\" a full outer join \"$ref$customers\" c using (id)",
    );
    assert!(r.is_err_and(|r| r.message.contains("FULL JOIN ... USING")));
}

#[test]
fn string_slices_and_max_by() {
    let t = one("select status[7:] as a, status[2:4] as b, status[:3] as c from \"$ref$orders\"");
    assert!(
        t.contains("a = substring(orders.status, 7), b = substring(orders.status, 2, 3), c = substring(orders.status, 1, 3)"),
        "{t}"
    );
    let t = one("select cast(cast(status as timestamp) as timestamp) at time zone 'UTC' at time zone 'utc' as t, cast(status as timestamp) at time zone 'UTC' as tz from \"$ref$orders\"");
    assert!(
        t.contains("t = to_utc(from_utc(cast(cast(orders.status, \"timestamp\"), \"timestamp\"))), tz = from_utc(cast(orders.status, \"timestamp\"))"),
        "{t}"
    );
    for refused in [
        "cast(status as timestamp) at time zone 'Europe/Madrid'",
        "status at time zone 'UTC'",
    ] {
        assert!(
            translate_model(&format!("select {refused} as x from \"$ref$orders\"")).is_err(),
            "{refused}"
        );
    }
    let t = one("select o.id = o.status[2:3] as same from \"$ref$orders\" o");
    assert!(
        t.contains("same = orders.id == cast(substring(orders.status, 2, 2), \"int64\")"),
        "{t}"
    );
    let t = one("select o.status[2:3] as s from \"$ref$orders\" o");
    assert!(t.contains("s = substring(orders.status, 2, 2)"), "{t}");
    let t = one("select string_split(status, ':')[2] as part from \"$ref$orders\"");
    assert!(
        t.contains("part = array_get(split(orders.status, \":\"), 1)"),
        "{t}"
    );
    for refused in [
        "status[-2:]",
        "status[3:2]",
        "status[id:]",
        "amount[1:]",
        "status[1]",
        "string_split(status, ':')[0]",
        "string_split(status, ':')[id]",
    ] {
        assert!(
            translate_model(&format!("select {refused} as x from \"$ref$orders\"")).is_err(),
            "{refused}"
        );
    }
    let t = one("select strftime('%B', ordered_on) as m, strftime(ordered_on, '%Y-%j') as j from \"$ref$orders\"");
    assert!(
        t.contains(
            "m = strftime(orders.ordered_on, \"%B\"), j = strftime(orders.ordered_on, \"%Y-%j\")"
        ),
        "{t}"
    );
    for refused in ["strftime(ordered_on, '%Q')", "strftime(status, '%Y')"] {
        assert!(
            translate_model(&format!("select {refused} as x from \"$ref$orders\"")).is_err(),
            "{refused}"
        );
    }
    // DuckDB compares in `coalesce(status = 'a', false)`; sqlparser reads a
    // named argument.
    let t = one("select coalesce(status = 'a', false) as is_a from \"$ref$orders\"");
    assert!(
        t.contains("is_a = coalesce(orders.status == \"a\", false)"),
        "{t}"
    );
    let t = one("select customer_id, max_by(status, ordered_on) as s, arg_min(id, amount) as i from \"$ref$orders\" group by all");
    assert!(
        t.contains(
            "s = max_by(orders.status, orders.ordered_on), i = min_by(orders.id, orders.amount)"
        ),
        "{t}"
    );
}
