//! The embedded DuckDB engine: a database file (or `:memory:`); the file
//! lock is the writer lock. Dropped tables leave free blocks inside the
//! file: `compact.rs` rewrites it without them.

use std::cell::RefCell;
use std::path::Path;
use std::time::{Duration, Instant};

use duckdb::{AccessMode, Config};
use strata_lang::sql::Dialect;
use strata_lang::types::Type;

use crate::{
    db_error, Capabilities, Compaction, Connection, Failure, FileFormat, Meter, Origin, Relations,
    Rows, RunSql, Size, Storage, TableName,
};

mod compact;

pub struct DuckDb {
    /// The connection; replaced by one to the new file after a compaction.
    conn: RefCell<duckdb::Connection>,
    /// As the user named it (for messages): the file, and `?schema=S`
    /// when it names one.
    path: String,
    /// The database file (or `:memory:`).
    file: String,
    /// Whether statements are kept prepared by their text ([`DuckDb::scratch`]).
    keep_statements: bool,
    /// The statements sent.
    meter: Meter,
}

/// How many prepared statements a scratch database keeps: those of a few
/// dozen models' fixture tests (a handful each).
const KEPT_STATEMENTS: usize = 256;

impl DuckDb {
    /// Open (or create) the file. Another writer holding it is waited for
    /// up to `lock_timeout`, then reported with its holder.
    pub fn open(path: &str, lock_timeout: Duration) -> Result<DuckDb, Failure> {
        DuckDb::open_with(path, lock_timeout, false)
    }

    /// Open an existing file for reading only: nothing can be written, and
    /// a missing file is an error rather than a new warehouse.
    pub fn open_read_only(path: &str, lock_timeout: Duration) -> Result<DuckDb, Failure> {
        let file = file_of(path);
        if file == ":memory:" || !std::path::Path::new(file).is_file() {
            return Err(Failure::Environment(format!(
                "cannot open warehouse {path}: no such DuckDB file"
            )));
        }
        DuckDb::open_with(path, lock_timeout, true)
    }

    /// A scratch database in memory for many small statements that repeat
    /// (the fixture tests run a model's statements once per test, on other
    /// rows): one thread, as a hand-off to DuckDB's workers costs more than
    /// a statement over a few rows, and every statement [`Connection::rows`]
    /// and [`Relations::replace_table`] run kept prepared by its text, so that
    /// running it again is not parsed again (bench/fixtures.sh).
    pub fn scratch() -> Result<DuckDb, Failure> {
        let db = DuckDb::open(":memory:", Duration::ZERO)?;
        db.exec("SET threads = 1")?;
        db.conn
            .borrow()
            .set_prepared_statement_cache_capacity(KEPT_STATEMENTS);
        Ok(DuckDb {
            keep_statements: true,
            ..db
        })
    }

    /// Run `f` on `sql` prepared: kept by its text on a scratch database.
    fn with_statement<T>(
        &self,
        sql: &str,
        f: impl FnOnce(&mut duckdb::Statement) -> Result<T, duckdb::Error>,
    ) -> Result<T, Failure> {
        self.meter.add(1);
        let conn = self.conn.borrow();
        let done = if self.keep_statements {
            conn.prepare_cached(sql).and_then(|mut s| f(&mut s))
        } else {
            conn.prepare(sql).and_then(|mut s| f(&mut s))
        };
        done.map_err(|e| db_error(e, sql))
    }

