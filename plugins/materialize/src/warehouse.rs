//! The warehouse: an embedded DuckDB database file (or `:memory:`), the
//! writer lock, and the metadata tables strata keeps in it.

use std::time::{Duration, Instant};

use duckdb::Connection;

use crate::Failure;

/// SQL identifier quoting for DuckDB (`"x"`, `""` escapes a quote).
pub fn ident(name: &str) -> String {
    strata_lang::sql::Dialect::DuckDb.ident(name)
}

/// SQL string literal for DuckDB.
pub fn string(value: &str) -> String {
    strata_lang::sql::Dialect::DuckDb.string(value)
}

/// An open warehouse.
pub struct Warehouse {
    pub conn: Connection,
    /// As the user named it (for messages).
    pub path: String,
}

/// The columns of `_strata_runs`, in the order a run inserts them.
pub const RUN_COLUMNS: &str = "run_id, started_at, module, branch, stage_only, models, fingerprints, overrides, inputs, snapshots, report, sampling";

/// Metadata tables, created on first use.
const METADATA: &str = r#"
CREATE TABLE IF NOT EXISTS "_strata_runs" (
    run_id VARCHAR NOT NULL,
    started_at TIMESTAMP NOT NULL,
    module VARCHAR NOT NULL,
    branch VARCHAR NOT NULL,
    stage_only BOOLEAN NOT NULL,
    models VARCHAR NOT NULL,
    fingerprints VARCHAR NOT NULL,
    overrides VARCHAR NOT NULL,
    inputs VARCHAR NOT NULL,
    snapshots VARCHAR NOT NULL,
    report VARCHAR NOT NULL
);
-- Added after the first release: warehouses created before get the column.
-- JSON {"rows": N, "salt": "hex"} when the run's cardinality checks were
-- sampled, NULL when exact.
ALTER TABLE "_strata_runs" ADD COLUMN IF NOT EXISTS sampling VARCHAR;
CREATE TABLE IF NOT EXISTS "_strata_inputs" (
    content_hash VARCHAR NOT NULL,
    source VARCHAR NOT NULL,
    table_name VARCHAR NOT NULL,
    row_count BIGINT NOT NULL
);
"#;

impl Warehouse {
    /// Open (or create) the warehouse. Another writer holding the file is
    /// waited for up to `lock_timeout`, then reported with its holder.
    pub fn open(path: &str, lock_timeout: Duration) -> Result<Warehouse, Failure> {
        let start = Instant::now();
        let conn = loop {
            let attempt = if path == ":memory:" {
                Connection::open_in_memory()
            } else {
                Connection::open(path)
            };
            match attempt {
                Ok(c) => break c,
                Err(e) => {
                    let msg = e.to_string();
                    let locked = msg.contains("lock") || msg.contains("Conflicting");
                    if locked && start.elapsed() < lock_timeout {
                        std::thread::sleep(Duration::from_millis(100));
                        continue;
                    }
                    if locked {
                        return Err(Failure::Environment(format!(
                            "warehouse {path} is locked by another writer after waiting {:.0} s ({}); try again, or raise --lock-timeout",
                            lock_timeout.as_secs_f64(),
                            holder(&msg)
                        )));
                    }
                    return Err(Failure::Environment(format!(
                        "cannot open warehouse {path}: {msg}"
                    )));
                }
            }
        };
        let wh = Warehouse {
            conn,
            path: path.to_string(),
        };
        wh.exec(METADATA)?;
        Ok(wh)
    }

    /// Run statements; a database error is an environment failure.
    pub fn exec(&self, sql: &str) -> Result<(), Failure> {
        self.conn.execute_batch(sql).map_err(|e| {
            Failure::Environment(format!(
                "database error: {e}\n  while running: {}",
                first_line(sql)
            ))
        })
    }

    /// Run a query and return its rows as text cells (NULL as `None`).
    pub fn rows(&self, sql: &str) -> Result<Vec<Vec<Option<String>>>, Failure> {
        let err = |e: duckdb::Error| {
            Failure::Environment(format!(
                "database error: {e}\n  while running: {}",
                first_line(sql)
            ))
        };
        let mut stmt = self.conn.prepare(sql).map_err(err)?;
        let mut rows = stmt.query([]).map_err(err)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(err)? {
            let n = row.as_ref().column_count();
            let mut cells = Vec::with_capacity(n);
            for i in 0..n {
                let v: duckdb::types::Value = row.get(i).map_err(err)?;
                cells.push(value_text(&v));
            }
            out.push(cells);
        }
        Ok(out)
    }

    /// A single integer (the first cell of the first row).
    pub fn count(&self, sql: &str) -> Result<i64, Failure> {
        let rows = self.rows(sql)?;
        Ok(rows
            .first()
            .and_then(|r| r.first())
            .and_then(|c| c.as_deref())
            .and_then(|s| s.parse::<i64>().ok())
            .unwrap_or(0))
    }

    /// Whether a table or view of that name exists.
    pub fn relation_exists(&self, name: &str) -> Result<bool, Failure> {
        Ok(self.count(&format!(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_name = {}",
            string(name)
        ))? > 0)
    }

    pub fn begin(&self) -> Result<(), Failure> {
        self.exec("BEGIN TRANSACTION")
    }

    pub fn commit(&self) -> Result<(), Failure> {
        self.exec("COMMIT")
    }

    /// Roll back; errors are ignored (there may be no open transaction).
    pub fn rollback(&self) {
        let _ = self.conn.execute_batch("ROLLBACK");
    }
}

/// The text of a value as the reports show it.
pub fn value_text(v: &duckdb::types::Value) -> Option<String> {
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
        V::Text(s) => s.clone(),
        other => format!("{other:?}"),
    })
}

fn first_line(sql: &str) -> String {
    let line = sql.trim().lines().next().unwrap_or("");
    if line.len() > 160 {
        format!(
            "{}...",
            &line[..line.char_indices().nth(160).map_or(line.len(), |(i, _)| i)]
        )
    } else {
        line.to_string()
    }
}

/// The lock holder DuckDB names in its error (`... held in <cmd> (PID n)`).
fn holder(msg: &str) -> String {
    if let Some(i) = msg.find("held in ") {
        let rest = &msg[i + "held in ".len()..];
        if let Some(j) = rest.find(')') {
            return format!("held by {}", &rest[..=j]);
        }
    }
    "held by another process".to_string()
}
