//! End-to-end tests: the `strata` binary against real warehouses — a DuckDB
//! file, a schema of a throw-away PostgreSQL server, a database of a local
//! Spark Connect server — with data written by the tests. What a user would
//! see: exit codes, report lines, and what the published views return
//! afterwards. Every test runs on DuckDB and PostgreSQL (`<test>::duckdb`,
//! `<test>::postgres`); the lifecycle's core runs on Spark too
//! (`<test>::spark`: the seed, keys, upstream models and overrides, test and
//! replay, a second writer, a killed run, the shop example, rollback / gc /
//! branches, plan and --only-stale, incremental models), where each
//! statement takes a distributed job (0.3 to 3 s here) and the whole list
//! would take most of an hour; Spark behind TLS goes through nginx in front
//! of the server (`support/spark.rs`). The tests name the warehouse `wh.duckdb` (or
//! `:memory:`) and [`Wh::strata`] points that argument at the engine's
//! warehouse.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use strata_materialize::Warehouse;

#[path = "support/pg.rs"]
mod pg;
#[path = "support/spark.rs"]
mod spark;
#[path = "support/tools.rs"]
#[allow(dead_code)]
mod tools;

/// The engines every test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    DuckDb,
    Postgres,
    Spark,
}

/// `mod <test> { duckdb, postgres, spark }`: each test function, once per
/// engine.
macro_rules! on_every_engine {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn duckdb() {
                super::$name(super::Kind::DuckDb)
            }
            #[test]
            fn postgres() {
                super::$name(super::Kind::Postgres)
            }
            #[test]
            fn spark() {
                super::$name(super::Kind::Spark)
            }
        }
    )*};
}

/// `mod <test> { duckdb, postgres }`.
macro_rules! on_duckdb_and_postgres {
    ($($name:ident),* $(,)?) => {$(
        mod $name {
            #[test]
            fn duckdb() {
                super::$name(super::Kind::DuckDb)
            }
            #[test]
            fn postgres() {
                super::$name(super::Kind::Postgres)
            }
        }
    )*};
}

on_every_engine!(
    seed_enriched_publishes_then_a_duplicate_aborts_and_keeps_live_data,
    one_to_one_names_the_left_table_when_it_repeats,
    composite_null_and_reserved_word_keys,
    upstream_models_staged_in_the_run_and_pipeline_overrides,
    test_command_and_replay,
    second_writer_waits_then_names_the_holder,
    killed_run_leaves_previous_state_and_next_run_succeeds,
    shop_example_runs_and_broken_variant_keeps_live_data,
    rollback_gc_and_branches_over_several_runs,
    plan_and_only_stale_rebuild_exactly_what_changed,
    incremental_models_merge_each_batch_into_their_previous_snapshot,
    file_overrides_keep_their_lists,
);

on_duckdb_and_postgres!(
    unannotated_joins_run_no_check_query,
    missing_sources_and_unknown_names_fail_before_running,
    sources_that_do_not_match_their_columns_fail_before_any_model_is_built,
    three_joins_on_one_dimension_run_one_query,
    a_relation_grouped_on_the_keys_in_the_run_is_proven_without_a_query,
    parquet_inputs_are_frozen_by_copy_and_collected_by_gc,
    sampled_runs_are_recorded_and_replayed_with_their_sample,
    a_warehouse_from_before_sampling_is_upgraded,
    a_run_with_old_format_fingerprints_replays_as_a_format_change,
);

/// The warehouse of one test, in its directory: the file `wh.duckdb`, or a
/// fresh schema of the shared PostgreSQL server.
struct Wh {
    kind: Kind,
    dir: PathBuf,
    /// What `-o` names.
    arg: String,
}

impl Wh {
    /// `None` (after a skip message; a failure under CI) when the engine's
    /// server is not installed.
    fn new(kind: Kind, dir: &Path) -> Option<Wh> {
        let arg = match kind {
            Kind::DuckDb => "wh.duckdb".to_string(),
            Kind::Postgres => {
                let pg = pg::pg()?;
                let schema = pg.schema_name("e2e");
                pg.psql("public", &format!("CREATE SCHEMA {schema};"))
                    .unwrap_or_else(|e| panic!("{e}"));
                format!(
                    "postgres://postgres:{}@127.0.0.1:{}/postgres?schema={schema}&sslmode=disable",
                    pg::PASSWORD,
                    pg.port
                )
            }
            Kind::Spark => {
                let spark = spark::spark()?;
                spark.url(&spark.database("e2e"))
            }
        };
        Some(Wh {
            kind,
            dir: dir.to_path_buf(),
            arg,
        })
    }