    fn open_with(path: &str, lock_timeout: Duration, read_only: bool) -> Result<DuckDb, Failure> {
        let (file, schema) = split_schema(path)?;
        let start = Instant::now();
        loop {
            let attempt = if file == ":memory:" {
                duckdb::Connection::open_in_memory()
            } else if read_only {
                Config::default()
                    .access_mode(AccessMode::ReadOnly)
                    .and_then(|config| duckdb::Connection::open_with_flags(file, config))
            } else {
                duckdb::Connection::open(file)
            };
            let msg = match attempt {
                Ok(conn) => {
                    let db = DuckDb {
                        conn: RefCell::new(conn),
                        path: path.to_string(),
                        file: file.to_string(),
                        keep_statements: false,
                        meter: Meter::default(),
                    };
                    if let Some(schema) = &schema {
                        db.use_schema(schema, read_only)?;
                    }
                    return Ok(db);
                }
                Err(e) => e.to_string(),
            };
            let locked = msg.contains("lock") || msg.contains("Conflicting");
            if locked && start.elapsed() < lock_timeout {
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
            return Err(Failure::Environment(if locked {
                format!(
                    "warehouse {path} is locked by another writer after waiting {:.0} s ({}); try again, or raise --lock-timeout",
                    lock_timeout.as_secs_f64(),
                    holder(&msg)
                )
            } else {
                format!("cannot open warehouse {path}: {msg}")
            }));
        }
    }
}

impl DuckDb {
    /// Read and write `schema` (`?schema=S`): created when missing, unless
    /// the file is open read-only; then it must be there.
    fn use_schema(&self, schema: &str, read_only: bool) -> Result<(), Failure> {
        let name = self.ident(schema);
        if !read_only {
            self.exec(&format!("CREATE SCHEMA IF NOT EXISTS {name}"))?;
        }
        self.exec(&format!("SET schema = {}", self.string(schema)))
    }
}

/// The database file of a DuckDB warehouse as `--warehouse` names it: the
/// text before `?schema=S`.
pub fn file_of(text: &str) -> &str {
    match text.rsplit_once('?') {
        Some((file, query)) if query.starts_with("schema=") => file,
        _ => text,
    }
}

/// The file and the schema of `file?schema=S` (every relation strata
/// creates in `S`; DuckDB's `main` when there is none).
fn split_schema(text: &str) -> Result<(&str, Option<String>), Failure> {
    let file = file_of(text);
    if file.len() == text.len() {
        return Ok((text, None));
    }
    let query = &text[file.len() + 1..];
    let mut schema = None;
    for pair in query.split('&') {
        match pair.split_once('=') {
            Some(("schema", s)) if !s.is_empty() && schema.is_none() => {
                schema = Some(crate::url::percent_decode(s))
            }
            _ => {
                return Err(Failure::Usage(format!(
                    "the DuckDB warehouse {text}: after `?` strata reads only `schema=NAME` (once), not `{pair}`"
                )))
            }
        }
    }
    Ok((file, schema))
}

/// The version of the DuckDB library linked into this program (`v2.0.0`),
/// as the library itself reports it (`PRAGMA version` on a database in
/// memory), for `strata --version`.
pub fn library_version() -> Result<String, String> {
    duckdb::Connection::open_in_memory()
        .and_then(|conn| conn.version())
        .map_err(|e| format!("cannot start DuckDB: {e}"))
}

impl DuckDb {
    /// `<warehouse>.inputs/` beside a warehouse file; none in memory.
    fn file_store(&self) -> Option<std::path::PathBuf> {
        if self.file == ":memory:" {
            return None;
        }
        let db = std::path::absolute(&self.file).ok()?;
        let mut name = db.file_name()?.to_os_string();
        name.push(".inputs");
        Some(db.with_file_name(name))
    }
}

impl Connection for DuckDb {
    fn dialect(&self) -> Dialect {
        Dialect::DuckDb
    }

    fn name(&self) -> &str {
        &self.path
    }

    fn statements(&self) -> usize {
        self.meter.count()
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            transactions: true,
            row_deletes: true,
            add_columns: true,
            file_store: self.file_store(),
            drop_frees_space: false,
        }
    }

    fn exec(&self, sql: &str) -> Result<(), Failure> {
        self.meter.add(1);
        self.conn
            .borrow()
            .execute_batch(sql)
            .map_err(|e| db_error(e, sql))
    }

    fn rows(&self, sql: &str) -> Result<Rows, Failure> {
        self.with_statement(sql, |stmt| {
            let mut rows = stmt.query([])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                let n = row.as_ref().column_count();
                let mut cells = Vec::with_capacity(n);
                for i in 0..n {
                    let v: duckdb::types::Value = row.get(i)?;
                    cells.push(value_text(&v));
                }
                out.push(cells);
            }
            Ok(out)
        })
    }

    fn begin(&self) -> Result<(), Failure> {
        self.exec("BEGIN TRANSACTION")
    }

    fn commit(&self) -> Result<(), Failure> {
        self.exec("COMMIT")
    }

    fn rollback(&self) {
        self.meter.add(1);
        let _ = self.conn.borrow().execute_batch("ROLLBACK");
    }
}

impl Relations for DuckDb {
    fn relation_exists(&self, name: &str) -> Result<bool, Failure> {
        Ok(self.count(&format!(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = {} \
             AND table_catalog = current_database() AND table_schema = current_schema()",
            self.string(name)
        ))? > 0)
    }

