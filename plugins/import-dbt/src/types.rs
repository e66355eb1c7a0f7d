//! Warehouse type names (DuckDB's, as its CSV sniffer, `catalog.json`, a
//! YAML `data_type` or a seed's `column_types` spell them) to strata
//! types, and strata types written back as a declaration writes them.

use strata_lang::types::Type;

/// The strata type of a warehouse type name; `Err` says why there is none
/// (a type strata has no equivalent for, or one whose values would change).
pub fn from_warehouse(name: &str) -> Result<Type, String> {
    let upper = name.trim().to_ascii_uppercase();
    let base = upper.split('(').next().unwrap_or("").trim();
    let params: Vec<u32> = upper
        .split_once('(')
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .map(|p| {
            p.split(',')
                .filter_map(|x| x.trim().parse::<u32>().ok())
                .collect()
        })
        .unwrap_or_default();
    Ok(match base {
        "BIGINT" | "INT8" | "LONG" | "INTEGER" | "INT" | "INT4" | "INT32" | "INT64" | "SIGNED"
        | "SMALLINT" | "INT2" | "SHORT" | "TINYINT" | "INT1" | "UTINYINT" | "USMALLINT"
        | "UINTEGER" => Type::Int64,
        "DOUBLE" | "FLOAT8" | "DOUBLE PRECISION" | "FLOAT64" => Type::Float64,
        "DECIMAL" | "NUMERIC" => match params.as_slice() {
            [p, s] => Type::Decimal(*p, *s),
            [p] => Type::Decimal(*p, 0),
            // DuckDB's default for a bare DECIMAL.
            _ => Type::Decimal(18, 3),
        },
        "VARCHAR" | "TEXT" | "STRING" | "CHAR" | "BPCHAR" | "CHARACTER VARYING" | "CHARACTER" => {
            Type::String
        }
        "BOOLEAN" | "BOOL" | "LOGICAL" => Type::Bool,
        "DATE" => Type::Date,
        "TIMESTAMP" | "DATETIME" | "TIMESTAMP WITHOUT TIME ZONE" | "TIMESTAMP_US" => {
            Type::Timestamp
        }
        "UUID" => Type::Uuid,
        "JSON" => Type::Json,
        "FLOAT" | "FLOAT4" | "REAL" => Type::Float32,
        "TIMESTAMPTZ" | "TIMESTAMP WITH TIME ZONE" => Type::TimestampTz,
        "HUGEINT" | "UBIGINT" | "UHUGEINT" | "INT128" => {
            return Err(format!("type {name} holds integers beyond int64's range"))
        }
        _ => return Err(format!("type {name} has no strata equivalent")),
    })
}

/// A type as a strata declaration writes it (`decimal(10, 2)`,
/// `array(string)`); `None` for the unknown type.
pub fn declared(t: &Type) -> Option<String> {
    Some(match t {
        Type::Decimal(p, s) => format!("decimal({p}, {s})"),
        Type::Money(c) => format!("money({c})"),
        Type::Array(e) => format!("array({})", declared(e)?),
        Type::Unknown => return None,
        other => other.plain_name()?.to_string(),
    })
}

/// The name `cast(x, "...")` takes for a type (`decimal(10,2)`).
pub fn cast_name(t: &Type) -> Option<String> {
    Some(match t {
        Type::Decimal(p, s) => format!("decimal({p},{s})"),
        Type::Money(c) => format!("money({c})"),
        Type::Array(_) | Type::Unknown => return None,
        other => other.plain_name()?.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warehouse_names() {
        assert_eq!(from_warehouse("BIGINT"), Ok(Type::Int64));
        assert_eq!(from_warehouse("integer"), Ok(Type::Int64));
        assert_eq!(from_warehouse("DECIMAL(10,2)"), Ok(Type::Decimal(10, 2)));
        assert_eq!(from_warehouse("varchar"), Ok(Type::String));
        assert_eq!(from_warehouse("TIMESTAMP"), Ok(Type::Timestamp));
        assert_eq!(from_warehouse("FLOAT"), Ok(Type::Float32));
        assert_eq!(
            from_warehouse("TIMESTAMP WITH TIME ZONE"),
            Ok(Type::TimestampTz)
        );
        assert!(from_warehouse("STRUCT(a INTEGER)").is_err());
        assert_eq!(
            declared(&Type::Decimal(10, 2)).as_deref(),
            Some("decimal(10, 2)")
        );
        assert_eq!(
            declared(&Type::Array(Box::new(Type::String))).as_deref(),
            Some("array(string)")
        );
        assert_eq!(
            cast_name(&Type::Decimal(10, 2)).as_deref(),
            Some("decimal(10,2)")
        );
    }
}