    /// The arguments with the warehouse (`wh.duckdb`, `:memory:` on
    /// another engine) pointed at this one.
    fn args<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
        args.iter()
            .map(|a| match *a {
                "wh.duckdb" => self.arg.as_str(),
                ":memory:" if self.kind != Kind::DuckDb => self.arg.as_str(),
                other => other,
            })
            .collect()
    }

    /// Run `strata` in the test's directory on this warehouse. Whatever
    /// it prints, the password and the token are not in it.
    fn strata(&self, args: &[&str]) -> Output {
        let o = strata(&self.dir, &self.args(args));
        assert!(
            !text(&o).contains(pg::PASSWORD) && !text(&o).contains(spark::TOKEN),
            "a secret was printed:\n{}",
            text(&o)
        );
        o
    }

    /// Where the warehouse is, as `Warehouse::open` reads it.
    fn at(&self) -> String {
        match self.kind {
            Kind::DuckDb => self.dir.join(&self.arg).display().to_string(),
            Kind::Postgres | Kind::Spark => self.arg.clone(),
        }
    }

    fn open(&self) -> Box<Warehouse> {
        Warehouse::open(&self.at(), Duration::from_secs(10)).expect("open warehouse")
    }

    /// Rows of a query as `|`-joined text, in query order, read as a
    /// reader does (no writer lock: a killed writer's lock may still be
    /// there).
    fn query(&self, sql: &str) -> Vec<String> {
        let target = strata_materialize::Target::parse(&self.at(), None).expect("target");
        strata_materialize::engine::open_read_only(&target, Duration::from_secs(10))
            .expect("open warehouse")
            .rows(sql)
            .expect("query")
            .into_iter()
            .map(|r| {
                r.into_iter()
                    .map(|c| c.unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect()
    }

    /// A quoted name in this engine's SQL.
    fn ident(&self, name: &str) -> String {
        let dialect = match self.kind {
            Kind::DuckDb => strata_lang::sql::Dialect::DuckDb,
            Kind::Postgres => strata_lang::sql::Dialect::Postgres,
            Kind::Spark => strata_lang::sql::Dialect::Spark,
        };
        dialect.ident(name)
    }

    /// A DuckDB type name as this engine names it.
    fn type_name(&self, duckdb: &str) -> String {
        match (self.kind, duckdb) {
            (Kind::Postgres, "VARCHAR") => "text".into(),
            (Kind::Spark, "VARCHAR") => "string".into(),
            _ => duckdb.into(),
        }
    }
}

static DIRS: AtomicUsize = AtomicUsize::new(0);

/// A fresh directory for one test.
fn workdir(name: &str) -> PathBuf {
    let n = DIRS.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("strata-e2e-{}-{name}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(&p, text).expect("write file");
    p
}

fn strata(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run strata")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The report lines of a `run --format json`.
fn report_lines(v: &serde_json::Value) -> Vec<&str> {
    v["report"]
        .as_array()
        .expect("report")
        .iter()
        .filter_map(|l| l.as_str())
        .collect()
}

/// The JSON a `--format json` command printed.
#[track_caller]
fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)))
}

#[track_caller]
fn assert_exit(o: &Output, code: i32) {
    assert_eq!(o.status.code(), Some(code), "output:\n{}", text(o));
}

/// What a child printed on `stderr` until it reached a failpoint (asserted).
fn read_until_failpoint(stderr: &mut impl std::io::Read) -> String {
    let mut seen = String::new();
    while !seen.contains("failpoint") {
        let mut buf = [0u8; 256];
        match stderr.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.push_str(&String::from_utf8_lossy(&buf[..n])),
        }
    }
    assert!(
        seen.contains("failpoint"),
        "never reached the failpoint: {seen}"
    );
    seen
}

/// Start `strata args` on `wh` with the failpoint `point` (`BEFORE_COMMIT`,
/// `BEFORE_PUBLISH`), wait until it is there, and SIGKILL it.
fn kill_at_failpoint(wh: &Wh, point: &str, args: &[&str]) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(wh.args(args))
        .current_dir(&wh.dir)
        .env(format!("STRATA_FAILPOINT_{point}_MS"), "60000")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stderr = child.stderr.take().expect("stderr");
    read_until_failpoint(&mut stderr);
    child.kill().expect("SIGKILL");
    let _ = child.wait();
}

const SEED: &str = include_str!("../examples/seed/orders.strata");

const ORDERS: &str = "order_id,customer_id,amount\n1,10,5.0\n2,10,7.5\n3,20,1.0\n4,,2.0\n";
const CUSTOMERS: &str = "customer_id,country\n10,ES\n20,FR\n30,DE\n";
/// `enriched` of the seed, from the CSV files of [`seed_dir`], into
/// `wh.duckdb` (the customers file last).
const ENRICHED_FROM_CSV: [&str; 8] = [
    "orders.strata",
    "enriched",
    "-o",
    "wh.duckdb",
    "--source",
    "orders=orders.csv",
    "--source",
    "customers=customers.csv",
];
const CUSTOMERS_DUP: &str = "customer_id,country\n10,ES\n10,PT\n10,IT\n20,FR\n20,BE\n30,DE\n";

fn seed_dir(name: &str) -> PathBuf {
    let dir = workdir(name);
    write(&dir, "orders.strata", SEED);
    write(&dir, "orders.csv", ORDERS);
    write(&dir, "customers.csv", CUSTOMERS);
    write(&dir, "customers_dup.csv", CUSTOMERS_DUP);
    dir
}

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
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
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

fn test_command_and_replay(kind: Kind) {
    let dir = seed_dir("replay");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(
        &dir,
        "t.strata",
        &format!("{SEED}\ntest enriched {{ expect row_count == 4; expect order_id > 0 }}\n"),
    );
    // The seed's run arguments, after the file and the model.
    let args = &ENRICHED_FROM_CSV[2..];
    let mut t = vec!["test", "t.strata", "enriched"];
    t.extend(args);
    let o = wh.strata(&t);
    assert_exit(&o, 0);
    assert!(
        text(&o).contains("  ok  test enriched: row_count == 4 (4)"),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).contains("  ok  test enriched: order_id > 0 (4 rows)"),
        "{}",
        text(&o)
    );
    // test never touches live views.
    assert!(!wh.open().relation_exists("v_enriched").expect("exists"));
    let mut r = vec!["run", "t.strata", "enriched"];
    r.extend(args);
    assert_exit(&wh.strata(&r), 0);
    let runs = wh.strata(&["replay", "t.strata", "-o", "wh.duckdb", "--format", "json"]);
    assert_exit(&runs, 0);
    let v: serde_json::Value = serde_json::from_slice(&runs.stdout).expect("json");
    let id = v[0]["run_id"].as_str().expect("run id").to_string();
    let show = wh.strata(&["replay", "t.strata", &id[..6], "-o", "wh.duckdb"]);
    assert_exit(&show, 0);
    assert!(
        text(&show).contains(&format!("run {id}")),
        "{}",
        text(&show)
    );
    let exec = wh.strata(&[
        "replay",
        "t.strata",
        &id[..6],
        "--execute",
        "-o",
        "wh.duckdb",
    ]);
    assert_exit(&exec, 0);
    assert!(
        text(&exec).contains("outputs equal the recorded snapshots"),
        "{}",
        text(&exec)
    );
    assert!(
        text(&exec).contains("  ok  enriched left customers: many_to_one"),
        "{}",
        text(&exec)
    );
    // A failing declarative test exits 3 and publishes nothing.
    write(
        &dir,
        "t2.strata",
        &format!("{SEED}\ntest enriched {{ expect row_count > 100 }}\n"),
    );
    let mut r2 = vec!["run", "t2.strata", "enriched"];
    r2.extend(args);
    let o = wh.strata(&r2);
    assert_exit(&o, 3);
    assert!(
        text(&o).contains("test FAILED [enriched] expect row_count > 100: the model has 4 rows"),
        "{}",
        text(&o)
    );
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
    Warehouse::open(":memory:", Duration::from_secs(5))
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

