//! The values of fixture rows: whether each literal fits the column it
//! fills (E113), with the ISO forms dates, timestamps and uuids take.

use strata_codes as codes;

use crate::ast::{FixtureValue, FixtureValueKind};
use crate::diag::Diagnostic;
use crate::ir::Column;
use crate::types::Type;

/// Whether `v` fits column `col` (whose type, or an array's element type
/// when `ty` is one, is `ty`); E113 when it does not.
pub(super) fn check_value(
    v: &FixtureValue,
    col: &Column,
    ty: &Type,
    what: &str,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let top = *ty == col.ty;
    let problem: Option<(String, Option<String>)> = match (&v.kind, ty) {
        (FixtureValueKind::Null, _) if top && !col.nullable => Some((
            format!(
                "column '{}' of {what} is never null, and the test gives null",
                col.name
            ),
            Some(format!(
                "give a value of type {}; a row that leaves '{}' out of the column list gets its type's zero value",
                col.ty, col.name
            )),
        )),
        (FixtureValueKind::Null, _) => None,
        (_, Type::Unknown) => Some((
            format!("column '{}' of {what} has no known type: only null fits it", col.name),
            None,
        )),
        (FixtureValueKind::Int(_), Type::Int64 | Type::Float32 | Type::Float64) => None,
        (FixtureValueKind::Float(_), Type::Float32 | Type::Float64) => None,
        (FixtureValueKind::Float(text), Type::Int64) => Some((
            format!("{text} is not an integer, and column '{}' is int64", col.name),
            None,
        )),
        (FixtureValueKind::Int(_) | FixtureValueKind::Float(_), Type::Decimal(p, s)) => {
            decimal_fits(&number_text(v), *p, *s).map(|why| (format!("{why} in column '{}' ({ty})", col.name), None))
        }
        (FixtureValueKind::Int(_) | FixtureValueKind::Float(_), Type::Money(_)) => {
            decimal_fits(&number_text(v), 38, 2).map(|why| (format!("{why} in column '{}' ({ty}: two decimal places)", col.name), None))
        }
        (FixtureValueKind::Str(_), Type::String) => None,
        (FixtureValueKind::Str(s), Type::Date) => (!valid_date(s)).then(|| {
            (
                format!("\"{s}\" is not a date (column '{}')", col.name),
                Some("write a date as \"YYYY-MM-DD\", e.g. \"2024-01-31\"".to_string()),
            )
        }),
        (FixtureValueKind::Str(s), Type::Timestamp) => (!valid_timestamp(s)).then(|| {
            (
                format!("\"{s}\" is not a timestamp (column '{}')", col.name),
                Some("write a timestamp as \"YYYY-MM-DD HH:MM[:SS[.ffffff]]\" (a `T` may replace the space), without a time zone, e.g. \"2024-01-31 08:30:00\"".to_string()),
            )
        }),
        (FixtureValueKind::Str(s), Type::TimestampTz) => (!valid_timestamptz(s)).then(|| {
            (
                format!("\"{s}\" is not a timestamptz (column '{}')", col.name),
                Some("write an instant as a timestamp and its UTC offset, e.g. \"2024-03-31 01:30:00+01:00\" or \"2024-03-31 00:30:00Z\"".to_string()),
            )
        }),
        (FixtureValueKind::Str(s), Type::Uuid) => (!valid_uuid(s)).then(|| {
            (
                format!("\"{s}\" is not a uuid (column '{}')", col.name),
                Some("write a uuid as 32 hex digits in groups of 8-4-4-4-12, e.g. \"123e4567-e89b-12d3-a456-426614174000\"".to_string()),
            )
        }),
        (FixtureValueKind::Str(s), Type::Json) => serde_json::from_str::<serde_json::Value>(s)
            .err()
            .map(|e| {
                (
                    format!("the string is not JSON (column '{}' is json): {e}", col.name),
                    Some("write the JSON text as a string: \"{\\\"a\\\": 1}\"".to_string()),
                )
            }),
        (FixtureValueKind::Bool(_), Type::Bool) => None,
        (FixtureValueKind::List(items), Type::Array(elem)) => {
            let mut ok = true;
            for item in items {
                ok &= check_value(item, col, elem, what, diags);
            }
            return ok;
        }
        (kind, ty) => Some((
            format!(
                "{} does not fit column '{}' of {what}, which is {}",
                describe(kind),
                col.name,
                if top { col.ty.to_string() } else { format!("an array of {ty}") }
            ),
            hint(kind, ty),
        )),
    };
    match problem {
        None => true,
        Some((message, help)) => {
            let mut d = Diagnostic::new(&codes::E113, v.span, message);
            if let Some(h) = help {
                d = d.with_help(h);
            }
            diags.push(d);
            false
        }
    }
}

