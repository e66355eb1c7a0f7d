//! dbt's data tests as strata promises: a contract pin where strata has
//! one (`not_null` on a column strata proves non-null is `nonnull`,
//! `unique` is `unique`, both `primary_key`, `accepted_values` on a string
//! column is `enum`), a test `expect c in m.f` for `relationships` to a
//! model, and otherwise the test as dbt runs it — a query of the failing
//! rows — made a model whose test expects no row.

use serde_json::Value;

use crate::jinja::Dep;
use crate::project::{Loc, TestSpec};

/// What a test becomes.
#[derive(Clone, Debug, PartialEq)]
pub enum Carried {
    /// A contract flag on a column of the model.
    Pin(Pin),
    /// `test <model> { expect column in model.field }`.
    In { model: String, field: String },
    /// A model of the failing rows (translated from this SQL), and whether
    /// it is only a warning (its test then says `severity: warn`).
    FailingRows { sql: String, warn: bool },
    /// Not carried: why.
    Not(String),
}

#[derive(Clone, Debug, PartialEq)]
pub enum Pin {
    Nonnull,
    Unique,
    Enum(Vec<String>),
}

/// A test of a relation, decided.
#[derive(Clone, Debug)]
pub struct Decided {
    pub test: String,
    pub column: Option<String>,
    pub loc: Loc,
    pub carried: Carried,
    /// A short name for the failing-rows model (`not_null_amount`).
    pub slug: String,
}

/// What is known about the tested relation.
pub struct Tested<'a> {
    /// How the failing-rows SQL reads it (`"$ref$orders"`).
    pub marker: String,
    /// A converted model (contract pins possible).
    pub is_model: bool,
    /// Column `c` is non-null (as strata checked it), of type string.
    pub nonnull: &'a dyn Fn(&str) -> bool,
    pub is_string: &'a dyn Fn(&str) -> bool,
    /// Whether a relation (a `ref` target) is a converted model, and its
    /// strata name.
    pub model_of: &'a dyn Fn(&Dep) -> Option<String>,
    /// The SQL marker of a `to:` target.
    pub marker_of: &'a dyn Fn(&Dep) -> String,
}

fn ident(c: &str) -> String {
    format!("\"{}\"", c.replace('"', "\"\""))
}

fn literal(v: &Value, quote: bool) -> Option<String> {
    Some(match v {
        Value::String(s) if quote => format!("'{}'", s.replace('\'', "''")),
        Value::String(s) => s.clone(),
        Value::Number(n) if quote => format!("'{n}'"),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) if quote => format!("'{b}'"),
        Value::Bool(b) => b.to_string(),
        _ => return None,
    })
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `ref('x')`, `ref("x")`, `source('s', 't')` of a `to:` argument.
pub fn parse_target(to: &str) -> Option<Dep> {
    let to = to.trim();
    let args = |inner: &str| -> Vec<String> {
        inner
            .split(',')
            .map(|a| a.trim().trim_matches(|c| c == '\'' || c == '"').to_string())
            .filter(|a| !a.is_empty())
            .collect()
    };
    if let Some(inner) = to.strip_prefix("ref(").and_then(|r| r.strip_suffix(')')) {
        let a = args(inner);
        return a.last().map(|n| Dep::Ref(n.clone()));
    }
    if let Some(inner) = to.strip_prefix("source(").and_then(|r| r.strip_suffix(')')) {
        let a = args(inner);
        if let [s, t] = a.as_slice() {
            return Some(Dep::Source(s.clone(), t.clone()));
        }
    }
    None
}

