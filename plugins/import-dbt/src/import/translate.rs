//! Each model, upstream first: translated (its helpers first), its joins'
//! promises taken from the audit's verdicts (`fanout`), checked with strata's checker; or needs review, with a
//! model whose columns are known declared as the table dbt builds so its
//! readers still convert.

use std::collections::BTreeMap;

use super::incremental::rebuilt_in_full;
use super::lines::map_line;
use serde_json::Value;
use strata_lang::table_name::TableName;

use super::warehouse::{built_at, Reader};
use super::{Outcome, State};
use crate::catalog::{relation_key, Catalog, Manifest};
use crate::check::{self, Decl};
use crate::jinja::Dep;
use crate::names::{self, quote};
use crate::project::{ModelFile, Project};
use crate::report::{Reason, Status};
use crate::sql::{self, ColInfo, Named, RelInfo};
use crate::types;

impl State<'_> {
    /// Translate, check and audit each model, upstream first.
    pub(super) fn translate_models(&mut self, order: &[usize], forced: &BTreeMap<String, String>) {
        let project = self.project;
        let duckdb = self.duckdb;
        let dialect = &*self.dialect;
        let State {
            manifest,
            catalog,
            taken,
            known,
            decls,
            problems,
            source_names,
            by_name,
            outcomes,
            sql_of,
            reader,
            audit,
            ..
        } = self;
        let relations = manifest.as_ref().map(|m| &m.relations);
        for &i in order {
            let m = &project.models[i];
            // A model that needs review, read by its readers as dbt's relation.
            macro_rules! declare_needs_review {
                () => {
                    declare_from_catalog(
                        m,
                        project,
                        catalog.as_ref(),
                        manifest.as_ref(),
                        reader,
                        known,
                        decls,
                        &mut outcomes[i],
                    )
                };
            }
            if let Some(why) = forced.get(&m.name) {
                outcomes[i].reasons.push(Reason::new(
                    format!(
                    "the strata it translates to does not check with the rest of the module: {why}"
                ),
                    m.rel.clone(),
                    0,
                ));
            }
            let outcome_failed = !outcomes[i].reasons.is_empty();
            // What it reads must be there.
            let mut blocked = Vec::new();
            for d in &outcomes[i].deps {
                let (node_name, is_model) = match d {
                    Dep::Ref(n) => (n.clone(), by_name.contains_key(n.as_str())),
                    Dep::Source(s, t) => (
                        source_names
                            .get(&(s.clone(), t.clone()))
                            .cloned()
                            .unwrap_or_else(|| names::source_table(s, t)),
                        false,
                    ),
                };
                if !decls.contains_key(&node_name) {
                    let why = match (is_model, problems.get(&node_name)) {
                        (_, Some(p)) => format!(
                            "reads `{node_name}`, which strata cannot read: {}",
                            p.join("; ")
                        ),
                        (true, None) => {
                            format!("reads the model `{node_name}`, which needs review")
                        }
                        (false, None) => continue,
                    };
                    if !blocked.contains(&why) {
                        blocked.push(why);
                    }
                }
            }
            if outcome_failed || !blocked.is_empty() {
                // Its own reasons first; what it reads only when it has none.
                if !outcome_failed {
                    for b in blocked {
                        outcomes[i].reasons.push(Reason::new(b, m.rel.clone(), 0));
                    }
                }
                outcomes[i].status = Some(Status::NeedsReview);
                declare_needs_review!();
                continue;
            }
            let Some(sql_text) = sql_of[i].clone() else {
                outcomes[i].status = Some(Status::NeedsReview);
                continue;
            };
            let resolve = |parts: &[String]| {
                resolve_name(parts, by_name, project, source_names, relations, m)
            };
            let cx = sql::Context {
                model: &m.name,
                known,
                taken,
                resolve: &resolve,
                duckdb,
            };
            let translated = sql::translate(&sql_text, dialect, &cx);
            let mut plans = match translated {
                Ok(t) => t.plans,
                Err(r) => {
                    let (line, exact) = map_line(&sql_text, &m.text, r.line);
                    let message = if exact || r.line == 0 {
                        r.message
                    } else {
                        format!("{} (line {} of the rendered SQL)", r.message, r.line)
                    };
                    outcomes[i]
                        .reasons
                        .push(Reason::new(message, m.rel.clone(), line));
                    outcomes[i].status = Some(Status::NeedsReview);
                    declare_needs_review!();
                    continue;
                }
            };
            if let Some(merge) = outcomes[i].incremental.take() {
                let main = plans.iter_mut().rev().find(|p| p.name == m.name);
                let note = match main.map(|p| merge.clause(p).map(|c| p.incremental = Some(c))) {
                    Some(Ok(())) => merge.describe(),
                    Some(Err(why)) => rebuilt_in_full(&why),
                    None => rebuilt_in_full("it translates to no model of its name"),
                };
                outcomes[i].notes.push(Reason::new(note, m.rel.clone(), 0));
            }
            if let Some(a) = audit {
                super::fanout::promise(&mut plans, a, &m.name);
            }
            match check::check_plans(&plans, "", decls) {
                Ok(cols) => {
                    for p in &plans {
                        let Some(c) = cols.get(&p.name) else { continue };
                        decls.insert(p.name.clone(), Decl::Model(c.clone()));
                        known.insert(p.name.clone(), RelInfo::checked_model(c));
                        taken.insert(p.name.clone());
                    }
                    outcomes[i].columns = cols.get(&m.name).cloned().unwrap_or_default();
                    outcomes[i].status = Some(Status::Converted);
                    outcomes[i].plans = std::mem::take(&mut plans);
                }
                Err(errors) => {
                    for e in errors.iter().take(3) {
                        outcomes[i].reasons.push(Reason::new(
                            format!("the strata it translates to does not check: {e}"),
                            m.rel.clone(),
                            0,
                        ));
                    }
                    outcomes[i].status = Some(Status::NeedsReview);
                    declare_needs_review!();
                }
            }
        }
    }
}

