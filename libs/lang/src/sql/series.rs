//! A `series` clause as a query of one column: every value from the start
//! to the end (both included), a step apart, in each dialect's own
//! generator (an integer range, or calendar steps for dates and
//! timestamps).

use super::dialect::{unsupported, Dialect, Unsupported};
use crate::ir::Series;
use crate::types::Type;

/// `SELECT <value> AS <col> FROM <generator>`; `start` and `end` are the
/// bounds' SQL, `col` the column's quoted name.
pub(super) fn series_sql(
    d: Dialect,
    s: &Series,
    col: &str,
    start: &str,
    end: &str,
) -> Result<String, Unsupported> {
    let t = d.type_name(&s.ty)?;
    let (a, b) = (d.cast(start, &s.ty)?, d.cast(end, &s.ty)?);
    let n = s.count;
    let v = d.ident("v");
    let g = d.ident("_g");
    let Some(unit) = s.unit else {
        return Ok(match d {
            Dialect::DuckDb | Dialect::Postgres => format!(
                "SELECT {g}.{v} AS {col} FROM generate_series({a}, {b}, {n}) AS {g}({v})"
            ),
            Dialect::Spark => format!(
                "SELECT {v} AS {col} FROM (SELECT explode(CASE WHEN {a} <= {b} THEN sequence({a}, {b}, CAST({n} AS BIGINT)) END) AS {v}) AS {g}"
            ),
            Dialect::BigQuery => {
                format!("SELECT {v} AS {col} FROM UNNEST(GENERATE_ARRAY({a}, {b}, {n})) AS {v}")
            }
            Dialect::Snowflake => format!(
                "SELECT CAST({g}.value AS {t}) AS {col} FROM TABLE(FLATTEN(ARRAY_GENERATE_RANGE({a}, {b} + 1, {n}))) AS {g}"
            ),
        });
    };
    // Every unit as a number of years, months or days.
    let (amount, single) = match unit {
        "years" => (n, "year"),
        "quarters" => (3 * n, "month"),
        "months" => (n, "month"),
        "weeks" => (7 * n, "day"),
        _ => (n, "day"),
    };
    let upper = single.to_uppercase();
    Ok(match d {
        Dialect::DuckDb | Dialect::Postgres => {
            let ts = d.type_name(&Type::Timestamp)?;
            format!(
                "SELECT CAST({g}.{v} AS {t}) AS {col} FROM generate_series(CAST({a} AS {ts}), CAST({b} AS {ts}), INTERVAL '{amount} {single}') AS {g}({v})"
            )
        }
        Dialect::Spark => format!(
            "SELECT CAST({v} AS {t}) AS {col} FROM (SELECT explode(CASE WHEN {a} <= {b} THEN sequence({a}, {b}, INTERVAL {amount} {upper}) END) AS {v}) AS {g}"
        ),
        Dialect::BigQuery if s.ty == Type::Date => format!(
            "SELECT {v} AS {col} FROM UNNEST(GENERATE_DATE_ARRAY({a}, {b}, INTERVAL {amount} {upper})) AS {v}"
        ),
        Dialect::BigQuery if single == "day" => format!(
            "SELECT {v} AS {col} FROM UNNEST(GENERATE_TIMESTAMP_ARRAY({a}, {b}, INTERVAL {amount} {upper})) AS {v}"
        ),
        Dialect::BigQuery => {
            return unsupported(d, "a timestamp series stepping by months or years (GENERATE_TIMESTAMP_ARRAY steps by days at most): step a date series instead");
        }
        // Offsets 0, n, 2n .. up to the units between the bounds, each
        // added to the start; a month step from the 31st can overshoot the
        // end by a few days, which the filter drops.
        Dialect::Snowflake => format!(
            "SELECT {v} AS {col} FROM (SELECT CAST(DATEADD({single}, CAST({g}.value AS BIGINT), {a}) AS {t}) AS {v} FROM TABLE(FLATTEN(ARRAY_GENERATE_RANGE(0, DATEDIFF({single}, {a}, {b}) + 1, {amount}))) AS {g}) AS {g} WHERE {v} <= {b}"
        ),
    })
}
