//! Conditionals: the first non-null value, a value chosen by conditions,
//! the greatest or least of several.

use super::Returns::*;
use super::{Family, Function, Sql, SqlCall, SCALAR};
use crate::sql::dialect::{Dialect, Unsupported};

const COND: Function = Function {
    family: Family::Conditional,
    ..SCALAR
};

fn if_(_: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(format!(
        "CASE WHEN {} THEN {} ELSE {} END",
        c.a(0),
        c.a(1),
        c.a(2)
    ))
}

fn case(_: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let mut s = String::from("CASE");
    for pair in c.args.chunks(2) {
        match pair {
            [cond, v] => s.push_str(&format!(" WHEN {cond} THEN {v}")),
            [e] => s.push_str(&format!(" ELSE {e}")),
            _ => {}
        }
    }
    s.push_str(" END");
    Ok(s)
}

/// `GREATEST`/`LEAST` skipping nulls (null only when every argument is),
/// as DuckDB, PostgreSQL and Spark do; BigQuery and Snowflake return null
/// when any argument is, so each argument there falls back on the others.
fn extreme(name: &str, d: Dialect, c: &SqlCall) -> String {
    match d {
        Dialect::DuckDb | Dialect::Postgres | Dialect::Spark => format!("{name}({})", c.list()),
        Dialect::BigQuery | Dialect::Snowflake => {
            let args: Vec<String> = (0..c.args.len())
                .map(|i| {
                    let rest: Vec<&str> = std::iter::once(c.a(i))
                        .chain((0..c.args.len()).filter(|j| *j != i).map(|j| c.a(j)))
                        .collect();
                    format!("COALESCE({})", rest.join(", "))
                })
                .collect();
            format!("{name}({})", args.join(", "))
        }
    }
}

fn greatest(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(extreme("GREATEST", d, c))
}

fn least(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(extreme("LEAST", d, c))
}

pub(super) const FUNCTIONS: &[Function] = &[
    Function {
        name: "coalesce",
        example: "coalesce(s, \"none\")",
        max_args: None,
        returns: Special,
        signature: "coalesce(a, b, ...)",
        summary: "the first argument that is not null (all of one type)",
        sql: Sql::Same("COALESCE"),
        sql_aliases: &["ifnull", "nvl"],
        ..COND
    },
    Function {
        name: "if",
        example: "if(b, i, 0)",
        min_args: 3,
        max_args: Some(3),
        returns: Special,
        signature: "if(condition, then, else)",
        summary: "then where the condition holds, else otherwise (a null condition does not hold)",
        sql: Sql::By(if_),
        sql_aliases: &["iff"],
        ..COND
    },
    Function {
        name: "case",
        example: "case(i > 1, \"big\", \"small\")",
        min_args: 2,
        max_args: None,
        returns: Special,
        signature: "case(cond1, value1, cond2, value2, ..., else)",
        summary:
            "the value of the first condition that holds, else the last argument (null without one)",
        sql: Sql::By(case),
        ..COND
    },
    Function {
        name: "nullif",
        example: "nullif(i, 0)",
        min_args: 2,
        max_args: Some(2),
        returns: SameNullable,
        signature: "nullif(a, b)",
        summary: "null where a equals b, a otherwise",
        sql: Sql::Same("NULLIF"),
        ..COND
    },
    Function {
        name: "greatest",
        example: "greatest(i, 0)",
        min_args: 2,
        max_args: None,
        returns: Special,
        signature: "greatest(a, b, ...)",
        summary: "the greatest argument, nulls skipped (null only when all are null)",
        sql: Sql::By(greatest),
        ..COND
    },
    Function {
        name: "least",
        example: "least(f, 1.5)",
        min_args: 2,
        max_args: None,
        returns: Special,
        signature: "least(a, b, ...)",
        summary: "the least argument, nulls skipped (null only when all are null)",
        sql: Sql::By(least),
        ..COND
    },
];
