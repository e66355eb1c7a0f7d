//! `strftime` formats: the codes strata reads (`%Y-%m-%d`) and how each
//! dialect writes them (DuckDB and BigQuery: the same codes; PostgreSQL and
//! Snowflake: `to_char` patterns; Spark: Java date patterns).

use crate::sql::dialect::{unsupported, Dialect, Unsupported};

/// The codes a format may use, with what each gives.
pub const CODES: &[(char, &str)] = &[
    ('Y', "year, 4 digits"),
    ('y', "year, 2 digits"),
    ('m', "month, 01-12"),
    ('d', "day of the month, 01-31"),
    ('j', "day of the year, 001-366"),
    ('H', "hour, 00-23"),
    ('M', "minute, 00-59"),
    ('S', "second, 00-59"),
    ('b', "month name, abbreviated (Jan)"),
    ('B', "month name (January)"),
    ('a', "weekday name, abbreviated (Mon)"),
    ('A', "weekday name (Monday)"),
];

/// A piece of a format: a code, or text printed as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Piece {
    Code(char),
    Text(String),
}

/// The pieces of `format`, or why it is not one (an unknown code, a `%`
/// at the end).
pub fn parse(format: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut text = String::new();
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        match chars.next() {
            Some('%') => text.push('%'),
            Some(code) if CODES.iter().any(|(c, _)| *c == code) => {
                if !text.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut text)));
                }
                pieces.push(Piece::Code(code));
            }
            Some(other) => {
                return Err(format!(
                    "unknown format code %{other} (have: {}, and %% for %)",
                    codes_list()
                ))
            }
            None => return Err("the format ends with a lone % (write %% for %)".into()),
        }
    }
    if !text.is_empty() {
        pieces.push(Piece::Text(text));
    }
    Ok(pieces)
}

fn codes_list() -> String {
    CODES
        .iter()
        .map(|(c, _)| format!("%{c}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The dialect's pattern for `pieces` (the text of a string literal).
pub fn pattern(d: Dialect, pieces: &[Piece]) -> Result<String, Unsupported> {
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Text(t) => match d {
                Dialect::DuckDb | Dialect::BigQuery => out.push_str(&t.replace('%', "%%")),
                // Quoted: a letter of the text could read as a pattern.
                Dialect::Postgres | Dialect::Snowflake => {
                    out.push('"');
                    out.push_str(&t.replace('"', "\\\""));
                    out.push('"');
                }
                Dialect::Spark => {
                    out.push('\'');
                    out.push_str(&t.replace('\'', "''"));
                    out.push('\'');
                }
            },
            Piece::Code(c) => out.push_str(code(d, *c)?),
        }
    }
    Ok(out)
}

fn code(d: Dialect, c: char) -> Result<&'static str, Unsupported> {
    use Dialect::*;
    Ok(match (d, c) {
        (DuckDb | BigQuery, _) => match c {
            'Y' => "%Y",
            'y' => "%y",
            'm' => "%m",
            'd' => "%d",
            'j' => "%j",
            'H' => "%H",
            'M' => "%M",
            'S' => "%S",
            'b' => "%b",
            'B' => "%B",
            'a' => "%a",
            _ => "%A",
        },
        (Postgres | Snowflake, 'Y') => "YYYY",
        (Postgres | Snowflake, 'y') => "YY",
        (Postgres | Snowflake, 'm') => "MM",
        (Postgres | Snowflake, 'd') => "DD",
        (Postgres, 'j') => "DDD",
        (Postgres | Snowflake, 'H') => "HH24",
        (Postgres | Snowflake, 'M') => "MI",
        (Postgres | Snowflake, 'S') => "SS",
        (Postgres | Snowflake, 'b') => "Mon",
        (Postgres, 'B') => "FMMonth",
        (Snowflake, 'B') => "MMMM",
        (Postgres, 'a') => "Dy",
        (Snowflake, 'a') => "DY",
        (Postgres, 'A') => "FMDay",
        (Spark, 'Y') => "yyyy",
        (Spark, 'y') => "yy",
        (Spark, 'm') => "MM",
        (Spark, 'd') => "dd",
        (Spark, 'j') => "DDD",
        (Spark, 'H') => "HH",
        (Spark, 'M') => "mm",
        (Spark, 'S') => "ss",
        (Spark, 'b') => "MMM",
        (Spark, 'B') => "MMMM",
        (Spark, 'a') => "EEE",
        (Spark, 'A') => "EEEE",
        (_, other) => return unsupported(d, &format!("strftime() code %{other}")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_text_and_errors() {
        let p = parse("%Y-%m-%d at %H:%M (100%%)").expect("parses");
        assert_eq!(p[0], Piece::Code('Y'));
        assert_eq!(p[1], Piece::Text("-".into()));
        assert_eq!(p[7], Piece::Text(":".into()));
        assert_eq!(p.last(), Some(&Piece::Text(" (100%)".into())));
        assert_eq!(
            pattern(Dialect::Postgres, &p).as_deref(),
            Ok("YYYY\"-\"MM\"-\"DD\" at \"HH24\":\"MI\" (100%)\"")
        );
        assert_eq!(
            pattern(Dialect::Spark, &p).as_deref(),
            Ok("yyyy'-'MM'-'dd' at 'HH':'mm' (100%)'")
        );
        assert_eq!(
            pattern(Dialect::DuckDb, &p).as_deref(),
            Ok("%Y-%m-%d at %H:%M (100%%)")
        );
        assert!(pattern(Dialect::Snowflake, &parse("%A").expect("parses")).is_err());
        assert!(matches!(parse("%Q"), Err(e) if e.contains("%Q")));
        assert!(parse("50%").is_err());
    }
}