/// A model built in the run by `group { customer_id }` (or `dedup by`) is
/// unique on its keys by construction: the join checks on it run no query;
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
model joined {
  from orders
  join_left per_customer on orders.customer_id == per_customer.customer_id expect many_to_one
  join_left last_country on orders.customer_id == last_country.customer_id expect many_to_one
  join_left customers on orders.customer_id == customers.customer_id expect many_to_one
  select { order_id = order_id, n = per_customer.n, country = last_country.country }
}
"#,
    );
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
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    let c = &v["cardinality"];
    assert_eq!(c["checks"], 3, "{c}");
    assert_eq!(c["queries_executed"], 1, "{c}");
    assert_eq!(c["proven_by_construction"], 2, "{c}");
    let outcomes: Vec<&str> = c["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| r["outcome"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        outcomes,
        ["proven_by_construction", "proven_by_construction", "ok"]
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
    // Orders 1 and 2 are customer 10's two, 3 is 20's, 4 has no customer.
    assert_eq!(wh.query("SELECT COUNT(*), SUM(n) FROM v_joined"), ["4|5"]);
}

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
    kill_at_failpoint(
        &wh,
        last_moment,
        &[
            "gc",
            "-o",
            "wh.duckdb",
            "--keep",
            "1",
            "--keep-days",
            "0",
            "--apply",
        ],
    );
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

/// Sampling on a warehouse file: the bound and salt are recorded with the
/// run, `replay` shows them and `replay --execute` checks the same sample.
/// An incremental module: the same query merged two ways. `ev_upsert`
/// promises one row per id (a `unique` pin).
const INCREMENTAL: &str = r#"source events(ns: "app") {
  columns: { id: int64, kind: string, amount: int64, updated_at: int64 }
}
contract OneRowPerId { id: int64 unique }
model ev_append {
  from events
  incremental merge_strategy: append cdc_column: updated_at
  select { id = id, kind = kind, amount = amount, updated_at = updated_at }
}
model ev_upsert -> contract OneRowPerId {
  from events
  incremental merge_strategy: upsert merge_keys: [id] cdc_column: updated_at
  select { id = id, kind = kind, amount = amount, updated_at = updated_at }
}
"#;

/// Two batches of `events`: the second drops id 3, edits id 1 without
/// moving its `updated_at` (an incremental run cannot see that), updates
/// id 2 and adds id 4.
const BATCHES: [&str; 2] = [
    "id,kind,amount,updated_at\n1,a,10,1\n2,b,20,2\n3,c,30,3\n",
    "id,kind,amount,updated_at\n1,a,11,1\n2,b,25,5\n4,d,40,4\n",
];

/// What both incremental models publish after the two batches.
const AFTER_TWO: [&[&str]; 2] = [
    &["1|a|10|1", "2|b|20|2", "2|b|25|5", "3|c|30|3", "4|d|40|4"],
    &["1|a|10|1", "2|b|25|5", "3|c|30|3", "4|d|40|4"],
];