/// Relation names of compiled SQL to models and seeds (`Ok`) or sources.
type Relations = BTreeMap<String, Result<String, (String, String)>>;

/// Resolve a relation name of a model's SQL.
pub(super) fn resolve_name(
    parts: &[String],
    by_name: &BTreeMap<&str, usize>,
    project: &Project,
    sources: &BTreeMap<(String, String), String>,
    relations: Option<&Relations>,
    model: &ModelFile,
) -> Named {
    if let [one] = parts {
        if let Some(n) = one.strip_prefix("$ref$") {
            return if by_name.contains_key(n) || project.seeds.iter().any(|s| s.name == n) {
                Named::Relation(n.to_string())
            } else {
                Named::Unknown(format!("ref('{n}') names no model or seed of this project"))
            };
        }
        if let Some(rest) = one.strip_prefix("$source$") {
            let mut it = rest.splitn(2, '$');
            let (s, t) = (it.next().unwrap_or(""), it.next().unwrap_or(""));
            return match sources.get(&(s.to_string(), t.to_string())) {
                Some(n) => Named::Relation(n.clone()),
                None => Named::Unknown(format!(
                    "source('{s}', '{t}') is not declared in any YAML file"
                )),
            };
        }
        if one.starts_with("$this$") {
            return Named::Unknown(format!(
                "the model reads itself ({{{{ this }}}}): {} cannot read its own earlier rows",
                model.name
            ));
        }
    }
    if let Some(rel) = relations {
        let key = relation_key(&parts.join("."));
        match rel.get(&key) {
            Some(Ok(n)) => return Named::Relation(n.clone()),
            Some(Err((s, t))) => {
                if let Some(n) = sources.get(&(s.clone(), t.clone())) {
                    return Named::Relation(n.clone());
                }
            }
            None => {}
        }
    }
    Named::Unknown(format!(
        "`{}` is not a ref(), a source() or a CTE: strata reads only what the project declares",
        parts.join(".")
    ))
}

/// A model that needs review but that dbt builds, whose columns
/// catalog.json gives (or whose YAML types every column, or dbt's
/// warehouse has): declared as a source reading the relation dbt built, so
/// the models reading it still convert (and run against dbt's warehouse).
#[allow(clippy::too_many_arguments)]
fn declare_from_catalog(
    m: &ModelFile,
    project: &Project,
    catalog: Option<&Catalog>,
    manifest: Option<&Manifest>,
    reader: &mut Reader,
    known: &mut BTreeMap<String, RelInfo>,
    decls: &mut BTreeMap<String, Decl>,
    outcome: &mut Outcome,
) {
    if names::refusal(&m.name).is_some() {
        return;
    }
    let config = project.model_config(m);
    if config.get("materialized").and_then(Value::as_str) == Some("ephemeral") {
        // dbt builds no relation to read.
        return;
    }
    let built = reader
        .warehouse
        .as_ref()
        .map(|w| built_at(manifest, w, &m.name, &config));
    let from_yaml: Option<Vec<(String, String)>> =
        project.props.models.get(&m.name).and_then(|p| {
            if p.columns.is_empty() {
                return None;
            }
            p.columns
                .iter()
                .map(|c| c.data_type.clone().map(|t| (c.name.clone(), t)))
                .collect()
        });
    let cols = catalog
        .and_then(|c| c.nodes.get(&m.name).cloned())
        .or(from_yaml)
        .or_else(|| {
            let (schema, table) = built.as_ref()?;
            reader.columns(schema, table)?.ok()
        });
    let Some(cols) = cols else { return };
    let mut lines = String::new();
    let mut infos = Vec::new();
    for (n, t) in &cols {
        let Ok(ty) = types::from_warehouse(t) else {
            return;
        };
        if names::refusal(n).is_some() {
            return;
        }
        lines.push_str(&format!(
            "    {}: {}\n",
            names::written(n),
            types::declared(&ty).unwrap_or_else(|| "string".into())
        ));
        infos.push(ColInfo {
            name: n.clone(),
            ty: Some(ty),
        });
    }
    let place = match &built {
        Some((schema, table)) => format!(
            "schema: {}, table: {}",
            quote(&TableName::bare(schema).to_string()),
            quote(&TableName::bare(table).to_string())
        ),
        None => format!("ns: {}, dataset: {}", quote("dbt"), quote(&m.name)),
    };
    let text = format!(
        "# The model {} needs review (IMPORT.md): its readers read the table dbt builds.\nsource {}({place}) {{\n  columns: {{\n{lines}  }}\n}}\n",
        m.rel,
        names::written(&m.name),
    );
    decls.insert(m.name.clone(), Decl::Source(text));
    known.insert(
        m.name.clone(),
        RelInfo {
            columns: infos,
            is_model: false,
        },
    );
    outcome.declared_as_source = true;
}
