//! Dates and timestamps: arithmetic by calendar units, truncation,
//! differences, parts, and dates made from parts.

use super::ArgKind::*;
use super::Returns::*;
use super::{Family, Function, Sql, SqlCall, SCALAR};
use crate::sql::dialect::{unit_of, unsupported, Dialect, Unsupported};
use crate::types::Type;

const DATE: Function = Function {
    family: Family::Date,
    ..SCALAR
};

fn date_add(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    d.date_add(c.a(0), c.a(1), c.unit.unwrap_or("days"), c.ty)
}

fn date_sub(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    d.date_add(
        c.a(0),
        &format!("(-{})", c.a(1)),
        c.unit.unwrap_or("days"),
        c.ty,
    )
}

fn date_trunc(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    d.date_trunc(c.a(0), &unit_of(c.targs.get(1)), c.ty)
}

fn date_diff(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    d.date_diff(c.a(0), c.a(1), &unit_of(c.targs.get(2)))
}

/// One part of a date or timestamp as int64 (`DATE_PART_UNITS`).
fn date_part(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let x = c.a(0);
    let unit = unit_of(c.targs.get(1));
    let int = d.type_name(&Type::Int64)?;
    let ts = || d.cast(x, &Type::Timestamp);
    let part = match (unit.as_str(), d) {
        ("year" | "quarter" | "month" | "day", _) => {
            format!("EXTRACT({} FROM {x})", unit.to_uppercase())
        }
        // Whole seconds (PostgreSQL and Spark give the fraction too); the
        // time parts of a date are 0.
        ("hour" | "minute" | "second", _) => {
            format!("FLOOR(EXTRACT({} FROM {}))", unit.to_uppercase(), ts()?)
        }
        ("dayofyear", Dialect::Postgres) => format!("EXTRACT(DOY FROM {x})"),
        ("dayofyear", Dialect::BigQuery) => format!("EXTRACT(DAYOFYEAR FROM {x})"),
        ("dayofyear", _) => format!("DAYOFYEAR({x})"),
        ("isoweek", Dialect::DuckDb | Dialect::Postgres) => format!("EXTRACT(WEEK FROM {x})"),
        ("isoweek", Dialect::Spark) => format!("WEEKOFYEAR({x})"),
        ("isoweek", Dialect::BigQuery) => format!("EXTRACT(ISOWEEK FROM {x})"),
        ("isoweek", Dialect::Snowflake) => format!("WEEKISO({x})"),
        // Monday 1 to Sunday 7.
        ("isodow", Dialect::DuckDb) => format!("ISODOW({x})"),
        ("isodow", Dialect::Postgres) => format!("EXTRACT(ISODOW FROM {x})"),
        ("isodow", Dialect::Spark) => format!("(WEEKDAY({x}) + 1)"),
        ("isodow", Dialect::BigQuery) => format!("(MOD(EXTRACT(DAYOFWEEK FROM {x}) + 5, 7) + 1)"),
        ("isodow", Dialect::Snowflake) => format!("DAYOFWEEKISO({x})"),
        (other, _) => return unsupported(d, &format!("date_part() of '{other}'")),
    };
    Ok(format!("CAST({part} AS {int})"))
}

fn make_date(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(match d {
        Dialect::DuckDb | Dialect::Spark => format!("MAKE_DATE({})", c.list()),
        Dialect::Postgres => format!(
            "MAKE_DATE(CAST({} AS INTEGER), CAST({} AS INTEGER), CAST({} AS INTEGER))",
            c.a(0),
            c.a(1),
            c.a(2)
        ),
        Dialect::BigQuery => format!("DATE({})", c.list()),
        Dialect::Snowflake => format!("DATE_FROM_PARTS({})", c.list()),
    })
}

fn last_day(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let day = d.cast(c.a(0), &Type::Date)?;
    Ok(match d {
        Dialect::Postgres => format!(
            "CAST(DATE_TRUNC('month', {day}) + INTERVAL '1 month' - INTERVAL '1 day' AS DATE)"
        ),
        Dialect::DuckDb | Dialect::BigQuery | Dialect::Snowflake | Dialect::Spark => {
            format!("LAST_DAY({day})")
        }
    })
}