fn incremental_models_merge_each_batch_into_their_previous_snapshot(kind: Kind) {
    let dir = workdir("incremental");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    write(&dir, "m.strata", INCREMENTAL);
    for (i, b) in BATCHES.iter().enumerate() {
        write(&dir, &format!("batch{}.csv", i + 1), b);
    }
    write(
        &dir,
        "batch3.csv",
        "id,kind,amount,updated_at\n5,e,50,7\n5,e,51,8\n",
    );
    let run = |batch: &str, extra: &[&str]| {
        let source = format!("events={batch}");
        let mut args = vec!["run", "m.strata", "-o", "wh.duckdb", "--source", &source];
        args.extend_from_slice(extra);
        wh.strata(&args)
    };
    let published = |m: &str| wh.query(&format!("SELECT * FROM v_{m} ORDER BY 1, 2, 3, 4"));

    let first = run("batch1.csv", &[]);
    assert_exit(&first, 0);
    assert!(
        text(&first).contains("  incremental ev_append: built in full (first run on branch main)"),
        "{}",
        text(&first)
    );
    let second = run("batch2.csv", &[]);
    assert_exit(&second, 0);
    let out = text(&second);
    let runs = wh.query("SELECT run_id FROM _strata_runs ORDER BY started_at");
    let first_snapshot = |m: &str| format!("snap_{}_{m}", runs[0]);
    assert!(
        out.contains(&format!(
            "  incremental ev_append: append into {}: rows with updated_at > 3",
            first_snapshot("ev_append")
        )) && out.contains(&format!(
            "  incremental ev_upsert: upsert on id into {}: rows with updated_at > 3",
            first_snapshot("ev_upsert")
        )),
        "{out}"
    );
    assert_eq!(published("ev_append"), AFTER_TWO[0]);
    assert_eq!(published("ev_upsert"), AFTER_TWO[1]);

    // The reference publishes the same rows from the same two batches.
    if let Some(rows) = strata_lang_rows(&dir, &["ev_append", "ev_upsert"]) {
        assert_eq!(rows[0], AFTER_TWO[0], "ev_append differs from strata-lang");
        assert_eq!(rows[1], AFTER_TWO[1], "ev_upsert differs from strata-lang");
    }

    // The merged run replays exactly: it starts from the recorded previous
    // snapshot, which `gc` keeps while the run it fed is kept.
    let gc = wh.strata(&["gc", "-o", "wh.duckdb", "--keep", "1", "--apply"]);
    assert_exit(&gc, 0);
    let replay = wh.strata(&[
        "replay",
        "m.strata",
        "-o",
        "wh.duckdb",
        "--execute",
        &runs[1],
    ]);
    assert_exit(&replay, 0);
    assert!(
        text(&replay).contains("  same  ev_append  (5 rows)")
            && text(&replay).contains("  same  ev_upsert  (4 rows)")
            && text(&replay).contains("outputs equal the recorded snapshots"),
        "{}",
        text(&replay)
    );

    // A bad merge: two new rows for id 5. The unique pin on the merge key
    // catches it and nothing is published.
    let bad = run("batch3.csv", &[]);
    assert_exit(&bad, 3);
    assert!(text(&bad).contains("unique"), "{}", text(&bad));
    assert_eq!(published("ev_upsert"), AFTER_TWO[1]);
    assert_eq!(published("ev_append"), AFTER_TWO[0]);

    // `--full-refresh` builds from the inputs alone.
    let full = run("batch2.csv", &["--full-refresh"]);
    assert_exit(&full, 0);
    assert!(
        text(&full).contains("  incremental ev_upsert: built in full (--full-refresh)"),
        "{}",
        text(&full)
    );
    let batch2 = ["1|a|11|1", "2|b|25|5", "4|d|40|4"];
    assert_eq!(published("ev_append"), batch2);
    assert_eq!(published("ev_upsert"), batch2);

    // An edited model cannot merge into a snapshot of its old query.
    write(
        &dir,
        "m.strata",
        &INCREMENTAL.replace(
            "amount = amount, updated_at",
            "amount = amount * 2, updated_at",
        ),
    );
    let edited = run("batch1.csv", &[]);
    assert_exit(&edited, 0);
    assert!(
        text(&edited).contains("  incremental ev_append: built in full (the model or a model upstream changed since run"),
        "{}",
        text(&edited)
    );
    assert_eq!(published("ev_append"), ["1|a|20|1", "2|b|40|2", "3|c|60|3"]);
}