/// What a value is, in a message: `the string "x"`, `the integer 3`, ...
fn describe(kind: &FixtureValueKind) -> String {
    match kind {
        FixtureValueKind::Int(i) => format!("the integer {i}"),
        FixtureValueKind::Float(t) => format!("the number {t}"),
        FixtureValueKind::Str(s) => format!("the string \"{}\"", crate::lexer::shorten(s, 40)),
        FixtureValueKind::Bool(b) => format!("{b}"),
        FixtureValueKind::Null => "null".into(),
        FixtureValueKind::List(_) => "a list".into(),
    }
}

/// How to write a value of type `ty`, when the value given looks like one
/// written the wrong way.
fn hint(kind: &FixtureValueKind, ty: &Type) -> Option<String> {
    Some(match (kind, ty) {
        (
            FixtureValueKind::Str(s),
            Type::Int64 | Type::Float32 | Type::Float64 | Type::Decimal(..) | Type::Money(_),
        ) if s.trim().parse::<f64>().is_ok() => {
            format!("numbers are written without quotes: {}", s.trim())
        }
        (FixtureValueKind::Str(s), Type::Bool) if s == "true" || s == "false" => {
            format!("write {s} without quotes")
        }
        (FixtureValueKind::Int(i), Type::String) => format!("strings are quoted: \"{i}\""),
        (FixtureValueKind::Float(t), Type::String) => format!("strings are quoted: \"{t}\""),
        (_, Type::Date) => "write a date as a string: \"2024-01-31\"".into(),
        (_, Type::Timestamp) => "write a timestamp as a string: \"2024-01-31 08:30:00\"".into(),
        (_, Type::TimestampTz) => {
            "write an instant as a string with its UTC offset: \"2024-01-31 08:30:00+01:00\"".into()
        }
        (_, Type::Array(_)) => "write an array as a list: [1, 2]".into(),
        _ => return None,
    })
}

/// A number value's text without `_` separators.
fn number_text(v: &FixtureValue) -> String {
    match &v.kind {
        FixtureValueKind::Int(i) => i.to_string(),
        FixtureValueKind::Float(t) => t.replace('_', ""),
        _ => String::new(),
    }
}

/// Why the number `text` does not fit `decimal(p, s)`, if it does not.
fn decimal_fits(text: &str, p: u32, s: u32) -> Option<String> {
    let digits = text.trim_start_matches('-');
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    if frac.len() > s as usize {
        return Some(format!(
            "{text} has {} decimal places, more than {s}",
            frac.len()
        ));
    }
    if int.len() > p.saturating_sub(s) as usize {
        return Some(format!(
            "{text} has {} digits before the point, more than {}",
            int.len(),
            p.saturating_sub(s)
        ));
    }
    None
}

/// `YYYY-MM-DD`, a real day of the proleptic Gregorian calendar.
pub fn valid_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// `YYYY-MM-DD[( |T)HH:MM[:SS[.f{1,6}]]]` without a time zone.
pub fn valid_timestamp(s: &str) -> bool {
    if s.len() == 10 {
        return valid_date(s);
    }
    let (Some(date), Some(sep), Some(time)) = (s.get(..10), s.get(10..11), s.get(11..)) else {
        return false;
    };
    if !valid_date(date) || !(sep == " " || sep == "T") {
        return false;
    }
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    if time.contains('.')
        && (frac.is_empty() || frac.len() > 6 || !frac.bytes().all(|c| c.is_ascii_digit()))
    {
        return false;
    }
    let parts: Vec<&str> = hms.split(':').collect();
    if !(2..=3).contains(&parts.len()) || (parts.len() == 2 && !frac.is_empty()) {
        return false;
    }
    let limits = [23, 59, 59];
    parts.iter().zip(limits).all(|(p, max)| {
        p.len() == 2
            && p.bytes().all(|c| c.is_ascii_digit())
            && p.parse::<u32>().is_ok_and(|v| v <= max)
    })
}

