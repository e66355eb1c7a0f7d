//! Arrays: built from values, searched, extended, sorted; indexes are
//! 0-based and an index past the end is null, in every dialect.

use super::ArgKind::*;
use super::Returns::*;
use super::{Family, Function, Sql, SqlCall, SCALAR};
use crate::sql::dialect::{unsupported, Dialect, Unsupported};

const ARR: Function = Function {
    family: Family::Array,
    min_args: 2,
    max_args: Some(2),
    returns: Special,
    ..SCALAR
};

/// Cast to the array type the checker gave it (PostgreSQL and DuckDB type
/// `[1, 2]` as an array of 4-byte integers).
fn construct(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let literal = d.array_literal(&c.list());
    match d {
        Dialect::DuckDb | Dialect::Postgres => d.cast(&literal, c.ty),
        Dialect::BigQuery | Dialect::Snowflake | Dialect::Spark => Ok(literal),
    }
}

fn length(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let a = c.a(0);
    Ok(match d {
        Dialect::DuckDb => format!("LEN({a})"),
        Dialect::Postgres => format!("CARDINALITY({a})"),
        Dialect::BigQuery => format!("ARRAY_LENGTH({a})"),
        Dialect::Snowflake | Dialect::Spark => format!("ARRAY_SIZE({a})"),
    })
}

fn contains(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let (a, v) = (c.a(0), c.a(1));
    Ok(match d {
        Dialect::DuckDb => format!("LIST_CONTAINS({a}, {v})"),
        Dialect::Postgres => format!("({v} = ANY({a}))"),
        Dialect::BigQuery => format!("({v} IN UNNEST({a}))"),
        Dialect::Snowflake => format!("ARRAY_CONTAINS(CAST({v} AS VARIANT), {a})"),
        Dialect::Spark => format!("ARRAY_CONTAINS({a}, {v})"),
    })
}

fn get(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let (a, i) = (c.a(0), c.a(1));
    Ok(match d {
        Dialect::DuckDb | Dialect::Postgres => format!("({a})[({i}) + 1]"),
        Dialect::BigQuery => format!("{a}[SAFE_OFFSET({i})]"),
        Dialect::Snowflake => format!("{a}[{i}]"),
        // 1-based; NULL past the end, as the others.
        Dialect::Spark => format!("TRY_ELEMENT_AT({a}, ({i}) + 1)"),
    })
}

fn concat(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let list = c.list();
    Ok(match d {
        Dialect::DuckDb => format!("LIST_CONCAT({list})"),
        Dialect::Postgres | Dialect::Snowflake => format!("ARRAY_CAT({list})"),
        Dialect::BigQuery => format!("ARRAY_CONCAT({list})"),
        Dialect::Spark => format!("CONCAT({list})"),
    })
}

fn append(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let list = c.list();
    Ok(match d {
        Dialect::DuckDb => format!("LIST_APPEND({list})"),
        Dialect::Postgres => format!("ARRAY_APPEND({list})"),
        Dialect::BigQuery => format!("ARRAY_CONCAT({}, [{}])", c.a(0), c.a(1)),
        Dialect::Snowflake | Dialect::Spark => format!("ARRAY_APPEND({list})"),
    })
}

fn prepend(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let list = c.list();
    Ok(match d {
        Dialect::DuckDb => format!("LIST_PREPEND({list})"),
        Dialect::Postgres => format!("ARRAY_PREPEND({list})"),
        Dialect::BigQuery => format!("ARRAY_CONCAT([{}], {})", c.a(0), c.a(1)),
        Dialect::Snowflake | Dialect::Spark => format!("ARRAY_PREPEND({}, {})", c.a(1), c.a(0)),
    })
}

fn remove(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let (a, v) = (c.a(0), c.a(1));
    Ok(match d {
        // DuckDB 1.2 refuses the arrow form of a lambda.
        Dialect::DuckDb => format!("LIST_FILTER({a}, lambda __x: __x <> {v})"),
        Dialect::Postgres | Dialect::Spark => format!("ARRAY_REMOVE({})", c.list()),
        Dialect::BigQuery => {
            format!("ARRAY(SELECT __x FROM UNNEST({a}) AS __x WHERE __x != {v})")
        }
        Dialect::Snowflake => format!("ARRAY_REMOVE({a}, CAST({v} AS VARIANT))"),
    })
}

