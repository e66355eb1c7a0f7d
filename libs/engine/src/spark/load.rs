//! Loading a source file on Spark: read by the embedded DuckDB, sent as
//! rows of literals into a table of the file's columns.

use super::types::spark_type_of_duckdb;
use super::Spark;
use crate::duckdb::ToLoad;
use crate::{Connection, Failure};

impl Spark {
    /// Create a table from a file read by the embedded DuckDB: its columns
    /// as DuckDB types them, its rows sent as literals.
    pub(super) fn load_file(&self, table: &str, file: ToLoad) -> Result<String, Failure> {
        let (duck, relation, columns) = (file.duck, &file.relation, file.columns);
        let table = self.ident(table);
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
