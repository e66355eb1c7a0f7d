//! dbt unit tests (`unit_tests:`, dbt 1.8+) carried as strata fixture
//! tests ([docs/fixtures.md]): each `given` input's rows and the `expect`
//! rows written as literal rows, typed by the columns strata knows for the
//! input and the model. The `dict` and `csv` formats (inline, or a CSV
//! file under `tests/fixtures/`) convert; a `sql` format, `overrides`, a
//! model that needs review, or rows strata's checker refuses are reported
//! per test with the reason, never dropped.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::Value;
use strata_lang::ir;
use strata_lang::types::Type;

use super::State;
use crate::check::{self, Decl};
use crate::jinja::Dep;
use crate::promises::parse_target;
use crate::properties::UnitTest;
use crate::report::{Status, TestEntry};

/// A table of rows: column names, and per row its values (`None`: the row
/// does not give the column, which dbt fills with NULL).
type Table = (Vec<String>, Vec<Vec<Option<Value>>>);

impl State<'_> {
    /// Every `unit_tests:` entry: a fixture test in its model's module, or
    /// a report line saying why not.
    pub(super) fn carry_unit_tests(&mut self) {
        let project = self.project;
        for u in &project.props.unit_tests {
            let (carried_as, detail) = match self.unit_test(u) {
                Ok(detail) => ("fixture".to_string(), detail),
                Err(why) => ("not_carried".to_string(), why),
            };
            self.report.tests.push(TestEntry {
                relation: u.model.clone(),
                column: None,
                test: format!("unit test {}", u.name),
                carried_as,
                detail,
                file: u.loc.file.clone(),
                line: u.loc.line,
            });
        }
    }

    /// Convert one unit test and add it to its model's module; what it
    /// became, or why it is not carried.
    fn unit_test(&mut self, u: &UnitTest) -> Result<String, String> {
        let raw = &u.raw;
        if raw.pointer("/config/enabled") == Some(&Value::Bool(false)) {
            return Err("disabled in dbt (`enabled: false`)".into());
        }
        if let Some(o) = raw.get("overrides").and_then(Value::as_object) {
            let kinds: Vec<&str> = o.keys().map(String::as_str).collect();
            return Err(format!(
                "its `overrides` ({}) are not carried: strata renders the model once, with the project's macros and vars",
                kinds.join(", ")
            ));
        }
        let Some(&i) = self.by_name.get(u.model.as_str()) else {
            return Err(format!("`{}` is not a model of this project", u.model));
        };
        if self.outcomes[i].status != Some(Status::Converted) {
            return Err(format!(
                "`{}` needs review: its unit tests are carried once it converts",
                u.model
            ));
        }
        let mut block = String::new();
        if let Some(d) = raw.get("description").and_then(Value::as_str) {
            for line in d.trim().lines() {
                let _ = writeln!(block, "# {}", line.trim_end());
            }
        }
        let _ = writeln!(
            block,
            "# dbt unit test {} ({}:{})",
            u.name, u.loc.file, u.loc.line
        );
        let _ = writeln!(
            block,
            "test {} {} {{",
            crate::names::written(&u.model),
            strata_lang::fmt::quote_string(&u.name)
        );
        let given = raw
            .get("given")
            .and_then(Value::as_array)
            .ok_or("it has no `given:` list")?;
        for (k, g) in given.iter().enumerate() {
            let input = g
                .get("input")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("`given` entry {} has no `input:`", k + 1))?;
            let name = self.input_name(input)?;
            let types = self.input_types(&name);
            let table = self.rows_of(g, &format!("the rows of {input}"))?;
            block.push_str(&rows_block(
                &format!("given {}", crate::names::written(&name)),
                &table,
                &types,
            )?);
        }
        let expect = raw.get("expect").ok_or("it has no `expect:`")?;
        let out_types: BTreeMap<String, Type> = self.outcomes[i]
            .columns
            .iter()
            .map(|c| (c.name.to_string(), c.ty.clone()))
            .collect();
        let table = self.rows_of(expect, "the expected rows")?;
        block.push_str(&rows_block("expect rows", &table, &out_types)?);
        block.push_str("}\n");
        // strata's checker decides whether the rows fit (types, columns,
        // NULL in a nonnull column, an input the model does not read).
        let mut extra = self.outcomes[i].contract.clone().unwrap_or_default();
        let mut plans = self.outcomes[i].plans.clone();
        if !extra.is_empty() {
            if let Some(p) = plans.iter_mut().find(|p| p.name == u.model) {
                p.contract = Some(super::contract_name(&u.model));
            }
        }
        extra.push_str(&block);
        if let Err(errors) = check::check_plans(&plans, &extra, &self.decls) {
            return Err(format!(
                "strata's checker refuses the fixture test written from it: {}",
                errors.join("; ")
            ));
        }
        self.outcomes[i].tests.push(block);
        Ok(format!(
            "fixture test `{} {}` (`strata test --only fixtures`)",
            u.model,
            strata_lang::fmt::quote_string(&u.name)
        ))
    }

    /// The strata name of a `given` input: `ref('m')`, `source('s', 't')`.
    fn input_name(&self, input: &str) -> Result<String, String> {
        match parse_target(input) {
            Some(Dep::Ref(n)) if self.decls.contains_key(&n) => Ok(n),
            Some(Dep::Ref(n)) => Err(format!(
                "its input ref('{n}') is not something strata can read in this import"
            )),
            Some(Dep::Source(s, t)) => self
                .source_names
                .get(&(s.clone(), t.clone()))
                .filter(|n| self.decls.contains_key(n.as_str()))
                .cloned()
                .ok_or_else(|| format!("its input source('{s}', '{t}') is not declared or not readable")),
            None => Err(format!(
                "its input `{input}` is not a ref() or source() (dbt's `this` and seeds without ref are not carried)"
            )),
        }
    }

    /// The column types strata declares for an input.
    fn input_types(&self, name: &str) -> BTreeMap<String, Type> {
        match self.decls.get(name) {
            Some(Decl::Model(cols)) => cols
                .iter()
                .map(|c: &ir::Column| (c.name.to_string(), c.ty.clone()))
                .collect(),
            _ => self
                .known
                .get(name)
                .map(|r| {
                    r.columns
                        .iter()
                        .filter_map(|c| c.ty.clone().map(|t| (c.name.clone(), t)))
                        .collect()
                })
                .unwrap_or_default(),
        }
    }

    /// The rows of a `given` entry or of `expect`, by its `format`.
    fn rows_of(&self, entry: &Value, what: &str) -> Result<Table, String> {
        let format = entry
            .get("format")
            .and_then(Value::as_str)
            .unwrap_or("dict");
        match format {
            "dict" => {
                if entry.get("fixture").is_some() {
                    return Err(format!("{what}: a `fixture:` file of format dict is not carried"));
                }
                dict_rows(entry.get("rows").unwrap_or(&Value::Null), what)
            }
            "csv" => {
                let text = match (entry.get("rows"), entry.get("fixture").and_then(Value::as_str)) {
                    (Some(Value::String(s)), _) => s.clone(),
                    (None, Some(f)) => self.fixture_file(f, what)?,
                    _ => {
                        return Err(format!(
                            "{what}: format csv needs `rows:` as CSV text or a `fixture:` file"
                        ))
                    }
                };
                csv_rows(&text, what)
            }
            "sql" => Err(format!(
                "{what} are given as SQL (format sql): strata fixture tests take literal rows; write them as rows"
            )),
            other => Err(format!("{what}: unknown format `{other}`")),
        }
    }

    /// The text of `<test-path>/fixtures/<name>.csv`.
    fn fixture_file(&self, name: &str, what: &str) -> Result<String, String> {
        for dir in &self.project.test_paths {
            let p = self
                .project
                .root
                .join(dir)
                .join("fixtures")
                .join(format!("{name}.csv"));
            if let Ok(t) = std::fs::read_to_string(&p) {
                return Ok(t);
            }
        }
        Err(format!(
            "{what}: fixture file `{name}.csv` not found under the test paths' fixtures/"
        ))
    }
}