/// A timestamp with a time of day and its UTC offset: `Z`, `+HH`, `+HHMM`
/// or `+HH:MM` (or `-`), as DuckDB, PostgreSQL and Spark all read it.
pub fn valid_timestamptz(s: &str) -> bool {
    let (time, offset) = match s.strip_suffix('Z') {
        Some(t) => (t, None),
        None => match s.get(11..).and_then(|t| t.rfind(['+', '-'])) {
            Some(i) => (&s[..11 + i], Some(&s[11 + i + 1..])),
            None => return false,
        },
    };
    let offset_ok = offset.is_none_or(|o| {
        let digits = o.replace(':', "");
        matches!(digits.len(), 2 | 4)
            && digits.bytes().all(|c| c.is_ascii_digit())
            && (o.len() != 5 || o.as_bytes()[2] == b':')
            && digits[..2].parse::<u32>().is_ok_and(|h| h <= 15)
            && digits.get(2..).is_none_or(|m| m.is_empty() || m < "60")
    });
    time.len() > 10 && offset_ok && valid_timestamp(time.trim_end())
}

/// 8-4-4-4-12 hex digits.
pub fn valid_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|c| c.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instants_carry_their_offset() {
        for ok in [
            "2024-03-31 01:30:00+01:00",
            "2024-03-31 00:30:00Z",
            "2024-10-27T02:30:00.5-05",
            "2024-10-27 02:30:00+0530",
            "2024-10-27 02:30 +02:00",
        ] {
            assert!(valid_timestamptz(ok), "{ok}");
        }
        for bad in [
            "2024-03-31 01:30:00",
            "2024-03-31",
            "2024-03-31Z",
            "2024-03-31 01:30:00+1",
            "2024-03-31 01:30:00+01:75",
            "2024-03-31 25:30:00Z",
        ] {
            assert!(!valid_timestamptz(bad), "{bad}");
        }
    }

    #[test]
    fn dates_and_timestamps_are_iso_and_real() {
        for ok in ["2024-01-31", "2024-02-29", "2000-02-29", "1970-01-01"] {
            assert!(valid_date(ok), "{ok}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2024-13-01",
            "2024-1-5",
            "24-01-01",
            "2024/01/01",
            "2024-01-00",
            "",
        ] {
            assert!(!valid_date(bad), "{bad}");
        }
        for ok in [
            "2024-01-31 08:30",
            "2024-01-31T08:30:00",
            "2024-01-31 23:59:59.123456",
            "2024-01-31",
        ] {
            assert!(valid_timestamp(ok), "{ok}");
        }
        for bad in [
            "2024-01-31 24:00",
            "2024-01-31 08:30:00+02",
            "2024-01-31 8:30",
            "2024-01-31 08:30.5",
            "2024-01-31 08:30:00.1234567",
            "2024-01-31x08:30",
        ] {
            assert!(!valid_timestamp(bad), "{bad}");
        }
    }

    #[test]
    fn decimals_fit_their_precision_and_scale() {
        assert_eq!(decimal_fits("12.50", 4, 1), None);
        assert_eq!(decimal_fits("-999.99", 5, 2), None);
        assert!(decimal_fits("1.255", 10, 2).is_some_and(|w| w.contains("3 decimal places")));
        assert!(decimal_fits("1000", 5, 2).is_some_and(|w| w.contains("4 digits before the point")));
        assert_eq!(decimal_fits("0.5", 1, 1), None);
    }

    #[test]
    fn uuids_are_grouped_hex() {
        assert!(valid_uuid("123e4567-e89b-12d3-a456-426614174000"));
        assert!(!valid_uuid("123e4567e89b12d3a456426614174000"));
        assert!(!valid_uuid("123e4567-e89b-12d3-a456-42661417400g"));
    }
}
