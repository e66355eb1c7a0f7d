//! The PostgreSQL engine: one connection (the `postgres` crate) for the
//! whole command, every relation in the target schema, a session advisory
//! lock per schema as the writer lock (`lock.rs`). Files are read client-side by the
//! embedded DuckDB and streamed in with `COPY ... FROM STDIN`, so the
//! server needs no access to them.

use std::cell::RefCell;
use std::path::Path;
use std::time::Duration;

use postgres::Client;
use strata_lang::sql::Dialect;
use strata_lang::types::Type;

use crate::{
    db_error, Capabilities, Connection, Failure, Meter, Relations, Rows, RunSql, Size, Storage,
    TableName,
};
pub use url::PgTarget;

mod load;
mod lock;
pub mod tls;
mod url;

pub struct Postgres {
    client: RefCell<Client>,
    shown: String,
    /// The statements sent.
    meter: Meter,
}

/// What a driver error says, in one line: the server's message with its
/// detail and hint, or the connection's error.
fn pg_text(e: &postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => {
            let mut s = db.message().to_string();
            if let Some(d) = db.detail() {
                s.push_str(&format!(" ({d})"));
            }
            if let Some(h) = db.hint() {
                s.push_str(&format!("; hint: {h}"));
            }
            s
        }
        None => {
            let mut s = e.to_string();
            let mut source = std::error::Error::source(e);
            while let Some(inner) = source {
                let text = inner.to_string();
                if !s.contains(&text) {
                    s.push_str(&format!(": {text}"));
                }
                source = inner.source();
            }
            s
        }
    }
}

impl Postgres {
    /// Connect, check the schema, take the schema's writer lock (waiting up
    /// to `lock_timeout`).
    pub fn open(target: &PgTarget, lock_timeout: Duration) -> Result<Postgres, Failure> {
        let pg = Postgres::connect(target)?;
        pg.lock(&target.schema, lock_timeout)?;
        Ok(pg)
    }

    /// Connect for reading only: every transaction of the session is read
    /// only, and no writer lock is taken (a run in progress is not waited
    /// for; what it has not committed is not seen).
    pub fn open_read_only(target: &PgTarget) -> Result<Postgres, Failure> {
        let pg = Postgres::connect(target)?;
        pg.exec("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")?;
        Ok(pg)
    }

    /// Connect, and check that the schema exists and read and write in it.
    fn connect(target: &PgTarget) -> Result<Postgres, Failure> {
        let shown = target.shown.clone();
        let client = target.config.connect(target.tls.connector()?).map_err(|e| {
            let text = pg_text(&e);
            let hint = if text.contains("UnknownIssuer") {
                " (the certificate's issuer is not a trusted root: name the server's CA with sslrootcert=FILE)"
            } else {
                ""
            };
            Failure::Environment(format!("cannot connect to {shown}: {text}{hint}"))
        })?;
        let pg = Postgres {
            client: RefCell::new(client),
            shown,
            meter: Meter::default(),
        };
        let schema = pg.string(&target.schema);
        if pg.count(&format!(
            "SELECT COUNT(*) FROM pg_catalog.pg_namespace WHERE nspname = {schema}"
        ))? == 0
        {
            return Err(Failure::Environment(format!(
                "schema '{}' does not exist in {}; create it (CREATE SCHEMA), or name another with ?schema=",
                target.schema, pg.shown
            )));
        }
        pg.exec(&format!("SET search_path TO {}", pg.ident(&target.schema)))?;
        Ok(pg)
    }
}

impl Connection for Postgres {
    fn dialect(&self) -> Dialect {
        Dialect::Postgres
    }

    fn statements(&self) -> usize {
        self.meter.count()
    }

    fn name(&self) -> &str {
        &self.shown
    }

    fn exec(&self, sql: &str) -> Result<(), Failure> {
        self.meter.add(1);
        self.client
            .borrow_mut()
            .batch_execute(sql)
            .map_err(|e| db_error(pg_text(&e), sql))
    }