/// `rows:` of format dict: a list of mappings.
fn dict_rows(rows: &Value, what: &str) -> Result<Table, String> {
    let list = match rows {
        Value::Array(l) => l.as_slice(),
        Value::Null => &[],
        _ => {
            return Err(format!(
                "{what}: `rows:` of format dict must be a list of mappings"
            ))
        }
    };
    let mut columns: Vec<String> = Vec::new();
    for r in list {
        let Some(m) = r.as_object() else {
            return Err(format!("{what}: a row of format dict must be a mapping"));
        };
        for k in m.keys() {
            if !columns.contains(k) {
                columns.push(k.clone());
            }
        }
    }
    let out = list
        .iter()
        .map(|r| columns.iter().map(|c| r.get(c).cloned()).collect())
        .collect();
    Ok((columns, out))
}

/// Rows of format csv: a header line, then a line per row; every value is
/// text, an empty one NULL (as dbt reads it).
fn csv_rows(text: &str, what: &str) -> Result<Table, String> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text.trim().as_bytes());
    let columns: Vec<String> = reader
        .headers()
        .map_err(|e| format!("{what}: invalid CSV: {e}"))?
        .iter()
        .map(|h| h.to_string())
        .collect();
    let mut rows = Vec::new();
    for rec in reader.records() {
        let rec = rec.map_err(|e| format!("{what}: invalid CSV: {e}"))?;
        rows.push(
            rec.iter()
                .map(|v| {
                    Some(if v.is_empty() {
                        Value::Null
                    } else {
                        Value::String(v.to_string())
                    })
                })
                .collect(),
        );
    }
    Ok((columns, rows))
}

