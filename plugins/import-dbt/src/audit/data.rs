//! `--data`: for every join without a proof, the duplicate key groups of
//! its joined side on the warehouse, counted as `strata run` counts a join
//! cardinality check (the lifecycle's query: NULL keys left out, composite
//! keys, up to five sample keys), each distinct (relation, keys) once.
//! The warehouse is opened read-only; nothing is created.

use std::collections::BTreeMap;

use strata_engine::Engine;
use strata_lifecycle::cardinality::duplicate_groups;

use super::shape::Rel;
use super::walk::CountOn;
use super::{Audit, DataFinding, Verdict};
use crate::catalog::Manifest;
use crate::error::Failure;
use crate::jinja::{ref_marker, source_marker};

/// The SQL relation of a model, seed or source: `schema.name` of the
/// relation dbt built it as (the database part left out, so that a
/// DuckDB file opened under another name still reads it).
fn physical(manifest: Option<&Manifest>, rel: &Rel, wh: &dyn Engine) -> Option<String> {
    let key = manifest?.relations.iter().find_map(|(k, v)| {
        let same = match (v, rel) {
            (Ok(n), Rel::Model { name } | Rel::Seed { name }) => n == name,
            (Err((s, t)), Rel::Source { source, table }) => s == source && t == table,
            _ => false,
        };
        same.then_some(k)
    })?;
    let parts: Vec<&str> = key.split('.').collect();
    let tail = &parts[parts.len().saturating_sub(2)..];
    Some(
        tail.iter()
            .map(|p| wh.ident(p))
            .collect::<Vec<_>>()
            .join("."),
    )
}

/// SQL rendered here (no compiled SQL) names relations by markers
/// (`"$ref$orders"`): the relations dbt built, where the manifest names them.
fn unmark(sql: &str, manifest: Option<&Manifest>, wh: &dyn Engine) -> String {
    if !sql.contains("\"$") {
        return sql.to_string();
    }
    let mut out = sql.to_string();
    for v in manifest.map(|m| m.relations.values()).into_iter().flatten() {
        let (marker, rel) = match v {
            Ok(n) => (ref_marker(n), Rel::Model { name: n.clone() }),
            Err((s, t)) => (
                source_marker(s, t),
                Rel::Source {
                    source: s.clone(),
                    table: t.clone(),
                },
            ),
        };
        if out.contains(&marker) {
            if let Some(p) = physical(manifest, &rel, wh) {
                out = out.replace(&marker, &p);
            }
        }
    }
    out
}

/// Count on `wh` for every join that has no proof, and give each its
/// verdict on the data.
pub fn count(
    audit: &mut Audit,
    manifest: Option<&Manifest>,
    wh: &dyn Engine,
) -> Result<(), Failure> {
    let mut done: BTreeMap<(String, Vec<String>), Result<DataFinding, String>> = BTreeMap::new();
    for j in &mut audit.joins {
        if j.verdict.proven() {
            continue;
        }
        let Some(on) = &j.count_on else { continue };
        let (relation, keys) = match on {
            CountOn::Relation { rel, columns } => match physical(manifest, rel, wh) {
                Some(r) => (r, columns.clone()),
                None => continue,
            },
            CountOn::Sql { sql, columns } => {
                let sql = unmark(sql, manifest, wh);
                if sql.starts_with('(') {
                    (format!("{sql} AS r"), columns.clone())
                } else {
                    (sql, columns.clone())
                }
            }
        };
        let entry = done
            .entry((relation.clone(), keys.clone()))
            .or_insert_with(|| {
                duplicate_groups(wh, &keys, &relation, None)
                    .map(|c| DataFinding {
                        relation: relation.clone(),
                        keys: keys.clone(),
                        duplicate_groups: c.groups,
                        examples: c
                            .dups
                            .iter()
                            .map(|(vals, n)| {
                                let kv: Vec<String> = keys
                                    .iter()
                                    .zip(vals)
                                    .map(|(k, v)| format!("{k}={v}"))
                                    .collect();
                                format!("{} ({n} rows)", kv.join(", "))
                            })
                            .collect(),
                    })
                    .map_err(|e| {
                        let m = match e {
                            strata_engine::Failure::Environment(m)
                            | strata_engine::Failure::Usage(m) => m,
                            strata_engine::Failure::Data(d) => format!("{d:?}"),
                        };
                        m.lines().next().unwrap_or_default().to_string()
                    })
            });
        match entry {
            Ok(found) => {
                j.verdict = if found.duplicate_groups > 0 {
                    Verdict::FansOutToday
                } else {
                    Verdict::UniqueInDataToday
                };
                j.data = Some(found.clone());
            }
            Err(why) => {
                j.evidence = format!("{}; the count on the data failed: {why}", j.evidence);
            }
        }
    }
    audit.counts = done.values().filter(|d| d.is_ok()).count();
    audit.sort();
    Ok(())
}
