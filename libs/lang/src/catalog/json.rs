//! JSON: objects built from pairs, values read by key or path.

use super::ArgKind::*;
use super::Returns::*;
use super::{Family, Function, Sql, SqlCall, SCALAR};
use crate::sql::dialect::{json_key_path, unsupported, Dialect, Unsupported};

const JSON: Function = Function {
    family: Family::Json,
    min_args: 2,
    max_args: Some(2),
    kinds: &[Json, Str],
    returns: JsonNullable,
    ..SCALAR
};

fn build(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let list = c.list();
    Ok(match d {
        Dialect::DuckDb | Dialect::BigQuery => format!("JSON_OBJECT({list})"),
        Dialect::Postgres => format!("JSON_BUILD_OBJECT({list})"),
        Dialect::Snowflake => format!("OBJECT_CONSTRUCT({list})"),
        Dialect::Spark => format!("TO_JSON(NAMED_STRUCT({list}))"),
    })
}

fn is_null(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let j = c.a(0);
    Ok(match d {
        Dialect::DuckDb => format!("(JSON_TYPE({j}) = 'NULL')"),
        Dialect::Postgres => format!("(JSON_TYPEOF({j}) = 'null')"),
        Dialect::BigQuery => format!("(JSON_TYPE({j}) = 'null')"),
        Dialect::Snowflake => format!("IS_NULL_VALUE({j})"),
        Dialect::Spark => format!("(TRIM({j}) = 'null')"),
    })
}

/// The value at a key: as JSON (`json_get`) or as text (`json_value`).
fn at_key(d: Dialect, c: &SqlCall, text: bool) -> String {
    let (j, k) = (c.a(0), c.a(1));
    let path = json_key_path(d, c.targs.get(1), k);
    match d {
        Dialect::DuckDb if text => format!("JSON_EXTRACT_STRING({j}, {path})"),
        Dialect::DuckDb => format!("JSON_EXTRACT({j}, {path})"),
        Dialect::Postgres if text => format!("({j} ->> {k})"),
        Dialect::Postgres => format!("({j} -> {k})"),
        Dialect::BigQuery if text => format!("JSON_VALUE({j}, {path})"),
        Dialect::BigQuery => format!("JSON_QUERY({j}, {path})"),
        Dialect::Snowflake if text => format!("CAST(GET({j}, {k}) AS VARCHAR)"),
        Dialect::Snowflake => format!("GET({j}, {k})"),
        Dialect::Spark => format!("GET_JSON_OBJECT({j}, {path})"),
    }
}

fn get(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(at_key(d, c, false))
}

fn value(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(at_key(d, c, true))
}

fn path(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let (j, p) = (c.a(0), c.a(1));
    Ok(match d {
        Dialect::DuckDb => format!("JSON_EXTRACT({j}, {p})"),
        Dialect::Postgres => format!(
            "CAST(JSONB_PATH_QUERY_FIRST(CAST({j} AS JSONB), CAST({p} AS JSONPATH)) AS JSON)"
        ),
        Dialect::BigQuery => format!("JSON_QUERY({j}, {p})"),
        Dialect::Spark => format!("GET_JSON_OBJECT({j}, {p})"),
        Dialect::Snowflake => return unsupported(d, "json_path() with a JSONPath"),
    })
}

pub(super) const FUNCTIONS: &[Function] = &[
    Function {
        name: "json_build",
        example: "json_build(\"k\", s)",
        max_args: None,
        kinds: &[Any],
        signature: "json_build(\"key\", value, ...)",
        summary: "a JSON object of the key, value pairs (keys are string literals)",
        sql: Sql::By(build),
        ..JSON
    },
    Function {
        name: "json_is_null",
        example: "json_is_null(j)",
        min_args: 1,
        max_args: None,
        kinds: &[Json],
        returns: BoolNullable,
        signature: "json_is_null(j)",
        summary: "whether the JSON value is JSON's null",
        sql: Sql::By(is_null),
        ..JSON
    },
    Function {
        name: "json_get",
        example: "json_get(j, \"k\")",
        signature: "json_get(j, \"key\")",
        summary: "the JSON value at the key (null when absent)",
        sql: Sql::By(get),
        ..JSON
    },
    Function {
        name: "json_value",
        example: "json_value(j, \"k\")",
        returns: Special,
        signature: "json_value(j, \"key\")",
        summary: "the value at the key as a string (null when absent)",
        sql: Sql::By(value),
        ..JSON
    },
    Function {
        name: "json_path",
        example: "json_path(j, \"$.a.b\")",
        signature: "json_path(j, \"$.a.b[0]\")",
        summary: "the JSON value at the path (null when absent)",
        sql: Sql::By(path),
        ..JSON
    },
];
