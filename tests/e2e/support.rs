//! What every end-to-end test shares: the engines and the macros that run
//! a test on each, the warehouse of one test ([`Wh`]), running `strata`,
//! and the seed example's data.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use strata_engine::Warehouse;

use crate::{pg, spark};

/// The engines every test runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    DuckDb,
    Postgres,
    Spark,
}

/// `mod <test> { duckdb, postgres, spark }`: each test function, once per
/// engine.
#[macro_export]
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
#[macro_export]
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

/// The warehouse of one test, in its directory: the file `wh.duckdb`, or a
/// fresh schema of the shared PostgreSQL server.
pub struct Wh {
    pub kind: Kind,
    pub dir: PathBuf,
    /// What `-o` names.
    pub arg: String,
}

/// `gc --keep 1 --keep-days 0 --apply`: only the last run of each branch
/// is kept.
pub const GC_KEEP_LAST_RUN: [&str; 8] = [
    "gc",
    "-o",
    "wh.duckdb",
    "--keep",
    "1",
    "--keep-days",
    "0",
    "--apply",
];

impl Wh {
    /// `None` (after a skip message; a failure under CI) when the engine's
    /// server is not installed.
    pub fn new(kind: Kind, dir: &Path) -> Option<Wh> {
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
    pub fn args<'a>(&'a self, args: &[&'a str]) -> Vec<&'a str> {
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
    pub fn strata(&self, args: &[&str]) -> Output {
        let o = strata(&self.dir, &self.args(args));
        assert!(
            !text(&o).contains(pg::PASSWORD) && !text(&o).contains(spark::TOKEN),
            "a secret was printed:\n{}",
            text(&o)
        );
        o
    }

    /// [`GC_KEEP_LAST_RUN`]. It must succeed; its output.
    pub fn gc_keep_last_run(&self) -> String {
        let o = self.strata(&GC_KEEP_LAST_RUN);
        assert_exit(&o, 0);
        text(&o)
    }

    /// Where the warehouse is, as `Target::parse` reads it.
    pub fn at(&self) -> String {
        match self.kind {
            Kind::DuckDb => self.dir.join(&self.arg).display().to_string(),
            Kind::Postgres | Kind::Spark => self.arg.clone(),
        }
    }

    pub fn open(&self) -> Box<Warehouse> {
        let target = strata_engine::Target::parse(&self.at(), None).expect("target");
        strata_lifecycle::state::open(&target, Duration::from_secs(10)).expect("open warehouse")
    }

    /// Rows of a query as `|`-joined text, in query order, read as a
    /// reader does (no writer lock: a killed writer's lock may still be
    /// there).
    pub fn query(&self, sql: &str) -> Vec<String> {
        let target = strata_engine::Target::parse(&self.at(), None).expect("target");
        strata_engine::open_read_only(&target, Duration::from_secs(10))
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
    pub fn ident(&self, name: &str) -> String {
        let dialect = match self.kind {
            Kind::DuckDb => strata_lang::sql::Dialect::DuckDb,
            Kind::Postgres => strata_lang::sql::Dialect::Postgres,
            Kind::Spark => strata_lang::sql::Dialect::Spark,
        };
        dialect.ident(name)
    }

    /// A DuckDB type name as this engine names it.
    pub fn type_name(&self, duckdb: &str) -> String {
        match (self.kind, duckdb) {
            (Kind::Postgres, "VARCHAR") => "text".into(),
            (Kind::Spark, "VARCHAR") => "string".into(),
            _ => duckdb.into(),
        }
    }
}

pub static DIRS: AtomicUsize = AtomicUsize::new(0);

/// A fresh directory for one test.
pub fn workdir(name: &str) -> PathBuf {
    let n = DIRS.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("strata-e2e-{}-{name}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create test dir");
    dir
}

pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(&p, text).expect("write file");
    p
}

pub fn strata(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run strata")
}

pub fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The report lines of a `run --format json`.
pub fn report_lines(v: &serde_json::Value) -> Vec<&str> {
    v["report"]
        .as_array()
        .expect("report")
        .iter()
        .filter_map(|l| l.as_str())
        .collect()
}

/// The JSON a `--format json` command printed.
#[track_caller]
pub fn json(o: &Output) -> serde_json::Value {
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(o)))
}

#[track_caller]
pub fn assert_exit(o: &Output, code: i32) {
    assert_eq!(o.status.code(), Some(code), "output:\n{}", text(o));
}

/// What a child printed on `stderr` until it reached a failpoint (asserted).
pub fn read_until_failpoint(stderr: &mut impl std::io::Read) -> String {
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
pub fn kill_at_failpoint(wh: &Wh, point: &str, args: &[&str]) {
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

pub const SEED: &str = include_str!("../../examples/seed/orders.strata");

pub const ORDERS: &str = "order_id,customer_id,amount\n1,10,5.0\n2,10,7.5\n3,20,1.0\n4,,2.0\n";

pub const CUSTOMERS: &str = "customer_id,country\n10,ES\n20,FR\n30,DE\n";

/// `enriched` of the seed, from the CSV files of [`seed_dir`], into
/// `wh.duckdb` (the customers file last).
pub const ENRICHED_FROM_CSV: [&str; 8] = [
    "orders.strata",
    "enriched",
    "-o",
    "wh.duckdb",
    "--source",
    "orders=orders.csv",
    "--source",
    "customers=customers.csv",
];

pub const CUSTOMERS_DUP: &str = "customer_id,country\n10,ES\n10,PT\n10,IT\n20,FR\n20,BE\n30,DE\n";

pub fn seed_dir(name: &str) -> PathBuf {
    let dir = workdir(name);
    write(&dir, "orders.strata", SEED);
    write(&dir, "orders.csv", ORDERS);
    write(&dir, "customers.csv", CUSTOMERS);
    write(&dir, "customers_dup.csv", CUSTOMERS_DUP);
    dir
}