    fn rows(&self, sql: &str) -> Result<Rows, Failure> {
        self.meter.add(1);
        let messages = self
            .client
            .borrow_mut()
            .simple_query(sql)
            .map_err(|e| db_error(pg_text(&e), sql))?;
        Ok(messages
            .into_iter()
            .filter_map(|m| match m {
                postgres::SimpleQueryMessage::Row(row) => Some(
                    (0..row.len())
                        .map(|i| row.get(i).map(str::to_string))
                        .collect(),
                ),
                _ => None,
            })
            .collect())
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            transactions: true,
            row_deletes: true,
            add_columns: true,
            file_store: None,
            drop_frees_space: true,
        }
    }

    fn begin(&self) -> Result<(), Failure> {
        self.exec("BEGIN")
    }

    fn commit(&self) -> Result<(), Failure> {
        self.exec("COMMIT")
    }

    fn rollback(&self) {
        self.meter.add(1);
        let _ = self.client.borrow_mut().batch_execute("ROLLBACK");
    }
}

impl Relations for Postgres {
    fn relation_exists(&self, name: &str) -> Result<bool, Failure> {
        Ok(self.count(&format!(
            "SELECT COUNT(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
             WHERE c.relname = {} AND c.relkind IN ('r', 'v', 'm', 'p', 'f') \
             AND (n.nspname = current_schema() OR n.oid = pg_my_temp_schema())",
            self.string(name)
        ))? > 0)
    }

    fn table_exists(&self, table: &TableName) -> Result<bool, Failure> {
        let Some(schema) = &table.schema else {
            return self.relation_exists(&table.table);
        };
        // A database other than the warehouse's cannot be read from it.
        let database = table
            .catalog
            .as_ref()
            .map(|c| format!(" AND current_database() = {}", self.string(c)))
            .unwrap_or_default();
        Ok(self.count(&format!(
            "SELECT COUNT(*) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
             WHERE c.relname = {} AND n.nspname = {} AND c.relkind IN ('r', 'v', 'm', 'p', 'f'){database}",
            self.string(&table.table),
            self.string(schema)
        ))? > 0)
    }

    fn columns(&self, relation: &str) -> Result<Vec<(String, String)>, Failure> {
        let sql = format!("SELECT * FROM {relation}");
        let stmt = self
            .client
            .borrow_mut()
            .prepare(&sql)
            .map_err(|e| db_error(pg_text(&e), &sql))?;
        Ok(stmt
            .columns()
            .iter()
            .map(|c| (c.name().to_string(), c.type_().name().to_string()))
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
        // No CREATE OR REPLACE TABLE. CASCADE drops the views that read
        // an earlier table of this name: the run that rebuilds it repoints
        // its views in the same transaction.
        self.exec(&format!(
            "DROP TABLE IF EXISTS {table} CASCADE; CREATE TABLE {table} AS\n{select}"
        ))?;
        Ok(None)
    }

    fn replace_view(&self, view: &str, relation: &str) -> Result<(), Failure> {
        // CREATE OR REPLACE VIEW keeps views built on this one, but cannot
        // drop or retype columns: then the view is dropped and created
        // again (in the run's transaction, so readers see the switch at
        // commit).
        let create = format!("CREATE OR REPLACE VIEW {view} AS SELECT * FROM {relation}");
        self.exec("SAVEPOINT strata_view")?;
        if self.exec(&create).is_ok() {
            return self.exec("RELEASE SAVEPOINT strata_view");
        }
        self.exec(&format!(
            "ROLLBACK TO SAVEPOINT strata_view; DROP VIEW IF EXISTS {view}; CREATE VIEW {view} AS SELECT * FROM {relation}; RELEASE SAVEPOINT strata_view"
        ))
    }
}

impl Storage for Postgres {
    fn relation_bytes(&self, table: &str) -> Result<Option<i64>, Failure> {
        let rows = self.rows(&format!(
            "SELECT pg_total_relation_size(c.oid) FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
             WHERE c.relname = {} AND n.nspname = current_schema()",
            self.string(table)
        ))?;
        Ok(rows
            .first()
            .and_then(|r| r.first().cloned().flatten())
            .and_then(|v| v.parse().ok()))
    }

    fn relation_bytes_each(&self, tables: &[String]) -> Result<Vec<Option<i64>>, Failure> {
        if tables.is_empty() {
            return Ok(Vec::new());
        }
        let names: Vec<String> = tables.iter().map(|t| self.string(t)).collect();
        let sizes: std::collections::HashMap<String, i64> = self
            .rows(&format!(
                "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_catalog.pg_class c \
                 JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
                 WHERE n.nspname = current_schema() AND c.relname IN ({})",
                names.join(", ")
            ))?
            .into_iter()
            .filter_map(|r| {
                let mut r = r.into_iter();
                Some((r.next()??, r.next()??.parse().ok()?))
            })
            .collect();
        // A table that is not there takes nothing.
        Ok(tables
            .iter()
            .map(|t| Some(sizes.get(t).copied().unwrap_or(0)))
            .collect())
    }

