//! A throw-away PostgreSQL server for the tests that need one: initdb and
//! pg_ctl on a free port (as the `postgres` user when the tests run as
//! root), `fsync=off`, started once per test program and stopped by a
//! watchdog when the program ends. Included with `#[path =
//! "support/pg.rs"] mod pg;` next to `support/tools.rs`.

#![allow(dead_code)]

use std::fs;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use super::tools::unavailable;

/// The password of the `postgres` user over TCP (and of `TLS_USER`).
pub const PASSWORD: &str = "s3cret-Pg-pw";

/// A superuser the server admits over TLS only (`hostssl`; `hostnossl` is
/// rejected): a connection of it that works was encrypted.
pub const TLS_USER: &str = "tlsonly";

pub struct Pg {
    bin: PathBuf,
    /// The socket directory.
    pub dir: PathBuf,
    pub port: u16,
    /// Run server binaries through `runuser -u postgres --` (we are root).
    as_postgres: bool,
    /// The test CA that signed the server's certificate (for
    /// `CN=localhost`, `subjectAltName=DNS:localhost`).
    pub ca: PathBuf,
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The newest `/usr/lib/postgresql/<version>/bin` with an initdb.
fn pg_bin() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("STRATA_PG_BIN") {
        return Some(PathBuf::from(dir));
    }
    let mut found: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .flatten()
        .filter_map(|e| {
            let version = e.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = e.path().join("bin");
            bin.join("initdb").exists().then_some((version, bin))
        })
        .collect();
    found.sort();
    found.pop().map(|(_, bin)| bin)
}