    fn table_exists(&self, table: &TableName) -> Result<bool, Failure> {
        let Some(schema) = &table.schema else {
            return self.relation_exists(&table.table);
        };
        // Names are case-insensitive, as DuckDB resolves them.
        let name = |x: &str| format!("lower({})", self.string(x));
        let place = match &table.catalog {
            Some(c) => format!(
                "lower(table_catalog) = {} AND lower(table_schema) = {}",
                name(c),
                name(schema)
            ),
            // `a.t` reads schema `a`, or the attached database `a`.
            None => format!(
                "((table_catalog = current_database() AND lower(table_schema) = {0}) \
                 OR (lower(table_catalog) = {0} AND table_schema = 'main'))",
                name(schema)
            ),
        };
        Ok(self.count(&format!(
            "SELECT COUNT(*) FROM information_schema.tables WHERE lower(table_name) = {} AND {place}",
            name(&table.table)
        ))? > 0)
    }

    fn columns(&self, relation: &str) -> Result<Vec<(String, String)>, Failure> {
        Ok(self
            .rows(&format!("DESCRIBE SELECT * FROM {relation}"))?
            .into_iter()
            .map(|r| {
                let mut r = r.into_iter().map(Option::unwrap_or_default);
                (r.next().unwrap_or_default(), r.next().unwrap_or_default())
            })
            .collect())
    }

    fn read_file(
        &self,
        file: &Path,
        declared: &[crate::Declared],
        _table: &str,
    ) -> Result<String, Failure> {
        file_relation(self, file, declared)
    }

    fn replace_table(&self, table: &str, select: &str) -> Result<Option<i64>, Failure> {
        // CREATE TABLE AS reports the rows it inserted.
        let sql = format!("CREATE OR REPLACE TABLE {table} AS\n{select}");
        let rows = self.with_statement(&sql, |stmt| stmt.execute([]))?;
        Ok(i64::try_from(rows).ok())
    }

    fn replace_view(&self, view: &str, relation: &str) -> Result<(), Failure> {
        self.exec(&format!(
            "CREATE OR REPLACE VIEW {view} AS SELECT * FROM {relation}"
        ))
    }
}

impl Storage for DuckDb {
    fn relation_bytes_each(&self, tables: &[String]) -> Result<Vec<Option<i64>>, Failure> {
        self.table_bytes(tables)
    }

    fn size(&self) -> Result<Option<Size>, Failure> {
        self.file_size()
    }

    fn compact(&self, at: &dyn Fn(&str)) -> Result<Option<Compaction>, Failure> {
        self.compact_file(at)
    }
}

