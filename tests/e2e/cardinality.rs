//! The join cardinality checks end to end: which side a failure names,
//! keys with NULLs and reserved words, joins without a promise, proofs
//! reused within a run, and sampled checks recorded and replayed.

use crate::support::*;

on_every_engine!(
    one_to_one_names_the_left_table_when_it_repeats,
    composite_null_and_reserved_word_keys,
    right_full_and_cross_joins_and_full_one_to_one_counts_both_sides,
);

on_duckdb_and_postgres!(
    unannotated_joins_run_no_check_query,
    three_joins_on_one_dimension_run_one_query,
    a_relation_grouped_on_the_keys_in_the_run_is_proven_without_a_query,
    sampled_runs_are_recorded_and_replayed_with_their_sample,
);

fn one_to_one_names_the_left_table_when_it_repeats(kind: Kind) {
    let dir = seed_dir("one-to-one");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let o = wh.strata(&[
        "run",
        "orders.strata",
        "profiles",
        "-o",
        ":memory:",
        "--source",
        "orders=orders.csv",
        "--source",
        "customers=customers.csv",
    ]);
    assert_exit(&o, 3);
    let out = text(&o);
    // The right side passed first, then the left side (orders) failed.
    assert!(
        out.contains("  ok  profiles left customers: one_to_one (customers unique on customer_id)"),
        "{out}"
    );
    assert!(
        out.contains("join cardinality FAILED [profiles left customers]: expected one_to_one but orders has 1 duplicate key groups (customer_id)"),
        "{out}"
    );
    assert!(out.contains("e.g. customer_id=10 (2 rows)"), "{out}");
}

/// `join_right`, `join_full` and `join_cross` publish the rows the engine's
/// own joins give; a `join_full ... expect one_to_one` fails the run, with
/// nothing published, when either side repeats a key.
fn right_full_and_cross_joins_and_full_one_to_one_counts_both_sides(kind: Kind) {
    let dir = workdir("full-join");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "m.strata",
        r#"source l(ns: "a") { columns: { k: int64, a: string } }
source r(ns: "a") { columns: { k: int64, b: string } }
model full_one {
  from l
  join_full r on l.k == r.k expect one_to_one
  select { lk = l.k, rk = r.k, a = a, b = r.b }
}
model right_many {
  from l
  join_right r on l.k == r.k expect many_to_one
  select { lk = l.k, b = r.b }
}
model crossed {
  from l
  join_cross r
  select { a = a, b = r.b }
}
"#,
    );
    write(
        &dir,
        "l.csv",
        "k,a
1,x
2,y
3,z
",
    );
    write(
        &dir,
        "l_dup.csv",
        "k,a
1,x
2,y
2,w
",
    );
    write(
        &dir,
        "r.csv",
        "k,b
2,p
3,q
4,s
",
    );
    write(
        &dir,
        "r_dup.csv",
        "k,b
2,p
3,q
3,t
",
    );
    let run = |l: &str, r: &str| {
        wh.strata(&[
            "run",
            "m.strata",
            "-o",
            "wh.duckdb",
            "--source",
            &format!("l={l}"),
            "--source",
            &format!("r={r}"),
        ])
    };
    let ok = run("l.csv", "r.csv");
    assert_exit(&ok, 0);
    for line in [
        "  ok  full_one full r: one_to_one (r unique on k)",
        "  ok  full_one full r: one_to_one (l unique on k)",
        "  ok  right_many right r: many_to_one (r unique on k, proven earlier in this run by check [full_one full r])",
    ] {
        assert!(text(&ok).contains(line), "{line}\n{}", text(&ok));
    }
    let full = "SELECT lk, rk, a, b FROM v_full_one ORDER BY coalesce(lk, rk)";
    assert_eq!(wh.query(full), ["1||x|", "2|2|y|p", "3|3|z|q", "|4||s"]);
    assert_eq!(
        wh.query("SELECT lk, b FROM v_right_many ORDER BY b"),
        ["2|p", "3|q", "|s"]
    );
    assert_eq!(wh.query("SELECT COUNT(*) FROM v_crossed"), ["9"]);
    // A repeated key on either side fails the promise; the live rows stay.
    for (l, r, failing) in [("l_dup.csv", "r.csv", "l"), ("l.csv", "r_dup.csv", "r")] {
        let bad = run(l, r);
        assert_exit(&bad, 3);
        let expected = format!(
            "join cardinality FAILED [full_one full r]: expected one_to_one but {failing} has 1 duplicate key groups (k)"
        );
        assert!(text(&bad).contains(&expected), "{expected}\n{}", text(&bad));
        assert_eq!(wh.query(full).len(), 4, "nothing was published");
    }
}

