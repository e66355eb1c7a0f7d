//! Strings: case, trimming, padding, parts, search, patterns and hashes.

use super::ArgKind::*;
use super::Returns::*;
use super::{Family, Function, Sql, SqlCall, SCALAR};
use crate::sql::dialect::{Dialect, Unsupported};
use crate::types::Type;

const STR: Function = Function {
    family: Family::String,
    kinds: &[Str],
    returns: StringA1,
    ..SCALAR
};

/// Each argument as a string: non-strings cast.
fn as_strings(d: Dialect, c: &SqlCall) -> Result<Vec<String>, Unsupported> {
    let str_type = d.type_name(&Type::String)?;
    Ok(c.args
        .iter()
        .zip(c.targs)
        .map(|(s, t)| {
            if t.ty == Type::String {
                s.clone()
            } else {
                format!("CAST({s} AS {str_type})")
            }
        })
        .collect())
}

/// Outside a run (a run writes its id instead: [`crate::sql::RunValues`]).
fn run_id(d: Dialect, _: &SqlCall) -> Result<String, Unsupported> {
    crate::sql::no_run_id(d)
}

fn concat(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(format!("({})", as_strings(d, c)?.join(" || ")))
}

/// The non-null values joined by the separator (the first argument), as
/// DuckDB, PostgreSQL and Spark's `CONCAT_WS` do.
fn concat_ws(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let parts = as_strings(d, c)?;
    let (sep, values) = parts
        .split_first()
        .map_or(("", &[][..]), |(s, v)| (s.as_str(), v));
    let values = values.join(", ");
    Ok(match d {
        Dialect::DuckDb | Dialect::Postgres | Dialect::Spark => {
            format!("CONCAT_WS({sep}, {values})")
        }
        // Without null_text, ARRAY_TO_STRING leaves null elements out.
        Dialect::BigQuery => format!("ARRAY_TO_STRING([{values}], {sep})"),
        Dialect::Snowflake => format!("ARRAY_TO_STRING(ARRAY_CONSTRUCT_COMPACT({values}), {sep})"),
    })
}

fn regexp_replace(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(match d {
        Dialect::DuckDb | Dialect::Postgres => {
            format!("REGEXP_REPLACE({}, {}, {}, 'g')", c.a(0), c.a(1), c.a(2))
        }
        Dialect::BigQuery | Dialect::Snowflake | Dialect::Spark => {
            format!("REGEXP_REPLACE({})", c.list())
        }
    })
}

fn startswith(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(match d {
        Dialect::Snowflake | Dialect::Spark => format!("STARTSWITH({})", c.list()),
        Dialect::DuckDb | Dialect::Postgres | Dialect::BigQuery => {
            format!("STARTS_WITH({})", c.list())
        }
    })
}

fn split_part(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(match d {
        Dialect::BigQuery => format!("SPLIT({}, {})[SAFE_ORDINAL({})]", c.a(0), c.a(1), c.a(2)),
        Dialect::DuckDb | Dialect::Postgres | Dialect::Snowflake | Dialect::Spark => {
            format!("SPLIT_PART({})", c.list())
        }
    })
}

fn like(_: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(format!("({} LIKE {})", c.a(0), c.a(1)))
}

fn rlike(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(regex_match(d, c.a(0), c.a(1)))
}

/// Whether the regular expression `b` matches somewhere in `a`.
pub(super) fn regex_match(d: Dialect, a: &str, b: &str) -> String {
    match d {
        Dialect::DuckDb => format!("REGEXP_MATCHES({a}, {b})"),
        Dialect::Postgres => format!("({a} ~ {b})"),
        Dialect::BigQuery => format!("REGEXP_CONTAINS({a}, {b})"),
        Dialect::Snowflake => format!("(REGEXP_INSTR({a}, {b}) > 0)"),
        Dialect::Spark => format!("({a} RLIKE {b})"),
    }
}

/// The 1-based position of the first occurrence, 0 when there is none.
fn strpos(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let (s, sub) = (c.a(0), c.a(1));
    Ok(match d {
        Dialect::DuckDb | Dialect::Postgres | Dialect::BigQuery => {
            format!("CAST(STRPOS({s}, {sub}) AS {})", d.type_name(&Type::Int64)?)
        }
        Dialect::Spark => format!("CAST(INSTR({s}, {sub}) AS BIGINT)"),
        Dialect::Snowflake => format!("CAST(POSITION({sub}, {s}) AS BIGINT)"),
    })
}