/// The rows strata-lang publishes for `models` after running `m.strata` of
/// `dir` on `batch1.csv`, then `batch2.csv`, as table `events` of a DuckDB
/// file. `None` (a skip; a failure under CI) when it is not installed.
fn strata_lang_rows(dir: &Path, models: &[&str]) -> Option<Vec<Vec<String>>> {
    let Some(reference) = tools::strata_lang() else {
        tools::unavailable("strata-lang is not installed (set STRATA_LANG)");
        return None;
    };
    // Its own virtualenv has duckdb: load each batch with it, run, read.
    let python = reference.with_file_name("python");
    let script = r#"
import duckdb, json, subprocess, sys
ref, models = sys.argv[1], sys.argv[2].split(",")
for batch in ("batch1.csv", "batch2.csv"):
    c = duckdb.connect("ref.duckdb")
    c.execute(f"CREATE OR REPLACE TABLE events AS SELECT * FROM read_csv('{batch}')")
    c.close()
    subprocess.run([ref, "run", "m.strata", "-o", "ref.duckdb"], check=True, capture_output=True)
c = duckdb.connect("ref.duckdb")
print(json.dumps([["|".join(str(v) for v in r) for r in c.execute(f"SELECT * FROM v_{m} ORDER BY ALL").fetchall()] for m in models]))
"#;
    let o = Command::new(&python)
        .args([
            "-c",
            script,
            &reference.display().to_string(),
            &models.join(","),
        ])
        .current_dir(dir)
        .output()
        .expect("run strata-lang");
    assert!(o.status.success(), "strata-lang failed:\n{}", text(&o));
    Some(serde_json::from_slice(&o.stdout).expect("rows as json"))
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

/// A warehouse whose run history predates the `sampling` column: opening
/// it adds the column, and the old runs still list and replay as exact.
fn a_warehouse_from_before_sampling_is_upgraded(kind: Kind) {
    let dir = seed_dir("upgrade");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    let args = ENRICHED_FROM_CSV;
    assert_exit(&wh.strata(&[&["run"][..], &args[..]].concat()), 0);
    {
        let wh = wh.open();
        wh.exec("ALTER TABLE _strata_runs DROP COLUMN sampling")
            .expect("drop column");
    }
    assert_exit(&wh.strata(&[&["run"][..], &args[..]].concat()), 0);
    let list = wh.strata(&["replay", "orders.strata", "-o", "wh.duckdb"]);
    assert_exit(&list, 0);
    assert_eq!(text(&list).lines().count(), 2, "{}", text(&list));
    assert_eq!(
        wh.query("SELECT COUNT(*), COUNT(sampling) FROM _strata_runs"),
        ["2|0"]
    );
}

/// A run recorded by a strata from before fingerprint v2 (16 hex digits per
/// model): `replay --execute` says the fingerprint format changed, and not
/// that the model changed; with a fingerprint of the current format, a
/// model edited since the run is reported as changed.
fn a_run_with_old_format_fingerprints_replays_as_a_format_change(kind: Kind) {
    let dir = seed_dir("old-fingerprints");
    let Some(wh) = Wh::new(kind, &dir) else {
        return;
    };
    // `owner:` changes the fingerprint, not the rows.
    write(
        &dir,
        "edited.strata",
        &SEED.replace(
            "model enriched {\n  from orders",
            "model enriched {\n  owner: \"sales\"\n  from orders",
        ),
    );
    let args = ENRICHED_FROM_CSV;
    assert_exit(&wh.strata(&[&["run"][..], &args[..]].concat()), 0);
    let id = wh
        .query("SELECT run_id FROM _strata_runs")
        .pop()
        .expect("a recorded run");
    let replay = |file: &str, format: &str| {
        wh.strata(&[
            "replay",
            file,
            &id,
            "--execute",
            "-o",
            "wh.duckdb",
            "--format",
            format,
        ])
    };
    let format_note = "note: model enriched: fingerprint format changed since the run";
    let changed_note = "note: model enriched changed since the run (fingerprint differs)";

    // The model edited since the run: changed.
    let edited = replay("edited.strata", "human");
    assert_exit(&edited, 0);
    assert!(text(&edited).contains(changed_note), "{}", text(&edited));
    assert!(!text(&edited).contains(format_note), "{}", text(&edited));

    // The run as an older strata recorded it.
    {
        let wh = wh.open();
        wh.exec(r#"UPDATE _strata_runs SET fingerprints = '{"enriched":"6088cd087778d30e"}'"#)
            .expect("old fingerprints");
    }
    for file in ["orders.strata", "edited.strata"] {
        let o = replay(file, "human");
        assert_exit(&o, 0);
        let out = text(&o);
        assert!(out.contains(format_note), "{file}: {out}");
        assert!(!out.contains(changed_note), "{file}: {out}");
        assert!(
            out.contains("outputs equal the recorded snapshots"),
            "{file}: {out}"
        );
    }
    let json = replay("orders.strata", "json");
    assert_exit(&json, 0);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(v["changed_models"], serde_json::json!([]), "{v}");
    assert_eq!(
        v["fingerprint_format_changed"],
        serde_json::json!(["enriched"]),
        "{v}"
    );
    // `replay RUN_ID` still shows what was recorded.
    let show = wh.strata(&["replay", "orders.strata", &id, "-o", "wh.duckdb"]);
    assert_exit(&show, 0);
    assert!(
        text(&show).contains("model      enriched  fingerprint 6088cd087778d30e"),
        "{}",
        text(&show)
    );
}

/// TLS as libpq's `sslmode` says, against a server that admits `TLS_USER`
/// over TLS only: `disable` is refused by the server, `prefer` and
/// `require` encrypt, `verify-ca` checks the chain, `verify-full` the chain
/// and the host name; a wrong name, an unknown issuer or a missing root file
/// is exit 4 with one line.
#[test]
fn postgres_over_tls_with_every_sslmode() {
    let dir = seed_dir("pg-tls");
    let Some(wh) = Wh::new(Kind::Postgres, &dir) else {
        return;
    };
    let Some(server) = pg::pg() else { return };
    let schema = wh
        .arg
        .split("schema=")
        .nth(1)
        .and_then(|s| s.split('&').next())
        .expect("schema");
    let ca = server.ca.display().to_string();
    let url = |host: &str, rest: &str| {
        format!(
            "postgres://{}:{}@{host}:{}/postgres?schema={schema}{rest}",
            pg::TLS_USER,
            pg::PASSWORD,
            server.port
        )
    };
    let cases: Vec<(String, i32, &str)> = vec![
        (url("127.0.0.1", "&sslmode=disable"), 4, "no encryption"),
        (url("127.0.0.1", ""), 0, ""),
        (url("127.0.0.1", "&sslmode=require"), 0, ""),
        (
            url("127.0.0.1", &format!("&sslmode=verify-ca&sslrootcert={ca}")),
            0,
            "",
        ),
        (
            url(
                "localhost",
                &format!("&sslmode=verify-full&sslrootcert={ca}"),
            ),
            0,
            "",
        ),
        (
            url(
                "127.0.0.1",
                &format!("&sslmode=verify-full&sslrootcert={ca}"),
            ),
            4,
            "certificate",
        ),
        (
            url("localhost", "&sslmode=verify-full"),
            4,
            "name the server's CA with sslrootcert=",
        ),
        (
            url(
                "localhost",
                "&sslmode=verify-ca&sslrootcert=/nonexistent/ca.pem",
            ),
            4,
            "cannot read sslrootcert /nonexistent/ca.pem",
        ),
    ];
    for (target, code, expected) in &cases {
        let mut args = [&["run"][..], &ENRICHED_FROM_CSV[..]].concat();
        args[4] = target;
        let o = wh.strata(&args);
        let out = text(&o);
        assert_eq!(o.status.code(), Some(*code), "{target}: {out}");
        assert!(out.contains(expected), "{target}: {out}");
        if *code == 4 {
            assert_eq!(out.trim().lines().count(), 1, "{target}: one line: {out}");
        }
    }
    assert_eq!(wh.query("SELECT COUNT(*) FROM v_enriched"), ["4"]);
}

/// The server goes away in the middle of a run (its backend is terminated
/// while the run waits just before COMMIT): exit 4 with the database's
/// message, and the previous run's data still live.
#[test]
fn a_server_that_goes_away_mid_run_fails_with_exit_4_and_publishes_nothing() {
    let dir = seed_dir("pg-gone");
    let Some(wh) = Wh::new(Kind::Postgres, &dir) else {
        return;
    };
    let Some(server) = pg::pg() else { return };
    let first = wh.strata(&[&["run"][..], &ENRICHED_FROM_CSV[..]].concat());
    assert_exit(&first, 0);
    let before = wh.query("SELECT * FROM v_enriched ORDER BY order_id");
    let app = format!("strata_gone_{}", std::process::id());
    let url = format!("{}&application_name={app}", wh.arg);
    let mut args = [&["run"][..], &ENRICHED_FROM_CSV[..]].concat();
    args[4] = &url;
    // A different customers file: a new run, not the same run again.
    write(
        &dir,
        "customers2.csv",
        "customer_id,country\n10,PT\n20,FR\n30,DE\n",
    );
    args[8] = "customers=customers2.csv";
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(&args)
        .current_dir(&dir)
        .env("STRATA_FAILPOINT_BEFORE_COMMIT_MS", "5000")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stderr = child.stderr.take().expect("stderr");
    let seen = read_until_failpoint(&mut stderr);
    let killed = server
        .psql(
            "public",
            &format!("SELECT COUNT(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = '{app}';"),
        )
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(killed.contains('1'), "{killed}");
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("stderr");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(4), "{seen}{rest}");
    assert!(
        rest.contains("terminat") || rest.contains("connection"),
        "the database's reason is given: {rest}"
    );
    assert!(!rest.contains("panicked"), "{rest}");
    assert!(!rest.contains(pg::PASSWORD), "{rest}");
    assert_eq!(
        wh.query("SELECT * FROM v_enriched ORDER BY order_id"),
        before
    );
    assert_eq!(wh.query("SELECT COUNT(*) FROM _strata_runs"), ["1"]);
}

/// What a user gets wrong about a PostgreSQL warehouse: each is one clear
/// line with its exit code, and the password is never shown — not in the
/// messages, not in `--format json`, not in the run history.
#[test]
fn bad_postgres_warehouses_fail_with_one_line_and_never_show_the_password() {
    let dir = seed_dir("pg-bad");
    let Some(wh) = Wh::new(Kind::Postgres, &dir) else {
        return;
    };
    let Some(server) = pg::pg() else { return };
    let url = |user: &str, db: &str, rest: &str| {
        format!(
            "postgres://{user}@127.0.0.1:{}/{db}?sslmode=disable{rest}",
            server.port
        )
    };
    let good = format!("postgres:{}", pg::PASSWORD);
    let cases: [(String, i32, &str); 5] = [
        (
            url("postgres:wrong-pw", "postgres", ""),
            4,
            "password authentication failed for user \"postgres\"",
        ),
        (
            url(&good, "postgres", "&schema=no_such_schema"),
            4,
            "schema 'no_such_schema' does not exist in postgres://postgres@127.0.0.1:",
        ),
        (url(&good, "no_such_db", ""), 4, "database \"no_such_db\" does not exist"),
        (
            format!("postgres://postgres:{}@127.0.0.1:1/postgres", pg::PASSWORD),
            4,
            "cannot connect to postgres://postgres@127.0.0.1:1/postgres?schema=public: error connecting to server",
        ),
        (
            format!("mysql://postgres:{}@127.0.0.1:1/db", pg::PASSWORD),
            2,
            "the warehouse URL has the scheme 'mysql://', which strata cannot open",
        ),
    ];
    for (target, code, expected) in &cases {
        for format in ["human", "json"] {
            let o = wh.strata(&[
                "run",
                "orders.strata",
                "-o",
                target,
                "--format",
                format,
                "--source",
                "orders=orders.csv",
                "--source",
                "customers=customers.csv",
            ]);
            assert_exit(&o, *code);
            assert!(
                text(&o).contains(expected),
                "{target}: {expected}\n{}",
                text(&o)
            );
        }
    }
    // A table the role cannot read.
    server
        .psql(
            "public",
            "CREATE ROLE reader LOGIN PASSWORD 'reader-pw'; \
             CREATE TABLE public.secret_customers (customer_id BIGINT, country TEXT); \
             REVOKE ALL ON public.secret_customers FROM PUBLIC;",
        )
        .unwrap_or_else(|e| panic!("{e}"));
    let o = wh.strata(&[
        "run",
        "orders.strata",
        "enriched",
        "-o",
        &url("reader:reader-pw", "postgres", "&schema=public"),
        "--source",
        "orders=orders.csv",
        "--source",
        "customers=secret_customers",
    ]);
    assert_exit(&o, 4);
    assert!(text(&o).contains("permission denied"), "{}", text(&o));
    assert!(!text(&o).contains("reader-pw"), "{}", text(&o));
    // A good run, then the history holds no password either.
    let ok = wh.strata(&[&["run"][..], &ENRICHED_FROM_CSV[..]].concat());
    assert_exit(&ok, 0);
    let history = wh.query("SELECT * FROM _strata_runs").join("\n");
    assert!(
        !history.is_empty() && !history.contains(pg::PASSWORD),
        "{history}"
    );
    // The password from the environment, as --target's password-env says.
    write(
        &dir,
        "strata.toml",
        &format!(
            "[targets.prod]\nurl = \"{}\"\npassword-env = \"STRATA_TEST_PW\"\n",
            wh.arg.replace(&format!(":{}@", pg::PASSWORD), "@")
        ),
    );
    let with_env = |pw: Option<&str>| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_strata"));
        c.args(["replay", "orders.strata", "--target", "prod"])
            .current_dir(&dir)
            .env("NO_COLOR", "1")
            .env_remove("PGPASSWORD");
        match pw {
            Some(pw) => c.env("STRATA_TEST_PW", pw),
            None => c.env_remove("STRATA_TEST_PW"),
        };
        c.output().expect("run strata")
    };
    let listed = with_env(Some(pg::PASSWORD));
    assert_exit(&listed, 0);
    assert_eq!(text(&listed).lines().count(), 1, "{}", text(&listed));
    let unset = with_env(None);
    assert_exit(&unset, 4);
    assert!(
        text(&unset).contains("the target's password-env names $STRATA_TEST_PW, which is not set"),
        "{}",
        text(&unset)
    );
}

