//! The seeds and dbt sources as strata sources: typed (the seeds as
//! DuckDB's CSV reader types them, the sources by their YAML `data_type`,
//! else catalog.json), or the problems that keep strata from reading them;
//! and the uniqueness their own tests prove.

use serde_json::Value;
use strata_lang::table_name::TableName;
use strata_lang::types::Type;

use super::State;
use crate::check::Decl;
use crate::names::{self, quote};
use crate::report::SeedEntry;
use crate::seeds;
use crate::sql::{ColInfo, RelInfo};
use crate::types;

impl State<'_> {
    /// Seeds, typed as strata will read them.
    pub(super) fn declare_seeds(&mut self) {
        let project = self.project;
        let State {
            report,
            known,
            decls,
            problems,
            source_texts,
            seed_paths,
            ..
        } = self;
        let enabled_seeds: Vec<_> = project
            .seeds
            .iter()
            .map(|s| (s.clone(), project.seed_config(s)))
            .filter(|(_, c)| c.get("enabled").and_then(Value::as_bool) != Some(false))
            .collect();
        for seed in seeds::type_seeds(&enabled_seeds) {
            let mut probs = Vec::new();
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
                match &c.ty {
                    Ok(t) => {
                        cols.push(ColInfo {
                            name: c.name.clone(),
                            ty: Some(t.clone()),
                        });
                        let decl = types::declared(t).unwrap_or_else(|| "string".into());
                        lines.push_str(&format!("    {}: {decl}\n", names::written(&c.name)));
                    }
                    Err(why) => probs.push(format!("column `{}`: {why}", c.name)),
                }
            }
            report.seeds.push(SeedEntry {
                name: seed.name.clone(),
                file: seed.rel.clone(),
                columns: seed.columns.len(),
                problems: probs.clone(),
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
                text.push_str(&format!(
                "# Seed {}\nsource {}(ns: {}, dataset: {}) {{\n  columns: {{\n{lines}  }}\n}}\n",
                seed.rel,
                names::written(&seed.name),
                quote(&project.name),
                quote(&seed.name)
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
                seed_paths.insert(seed.name.clone(), seed.path.clone());
            } else {
                problems.insert(seed.name.clone(), probs);
            }
        }
    }

    /// dbt sources: typed by their YAML `data_type`, else catalog.json.
    pub(super) fn declare_sources(&mut self) {
        let project = self.project;
        let State {
            catalog,
            taken,
            known,
            decls,
            problems,
            source_texts,
            source_names,
            ..
        } = self;
        for ((src, tbl), t) in &project.props.sources {
            let name = names::source_table(src, tbl);
            taken.insert(name.clone());
            source_names.insert((src.clone(), tbl.clone()), name.clone());
            let mut probs = Vec::new();
            if let Some(why) = names::refusal(&name) {
                probs.push(format!("source name: {why}"));
            }
            let cat = catalog
                .as_ref()
                .and_then(|c| c.sources.get(&(src.clone(), tbl.clone())));
            let mut cols: Vec<(String, Result<Type, String>)> = Vec::new();
            for c in &t.columns {
                let ty = match (&c.data_type, cat.and_then(|cat| cat.iter().find(|(n, _)| n.eq_ignore_ascii_case(&c.name)))) {
                (Some(dt), _) => types::from_warehouse(dt),
                (None, Some((_, ct))) => types::from_warehouse(ct),
                (None, None) => Err("it has no type: give it a `data_type:` in YAML, or run `dbt docs generate` for target/catalog.json".to_string()),
            };
                cols.push((c.name.clone(), ty));
            }
            if cols.is_empty() {
                if let Some(cat) = cat {
                    for (n, ct) in cat {
                        cols.push((n.clone(), types::from_warehouse(ct)));
                    }
                }
            }
            if cols.is_empty() {
                probs.push("the source declares no columns: list them with `data_type:` in YAML, or run `dbt docs generate` for target/catalog.json".into());
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
                quote(&TableName::bare(t.schema.as_deref().unwrap_or(src)).to_string()),
                quote(&TableName::bare(t.identifier.as_deref().unwrap_or(tbl)).to_string()),
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
