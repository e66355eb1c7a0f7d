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
