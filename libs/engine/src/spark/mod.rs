//! The Spark engine, through Spark Connect: one session for the whole
//! command, every relation in the target database (`?schema=`), results
//! read as Arrow and shown as text.
//!
//! Spark has no multi-statement transactions (`Capabilities`): the
//! lifecycle builds every table of a run and passes every check before it
//! repoints any view, and drops the tables of a run that failed.
//! Repointing several views is one `CREATE OR REPLACE VIEW` each (sent at
//! once): a reader may see some views already on the new run and others
//! still on the old one while it happens, never a half-built table.
//!
//! The writer lock is a view, `_strata_lock` (`lock.rs`); a file source is
//! loaded through the embedded DuckDB (`load.rs`).

mod connect;
mod load;
mod lock;
mod script;
mod size;
mod types;
mod url;

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::time::Instant;

use arrow_array::RecordBatch;
use strata_lang::sql::Dialect;
use strata_lang::types::Type;

use crate::{
    Capabilities, Connection, Failure, Meter, Relations, Rows, RunSql, Storage, TableName,
};
use connect::Session;
use lock::Lock;
use script::statements;
use types::text_rows;
pub use url::SparkTarget;

pub struct Spark {
    session: Session,
    shown: String,
    /// The lock this writer holds: its owner text and the renewing thread.
    lock: Option<Lock>,
    /// `$STRATA_SPARK_SQL_LOG`: a file each statement is appended to with
    /// its time (what `bench/spark.py` replays through PySpark).
    sql_log: Option<RefCell<std::fs::File>>,
    /// What this session has read of the catalog (every catalog request is
    /// a round trip and a plan on the server).
    catalog: RefCell<Catalog>,
    /// The statements sent.
    meter: Meter,
}

/// The relations of the database and the columns of those described, as
/// read in this session. The writer lock keeps other strata writers out,
/// and every statement this engine runs through [`Connection::exec`] forgets
/// it; the tables and views it creates itself are added as they are made.
#[derive(Default)]
struct Catalog {
    /// Quoted names of the database's tables and views, in lower case
    /// (Spark's catalog is case-insensitive); `None` until first asked.
    relations: Option<HashSet<String>>,
    /// The columns of each relation described, by its SQL text.
    columns: HashMap<String, Vec<(String, String)>>,
}
impl Spark {
    /// Connect, use the database, take the writer lock (waiting up to
    /// `lock_timeout`).
    pub fn open(target: &SparkTarget, lock: crate::Lock) -> Result<Spark, Failure> {
        let mut spark = Spark::connect(target)?;
        spark.lock(target, lock)?;
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
            lock: None,
            catalog: RefCell::default(),
            meter: Meter::default(),
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
            crate::db_error(error, sql)
        }
    }

    fn batches(&self, sql: &str) -> Result<Vec<RecordBatch>, Failure> {
        self.sql(sql).map_err(|e| self.failure(&e, sql))
    }

    /// Run one statement on the session (written to the SQL log, if any).
    fn sql(&self, sql: &str) -> Result<Vec<RecordBatch>, String> {
        self.meter.add(1);
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
}

impl Connection for Spark {
    fn dialect(&self) -> Dialect {
        Dialect::Spark
    }

    fn name(&self) -> &str {
        &self.shown
    }

    fn statements(&self) -> usize {
        self.meter.count()
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
        self.meter.add(all.len());
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

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            transactions: false,
            row_deletes: false,
            add_columns: false,
            file_store: None,
            drop_frees_space: true,
        }
    }
}

impl Relations for Spark {
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

    fn table_exists(&self, table: &TableName) -> Result<bool, Failure> {
        let Some(schema) = &table.schema else {
            return self.relation_exists(&table.table);
        };
        // Names in Spark's catalog are case-insensitive. A database that
        // is not there has no tables (SHOW TABLES IN it would fail).
        let same = |cell: Option<&Option<String>>, name: &str| {
            cell.cloned()
                .flatten()
                .is_some_and(|n| n.eq_ignore_ascii_case(name))
        };
        let catalog = table.catalog.as_deref().map(|c| self.ident(c));
        let in_catalog = catalog
            .as_ref()
            .map(|c| format!(" IN {c}"))
            .unwrap_or_default();
        let namespaces = self.rows(&format!("SHOW NAMESPACES{in_catalog}"))?;
        if !namespaces.iter().any(|r| same(r.first(), schema)) {
            return Ok(false);
        }
        let namespace = catalog
            .into_iter()
            .chain([self.ident(schema)])
            .collect::<Vec<_>>()
            .join(".");
        // Rows of (namespace, tableName, isTemporary): a temporary view is
        // in no database.
        let tables = self.rows(&format!("SHOW TABLES IN {namespace}"))?;
        Ok(tables
            .iter()
            .any(|r| same(r.first(), schema) && same(r.get(1), &table.table)))
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

    fn read_file(
        &self,
        file: &Path,
        declared: &[crate::Declared],
        table: &str,
    ) -> Result<String, Failure> {
        self.load_file(table, crate::duckdb::read_to_load(file, declared)?)
    }

    fn replace_table(&self, table: &str, select: &str) -> Result<Option<i64>, Failure> {
        // No CREATE OR REPLACE TABLE for the catalog's default (parquet)
        // tables; the table takes the catalog's default format.
        self.create(
            table,
            &[
                format!("DROP TABLE IF EXISTS {table}"),
                format!("CREATE TABLE {table} AS\n{select}"),
            ],
        )
        .map(|()| None)
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
}

impl Storage for Spark {
    fn relation_bytes_each(&self, tables: &[String]) -> Result<Vec<Option<i64>>, Failure> {
        self.table_bytes(tables)
    }
}

impl RunSql for Spark {
    fn compatible(&self, ty: &Type, physical: &str) -> bool {
        let p = physical.to_ascii_lowercase();
        let int = ["tinyint", "smallint", "int", "bigint"];
        let text = p == "string" || p.starts_with("varchar") || p.starts_with("char");
        match ty {
            Type::Int64 => int.contains(&p.as_str()),
            Type::Float32 => p == "float",
            Type::Float64 => p == "double" || p == "float",
            Type::Decimal(..) | Type::Money(_) => {
                p.starts_with("decimal") || int.contains(&p.as_str())
            }
            Type::String | Type::Uuid => text,
            Type::Bool => p == "boolean",
            Type::Date => p == "date",
            Type::Timestamp => p == "timestamp" || p == "timestamp_ntz",
            // Spark's TIMESTAMP is an instant (shown in the session's zone).
            Type::TimestampTz => p == "timestamp" || p == "timestamp_ltz",
            Type::Json => text || p == "variant",
            Type::Array(_) => p.starts_with("array<"),
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
        let signed = crate::signed_threshold(threshold);
        format!(
            "xxhash64({}, CAST({} AS BIGINT)) < {signed}",
            keys.join(", "),
            salt as i64
        )
    }

    fn top_groups_json(&self, key_texts: &[String], filter: Option<&str>) -> String {
        let filter = crate::filter_clause(filter);
        // Structs sort by their first field: `n`, largest first.
        format!(
            "TO_JSON(SLICE(SORT_ARRAY(COLLECT_LIST(NAMED_STRUCT('n', n, 'k', ARRAY({}))){filter}, FALSE), 1, {}))",
            key_texts.join(", "),
            crate::SAMPLES
        )
    }
}
