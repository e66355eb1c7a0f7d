//! What differs between warehouses: quoting, literals, type names and the
//! functions whose spelling or semantics differ. Each difference lives here
//! once; the lowering in `sql/mod.rs` is shared by every dialect.

use crate::ir::TExpr;
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

fn unsupported<T>(d: Dialect, what: &str) -> Result<T, Unsupported> {
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
    pub fn cast_from(self, sql: &str, from: &Type, to: &Type) -> Result<String, Unsupported> {
        if self == Dialect::Postgres
            && *from == Type::Bool
            && matches!(
                to,
                Type::Int64 | Type::Decimal(..) | Type::Money(_) | Type::Float64
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

    /// `a / b`, always floating point (the language never divides integers).
    pub fn divide(self, a: &str, b: &str) -> String {
        let f = match self {
            Dialect::Postgres => "DOUBLE PRECISION",
            Dialect::BigQuery => "FLOAT64",
            _ => "DOUBLE",
        };
        format!("(CAST({a} AS {f}) / {b})")
    }

    /// A scalar, aggregate or window function call (the `OVER` clause is
    /// added by the caller). `args` are rendered SQL; `targs` their typed
    /// expressions; `ty` the result type.
    pub fn call(
        self,
        name: &str,
        distinct: bool,
        args: &[String],
        targs: &[TExpr],
        unit: Option<&str>,
        ty: &Type,
    ) -> Result<String, Unsupported> {
        use Dialect::*;
        let a = |i: usize| args.get(i).cloned().unwrap_or_default();
        let list = args.join(", ");
        let str_type = self.type_name(&Type::String)?;
        Ok(match name {
            "count" if distinct => format!("COUNT(DISTINCT {})", a(0)),
            "count" if args.is_empty() || a(0) == "*" => "COUNT(*)".into(),
            "count" => format!("COUNT({})", a(0)),
            "sum" | "avg" | "min" | "max" => format!("{}({})", name.to_uppercase(), a(0)),
            "array_agg" if self == Spark => format!("COLLECT_LIST({})", a(0)),
            "array_agg" => format!("ARRAY_AGG({})", a(0)),
            "row_number" | "rank" | "dense_rank" => format!("{}()", name.to_uppercase()),
            "lag" | "lead" | "first_value" | "last_value" => {
                format!("{}({list})", name.to_uppercase())
            }
            "coalesce" => format!("COALESCE({list})"),
            "if" => format!("CASE WHEN {} THEN {} ELSE {} END", a(0), a(1), a(2)),
            "case" => {
                let mut s = String::from("CASE");
                for pair in args.chunks(2) {
                    match pair {
                        [c, v] => s.push_str(&format!(" WHEN {c} THEN {v}")),
                        [e] => s.push_str(&format!(" ELSE {e}")),
                        _ => {}
                    }
                }
                s.push_str(" END");
                s
            }
            "upper" | "lower" | "trim" | "ltrim" | "rtrim" | "length" | "replace" | "lpad"
            | "rpad" | "left" | "right" => format!("{}({list})", name.to_uppercase()),
            "concat" => {
                let parts: Vec<String> = args
                    .iter()
                    .zip(targs)
                    .map(|(s, t)| {
                        if t.ty == Type::String {
                            s.clone()
                        } else {
                            format!("CAST({s} AS {str_type})")
                        }
                    })
                    .collect();
                format!("({})", parts.join(" || "))
            }
            "substring" => format!("SUBSTR({list})"),
            "regexp_replace" => match self {
                DuckDb | Postgres => format!("REGEXP_REPLACE({}, {}, {}, 'g')", a(0), a(1), a(2)),
                _ => format!("REGEXP_REPLACE({list})"),
            },
            "startswith" => match self {
                Snowflake | Spark => format!("STARTSWITH({list})"),
                _ => format!("STARTS_WITH({list})"),
            },
            "split_part" => match self {
                BigQuery => format!("SPLIT({}, {})[SAFE_ORDINAL({})]", a(0), a(1), a(2)),
                _ => format!("SPLIT_PART({list})"),
            },
            "like" => format!("({} LIKE {})", a(0), a(1)),
            "rlike" => match self {
                DuckDb => format!("REGEXP_MATCHES({}, {})", a(0), a(1)),
                Postgres => format!("({} ~ {})", a(0), a(1)),
                BigQuery => format!("REGEXP_CONTAINS({}, {})", a(0), a(1)),
                Snowflake => format!("(REGEXP_INSTR({}, {}) > 0)", a(0), a(1)),
                Spark => format!("({} RLIKE {})", a(0), a(1)),
            },
            "date_add" | "date_sub" => {
                let unit = unit.unwrap_or("days");
                let n = if name == "date_sub" {
                    format!("(-{})", a(1))
                } else {
                    a(1)
                };
                self.date_add(&a(0), &n, unit, ty)?
            }
            "date_trunc" => {
                let unit = unit_of(targs.get(1));
                self.date_trunc(&a(0), &unit, ty)?
            }
            "date_diff" => {
                let unit = unit_of(targs.get(2));
                self.date_diff(&a(0), &a(1), &unit)?
            }
            "array_construct" | "list" => self.array_literal(&list),
            "array_length" => match self {
                DuckDb => format!("LEN({})", a(0)),
                Postgres => format!("CARDINALITY({})", a(0)),
                BigQuery => format!("ARRAY_LENGTH({})", a(0)),
                Snowflake | Spark => format!("ARRAY_SIZE({})", a(0)),
            },
            "array_contains" => match self {
                DuckDb => format!("LIST_CONTAINS({}, {})", a(0), a(1)),
                Postgres => format!("({} = ANY({}))", a(1), a(0)),
                BigQuery => format!("({} IN UNNEST({}))", a(1), a(0)),
                Snowflake => format!("ARRAY_CONTAINS(CAST({} AS VARIANT), {})", a(1), a(0)),
                Spark => format!("ARRAY_CONTAINS({}, {})", a(0), a(1)),
            },
            "array_get" => match self {
                DuckDb | Postgres => format!("({})[({}) + 1]", a(0), a(1)),
                BigQuery => format!("{}[SAFE_OFFSET({})]", a(0), a(1)),
                Snowflake => format!("{}[{}]", a(0), a(1)),
                // 1-based; NULL past the end, as the others.
                Spark => format!("TRY_ELEMENT_AT({}, ({}) + 1)", a(0), a(1)),
            },
            "array_concat" => match self {
                DuckDb => format!("LIST_CONCAT({list})"),
                Postgres => format!("ARRAY_CAT({list})"),
                BigQuery => format!("ARRAY_CONCAT({list})"),
                Snowflake => format!("ARRAY_CAT({list})"),
                Spark => format!("CONCAT({list})"),
            },
            "array_append" => match self {
                DuckDb => format!("LIST_APPEND({list})"),
                Postgres => format!("ARRAY_APPEND({list})"),
                BigQuery => format!("ARRAY_CONCAT({}, [{}])", a(0), a(1)),
                Snowflake | Spark => format!("ARRAY_APPEND({list})"),
            },
            "array_prepend" => match self {
                DuckDb => format!("LIST_PREPEND({list})"),
                Postgres => format!("ARRAY_PREPEND({list})"),
                BigQuery => format!("ARRAY_CONCAT([{}], {})", a(0), a(1)),
                Snowflake | Spark => format!("ARRAY_PREPEND({}, {})", a(1), a(0)),
            },
            "array_remove" => match self {
                DuckDb => format!("LIST_FILTER({}, __x -> __x <> {})", a(0), a(1)),
                Postgres => format!("ARRAY_REMOVE({list})"),
                BigQuery => format!(
                    "ARRAY(SELECT __x FROM UNNEST({}) AS __x WHERE __x != {})",
                    a(0),
                    a(1)
                ),
                Snowflake => format!("ARRAY_REMOVE({}, CAST({} AS VARIANT))", a(0), a(1)),
                Spark => format!("ARRAY_REMOVE({list})"),
            },
            "array_index_of" => match self {
                DuckDb => format!("(LIST_POSITION({}, {}) - 1)", a(0), a(1)),
                Postgres => format!("(ARRAY_POSITION({}, {}) - 1)", a(0), a(1)),
                Snowflake => format!("ARRAY_POSITION(CAST({} AS VARIANT), {})", a(1), a(0)),
                // 1-based with 0 for "not there"; the others give NULL.
                Spark => format!("(NULLIF(ARRAY_POSITION({}, {}), 0) - 1)", a(0), a(1)),
                BigQuery => return unsupported(self, "array_index_of()"),
            },
            "array_sort" => match self {
                DuckDb => format!("LIST_SORT({})", a(0)),
                BigQuery => format!(
                    "ARRAY(SELECT __x FROM UNNEST({}) AS __x ORDER BY __x)",
                    a(0)
                ),
                Snowflake | Spark => format!("ARRAY_SORT({})", a(0)),
                Postgres => return unsupported(self, "array_sort()"),
            },
            "json_get" | "json_value" => {
                let path = json_key_path(self, targs.get(1), &a(1));
                let text = name == "json_value";
                match self {
                    DuckDb if text => format!("JSON_EXTRACT_STRING({}, {path})", a(0)),
                    DuckDb => format!("JSON_EXTRACT({}, {path})", a(0)),
                    Postgres if text => format!("({} ->> {})", a(0), a(1)),
                    Postgres => format!("({} -> {})", a(0), a(1)),
                    BigQuery if text => format!("JSON_VALUE({}, {path})", a(0)),
                    BigQuery => format!("JSON_QUERY({}, {path})", a(0)),
                    Snowflake if text => format!("CAST(GET({}, {}) AS VARCHAR)", a(0), a(1)),
                    Snowflake => format!("GET({}, {})", a(0), a(1)),
                    Spark => format!("GET_JSON_OBJECT({}, {path})", a(0)),
                }
            }
            "json_path" => match self {
                DuckDb => format!("JSON_EXTRACT({}, {})", a(0), a(1)),
                Postgres => format!(
                    "JSONB_PATH_QUERY_FIRST(CAST({} AS JSONB), CAST({} AS JSONPATH))",
                    a(0),
                    a(1)
                ),
                BigQuery => format!("JSON_QUERY({}, {})", a(0), a(1)),
                Spark => format!("GET_JSON_OBJECT({}, {})", a(0), a(1)),
                Snowflake => return unsupported(self, "json_path() with a JSONPath"),
            },
            "json_is_null" => match self {
                DuckDb => format!("(JSON_TYPE({}) = 'NULL')", a(0)),
                Postgres => format!("(JSON_TYPEOF({}) = 'null')", a(0)),
                BigQuery => format!("(JSON_TYPE({}) = 'null')", a(0)),
                Snowflake => format!("IS_NULL_VALUE({})", a(0)),
                Spark => format!("(TRIM({}) = 'null')", a(0)),
            },
            "json_build" => match self {
                DuckDb => format!("JSON_OBJECT({list})"),
                Postgres => format!("JSON_BUILD_OBJECT({list})"),
                BigQuery => format!("JSON_OBJECT({list})"),
                Snowflake => format!("OBJECT_CONSTRUCT({list})"),
                Spark => format!("TO_JSON(NAMED_STRUCT({list}))"),
            },
            other => return unsupported(self, &format!("{other}()")),
        })
    }

    fn date_add(self, d: &str, n: &str, unit: &str, ty: &Type) -> Result<String, Unsupported> {
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

    fn date_trunc(self, d: &str, unit: &str, ty: &Type) -> Result<String, Unsupported> {
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
    fn date_diff(self, a: &str, b: &str, unit: &str) -> Result<String, Unsupported> {
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
fn unit_of(e: Option<&TExpr>) -> String {
    match e.map(|e| &e.kind) {
        Some(crate::ir::TExprKind::Lit(crate::ir::Literal::Str(s))) => s.clone(),
        _ => "day".to_string(),
    }
}

/// `'$.key'` for a literal key, else a concatenation.
fn json_key_path(d: Dialect, key: Option<&TExpr>, rendered: &str) -> String {
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