    fn size(&self) -> Result<Option<Size>, Failure> {
        let rows = self.rows(
            "SELECT current_schema(), CAST(COALESCE(SUM(pg_total_relation_size(c.oid)), 0) AS BIGINT) \
             FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
             WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'm', 'p')",
        )?;
        let cell = |i: usize| rows.first().and_then(|r| r.get(i).cloned().flatten());
        Ok(Some(Size {
            what: format!("schema {}", cell(0).unwrap_or_default()),
            bytes: cell(1).and_then(|b| b.parse().ok()).unwrap_or(0),
            free: None,
        }))
    }
}

impl RunSql for Postgres {
    fn compatible(&self, ty: &Type, physical: &str) -> bool {
        let p = physical.to_ascii_lowercase();
        let int = ["int2", "int4", "int8"];
        match ty {
            Type::Int64 => int.contains(&p.as_str()),
            Type::Float32 => p == "float4",
            Type::Float64 => p == "float8" || p == "float4",
            Type::Decimal(..) | Type::Money(_) => p == "numeric" || int.contains(&p.as_str()),
            Type::String => matches!(p.as_str(), "text" | "varchar" | "bpchar" | "name"),
            Type::Bool => p == "bool",
            Type::Date => p == "date",
            Type::Timestamp => p == "timestamp",
            Type::TimestampTz => p == "timestamptz",
            Type::Uuid => matches!(p.as_str(), "uuid" | "text" | "varchar"),
            Type::Json => matches!(p.as_str(), "json" | "jsonb" | "text" | "varchar"),
            Type::Array(_) => p.starts_with('_'),
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
        // PostgreSQL 15 has no TRY_CAST: cast the whole column; a value
        // that does not convert fails the query (outside any transaction
        // of the run), and the server names it.
        let sql = format!("SELECT COUNT(CAST({column} AS {target})) FROM {relation}");
        self.meter.add(1);
        let err = match self.client.borrow_mut().simple_query(&sql) {
            Ok(_) => return Ok(None),
            Err(e) => e,
        };
        let Some(db) = err.as_db_error() else {
            return Err(db_error(pg_text(&err), &sql));
        };
        if !db.code().code().starts_with("22") {
            return Err(db_error(pg_text(&err), &sql));
        }
        // `invalid input syntax for type bigint: "abc"`.
        let message = db.message();
        let value = match (message.find('"'), message.rfind('"')) {
            (Some(a), Some(b)) if b > a => message[a + 1..b].to_string(),
            _ => return Ok(Some((message.to_string(), None))),
        };
        let row = self.rows(&format!(
            "SELECT n FROM (SELECT CAST({column} AS TEXT) AS v, row_number() OVER () AS n FROM {relation}) AS t \
             WHERE v = {} ORDER BY n LIMIT 1",
            self.string(&value)
        ))?;
        let row = row
            .into_iter()
            .next()
            .and_then(|r| r.into_iter().next().flatten());
        Ok(Some((value, row)))
    }

    fn hash_sum(&self, alias: &str) -> String {
        // The 64-bit hash of the row's text, summed as NUMERIC (no
        // overflow). On 1 M rows: 165 ms, against 505 ms for MD5; the
        // row's text works for every column type (hash_record_extended
        // does not: json has no hash function).
        format!("COALESCE(SUM(CAST(hashtextextended(CAST({alias} AS TEXT), 0) AS NUMERIC)), 0)")
    }

    fn sample_condition(&self, keys: &[String], salt: u64, threshold: u64) -> String {
        // hashtextextended is uniform over the signed range: shift the
        // unsigned threshold into it.
        let signed = crate::signed_threshold(threshold);
        format!(
            "hashtextextended(CAST(ROW({}) AS TEXT), {}) < {signed}",
            keys.join(", "),
            salt as i64
        )
    }

    fn top_groups_json(&self, key_texts: &[String], filter: Option<&str>) -> String {
        let filter = crate::filter_clause(filter);
        format!(
            "CAST(to_json((array_agg(json_build_object('k', json_build_array({}), 'n', n) ORDER BY n DESC){filter})[1:{}]) AS TEXT)",
            key_texts.join(", "),
            crate::SAMPLES
        )
    }
}
