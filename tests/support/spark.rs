//! A throw-away Spark Connect server for the tests that need one: PySpark's
//! `sbin/start-connect-server.sh` (`--master local[2]`, the Hive catalog
//! with its Derby metastore and warehouse in a temporary directory, two
//! shuffle partitions, bound to 127.0.0.1, a bearer token required),
//! started once per test program and stopped by a watchdog when the program
//! ends. Included with `#[path = "support/spark.rs"] mod spark;` next to
//! `support/tools.rs`.
//!
//! PySpark is found at `$STRATA_SPARK_HOME`, else in the virtualenv
//! `.ci/run` installs it into (`~/.cache/strata-spark`).

#![allow(dead_code)]

use std::fs;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::tools::unavailable;

/// The bearer token the server asks of every client.
pub const TOKEN: &str = "spark-t0ken-for-tests";

pub struct Spark {
    pub port: u16,
    dir: PathBuf,
}

/// `SPARK_HOME`: a PySpark installation with the Connect server script.
fn spark_home() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("STRATA_SPARK_HOME") {
        return Some(PathBuf::from(dir));
    }
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let lib = Path::new(&home).join(".cache/strata-spark/lib");
    fs::read_dir(lib)
        .ok()?
        .flatten()
        .map(|e| e.path().join("site-packages/pyspark"))
        .find(|p| p.join("sbin/start-connect-server.sh").is_file())
}

impl Spark {
    fn start() -> Result<Spark, String> {
        let home = spark_home().ok_or("PySpark is not installed (no ~/.cache/strata-spark)")?;
        if Command::new("java").arg("-version").output().is_err() {
            return Err("PySpark is not installed: java is not on PATH".into());
        }
        let dir = std::env::temp_dir().join(format!("strata-spark-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .map_err(|e| format!("no free port: {e}"))?;
        let spark = Spark { port, dir };
        spark.watchdog(&home);
        let conf = |kv: String| ["--conf".to_string(), kv];
        let mut args = vec!["--master".to_string(), "local[2]".into()];
        args.extend(["--driver-memory".to_string(), "1g".into()]);
        for kv in [
            "spark.connect.grpc.binding.address=127.0.0.1".to_string(),
            format!("spark.connect.grpc.binding.port={port}"),
            format!("spark.connect.authenticate.token={TOKEN}"),
            "spark.sql.catalogImplementation=hive".into(),
            format!(
                "spark.sql.warehouse.dir={}",
                spark.dir.join("warehouse").display()
            ),
            "spark.sql.shuffle.partitions=2".into(),
            "spark.ui.enabled=false".into(),
        ] {
            args.extend(conf(kv));
        }
        args.extend([
            "--driver-java-options".to_string(),
            format!("-Dderby.system.home={}", spark.dir.display()),
        ]);
        let out = Command::new(home.join("sbin/start-connect-server.sh"))
            .args(&args)
            .current_dir(&spark.dir)
            .env("SPARK_HOME", &home)
            .env("SPARK_LOG_DIR", &spark.dir)
            .env("SPARK_PID_DIR", &spark.dir)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("cannot start the Spark Connect server: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "start-connect-server.sh exited {}: {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let deadline = Instant::now() + Duration::from_secs(180);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err(format!(
                    "the Spark Connect server did not listen on {port} within 180 s:\n{}",
                    spark.log()
                ));
            }
            std::thread::sleep(Duration::from_millis(500));
        }
        Ok(spark)
    }

    /// The server's log (for failures).
    pub fn log(&self) -> String {
        fs::read_dir(&self.dir)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "out"))
            .filter_map(|e| fs::read_to_string(e.path()).ok())
            .collect()
    }