/// The same module publishes the same rows on DuckDB, PostgreSQL and Spark:
/// every model of the shop example, compared cell by cell (numbers as
/// numbers: DuckDB prints 5.0 where PostgreSQL prints 5).
#[test]
fn every_engine_publishes_the_same_rows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/shop");
    let module = root.join("shop.strata").display().to_string();
    let mut published = Vec::new();
    for kind in [Kind::DuckDb, Kind::Postgres, Kind::Spark] {
        let dir = workdir("same-rows");
        let Some(wh) = Wh::new(kind, &dir) else {
            return;
        };
        let o = wh.strata(&["run", &module, "--pipeline", "local", "-o", "wh.duckdb"]);
        assert_exit(&o, 0);
        let views: Vec<String> = text(&o)
            .lines()
            .filter_map(|l| l.trim().strip_prefix("materialized  "))
            .filter_map(|l| l.split_whitespace().next())
            .map(str::to_string)
            .collect();
        assert!(views.len() >= 3, "{}", text(&o));
        let rows: Vec<(String, Vec<String>)> = views
            .iter()
            .map(|v| {
                let mut rows: Vec<String> = wh
                    .query(&format!("SELECT * FROM {}", wh.ident(v)))
                    .into_iter()
                    .map(|r| {
                        r.split('|')
                            .map(|c| c.parse::<f64>().map_or(c.to_string(), |f| f.to_string()))
                            .collect::<Vec<_>>()
                            .join("|")
                    })
                    .collect();
                rows.sort();
                (v.clone(), rows)
            })
            .collect();
        published.push(rows);
    }
    assert_eq!(published[0], published[1], "DuckDB and PostgreSQL");
    assert_eq!(published[0], published[2], "DuckDB and Spark");
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
        Warehouse::open(":memory:", Duration::ZERO)
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
    assert_exit(
        &wh.strata(&[
            "gc",
            "-o",
            "wh.duckdb",
            "--keep",
            "1",
            "--keep-days",
            "0",
            "--apply",
        ]),
        0,
    );
    if kind == Kind::DuckDb {
        assert_eq!(stored().len(), 2, "{:?}", stored());
    }
    let replay = |id: &str| wh.strata(&["replay", "m.strata", id, "--execute", "-o", "wh.duckdb"]);
    assert_exit(&replay(&second_id), 0);
    // The first run's customers copy was collected.
    assert_exit(&replay(&first_id), 4);
}