fn unannotated_joins_run_no_check_query(kind: Kind) {
    let dir = workdir("unannotated");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "m.strata",
        r#"source orders(ns: "a") { columns: { order_id: int64, customer_id: int64 } }
source customers(ns: "a") { columns: { customer_id: int64, country: string } }
model plain { from orders join_left customers on orders.customer_id == customers.customer_id select { order_id = order_id, country = customers.country } }
"#,
    );
    write(
        &dir,
        "orders.csv",
        ORDERS
            .replace(",amount", "")
            .replace(",5.0", "")
            .replace(",7.5", "")
            .replace(",1.0", "")
            .replace(",2.0", "")
            .as_str(),
    );
    write(&dir, "customers.csv", CUSTOMERS_DUP);
    let v = run_json(&wh);
    assert_eq!(v["cardinality"]["queries_executed"], 0);
    assert_eq!(v["cardinality"]["checks"], 0);
    // Duplicates in the dimension fan out, as the unannotated join says:
    // orders 1 and 2 match customer 10 three times each, order 3 matches 20
    // twice, order 4 (NULL key) is kept once.
    assert_eq!(wh.query("SELECT COUNT(*) FROM v_plain"), ["9"]);
    // The SQL is the plain compiled SQL: no check query is emitted either.
    let c = wh.strata(&["compile", "m.strata"]);
    assert_exit(&c, 0);
    assert!(!text(&c).contains("cardinality check"), "{}", text(&c));
}

fn composite_null_and_reserved_word_keys(kind: Kind) {
    let dir = workdir("composite");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "m.strata",
        r#"source facts(ns: "a") { columns: { id: int64, order: int64, limit: string } }
source dims(ns: "a") { columns: { order: int64, limit: string, label: string } }
model m {
  from facts
  join_left dims on facts.order == dims.order and facts.limit == dims.limit expect many_to_one
  select { id = id, label = dims.label }
}
"#,
    );
    write(&dir, "facts.csv", "id,order,limit\n1,1,a\n2,1,b\n3,2,a\n");
    // (1,a) twice would be a duplicate; (1,b)+(1,NULL) and (NULL,a) rows are not.
    write(
        &dir,
        "dims_ok.csv",
        "order,limit,label\n1,a,x\n1,b,y\n1,,z\n,a,w\n,a,v\n2,a,u\n",
    );
    write(
        &dir,
        "dims_dup.csv",
        "order,limit,label\n1,a,x\n1,a,y\n2,a,u\n",
    );
    let run = |dims: &str| {
        wh.strata(&[
            "run",
            "m.strata",
            "-o",
            ":memory:",
            "--source",
            "facts=facts.csv",
            "--source",
            &format!("dims={dims}"),
        ])
    };
    let ok = run("dims_ok.csv");
    assert_exit(&ok, 0);
    assert!(
        text(&ok).contains("  ok  m left dims: many_to_one (dims unique on order, limit)"),
        "{}",
        text(&ok)
    );
    let bad = run("dims_dup.csv");
    assert_exit(&bad, 3);
    assert!(
        text(&bad).contains("but dims has 1 duplicate key groups (order, limit)"),
        "{}",
        text(&bad)
    );
    assert!(
        text(&bad).contains("e.g. order=1, limit=a (2 rows)"),
        "{}",
        text(&bad)
    );
}

