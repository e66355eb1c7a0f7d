//! Aggregates: one value per group (`group { .. } ( aggregate { .. } )`),
//! or per row over a window when they also take `over (...)`.

use super::ArgKind::*;
use super::Returns::*;
use super::{Family, Function, Sql, SqlCall, SCALAR};
use crate::sql::dialect::{unsupported, Dialect, Unsupported};

const AGG: Function = Function {
    family: Family::Aggregate,
    aggregate: true,
    window: true,
    frame: true,
    ..SCALAR
};

fn count(_: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(if c.distinct {
        format!("COUNT(DISTINCT {})", c.a(0))
    } else if c.args.is_empty() || c.a(0) == "*" {
        "COUNT(*)".into()
    } else {
        format!("COUNT({})", c.a(0))
    })
}

fn array_agg(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(match d {
        Dialect::Spark => format!("COLLECT_LIST({})", c.a(0)),
        _ => format!("ARRAY_AGG({})", c.a(0)),
    })
}

fn bool_and(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(match d {
        Dialect::BigQuery => format!("LOGICAL_AND({})", c.a(0)),
        Dialect::Snowflake => format!("BOOLAND_AGG({})", c.a(0)),
        Dialect::DuckDb | Dialect::Postgres | Dialect::Spark => format!("BOOL_AND({})", c.a(0)),
    })
}

fn bool_or(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(match d {
        Dialect::BigQuery => format!("LOGICAL_OR({})", c.a(0)),
        Dialect::Snowflake => format!("BOOLOR_AGG({})", c.a(0)),
        Dialect::DuckDb | Dialect::Postgres | Dialect::Spark => format!("BOOL_OR({})", c.a(0)),
    })
}

/// The rows where the condition holds (NULL counts as false), as every
/// engine counts `CASE` values that are not NULL.
fn count_if(_: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(format!("COUNT(CASE WHEN {} THEN 1 END)", c.a(0)))
}

fn median(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let x = c.a(0);
    Ok(match d {
        Dialect::DuckDb | Dialect::Spark | Dialect::Snowflake => {
            format!("CAST(MEDIAN({x}) AS DOUBLE)")
        }
        Dialect::Postgres => {
            format!("PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY {x})")
        }
        // Its PERCENTILE_CONT is a window function only.
        Dialect::BigQuery => return unsupported(d, "median() as an aggregate"),
    })
}

/// `SUM` in the sum's type ([`crate::types::Type::sum`]) on every engine:
/// a float32 is summed as float64 (PostgreSQL sums a `real` in `real`),
/// and Spark sums a decimal as `DECIMAL(38,s)` (it widens `decimal(p,s)`
/// only to `p + 10` digits, where DuckDB gives 38).
fn sum(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    use crate::types::Type;
    let distinct = if c.distinct { "DISTINCT " } else { "" };
    let x = match (d, c.type_of(0)) {
        (_, Some(Type::Float32)) => d.cast(c.a(0), &Type::Float64)?,
        (Dialect::Spark, Some(t @ Type::Decimal(..))) => d.cast(c.a(0), &t.sum())?,
        _ => c.a(0).to_string(),
    };
    Ok(format!("SUM({distinct}{x})"))
}

/// The values joined by the separator in the order of `sort: [..]`, ties
/// broken by the value itself (so the result is one string whatever order
/// the engine reads the rows in); nulls are skipped.
fn string_agg(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let (x, sep) = (c.a(0), c.a(1));
    let mut keys = c.order.to_vec();
    keys.push(format!("{x} ASC NULLS LAST"));
    let keys = keys.join(", ");
    Ok(match d {
        Dialect::DuckDb | Dialect::Postgres | Dialect::BigQuery => {
            format!("STRING_AGG({x}, {sep} ORDER BY {keys})")
        }
        Dialect::Spark | Dialect::Snowflake => {
            format!("LISTAGG({x}, {sep}) WITHIN GROUP (ORDER BY {keys})")
        }
    })
}

