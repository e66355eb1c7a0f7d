//! SQL literals: strings, numbers (as strata's integer, decimal or float
//! literal), and date parts as strata's units.

use sqlparser::ast::{self as sql, Spanned};
use strata_lang::types::Type;

use super::translator::Typed;
use super::{Refusal, R};
use crate::plan::{Op, SExpr};

pub(super) fn string_of(v: &sql::Value) -> Option<&str> {
    match v {
        sql::Value::SingleQuotedString(s)
        | sql::Value::EscapedStringLiteral(s)
        | sql::Value::TripleSingleQuotedString(s)
        | sql::Value::NationalStringLiteral(s) => Some(s),
        _ => None,
    }
}

/// dbt's per-invocation values (the markers `{{ run_started_at }}` and
/// `{{ invocation_id }}` render as): the time dbt's run started is the
/// run's start, strata's `current_timestamp()` (a timestamp where dbt
/// writes text); the invocation's id is the run's, strata's `run_id()`.
/// Inside other text (`'x-{{ invocation_id }}'`) they are refused.
pub(super) fn run_value(text: &str, node: &impl Spanned) -> R<Option<Typed>> {
    if text == crate::jinja::RUN_STARTED_AT {
        return Ok(Some((
            SExpr::call("current_timestamp", Vec::new()),
            Some(Type::Timestamp),
        )));
    }
    if text == crate::jinja::INVOCATION_ID {
        return Ok(Some((
            SExpr::call(strata_lang::sql::RUN_ID_FUNCTION, Vec::new()),
            Some(Type::String),
        )));
    }
    if text.contains(crate::jinja::INVOCATION_ID) || text.contains(crate::jinja::RUN_STARTED_AT) {
        return Err(Refusal::at(
            "dbt's invocation_id or run_started_at inside other text: strata's run_id() and current_timestamp() are values of their own (concatenate them)",
            node,
        ));
    }
    Ok(None)
}

/// A SQL number as a strata literal.
pub(super) fn number(text: &str, node: &impl Spanned) -> R<Typed> {
    let clean = text.replace('_', "");
    if let Ok(i) = clean.parse::<i64>() {
        return Ok((SExpr::Int(i), Some(Type::Int64)));
    }
    if clean.chars().all(|c| c.is_ascii_digit()) {
        return Err(Refusal::at(
            format!("the number {text} does not fit in int64"),
            node,
        ));
    }
    let Ok(f) = clean.parse::<f64>() else {
        return Err(Refusal::at(format!("the number {text}"), node));
    };
    if !f.is_finite() {
        return Err(Refusal::at(format!("the number {text}"), node));
    }
    // DuckDB reads `1.5` as a DECIMAL literal; strata's float64 reads the
    // same digits (the values computed with it may differ past 15 digits).
    let mut t = if clean.contains(['e', 'E']) {
        format!("{f}")
    } else {
        clean.clone()
    };
    if t.starts_with('.') {
        t.insert(0, '0');
    }
    if t.ends_with('.') {
        t.push('0');
    }
    if !t.contains('.') {
        t.push_str(".0");
    }
    Ok((SExpr::Float(t), Some(Type::Float64)))
}

/// A date part written in SQL (`'day'`, `day`, `'days'`) as strata's unit.
pub(super) fn unit(text: &str) -> Option<&'static str> {
    match text.trim().trim_matches('\'').to_ascii_lowercase().as_str() {
        "year" | "years" | "y" | "yr" | "yrs" => Some("year"),
        "quarter" | "quarters" => Some("quarter"),
        "month" | "months" | "mon" | "mons" => Some("month"),
        "week" | "weeks" | "w" => Some("week"),
        "day" | "days" | "d" | "dayofmonth" => Some("day"),
        _ => None,
    }
}

/// DuckDB's date part `part` of `x` (`EXTRACT(part FROM d)`,
/// `date_part('part', d)`, `dayofweek(d)`) as strata's `date_part`, when it
/// gives the same number: DuckDB's `week` is the ISO week and its `second`
/// the whole seconds, as strata's; its `dow` (Sunday 0 to Saturday 6) is
/// strata's `isodow` (Monday 1 to Sunday 7) modulo 7.
pub(super) fn date_part(x: SExpr, part: &str) -> Option<SExpr> {
    let dow = matches!(
        part.trim().trim_matches('\'').to_ascii_lowercase().as_str(),
        "dow" | "dayofweek" | "weekday"
    );
    let unit = if dow { "isodow" } else { part_unit(part)? };
    let call = SExpr::call("date_part", vec![x, SExpr::col(None, unit)]);
    Some(if dow {
        SExpr::bin(Op::Mod, call, SExpr::Int(7))
    } else {
        call
    })
}

fn part_unit(text: &str) -> Option<&'static str> {
    match text.trim().trim_matches('\'').to_ascii_lowercase().as_str() {
        "year" | "years" | "y" | "yr" | "yrs" => Some("year"),
        "quarter" | "quarters" => Some("quarter"),
        "month" | "months" | "mon" | "mons" => Some("month"),
        "day" | "days" | "d" | "dayofmonth" => Some("day"),
        "doy" | "dayofyear" => Some("dayofyear"),
        "week" | "weeks" | "w" | "weekofyear" => Some("isoweek"),
        "isodow" => Some("isodow"),
        "hour" | "hours" | "h" | "hr" | "hrs" => Some("hour"),
        "minute" | "minutes" | "m" | "min" | "mins" => Some("minute"),
        "second" | "seconds" | "s" | "sec" | "secs" => Some("second"),
        _ => None,
    }
}

pub(super) fn datetime_field_unit(f: &sql::DateTimeField) -> Option<&'static str> {
    unit(&f.to_string())
}
