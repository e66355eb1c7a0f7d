//! What differs between warehouses: quoting, literals, type names, date
//! arithmetic. Each difference lives here once; the lowering in
//! `sql/mod.rs` is shared by every dialect, and each function's SQL is its
//! catalog entry's (`catalog/`).

use crate::ir::TExpr;
use crate::table_name::TableName;
use crate::types::Type;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dialect {
    DuckDb,
    Postgres,
    BigQuery,
    Snowflake,
    Spark,
}

/// Why a dialect cannot express something (becomes an E070 diagnostic).
pub type Unsupported = String;

pub(crate) fn unsupported<T>(d: Dialect, what: &str) -> Result<T, Unsupported> {
    Err(format!("{} cannot express {what}", d.name()))
}

impl Dialect {
    pub const ALL: [Dialect; 5] = [
        Dialect::DuckDb,
        Dialect::Postgres,
        Dialect::BigQuery,
        Dialect::Snowflake,
        Dialect::Spark,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Dialect::DuckDb => "duckdb",
            Dialect::Postgres => "postgres",
            Dialect::BigQuery => "bigquery",
            Dialect::Snowflake => "snowflake",
            Dialect::Spark => "spark",
        }
    }

    /// Why this dialect's catalog cannot hold a table or view named after
    /// `name` (a model's views and snapshots are), when it cannot: Spark's
    /// session catalog takes ASCII letters, digits and `_` only, however
    /// the name is quoted.
    pub fn relation_name_refusal(self, name: &str) -> Option<String> {
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '_';
        match self {
            Dialect::Spark if !name.chars().all(plain) => Some(format!(
                "Spark's catalog names tables and views with ASCII letters, digits and `_` only, so `v_{name}` cannot be created"
            )),
            _ => None,
        }
    }

    /// The dialect of a name as [`Dialect::name`] spells it.
    pub fn from_name(name: &str) -> Option<Dialect> {
        Dialect::ALL.into_iter().find(|d| d.name() == name)
    }

    /// A source's table as SQL names it: each part quoted on its own
    /// (`"raw"."customer"`), never spliced.
    pub fn table(self, table: &TableName) -> String {
        table
            .parts()
            .map(|p| self.ident(p))
            .collect::<Vec<_>>()
            .join(".")
    }

    /// A quoted identifier: `"x"` (`""` escapes a quote), or `` `x` `` in
    /// BigQuery (backslash escapes) and Spark (a doubled backtick). Spark
    /// must never see `"x"`: it reads a double-quoted name as a string.
    pub fn ident(self, name: &str) -> String {
        let quote = if matches!(self, Dialect::BigQuery | Dialect::Spark) {
            '`'
        } else {
            '"'
        };
        if !name.contains(['\\', '`', '"']) {
            // Nothing to escape (nearly always): no formatting machinery.
            let mut out = String::with_capacity(name.len() + 2);
            out.push(quote);
            out.push_str(name);
            out.push(quote);
            return out;
        }
        match self {
            Dialect::BigQuery => format!("`{}`", name.replace('\\', "\\\\").replace('`', "\\`")),
            Dialect::Spark => format!("`{}`", name.replace('`', "``")),
            _ => format!("\"{}\"", name.replace('"', "\"\"")),
        }
    }

    /// A string literal: `'x'` with `''`, or the backslash escapes of
    /// BigQuery and Spark.
    pub fn string(self, value: &str) -> String {
        match self {
            Dialect::BigQuery | Dialect::Spark => {
                let mut out = String::with_capacity(value.len() + 2);
                out.push('\'');
                for c in value.chars() {
                    match c {
                        '\\' => out.push_str("\\\\"),
                        '\'' => out.push_str("\\'"),
                        '\n' => out.push_str("\\n"),
                        '\r' => out.push_str("\\r"),
                        '\t' => out.push_str("\\t"),
                        c => out.push(c),
                    }
                }
                out.push('\'');
                out
            }
            // Snowflake treats backslash as an escape in '...' literals too.
            Dialect::Snowflake => format!("'{}'", value.replace('\\', "\\\\").replace('\'', "''")),
            _ => format!("'{}'", value.replace('\'', "''")),
        }
    }

    /// The physical type name of a strata type.
    pub fn type_name(self, t: &Type) -> Result<String, Unsupported> {
        use Dialect::*;
        Ok(match (self, t) {
            (BigQuery, Type::Int64) => "INT64".into(),
            (_, Type::Int64) => "BIGINT".into(),
            (DuckDb | Spark, Type::Float32) => "FLOAT".into(),
            (Postgres, Type::Float32) => "REAL".into(),
            // Their FLOAT and REAL are 8 bytes: no 4-byte float to compute in.
            (BigQuery | Snowflake, Type::Float32) => {
                return unsupported(self, "float32 (no 4-byte float type; declare float64)")
            }
            (Postgres, Type::Float64) => "DOUBLE PRECISION".into(),
            (BigQuery, Type::Float64) => "FLOAT64".into(),
            (_, Type::Float64) => "DOUBLE".into(),
            (_, Type::Decimal(p, s)) if *p == 0 || *s > *p => {
                return unsupported(self, &format!("decimal({p},{s})"));
            }
            (DuckDb, Type::Decimal(p, s)) if *p <= 38 => format!("DECIMAL({p},{s})"),
            (Postgres, Type::Decimal(p, s)) if *p <= 1000 => format!("NUMERIC({p},{s})"),
            (BigQuery, Type::Decimal(p, s)) if *p <= 29 && *s <= 9 && p - s <= 29 => {
                format!("NUMERIC({p},{s})")
            }
            (BigQuery, Type::Decimal(p, s)) if *p <= 76 && *s <= 38 => {
                format!("BIGNUMERIC({p},{s})")
            }
            (Snowflake, Type::Decimal(p, s)) if *p <= 38 => format!("NUMBER({p},{s})"),
            (Spark, Type::Decimal(p, s)) if *p <= 38 => format!("DECIMAL({p},{s})"),
            (_, Type::Decimal(p, s)) => return unsupported(self, &format!("decimal({p},{s})")),
            // Money is stored as a decimal with two places; the currency is a
            // compile-time tag.
            (Postgres, Type::Money(_)) => "NUMERIC(38,2)".into(),
            (BigQuery, Type::Money(_)) => "BIGNUMERIC(38,2)".into(),
            (Snowflake, Type::Money(_)) => "NUMBER(38,2)".into(),
            (_, Type::Money(_)) => "DECIMAL(38,2)".into(),
            (Postgres, Type::String) => "TEXT".into(),
            (BigQuery | Spark, Type::String) => "STRING".into(),
            (_, Type::String) => "VARCHAR".into(),
            (BigQuery, Type::Bool) => "BOOL".into(),
            (_, Type::Bool) => "BOOLEAN".into(),
            (_, Type::Date) => "DATE".into(),
            (Snowflake, Type::Timestamp) => "TIMESTAMP_NTZ".into(),
            (_, Type::Timestamp) => "TIMESTAMP".into(),
            // An instant: BigQuery's and Spark's TIMESTAMP are instants.
            (DuckDb | Postgres, Type::TimestampTz) => "TIMESTAMPTZ".into(),
            (Snowflake, Type::TimestampTz) => "TIMESTAMP_TZ".into(),
            (BigQuery | Spark, Type::TimestampTz) => "TIMESTAMP".into(),
            (DuckDb | Postgres, Type::Uuid) => "UUID".into(),
            (_, Type::Uuid) => return unsupported(self, "the uuid type (no native UUID type)"),
            (Snowflake, Type::Json) => "VARIANT".into(),
            // JSON text: Spark's JSON functions read strings.
            (Spark, Type::Json) => "STRING".into(),
            (_, Type::Json) => "JSON".into(),
            (DuckDb | Postgres, Type::Array(e)) => format!("{}[]", self.type_name(e)?),
            (BigQuery, Type::Array(e)) => {
                if matches!(**e, Type::Array(_)) {
                    return unsupported(self, "nested arrays");
                }
                format!("ARRAY<{}>", self.type_name(e)?)
            }
            (Snowflake, Type::Array(_)) => "ARRAY".into(),
            (Spark, Type::Array(e)) => format!("ARRAY<{}>", self.type_name(e)?),
            (_, Type::Unknown) => return unsupported(self, "a value of unknown type"),
        })
    }

    /// An array value made of its elements' SQL (`elements`, joined).
    pub fn array_literal(self, elements: &str) -> String {
        match self {
            Dialect::Postgres => format!("ARRAY[{elements}]"),
            Dialect::Snowflake => format!("ARRAY_CONSTRUCT({elements})"),
            Dialect::Spark => format!("ARRAY({elements})"),
            Dialect::DuckDb | Dialect::BigQuery => format!("[{elements}]"),
        }
    }

    /// `CAST(x AS T)`.
    pub fn cast(self, sql: &str, to: &Type) -> Result<String, Unsupported> {
        Ok(format!("CAST({sql} AS {})", self.type_name(to)?))
    }

    /// `CAST(x AS T)` for a value of type `from` (PostgreSQL casts a bool
    /// to an integer only through INTEGER).
    /// Between `timestamptz` and the wall-clock types, through UTC (never
    /// the session's time zone): an instant's `timestamp`, `date` and
    /// `string` are its UTC time's.
    pub fn cast_from(self, sql: &str, from: &Type, to: &Type) -> Result<String, Unsupported> {
        match (from, to) {
            (Type::TimestampTz, Type::TimestampTz) => return self.cast(sql, to),
            (Type::TimestampTz, Type::Timestamp) => return self.to_utc(sql),
            (Type::TimestampTz, Type::Date | Type::String) => {
                return self.cast(&self.to_utc(sql)?, to)
            }
            (Type::Timestamp, Type::TimestampTz) => return self.from_utc(sql),
            (Type::Date, Type::TimestampTz) => {
                return self.from_utc(&self.cast(sql, &Type::Timestamp)?)
            }
            _ => {}
        }
        if self == Dialect::Postgres
            && *from == Type::Bool
            && matches!(
                to,
                Type::Int64 | Type::Decimal(..) | Type::Money(_) | Type::Float32 | Type::Float64
            )
        {
            return self.cast(&format!("CAST({sql} AS INTEGER)"), to);
        }
        self.cast(sql, to)
    }

    /// The keyword of a set operation.
    pub fn set_op(self, op: crate::ast::SetOpKind) -> &'static str {
        use crate::ast::SetOpKind::*;
        match (self, op) {
            (Dialect::BigQuery, Union) => "UNION DISTINCT",
            (Dialect::BigQuery, Intersect) => "INTERSECT DISTINCT",
            (Dialect::BigQuery, Except) => "EXCEPT DISTINCT",
            (_, Union) => "UNION",
            (_, UnionAll) => "UNION ALL",
            (_, Intersect) => "INTERSECT",
            (_, Except) => "EXCEPT",
        }
    }

    /// `a % b`; `float` when an operand is float64 (PostgreSQL and
    /// BigQuery have no floating-point remainder: it goes through NUMERIC).
    pub fn modulo(self, a: &str, b: &str, float: bool) -> String {
        match (self, float) {
            (Dialect::BigQuery, false) => format!("MOD({a}, {b})"),
            (Dialect::BigQuery, true) => {
                format!("MOD(CAST({a} AS BIGNUMERIC), CAST({b} AS BIGNUMERIC))")
            }
            (Dialect::Postgres, true) => format!("(CAST({a} AS NUMERIC) % CAST({b} AS NUMERIC))"),
            _ => format!("({a} % {b})"),
        }
    }

    /// The operands of an arithmetic `op` whose result has strata type
    /// `ty`, cast where the engine would compute in a narrower type than
    /// the result: a float32 operand of a float64 result is widened first
    /// (DuckDB and Spark compute `FLOAT * BIGINT` in 4 bytes), and DuckDB
    /// multiplies two decimals of up to 18 digits in 18 digits (an
    /// overflow error where the product has up to 36), so its left operand
    /// becomes `DECIMAL(38, s)` there.
    pub fn widen_operands(
        self,
        op: crate::ast::BinOp,
        (l, lt): (String, &Type),
        (r, rt): (String, &Type),
        ty: &Type,
    ) -> Result<(String, String), Unsupported> {
        use crate::ast::BinOp;
        let arithmetic = matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Mod);
        if !arithmetic {
            return Ok((l, r));
        }
        if *ty == Type::Float64 && (*lt == Type::Float32 || *rt == Type::Float32) {
            let widen = |sql: String, t: &Type| match t {
                Type::Float32 => self.cast(&sql, &Type::Float64),
                _ => Ok(sql),
            };
            return Ok((widen(l, lt)?, widen(r, rt)?));
        }
        match (self, op, ty, lt.as_decimal()) {
            (Dialect::DuckDb, BinOp::Mul, Type::Decimal(p, _), Some((_, s))) if *p > 18 => {
                Ok((self.cast(&l, &crate::types::decimal(38, s))?, r))
            }
            _ => Ok((l, r)),
        }
    }

    /// `a / b`, always floating point (the language never divides integers).
    pub fn divide(self, a: &str, b: &str) -> String {
        let f = match self {
            Dialect::Postgres => "DOUBLE PRECISION",
            Dialect::BigQuery => "FLOAT64",
            _ => "DOUBLE",
        };
        format!("(CAST({a} AS {f}) / {b})")
    }

    /// `d` plus `n` of `unit` (`date_add`/`date_sub`), of type `ty`.
    pub(crate) fn date_add(
        self,
        d: &str,
        n: &str,
        unit: &str,
        ty: &Type,
    ) -> Result<String, Unsupported> {
        use Dialect::*;
        let (amount, single) = match unit {
            "years" => (n.to_string(), "YEAR"),
            "quarters" => (format!("(3 * {n})"), "MONTH"),
            "months" => (n.to_string(), "MONTH"),
            "weeks" => (format!("(7 * {n})"), "DAY"),
            _ => (n.to_string(), "DAY"),
        };
        let t = self.type_name(ty)?;
        Ok(match self {
            DuckDb => format!("CAST(({d} + {amount} * INTERVAL 1 {single}) AS {t})"),
            Postgres => format!(
                "CAST(({d} + {amount} * INTERVAL '1 {}') AS {t})",
                single.to_lowercase()
            ),
            BigQuery if *ty == Type::Date => format!("DATE_ADD({d}, INTERVAL {amount} {single})"),
            BigQuery => format!("CAST(DATETIME_ADD(CAST({d} AS DATETIME), INTERVAL {amount} {single}) AS TIMESTAMP)"),
            Snowflake => format!("DATEADD({}, {amount}, {d})", single.to_lowercase()),
            Spark => format!("CAST(TIMESTAMPADD({single}, {amount}, {d}) AS {t})"),
        })
    }

    pub(crate) fn date_trunc(self, d: &str, unit: &str, ty: &Type) -> Result<String, Unsupported> {
        use Dialect::*;
        let t = self.type_name(ty)?;
        Ok(match self {
            DuckDb | Postgres | Spark => format!("CAST(DATE_TRUNC('{unit}', {d}) AS {t})"),
            BigQuery => {
                let u = if unit == "week" {
                    "ISOWEEK".to_string()
                } else {
                    unit.to_uppercase()
                };
                if *ty == Type::Date {
                    format!("DATE_TRUNC({d}, {u})")
                } else {
                    format!("TIMESTAMP_TRUNC({d}, {u})")
                }
            }
            Snowflake => format!("DATE_TRUNC('{}', {d})", unit.to_uppercase()),
        })
    }

    /// Number of `unit` boundaries between `a` and `b` (`b - a`).
    pub(crate) fn date_diff(self, a: &str, b: &str, unit: &str) -> Result<String, Unsupported> {
        use Dialect::*;
        let unit = if unit == "weeks" { "week" } else { unit };
        Ok(match self {
            // DuckDB counts whole 7-day spans for 'week': count Monday
            // boundaries instead, like the other dialects.
            DuckDb if unit == "week" => format!(
                "CAST(DATE_DIFF('day', DATE_TRUNC('week', {a}), DATE_TRUNC('week', {b})) / 7 AS BIGINT)"
            ),
            DuckDb => format!("DATE_DIFF('{unit}', {a}, {b})"),
            // Boundaries crossed, as the others count (Spark's TIMESTAMPDIFF
            // counts whole units elapsed).
            Postgres | Spark => {
                let ym = |x: &str, per: &str, part: &str| {
                    format!("(EXTRACT(YEAR FROM {x}) * {per} + EXTRACT({part} FROM {x}))")
                };
                // Days from one date to another.
                let days = |from: &str, to: &str| match self {
                    Spark => format!("DATEDIFF(CAST({to} AS DATE), CAST({from} AS DATE))"),
                    _ => format!("(CAST({to} AS DATE) - CAST({from} AS DATE))"),
                };
                match unit {
                    "year" => format!("CAST((EXTRACT(YEAR FROM {b}) - EXTRACT(YEAR FROM {a})) AS BIGINT)"),
                    "quarter" => format!("CAST(({} - {}) AS BIGINT)", ym(b, "4", "QUARTER"), ym(a, "4", "QUARTER")),
                    "month" => format!("CAST(({} - {}) AS BIGINT)", ym(b, "12", "MONTH"), ym(a, "12", "MONTH")),
                    "week" => format!(
                        "CAST(({} / 7) AS BIGINT)",
                        days(&format!("DATE_TRUNC('week', {a})"), &format!("DATE_TRUNC('week', {b})"))
                    ),
                    _ => format!("CAST({} AS BIGINT)", days(a, b)),
                }
            }
            BigQuery => {
                let u = if unit == "week" {
                    "ISOWEEK".to_string()
                } else {
                    unit.to_uppercase()
                };
                format!("DATE_DIFF(CAST({b} AS DATE), CAST({a} AS DATE), {u})")
            }
            Snowflake => format!("DATEDIFF({unit}, {a}, {b})"),
        })
    }

    /// The query counting duplicate key groups of a join's side: rows with
    /// any NULL key part are excluded (a NULL never matches an equi-join).
    pub fn duplicate_groups_query(self, relation: &str, keys: &[String]) -> String {
        let cols: Vec<String> = keys.iter().map(|k| self.ident(k)).collect();
        let not_null: Vec<String> = cols.iter().map(|c| format!("{c} IS NOT NULL")).collect();
        format!(
            "SELECT COUNT(*) FROM (SELECT 1 FROM {relation} WHERE {} GROUP BY {} HAVING COUNT(*) > 1) AS t",
            not_null.join(" AND "),
            cols.join(", ")
        )
    }
}