/// x at the row with the greatest (`max`) or least y, among the rows where
/// neither is null; ties broken by the greatest (least) x, so the value
/// does not depend on the order the engine reads rows in (DuckDB's and
/// Spark's own `max_by` pick any of the tied rows).
fn by(d: Dialect, c: &SqlCall, max: bool) -> Result<String, Unsupported> {
    let (x, y) = (c.a(0), c.a(1));
    let dir = if max { "DESC" } else { "ASC" };
    let both = format!("{x} IS NOT NULL AND {y} IS NOT NULL");
    Ok(match d {
        Dialect::DuckDb => {
            format!("(LIST({x} ORDER BY {y} {dir}, {x} {dir}) FILTER (WHERE {both}))[1]")
        }
        Dialect::Postgres => {
            format!("(ARRAY_AGG({x} ORDER BY {y} {dir}, {x} {dir}) FILTER (WHERE {both}))[1]")
        }
        Dialect::Spark => {
            let f = if max { "MAX_BY" } else { "MIN_BY" };
            format!("{f}({x}, STRUCT({y}, {x})) FILTER (WHERE {both})")
        }
        Dialect::BigQuery => format!(
            "ARRAY_AGG(IF({y} IS NULL, NULL, {x}) IGNORE NULLS ORDER BY {y} {dir}, {x} {dir} LIMIT 1)[SAFE_OFFSET(0)]"
        ),
        // Its ARRAY_AGG skips nulls and gives a VARIANT.
        Dialect::Snowflake => d.cast(
            &format!(
                "(ARRAY_AGG(CASE WHEN {y} IS NOT NULL THEN {x} END) WITHIN GROUP (ORDER BY {y} {dir}, {x} {dir}))[0]"
            ),
            c.ty,
        )?,
    })
}

fn max_by(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    by(d, c, true)
}

fn min_by(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    by(d, c, false)
}

/// The value at a fraction of the sorted non-null values: `cont`
/// interpolates between the two nearest (as float64), `disc` takes the
/// first whose cumulative share reaches the fraction (a value of x).
fn percentile(d: Dialect, c: &SqlCall, cont: bool) -> Result<String, Unsupported> {
    use crate::types::Type;
    let p = c.a(1);
    let x = if cont {
        d.cast(c.a(0), &Type::Float64)?
    } else {
        c.a(0).to_string()
    };
    let name = if cont { "CONT" } else { "DISC" };
    let sql = match d {
        Dialect::DuckDb => format!("QUANTILE_{name}({x}, {p})"),
        Dialect::Postgres | Dialect::Spark | Dialect::Snowflake => {
            format!("PERCENTILE_{name}({p}) WITHIN GROUP (ORDER BY {x})")
        }
        // Its PERCENTILE_CONT / PERCENTILE_DISC are window functions only.
        Dialect::BigQuery => {
            return unsupported(
                d,
                &format!("percentile_{}() as an aggregate", name.to_lowercase()),
            )
        }
    };
    // Spark's PERCENTILE_DISC answers a double: back to x's type.
    Ok(if cont { sql } else { d.cast(&sql, c.ty)? })
}

fn percentile_cont(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    percentile(d, c, true)
}

fn percentile_disc(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    percentile(d, c, false)
}

fn stddev(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let t = d.type_name(&crate::types::Type::Float64)?;
    Ok(format!("CAST(STDDEV_SAMP({}) AS {t})", c.a(0)))
}