/// A TCP proxy to the Spark Connect server that can cut every connection
/// at once: the server, as the client sees it, dies.
struct CuttingProxy {
    port: u16,
    streams: std::sync::Arc<std::sync::Mutex<Vec<std::net::TcpStream>>>,
    cut: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl CuttingProxy {
    fn to(target_port: u16) -> CuttingProxy {
        use std::net::{Shutdown, TcpListener, TcpStream};
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let streams = std::sync::Arc::new(std::sync::Mutex::new(Vec::<TcpStream>::new()));
        let cut = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (s, c) = (streams.clone(), cut.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if c.load(Ordering::SeqCst) {
                    let _ = client.shutdown(Shutdown::Both);
                    continue;
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", target_port)) else {
                    continue;
                };
                let pipe = |mut from: TcpStream, mut to: TcpStream| {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Both);
                    });
                };
                if let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) {
                    s.lock().expect("lock").extend([c2, s2]);
                    pipe(
                        client.try_clone().expect("clone"),
                        server.try_clone().expect("clone"),
                    );
                    pipe(server, client);
                }
            }
        });
        CuttingProxy { port, streams, cut }
    }

    fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for s in self.streams.lock().expect("lock").drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
    }
}

/// What can go wrong between strata and a Spark Connect server: each is
/// exit 4 with one clear line, the token is never shown, and nothing is
/// repointed.
#[test]
fn bad_spark_warehouses_fail_with_exit_4_and_publish_nothing() {
    let dir = seed_dir("spark-bad");
    let Some(wh) = Wh::new(Kind::Spark, &dir) else {
        return;
    };
    let Some(server) = spark::spark() else { return };
    let run_on = |url: &str| {
        let mut args = [&["run"][..], &ENRICHED_FROM_CSV[..]].concat();
        args[4] = url;
        strata(&dir, &args)
    };
    let secrets_hidden = |out: &str| {
        assert!(!out.contains(spark::TOKEN), "the token was printed: {out}");
        assert!(
            !out.contains("not-the-token"),
            "the token was printed: {out}"
        );
        assert!(!out.contains("panicked"), "{out}");
    };

    // No server at the address.
    let free = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("port");
    let o = run_on(&format!("sc://127.0.0.1:{free}/?schema=x"));
    assert_exit(&o, 4);
    assert!(
        text(&o).contains(&format!(
            "cannot connect to sc://127.0.0.1:{free}/?schema=x"
        )),
        "{}",
        text(&o)
    );

    // A token the server refuses.
    let refused = wh.arg.replace(spark::TOKEN, "not-the-token");
    let o = run_on(&refused);
    assert_exit(&o, 4);
    assert!(text(&o).contains("refused the credentials"), "{}", text(&o));
    secrets_hidden(&text(&o));

    // A first run publishes; what follows must leave it live.
    assert_exit(
        &wh.strata(&[&["run"][..], &ENRICHED_FROM_CSV[..]].concat()),
        0,
    );
    let before = wh.query("SELECT * FROM v_enriched ORDER BY order_id");

    // A query Spark rejects: its error class is in the message.
    let admin = wh.open();
    admin
        .exec(
            "CREATE TABLE gone AS SELECT CAST(10 AS BIGINT) AS customer_id, 'ES' AS country; \
             CREATE VIEW customers AS SELECT * FROM gone; DROP TABLE gone; \
             CREATE TABLE orders AS SELECT CAST(1 AS BIGINT) AS order_id, CAST(10 AS BIGINT) AS customer_id, CAST(5.0 AS DOUBLE) AS amount",
        )
        .expect("setup");
    drop(admin);
    let o = wh.strata(&["run", "orders.strata", "enriched", "-o", "wh.duckdb"]);
    assert_exit(&o, 4);
    assert!(
        text(&o).contains("[TABLE_OR_VIEW_NOT_FOUND]"),
        "{}",
        text(&o)
    );

    // The server goes away mid-run (after every check, before the first
    // view is repointed).
    let proxy = CuttingProxy::to(server.port);
    let through = wh
        .arg
        .replace(&format!(":{}/", server.port), &format!(":{}/", proxy.port));
    write(
        &dir,
        "customers2.csv",
        "customer_id,country\n10,PT\n20,FR\n30,DE\n",
    );
    let mut args = [&["run"][..], &ENRICHED_FROM_CSV[..]].concat();
    args[4] = &through;
    args[8] = "customers=customers2.csv";
    let mut child = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(&args)
        .current_dir(&dir)
        .env("STRATA_FAILPOINT_BEFORE_PUBLISH_MS", "3000")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stderr = child.stderr.take().expect("stderr");
    let seen = read_until_failpoint(&mut stderr);
    proxy.cut();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("stderr");
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(4), "{seen}{rest}");
    assert!(
        rest.contains("the server stopped answering"),
        "the reason is given: {rest}"
    );
    secrets_hidden(&rest);
    assert_eq!(
        wh.query("SELECT * FROM v_enriched ORDER BY order_id"),
        before
    );
    assert_eq!(wh.query("SELECT COUNT(*) FROM _strata_runs"), ["1"]);
}

