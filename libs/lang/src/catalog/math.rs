//! Numbers: rounding, signs, remainders, powers and logarithms. A result
//! keeps its argument's type (cast back where an engine widens or narrows
//! it), or is float64 where the function is irrational.

use super::ArgKind::*;
use super::Returns::*;
use super::{Family, Function, Sql, SqlCall, SCALAR};
use crate::sql::dialect::{Dialect, Unsupported};
use crate::types::Type;

const NUM: Function = Function {
    family: Family::Math,
    kinds: &[Num],
    returns: SameA1,
    ..SCALAR
};

/// Half away from zero, as DuckDB, Spark, BigQuery and Snowflake round
/// (PostgreSQL rounds a double half to even: it rounds a NUMERIC here).
fn round(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let digits = if c.args.len() > 1 { c.a(1) } else { "0" };
    let t = d.type_name(c.ty)?;
    Ok(match d {
        Dialect::Postgres => format!(
            "CAST(ROUND(CAST({} AS NUMERIC), CAST({digits} AS INTEGER)) AS {t})",
            c.a(0)
        ),
        Dialect::DuckDb | Dialect::BigQuery | Dialect::Snowflake | Dialect::Spark => {
            format!("CAST(ROUND({}, {digits}) AS {t})", c.a(0))
        }
    })
}

/// Toward zero.
fn trunc(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let x = c.a(0);
    let t = d.type_name(c.ty)?;
    Ok(match d {
        Dialect::DuckDb | Dialect::Postgres | Dialect::BigQuery | Dialect::Snowflake => {
            format!("CAST(TRUNC({x}) AS {t})")
        }
        // Spark's TRUNC truncates dates.
        Dialect::Spark => {
            format!("CAST(CASE WHEN {x} < 0 THEN CEIL({x}) ELSE FLOOR({x}) END AS {t})")
        }
    })
}

fn sign(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let x = c.a(0);
    let t = d.type_name(&Type::Int64)?;
    Ok(match d {
        Dialect::Spark => format!("CAST(SIGNUM({x}) AS {t})"),
        Dialect::DuckDb | Dialect::Postgres | Dialect::BigQuery | Dialect::Snowflake => {
            format!("CAST(SIGN({x}) AS {t})")
        }
    })
}

/// The remainder of `a / b` with the sign of a, as `a % b`.
fn modulo(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let float = c.type_of(0) == Some(&Type::Float64) || c.type_of(1) == Some(&Type::Float64);
    Ok(d.modulo(c.a(0), c.a(1), float))
}

/// The base-10 logarithm (DuckDB's and PostgreSQL's `log(x)`).
fn log10(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    match d {
        Dialect::Snowflake => Ok(format!("LOG(10, {})", d.cast(c.a(0), &Type::Float64)?)),
        Dialect::DuckDb | Dialect::Postgres | Dialect::BigQuery | Dialect::Spark => {
            Ok(format!("LOG10({})", d.cast(c.a(0), &Type::Float64)?))
        }
    }
}

pub(super) const FUNCTIONS: &[Function] = &[
    Function {
        name: "round",
        example: "round(f, 2)",
        max_args: Some(2),
        kinds: &[Num, Int],
        returns: SameAny,
        signature: "round(x, digits)",
        summary: "x rounded half away from zero to digits (default 0) decimal places, in x's type",
        sql: Sql::By(round),
        duckdb_same: true,
        ..NUM
    },
    Function {
        name: "floor",
        example: "floor(f)",
        signature: "floor(x)",
        summary: "the greatest whole number not above x, in x's type",
        sql: Sql::SameTyped("FLOOR"),
        duckdb_same: true,
        ..NUM
    },
    Function {
        name: "ceil",
        example: "ceil(d)",
        signature: "ceil(x)",
        summary: "the least whole number not below x, in x's type",
        sql: Sql::SameTyped("CEIL"),
        sql_aliases: &["ceiling"],
        duckdb_same: true,
        ..NUM
    },
    Function {
        name: "trunc",
        example: "trunc(f)",
        signature: "trunc(x)",
        summary: "x without its fractional part (toward zero), in x's type",
        sql: Sql::By(trunc),
        sql_aliases: &["truncate"],
        duckdb_same: true,
        ..NUM
    },
    Function {
        name: "abs",
        example: "abs(i)",
        signature: "abs(x)",
        summary: "the absolute value of x, in x's type",
        sql: Sql::SameTyped("ABS"),
        duckdb_same: true,
        ..NUM
    },
    Function {
        name: "sign",
        example: "sign(f)",
        returns: Int64A1,
        signature: "sign(x)",
        summary: "-1, 0 or 1 as x is negative, zero or positive",
        sql: Sql::By(sign),
        sql_aliases: &["signum"],
        duckdb_same: true,
        ..NUM
    },
    Function {
        name: "mod",
        example: "mod(i, 3)",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Num, Num],
        returns: Special,
        signature: "mod(a, b)",
        summary: "the remainder of a divided by b, with a's sign (as a % b)",
        sql: Sql::By(modulo),
        ..NUM
    },
    Function {
        name: "power",
        example: "power(f, 2)",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Num, Num],
        returns: Float64Any,
        signature: "power(x, y)",
        summary: "x raised to the power y, as float64",
        sql: Sql::SameOnFloats("POWER"),
        sql_aliases: &["pow"],
        duckdb_same: true,
        ..NUM
    },
    Function {
        name: "sqrt",
        example: "sqrt(f)",
        returns: Float64A1,
        signature: "sqrt(x)",
        summary: "the square root of x, as float64",
        sql: Sql::SameOnFloats("SQRT"),
        duckdb_same: true,
        ..NUM
    },
    Function {
        name: "exp",
        example: "exp(f)",
        returns: Float64A1,
        signature: "exp(x)",
        summary: "e raised to the power x, as float64",
        sql: Sql::SameOnFloats("EXP"),
        duckdb_same: true,
        ..NUM
    },
    Function {
        name: "ln",
        example: "ln(f)",
        returns: Float64A1,
        signature: "ln(x)",
        summary: "the natural logarithm of x, as float64",
        sql: Sql::SameOnFloats("LN"),
        duckdb_same: true,
        ..NUM
    },
    Function {
        name: "log10",
        example: "log10(f)",
        returns: Float64A1,
        signature: "log10(x)",
        summary: "the base-10 logarithm of x, as float64",
        sql: Sql::By(log10),
        sql_aliases: &["log"],
        duckdb_same: true,
        ..NUM
    },
];
