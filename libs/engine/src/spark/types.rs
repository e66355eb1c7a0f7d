//! Types and values between Spark and the rest: the Spark type of a
//! column DuckDB read from a file, and Arrow results as text cells.

use arrow_array::RecordBatch;
use arrow_cast::display::{ArrayFormatter, FormatOptions};

use crate::Rows;

/// The Spark type of a column DuckDB read from a file.
pub(super) fn spark_type_of_duckdb(ty: &str) -> String {
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

/// The cells of record batches as text, as the other engines write them
/// (dates `YYYY-MM-DD`, timestamps `YYYY-MM-DD HH:MM:SS[.ffffff]`).
pub(super) fn text_rows(batches: &[RecordBatch]) -> Result<Rows, String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_columns_take_spark_types_lists_included() {
        assert_eq!(spark_type_of_duckdb("INTEGER"), "BIGINT");
        assert_eq!(spark_type_of_duckdb("DECIMAL(10,2)"), "DECIMAL(10,2)");
        assert_eq!(spark_type_of_duckdb("VARCHAR[]"), "ARRAY<STRING>");
        assert_eq!(spark_type_of_duckdb("DATE[][]"), "ARRAY<ARRAY<DATE>>");
    }
}