fn index_of(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let (a, v) = (c.a(0), c.a(1));
    Ok(match d {
        Dialect::DuckDb => format!("(LIST_POSITION({a}, {v}) - 1)"),
        Dialect::Postgres => format!("(ARRAY_POSITION({a}, {v}) - 1)"),
        Dialect::Snowflake => format!("ARRAY_POSITION(CAST({v} AS VARIANT), {a})"),
        // 1-based with 0 for "not there"; the others give NULL.
        Dialect::Spark => format!("(NULLIF(ARRAY_POSITION({a}, {v}), 0) - 1)"),
        Dialect::BigQuery => return unsupported(d, "array_index_of()"),
    })
}

fn sort(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let a = c.a(0);
    Ok(match d {
        Dialect::DuckDb => format!("LIST_SORT({a})"),
        Dialect::BigQuery => format!("ARRAY(SELECT __x FROM UNNEST({a}) AS __x ORDER BY __x)"),
        Dialect::Snowflake | Dialect::Spark => format!("ARRAY_SORT({a})"),
        Dialect::Postgres => return unsupported(d, "array_sort()"),
    })
}

pub(super) const FUNCTIONS: &[Function] = &[
    Function {
        name: "array_construct",
        example: "array_construct(1, 2)",
        min_args: 1,
        max_args: None,
        signature: "array_construct(a, b, ...)",
        summary: "an array of the values (all of one type)",
        sql: Sql::By(construct),
        sql_aliases: &["array"],
        ..ARR
    },
    Function {
        name: "list",
        example: "list(\"a\", \"b\")",
        min_args: 1,
        max_args: None,
        signature: "list(a, b, ...)",
        summary: "the same as array_construct",
        sql: Sql::By(construct),
        ..ARR
    },
    Function {
        name: "array_contains",
        example: "array_contains(a, 1)",
        kinds: &[Array, Any],
        signature: "array_contains(array, value)",
        summary: "whether the array holds the value",
        sql: Sql::By(contains),
        sql_aliases: &["list_contains"],
        ..ARR
    },
    Function {
        name: "array_concat",
        example: "array_concat(a, a)",
        kinds: &[Array, Array],
        signature: "array_concat(a, b)",
        summary: "the elements of a, then those of b",
        sql: Sql::By(concat),
        sql_aliases: &["array_cat", "list_concat"],
        ..ARR
    },
    Function {
        name: "array_append",
        example: "array_append(a, 3)",
        kinds: &[Array, Any],
        signature: "array_append(array, value)",
        summary: "the array with the value added at the end",
        sql: Sql::By(append),
        sql_aliases: &["list_append"],
        ..ARR
    },
    Function {
        name: "array_prepend",
        example: "array_prepend(0, a)",
        kinds: &[Any, Array],
        signature: "array_prepend(value, array)",
        summary: "the array with the value added at the start",
        sql: Sql::By(prepend),
        sql_aliases: &["list_prepend"],
        ..ARR
    },
    Function {
        name: "array_remove",
        example: "array_remove(a, 1)",
        kinds: &[Array, Any],
        signature: "array_remove(array, value)",
        summary: "the array without the elements equal to the value",
        sql: Sql::By(remove),
        ..ARR
    },
    Function {
        name: "array_index_of",
        example: "array_index_of(a, 2)",
        kinds: &[Array, Any],
        signature: "array_index_of(array, value)",
        summary: "the 0-based index of the value's first occurrence, null when absent",
        sql: Sql::By(index_of),
        ..ARR
    },
    Function {
        name: "array_sort",
        example: "array_sort(a)",
        min_args: 1,
        max_args: Some(1),
        kinds: &[Array],
        signature: "array_sort(array)",
        summary: "the elements in ascending order",
        sql: Sql::By(sort),
        sql_aliases: &["list_sort"],
        ..ARR
    },
    Function {
        name: "array_length",
        example: "array_length(a)",
        min_args: 1,
        max_args: Some(1),
        kinds: &[Array],
        returns: Int64A1,
        signature: "array_length(array)",
        summary: "the number of elements",
        sql: Sql::By(length),
        sql_aliases: &["array_size", "cardinality"],
        ..ARR
    },
    Function {
        name: "array_get",
        example: "array_get(a, 0)",
        kinds: &[Array, Int],
        signature: "array_get(array, index)",
        summary: "the element at the 0-based index, null past the end",
        sql: Sql::By(get),
        ..ARR
    },
];