impl RunSql for DuckDb {
    fn compatible(&self, ty: &Type, physical: &str) -> bool {
        let p = physical.to_ascii_uppercase();
        let int = [
            "TINYINT",
            "SMALLINT",
            "INTEGER",
            "BIGINT",
            "HUGEINT",
            "UTINYINT",
            "USMALLINT",
            "UINTEGER",
            "UBIGINT",
        ];
        match ty {
            Type::Int64 => int.contains(&p.as_str()),
            Type::Float32 => p == "FLOAT",
            Type::Float64 => p == "DOUBLE" || p == "FLOAT",
            Type::Decimal(..) | Type::Money(_) => {
                p.starts_with("DECIMAL") || int.contains(&p.as_str())
            }
            Type::String => p == "VARCHAR",
            Type::Bool => p == "BOOLEAN",
            Type::Date => p == "DATE",
            // TIMESTAMP, TIMESTAMP_S/_MS/_NS: wall-clock times; an instant
            // (TIMESTAMP WITH TIME ZONE) is a timestamptz.
            Type::Timestamp => p.starts_with("TIMESTAMP") && !p.contains("TIME ZONE"),
            Type::TimestampTz => p == "TIMESTAMP WITH TIME ZONE" || p == "TIMESTAMPTZ",
            Type::Uuid => p == "UUID" || p == "VARCHAR",
            Type::Json => p == "JSON" || p == "VARCHAR",
            Type::Array(_) => p.ends_with("[]"),
            Type::Unknown => true,
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
        let c = column;
        let bad = self.rows(&format!(
            "SELECT CAST({c} AS VARCHAR), \"_strata_row\" FROM \
             (SELECT {c}, row_number() OVER () AS \"_strata_row\" FROM {relation}) AS t \
             WHERE {c} IS NOT NULL AND TRY_CAST({c} AS {target}) IS NULL \
             ORDER BY \"_strata_row\" LIMIT 1"
        ))?;
        Ok(bad.into_iter().next().map(|mut row| {
            let row_no = row.get_mut(1).and_then(Option::take);
            (row.into_iter().next().flatten().unwrap_or_default(), row_no)
        }))
    }

    fn hash_sum(&self, alias: &str) -> String {
        // The sum of the rows' 64-bit hashes, as HUGEINT. Summing the two
        // 32-bit halves as BIGINTs and putting them together once gives the
        // same number faster than a HUGEINT cast and sum row by row (on
        // 11 M rows: 78 against 96 ms).
        let h = format!("hash({alias})");
        format!(
            "COALESCE(CAST(SUM(CAST({h} >> 32 AS BIGINT)) AS HUGEINT) * 4294967296 \
             + SUM(CAST({h} & 4294967295 AS BIGINT)), 0)"
        )
    }

    fn sample_condition(&self, keys: &[String], salt: u64, threshold: u64) -> String {
        // hash() of the keys, xor the salt, hashed again so that each salt
        // selects an unrelated set of keys.
        format!(
            "hash(xor(hash({}), CAST({salt} AS UBIGINT))) < CAST({threshold} AS UBIGINT)",
            keys.join(", ")
        )
    }

    fn top_groups_json(&self, key_texts: &[String], filter: Option<&str>) -> String {
        let filter = crate::filter_clause(filter);
        format!(
            "to_json(arg_max({{'k': [{}], 'n': n}}, n, {}){filter})",
            key_texts.join(", "),
            crate::SAMPLES
        )
    }
}

/// A source file as an engine that cannot read it in place loads it.
pub(crate) struct ToLoad {
    /// An in-memory DuckDB on the client.
    pub duck: DuckDb,
    /// The relation it reads the file through ([`file_relation`]).
    pub relation: String,
    /// Its columns: name and DuckDB type.
    pub columns: Vec<(String, String)>,
}

/// `file` read by an in-memory DuckDB, to be loaded elsewhere.
pub(crate) fn read_to_load(file: &Path, declared: &[crate::Declared]) -> Result<ToLoad, Failure> {
    let duck = DuckDb::open(":memory:", std::time::Duration::ZERO)?;
    let relation = file_relation(&duck, file, declared)?;
    let columns = duck.columns(&relation)?;
    Ok(ToLoad {
        duck,
        relation,
        columns,
    })
}

/// The relation DuckDB (`db`) reads a source file through, in place. A CSV
/// file is typed by DuckDB's sniffer, except the columns the source
/// declares (`declared`) as `string`, read as text whatever the sniffer
/// sees (`007` stays `007`, where the sniffer reads the number 7), and as
/// `decimal(p, s)` where the sniffer sees numbers, read from their text as
/// that decimal (where the sniffer reads doubles). Any other difference is
/// left to the check of the declared columns, which names the first value
/// that does not convert.
pub(crate) fn file_relation(
    db: &DuckDb,
    file: &Path,
    declared: &[crate::Declared],
) -> Result<String, Failure> {
    let d = Dialect::DuckDb;
    let path = d.string(&file.to_string_lossy());
    Ok(match Origin::file_format(file) {
        FileFormat::Parquet => format!("read_parquet({path})"),
        FileFormat::Json => format!("read_json_auto({path})"),
        FileFormat::Csv => {
            let sniffed = format!("read_csv_auto({path})");
            let typed = |ty: &Type| matches!(ty, Type::String | Type::Decimal(..));
            if !declared.iter().any(|(_, ty)| typed(ty)) {
                return Ok(sniffed);
            }
            let mut types = Vec::new();
            for (name, found) in db.columns(&sniffed)? {
                let Some((_, ty)) = declared
                    .iter()
                    .find(|(n, ty)| typed(ty) && n.eq_ignore_ascii_case(&name))
                else {
                    continue;
                };
                let Ok(want) = d.type_name(ty) else {
                    continue;
                };
                let numbers = db.compatible(&Type::Float64, &found)
                    || db.compatible(&Type::Decimal(38, 0), &found);
                if !found.eq_ignore_ascii_case(&want) && (*ty == Type::String || numbers) {
                    types.push(format!("{}: {}", d.string(&name), d.string(&want)));
                }
            }
            if types.is_empty() {
                sniffed
            } else {
                format!("read_csv_auto({path}, types = {{{}}})", types.join(", "))
            }
        }
    })
}

/// The text of a value as the reports show it.
fn value_text(v: &duckdb::types::Value) -> Option<String> {
    use duckdb::types::Value as V;
    Some(match v {
        V::Null => return None,
        V::Boolean(b) => b.to_string(),
        V::TinyInt(x) => x.to_string(),
        V::SmallInt(x) => x.to_string(),
        V::Int(x) => x.to_string(),
        V::BigInt(x) => x.to_string(),
        V::HugeInt(x) => x.to_string(),
        V::UHugeInt(x) => x.to_string(),
        V::UTinyInt(x) => x.to_string(),
        V::USmallInt(x) => x.to_string(),
        V::UInt(x) => x.to_string(),
        V::UBigInt(x) => x.to_string(),
        V::Float(x) => x.to_string(),
        V::Double(x) => x.to_string(),
        V::Text(s) | V::Enum(s) => s.clone(),
        V::Decimal(d) => d.to_string(),
        // As DuckDB's CAST(... AS VARCHAR) writes them (and PostgreSQL).
        V::Date32(days) => match chrono::NaiveDate::from_num_days_from_ce_opt(days + 719_163) {
            Some(d) => d.to_string(),
            None => format!("{v:?}"),
        },
        V::Timestamp(unit, t) => {
            match chrono::DateTime::from_timestamp_micros(unit.to_micros(*t)) {
                Some(ts) => ts.naive_utc().to_string(),
                None => format!("{v:?}"),
            }
        }
        other => format!("{other:?}"),
    })
}

/// The lock holder DuckDB names in its error (`... held in <cmd> (PID n)
/// by user u`). The command may hold parentheses itself (a rebuilt
/// program is `/path/prog (deleted)`): the name runs to the `(PID n)`.
fn holder(msg: &str) -> String {
    if let Some(i) = msg.find("held in ") {
        let rest = &msg[i + "held in ".len()..];
        let end = rest
            .find("(PID ")
            .and_then(|p| rest[p..].find(')').map(|j| p + j))
            .or_else(|| rest.find(')'));
        if let Some(j) = end {
            return format!("held by {}", &rest[..=j]);
        }
    }
    "held by another process".to_string()
}

#[cfg(test)]
mod tests {
    use super::holder;
    use crate::{Connection, Relations};