/// Decide one test (`column`: the column it is written under).
pub fn decide(spec: &TestSpec, column: Option<&str>, t: &Tested) -> Decided {
    let short = spec.name.strip_prefix("dbt.").unwrap_or(&spec.name);
    let arg = |k: &str| spec.args.get(k);
    let col = column
        .map(str::to_string)
        .or_else(|| arg("column_name").and_then(text));
    let slug_col = col.clone().unwrap_or_default();
    let from = match &spec.where_ {
        Some(w) => format!("(select * from {} where {w}) as dbt_subquery", t.marker),
        None => t.marker.clone(),
    };
    let conditional = spec.where_.is_some();
    let rows = |sql: String| Carried::FailingRows {
        sql,
        warn: spec.warn,
    };
    let need_col = |c: &Option<String>| -> Result<String, Carried> {
        c.clone()
            .ok_or_else(|| Carried::Not(format!("{short} without a column")))
    };
    let (carried, slug) = match short {
        "not_null" => match need_col(&col) {
            Err(n) => (n, "not_null".into()),
            Ok(c) => {
                let carried = if t.is_model && !spec.warn && !conditional && (t.nonnull)(&c) {
                    Carried::Pin(Pin::Nonnull)
                } else {
                    rows(format!("select * from {from} where {} is null", ident(&c)))
                };
                (carried, format!("not_null_{c}"))
            }
        },
        "unique" => match need_col(&col) {
            Err(n) => (n, "unique".into()),
            Ok(c) => {
                let carried = if t.is_model && !spec.warn && !conditional {
                    Carried::Pin(Pin::Unique)
                } else {
                    let q = ident(&c);
                    rows(format!(
                        "select {q}, count(*) as occurrences from {from} where {q} is not null group by {q} having count(*) > 1"
                    ))
                };
                (carried, format!("unique_{c}"))
            }
        },
        "accepted_values" => match need_col(&col) {
            Err(n) => (n, "accepted_values".into()),
            Ok(c) => {
                let quote = arg("quote").and_then(Value::as_bool).unwrap_or(true);
                let values: Option<Vec<&Value>> =
                    arg("values").and_then(Value::as_array).map(|v| v.iter().collect());
                let carried = match values {
                    None => Carried::Not("accepted_values without `values:`".into()),
                    Some(values) => {
                        let texts: Option<Vec<String>> = values.iter().map(|v| text(v)).collect();
                        match texts {
                            Some(texts)
                                if t.is_model
                                    && quote
                                    && !spec.warn
                                    && !conditional
                                    && (t.is_string)(&c) =>
                            {
                                Carried::Pin(Pin::Enum(texts))
                            }
                            _ => {
                                let lits: Option<Vec<String>> =
                                    values.iter().map(|v| literal(v, quote)).collect();
                                match lits {
                                    Some(l) if !l.is_empty() => rows(format!(
                                        "select * from {from} where {} not in ({})",
                                        ident(&c),
                                        l.join(", ")
                                    )),
                                    _ => Carried::Not("accepted_values with values that are not plain literals".into()),
                                }
                            }
                        }
                    }
                };
                (carried, format!("accepted_values_{c}"))
            }
        },
        "relationships" => match need_col(&col) {
            Err(n) => (n, "relationships".into()),
            Ok(c) => {
                let to = arg("to").and_then(Value::as_str).and_then(parse_target);
                let field = arg("field").and_then(text);
                let carried = match (to, field) {
                    (Some(to), Some(field)) => match (t.model_of)(&to) {
                        Some(m) if t.is_model && !spec.warn && !conditional => {
                            Carried::In { model: m, field }
                        }
                        _ => rows(format!(
                            "select * from {from} as child where child.{c} is not null and not exists (select 1 from {} as parent where parent.{f} = child.{c})",
                            (t.marker_of)(&to),
                            c = ident(&c),
                            f = ident(&field)
                        )),
                    },
                    _ => Carried::Not(
                        "relationships needs `to: ref('model')` (or a source) and `field:`".into(),
                    ),
                };
                (carried, format!("relationships_{c}"))
            }
        },
        "dbt_utils.unique_combination_of_columns" => {
            let cols: Option<Vec<String>> = arg("combination_of_columns")
                .and_then(Value::as_array)
                .map(|v| v.iter().filter_map(text).collect());
            match cols {
                Some(cols) if !cols.is_empty() => {
                    let q: Vec<String> = cols.iter().map(|c| ident(c)).collect();
                    (
                        rows(format!(
                            "select {k}, count(*) as occurrences from {from} group by {k} having count(*) > 1",
                            k = q.join(", ")
                        )),
                        format!("unique_combination_{}", cols.join("_")),
                    )
                }
                _ => (
                    Carried::Not("unique_combination_of_columns without `combination_of_columns:`".into()),
                    "unique_combination".into(),
                ),
            }
        }
        "dbt_utils.expression_is_true" => {
            let expr = arg("expression").and_then(text);
            match expr {
                Some(e) => {
                    let cond = match &col {
                        Some(c) => format!("{} {e}", ident(c)),
                        None => e,
                    };
                    (
                        rows(format!("select * from {from} where not ({cond})")),
                        format!("expression_is_true_{slug_col}"),
                    )
                }
                None => (
                    Carried::Not("expression_is_true without `expression:`".into()),
                    "expression_is_true".into(),
                ),
            }
        }
        "dbt_utils.accepted_range" => match need_col(&col) {
            Err(n) => (n, "accepted_range".into()),
            Ok(c) => {
                let inclusive = arg("inclusive").and_then(Value::as_bool).unwrap_or(true);
                let (ge, le) = if inclusive { (">=", "<=") } else { (">", "<") };
                let mut conds = Vec::new();
                if let Some(min) = arg("min_value").and_then(|v| literal(v, false)) {
                    conds.push(format!("{} {ge} {min}", ident(&c)));
                }
                if let Some(max) = arg("max_value").and_then(|v| literal(v, false)) {
                    conds.push(format!("{} {le} {max}", ident(&c)));
                }
                let carried = if conds.is_empty() {
                    Carried::Not("accepted_range without min_value or max_value".into())
                } else {
                    rows(format!("select * from {from} where not ({})", conds.join(" and ")))
                };
                (carried, format!("accepted_range_{c}"))
            }
        },
        other => (
            Carried::Not(format!(
                "`{other}` is a custom or package test import-dbt does not convert (it converts not_null, unique, accepted_values, relationships and dbt_utils' unique_combination_of_columns, expression_is_true and accepted_range)"
            )),
            other.replace('.', "_"),
        ),
    };
    Decided {
        test: spec.name.clone(),
        column: col,
        loc: spec.loc.clone(),
        carried,
        slug: slug
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn spec(name: &str, args: Value) -> TestSpec {
        TestSpec {
            name: name.into(),
            args: match args {
                Value::Object(m) => m,
                _ => Map::new(),
            },
            warn: false,
            where_: None,
            loc: Loc::new("m.yml", 3),
        }
    }

    fn tested<'a>(is_model: bool, nonnull: &'a dyn Fn(&str) -> bool) -> Tested<'a> {
        Tested {
            marker: "\"$ref$orders\"".into(),
            is_model,
            nonnull,
            is_string: &|c| c == "status",
            model_of: &|d| match d {
                Dep::Ref(n) => Some(n.clone()),
                Dep::Source(..) => None,
            },
            marker_of: &|d| match d {
                Dep::Ref(n) => format!("\"$ref${n}\""),
                Dep::Source(s, t) => format!("\"$source${s}${t}\""),
            },
        }
    }

    #[test]
    fn pins_where_strata_has_them_failing_rows_elsewhere() {
        let yes = |_: &str| true;
        let no = |_: &str| false;
        let d = decide(
            &spec("not_null", Value::Null),
            Some("id"),
            &tested(true, &yes),
        );
        assert_eq!(d.carried, Carried::Pin(Pin::Nonnull));
        let d = decide(
            &spec("not_null", Value::Null),
            Some("id"),
            &tested(true, &no),
        );
        assert!(
            matches!(d.carried, Carried::FailingRows { ref sql, warn: false } if sql.contains("\"id\" is null"))
        );
        let d = decide(
            &spec("unique", Value::Null),
            Some("id"),
            &tested(false, &no),
        );
        assert!(
            matches!(d.carried, Carried::FailingRows { ref sql, .. } if sql.contains("having count(*) > 1"))
        );
        let d = decide(
            &spec("accepted_values", serde_json::json!({"values": ["a", "b"]})),
            Some("status"),
            &tested(true, &no),
        );
        assert_eq!(
            d.carried,
            Carried::Pin(Pin::Enum(vec!["a".into(), "b".into()]))
        );
        let d = decide(
            &spec(
                "relationships",
                serde_json::json!({"to": "ref('customers')", "field": "id"}),
            ),
            Some("customer_id"),
            &tested(true, &no),
        );
        assert_eq!(
            d.carried,
            Carried::In {
                model: "customers".into(),
                field: "id".into()
            }
        );
        let d = decide(
            &spec(
                "relationships",
                serde_json::json!({"to": "source('shop', 'c')", "field": "id"}),
            ),
            Some("customer_id"),
            &tested(true, &no),
        );
        assert!(
            matches!(d.carried, Carried::FailingRows { ref sql, .. } if sql.contains("not exists"))
        );
        let d = decide(
            &spec("dbt_expectations.foo", Value::Null),
            Some("x"),
            &tested(true, &no),
        );
        assert!(matches!(d.carried, Carried::Not(_)));
    }

    #[test]
    fn targets() {
        assert_eq!(parse_target("ref('x')"), Some(Dep::Ref("x".into())));
        assert_eq!(
            parse_target("ref(\"pkg\", \"x\")"),
            Some(Dep::Ref("x".into()))
        );
        assert_eq!(
            parse_target("source('s', 't')"),
            Some(Dep::Source("s".into(), "t".into()))
        );
        assert_eq!(parse_target("x"), None);
    }
}
