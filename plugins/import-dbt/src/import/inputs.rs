//! The seeds and dbt sources as strata sources: typed (the seeds as
//! DuckDB's CSV reader types them, the sources by their YAML `data_type`,
//! else catalog.json, else dbt's warehouse), reading where dbt reads them,
//! or the problems that keep strata from reading them; and the uniqueness
//! their own tests prove.

use std::collections::BTreeSet;

use serde_json::Value;
use strata_lang::table_name::TableName;
use strata_lang::types::Type;

use super::warehouse::built_at;
use super::{State, PIPELINE};
use crate::check::Decl;
use crate::names::{self, quote};
use crate::report::{SeedEntry, SourceEntry};
use crate::seeds;
use crate::sql::{ColInfo, RelInfo};
use crate::types;

impl State<'_> {
    /// Seeds, typed as strata will read them: each read from its file by
    /// the `seeds` pipeline, and from the table dbt loaded (where the
    /// profile names a warehouse) by the others.
    pub(super) fn declare_seeds(&mut self) {
        let project = self.project;
        let State {
            manifest,
            report,
            known,
            decls,
            problems,
            source_texts,
            seed_paths,
            reader,
            ..
        } = self;
        let enabled_seeds: Vec<_> = project
            .seeds
            .iter()
            .map(|s| (s.clone(), project.seed_config(s)))
            .filter(|(_, c)| c.get("enabled").and_then(Value::as_bool) != Some(false))
            .collect();
        for (seed, (_, config)) in seeds::type_seeds(&enabled_seeds)
            .into_iter()
            .zip(&enabled_seeds)
        {
            let loaded_at = reader
                .warehouse
                .as_ref()
                .map(|w| built_at(manifest.as_ref(), w, &seed.name, config));
            let mut probs = Vec::new();
            let mut notes = Vec::new();
            if let Some(p) = &seed.problem {
                probs.push(p.clone());
            }
            if let Some(why) = names::refusal(&seed.name) {
                probs.push(format!("seed name: {why}"));
            }
            let mut cols = Vec::new();
            let mut lines = String::new();
            for c in &seed.columns {
                if let Some(why) = names::refusal(&c.name) {
                    probs.push(format!("column: {why}"));
                    continue;
                }
                let ty = match (&c.ty, &c.declared, &loaded_at) {
                    (Ok(t), ..) => t.clone(),
                    (Err(why), Some(declared), Some((schema, table))) => {
                        notes.push(format!(
                            "column `{}`: {why}: read from the table dbt loaded ({schema}.{table}), not from the file, so it is not in the `{PIPELINE}` pipeline",
                            c.name
                        ));
                        declared.clone()
                    }
                    (Err(why), ..) => {
                        probs.push(format!("column `{}`: {why}", c.name));
                        continue;
                    }
                };
                let decl = types::declared(&ty).unwrap_or_else(|| "string".into());
                lines.push_str(&format!("    {}: {decl}\n", names::written(&c.name)));
                cols.push(ColInfo {
                    name: c.name.clone(),
                    ty: Some(ty),
                });
            }
            report.seeds.push(SeedEntry {
                name: seed.name.clone(),
                file: seed.rel.clone(),
                columns: seed.columns.len(),
                problems: probs.clone(),
                notes: notes.clone(),
            });
            if probs.is_empty() {
                let mut text = String::new();
                if let Some(d) = project
                    .props
                    .seeds
                    .get(&seed.name)
                    .and_then(|p| p.description.clone())
                {
                    text.push_str(&comment(&d));
                }
                // Where dbt loaded it, else metadata (a table named like
                // the seed).
                let place = match &loaded_at {
                    Some((schema, table)) => format!(
                        "schema: {}, table: {}",
                        quote(&TableName::bare(schema).to_string()),
                        quote(&TableName::bare(table).to_string())
                    ),
                    None => format!(
                        "ns: {}, dataset: {}",
                        quote(&project.name),
                        quote(&seed.name)
                    ),
                };
                text.push_str(&format!(
                    "# Seed {}\nsource {}({place}) {{\n  columns: {{\n{lines}  }}\n}}\n",
                    seed.rel,
                    names::written(&seed.name),
                ));
                decls.insert(seed.name.clone(), Decl::Source(text.clone()));
                source_texts.push((seed.name.clone(), text));
                known.insert(
                    seed.name.clone(),
                    RelInfo {
                        columns: cols,
                        is_model: false,
                    },
                );
                if notes.is_empty() {
                    seed_paths.insert(seed.name.clone(), seed.path.clone());
                }
            } else {
                problems.insert(seed.name.clone(), probs);
            }
        }
    }

    /// dbt sources: typed by their YAML `data_type`, else catalog.json,
    /// else dbt's warehouse (asked read-only, as `dbt docs generate` does).
    pub(super) fn declare_sources(&mut self) {
        let project = self.project;
        let State {
            catalog,
            report,
            taken,
            known,
            decls,
            problems,
            source_texts,
            source_names,
            reader,
            ..
        } = self;
        for ((src, tbl), t) in &project.props.sources {
            let name = names::source_table(src, tbl);
            taken.insert(name.clone());
            source_names.insert((src.clone(), tbl.clone()), name.clone());
            let (schema, table) = (
                t.schema.as_deref().unwrap_or(src),
                t.identifier.as_deref().unwrap_or(tbl),
            );
            let mut probs = Vec::new();
            if let Some(why) = names::refusal(&name) {
                probs.push(format!("source name: {why}"));
            }
            let cat = catalog
                .as_ref()
                .and_then(|c| c.sources.get(&(src.clone(), tbl.clone())));
            // dbt's warehouse, when catalog.json does not know the source.
            let asked = if cat.is_none() {
                reader.columns(schema, table)
            } else {
                None
            };
            let not_there = match &asked {
                Some(Err(why)) => format!(
                    "; dbt's warehouse ({}) does not give them: {why}",
                    reader.shown()
                ),
                _ => String::new(),
            };
            let mut types_from: BTreeSet<&str> = BTreeSet::new();
            let mut cols: Vec<(String, Result<Type, String>)> = Vec::new();
            // What the warehouse has is the source's columns (`select *`
            // reads them all: a package's YAML often lists a few), from
            // catalog.json, else from dbt's warehouse; the YAML's
            // `data_type` types those it names.
            let all = match (cat, &asked) {
                (Some(cat), _) => Some(("catalog.json", cat)),
                (None, Some(Ok(cols))) => Some(("warehouse", cols)),
                _ => None,
            };
            match all {
                Some((from, all)) => {
                    for (n, ct) in all {
                        let yaml = t
                            .columns
                            .iter()
                            .find(|c| c.name.eq_ignore_ascii_case(n))
                            .and_then(|c| c.data_type.as_deref());
                        types_from.insert(if yaml.is_some() { "YAML" } else { from });
                        cols.push((n.clone(), types::from_warehouse(yaml.unwrap_or(ct))));
                    }
                }
                None => {
                    for c in &t.columns {
                        let ty = match &c.data_type {
                            Some(dt) => {
                                types_from.insert("YAML");
                                types::from_warehouse(dt)
                            }
                            None => Err(format!("it has no type: give it a `data_type:` in YAML, or run `dbt docs generate` for target/catalog.json{not_there}")),
                        };
                        cols.push((c.name.clone(), ty));
                    }
                }
            }
            if cols.is_empty() {
                probs.push(format!("the source declares no columns: list them with `data_type:` in YAML, or run `dbt docs generate` for target/catalog.json{not_there}"));
            }
            let mut lines = String::new();
            let mut infos = Vec::new();
            for (n, ty) in &cols {
                if let Some(why) = names::refusal(n) {
                    probs.push(format!("column: {why}"));
                    continue;
                }
                match ty {
                    Ok(ty) => {
                        lines.push_str(&format!(
                            "    {}: {}\n",
                            names::written(n),
                            types::declared(ty).unwrap_or_else(|| "string".into())
                        ));
                        infos.push(ColInfo {
                            name: n.clone(),
                            ty: Some(ty.clone()),
                        });
                    }
                    Err(why) => probs.push(format!("column `{n}`: {why}")),
                }
            }
            report.sources.push(SourceEntry {
                name: name.clone(),
                table: format!("{}.{}", TableName::bare(schema), TableName::bare(table)),
                columns: infos.len(),
                types_from: types_from.iter().map(|f| f.to_string()).collect(),
                problems: probs.clone(),
            });
            if probs.is_empty() {
                let mut text = String::new();
                if let Some(d) = &t.description {
                    text.push_str(&comment(d));
                }
                text.push_str(&format!(
                "# dbt source {src}.{tbl} ({})\nsource {}(schema: {}, table: {}) {{\n  columns: {{\n{lines}  }}\n}}\n",
                t.loc,
                names::written(&name),
                // Where dbt reads it: each a name as a source's `schema:`
                // and `table:` read them (a dot in one quoted).
                quote(&TableName::bare(schema).to_string()),
                quote(&TableName::bare(table).to_string()),
            ));
                decls.insert(name.clone(), Decl::Source(text.clone()));
                source_texts.push((name.clone(), text));
                known.insert(
                    name.clone(),
                    RelInfo {
                        columns: infos,
                        is_model: false,
                    },
                );
            } else {
                problems.insert(name.clone(), probs);
            }
        }
    }
}

/// A description as comment lines.
pub(super) fn comment(text: &str) -> String {
    let mut s = String::new();
    for line in text.trim().lines() {
        let line = line.trim_end();
        if line.is_empty() {
            s.push_str("#\n");
        } else {
            s.push_str("# ");
            s.push_str(line);
            s.push('\n');
        }
    }
    s
}