impl Pg {
    fn server_cmd(&self, tool: &str) -> Command {
        let exe = self.bin.join(tool);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(exe);
            c
        } else {
            Command::new(exe)
        }
    }

    fn start() -> Result<Pg, String> {
        let bin =
            pg_bin().ok_or("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)")?;
        let as_postgres = is_root();
        let dir = std::env::temp_dir().join(format!("strata-pg-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let mut pg = Pg {
            ca: dir.join("ca.pem"),
            bin,
            dir,
            port: 0,
            as_postgres,
        };
        if as_postgres {
            run(Command::new("chown").arg("postgres:").arg(&pg.dir))
                .map_err(|e| format!("root needs the `postgres` user to run PostgreSQL: {e}"))?;
        }
        let data = pg.dir.join("data");
        run(pg.server_cmd("initdb").arg("-D").arg(&data).args([
            // Through the socket (psql of the tests) no password; over TCP
            // (strata) the password, as a real server asks.
            "--auth-local=trust",
            "--auth-host=scram-sha-256",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        ]))?;
        pg.watchdog();
        pg.tls(&data)?;
        let mut last = String::new();
        for _ in 0..3 {
            pg.port = free_port()?;
            let opts = format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off",
                pg.port,
                pg.dir.display()
            );
            let started = run(pg
                .server_cmd("pg_ctl")
                .arg("-D")
                .arg(&data)
                .arg("-o")
                .arg(&opts)
                .arg("-l")
                .arg(pg.dir.join("server.log"))
                .args(["-w", "-t", "60", "start"]));
            match started {
                Ok(_) => {
                    pg.psql(
                        "public",
                        &format!(
                            "ALTER USER postgres PASSWORD '{PASSWORD}'; \
                             CREATE ROLE {TLS_USER} LOGIN SUPERUSER PASSWORD '{PASSWORD}';"
                        ),
                    )?;
                    return Ok(pg);
                }
                Err(e) => last = e,
            }
        }
        Err(format!(
            "PostgreSQL did not start: {last}\n{}",
            fs::read_to_string(pg.dir.join("server.log")).unwrap_or_default()
        ))
    }

    /// A test CA and a server certificate signed by it (openssl, P-256),
    /// TLS on, and `TLS_USER` admitted over TLS only.
    fn tls(&self, data: &std::path::Path) -> Result<(), String> {
        let d = &self.dir;
        super::tools::test_certificates(d)?;
        let key = d.join("server.key");
        if self.as_postgres {
            run(Command::new("chown")
                .arg("postgres:")
                .arg(&key)
                .arg(d.join("server.crt")))?;
        }
        run(Command::new("chmod").arg("600").arg(&key))?;
        let append = |file: &str, text: String, first: bool| -> Result<(), String> {
            let path = data.join(file);
            let old = fs::read_to_string(&path).map_err(|e| format!("{file}: {e}"))?;
            let new = if first { text + &old } else { old + &text };
            fs::write(&path, new).map_err(|e| format!("{file}: {e}"))
        };
        append(
            "postgresql.conf",
            format!(
                "\nssl = on\nssl_cert_file = '{}'\nssl_key_file = '{}'\n",
                d.join("server.crt").display(),
                key.display()
            ),
            false,
        )?;
        append(
            "pg_hba.conf",
            format!(
                "hostnossl all {TLS_USER} 127.0.0.1/32 reject\nhostssl all {TLS_USER} 127.0.0.1/32 scram-sha-256\n"
            ),
            true,
        )
    }

    /// Stop the server and remove its directory once this process ends.
    fn watchdog(&self) {
        let data = self.dir.join("data");
        let stop = format!(
            "{} {} -D '{}' -m immediate stop",
            if self.as_postgres {
                "runuser -u postgres --"
            } else {
                ""
            },
            self.bin.join("pg_ctl").display(),
            data.display()
        );
        let script = format!(
            "while kill -0 {pid} 2>/dev/null; do sleep 1; done; {stop} >/dev/null 2>&1; rm -rf '{dir}'",
            pid = std::process::id(),
            dir = self.dir.display()
        );
        let _ = Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn();
    }

    /// Run SQL through psql (`-At -F '|'`) in the test database with
    /// `schema` first on the search path, stopping at the first error.
    pub fn psql(&self, schema: &str, sql: &str) -> Result<String, String> {
        let mut child = Command::new("psql")
            .args([
                "-X",
                "-q",
                "-v",
                "ON_ERROR_STOP=1",
                "-At",
                "-F",
                "|",
                "-U",
                "postgres",
            ])
            .arg("-h")
            .arg(&self.dir)
            .arg("-p")
            .arg(self.port.to_string())
            .args(["-d", "postgres"])
            .env("PGOPTIONS", format!("-c search_path={schema}"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot run psql: {e}"))?;
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            stdin
                .write_all(sql.as_bytes())
                .map_err(|e| format!("psql stdin: {e}"))?;
        }
        let out = child.wait_with_output().map_err(|e| format!("psql: {e}"))?;
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        if out.status.success() {
            Ok(stdout)
        } else {
            // The last `\echo @@ <what>` marker names the failing statement.
            let at = stdout
                .lines()
                .rev()
                .find_map(|l| l.strip_prefix("@@ "))
                .map(|what| format!("{what}: "))
                .unwrap_or_default();
            Err(format!(
                "{at}{}",
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }

    /// A fresh schema name (one per program or fixture).
    pub fn schema_name(&self, name: &str) -> String {
        format!("{name}_{}", SCHEMAS.fetch_add(1, Ordering::Relaxed))
    }
}

static SCHEMAS: AtomicUsize = AtomicUsize::new(0);

fn run(cmd: &mut Command) -> Result<String, String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(format!(
            "{cmd:?} exited {}: {}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

/// The shared server, started by the first test that needs it; `None` (after
/// a skip message) when PostgreSQL is missing outside CI.
pub fn pg() -> Option<&'static Pg> {
    static PG: OnceLock<Result<Pg, String>> = OnceLock::new();
    match PG.get_or_init(Pg::start) {
        Ok(pg) => Some(pg),
        Err(e) if e.starts_with("PostgreSQL is not installed") => {
            unavailable(e);
            None
        }
        Err(e) => panic!("{e}"),
    }
}