/// Case-sensitive, as `strpos` (BigQuery's CONTAINS_SUBSTR ignores case).
fn contains(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let (s, sub) = (c.a(0), c.a(1));
    Ok(match d {
        Dialect::DuckDb | Dialect::Snowflake | Dialect::Spark => format!("CONTAINS({s}, {sub})"),
        Dialect::Postgres | Dialect::BigQuery => format!("(STRPOS({s}, {sub}) > 0)"),
    })
}

/// The lowercase hex digest of the string's UTF-8 bytes.
fn md5(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    Ok(match d {
        Dialect::BigQuery => format!("TO_HEX(MD5({}))", c.a(0)),
        Dialect::DuckDb | Dialect::Postgres | Dialect::Snowflake | Dialect::Spark => {
            format!("MD5({})", c.a(0))
        }
    })
}

fn sha256(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let s = c.a(0);
    Ok(match d {
        Dialect::DuckDb => format!("SHA256({s})"),
        Dialect::Postgres => format!("ENCODE(SHA256(CONVERT_TO({s}, 'UTF8')), 'hex')"),
        Dialect::BigQuery => format!("TO_HEX(SHA256({s}))"),
        Dialect::Snowflake | Dialect::Spark => format!("SHA2({s}, 256)"),
    })
}

/// The match of the pattern (or of its group `n`, 1-based), NULL when it
/// does not match: the whole pattern is wrapped in a group, so that group
/// 0 is the whole match everywhere.
fn regexp_extract(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let (s, p) = (c.a(0), c.a(1));
    let n = c.args.get(2).map_or("0", String::as_str);
    Ok(match d {
        Dialect::DuckDb => {
            format!("CASE WHEN REGEXP_MATCHES({s}, {p}) THEN REGEXP_EXTRACT({s}, {p}, {n}) END")
        }
        Dialect::Spark => {
            format!("CASE WHEN {s} RLIKE {p} THEN REGEXP_EXTRACT({s}, {p}, {n}) END")
        }
        Dialect::Postgres => format!("(REGEXP_MATCH({s}, '(' || {p} || ')'))[{n} + 1]"),
        Dialect::Snowflake => {
            format!("REGEXP_SUBSTR({s}, '(' || {p} || ')', 1, 1, 'e', {n} + 1)")
        }
        // One capturing group at most: only the whole match.
        Dialect::BigQuery if c.args.len() > 2 => {
            return crate::sql::dialect::unsupported(d, "regexp_extract() of a group")
        }
        Dialect::BigQuery => format!("REGEXP_EXTRACT({s}, {p})"),
    })
}

/// The parts of s between the separator (taken as text, not a pattern).
fn split(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let (s, sep) = (c.a(0), c.a(1));
    Ok(match d {
        Dialect::DuckDb => format!("STRING_SPLIT({s}, {sep})"),
        // string_to_array('', ',') is an empty array elsewhere one ''.
        Dialect::Postgres => {
            format!("CASE WHEN {s} = '' THEN ARRAY[''] ELSE STRING_TO_ARRAY({s}, {sep}) END")
        }
        // Spark splits on a regular expression: quote the separator.
        Dialect::Spark => format!("SPLIT({s}, CONCAT('\\\\Q', {sep}, '\\\\E'), -1)"),
        Dialect::BigQuery => format!("SPLIT({s}, {sep})"),
        Dialect::Snowflake => format!("SPLIT({s}, {sep})"),
    })
}

/// Words separated by spaces, each with its first letter upper case and
/// the rest lower case.
fn initcap(d: Dialect, c: &SqlCall) -> Result<String, Unsupported> {
    let s = c.a(0);
    Ok(match d {
        Dialect::DuckDb => format!(
            "ARRAY_TO_STRING(LIST_TRANSFORM(STRING_SPLIT({s}, ' '), lambda __w: UPPER(LEFT(__w, 1)) || LOWER(SUBSTRING(__w, 2))), ' ')"
        ),
        Dialect::Postgres => format!(
            "ARRAY_TO_STRING(ARRAY(SELECT UPPER(LEFT(w, 1)) || LOWER(SUBSTRING(w FROM 2)) FROM UNNEST(STRING_TO_ARRAY({s}, ' ')) WITH ORDINALITY AS t(w, n) ORDER BY n), ' ')"
        ),
        Dialect::Spark => format!(
            "ARRAY_JOIN(TRANSFORM(SPLIT({s}, ' ', -1), w -> CONCAT(UPPER(LEFT(w, 1)), LOWER(SUBSTRING(w, 2)))), ' ')"
        ),
        Dialect::BigQuery | Dialect::Snowflake => format!("INITCAP({s}, ' ')"),
    })
}

