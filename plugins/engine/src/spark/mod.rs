//! The Spark engine, through Spark Connect: one session for the whole
//! command, every relation in the target database (`?schema=`), results
//! read as Arrow and shown as text.
//!
//! Spark has no multi-statement transactions, so the lifecycle is ordered
//! for it: every table of a run is built and every check passes before any
//! view is repointed (see `run.rs`). `begin` starts remembering the tables
//! this engine creates; `rollback` drops them (a run that failed leaves
//! every view as it was and no table of its own); `commit` forgets them.
//! Repointing several views is one `CREATE OR REPLACE VIEW` each (sent at
//! once): a reader may see some views already on the new run and others
//! still on the old one while it happens, never a half-built table.
//!
//! The writer lock is a view, `_strata_lock`: `CREATE VIEW` (without `OR
//! REPLACE`) fails for all but one client, across every client of the
//! catalog, and a view has no files to write or delete (a table's create
//! and drop cost a second here). Its properties name the owner and when
//! the lock expires; the
//! holder renews it from a second session while it lives, so a writer that
//! was killed is taken over [`LOCK_TTL`] after its last renewal.

mod connect;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use arrow_array::RecordBatch;
use arrow_cast::display::{ArrayFormatter, FormatOptions};
use strata_lang::sql::Dialect;
use strata_lang::types::Type;

use super::target::SparkTarget;
use super::{DuckDb, Engine, Rows};
use crate::inputs::Origin;
use crate::Failure;
use connect::Session;

/// How long a lock lives without being renewed.
const LOCK_TTL: Duration = Duration::from_secs(45);
/// How long before its expiry a lock this writer took is still taken as
/// surely its own when released (clocks of clients differ a little).
const LOCK_MARGIN: Duration = Duration::from_secs(10);
/// How often the holder renews it.
const LOCK_RENEW: Duration = Duration::from_secs(15);
const LOCK_VIEW: &str = "_strata_lock";

pub struct Spark {
    session: Session,
    shown: String,
    /// Tables created since `begin` (dropped by `rollback`).
    created: RefCell<Option<Vec<String>>>,
    /// The lock this writer holds: its owner text and the renewing thread.
    lock: Option<Lock>,
    /// `$STRATA_SPARK_SQL_LOG`: a file each statement is appended to with
    /// its time (what `bench/spark.py` replays through PySpark).
    sql_log: Option<RefCell<std::fs::File>>,
    /// What this session has read of the catalog (every catalog request is
    /// a round trip and a plan on the server).
    catalog: RefCell<Catalog>,
}

/// The relations of the database and the columns of those described, as
/// read in this session. The writer lock keeps other strata writers out,
/// and every statement this engine runs through [`Engine::exec`] forgets
/// it; the tables and views it creates itself are added as they are made.
#[derive(Default)]
struct Catalog {
    /// Quoted names of the database's tables and views, in lower case
    /// (Spark's catalog is case-insensitive); `None` until first asked.
    relations: Option<HashSet<String>>,
    /// The columns of each relation described, by its SQL text.
    columns: HashMap<String, Vec<(String, String)>>,
}

struct Lock {
    owner: String,
    /// When the lock expires, as last written (seconds since the epoch).
    expires: Arc<AtomicU64>,
    stop: mpsc::Sender<()>,
    renewer: Option<std::thread::JoinHandle<()>>,
}

impl Spark {
    /// Connect, use the database, take the writer lock (waiting up to
    /// `lock_timeout`).
    pub fn open(target: &SparkTarget, lock_timeout: Duration) -> Result<Spark, Failure> {
        let mut spark = Spark::connect(target)?;
        spark.lock(target, lock_timeout)?;
        Ok(spark)
    }

    /// Connect for reading only: no lock is taken, nothing is created.
    pub fn open_read_only(target: &SparkTarget) -> Result<Spark, Failure> {
        Spark::connect(target)
    }

