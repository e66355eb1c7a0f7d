//! What a dbt run left in `target/`: `manifest.json` (each model's
//! compiled SQL and the relation name it is built as) and `catalog.json`
//! from `dbt docs generate` (the column types of every source and model).

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::error::Failure;

/// The column types `catalog.json` gives, in column order.
#[derive(Debug, Default)]
pub struct Catalog {
    /// By model or seed name.
    pub nodes: BTreeMap<String, Vec<(String, String)>>,
    /// By (source name, table name).
    pub sources: BTreeMap<(String, String), Vec<(String, String)>>,
}

/// What `manifest.json` says about each model.
#[derive(Debug, Default)]
pub struct Manifest {
    /// By model name: its compiled SQL, when dbt compiled it.
    pub compiled: BTreeMap<String, String>,
    /// By model name: what it reads (`depends_on.nodes`).
    pub deps: BTreeMap<String, Vec<crate::jinja::Dep>>,
    /// A relation name as compiled SQL writes it (lower case, without
    /// quotes: `db.main.stg_orders`) to the node: `Ok(model or seed name)`,
    /// `Err((source, table))`.
    pub relations: BTreeMap<String, Result<String, (String, String)>>,
    /// The models dbt disabled (its `disabled` section, none of `nodes`).
    pub disabled: std::collections::BTreeSet<String>,
}

fn read_json(path: &Path) -> Result<Option<Value>, Failure> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Failure::unreadable(path, &e)),
    };
    serde_json::from_str(&text).map(Some).map_err(|e| {
        Failure::project(format!(
            "{}:{}:{}: invalid JSON: {}",
            path.display(),
            e.line(),
            e.column(),
            e.to_string().split(" at line ").next().unwrap_or("")
        ))
    })
}

/// The part of a unique id after `<kind>.<project>.`.
fn id_parts(id: &str) -> Vec<&str> {
    id.split('.').collect()
}