/// `HEAD(c, ..) {\n (v, ..)\n }` of a given or expected table; `types`: the
/// columns' types where known (a column strata does not know is left for
/// the checker to report).
fn rows_block(
    head: &str,
    (columns, rows): &Table,
    types: &BTreeMap<String, Type>,
) -> Result<String, String> {
    if columns.is_empty() {
        return Ok(format!("  {head} {{}}\n"));
    }
    let written: Vec<_> = columns.iter().map(|c| crate::names::written(c)).collect();
    let mut s = format!("  {head}({}) {{\n", written.join(", "));
    for row in rows {
        let cells: Vec<String> = columns
            .iter()
            .zip(row)
            .map(|(c, v)| literal(v.as_ref().unwrap_or(&Value::Null), types.get(c), c))
            .collect::<Result<_, _>>()?;
        let _ = writeln!(s, "    ({})", cells.join(", "));
    }
    s.push_str("  }\n");
    Ok(s)
}

/// A YAML or CSV value as a strata literal for a column of type `ty`.
fn literal(v: &Value, ty: Option<&Type>, column: &str) -> Result<String, String> {
    let quote = strata_lang::fmt::quote_string;
    let numeric = matches!(
        ty,
        Some(Type::Int64 | Type::Float64 | Type::Decimal(..) | Type::Money(_))
    );
    Ok(match v {
        Value::Null => "null".into(),
        Value::Bool(b) if matches!(ty, Some(Type::String)) => quote(&b.to_string()),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) if numeric || ty.is_none() => n.to_string(),
        Value::Number(n) => quote(&n.to_string()),
        Value::String(s) if numeric => {
            let t = s.trim();
            if t.is_empty() {
                "null".into()
            } else if t.parse::<f64>().is_ok() && !t.contains(['e', 'E', 'n', 'N', 'i', 'I']) {
                t.trim_start_matches('+').to_string()
            } else {
                return Err(format!("`{s}` is not a number (column `{column}`)"));
            }
        }
        Value::String(s) if matches!(ty, Some(Type::Bool)) => {
            match s.trim().to_ascii_lowercase().as_str() {
                "true" => "true".into(),
                "false" => "false".into(),
                "" => "null".into(),
                _ => return Err(format!("`{s}` is not a boolean (column `{column}`)")),
            }
        }
        Value::String(s) if s.is_empty() && !matches!(ty, Some(Type::String)) => "null".into(),
        Value::String(s) => quote(s),
        Value::Array(items) => {
            let elem = match ty {
                Some(Type::Array(e)) => Some(&**e),
                _ => None,
            };
            let parts: Vec<String> = items
                .iter()
                .map(|x| literal(x, elem, column))
                .collect::<Result<_, _>>()?;
            format!("[{}]", parts.join(", "))
        }
        Value::Object(_) => {
            return Err(format!(
                "a mapping as a value (column `{column}`) has no literal in a fixture row"
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_become_literals_typed_by_their_column() {
        let cases: Vec<(Value, Option<Type>, &str)> = vec![
            (serde_json::json!(1), Some(Type::Int64), "1"),
            (serde_json::json!("7"), Some(Type::Int64), "7"),
            (serde_json::json!(1.25), Some(Type::Decimal(10, 2)), "1.25"),
            (serde_json::json!(3), Some(Type::String), "\"3\""),
            (
                serde_json::json!("2024-01-31"),
                Some(Type::Date),
                "\"2024-01-31\"",
            ),
            (serde_json::json!(null), Some(Type::Date), "null"),
            (serde_json::json!(""), Some(Type::Int64), "null"),
            (serde_json::json!(""), Some(Type::String), "\"\""),
            (serde_json::json!("TRUE"), Some(Type::Bool), "true"),
            (
                serde_json::json!("a \"b\""),
                Some(Type::String),
                "\"a \\\"b\\\"\"",
            ),
        ];
        for (v, ty, want) in cases {
            assert_eq!(literal(&v, ty.as_ref(), "c").as_deref(), Ok(want), "{v}");
        }
        assert!(literal(&serde_json::json!("x"), Some(&Type::Int64), "c").is_err());
    }

    #[test]
    fn dict_rows_list_every_key_and_missing_keys_are_null() {
        let rows = serde_json::json!([{"a": 1}, {"b": "x", "a": 2}]);
        let (cols, rows) = dict_rows(&rows, "rows").expect("rows");
        assert_eq!(cols, ["a", "b"]);
        let types: BTreeMap<String, Type> = [
            ("a".to_string(), Type::Int64),
            ("b".to_string(), Type::String),
        ]
        .into();
        assert_eq!(
            rows_block("given t", &(cols, rows), &types).as_deref(),
            Ok("  given t(a, b) {\n    (1, null)\n    (2, \"x\")\n  }\n")
        );
    }

    #[test]
    fn csv_rows_are_text_and_an_empty_value_is_null() {
        let (cols, rows) = csv_rows("id,name\n1,\n2,ann\n", "rows").expect("rows");
        assert_eq!(cols, ["id", "name"]);
        assert_eq!(rows[0][1], Some(Value::Null));
        assert_eq!(rows[1][1], Some(Value::String("ann".into())));
        assert!(csv_rows("id,name\n1\n", "rows").is_err());
    }
}