    fn connect(target: &SparkTarget) -> Result<Spark, Failure> {
        let session = Session::connect(target)?;
        let spark = Spark {
            session,
            shown: target.shown.clone(),
            created: RefCell::new(None),
            lock: None,
            catalog: RefCell::default(),
            sql_log: std::env::var_os("STRATA_SPARK_SQL_LOG").and_then(|path| {
                std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(path)
                    .ok()
                    .map(RefCell::new)
            }),
        };
        let use_db = format!("USE {}", spark.ident(&target.schema));
        spark.sql(&use_db).map_err(|e| {
            if e.contains("SCHEMA_NOT_FOUND") {
                Failure::Environment(format!(
                    "database '{}' does not exist in {}; create it (CREATE DATABASE), or name another with ?schema=",
                    target.schema, spark.shown
                ))
            } else {
                spark.failure(&e, &use_db)
            }
        })?;
        Ok(spark)
    }

    /// A failure of `sql`: the server's message (its error class first),
    /// or why the server could not be reached.
    fn failure(&self, error: &str, sql: &str) -> Failure {
        if error.starts_with("the server") {
            Failure::Environment(format!("{}: {error}", self.shown))
        } else {
            super::db_error(error, sql)
        }
    }

    fn batches(&self, sql: &str) -> Result<Vec<RecordBatch>, Failure> {
        self.sql(sql).map_err(|e| self.failure(&e, sql))
    }

    /// Run one statement on the session (written to the SQL log, if any).
    fn sql(&self, sql: &str) -> Result<Vec<RecordBatch>, String> {
        let start = Instant::now();
        let result = self.session.sql(sql);
        self.log(start, sql);
        result
    }

    /// One line of the SQL log per statement: milliseconds since `start`,
    /// then the SQL on one line.
    fn log(&self, start: Instant, sql: &str) {
        if let Some(log) = &self.sql_log {
            use std::io::Write;
            let _ = writeln!(
                log.borrow_mut(),
                "{:.1}\t{}",
                start.elapsed().as_secs_f64() * 1000.0,
                sql.replace('\n', " ")
            );
        }
    }

    /// Run the statements that (re)create `relation` (quoted), keeping
    /// what is known of the catalog.
    fn create(&self, relation: &str, statements: &[String]) -> Result<(), Failure> {
        let made = statements
            .iter()
            .try_for_each(|s| self.batches(s).map(drop));
        self.created(&[relation], made.is_ok());
        made
    }

    /// Keep what is known of the catalog after `relations` (quoted) were
    /// (re)created: they exist, and the columns of them and of the views
    /// that read them are to be described again. After a failure nothing is
    /// known any more.
    fn created(&self, relations: &[&str], ok: bool) {
        let mut catalog = self.catalog.borrow_mut();
        if !ok {
            *catalog = Catalog::default();
            return;
        }
        catalog.columns.clear();
        if let Some(known) = &mut catalog.relations {
            known.extend(relations.iter().map(|r| r.to_ascii_lowercase()));
        }
    }