impl Catalog {
    pub fn read(target: &Path) -> Result<Option<Catalog>, Failure> {
        let Some(doc) = read_json(&target.join("catalog.json"))? else {
            return Ok(None);
        };
        let columns = |node: &Value| -> Vec<(String, String)> {
            let mut cols: Vec<(i64, String, String)> = node
                .get("columns")
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .map(|(k, c)| {
                            (
                                c.get("index").and_then(Value::as_i64).unwrap_or(0),
                                c.get("name")
                                    .and_then(Value::as_str)
                                    .unwrap_or(k)
                                    .to_string(),
                                c.get("type")
                                    .and_then(Value::as_str)
                                    .unwrap_or("")
                                    .to_string(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            cols.sort();
            cols.into_iter().map(|(_, n, t)| (n, t)).collect()
        };
        let mut out = Catalog::default();
        if let Some(nodes) = doc.get("nodes").and_then(Value::as_object) {
            for (id, node) in nodes {
                let parts = id_parts(id);
                if let ("model" | "seed" | "snapshot", Some(name)) =
                    (parts.first().copied().unwrap_or(""), parts.last())
                {
                    out.nodes.insert((*name).to_string(), columns(node));
                }
            }
        }
        if let Some(sources) = doc.get("sources").and_then(Value::as_object) {
            for (id, node) in sources {
                let parts = id_parts(id);
                if parts.len() >= 4 {
                    let key = (
                        parts[parts.len() - 2].to_string(),
                        parts[parts.len() - 1].to_string(),
                    );
                    out.sources.insert(key, columns(node));
                }
            }
        }
        Ok(Some(out))
    }
}

/// dbt's per-invocation values in compiled SQL as the markers rendering
/// gives them (`crate::jinja::RUN_STARTED_AT`, `INVOCATION_ID`), so that
/// they translate as the run's own rather than as dbt's constants: the
/// manifest's `invocation_id`, and a literal `'YYYY-MM-DD
/// HH:MM:SS.ffffff+00:00'` (how `{{ run_started_at }}` renders) no later
/// than the manifest was written.
fn run_values_as_markers(doc: &Value, compiled: &mut BTreeMap<String, String>) {
    let meta = doc.get("metadata");
    let text = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_str);
    let generated = text("generated_at").unwrap_or("").replace('T', " ");
    for code in compiled.values_mut() {
        if let Some(id) = text("invocation_id").filter(|i| !i.is_empty()) {
            if code.contains(id) {
                *code = code.replace(id, crate::jinja::INVOCATION_ID);
            }
        }
        let stamps: Vec<String> = code
            .match_indices("+00:00'")
            .filter_map(|(at, _)| code.get(at.checked_sub(26)?..at))
            .filter(|s| {
                let b = s.as_bytes();
                b.iter().enumerate().all(|(i, c)| match i {
                    4 | 7 => *c == b'-',
                    10 => *c == b' ',
                    13 | 16 => *c == b':',
                    19 => *c == b'.',
                    _ => c.is_ascii_digit(),
                }) && !generated.is_empty()
                    && **s <= *generated.get(..26).unwrap_or(&generated)
            })
            .map(|s| format!("{s}+00:00"))
            .collect();
        for s in stamps {
            *code = code.replace(&s, crate::jinja::RUN_STARTED_AT);
        }
    }
}

/// A relation name without quotes, lower case.
pub fn relation_key(name: &str) -> String {
    name.replace(['"', '`'], "").to_ascii_lowercase()
}

impl Manifest {
    pub fn read(target: &Path) -> Result<Option<Manifest>, Failure> {
        let Some(doc) = read_json(&target.join("manifest.json"))? else {
            return Ok(None);
        };
        let mut out = Manifest::default();
        if let Some(nodes) = doc.get("nodes").and_then(Value::as_object) {
            for (id, node) in nodes {
                let kind = id_parts(id).first().copied().unwrap_or("");
                let Some(name) = node.get("name").and_then(Value::as_str) else {
                    continue;
                };
                if !matches!(kind, "model" | "seed" | "snapshot") {
                    continue;
                }
                if let Some(rel) = node.get("relation_name").and_then(Value::as_str) {
                    out.relations
                        .insert(relation_key(rel), Ok(name.to_string()));
                }
                if kind == "model" {
                    let deps = node
                        .get("depends_on")
                        .and_then(|d| d.get("nodes"))
                        .and_then(Value::as_array)
                        .map(|ids| {
                            ids.iter()
                                .filter_map(Value::as_str)
                                .filter_map(|id| {
                                    let parts = id_parts(id);
                                    match parts.first().copied() {
                                        Some("model" | "seed" | "snapshot") => parts
                                            .last()
                                            .map(|n| crate::jinja::Dep::Ref((*n).to_string())),
                                        Some("source") if parts.len() >= 4 => {
                                            Some(crate::jinja::Dep::Source(
                                                parts[parts.len() - 2].to_string(),
                                                parts[parts.len() - 1].to_string(),
                                            ))
                                        }
                                        _ => None,
                                    }
                                })
                                .collect::<Vec<_>>()
                        });
                    if let Some(deps) = deps {
                        out.deps.insert(name.to_string(), deps);
                    }
                    let code = node
                        .get("compiled_code")
                        .or_else(|| node.get("compiled_sql"))
                        .and_then(Value::as_str);
                    if let Some(code) = code {
                        out.compiled.insert(name.to_string(), code.to_string());
                    }
                }
            }
        }
        run_values_as_markers(&doc, &mut out.compiled);
        if let Some(disabled) = doc.get("disabled").and_then(Value::as_object) {
            for (id, versions) in disabled {
                let parts = id_parts(id);
                if parts.first() != Some(&"model") {
                    continue;
                }
                let name = versions
                    .as_array()
                    .and_then(|v| v.first())
                    .and_then(|n| n.get("name"))
                    .and_then(Value::as_str)
                    .or(parts.last().copied());
                if let Some(name) = name {
                    out.disabled.insert(name.to_string());
                }
            }
            // A model of the same name enabled in another package, or a
            // version of it, is not disabled.
            for node in doc
                .get("nodes")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                if id_parts(node.0).first() == Some(&"model") {
                    if let Some(n) = node.1.get("name").and_then(Value::as_str) {
                        out.disabled.remove(n);
                    }
                }
            }
        }
        if let Some(sources) = doc.get("sources").and_then(Value::as_object) {
            for node in sources.values() {
                let (Some(source), Some(table), Some(rel)) = (
                    node.get("source_name").and_then(Value::as_str),
                    node.get("name").and_then(Value::as_str),
                    node.get("relation_name").and_then(Value::as_str),
                ) else {
                    continue;
                };
                out.relations.insert(
                    relation_key(rel),
                    Err((source.to_string(), table.to_string())),
                );
            }
        }
        Ok(Some(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dbt_s_run_values_in_compiled_sql_become_the_run_s() {
        let doc = serde_json::json!({"metadata": {
            "invocation_id": "180cada4-0e2a-4abb-868e-c9121ff73271",
            "generated_at": "2026-12-07T22:51:20.123456Z",
        }});
        let mut compiled = BTreeMap::from([(
            "m".to_string(),
            "select '2026-12-07 22:51:12.488534+00:00' as s, '180cada4-0e2a-4abb-868e-c9121ff73271' as i, \
             '2027-01-01 00:00:00.000000+00:00' as later, '2026-12-07 22:51:12+00:00' as other"
                .to_string(),
        )]);
        run_values_as_markers(&doc, &mut compiled);
        assert_eq!(
            compiled["m"],
            format!(
                "select '{}' as s, '{}' as i, '2027-01-01 00:00:00.000000+00:00' as later, '2026-12-07 22:51:12+00:00' as other",
                crate::jinja::RUN_STARTED_AT,
                crate::jinja::INVOCATION_ID
            )
        );
    }
}