/// The unit word of `date_trunc`/`date_diff` (the parser turns a bare word
/// into a string literal).
pub(crate) fn unit_of(e: Option<&TExpr>) -> String {
    match e.map(|e| &e.kind) {
        Some(crate::ir::TExprKind::Lit(crate::ir::Literal::Str(s))) => s.clone(),
        _ => "day".to_string(),
    }
}

/// `'$.key'` for a literal key, else a concatenation.
pub(crate) fn json_key_path(d: Dialect, key: Option<&TExpr>, rendered: &str) -> String {
    match key.map(|e| &e.kind) {
        Some(crate::ir::TExprKind::Lit(crate::ir::Literal::Str(k))) => d.string(&format!("$.{k}")),
        _ => format!("('$.' || {rendered})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_escapes() {
        assert_eq!(Dialect::DuckDb.ident("order"), "\"order\"");
        assert_eq!(Dialect::DuckDb.ident("a\"b"), "\"a\"\"b\"");
        assert_eq!(Dialect::BigQuery.ident("a`b"), "`a\\`b`");
        assert_eq!(Dialect::Postgres.string("it's"), "'it''s'");
        assert_eq!(Dialect::BigQuery.string("it's\\"), "'it\\'s\\\\'");
        assert_eq!(Dialect::Spark.ident("a`b\"c"), "`a``b\"c`");
        assert_eq!(Dialect::Spark.string("it's\\"), "'it\\'s\\\\'");
        for d in Dialect::ALL {
            assert_eq!(Dialect::from_name(d.name()), Some(d));
        }
    }

    #[test]
    fn tables_quote_each_part() {
        let name = TableName {
            catalog: Some("lake".into()),
            schema: Some("raw".into()),
            table: "cust\"omer".into(),
        };
        assert_eq!(Dialect::DuckDb.table(&name), r#""lake"."raw"."cust""omer""#);
        assert_eq!(Dialect::Spark.table(&name), "`lake`.`raw`.`cust\"omer`");
        assert_eq!(
            Dialect::Postgres.table(&TableName::bare("orders")),
            r#""orders""#
        );
    }

    #[test]
    fn types_per_dialect() {
        assert_eq!(
            Dialect::BigQuery.type_name(&Type::Int64).as_deref(),
            Ok("INT64")
        );
        assert_eq!(
            Dialect::Postgres.type_name(&Type::Float64).as_deref(),
            Ok("DOUBLE PRECISION")
        );
        assert!(Dialect::BigQuery.type_name(&Type::Uuid).is_err());
        assert!(Dialect::DuckDb.type_name(&Type::Decimal(60, 2)).is_err());
        assert_eq!(
            Dialect::DuckDb
                .type_name(&Type::Array(Box::new(Type::String)))
                .as_deref(),
            Ok("VARCHAR[]")
        );
    }

    #[test]
    fn duplicate_group_query_quotes_keys() {
        assert_eq!(
            Dialect::DuckDb.duplicate_groups_query("\"customers\"", &["customer_id".into(), "order".into()]),
            "SELECT COUNT(*) FROM (SELECT 1 FROM \"customers\" WHERE \"customer_id\" IS NOT NULL AND \"order\" IS NOT NULL GROUP BY \"customer_id\", \"order\" HAVING COUNT(*) > 1) AS t"
        );
        assert_eq!(
            Dialect::Spark.duplicate_groups_query("`customers`", &["k".into()]),
            "SELECT COUNT(*) FROM (SELECT 1 FROM `customers` WHERE `k` IS NOT NULL GROUP BY `k` HAVING COUNT(*) > 1) AS t"
        );
    }
}