pub(super) const FUNCTIONS: &[Function] = &[
    Function {
        name: "upper",
        example: "upper(s)",
        signature: "upper(s)",
        summary: "s in upper case",
        sql: Sql::Same("UPPER"),
        ..STR
    },
    Function {
        name: "lower",
        example: "lower(s)",
        signature: "lower(s)",
        summary: "s in lower case",
        sql: Sql::Same("LOWER"),
        ..STR
    },
    Function {
        name: "trim",
        example: "trim(s)",
        signature: "trim(s)",
        summary: "s without leading and trailing spaces",
        sql: Sql::Same("TRIM"),
        sql_aliases: &["btrim"],
        ..STR
    },
    Function {
        name: "ltrim",
        example: "ltrim(s)",
        signature: "ltrim(s)",
        summary: "s without leading spaces",
        sql: Sql::Same("LTRIM"),
        ..STR
    },
    Function {
        name: "rtrim",
        example: "rtrim(s)",
        signature: "rtrim(s)",
        summary: "s without trailing spaces",
        sql: Sql::Same("RTRIM"),
        ..STR
    },
    Function {
        name: "length",
        example: "length(s)",
        returns: Int64A1,
        signature: "length(s)",
        summary: "the number of characters of s",
        sql: Sql::Same("LENGTH"),
        sql_aliases: &["len", "char_length", "character_length"],
        ..STR
    },
    Function {
        name: "concat",
        example: "concat(s, i)",
        max_args: None,
        kinds: &[Any],
        returns: StringAny,
        signature: "concat(a, b, ...)",
        summary: "the arguments as strings, joined (null when any is null)",
        sql: Sql::By(concat),
        ..STR
    },
    Function {
        name: "concat_ws",
        example: "concat_ws(\"-\", s, i)",
        min_args: 2,
        max_args: None,
        kinds: &[Str, Any],
        returns: StringA1,
        signature: "concat_ws(separator, a, b, ...)",
        summary: "the non-null arguments as strings, joined by the separator",
        sql: Sql::By(concat_ws),
        duckdb_same: true,
        ..STR
    },
    Function {
        name: "substring",
        example: "substring(s, 1, 2)",
        min_args: 2,
        max_args: Some(3),
        kinds: &[Str, Int, Int],
        signature: "substring(s, start, length)",
        summary: "the characters of s from start (1-based), length of them or to the end",
        sql: Sql::Same("SUBSTR"),
        sql_aliases: &["substr"],
        ..STR
    },
    Function {
        name: "replace",
        example: "replace(s, \"a\", \"b\")",
        min_args: 3,
        max_args: Some(3),
        kinds: &[Str, Str, Str],
        returns: StringAny,
        signature: "replace(s, from, to)",
        summary: "s with every occurrence of from replaced by to",
        sql: Sql::Same("REPLACE"),
        ..STR
    },
    Function {
        name: "regexp_replace",
        example: "regexp_replace(s, \"[0-9]\", \"#\")",
        min_args: 3,
        max_args: Some(3),
        kinds: &[Str, Str, Str],
        returns: StringAny,
        signature: "regexp_replace(s, pattern, replacement)",
        summary: "s with every match of the regular expression replaced",
        sql: Sql::By(regexp_replace),
        ..STR
    },
    Function {
        name: "regexp_extract",
        example: "regexp_extract(s, \"b+\")",
        min_args: 2,
        max_args: Some(3),
        kinds: &[Str, Str, Int],
        returns: StringNullable,
        signature: "regexp_extract(s, pattern[, group])",
        summary: "the first match of the regular expression in s (or of its group, 1-based); null when none",
        sql: Sql::By(regexp_extract),
        sql_aliases: &["regexp_substr"],
        ..STR
    },
    Function {
        name: "split",
        example: "split(s, \",\")",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Str, Str],
        returns: StringArrayAny,
        signature: "split(s, separator)",
        summary: "the parts of s between the separators (text, not a pattern), as an array",
        sql: Sql::By(split),
        sql_aliases: &["string_split", "str_split", "string_to_array"],
        duckdb_same: true,
        ..STR
    },
    Function {
        name: "initcap",
        example: "initcap(s)",
        signature: "initcap(s)",
        summary: "s with each space-separated word capitalized and the rest of it lower case",
        sql: Sql::By(initcap),
        ..STR
    },
    Function {
        name: "lpad",
        example: "lpad(s, 5, \"0\")",
        min_args: 3,
        max_args: Some(3),
        kinds: &[Str, Int, Str],
        returns: StringAny,
        signature: "lpad(s, length, fill)",
        summary: "s padded on the left with fill to length characters (cut to it when longer)",
        sql: Sql::Same("LPAD"),
        ..STR
    },
    Function {
        name: "rpad",
        example: "rpad(s, 5, \"0\")",
        min_args: 3,
        max_args: Some(3),
        kinds: &[Str, Int, Str],
        returns: StringAny,
        signature: "rpad(s, length, fill)",
        summary: "s padded on the right with fill to length characters (cut to it when longer)",
        sql: Sql::Same("RPAD"),
        ..STR
    },
    Function {
        name: "startswith",
        example: "startswith(s, \"a\")",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Str, Str],
        returns: BoolAny,
        signature: "startswith(s, prefix)",
        summary: "whether s starts with prefix",
        sql: Sql::By(startswith),
        sql_aliases: &["starts_with"],
        ..STR
    },
    Function {
        name: "split_part",
        example: "split_part(s, \",\", 1)",
        min_args: 3,
        max_args: Some(3),
        kinds: &[Str, Str, Int],
        signature: "split_part(s, separator, n)",
        summary: "the n-th (1-based) part of s split at the separator",
        sql: Sql::By(split_part),
        ..STR
    },
    Function {
        name: "left",
        example: "left(s, 2)",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Str, Int],
        signature: "left(s, n)",
        summary: "the first n characters of s",
        sql: Sql::Same("LEFT"),
        ..STR
    },
    Function {
        name: "right",
        example: "right(s, 2)",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Str, Int],
        signature: "right(s, n)",
        summary: "the last n characters of s",
        sql: Sql::Same("RIGHT"),
        ..STR
    },
    Function {
        name: "like",
        example: "like(s, \"a%\")",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Str, Str],
        returns: BoolAny,
        signature: "like(s, pattern)",
        summary: "whether s matches the LIKE pattern (% any characters, _ one)",
        sql: Sql::By(like),
        ..STR
    },
    Function {
        name: "rlike",
        example: "rlike(s, \"^a\")",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Str, Str],
        returns: BoolAny,
        signature: "rlike(s, pattern)",
        summary: "whether the regular expression matches somewhere in s",
        sql: Sql::By(rlike),
        sql_aliases: &["regexp_matches", "regexp_like", "regexp_contains"],
        ..STR
    },
    Function {
        name: "strpos",
        example: "strpos(s, \"a\")",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Str, Str],
        returns: Int64Any,
        signature: "strpos(s, substring)",
        summary:
            "the 1-based position of the first occurrence of substring in s, 0 when there is none",
        sql: Sql::By(strpos),
        sql_aliases: &["instr"],
        duckdb_same: true,
        ..STR
    },
    Function {
        name: "contains",
        example: "contains(s, \"a\")",
        min_args: 2,
        max_args: Some(2),
        kinds: &[Str, Str],
        returns: BoolAny,
        signature: "contains(s, substring)",
        summary: "whether substring occurs in s (case-sensitive)",
        sql: Sql::By(contains),
        duckdb_same: true,
        ..STR
    },
    Function {
        name: "reverse",
        example: "reverse(s)",
        signature: "reverse(s)",
        summary: "the characters of s in reverse order",
        sql: Sql::Same("REVERSE"),
        duckdb_same: true,
        ..STR
    },
    Function {
        name: "md5",
        example: "md5(s)",
        signature: "md5(s)",
        summary: "the MD5 digest of s's UTF-8 bytes, as 32 lowercase hex digits",
        sql: Sql::By(md5),
        duckdb_same: true,
        ..STR
    },
    Function {
        name: "sha256",
        example: "sha256(s)",
        signature: "sha256(s)",
        summary: "the SHA-256 digest of s's UTF-8 bytes, as 64 lowercase hex digits",
        sql: Sql::By(sha256),
        duckdb_same: true,
        ..STR
    },
    Function {
        name: crate::sql::RUN_ID_FUNCTION,
        example: "run_id()",
        min_args: 0,
        max_args: Some(0),
        kinds: &[],
        returns: StringAny,
        signature: "run_id()",
        summary: "the id of the run that builds the rows (16 hex digits, as the run history shows it); \"0000000000000000\" outside a run",
        sql: Sql::By(run_id),
        ..STR
    },
];