    /// Stop the server (its pid file names the JVM) and remove the
    /// directory once the test program has exited.
    fn watchdog(&self, home: &Path) {
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 1; done; \
             SPARK_HOME='{home}' SPARK_PID_DIR='{dir}' SPARK_LOG_DIR='{dir}' '{home}/sbin/stop-connect-server.sh' >/dev/null 2>&1; \
             for f in '{dir}'/*.pid; do [ -f \"$f\" ] && kill -9 \"$(cat \"$f\")\" 2>/dev/null; done; rm -rf '{dir}'",
            pid = std::process::id(),
            home = home.display(),
            dir = self.dir.display()
        );
        let _ = Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
    }

    /// The URL of database `db` on this server, with the token.
    pub fn url(&self, db: &str) -> String {
        format!(
            "sc://127.0.0.1:{}/;token={TOKEN};use_ssl=false?schema={db}",
            self.port
        )
    }

    /// A new empty database, named `<prefix>_<n>`.
    pub fn database(&self, prefix: &str) -> String {
        static N: AtomicUsize = AtomicUsize::new(0);
        let name = format!("{prefix}_{}", N.fetch_add(1, Ordering::SeqCst));
        let wh = strata_engine::open_read_only(
            &strata_engine::Target::parse(&self.url("default"), None)
                .unwrap_or_else(|e| panic!("{e:?}")),
            Duration::from_secs(1),
        )
        .unwrap_or_else(|e| {
            panic!(
                "cannot reach the Spark Connect server: {e:?}\n{}",
                self.log()
            )
        });
        wh.exec(&format!(
            "DROP DATABASE IF EXISTS `{name}` CASCADE; CREATE DATABASE `{name}`"
        ))
        .unwrap_or_else(|e| panic!("{e:?}"));
        name
    }
}

/// The shared server, started by the first test that needs it; `None`
/// (after a skip message) when PySpark is missing outside CI.
pub fn spark() -> Option<&'static Spark> {
    static SPARK: OnceLock<Result<Spark, String>> = OnceLock::new();
    match SPARK.get_or_init(Spark::start) {
        Ok(s) => Some(s),
        Err(e) if e.starts_with("PySpark is not installed") => {
            unavailable(e);
            None
        }
        Err(e) => panic!("{e}"),
    }
}

/// nginx in front of a Spark Connect server, as a cluster's ingress is:
/// TLS with HTTP/2 (a certificate for `localhost` signed by a test CA),
/// gRPC passed on to the server in plain text. Stopped when dropped.
pub struct TlsProxy {
    pub port: u16,
    /// The CA that signed the proxy's certificate (PEM).
    pub ca: PathBuf,
    nginx: std::process::Child,
    dir: PathBuf,
}

impl TlsProxy {
    /// A proxy to `server_port`; `None` (after a skip message; a failure
    /// under CI) when nginx is not installed.
    pub fn start(server_port: u16) -> Option<TlsProxy> {
        if Command::new("nginx").arg("-v").output().is_err() {
            unavailable("nginx is not installed");
            return None;
        }
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "strata-tls-proxy-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        super::tools::test_certificates(&dir).unwrap_or_else(|e| panic!("{e}"));
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let d = dir.display();
        let temp: String = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"]
            .iter()
            .map(|t| format!("  {t}_temp_path {d}/{t};\n"))
            .collect();
        let conf = format!(
            "daemon off;\nmaster_process off;\npid {d}/nginx.pid;\nerror_log {d}/error.log;\n\
             events {{}}\nhttp {{\n  access_log off;\n{temp}  server {{\n\
             \x20   listen 127.0.0.1:{port} ssl http2;\n\
             \x20   ssl_certificate {d}/server.crt;\n    ssl_certificate_key {d}/server.key;\n\
             \x20   location / {{ grpc_pass grpc://127.0.0.1:{server_port}; grpc_read_timeout 600s; grpc_send_timeout 600s; }}\n\
             \x20 }}\n}}\n"
        );
        fs::write(dir.join("nginx.conf"), conf).expect("nginx.conf");
        let nginx = Command::new("nginx")
            .arg("-c")
            .arg(dir.join("nginx.conf"))
            .arg("-p")
            .arg(&dir)
            .arg("-e")
            .arg(dir.join("error.log"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start nginx");
        let proxy = TlsProxy {
            port,
            ca: dir.join("ca.pem"),
            nginx,
            dir,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                Instant::now() < deadline,
                "nginx did not listen on {port}: {}",
                fs::read_to_string(proxy.dir.join("error.log")).unwrap_or_default()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(proxy)
    }
}

impl Drop for TlsProxy {
    fn drop(&mut self) {
        let _ = self.nginx.kill();
        let _ = self.nginx.wait();
        let _ = fs::remove_dir_all(&self.dir);
    }
}