/// Spark Connect behind TLS, as a cluster's ingress serves it (nginx in
/// front of the test server): a token turns TLS on, the certificate is
/// verified against the trusted roots (the test CA, from `$SSL_CERT_FILE`)
/// and the run publishes; a certificate nothing trusts, and a client that
/// does not speak TLS to it, are each exit 4 with one line, the token
/// unshown.
#[test]
fn spark_behind_tls_verifies_the_certificate() {
    let dir = seed_dir("spark-tls");
    let Some(server) = spark::spark() else { return };
    let Some(proxy) = spark::TlsProxy::start(server.port) else {
        return;
    };
    let db = server.database("tls");
    let url = |options: &str| {
        format!(
            "sc://localhost:{}/;token={}{options}?schema={db}",
            proxy.port,
            spark::TOKEN
        )
    };
    let run_on = |url: &str, trusted: Option<&Path>| {
        let mut args = [&["run"][..], &ENRICHED_FROM_CSV[..]].concat();
        args[4] = url;
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_strata"));
        cmd.args(&args)
            .current_dir(&dir)
            .env_remove("SSL_CERT_FILE")
            .env_remove("SSL_CERT_DIR");
        if let Some(ca) = trusted {
            cmd.env("SSL_CERT_FILE", ca);
        }
        let o = cmd.output().expect("run strata");
        assert!(
            !text(&o).contains(spark::TOKEN),
            "the token was printed: {}",
            text(&o)
        );
        assert!(!text(&o).contains("panicked"), "{}", text(&o));
        o
    };
    let o = run_on(&url(""), Some(&proxy.ca));
    assert_exit(&o, 0);
    assert!(
        text(&o).contains("materialized  v_enriched"),
        "{}",
        text(&o)
    );

    // The system's roots do not know the test CA.
    let o = run_on(&url(""), None);
    assert_exit(&o, 4);
    assert!(
        text(&o).contains("certificate is not trusted"),
        "{}",
        text(&o)
    );
    assert_eq!(text(&o).trim().lines().count(), 1, "{}", text(&o));

    // Plain text to a TLS port.
    let o = run_on(&url(";use_ssl=false"), Some(&proxy.ca));
    assert_exit(&o, 4);
    assert!(text(&o).contains("add ;use_ssl=true"), "{}", text(&o));
    assert_eq!(text(&o).trim().lines().count(), 1, "{}", text(&o));
}

/// Spark's content hash adds up the rows' 64-bit hashes in three BIGINT
/// pieces (a DECIMAL sum row by row is slower): the same number as the
/// plain DECIMAL sum, over hashes of both signs, and 0 over no rows.
#[test]
fn the_spark_hash_sum_is_the_exact_sum_of_the_row_hashes() {
    let dir = workdir("spark-hash-sum");
    let Some(wh) = Wh::new(Kind::Spark, &dir) else {
        return;
    };
    let engine = wh.open();
    for filter in ["", " WHERE id < 0"] {
        let rows =
            format!("(SELECT id, CAST(id * 7 AS STRING) AS s FROM range(20000){filter}) AS t");
        let ours = wh.query(&format!(
            "SELECT CAST({} AS STRING) FROM {rows}",
            engine.hash_sum("t")
        ));
        let plain = wh.query(&format!(
            "SELECT CAST(COALESCE(SUM(CAST(xxhash64(t.*) AS DECIMAL(38,0))), 0) AS STRING) FROM {rows}"
        ));
        assert_eq!(ours, plain, "{filter}");
        assert_eq!(ours.len(), 1);
    }
}
