//! What differs by engine end to end: PostgreSQL over TLS, bad warehouse
//! URLs, a server that goes away mid-run, Spark behind TLS, and every
//! engine publishing the same rows.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::Ordering;

use crate::support::*;
use crate::{pg, spark};

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
