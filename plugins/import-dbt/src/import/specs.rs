//! A relation's dbt tests as one list (column constraints counted as the
//! tests of the same names), and the uniqueness they prove.

use serde_json::{Map, Value};

use crate::audit::shape::Fact;
use crate::project::{ColumnProps, Constraint, Loc, TestSpec};

/// Every test of an entry with the column it is written under; column
/// constraints count as the tests of the same names (a primary key as
/// both `unique` and `not_null`).
pub(super) fn all_tests(
    file: &str,
    columns: &[ColumnProps],
    tests: &[TestSpec],
    constraints: &[Constraint],
) -> Vec<(Option<String>, TestSpec)> {
    let mut out = Vec::new();
    let constraint_test = |name: &str, loc: Loc| TestSpec {
        name: name.into(),
        args: Map::new(),
        warn: false,
        where_: None,
        loc,
    };
    for c in columns {
        for t in &c.tests {
            out.push((Some(c.name.clone()), t.clone()));
        }
        let has = |n: &str| c.tests.iter().any(|t| t.name == n);
        for k in &c.constraints {
            let loc = Loc::new(
                c.tests
                    .first()
                    .map(|t| t.loc.file.clone())
                    .unwrap_or_else(|| file.to_string()),
                c.line,
            );
            let wanted: &[&str] = match k.as_str() {
                "primary_key" => &["unique", "not_null"],
                "unique" => &["unique"],
                "not_null" => &["not_null"],
                _ => &[],
            };
            for w in wanted {
                if !has(w) {
                    out.push((Some(c.name.clone()), constraint_test(w, loc.clone())));
                }
            }
        }
    }
    for t in tests {
        out.push((None, t.clone()));
    }
    for k in constraints {
        if matches!(k.kind.as_str(), "primary_key" | "unique") && !k.columns.is_empty() {
            let mut args = Map::new();
            args.insert(
                "combination_of_columns".into(),
                Value::Array(k.columns.iter().map(|c| Value::String(c.clone())).collect()),
            );
            out.push((
                None,
                TestSpec {
                    name: "dbt_utils.unique_combination_of_columns".into(),
                    args,
                    warn: false,
                    where_: None,
                    loc: Loc::new(file, 0),
                },
            ));
        }
    }
    out
}

/// What a relation's tests prove it unique on.
pub(crate) fn test_facts(
    file: &str,
    columns: &[ColumnProps],
    tests: &[TestSpec],
    constraints: &[Constraint],
) -> Vec<Fact> {
    let mut out = Vec::new();
    for (col, t) in all_tests(file, columns, tests, constraints) {
        if t.warn || t.where_.is_some() {
            continue;
        }
        let at = if t.loc.line > 0 {
            format!("{}:{}", t.loc.file, t.loc.line)
        } else {
            t.loc.file.clone()
        };
        match (t.name.as_str(), col) {
            ("unique", Some(c)) => out.push(Fact::new(vec![c], format!("dbt test unique, {at}"))),
            ("dbt_utils.unique_combination_of_columns", _) => {
                let cols: Vec<String> = t
                    .args
                    .get("combination_of_columns")
                    .and_then(Value::as_array)
                    .map(|v| {
                        v.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                    .unwrap_or_default();
                if !cols.is_empty() {
                    out.push(Fact::new(
                        cols,
                        format!("dbt test unique_combination_of_columns, {at}"),
                    ));
                }
            }
            _ => {}
        }
    }
    out
}