    /// Take the lock view, or wait for it; an expired lock (its holder
    /// died) is dropped and taken.
    fn lock(&mut self, target: &SparkTarget, timeout: Duration) -> Result<(), Failure> {
        let owner = format!(
            "{} (user {}, pid {}, session {})",
            hostname(),
            target.user_id,
            std::process::id(),
            target.session_id
        );
        let table = self.ident(LOCK_VIEW);
        let start = Instant::now();
        // The expiry of the lock taken, or who holds it after the wait.
        let taken = loop {
            let expires = expiry();
            let create = format!(
                "CREATE VIEW {table} TBLPROPERTIES ('strata.owner' = {}, 'strata.expires' = '{expires}') AS SELECT 1 AS locked",
                self.string(&owner),
            );
            match self.sql(&create) {
                Ok(_) => break Ok(expires),
                Err(e) if e.contains("ALREADY_EXISTS") => {}
                Err(e) => return Err(self.failure(&e, &create)),
            }
            let (holder, expires) = self.lock_properties()?;
            if expires.is_some_and(|t| t < now_secs()) {
                // Whoever held it stopped renewing it.
                self.exec(&format!("DROP VIEW IF EXISTS {table}"))?;
                continue;
            }
            if start.elapsed() >= timeout {
                break Err(holder.unwrap_or_else(|| "another writer".into()));
            }
            std::thread::sleep(Duration::from_millis(500));
        };
        let expires = taken.map_err(|holder| {
            Failure::Environment(format!(
                "database '{}' of {} is locked by another writer after waiting {:.0} s (held by {holder}); try again, or raise --lock-timeout",
                target.schema,
                self.shown,
                timeout.as_secs_f64()
            ))
        })?;
        let (stop, stopped) = mpsc::channel::<()>();
        let renewing = (*target).clone();
        let expires = Arc::new(AtomicU64::new(expires));
        let renewed = Arc::clone(&expires);
        let renewer = std::thread::spawn(move || renew(&renewing, &renewed, &stopped));
        self.lock = Some(Lock {
            owner,
            expires,
            stop,
            renewer: Some(renewer),
        });
        Ok(())
    }

    /// The lock view's owner and expiry (seconds since the epoch).
    fn lock_properties(&self) -> Result<(Option<String>, Option<u64>), Failure> {
        let rows = match self.rows(&format!("SHOW TBLPROPERTIES {}", self.ident(LOCK_VIEW))) {
            Ok(rows) => rows,
            // Released in between (or unreadable): not expired; the next
            // CREATE VIEW tells.
            Err(_) => return Ok((None, None)),
        };
        let get = |key: &str| {
            rows.iter()
                .find(|r| r.first().and_then(|k| k.as_deref()) == Some(key))
                .and_then(|r| r.get(1).cloned().flatten())
        };
        Ok((
            get("strata.owner"),
            get("strata.expires").and_then(|t| t.parse().ok()),
        ))
    }

    /// Create a table from a file read by the embedded DuckDB: its columns
    /// as DuckDB types them, its rows sent as literals.
    fn load_file(&self, source: &str, relation: &str) -> Result<String, Failure> {
        let duck = DuckDb::open(":memory:", Duration::ZERO)?;
        let columns = duck.columns(relation)?;
        let table = self.ident(&format!("_strata_file_{source}"));
        let types: Vec<String> = columns
            .iter()
            .map(|(_, t)| spark_type_of_duckdb(t))
            .collect();
        let defs: Vec<String> = columns
            .iter()
            .zip(&types)
            .map(|((name, _), ty)| format!("{} {ty}", self.ident(name)))
            .collect();
        self.exec(&format!(
            "DROP TABLE IF EXISTS {table}; CREATE TABLE {table} ({})",
            defs.join(", ")
        ))?;
        // A list travels as JSON (its text form is ambiguous), read back
        // with `from_json`.
        let is_array = |ty: &str| ty.starts_with("ARRAY<");
        let as_text: Vec<String> = columns
            .iter()
            .zip(&types)
            .map(|((name, _), ty)| {
                if is_array(ty) {
                    format!("CAST(to_json({}) AS VARCHAR)", duck.ident(name))
                } else {
                    format!("CAST({} AS VARCHAR)", duck.ident(name))
                }
            })
            .collect();
        let rows = duck.rows(&format!("SELECT {} FROM {relation}", as_text.join(", ")))?;
        for chunk in rows.chunks(500) {
            let values: Vec<String> = chunk
                .iter()
                .map(|row| {
                    let cells: Vec<String> = row
                        .iter()
                        .zip(&types)
                        .map(|(cell, ty)| match cell {
                            Some(v) if is_array(ty) => {
                                format!("from_json({}, {})", self.string(v), self.string(ty))
                            }
                            Some(v) => format!("CAST({} AS {ty})", self.string(v)),
                            None => format!("CAST(NULL AS {ty})"),
                        })
                        .collect();
                    format!("({})", cells.join(", "))
                })
                .collect();
            self.exec(&format!("INSERT INTO {table} VALUES {}", values.join(", ")))?;
        }
        Ok(table)
    }
}