/// Three annotated joins on the same dimension and key, against a real
/// warehouse file: one duplicate-group query per run (proofs are reused
/// inside a run, never across runs), and replay does the same.
fn three_joins_on_one_dimension_run_one_query(kind: Kind) {
    let dir = seed_dir("proofs");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "m.strata",
        r#"source orders(ns: "a") { columns: { order_id: int64, customer_id: int64, amount: float64 } }
source customers(ns: "a") { columns: { customer_id: int64 primary_key, country: string } }
model a { from orders join_left customers on orders.customer_id == customers.customer_id expect many_to_one select { order_id = order_id, country = customers.country } }
model b { from orders join_inner customers on customers.customer_id == orders.customer_id expect many_to_one select { order_id = order_id } }
model c { from orders filter amount > 1.0 join_left customers on orders.customer_id == customers.customer_id expect many_to_one select { order_id = order_id } }
"#,
    );
    let run = |customers: &str| {
        wh.strata(&[
            "run",
            "m.strata",
            "-o",
            "wh.duckdb",
            "--format",
            "json",
            "--source",
            "orders=orders.csv",
            "--source",
            &format!("customers={customers}"),
        ])
    };
    for round in 0..2 {
        // The second run reuses the frozen inputs (the same physical
        // tables) but not the first run's proofs: it counts again.
        let o = run("customers.csv");
        assert_exit(&o, 0);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
        let c = &v["cardinality"];
        assert_eq!(c["checks"], 3, "round {round}: {c}");
        assert_eq!(c["queries_executed"], 1, "round {round}: {c}");
        assert_eq!(c["proven_earlier"], 2, "round {round}: {c}");
        let outcomes: Vec<&str> = c["results"]
            .as_array()
            .expect("results")
            .iter()
            .map(|r| r["outcome"].as_str().unwrap_or(""))
            .collect();
        assert_eq!(outcomes, ["ok", "proven_earlier", "proven_earlier"]);
        assert_eq!(c["results"][1]["proven_by"], "check [a left customers]");
        let report = report_lines(&v);
        assert!(
            report.contains(&"  ok  c left customers: many_to_one (customers unique on customer_id, proven earlier in this run by check [a left customers])"),
            "round {round}: {report:?}"
        );
        // The second run is the first again: its snapshots are kept, its
        // checks run.
        assert_eq!(
            report.iter().any(|l| l.starts_with("  reused snap_")),
            round == 1,
            "round {round}: {report:?}"
        );
    }
    let runs = wh.strata(&["replay", "m.strata", "-o", "wh.duckdb", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&runs.stdout).expect("json");
    let id = v[0]["run_id"].as_str().expect("run id").to_string();
    let exec = wh.strata(&[
        "replay",
        "m.strata",
        &id,
        "--execute",
        "-o",
        "wh.duckdb",
        "--format",
        "json",
    ]);
    assert_exit(&exec, 0);
    let v: serde_json::Value = serde_json::from_slice(&exec.stdout).expect("json");
    assert_eq!(v["cardinality"]["queries_executed"], 1, "{v}");
    assert_eq!(v["cardinality"]["proven_earlier"], 2, "{v}");
    // A duplicate fails the first check: the later joins never run.
    let bad = run("customers_dup.csv");
    assert_exit(&bad, 3);
    let out = text(&bad);
    assert!(
        out.contains("FAILED [a left customers]: expected many_to_one but customers has 2 duplicate key groups"),
        "{out}"
    );
}

/// A model built in the run by `group { customer_id }` (or `dedup by`, or
/// a `row_number() == 1` filter partitioned by it) is unique on its keys
/// by construction: the join checks on it run no query;
/// the same join on a source counts.
fn a_relation_grouped_on_the_keys_in_the_run_is_proven_without_a_query(kind: Kind) {
    let dir = seed_dir("construction");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "m.strata",
        r#"source orders(ns: "a") { columns: { order_id: int64, customer_id: int64, amount: float64 } }
source customers(ns: "a") { columns: { customer_id: int64, country: string } }
model per_customer { from orders group { customer_id } ( aggregate { n = count() } ) filter n > 0 }
model last_country { from customers select { customer_id = customer_id, country = country } dedup by customer_id }
model first_country {
  from customers
  select { customer_id = customer_id, country = country, rn = row_number() over (partition_by: [customer_id], sort: [country nulls_first]) }
  filter rn == 1
}
model joined {
  from orders
  join_left per_customer on orders.customer_id == per_customer.customer_id expect many_to_one
  join_left last_country on orders.customer_id == last_country.customer_id expect many_to_one
  join_left first_country on orders.customer_id == first_country.customer_id expect many_to_one
  join_left customers on orders.customer_id == customers.customer_id expect many_to_one
  select { order_id = order_id, n = per_customer.n, country = last_country.country }
}
"#,
    );
    let v = run_json(&wh);
    let c = &v["cardinality"];
    assert_eq!(c["checks"], 4, "{c}");
    assert_eq!(c["queries_executed"], 1, "{c}");
    assert_eq!(c["proven_by_construction"], 3, "{c}");
    let outcomes: Vec<&str> = c["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["outcome"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        outcomes,
        [
            "proven_by_construction",
            "proven_by_construction",
            "proven_by_construction",
            "ok"
        ]
    );
    let report = report_lines(&v);
    assert!(
        report.contains(&"  ok  joined left per_customer: many_to_one (per_customer unique on customer_id, by its group keys)"),
        "{report:?}"
    );
    assert!(
        report.contains(&"  ok  joined left last_country: many_to_one (last_country unique on customer_id, by its dedup)"),
        "{report:?}"
    );
    assert!(
        report.contains(&"  ok  joined left first_country: many_to_one (first_country unique on customer_id, by its row_number() == 1 filter)"),
        "{report:?}"
    );
    // Orders 1 and 2 are customer 10's two, 3 is 20's, 4 has no customer.
    assert_eq!(wh.query("SELECT COUNT(*), SUM(n) FROM v_joined"), ["4|5"]);
}

