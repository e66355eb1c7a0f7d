//! `strftime` / `strptime` formats: the codes strata reads (`%Y-%m-%d`),
//! how each dialect writes them (DuckDB and BigQuery: the same codes;
//! PostgreSQL and Snowflake: `to_char` patterns; Spark: Java date
//! patterns), and where a text that matches a `strptime` format has each
//! field ([`layout`]).

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
                    codes_list(CODES.iter().map(|(c, _)| *c))
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

/// `%Y %m ..`: the codes, as a format writes them.
fn codes_list(codes: impl Iterator<Item = char>) -> String {
    codes.map(|c| format!("%{c}")).collect::<Vec<_>>().join(" ")
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

/// The codes `strptime` reads, each with its width: a text matches a
/// format when it has exactly these digits where the format has a code.
pub const READ_CODES: &[(char, usize)] =
    &[('Y', 4), ('m', 2), ('d', 2), ('H', 2), ('M', 2), ('S', 2)];

/// The pieces of a format `strptime` reads, or why it cannot: a code it
/// does not read, one written twice, or no `%Y`.
pub fn parse_for_reading(format: &str) -> Result<Vec<Piece>, String> {
    let pieces = parse(format)?;
    let mut seen = Vec::new();
    for p in &pieces {
        if let Piece::Code(c) = p {
            if !READ_CODES.iter().any(|(r, _)| r == c) {
                return Err(format!(
                    "strptime() reads the codes {} (not %{c})",
                    codes_list(READ_CODES.iter().map(|(c, _)| *c))
                ));
            }
            if seen.contains(c) {
                return Err(format!("strptime() format has %{c} twice"));
            }
            seen.push(*c);
        }
    }
    if !seen.contains(&'Y') {
        return Err("strptime() format needs %Y, the year".into());
    }
    Ok(pieces)
}

/// What a text matching a `strptime` format looks like: the regular
/// expression of the whole text (digits where a code is, the format's own
/// text elsewhere; the same in every dialect's regex flavour) and each
/// code's (1-based) character position and width in it.
#[derive(Debug, PartialEq, Eq)]
pub struct Layout {
    pub regex: String,
    pub fields: Vec<(char, usize, usize)>,
}

pub fn layout(pieces: &[Piece]) -> Layout {
    let mut regex = String::from("^");
    let mut fields = Vec::new();
    let mut at = 1;
    for p in pieces {
        match p {
            Piece::Text(t) => {
                for ch in t.chars() {
                    if "\\.^$*+?()[]{}|".contains(ch) {
                        regex.push('\\');
                    }
                    regex.push(ch);
                }
                at += t.chars().count();
            }
            Piece::Code(c) => {
                let width = READ_CODES
                    .iter()
                    .find(|(r, _)| r == c)
                    .map_or(2, |(_, w)| *w);
                regex.push_str(&format!("[0-9]{{{width}}}"));
                fields.push((*c, at, width));
                at += width;
            }
        }
    }
    regex.push('$');
    Layout { regex, fields }
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

    #[test]
    fn reading_layouts() {
        let p = parse_for_reading("%d.%m.%Y %H:%M").expect("reads");
        let l = layout(&p);
        assert_eq!(
            l.regex,
            "^[0-9]{2}\\.[0-9]{2}\\.[0-9]{4} [0-9]{2}:[0-9]{2}$"
        );
        assert_eq!(
            l.fields,
            vec![
                ('d', 1, 2),
                ('m', 4, 2),
                ('Y', 7, 4),
                ('H', 12, 2),
                ('M', 15, 2)
            ]
        );
        assert!(matches!(parse_for_reading("%Y-%b"), Err(e) if e.contains("%b")));
        assert!(matches!(parse_for_reading("%Y-%Y"), Err(e) if e.contains("twice")));
        assert!(matches!(parse_for_reading("%m-%d"), Err(e) if e.contains("%Y")));
    }
}