impl Drop for Spark {
    fn drop(&mut self) {
        let Some(mut lock) = self.lock.take() else {
            return;
        };
        let _ = lock.stop.send(());
        if let Some(t) = lock.renewer.take() {
            let _ = t.join();
        }
        // Only our own lock: a lock that expired and was taken is not ours.
        // One that expires well after now has not expired: no need to ask.
        let ours = lock.expires.load(Ordering::Relaxed) > now_secs() + LOCK_MARGIN.as_secs()
            || matches!(self.lock_properties(), Ok((Some(owner), _)) if owner == lock.owner);
        if ours {
            let _ = self.exec(&format!("DROP VIEW IF EXISTS {}", self.ident(LOCK_VIEW)));
        }
    }
}

/// Renew the lock's expiry every [`LOCK_RENEW`] until told to stop, from a
/// session of its own (the writer's session is busy with its statements);
/// `expires` keeps the expiry last written.
fn renew(target: &SparkTarget, expires: &AtomicU64, stop: &mpsc::Receiver<()>) {
    // Spark Connect session ids are UUIDs: a fresh one.
    let mut own = target.clone();
    own.session_id = super::target::fresh_session_id();
    let Ok(session) = Session::connect(&own) else {
        return;
    };
    let table = format!(
        "{}.{}",
        Dialect::Spark.ident(&target.schema),
        Dialect::Spark.ident(LOCK_VIEW)
    );
    while let Err(mpsc::RecvTimeoutError::Timeout) = stop.recv_timeout(LOCK_RENEW) {
        let next = expiry();
        if session
            .sql(&format!(
                "ALTER VIEW {table} SET TBLPROPERTIES ('strata.expires' = '{next}')"
            ))
            .is_ok()
        {
            expires.store(next, Ordering::Relaxed);
        }
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

fn expiry() -> u64 {
    now_secs() + LOCK_TTL.as_secs()
}

fn hostname() -> String {
    std::fs::read_to_string("/etc/hostname")
        .map(|h| h.trim().to_string())
        .ok()
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

/// The Spark type of a column DuckDB read from a file.
fn spark_type_of_duckdb(ty: &str) -> String {
    let t = ty.to_ascii_uppercase();
    match t.as_str() {
        "TINYINT" | "SMALLINT" | "INTEGER" | "BIGINT" | "UTINYINT" | "USMALLINT" | "UINTEGER" => {
            "BIGINT".into()
        }
        "UBIGINT" | "HUGEINT" | "UHUGEINT" => "DECIMAL(38,0)".into(),
        "FLOAT" | "DOUBLE" => "DOUBLE".into(),
        "BOOLEAN" | "DATE" => t,
        "TIMESTAMP"
        | "TIMESTAMP_NS"
        | "TIMESTAMP_MS"
        | "TIMESTAMP_S"
        | "TIMESTAMP WITH TIME ZONE" => "TIMESTAMP".into(),
        "BLOB" => "BINARY".into(),
        _ if t.starts_with("DECIMAL") => t,
        _ if t.ends_with("[]") => format!("ARRAY<{}>", spark_type_of_duckdb(&t[..t.len() - 2])),
        _ => "STRING".into(),
    }
}

/// The statements of a script, split at `;` outside strings, quoted names
/// and comments (Spark runs one statement per request).
fn statements(sql: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut chars) = (0, sql.char_indices().peekable());
    while let Some((i, c)) = chars.next() {
        match c {
            '\'' | '"' | '`' => {
                while let Some((_, d)) = chars.next() {
                    if d == '\\' && c != '`' {
                        chars.next();
                    } else if d == c {
                        break;
                    }
                }
            }
            '-' if chars.peek().map(|&(_, d)| d) == Some('-') => {
                for (_, d) in chars.by_ref() {
                    if d == '\n' {
                        break;
                    }
                }
            }
            ';' => {
                out.push(&sql[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&sql[start..]);
    out.into_iter()
        .filter(|s| {
            s.lines()
                .map(|l| l.split("--").next().unwrap_or("").trim())
                .any(|l| !l.is_empty())
        })
        .collect()
}

/// The cells of record batches as text, as the other engines write them
/// (dates `YYYY-MM-DD`, timestamps `YYYY-MM-DD HH:MM:SS[.ffffff]`).
fn text_rows(batches: &[RecordBatch]) -> Result<Rows, String> {
    let options = FormatOptions::default()
        .with_timestamp_format(Some("%Y-%m-%d %H:%M:%S%.f"))
        .with_timestamp_tz_format(Some("%Y-%m-%d %H:%M:%S%.f"));
    let mut rows = Vec::new();
    for batch in batches {
        let formatters = batch
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("cannot show a result column: {e}"))?;
        for i in 0..batch.num_rows() {
            rows.push(
                batch
                    .columns()
                    .iter()
                    .zip(&formatters)
                    .map(|(c, f)| (!c.is_null(i)).then(|| f.value(i).to_string()))
                    .collect(),
            );
        }
    }
    Ok(rows)
}

impl Engine for Spark {
    fn dialect(&self) -> Dialect {
        Dialect::Spark
    }

    fn name(&self) -> &str {
        &self.shown
    }

    fn exec(&self, sql: &str) -> Result<(), Failure> {
        let statements = statements(sql);
        if !statements.is_empty() {
            *self.catalog.borrow_mut() = Catalog::default();
        }
        for statement in statements {
            self.batches(statement)?;
        }
        Ok(())
    }

    fn rows(&self, sql: &str) -> Result<Rows, Failure> {
        let batches = self.batches(sql)?;
        text_rows(&batches).map_err(|e| self.failure(&e, sql))
    }

    fn rows_each(&self, queries: &[String]) -> Result<Vec<Rows>, Failure> {
        let start = Instant::now();
        let all: Vec<&str> = queries.iter().map(String::as_str).collect();
        let results = self.session.sql_all(&all);
        queries
            .iter()
            .zip(results)
            .map(|(sql, result)| {
                self.log(start, sql);
                let batches = result.map_err(|e| self.failure(&e, sql))?;
                text_rows(&batches).map_err(|e| self.failure(&e, sql))
            })
            .collect()
    }

    fn begin(&self) -> Result<(), Failure> {
        *self.created.borrow_mut() = Some(Vec::new());
        Ok(())
    }

    fn commit(&self) -> Result<(), Failure> {
        *self.created.borrow_mut() = None;
        Ok(())
    }

    fn rollback(&self) {
        let created = self.created.borrow_mut().take().unwrap_or_default();
        for table in created.iter().rev() {
            let _ = self.sql(&format!("DROP TABLE IF EXISTS {table}"));
        }
        *self.catalog.borrow_mut() = Catalog::default();
    }

    fn metadata(&self) -> String {
        let s = |names: &[&str]| -> String {
            names
                .iter()
                .map(|n| format!("{n} STRING"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let tables = [
            (
                super::RUNS,
                format!(
                    "run_id STRING, started_at TIMESTAMP, {}, stage_only BOOLEAN, {}",
                    s(&["module", "branch"]),
                    s(&["models", "fingerprints", "overrides", "inputs", "snapshots", "report", "sampling", "skipped", "bases"]),
                ),
            ),
            (
                super::INPUTS,
                "content_hash STRING, source STRING, table_name STRING, row_count BIGINT, file STRING".into(),
            ),
        ];
        // Only those missing: a catalog statement costs a round trip and a
        // plan even when there is nothing to do. (An unreadable catalog is
        // taken as missing: the statement itself then says what is wrong.)
        tables
            .iter()
            .filter(|(name, _)| !self.relation_exists(name).unwrap_or(false))
            .map(|(name, columns)| {
                format!(
                    "CREATE TABLE IF NOT EXISTS {} ({columns});\n",
                    self.ident(name)
                )
            })
            .collect()
    }

    fn deletes_rows(&self) -> bool {
        false
    }

    fn relation_exists(&self, name: &str) -> Result<bool, Failure> {
        let key = self.ident(&name.to_ascii_lowercase());
        if let Some(relations) = &self.catalog.borrow().relations {
            return Ok(relations.contains(&key));
        }
        // Names in Spark's catalog are case-insensitive (kept in lower case).
        let relations: HashSet<String> = self
            .rows("SHOW TABLES")?
            .iter()
            .filter_map(|r| r.get(1).cloned().flatten())
            .map(|t| self.ident(&t.to_ascii_lowercase()))
            .collect();
        let found = relations.contains(&key);
        self.catalog.borrow_mut().relations = Some(relations);
        Ok(found)
    }

    fn columns(&self, relation: &str) -> Result<Vec<(String, String)>, Failure> {
        let mut columns = self.columns_each(&[relation.to_string()])?;
        Ok(columns.pop().unwrap_or_default())
    }

    fn columns_each(&self, relations: &[String]) -> Result<Vec<Vec<(String, String)>>, Failure> {
        let unknown: Vec<&String> = {
            let catalog = self.catalog.borrow();
            relations
                .iter()
                .filter(|r| !catalog.columns.contains_key(*r))
                .collect()
        };
        let queries: Vec<String> = unknown
            .iter()
            .map(|r| format!("DESCRIBE QUERY SELECT * FROM {r}"))
            .collect();
        let described = self.rows_each(&queries)?;
        let mut catalog = self.catalog.borrow_mut();
        for (relation, rows) in unknown.into_iter().zip(described) {
            let columns = rows
                .into_iter()
                .filter_map(|r| Some((r.first()?.clone()?, r.get(1)?.clone()?)))
                .collect();
            catalog.columns.insert(relation.clone(), columns);
        }
        Ok(relations
            .iter()
            .map(|r| catalog.columns.get(r).cloned().unwrap_or_default())
            .collect())
    }

    fn compatible(&self, ty: &Type, physical: &str) -> bool {
        let p = physical.to_ascii_lowercase();
        let int = ["tinyint", "smallint", "int", "bigint"];
        let text = p == "string" || p.starts_with("varchar") || p.starts_with("char");
        match ty {
            Type::Int64 => int.contains(&p.as_str()),
            Type::Float64 => p == "double" || p == "float",
            Type::Decimal(..) | Type::Money(_) => {
                p.starts_with("decimal") || int.contains(&p.as_str())
            }
            Type::String | Type::Uuid => text,
            Type::Bool => p == "boolean",
            Type::Date => p == "date",
            Type::Timestamp => p == "timestamp" || p == "timestamp_ntz",
            Type::Json => text || p == "variant",
            Type::Array(_) => p.starts_with("array<"),
            Type::Unknown => true,
        }
    }

    fn read(&self, source: &str, origin: &Origin) -> Result<String, Failure> {
        match origin {
            Origin::Table(t) => Ok(self.ident(t)),
            Origin::File(_) => self.load_file(
                source,
                &crate::engine::duckdb_file_relation(source, origin)?,
            ),
        }
    }

    fn first_unconvertible(
        &self,
        relation: &str,
        column: &str,
        ty: &Type,
    ) -> Result<Option<(String, Option<String>)>, Failure> {
        let Ok(target) = self.dialect().type_name(ty) else {
            return Ok(None);
        };
        let rows = self.rows(&format!(
            "SELECT {} FROM {relation} WHERE {column} IS NOT NULL AND TRY_CAST({column} AS {target}) IS NULL LIMIT 1",
            self.text(column)
        ))?;
        Ok(rows
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next().flatten())
            .map(|v| (v, None)))
    }

    fn replace_table(&self, table: &str, select: &str) -> Result<(), Failure> {
        // No CREATE OR REPLACE TABLE for the catalog's default (parquet)
        // tables; the table takes the catalog's default format.
        self.create(
            table,
            &[
                format!("DROP TABLE IF EXISTS {table}"),
                format!("CREATE TABLE {table} AS\n{select}"),
            ],
        )?;
        if let Some(created) = self.created.borrow_mut().as_mut() {
            created.push(table.to_string());
        }
        Ok(())
    }

    fn replace_view(&self, view: &str, relation: &str) -> Result<(), Failure> {
        self.replace_views(&[(view.to_string(), relation.to_string())])
    }

    fn replace_views(&self, views: &[(String, String)]) -> Result<(), Failure> {
        // One statement a view, all at once: each is atomic, the set is not
        // (nor would it be one after the other).
        let statements: Vec<String> = views
            .iter()
            .map(|(view, relation)| {
                format!("CREATE OR REPLACE VIEW {view} AS SELECT * FROM {relation}")
            })
            .collect();
        let made = self.rows_each(&statements).map(drop);
        let names: Vec<&str> = views.iter().map(|(view, _)| view.as_str()).collect();
        self.created(&names, made.is_ok());
        made
    }

    fn hash_sum(&self, alias: &str) -> String {
        // xxhash64 of every column. Summed as a DECIMAL(38,0) row by row it
        // is slow; cut into three pieces of 22, 21 and 21 bits, it is
        // summed as BIGINTs (exact below 2^41 rows) and put together once:
        // the same number.
        let h = format!("xxhash64({alias}.*)");
        format!(
            "COALESCE(CAST(SUM(shiftright({h}, 42)) AS DECIMAL(38,0)) * 4398046511104 \
             + CAST(SUM(shiftright({h}, 21) & 2097151) AS DECIMAL(38,0)) * 2097152 \
             + SUM({h} & 2097151), 0)"
        )
    }

    fn sample_condition(&self, keys: &[String], salt: u64, threshold: u64) -> String {
        // xxhash64 is uniform over the signed range: shift the unsigned
        // threshold into it.
        let signed = crate::engine::signed_threshold(threshold);
        format!(
            "xxhash64({}, CAST({} AS BIGINT)) < {signed}",
            keys.join(", "),
            salt as i64
        )
    }

    fn top_groups_json(&self, key_texts: &[String], filter: Option<&str>) -> String {
        let filter = crate::engine::filter_clause(filter);
        // Structs sort by their first field: `n`, largest first.
        format!(
            "TO_JSON(SLICE(SORT_ARRAY(COLLECT_LIST(NAMED_STRUCT('n', n, 'k', ARRAY({}))){filter}, FALSE), 1, {}))",
            key_texts.join(", "),
            crate::checks::SAMPLES
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_split_outside_strings_names_and_comments() {
        assert_eq!(
            statements(
                "CREATE TABLE a (x STRING); -- one; two\nINSERT INTO `b;c` VALUES ('d;\\'e');\n\n"
            ),
            vec![
                "CREATE TABLE a (x STRING)",
                " -- one; two\nINSERT INTO `b;c` VALUES ('d;\\'e')"
            ]
        );
        assert_eq!(statements("SELECT 1"), vec!["SELECT 1"]);
        assert!(statements(" ; -- nothing\n").is_empty());
    }

    #[test]
    fn file_columns_take_spark_types_lists_included() {
        assert_eq!(spark_type_of_duckdb("INTEGER"), "BIGINT");
        assert_eq!(spark_type_of_duckdb("DECIMAL(10,2)"), "DECIMAL(10,2)");
        assert_eq!(spark_type_of_duckdb("VARCHAR[]"), "ARRAY<STRING>");
        assert_eq!(spark_type_of_duckdb("DATE[][]"), "ARRAY<ARRAY<DATE>>");
    }
}