/// The engine's own clock, in UTC as a run's is, where no run gives one
/// (`strata compile`); a run writes its start instead
/// ([`crate::sql::Clock`]). (DuckDB's `CURRENT_DATE` needs its ICU
/// extension; its UTC timestamp does not.)
fn utc_now(d: Dialect) -> String {
    match d {
        Dialect::DuckDb => "CAST(get_current_timestamp() AS TIMESTAMP)".into(),
        Dialect::Postgres => "(CURRENT_TIMESTAMP AT TIME ZONE 'UTC')".into(),
        Dialect::Spark => "to_utc_timestamp(current_timestamp(), current_timezone())".into(),
        Dialect::BigQuery => "CURRENT_DATETIME('UTC')".into(),
        Dialect::Snowflake => "SYSDATE()".into(),
    }
}

fn current_date(d: Dialect, _: &SqlCall) -> Result<String, Unsupported> {
    d.cast(&utc_now(d), &Type::Date)
}

fn current_timestamp(d: Dialect, _: &SqlCall) -> Result<String, Unsupported> {
    d.cast(&utc_now(d), &Type::Timestamp)
}

/// d written with a `strftime` format (a literal: the checker read it).
fn strftime(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let format = match c.targs.get(1).map(|t| &t.kind) {
        Some(crate::ir::TExprKind::Lit(crate::ir::Literal::Str(f))) => f.as_str(),
        _ => return unsupported(d, "strftime() with a format that is not a literal"),
    };
    let pieces = super::format::parse(format).map_err(|e| format!("strftime(): {e}"))?;
    let pattern = d.string(&super::format::pattern(d, &pieces)?);
    let x = c.a(0);
    Ok(match d {
        Dialect::DuckDb => format!("STRFTIME({x}, {pattern})"),
        Dialect::Postgres | Dialect::Snowflake => format!("TO_CHAR({x}, {pattern})"),
        Dialect::Spark => format!("DATE_FORMAT({x}, {pattern})"),
        Dialect::BigQuery => format!("FORMAT_DATETIME({pattern}, CAST({x} AS DATETIME))"),
    })
}

/// The time s names in a `strptime` format, null when s does not match it
/// (a digit count, a separator) or names no time (month 13, February 29 of
/// a common year): the same answer on every engine, none of whose own
/// parsers agree on these (DuckDB's strptime fails, PostgreSQL's
/// to_timestamp fails or reads `2024/01/05` for `YYYY-MM-DD`, Spark's
/// to_timestamp fails under ANSI). The fields are read at their
/// positions, checked, and the time cast from its ISO text.
fn strptime(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let format = match c.targs.get(1).map(|t| &t.kind) {
        Some(crate::ir::TExprKind::Lit(crate::ir::Literal::Str(f))) => f.as_str(),
        _ => return unsupported(d, "strptime() with a format that is not a literal"),
    };
    let pieces = super::format::parse_for_reading(format)?;
    let layout = super::format::layout(&pieces);
    let s = c.a(0);
    let text = |code: char, default: &str| -> String {
        match layout.fields.iter().find(|(c, _, _)| *c == code) {
            Some((_, at, width)) => format!("SUBSTR({s}, {at}, {width})"),
            None => d.string(default),
        }
    };
    let int = |code: char| -> Result<Option<String>, Unsupported> {
        match layout.fields.iter().find(|(c, _, _)| *c == code) {
            Some(_) => Ok(Some(d.cast(&text(code, ""), &Type::Int64)?)),
            None => Ok(None),
        }
    };
    let year = int('Y')?.unwrap_or_default();
    let mut checks = vec![format!("{year} >= 1")];
    if let Some(m) = int('m')? {
        checks.push(format!("{m} BETWEEN 1 AND 12"));
    }
    if let Some(day) = int('d')? {
        let month = int('m')?.unwrap_or_else(|| "1".into());
        let leap =
            format!("((MOD({year}, 4) = 0 AND MOD({year}, 100) <> 0) OR MOD({year}, 400) = 0)");
        checks.push(format!(
            "{day} BETWEEN 1 AND CASE WHEN {month} = 2 THEN CASE WHEN {leap} THEN 29 ELSE 28 END WHEN {month} IN (4, 6, 9, 11) THEN 30 ELSE 31 END"
        ));
    }
    for (code, max) in [('H', 23), ('M', 59), ('S', 59)] {
        if let Some(v) = int(code)? {
            checks.push(format!("{v} <= {max}"));
        }
    }
    let iso = [
        text('Y', ""),
        d.string("-"),
        text('m', "01"),
        d.string("-"),
        text('d', "01"),
        d.string(" "),
        text('H', "00"),
        d.string(":"),
        text('M', "00"),
        d.string(":"),
        text('S', "00"),
    ]
    .join(", ");
    let matches = super::string::regex_match(d, s, &d.string(&layout.regex));
    Ok(format!(
        "CASE WHEN {matches} THEN CASE WHEN {} THEN {} END END",
        checks.join(" AND "),
        d.cast(&format!("CONCAT({iso})"), &Type::Timestamp)?
    ))
}