    #[test]
    fn every_statement_is_counted_once() {
        let wh = super::DuckDb::open(":memory:", std::time::Duration::ZERO)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let before = wh.statements();
        wh.exec("CREATE TABLE t AS SELECT 1 AS x").expect("exec");
        assert_eq!(wh.count("SELECT COUNT(*) FROM t").expect("count"), 1);
        wh.rows_each(&["SELECT 1".into(), "SELECT 2".into()])
            .expect("rows");
        assert!(wh.relation_exists("t").expect("exists"));
        assert_eq!(wh.statements() - before, 5);
    }

    #[test]
    fn the_holder_is_named_with_its_pid() {
        let msg = "IO Error: Could not set lock on file \"wh.duckdb\": Conflicting lock is held in /usr/bin/strata (PID 42) by user root.";
        assert_eq!(holder(msg), "held by /usr/bin/strata (PID 42)");
        // A program rebuilt while it runs is named `... (deleted)`.
        let msg = "Conflicting lock is held in /t/deps/e2e-1 (deleted) (PID 7) by user root.";
        assert_eq!(holder(msg), "held by /t/deps/e2e-1 (deleted) (PID 7)");
        assert_eq!(holder("Could not set lock"), "held by another process");
    }

    #[test]
    fn a_schema_after_the_file_holds_what_strata_creates() {
        let dir = std::env::temp_dir().join(format!("strata-schema-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
        let file = dir.join("wh.duckdb").display().to_string();
        let open = |text: &str| {
            super::DuckDb::open(text, std::time::Duration::ZERO).unwrap_or_else(|e| panic!("{e:?}"))
        };
        open(&file)
            .exec("CREATE TABLE t AS SELECT 1 AS x")
            .expect("exec");
        let wh = open(&format!("{file}?schema=my%20s"));
        assert_eq!(wh.name(), format!("{file}?schema=my%20s"));
        assert!(
            !wh.relation_exists("t").expect("exists"),
            "main.t is not ours"
        );
        wh.exec("CREATE TABLE t AS SELECT 2 AS x").expect("exec");
        assert!(wh.relation_exists("t").expect("exists"));
        assert_eq!(wh.count("SELECT x FROM t").expect("count"), 2);
        assert_eq!(wh.count("SELECT x FROM main.t").expect("count"), 1);
        drop(wh);
        let ro = super::DuckDb::open_read_only(
            &format!("{file}?schema=my%20s"),
            std::time::Duration::ZERO,
        )
        .unwrap_or_else(|e| panic!("{e:?}"));
        assert_eq!(ro.count("SELECT x FROM t").expect("count"), 2);
        assert_eq!(super::file_of(&format!("{file}?schema=s")), file);
        assert!(matches!(
            super::split_schema("w.duckdb?schema=a&mode=b"),
            Err(crate::Failure::Usage(m)) if m.contains("mode=b")
        ));
        drop(ro);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
