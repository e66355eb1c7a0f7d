//! The property files (`.yml` / `.yaml` under the model and seed paths):
//! models, seeds and sources with their descriptions, configs, columns
//! (`data_type`, constraints) and tests in both spellings (`tests:`,
//! `data_tests:`, the `arguments:` form), and `unit_tests:`.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::error::Failure;
use crate::yaml::{line_of, line_of_name, list_field, str_field};

/// A place in a project file, for the report.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Default, serde::Serialize)]
pub struct Loc {
    /// Relative to the project's root, `/`-separated.
    pub file: String,
    /// 1-based; 0 when unknown.
    pub line: usize,
}

impl Loc {
    pub fn new(file: impl Into<String>, line: usize) -> Loc {
        Loc {
            file: file.into(),
            line,
        }
    }
}

impl std::fmt::Display for Loc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line > 0 {
            write!(f, "{}:{}", self.file, self.line)
        } else {
            f.write_str(&self.file)
        }
    }
}

/// What the property files say.
#[derive(Debug, Default)]
pub struct Properties {
    pub models: BTreeMap<String, ModelProps>,
    pub seeds: BTreeMap<String, ModelProps>,
    /// By (source name, table name).
    pub sources: BTreeMap<(String, String), SourceTable>,
    pub unit_tests: Vec<UnitTest>,
}

/// A model's (or seed's) entry: description, config, columns, tests.
#[derive(Clone, Debug, Default)]
pub struct ModelProps {
    pub description: Option<String>,
    pub config: Map<String, Value>,
    pub columns: Vec<ColumnProps>,
    /// Model-level tests (`dbt_utils.unique_combination_of_columns`, ...).
    pub tests: Vec<TestSpec>,
    /// Model-level constraints (`primary_key` on several columns).
    pub constraints: Vec<Constraint>,
    pub loc: Loc,
    /// `versions:` present (versioned models are not converted).
    pub versioned: bool,
}

#[derive(Clone, Debug, Default)]
pub struct ColumnProps {
    pub name: String,
    pub description: Option<String>,
    pub data_type: Option<String>,
    pub tests: Vec<TestSpec>,
    /// Column constraints: `not_null`, `unique`, `primary_key`.
    pub constraints: Vec<String>,
    pub line: usize,
}

#[derive(Clone, Debug)]
pub struct Constraint {
    pub kind: String,
    pub columns: Vec<String>,
}

/// One data test as written in YAML.
#[derive(Clone, Debug)]
pub struct TestSpec {
    /// `unique`, `not_null`, `accepted_values`, `relationships`,
    /// `dbt_utils.unique_combination_of_columns`, ...
    pub name: String,
    /// Its arguments (the `arguments:` form merged in).
    pub args: Map<String, Value>,
    /// `severity: warn` (in `config:` or at the top).
    pub warn: bool,
    /// A `where:` config: the test covers only some rows.
    pub where_: Option<String>,
    pub loc: Loc,
}

/// A table of a dbt source.
#[derive(Clone, Debug, Default)]
pub struct SourceTable {
    pub source: String,
    pub table: String,
    pub schema: Option<String>,
    pub identifier: Option<String>,
    pub description: Option<String>,
    pub columns: Vec<ColumnProps>,
    pub tests: Vec<TestSpec>,
    pub loc: Loc,
}

/// A `unit_tests:` entry: its name, model, and the entry itself (`given`,
/// `expect`, `overrides`: read by `import::unit`).
#[derive(Clone, Debug)]
pub struct UnitTest {
    pub name: String,
    pub model: String,
    pub loc: Loc,
    pub raw: Value,
}

impl Properties {
    /// Read one property file.
    pub(crate) fn read_file(&mut self, rel: &str, text: &str, doc: &Value) -> Result<(), Failure> {
        if doc.is_null() {
            return Ok(());
        }
        if !doc.is_object() {
            return Err(Failure::project(format!(
                "{rel}: expected a mapping of `models:`, `sources:`, `seeds:`, ..."
            )));
        }
        let bad = |what: &str| Failure::project(format!("{rel}: `{what}:` must be a list"));
        for (key, target) in [("models", true), ("seeds", false)] {
            let Some(entries) = doc.get(key) else {
                continue;
            };
            let Some(entries) = entries.as_array() else {
                return Err(bad(key));
            };
            let mut from = 1;
            for e in entries {
                let Some(name) = str_field(e, "name") else {
                    continue;
                };
                let line = line_of_name(text, from, name).unwrap_or(0);
                if line > 0 {
                    from = line;
                }
                let props = model_props(rel, text, e, line);
                let map = if target {
                    &mut self.models
                } else {
                    &mut self.seeds
                };
                map.insert(name.to_string(), props);
            }
        }
        if let Some(sources) = doc.get("sources") {
            let Some(sources) = sources.as_array() else {
                return Err(bad("sources"));
            };
            let mut from = 1;
            for s in sources {
                let Some(source) = str_field(s, "name") else {
                    continue;
                };
                if let Some(l) = line_of_name(text, from, source) {
                    from = l;
                }
                for t in list_field(s, "tables") {
                    let Some(table) = str_field(t, "name") else {
                        continue;
                    };
                    let line = line_of_name(text, from, table).unwrap_or(0);
                    if line > 0 {
                        from = line;
                    }
                    let p = model_props(rel, text, t, line);
                    self.sources.insert(
                        (source.to_string(), table.to_string()),
                        SourceTable {
                            source: source.to_string(),
                            table: table.to_string(),
                            schema: str_field(s, "schema").map(str::to_string),
                            identifier: str_field(t, "identifier").map(str::to_string),
                            description: p.description,
                            columns: p.columns,
                            tests: p.tests,
                            loc: Loc::new(rel, line),
                        },
                    );
                }
            }
        }
        if let Some(units) = doc.get("unit_tests") {
            let Some(units) = units.as_array() else {
                return Err(bad("unit_tests"));
            };
            for u in units {
                let name = str_field(u, "name").unwrap_or("?").to_string();
                let line = line_of_name(text, 1, &name).unwrap_or(0);
                self.unit_tests.push(UnitTest {
                    model: str_field(u, "model").unwrap_or("?").to_string(),
                    name,
                    loc: Loc::new(rel, line),
                    raw: u.clone(),
                });
            }
        }
        Ok(())
    }
}

