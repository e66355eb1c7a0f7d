//! The audit of small projects written here.

use super::*;

fn project(models: &[(&str, &str)], yml: &str) -> Project {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(dir.path().join("dbt_project.yml"), "name: shop\n")
        .unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(dir.path().join("models")).unwrap_or_else(|e| panic!("{e}"));
    for (n, sql) in models {
        std::fs::write(dir.path().join(format!("models/{n}.sql")), sql)
            .unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::write(dir.path().join("models/schema.yml"), yml).unwrap_or_else(|e| panic!("{e}"));
    let p = Project::read(dir.path(), &ReadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    drop(dir);
    p
}

const YML: &str = "version: 2\nmodels:\n  - name: customers\n    columns:\n      - name: customer_id\n        data_tests: [unique]\n";

fn joins_of(p: &Project, model: &str) -> Vec<Join> {
    audit_project(p, None)
        .joins
        .into_iter()
        .filter(|j| j.model == model)
        .collect()
}

#[test]
fn a_unique_test_proves_many_to_one_through_a_cte() {
    let p = project(
        &[
            ("customers", "select 1 as customer_id"),
            ("orders", "select 1 as order_id, 1 as customer_id, 2.0 as amount"),
            (
                "enriched",
                "with c as (select customer_id as cid from {{ ref('customers') }})\nselect o.order_id\nfrom {{ ref('orders') }} o\nleft join c on o.customer_id = c.cid",
            ),
        ],
        YML,
    );
    let j = joins_of(&p, "enriched");
    assert_eq!(j.len(), 1);
    assert_eq!(j[0].verdict, Verdict::ManyToOne, "{:?}", j[0]);
    assert!(
        j[0].evidence.contains("dbt test unique"),
        "{}",
        j[0].evidence
    );
    assert_eq!(
        j[0].keys[0].right_origin.as_deref(),
        Some("customers.customer_id")
    );
    assert_eq!(
        (j[0].at.file.as_str(), j[0].at.line),
        ("models/enriched.sql", 4)
    );
}

#[test]
fn a_sum_of_the_from_side_after_a_fan_out_is_double_counting() {
    let p = project(
        &[
            ("customers", "select 1 as customer_id"),
            ("orders", "select 1 as order_id, 2.0 as amount"),
            ("payments", "select 1 as order_id, 2.0 as paid"),
            (
                "totals",
                "select o.order_id,\n  sum(o.amount) as amount,\n  sum(p.paid) as paid\nfrom {{ ref('orders') }} o\njoin {{ ref('payments') }} p on o.order_id = p.order_id\ngroup by o.order_id",
            ),
        ],
        YML,
    );
    let j = joins_of(&p, "totals");
    assert_eq!(j[0].verdict, Verdict::NoEvidence);
    assert!(j[0].double_counting());
    assert_eq!(j[0].double_counts.len(), 1, "{:?}", j[0].double_counts);
    assert_eq!(j[0].double_counts[0].text, "sum(o.amount)");
    assert_eq!(j[0].double_counts[0].at.line, 2);
    assert_eq!(
        j[0].test.as_ref().map(MissingTest::text).as_deref(),
        Some("unique on payments.order_id")
    );
}

#[test]
fn a_group_by_on_the_from_key_is_one_to_many_by_design() {
    let p = project(
        &[
            ("orders", "select 1 as order_id"),
            ("payments", "select 1 as order_id, 2.0 as paid"),
            (
                "paid",
                "with j as (\n  select o.order_id, p.paid from {{ ref('orders') }} o\n  left join {{ ref('payments') }} p on o.order_id = p.order_id\n)\nselect order_id, sum(paid) as paid from j group by order_id",
            ),
        ],
        "",
    );
    let j = joins_of(&p, "paid");
    assert_eq!(j[0].verdict, Verdict::OneToManyByDesign, "{:?}", j[0]);
    assert!(j[0].grain.is_none());
}

#[test]
fn group_by_distinct_and_row_number_prove_and_carry() {
    let p = project(
        &[
            ("facts", "select 1 as k, 1 as v"),
            ("dims", "select k, max(v) as v from {{ ref('facts') }} group by k"),
            (
                "latest",
                "with r as (select *, row_number() over (partition by k order by v desc) as rn from {{ ref('facts') }})\nselect k, v from r where rn = 1",
            ),
            ("d", "select distinct k from {{ ref('facts') }}"),
            (
                "uses",
                "select f.v from {{ ref('facts') }} f\njoin {{ ref('dims') }} a on f.k = a.k\njoin {{ ref('latest') }} b on f.k = b.k\njoin {{ ref('d') }} c on c.k = f.k\njoin {{ ref('facts') }} e on e.k = f.k",
            ),
        ],
        "",
    );
    let j = joins_of(&p, "uses");
    let by_joined = |n: &str| {
        j.iter()
            .find(|x| x.joined.starts_with(n))
            .unwrap_or_else(|| panic!("missing"))
    };
    assert_eq!(by_joined("dims").verdict, Verdict::ManyToOne);
    assert!(by_joined("dims").evidence.contains("group by"));
    assert_eq!(
        by_joined("latest").verdict,
        Verdict::ManyToOne,
        "{:?}",
        by_joined("latest")
    );
    assert_eq!(by_joined("d ").verdict, Verdict::ManyToOne);
    let e = j
        .iter()
        .find(|x| x.joined == "facts as e")
        .unwrap_or_else(|| panic!("missing"));
    assert_eq!(e.verdict, Verdict::NoEvidence);
    assert!(
        e.grain.as_deref().unwrap_or("").contains("no unique test"),
        "{:?}",
        e.grain
    );
}

#[test]
fn unresolved_keys_are_listed_and_joins_in_subqueries_and_unions_found() {
    let p = project(
        &[
            ("a", "select 1 as id"),
            (
                "m",
                "select * from (select x.id from {{ ref('a') }} x join {{ ref('a') }} y on lower(x.id) = lower(y.id)) s\nunion all\nselect a1.id from {{ ref('a') }} a1, {{ ref('a') }} a2 where a1.id = a2.id",
            ),
        ],
        "",
    );
    let j = joins_of(&p, "m");
    assert_eq!(j.len(), 2, "{j:?}");
    assert!(j.iter().any(|x| x.verdict == Verdict::Unresolved));
    let comma = j
        .iter()
        .find(|x| x.kind == "comma")
        .unwrap_or_else(|| panic!("missing"));
    assert_eq!(comma.keys.len(), 1);
}

#[test]
fn a_fan_out_is_followed_into_the_models_downstream() {
    let p = project(
        &[
            ("orders", "select 1 as order_id, 1 as customer_id, 10.0 as amount"),
            ("payments", "select 1 as order_id, 5.0 as paid"),
            (
                "order_payments",
                "select o.order_id, o.customer_id, o.amount, p.paid\nfrom {{ ref('orders') }} o\nleft join {{ ref('payments') }} p on o.order_id = p.order_id",
            ),
            (
                "customer_revenue",
                "select customer_id,\n    sum(amount) as revenue,\n    max(paid) as last_paid\nfrom {{ ref('order_payments') }}\ngroup by customer_id",
            ),
            (
                "order_copy",
                "select * from {{ ref('order_payments') }}\nunion all\nselect * from {{ ref('order_payments') }}",
            ),
            (
                "copy_revenue",
                "select count(distinct order_id) as n, sum(c.amount) as total from {{ ref('order_copy') }} c",
            ),
        ],
        "version: 2\nmodels:\n  - name: order_copy\n    columns:\n      - name: order_id\n        data_tests: [unique]\n",
    );
    let j = joins_of(&p, "order_payments");
    assert_eq!(j.len(), 1, "{j:?}");
    let texts: Vec<(String, String, usize)> = j[0]
        .double_counts
        .iter()
        .map(|d| (d.text.clone(), d.at.file.clone(), d.at.line))
        .collect();
    // sum(amount) sums the repeated orders' amounts, two models down too;
    // max(paid) and count(distinct ...) do not. In the models' order.
    assert_eq!(
        texts,
        [
            (
                "sum(c.amount) in copy_revenue".to_string(),
                "models/copy_revenue.sql".to_string(),
                1
            ),
            (
                "sum(amount) in customer_revenue".to_string(),
                "models/customer_revenue.sql".to_string(),
                2
            ),
        ]
    );
    let grain = j[0].grain.as_deref().unwrap_or("");
    assert!(
        grain.contains("downstream they reach the output of order_copy (its unique test on (order_id) would fail)"),
        "{grain}"
    );
    assert!(!grain.contains("copy_revenue"), "{grain}");
    // Named once, though both branches of its union reach its output.
    assert_eq!(grain.matches("order_copy").count(), 1, "{grain}");
}