/// The UTC time `seconds` after 1970-01-01 00:00:00.
fn to_timestamp(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let x = c.a(0);
    Ok(match d {
        Dialect::DuckDb => format!("MAKE_TIMESTAMP(CAST(ROUND({x} * 1000000) AS BIGINT))"),
        Dialect::Postgres => format!("(TO_TIMESTAMP({x}) AT TIME ZONE 'UTC')"),
        // Spark's timestamps are shown in the session's time zone: the UTC
        // wall time, as the other engines give it.
        Dialect::Spark => format!(
            "TO_UTC_TIMESTAMP(TIMESTAMP_MICROS(CAST(ROUND({x} * 1000000) AS BIGINT)), CURRENT_TIMEZONE())"
        ),
        Dialect::BigQuery => format!("DATETIME(TIMESTAMP_MICROS(CAST(ROUND({x} * 1000000) AS INT64)))"),
        Dialect::Snowflake => format!("TO_TIMESTAMP_NTZ(CAST(ROUND({x} * 1000000) AS BIGINT), 6)"),
    })
}

fn at_time_zone(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    d.at_zone(c.a(0), c.a(1))
}

fn to_utc(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    d.to_utc(c.a(0))
}

fn from_utc(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    d.from_utc(c.a(0))
}

pub(super) const FUNCTIONS: &[Function] = &[
    Function {
        name: "strftime",
        example: "strftime(ts, \"%Y-%m-%d %H:%M\")",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Temporal, Str],
        returns: StringA1,
        signature: "strftime(d, format)",
        summary: "d written with a format of %Y %y %m %d %j %H %M %S %b %B %a %A codes",
        sql: Sql::By(strftime),
        sql_aliases: &["format_date", "format_datetime", "date_format"],
        ..DATE
    },
    Function {
        name: "strptime",
        example: "strptime(s, \"%Y-%m-%d %H:%M\")",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Str, Str],
        returns: TimestampNullable,
        signature: "strptime(s, format)",
        summary: "the timestamp s names in a format of %Y %m %d %H %M %S codes (4 and 2 digits), null when s does not match it or names no time",
        sql: Sql::By(strptime),
        sql_aliases: &["try_strptime"],
        ..DATE
    },
    Function {
        name: "to_timestamp",
        example: "to_timestamp(f)",
        kinds: &[Num],
        returns: TimestampAny,
        signature: "to_timestamp(seconds)",
        summary: "the time seconds after 1970-01-01 00:00:00 UTC (a Unix epoch)",
        sql: Sql::By(to_timestamp),
        ..DATE
    },
    Function {
        name: "current_date",
        example: "current_date()",
        min_args: 0,
        max_args: Some(0),
        kinds: &[],
        returns: DateAny,
        signature: "current_date()",
        summary: "the date the run started (UTC), recorded with the run",
        sql: Sql::By(current_date),
        duckdb_same: true,
        ..DATE
    },
    Function {
        name: "current_timestamp",
        example: "current_timestamp()",
        min_args: 0,
        max_args: Some(0),
        kinds: &[],
        returns: TimestampAny,
        signature: "current_timestamp()",
        summary: "the time the run started (UTC), recorded with the run",
        sql: Sql::By(current_timestamp),
        duckdb_same: true,
        ..DATE
    },
    Function {
        name: "date_add",
        example: "date_add(dt, days: 1)",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Temporal, Any],
        returns: SameAny,
        signature: "date_add(d, days: n)",
        summary: "d plus n years, quarters, months, weeks or days (the keyword says which)",
        sql: Sql::By(date_add),
        ..DATE
    },
    Function {
        name: "date_sub",
        example: "date_sub(ts, months: 1)",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Temporal, Any],
        returns: SameAny,
        signature: "date_sub(d, days: n)",
        summary: "d minus n years, quarters, months, weeks or days (the keyword says which)",
        sql: Sql::By(date_sub),
        ..DATE
    },
    Function {
        name: "date_trunc",
        example: "date_trunc(ts, month)",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Temporal, Any],
        returns: SameA1,
        signature: "date_trunc(d, unit)",
        summary: "d truncated to the start of its year, quarter, month, (ISO) week or day",
        sql: Sql::By(date_trunc),
        unit_slot: Some(1),
        ..DATE
    },
    Function {
        name: "date_diff",
        example: "date_diff(dt, dt, day)",
        min_args: 3,
        max_args: Some(3),
        kinds: &[Temporal, Temporal, Any],
        returns: Special,
        signature: "date_diff(a, b, unit)",
        summary: "the year, quarter, month, week or day boundaries crossed from a to b",
        sql: Sql::By(date_diff),
        unit_slot: Some(2),
        sql_aliases: &["datediff"],
        ..DATE
    },
    Function {
        name: "date_part",
        example: "date_part(ts, isodow)",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Temporal, Any],
        returns: Int64A1,
        signature: "date_part(d, unit)",
        summary: "d's year, quarter, month, day, dayofyear, isoweek, isodow (Monday 1), hour, minute or second, as int64",
        sql: Sql::By(date_part),
        unit_slot: Some(1),
        sql_aliases: &["extract"],
        ..DATE
    },
    Function {
        name: "make_date",
        example: "make_date(i, 1, 1)",
        min_args: 3,
        max_args: Some(3),
        kinds: &[Int, Int, Int],
        returns: DateAny,
        signature: "make_date(year, month, day)",
        summary: "the date of the year, month and day",
        sql: Sql::By(make_date),
        sql_aliases: &["date_from_parts"],
        duckdb_same: true,
        ..DATE
    },
    Function {
        name: "last_day",
        example: "last_day(dt)",
        kinds: &[Temporal],
        returns: DateA1,
        signature: "last_day(d)",
        summary: "the last day of d's month, as a date",
        sql: Sql::By(last_day),
        duckdb_same: true,
        ..DATE
    },
    Function {
        name: "at_time_zone",
        example: "at_time_zone(tz, \"Europe/Madrid\")",
        min_args: 2,
        max_args: Some(2),
        kinds: &[TimestampTz, Str],
        returns: TimestampAny,
        signature: "at_time_zone(t, zone)",
        summary: "the wall-clock time (a timestamp) of the instant t in the IANA time zone zone",
        sql: Sql::By(at_time_zone),
        ..DATE
    },
    Function {
        name: "to_utc",
        example: "to_utc(tz)",
        kinds: &[TimestampTz],
        returns: TimestampAny,
        signature: "to_utc(t)",
        summary: "the wall-clock time (a timestamp) of the instant t in UTC; cast(t, \"timestamp\") too",
        sql: Sql::By(to_utc),
        ..DATE
    },
    Function {
        name: "from_utc",
        example: "from_utc(ts)",
        kinds: &[Timestamp],
        returns: TimestampTzA1,
        signature: "from_utc(ts)",
        summary: "the instant (a timestamptz) at which UTC clocks show ts; cast(ts, \"timestamptz\") too",
        sql: Sql::By(from_utc),
        ..DATE
    },
];