pub(super) const FUNCTIONS: &[Function] = &[
    Function {
        name: "count",
        example: "count()",
        min_args: 0,
        kinds: &[Any],
        returns: Int64NonNull,
        signature: "count() / count(x) / count(distinct x)",
        summary: "the rows of the group; with x, those where x is not null; with distinct, the distinct non-null values",
        sql: Sql::By(count),
        ..AGG
    },
    Function {
        name: "sum",
        example: "sum(i)",
        kinds: &[Num],
        returns: SumA1,
        signature: "sum(x)",
        summary: "the sum of the non-null values (null when there is none); a decimal(p,s) sums as decimal(38,s), a float32 as float64",
        sql: Sql::By(sum),
        ..AGG
    },
    Function {
        name: "avg",
        example: "avg(f)",
        kinds: &[Num],
        returns: Float64A1,
        signature: "avg(x)",
        summary: "the mean of the non-null values, as float64",
        sql: Sql::Same("AVG"),
        sql_aliases: &["mean"],
        ..AGG
    },
    Function {
        name: "max",
        example: "max(s)",
        kinds: &[Any],
        returns: SameA1,
        signature: "max(x)",
        summary: "the greatest non-null value",
        sql: Sql::Same("MAX"),
        ..AGG
    },
    Function {
        name: "min",
        example: "min(dt)",
        kinds: &[Any],
        returns: SameA1,
        signature: "min(x)",
        summary: "the least non-null value",
        sql: Sql::Same("MIN"),
        ..AGG
    },
    Function {
        name: "array_agg",
        example: "array_agg(i)",
        window: false,
        frame: false,
        kinds: &[Any],
        returns: Special,
        signature: "array_agg(x)",
        summary: "the values of the group as an array (nulls included)",
        sql: Sql::By(array_agg),
        sql_aliases: &["collect_list"],
        ..AGG
    },
    Function {
        name: "bool_and",
        example: "bool_and(b)",
        kinds: &[Bool],
        returns: BoolNullable,
        signature: "bool_and(condition)",
        summary: "whether the condition holds on every non-null row (null when there is none)",
        sql: Sql::By(bool_and),
        // Snowflake's BOOLAND_AGG takes no ORDER BY or frame in OVER.
        frame: false,
        sql_aliases: &["every", "logical_and", "booland_agg"],
        duckdb_same: true,
        ..AGG
    },
    Function {
        name: "bool_or",
        example: "bool_or(b)",
        kinds: &[Bool],
        returns: BoolNullable,
        signature: "bool_or(condition)",
        summary: "whether the condition holds on some non-null row (null when there is none)",
        sql: Sql::By(bool_or),
        frame: false,
        sql_aliases: &["logical_or", "boolor_agg"],
        duckdb_same: true,
        ..AGG
    },
    Function {
        name: "count_if",
        example: "count_if(i > 0)",
        kinds: &[Bool],
        returns: Int64NonNull,
        signature: "count_if(condition)",
        summary: "the rows where the condition holds (a null condition does not count)",
        sql: Sql::By(count_if),
        sql_aliases: &["countif"],
        duckdb_same: true,
        ..AGG
    },
    Function {
        name: "median",
        example: "median(f)",
        window: false,
        frame: false,
        kinds: &[Num],
        returns: Float64A1,
        signature: "median(x)",
        summary: "the median of the non-null values, interpolated between the two middle ones, as float64",
        sql: Sql::By(median),
        duckdb_same: true,
        ..AGG
    },
    Function {
        name: "stddev",
        example: "stddev(f)",
        kinds: &[Num],
        returns: Float64A1,
        signature: "stddev(x)",
        summary: "the sample standard deviation of the non-null values (null for fewer than two), as float64",
        sql: Sql::By(stddev),
        sql_aliases: &["stddev_samp"],
        duckdb_same: true,
        ..AGG
    },
    Function {
        name: "string_agg",
        example: "string_agg(s, \",\", sort: [i desc])",
        window: false,
        frame: false,
        ordered: true,
        min_args: 2,
        max_args: Some(2),
        kinds: &[Str, Str],
        returns: StringA1,
        signature: "string_agg(s, separator, sort: [k, ..])",
        summary: "the non-null values joined by the separator (a literal) in the order of sort (ties by the value)",
        sql: Sql::By(string_agg),
        sql_aliases: &["listagg", "group_concat"],
        ..AGG
    },
    Function {
        name: "percentile_cont",
        example: "percentile_cont(f, 0.9)",
        window: false,
        frame: false,
        min_args: 2,
        max_args: Some(2),
        kinds: &[Num, Num],
        returns: Float64A1,
        signature: "percentile_cont(x, fraction)",
        summary: "the value at the fraction (a literal in [0, 1]) of the sorted non-null values, interpolated between the two nearest, as float64",
        sql: Sql::By(percentile_cont),
        sql_aliases: &["quantile_cont"],
        ..AGG
    },
    Function {
        name: "percentile_disc",
        example: "percentile_disc(i, 0.5)",
        window: false,
        frame: false,
        min_args: 2,
        max_args: Some(2),
        kinds: &[Num, Num],
        returns: SameA1,
        signature: "percentile_disc(x, fraction)",
        summary: "the first of the sorted non-null values whose cumulative share reaches the fraction (a literal in [0, 1])",
        sql: Sql::By(percentile_disc),
        sql_aliases: &["quantile_disc"],
        ..AGG
    },
    Function {
        name: "max_by",
        example: "max_by(s, dt)",
        window: false,
        frame: false,
        min_args: 2,
        max_args: Some(2),
        kinds: &[Any, Any],
        returns: SameNullable,
        signature: "max_by(x, y)",
        summary: "x at the row with the greatest y, among the rows where neither is null (ties: the greatest x)",
        sql: Sql::By(max_by),
        sql_aliases: &["arg_max", "argmax"],
        duckdb_same: true,
        ..AGG
    },
    Function {
        name: "min_by",
        example: "min_by(s, dt)",
        window: false,
        frame: false,
        min_args: 2,
        max_args: Some(2),
        kinds: &[Any, Any],
        returns: SameNullable,
        signature: "min_by(x, y)",
        summary: "x at the row with the least y, among the rows where neither is null (ties: the least x)",
        sql: Sql::By(min_by),
        sql_aliases: &["arg_min", "argmin"],
        duckdb_same: true,
        ..AGG
    },
];