fn sampled_runs_are_recorded_and_replayed_with_their_sample(kind: Kind) {
    let dir = seed_dir("sampled");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let mut big = String::from("customer_id,country\n");
    for i in 1..=5000 {
        big.push_str(&format!("{i},C{}\n", i % 7));
    }
    write(&dir, "big.csv", &big);
    let args = [
        &ENRICHED_FROM_CSV[..7],
        &["customers=big.csv", "--format", "json"],
    ]
    .concat();
    let exact = wh.strata(&[&["run"][..], &args[..]].concat());
    assert_exit(&exact, 0);
    let exact: serde_json::Value = serde_json::from_slice(&exact.stdout).expect("json");
    assert_eq!(exact["cardinality"]["results"][0]["outcome"], "ok");
    assert_eq!(exact["cardinality"]["sample_rows"], serde_json::Value::Null);

    let sampled = wh.strata(
        &[
            &["run"][..],
            &args[..],
            &["--cardinality-sample-rows", "500"][..],
        ]
        .concat(),
    );
    assert_exit(&sampled, 0);
    let v: serde_json::Value = serde_json::from_slice(&sampled.stdout).expect("json");
    let c = &v["cardinality"];
    assert_eq!(c["sampled"], 1, "{c}");
    assert_eq!(c["sample_rows"], 500);
    let r = &c["results"][0];
    assert_eq!(r["outcome"], "sampled");
    assert_eq!(r["total_rows"], 5000);
    let n = r["sample_rows"].as_i64().expect("sample rows");
    assert!((350..=650).contains(&n), "{n} rows sampled");
    assert!(
        v["report"][0].as_str().unwrap_or("").starts_with(&format!(
            "  sampled ({n} of 5000 rows)  enriched left customers"
        )),
        "{v}"
    );
    // A sampled run is another run than the exact one.
    assert_ne!(v["run_id"], exact["run_id"]);
    let salt = c["sample_salt"].as_str().expect("salt").to_string();
    let id = v["run_id"].as_str().expect("id").to_string();
    assert_eq!(
        wh.query(&format!(
            "SELECT sampling FROM _strata_runs WHERE run_id = '{id}'"
        )),
        [format!("{{\"rows\":500,\"salt\":\"{salt}\"}}")]
    );
    let show = wh.strata(&["replay", "orders.strata", &id, "-o", "wh.duckdb"]);
    assert_exit(&show, 0);
    assert!(
        text(&show).contains(&format!(
            "  sampling   cardinality checks on relations over 500 rows sampled, salt {salt}"
        )),
        "{}",
        text(&show)
    );
    let exec = wh.strata(&[
        "replay",
        "orders.strata",
        &id,
        "--execute",
        "-o",
        "wh.duckdb",
    ]);
    assert_exit(&exec, 0);
    let out = text(&exec);
    assert!(
        out.contains(&format!(
            "  sampled ({n} of 5000 rows)  enriched left customers"
        )),
        "{out}"
    );
    assert!(
        out.contains("cardinality: 1 check; 1 duplicate-group query executed; 0 proven earlier in this run; 1 sampled"),
        "{out}"
    );
}

/// `strata run m.strata --format json` with orders.csv and customers.csv
/// as the sources; it must succeed; its JSON report.
fn run_json(wh: &Wh) -> serde_json::Value {
    let o = wh.strata(&[
        "run",
        "m.strata",
        "-o",
        "wh.duckdb",
        "--format",
        "json",
        "--source",
        "orders=orders.csv",
        "--source",
        "customers=customers.csv",
    ]);
    assert_exit(&o, 0);
    serde_json::from_slice(&o.stdout).expect("json")
}
