//! Loading a source file on PostgreSQL: read by the embedded DuckDB on
//! the client, streamed in with `COPY ... FROM STDIN`, so the server needs
//! no access to the file.

use std::io::Write;

use super::{pg_text, Postgres};
use crate::duckdb::ToLoad;
use crate::{db_error, Connection, Failure};

impl Postgres {
    /// Load a file into a temporary table through the embedded DuckDB: its
    /// columns typed as DuckDB reads them and named in lower case (as
    /// PostgreSQL folds unquoted names: DuckDB matches names in any case,
    /// PostgreSQL only quoted names of the same case), its rows as CSV over
    /// COPY.
    pub(super) fn load_file(&self, table: &str, file: ToLoad) -> Result<String, Failure> {
        let (duck, relation, columns) = (file.duck, &file.relation, file.columns);
        let table = self.ident(table);
        let defs: Vec<String> = columns
            .iter()
            .map(|(name, ty)| {
                format!(
                    "{} {}",
                    self.ident(&name.to_lowercase()),
                    pg_type_of_duckdb(ty)
                )
            })
            .collect();
        self.exec(&format!(
            "DROP TABLE IF EXISTS pg_temp.{table}; CREATE TEMPORARY TABLE {table} ({})",
            defs.join(", ")
        ))?;
        let csv =
            std::env::temp_dir().join(format!("strata-load-{}-{table}.csv", std::process::id()));
        // A list is written as PostgreSQL's array literal (`{"a","b",NULL}`:
        // every element quoted, which each element type's input accepts).
        let cells: Vec<String> = columns
            .iter()
            .map(|(name, ty)| {
                let c = duck.ident(name);
                match pg_array_element(ty) {
                    Some(_) => format!(
                        r#"CASE WHEN {c} IS NULL THEN NULL ELSE '{{' || array_to_string(list_transform({c}, lambda x: CASE WHEN x IS NULL THEN 'NULL' ELSE '"' || replace(replace(CAST(x AS VARCHAR), '\', '\\'), '"', '\"') || '"' END), ',') || '}}' END"#
                    ),
                    None => c,
                }
            })
            .collect();
        let result = (|| {
            duck.exec(&format!(
                "COPY (SELECT {} FROM {relation}) TO {} (FORMAT csv, HEADER false)",
                cells.join(", "),
                duck.string(&csv.to_string_lossy())
            ))?;
            let copy = format!("COPY {table} FROM STDIN (FORMAT csv)");
            self.meter.add(1);
            let mut client = self.client.borrow_mut();
            let mut writer = client
                .copy_in(&copy)
                .map_err(|e| db_error(pg_text(&e), &copy))?;
            let mut file = std::fs::File::open(&csv)
                .map_err(|e| Failure::Environment(format!("cannot read {}: {e}", csv.display())))?;
            std::io::copy(&mut file, &mut writer)
                .and_then(|_| writer.flush())
                .map_err(|e| db_error(e, &copy))?;
            writer.finish().map_err(|e| db_error(pg_text(&e), &copy))?;
            Ok(table)
        })();
        let _ = std::fs::remove_file(&csv);
        result
    }
}

/// The PostgreSQL type of a column DuckDB read from a file.
fn pg_type_of_duckdb(ty: &str) -> String {
    let t = ty.to_ascii_uppercase();
    match t.as_str() {
        "TINYINT" | "SMALLINT" | "UTINYINT" => "SMALLINT".into(),
        "INTEGER" | "USMALLINT" => "INTEGER".into(),
        "BIGINT" | "UINTEGER" => "BIGINT".into(),
        "UBIGINT" | "HUGEINT" | "UHUGEINT" => "NUMERIC(39,0)".into(),
        "FLOAT" => "REAL".into(),
        "DOUBLE" => "DOUBLE PRECISION".into(),
        "BOOLEAN" | "DATE" | "TIME" | "UUID" | "JSON" | "INTERVAL" => t,
        "TIMESTAMP" | "TIMESTAMP_NS" | "TIMESTAMP_MS" | "TIMESTAMP_S" => "TIMESTAMP".into(),
        "TIMESTAMP WITH TIME ZONE" => "TIMESTAMPTZ".into(),
        "BLOB" => "BYTEA".into(),
        _ if t.starts_with("DECIMAL") => t.replacen("DECIMAL", "NUMERIC", 1),
        _ => match pg_array_element(&t) {
            Some(element) => format!("{}[]", pg_type_of_duckdb(element)),
            None => "TEXT".into(),
        },
    }
}

/// The element type of a DuckDB list type (`VARCHAR[]`) that becomes a
/// PostgreSQL array. One level only: PostgreSQL's arrays of arrays must be
/// rectangular, so a list of lists stays text.
fn pg_array_element(ty: &str) -> Option<&str> {
    ty.strip_suffix("[]").filter(|e| !e.ends_with("[]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_columns_take_postgres_types_one_level_of_list_included() {
        assert_eq!(pg_type_of_duckdb("INTEGER"), "INTEGER");
        assert_eq!(pg_type_of_duckdb("DECIMAL(10,2)"), "NUMERIC(10,2)");
        assert_eq!(pg_type_of_duckdb("VARCHAR[]"), "TEXT[]");
        assert_eq!(pg_type_of_duckdb("DATE[]"), "DATE[]");
        assert_eq!(pg_type_of_duckdb("BIGINT[][]"), "TEXT");
    }
}