fn model_props(rel: &str, text: &str, e: &Value, line: usize) -> ModelProps {
    let mut config = match e.get("config") {
        Some(Value::Object(m)) => m.clone(),
        _ => Map::new(),
    };
    // Older spellings at the top of the entry.
    for key in ["enabled", "materialized", "column_types"] {
        if let Some(v) = e.get(key) {
            config.entry(key.to_string()).or_insert_with(|| v.clone());
        }
    }
    let mut columns = Vec::new();
    let mut from = line.max(1);
    for c in list_field(e, "columns") {
        let Some(name) = str_field(c, "name") else {
            continue;
        };
        let cline = line_of_name(text, from, name).unwrap_or(0);
        if cline > 0 {
            from = cline;
        }
        let mut tests = tests_of(rel, text, c, cline);
        let constraints: Vec<String> = list_field(c, "constraints")
            .iter()
            .filter_map(|k| str_field(k, "type").map(str::to_ascii_lowercase))
            .collect();
        tests.retain(|t| !t.name.is_empty());
        columns.push(ColumnProps {
            name: name.to_string(),
            description: str_field(c, "description").map(str::to_string),
            data_type: str_field(c, "data_type").map(str::to_string),
            tests,
            constraints,
            line: cline,
        });
    }
    let constraints = list_field(e, "constraints")
        .iter()
        .filter_map(|k| {
            Some(Constraint {
                kind: str_field(k, "type")?.to_ascii_lowercase(),
                columns: list_field(k, "columns")
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
            })
        })
        .collect();
    ModelProps {
        description: str_field(e, "description").map(str::to_string),
        config,
        columns,
        tests: tests_of(rel, text, e, line),
        constraints,
        loc: Loc::new(rel, line),
        versioned: e.get("versions").is_some(),
    }
}

/// The tests of an entry (`tests:` and `data_tests:`), each in any of its
/// spellings: `- unique`, `- accepted_values: {values: [...]}`, the
/// `arguments:` form, `config: {severity: warn}`, `test_name:`.
fn tests_of(rel: &str, text: &str, e: &Value, line: usize) -> Vec<TestSpec> {
    let mut out = Vec::new();
    for key in ["data_tests", "tests"] {
        for t in list_field(e, key) {
            let (name, body) = match t {
                Value::String(s) => (s.clone(), Value::Object(Map::new())),
                Value::Object(m) if m.len() == 1 => match m.iter().next() {
                    Some((k, v)) => (k.clone(), v.clone()),
                    None => continue,
                },
                Value::Object(m) => match m.get("test_name").and_then(Value::as_str) {
                    Some(n) => (n.to_string(), t.clone()),
                    None => continue,
                },
                _ => continue,
            };
            let mut args = Map::new();
            let mut warn = false;
            let mut where_ = None;
            if let Value::Object(m) = &body {
                for (k, v) in m {
                    match k.as_str() {
                        "arguments" => {
                            if let Value::Object(a) = v {
                                args.extend(a.clone());
                            }
                        }
                        "config" => {
                            warn |= v
                                .get("severity")
                                .and_then(Value::as_str)
                                .is_some_and(|s| s.eq_ignore_ascii_case("warn"));
                            if let Some(w) = v.get("where").and_then(Value::as_str) {
                                where_ = Some(w.to_string());
                            }
                        }
                        "severity" => {
                            warn |= v.as_str().is_some_and(|s| s.eq_ignore_ascii_case("warn"))
                        }
                        "where" => where_ = v.as_str().map(str::to_string),
                        "test_name" | "name" | "description" | "meta" | "tags" => {}
                        _ => {
                            args.insert(k.clone(), v.clone());
                        }
                    }
                }
            }
            let short = name.rsplit('.').next().unwrap_or(&name).to_string();
            let tline = line_of(text, line.max(1), &name)
                .or_else(|| line_of(text, line.max(1), &format!("{short}:")))
                .unwrap_or(line);
            out.push(TestSpec {
                name,
                args,
                warn,
                where_,
                loc: Loc::new(rel, tline),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::yaml;

    use super::*;
    use serde_json::json;

    #[test]
    fn test_spellings() {
        let text = "models:\n  - name: m\n    columns:\n      - name: s\n        data_tests:\n          - not_null\n          - accepted_values:\n              arguments:\n                values: [a, b]\n              config:\n                severity: warn\n";
        let doc = yaml::parse(Path::new("x.yml"), text).unwrap_or_default();
        let mut p = Properties::default();
        assert!(p.read_file("x.yml", text, &doc).is_ok());
        let m = &p.models["m"];
        let tests = &m.columns[0].tests;
        assert_eq!(tests.len(), 2);
        assert_eq!(tests[0].name, "not_null");
        assert_eq!(tests[0].loc.line, 6);
        assert_eq!(tests[1].name, "accepted_values");
        assert!(tests[1].warn);
        assert_eq!(tests[1].args.get("values"), Some(&json!(["a", "b"])));
    }
}
