//! The import, start to end: read the project, type its seeds and
//! sources, render every model, order them, translate each (its helpers
//! first) and check it with strata's checker, decide its joins' promises,
//! carry its tests, and assemble the module files and the report.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde_json::{Map, Value};
use strata_lang::ir;
use strata_lang::types::Type;

use crate::catalog::{relation_key, Catalog, Manifest};
use crate::check::{self, Decl};
use crate::error::Failure;
use crate::evidence::{Fact, Facts};
use crate::jinja::{Dep, Renderer};
use crate::names::{self, quote};
use crate::plan::ModelPlan;
use crate::project::{Loc, ModelFile, Project, ReadOptions, TestSpec};
use crate::promises::{self, Carried, Pin};
use crate::report::{JoinEntry, ModelEntry, Reason, Report, SeedEntry, Status, Summary, TestEntry};
use crate::seeds;
use crate::sql::{self, ColInfo, Named, RelInfo};
use crate::types;

/// What to import.
#[derive(Clone, Debug, Default)]
pub struct Options {
    pub project: PathBuf,
    /// `--vars`: a YAML or JSON mapping.
    pub vars: Option<String>,
    pub profiles_dir: Option<PathBuf>,
    /// Where dbt wrote `manifest.json` / `catalog.json` (default
    /// `<project>/target`).
    pub target_path: Option<PathBuf>,
    /// Render the Jinja even when `manifest.json` has compiled SQL.
    pub ignore_manifest: bool,
    /// The directory the module will be written to (for the seeds'
    /// relative paths); `None`: the paths are relative to the project.
    pub output: Option<PathBuf>,
}

/// The result: module files (relative path, formatted text) and report.
#[derive(Debug)]
pub struct Import {
    pub files: Vec<(String, String)>,
    pub report: Report,
}

/// The name of the pipeline that runs on the seeds.
pub const PIPELINE: &str = "seeds";

/// Per dbt model, what the import made of it.
#[derive(Debug, Default)]
struct Outcome {
    status: Option<Status>,
    reasons: Vec<Reason>,
    notes: Vec<Reason>,
    plans: Vec<ModelPlan>,
    /// Checked output columns of the main model.
    columns: Vec<ir::Column>,
    /// Test models and their blocks.
    extra: Vec<ModelPlan>,
    contract: Option<String>,
    tests: Vec<String>,
    /// Models its test blocks read (`expect c in m.f`).
    test_refs: Vec<String>,
    declared_as_source: bool,
    deps: Vec<Dep>,
}

/// Import a dbt project. Every module written is checked whole; a model
/// whose file would not check (which the per-model check should already
/// have caught) is needs review instead, and the import is redone.
pub fn import(options: &Options) -> Result<Import, Failure> {
    let mut forced: BTreeMap<String, String> = BTreeMap::new();
    for _ in 0..8 {
        let result = import_once(options, &forced)?;
        let failing = final_check(&result);
        if failing.is_empty() {
            return Ok(result);
        }
        let before = forced.len();
        for (model, why) in failing {
            forced.entry(model).or_insert(why);
        }
        if forced.len() == before {
            break;
        }
    }
    let mut result = import_once(options, &forced)?;
    for (file, why) in final_check(&result) {
        result.report.notes.push(Reason::new(
            format!("the module does not check: {why}"),
            file,
            0,
        ));
    }
    Ok(result)
}

/// Check the assembled module in memory: per dbt model (by its file's
/// name) the first error, if any.
fn final_check(result: &Import) -> Vec<(String, String)> {
    let dir = PathBuf::from("/import-dbt-check");
    let mut options = strata_lang::LoadOptions::default();
    for (path, text) in &result.files {
        options.overlay.insert(dir.join(path), text.clone());
    }
    let root = dir.join(&result.report.root);
    let checked = strata_rules::check_module(strata_rules::ModuleInput::Files(&[root]), &options);
    let mut out: Vec<(String, String)> = Vec::new();
    for d in checked.diagnostics.iter().filter(|d| d.is_error()) {
        let file = checked.sources.get(d.span.file).path.clone();
        let stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !out.iter().any(|(m, _)| *m == stem) {
            out.push((stem, format!("{} {}", d.code, d.message)));
        }
    }
    for (path, why) in &checked.io_errors {
        out.push((path.display().to_string(), why.clone()));
    }
    out
}

fn import_once(options: &Options, forced: &BTreeMap<String, String>) -> Result<Import, Failure> {
    let project = Project::read(
        &options.project,
        &ReadOptions {
            vars: options.vars.clone(),
            profiles_dir: options.profiles_dir.clone(),
        },
    )?;
    let target = options
        .target_path
        .clone()
        .unwrap_or_else(|| project.root.join("target"));
    let manifest = if options.ignore_manifest {
        None
    } else {
        Manifest::read(&target)?
    };
    let catalog = Catalog::read(&target)?;
    let mut report = Report {
        root: String::new(),
        pipeline: PIPELINE.into(),
        project: project.name.clone(),
        adapter: project.adapter.clone(),
        adapter_from: project.adapter_from.clone(),
        compiled_from_manifest: manifest.as_ref().is_some_and(|m| !m.compiled.is_empty()),
        models: Vec::new(),
        joins: Vec::new(),
        tests: Vec::new(),
        seeds: Vec::new(),
        notes: Vec::new(),
        summary: Summary::default(),
    };

    // Everything a helper or test model may not be named.
    let mut taken: BTreeSet<String> = BTreeSet::new();
    for m in &project.models {
        taken.insert(m.name.clone());
    }
    for s in &project.seeds {
        taken.insert(s.name.clone());
    }

    let mut known: BTreeMap<String, RelInfo> = BTreeMap::new();
    let mut decls: BTreeMap<String, Decl> = BTreeMap::new();
    let mut problems: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut facts = Facts::default();
    let mut source_texts: Vec<(String, String)> = Vec::new();
    let mut seed_paths: BTreeMap<String, PathBuf> = BTreeMap::new();

    // Seeds, typed as strata will read them.
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
                    lines.push_str(&format!("    {}: {decl}\n", c.name));
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
                seed.name,
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

    // dbt sources: typed by their YAML `data_type`, else catalog.json.
    let mut source_names: BTreeMap<(String, String), String> = BTreeMap::new();
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
                        "    {n}: {}\n",
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
                "# dbt source {src}.{tbl} ({})\nsource {name}(ns: {}, dataset: {}) {{\n  columns: {{\n{lines}  }}\n}}\n",
                t.loc,
                quote(t.schema.as_deref().unwrap_or(src)),
                quote(t.identifier.as_deref().unwrap_or(tbl)),
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

    // Uniqueness the seeds' and sources' own tests prove.
    for (name, props) in &project.props.seeds {
        for f in test_facts(
            &props.loc.file,
            &props.columns,
            &props.tests,
            &props.constraints,
        ) {
            facts.add(name, f);
        }
    }
    for ((src, tbl), t) in &project.props.sources {
        if let Some(n) = source_names.get(&(src.clone(), tbl.clone())) {
            for f in test_facts(&t.loc.file, &t.columns, &t.tests, &[]) {
                facts.add(n, f);
            }
        }
    }

    // Render every model.
    let renderer = Renderer::new(&project);
    for (file, line, msg) in &renderer.broken {
        report.notes.push(Reason::new(
            format!("this macro file does not parse, so its macros are not available: {msg}"),
            file.clone(),
            *line,
        ));
    }
    let compiled = manifest.as_ref().map(|m| &m.compiled);
    let renders: Vec<_> = project
        .models
        .par_iter()
        .map(|m| {
            if m.python {
                return None;
            }
            Some(renderer.render(&m.name, &m.rel, &m.text))
        })
        .collect();

    let by_name: BTreeMap<&str, usize> = project
        .models
        .iter()
        .enumerate()
        .map(|(i, m)| (m.name.as_str(), i))
        .collect();
    let mut outcomes: Vec<Outcome> = (0..project.models.len())
        .map(|_| Outcome::default())
        .collect();
    let mut sql_of: Vec<Option<String>> = vec![None; project.models.len()];
    for (i, m) in project.models.iter().enumerate() {
        let o = &mut outcomes[i];
        let mut config = project.model_config(m);
        match &renders[i] {
            None => o.reasons.push(Reason::new(
                "a Python model: strata models are declarative",
                m.rel.clone(),
                1,
            )),
            Some(Ok(r)) => {
                config.extend(r.config.clone());
                o.deps = r.deps.clone();
                sql_of[i] = Some(r.sql.clone());
            }
            Some(Err(f)) => {
                o.deps = f.deps.clone();
                o.reasons.push(Reason::new(
                    f.message.clone(),
                    f.loc.file.clone(),
                    f.loc.line,
                ));
            }
        }
        // dbt compiled it: its SQL is the input (and a Jinja problem of
        // ours no longer matters) — except for an incremental model, whose
        // compiled SQL may read its own earlier rows: strata rebuilds it in
        // full, from the Jinja rendered with is_incremental() false.
        let incremental = config.get("materialized").and_then(Value::as_str) == Some("incremental");
        if let Some(c) = compiled.and_then(|c| c.get(&m.name)) {
            if !incremental || sql_of[i].is_none() {
                sql_of[i] = Some(c.clone());
                o.reasons
                    .retain(|r| r.message.starts_with("a Python model"));
                if let Some(d) = manifest.as_ref().and_then(|mf| mf.deps.get(&m.name)) {
                    o.deps = d.clone();
                }
            }
        }
        if config.get("enabled").and_then(Value::as_bool) == Some(false) {
            o.status = Some(Status::Disabled);
            o.reasons = vec![Reason::new("disabled in its config", m.rel.clone(), 0)];
            continue;
        }
        if let Some(why) = names::refusal(&m.name) {
            o.reasons
                .push(Reason::new(format!("model name: {why}"), m.rel.clone(), 0));
        }
        let same_name: Vec<&str> = project
            .models
            .iter()
            .filter(|x| x.name == m.name && x.rel != m.rel)
            .map(|x| x.rel.as_str())
            .collect();
        if !same_name.is_empty() || project.seeds.iter().any(|s| s.name == m.name) {
            o.reasons.push(Reason::new(
                format!(
                    "another model or seed has the name `{}` ({}): dbt refuses the project",
                    m.name,
                    if same_name.is_empty() {
                        "a seed".to_string()
                    } else {
                        same_name.join(", ")
                    }
                ),
                m.rel.clone(),
                0,
            ));
        }
        if project
            .props
            .models
            .get(&m.name)
            .is_some_and(|p| p.versioned)
        {
            o.reasons.push(Reason::new(
                "a versioned model (`versions:`): not converted",
                m.rel.clone(),
                0,
            ));
        }
        match config.get("materialized").and_then(Value::as_str) {
            Some("incremental") => o.notes.push(Reason::new(
                "materialized incremental in dbt: converted as a model rebuilt in full ({% if is_incremental() %} blocks left out); strata's `incremental` needs a cdc column, add it by hand",
                m.rel.clone(),
                0,
            )),
            Some("ephemeral") => o.notes.push(Reason::new(
                "ephemeral in dbt: a model of its own in strata",
                m.rel.clone(),
                0,
            )),
            _ => {}
        }
    }

    // Resolve dependencies; order the models; find cycles.
    let enabled = |i: usize, outcomes: &[Outcome]| outcomes[i].status != Some(Status::Disabled);
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); project.models.len()];
    for i in 0..project.models.len() {
        if !enabled(i, &outcomes) {
            continue;
        }
        let deps = outcomes[i].deps.clone();
        let m = &project.models[i];
        for d in &deps {
            match d {
                Dep::Ref(n) => match by_name.get(n.as_str()) {
                    Some(&j) if enabled(j, &outcomes) => {
                        if !edges[i].contains(&j) {
                            edges[i].push(j);
                        }
                    }
                    Some(_) => outcomes[i].reasons.push(Reason::new(
                        format!("ref('{n}') names a disabled model"),
                        m.rel.clone(),
                        line_with(&m.text, n),
                    )),
                    None if project.seeds.iter().any(|s| &s.name == n) => {}
                    None => outcomes[i].reasons.push(Reason::new(
                        format!("ref('{n}') names no model or seed of this project"),
                        m.rel.clone(),
                        line_with(&m.text, n),
                    )),
                },
                Dep::Source(s, t) => {
                    if !source_names.contains_key(&(s.clone(), t.clone())) {
                        outcomes[i].reasons.push(Reason::new(
                            format!("source('{s}', '{t}') is not declared in any YAML file"),
                            m.rel.clone(),
                            line_with(&m.text, t),
                        ));
                    }
                }
            }
        }
    }
    let order = topo_order(&edges, &project.models, &mut outcomes, |i, o| enabled(i, o));

    // Translate, check and audit each model, upstream first.
    let dialect = sql::dialect(&project.adapter);
    let duckdb = project.adapter == "duckdb";
    let relations = manifest.as_ref().map(|m| &m.relations);
    for &i in &order {
        let m = &project.models[i];
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
                    (true, None) => format!("reads the model `{node_name}`, which needs review"),
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
            declare_from_catalog(
                m,
                &project,
                catalog.as_ref(),
                &mut known,
                &mut decls,
                &mut outcomes[i],
            );
            continue;
        }
        let Some(sql_text) = sql_of[i].clone() else {
            outcomes[i].status = Some(Status::NeedsReview);
            continue;
        };
        let resolve =
            |parts: &[String]| resolve_name(parts, &by_name, &project, &source_names, relations, m);
        let cx = sql::Context {
            model: &m.name,
            known: &known,
            taken: &taken,
            resolve: &resolve,
            duckdb,
        };
        let translated = sql::translate(&sql_text, dialect.as_ref(), &cx);
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
                declare_from_catalog(
                    m,
                    &project,
                    catalog.as_ref(),
                    &mut known,
                    &mut decls,
                    &mut outcomes[i],
                );
                continue;
            }
        };
        // The model's own tests prove what it is unique on: known before
        // its joins' promises are decided (they concern its readers).
        for p in plans.iter_mut() {
            facts.plan(p);
        }
        if let Some(props) = project.props.models.get(&m.name) {
            for f in test_facts(
                &props.loc.file,
                &props.columns,
                &props.tests,
                &props.constraints,
            ) {
                facts.add(&m.name, f);
            }
        }
        match check::check_plans(&plans, "", &decls) {
            Ok(cols) => {
                for p in &plans {
                    let Some(c) = cols.get(&p.name) else { continue };
                    decls.insert(p.name.clone(), Decl::Model(c.clone()));
                    known.insert(
                        p.name.clone(),
                        RelInfo {
                            columns: c
                                .iter()
                                .map(|c| ColInfo {
                                    name: c.name.to_string(),
                                    ty: Some(c.ty.clone()),
                                })
                                .collect(),
                            is_model: true,
                        },
                    );
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
                for p in &plans {
                    facts.by_relation.remove(&p.name);
                }
                declare_from_catalog(
                    m,
                    &project,
                    catalog.as_ref(),
                    &mut known,
                    &mut decls,
                    &mut outcomes[i],
                );
            }
        }
    }

    // Tests: of seeds, sources and models.
    let converted: BTreeSet<String> = project
        .models
        .iter()
        .zip(&outcomes)
        .filter(|(_, o)| o.status == Some(Status::Converted))
        .map(|(m, _)| m.name.clone())
        .collect();
    let mut extra_seed_tests: Vec<ModelPlan> = Vec::new();
    let mut extra_seed_blocks: Vec<String> = Vec::new();
    let mut tested: Vec<Tested> = Vec::new();
    for (name, props) in &project.props.seeds {
        tested.push((
            name.clone(),
            None,
            all_tests(
                &props.loc.file,
                &props.columns,
                &props.tests,
                &props.constraints,
            ),
            ref_marker(name),
        ));
    }
    for ((src, tbl), t) in &project.props.sources {
        let n = source_names
            .get(&(src.clone(), tbl.clone()))
            .cloned()
            .unwrap_or_default();
        tested.push((
            n,
            None,
            all_tests(&t.loc.file, &t.columns, &t.tests, &[]),
            format!("\"$source${src}${tbl}\""),
        ));
    }
    for (i, m) in project.models.iter().enumerate() {
        if outcomes[i].status == Some(Status::Disabled) {
            continue;
        }
        if let Some(props) = project.props.models.get(&m.name) {
            tested.push((
                m.name.clone(),
                Some(i),
                all_tests(
                    &props.loc.file,
                    &props.columns,
                    &props.tests,
                    &props.constraints,
                ),
                ref_marker(&m.name),
            ));
        }
    }
    // Singular tests: queries of failing rows already.
    let singular: Vec<(ModelFile, Result<String, Reason>)> = project
        .singular_tests
        .iter()
        .map(|t| {
            let sql = renderer
                .render(&t.name, &t.rel, &t.text)
                .map(|r| r.sql)
                .map_err(|f| Reason::new(f.message, f.loc.file, f.loc.line));
            (t.clone(), sql)
        })
        .collect();

    for (relation, model_index, tests, marker) in &tested {
        if !decls.contains_key(relation) {
            let why = match model_index {
                Some(_) => {
                    format!("`{relation}` needs review: its tests are carried once it converts")
                }
                None => format!(
                    "strata cannot read `{relation}`: {}",
                    problems
                        .get(relation)
                        .map(|p| p.join("; "))
                        .unwrap_or_default()
                ),
            };
            for (col, spec) in tests {
                report.tests.push(TestEntry {
                    relation: relation.clone(),
                    column: col.clone(),
                    test: spec.name.clone(),
                    carried_as: "not_carried".into(),
                    detail: why.clone(),
                    file: spec.loc.file.clone(),
                    line: spec.loc.line,
                });
            }
            continue;
        }
        let is_model = model_index.is_some_and(|i| outcomes[i].status == Some(Status::Converted));
        let cols: Vec<ir::Column> = model_index
            .map(|i| outcomes[i].columns.clone())
            .unwrap_or_default();
        let nonnull = |c: &str| cols.iter().any(|x| x.name == c && !x.nullable);
        let is_string = |c: &str| cols.iter().any(|x| x.name == c && x.ty == Type::String);
        let model_of = |d: &Dep| match d {
            Dep::Ref(n) if converted.contains(n) => Some(n.clone()),
            _ => None,
        };
        let marker_of = |d: &Dep| match d {
            Dep::Ref(n) => ref_marker(n),
            Dep::Source(s, t) => format!("\"$source${s}${t}\""),
        };
        let t = promises::Tested {
            marker: marker.clone(),
            is_model,
            nonnull: &nonnull,
            is_string: &is_string,
            model_of: &model_of,
            marker_of: &marker_of,
        };
        let mut pins: BTreeMap<String, Vec<Pin>> = BTreeMap::new();
        for (col, spec) in tests {
            let d = promises::decide(spec, col.as_deref(), &t);
            let (carried_as, detail) = match &d.carried {
                Carried::Pin(p) => {
                    let c = d.column.clone().unwrap_or_default();
                    pins.entry(c).or_default().push(p.clone());
                    (
                        "pin".to_string(),
                        format!(
                            "contract {} of `{relation}`",
                            match p {
                                Pin::Nonnull => "`nonnull`".to_string(),
                                Pin::Unique => "`unique`".to_string(),
                                Pin::Enum(v) => format!("`enum {{ {} }}`", v.join(", ")),
                            }
                        ),
                    )
                }
                Carried::In { model, field } => {
                    let c = d.column.clone().unwrap_or_default();
                    let block =
                        format!("test {relation} {{\n  expect {c} in {model}.{field}\n}}\n");
                    if let Some(i) = model_index {
                        outcomes[*i].tests.push(block);
                        outcomes[*i].test_refs.push(model.clone());
                    }
                    (
                        "test".to_string(),
                        format!("`expect {c} in {model}.{field}`"),
                    )
                }
                Carried::FailingRows { sql: q, warn } => {
                    let base = names::helper(relation, &d.slug);
                    match failing_rows(
                        q,
                        &base,
                        &mut known,
                        &mut decls,
                        &mut taken,
                        &by_name,
                        &project,
                        &source_names,
                        &*dialect,
                        duckdb,
                        &mut facts,
                    ) {
                        Ok(plans) => {
                            let name = plans.last().map(|p| p.name.clone()).unwrap_or_default();
                            let block = format!(
                                "{}test {name} {{\n  expect row_count == 0\n}}\n",
                                if *warn {
                                    "# dbt severity: warn — strata has no warning-level test, so this one is not asserted:\n# "
                                } else {
                                    ""
                                }
                            );
                            let block = if *warn {
                                block
                                    .replacen("test ", "# test ", 1)
                                    .replace("\n  expect", "\n#   expect")
                                    .replace("\n}\n", "\n# }\n")
                            } else {
                                block
                            };
                            match model_index {
                                Some(i) if outcomes[*i].status == Some(Status::Converted) => {
                                    outcomes[*i].extra.extend(plans);
                                    outcomes[*i].tests.push(block);
                                }
                                _ => {
                                    extra_seed_tests.extend(plans);
                                    extra_seed_blocks.push(block);
                                }
                            }
                            if *warn {
                                ("warning".to_string(), format!("model `{name}` of the failing rows; severity warn: not asserted (strata has no warning-level test)"))
                            } else {
                                ("failing_rows".to_string(), format!("model `{name}` of the failing rows, `expect row_count == 0`"))
                            }
                        }
                        Err(why) => ("not_carried".to_string(), why),
                    }
                }
                Carried::Not(why) => ("not_carried".to_string(), why.clone()),
            };
            report.tests.push(TestEntry {
                relation: relation.clone(),
                column: d.column.clone(),
                test: d.test.clone(),
                carried_as,
                detail,
                file: d.loc.file.clone(),
                line: d.loc.line,
            });
        }
        if let (Some(i), false) = (model_index, pins.is_empty()) {
            outcomes[*i].contract = Some(contract_text(relation, &pins, &cols));
        }
    }
    for (t, sql_text) in &singular {
        let base = format!("test__{}", t.name);
        let carried = match sql_text {
            Err(r) => Err(r.message.clone()),
            Ok(q) => failing_rows(
                q,
                &base,
                &mut known,
                &mut decls,
                &mut taken,
                &by_name,
                &project,
                &source_names,
                &*dialect,
                duckdb,
                &mut facts,
            ),
        };
        let (carried_as, detail) = match carried {
            Ok(plans) => {
                let name = plans.last().map(|p| p.name.clone()).unwrap_or_default();
                extra_seed_blocks.push(format!("test {name} {{\n  expect row_count == 0\n}}\n"));
                extra_seed_tests.extend(plans);
                (
                    "failing_rows".to_string(),
                    format!("model `{name}` of the failing rows, `expect row_count == 0`"),
                )
            }
            Err(why) => ("not_carried".to_string(), why),
        };
        report.tests.push(TestEntry {
            relation: t.name.clone(),
            column: None,
            test: "singular test".into(),
            carried_as,
            detail,
            file: t.rel.clone(),
            line: 1,
        });
    }
    for u in &project.props.unit_tests {
        report.tests.push(TestEntry {
            relation: u.model.clone(),
            column: None,
            test: format!("unit test {}", u.name),
            carried_as: "not_carried".into(),
            detail: "dbt unit tests (given rows, expected rows) are not converted yet: strata has no fixture-row tests".into(),
            file: u.loc.file.clone(),
            line: u.loc.line,
        });
    }

    // The files.
    let root_name = {
        let base = format!("{}.strata", project.name);
        if by_name.contains_key(project.name.as_str())
            || project.name == "_sources"
            || project.name == "_tests"
            || names::refusal(&project.name).is_some()
        {
            "main.strata".to_string()
        } else {
            base
        }
    };
    report.root = root_name.clone();
    let out_dir = options
        .output
        .clone()
        .unwrap_or_else(|| project.root.clone());
    let (files, in_pipeline) = assemble(
        &project,
        &outcomes,
        &source_texts,
        &extra_seed_tests,
        &extra_seed_blocks,
        &seed_paths,
        &decls,
        &root_name,
        &out_dir,
    );

    for (i, m) in project.models.iter().enumerate() {
        let o = &outcomes[i];
        let status = o.status.unwrap_or(Status::NeedsReview);
        let mut reasons = o.reasons.clone();
        if status == Status::NeedsReview && reasons.is_empty() {
            reasons.push(Reason::new("not converted", m.rel.clone(), 0));
        }
        report.models.push(ModelEntry {
            name: m.name.clone(),
            status,
            reasons,
            notes: o.notes.clone(),
            file: m.rel.clone(),
            strata_file: (status == Status::Converted).then(|| format!("{}.strata", m.name)),
            helpers: o
                .plans
                .iter()
                .filter(|p| p.name != m.name)
                .map(|p| p.name.clone())
                .collect(),
            in_pipeline: in_pipeline.contains(&m.name),
            declared_as_source: o.declared_as_source,
        });
        for p in &o.plans {
            for j in p.joins() {
                report.joins.push(JoinEntry {
                    model: m.name.clone(),
                    strata_model: p.name.clone(),
                    kind: j.kind.keyword().trim_start_matches("join_").to_string(),
                    left: p.from.clone(),
                    right: j.input.clone(),
                    keys: j.keys.as_ref().map(|k| k.right()).unwrap_or_default(),
                    left_keys: j.keys.as_ref().map(|k| k.left()).unwrap_or_default(),
                    promise: j.promise.map(|p| p.as_str().to_string()),
                    evidence: j.evidence.clone(),
                    file: m.rel.clone(),
                    line: map_line(sql_of[i].as_deref().unwrap_or(""), &m.text, j.line).0,
                });
            }
        }
    }
    report.summarize();
    Ok(Import { files, report })
}

/// A tested relation: its strata name, its model (when it is one), its
/// tests with the columns they are written under, and how SQL reads it.
type Tested = (
    String,
    Option<usize>,
    Vec<(Option<String>, TestSpec)>,
    String,
);

/// Relation names of compiled SQL to models and seeds (`Ok`) or sources.
type Relations = BTreeMap<String, Result<String, (String, String)>>;

/// `"$ref$name"`.
fn ref_marker(name: &str) -> String {
    format!("\"$ref${}\"", name.replace('"', "\"\""))
}

/// A description as comment lines.
fn comment(text: &str) -> String {
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

/// Every test of an entry with the column it is written under; column
/// constraints count as the tests of the same names (a primary key as
/// both `unique` and `not_null`).
fn all_tests(
    file: &str,
    columns: &[crate::project::ColumnProps],
    tests: &[TestSpec],
    constraints: &[crate::project::Constraint],
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
                    .unwrap_or_default(),
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
fn test_facts(
    file: &str,
    columns: &[crate::project::ColumnProps],
    tests: &[TestSpec],
    constraints: &[crate::project::Constraint],
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

/// The line of `text` mentioning `needle` in a `ref`/`source` call.
fn line_with(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(&format!("'{needle}'")) || l.contains(&format!("\"{needle}\"")))
        .map_or(0, |i| i + 1)
}

/// A line of the rendered SQL as a line of the model's file: the one line
/// of the file with the same text — or, where the file has Jinja
/// (`{{ ... }}`), whose text around it matches — and whether it was
/// found (else the same number).
fn map_line(rendered: &str, source: &str, line: usize) -> (usize, bool) {
    if line == 0 {
        return (0, false);
    }
    let Some(text) = rendered.lines().nth(line - 1).map(str::trim) else {
        return (line, false);
    };
    if text.is_empty() {
        return (line, false);
    }
    let find = |matches: &dyn Fn(&str) -> bool| -> Vec<usize> {
        source
            .lines()
            .enumerate()
            .filter(|(_, l)| matches(l.trim()))
            .map(|(i, _)| i + 1)
            .collect()
    };
    for found in [
        find(&|l| l == text),
        find(&|l| l.contains("{{") && template_matches(l, text)),
    ] {
        if found.len() == 1 {
            return (found[0], true);
        }
        if found.contains(&line) {
            return (line, true);
        }
    }
    (line, false)
}

/// Whether `rendered` is `template` with each `{{ ... }}` replaced by
/// some text.
fn template_matches(template: &str, rendered: &str) -> bool {
    let mut literals: Vec<&str> = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find("{{") {
        literals.push(&rest[..i]);
        match rest[i..].find("}}") {
            Some(j) => rest = &rest[i + j + 2..],
            None => return false,
        }
    }
    literals.push(rest);
    let (Some(first), Some(last), true) = (literals.first(), literals.last(), literals.len() >= 2)
    else {
        return false;
    };
    if !rendered.starts_with(first)
        || !rendered.ends_with(last)
        || rendered.len() < first.len() + last.len()
    {
        return false;
    }
    let mut at = first.len();
    let end = rendered.len() - last.len();
    for lit in &literals[1..literals.len() - 1] {
        match rendered[at..end].find(lit) {
            Some(i) => at += i + lit.len(),
            None => return false,
        }
    }
    true
}

/// Resolve a relation name of a model's SQL.
fn resolve_name(
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

/// Models in dependency order; models in or behind a cycle are marked
/// needs review.
fn topo_order(
    edges: &[Vec<usize>],
    models: &[ModelFile],
    outcomes: &mut [Outcome],
    enabled: impl Fn(usize, &[Outcome]) -> bool,
) -> Vec<usize> {
    let n = edges.len();
    let mut indegree = vec![0usize; n];
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, deps) in edges.iter().enumerate() {
        for &d in deps {
            indegree[i] += 1;
            readers[d].push(i);
        }
    }
    // Deterministic: by name among the ready ones.
    let mut ready: BTreeSet<(String, usize)> = (0..n)
        .filter(|&i| indegree[i] == 0 && enabled(i, outcomes))
        .map(|i| (models[i].name.clone(), i))
        .collect();
    let mut order = Vec::new();
    while let Some(first) = ready.iter().next().cloned() {
        ready.remove(&first);
        let i = first.1;
        order.push(i);
        for &r in &readers[i] {
            indegree[r] -= 1;
            if indegree[r] == 0 && enabled(r, outcomes) {
                ready.insert((models[r].name.clone(), r));
            }
        }
    }
    let done: BTreeSet<usize> = order.iter().copied().collect();
    let left: Vec<usize> = (0..n)
        .filter(|i| !done.contains(i) && enabled(*i, outcomes))
        .collect();
    for &i in &left {
        // A cycle through i: follow edges among the left ones.
        let cycle = find_cycle(i, edges, &left);
        let message = match cycle {
            Some(c) => format!(
                "the models form a cycle: {}",
                c.iter()
                    .map(|&k| models[k].name.as_str())
                    .collect::<Vec<_>>()
                    .join(" -> ")
            ),
            None => "reads a model that is part of a cycle".to_string(),
        };
        outcomes[i]
            .reasons
            .push(Reason::new(message, models[i].rel.clone(), 0));
        order.push(i);
    }
    order
}

fn find_cycle(start: usize, edges: &[Vec<usize>], among: &[usize]) -> Option<Vec<usize>> {
    // Breadth-first from start's dependencies back to start.
    let mut prev: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::new();
    for &d in &edges[start] {
        if among.contains(&d) && !prev.contains_key(&d) {
            prev.insert(d, start);
            queue.push_back(d);
        }
    }
    while let Some(x) = queue.pop_front() {
        if x == start {
            let mut path = vec![start];
            let mut cur = prev.get(&start).copied()?;
            while cur != start {
                path.push(cur);
                cur = *prev.get(&cur)?;
            }
            path.push(start);
            path.reverse();
            return Some(path);
        }
        for &d in &edges[x] {
            if among.contains(&d) && !prev.contains_key(&d) {
                prev.insert(d, x);
                queue.push_back(d);
            }
        }
    }
    None
}

/// A model that needs review but whose columns catalog.json gives (or
/// whose YAML types every column): declared as a source reading the table
/// dbt builds, so the models reading it still convert.
fn declare_from_catalog(
    m: &ModelFile,
    project: &Project,
    catalog: Option<&Catalog>,
    known: &mut BTreeMap<String, RelInfo>,
    decls: &mut BTreeMap<String, Decl>,
    outcome: &mut Outcome,
) {
    if names::refusal(&m.name).is_some() {
        return;
    }
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
        .or(from_yaml);
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
            "    {n}: {}\n",
            types::declared(&ty).unwrap_or_else(|| "string".into())
        ));
        infos.push(ColInfo {
            name: n.clone(),
            ty: Some(ty),
        });
    }
    let text = format!(
        "# The model {} needs review (IMPORT.md): its readers read the table dbt builds.\nsource {}(ns: {}, dataset: {}) {{\n  columns: {{\n{lines}  }}\n}}\n",
        m.rel,
        m.name,
        quote("dbt"),
        quote(&m.name)
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

/// Translate and check a test's query of failing rows: its models.
#[allow(clippy::too_many_arguments)]
fn failing_rows(
    sql_text: &str,
    name: &str,
    known: &mut BTreeMap<String, RelInfo>,
    decls: &mut BTreeMap<String, Decl>,
    taken: &mut BTreeSet<String>,
    by_name: &BTreeMap<&str, usize>,
    project: &Project,
    sources: &BTreeMap<(String, String), String>,
    dialect: &dyn sqlparser::dialect::Dialect,
    duckdb: bool,
    facts: &mut Facts,
) -> Result<Vec<ModelPlan>, String> {
    let mut name = name.to_string();
    let mut k = 2;
    while taken.contains(&name) || known.contains_key(&name) {
        name = format!("{}_{k}", name.trim_end_matches(&format!("_{}", k - 1)));
        k += 1;
    }
    if let Some(why) = names::refusal(&name) {
        return Err(why);
    }
    let model = ModelFile {
        name: name.clone(),
        rel: String::new(),
        fqn: Vec::new(),
        text: String::new(),
        python: false,
    };
    let resolve = |parts: &[String]| resolve_name(parts, by_name, project, sources, None, &model);
    let cx = sql::Context {
        model: &name,
        known,
        taken,
        resolve: &resolve,
        duckdb,
    };
    let mut plans = sql::translate(sql_text, dialect, &cx)
        .map_err(|r| format!("its query of failing rows does not convert: {}", r.message))?
        .plans;
    for p in plans.iter_mut() {
        facts.plan(p);
    }
    for p in &plans {
        if !decls.contains_key(&p.from) && !plans.iter().any(|q| q.name == p.from) {
            return Err(format!("it reads `{}`, which needs review", p.from));
        }
    }
    let cols = check::check_plans(&plans, "", decls)
        .map_err(|e| format!("its query of failing rows does not check: {}", e.join("; ")))?;
    for p in &plans {
        if let Some(c) = cols.get(&p.name) {
            decls.insert(p.name.clone(), Decl::Model(c.clone()));
            known.insert(
                p.name.clone(),
                RelInfo {
                    columns: c
                        .iter()
                        .map(|c| ColInfo {
                            name: c.name.to_string(),
                            ty: Some(c.ty.clone()),
                        })
                        .collect(),
                    is_model: true,
                },
            );
        }
        taken.insert(p.name.clone());
    }
    Ok(plans)
}

/// The contract of a model's pins.
fn contract_text(model: &str, pins: &BTreeMap<String, Vec<Pin>>, cols: &[ir::Column]) -> String {
    let mut s = format!("contract {} {{\n", contract_name(model));
    for c in cols {
        let Some(p) = pins.get(c.name.as_str()) else {
            continue;
        };
        let Some(ty) = types::declared(&c.ty) else {
            continue;
        };
        let nonnull = p.contains(&Pin::Nonnull);
        let unique = p.contains(&Pin::Unique);
        let mut flags = Vec::new();
        match (nonnull, unique) {
            (true, true) => flags.push("primary_key".to_string()),
            (true, false) => flags.push("nonnull".to_string()),
            (false, true) => flags.push("unique".to_string()),
            _ => {}
        }
        for pin in p {
            if let Pin::Enum(values) = pin {
                flags.push(format!(
                    "enum {{ {} }}",
                    values
                        .iter()
                        .map(|v| quote(v))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
        }
        s.push_str(&format!("  {}: {ty} {}\n", c.name, flags.join(" ")));
    }
    s.push_str("}\n");
    s
}

/// The contract of model `stg_orders`: `StgOrders`.
pub fn contract_name(model: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in model.chars() {
        if c == '_' {
            upper = true;
            continue;
        }
        if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, 'C');
    }
    out
}

/// The module's files and the models the `seeds` pipeline runs.
#[allow(clippy::too_many_arguments)]
fn assemble(
    project: &Project,
    outcomes: &[Outcome],
    source_texts: &[(String, String)],
    seed_tests: &[ModelPlan],
    seed_blocks: &[String],
    seed_paths: &BTreeMap<String, PathBuf>,
    decls: &BTreeMap<String, Decl>,
    root_name: &str,
    out_dir: &Path,
) -> (Vec<(String, String)>, BTreeSet<String>) {
    let mut files: Vec<(String, String)> = Vec::new();
    let mut imports: Vec<String> = Vec::new();

    // Which file declares each relation (each file imports the files of
    // what it reads: `strata check DIR` checks every file as a module).
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    for (name, _) in source_texts {
        owner.insert(name.clone(), "_sources".into());
    }
    for (i, m) in project.models.iter().enumerate() {
        if outcomes[i].declared_as_source {
            owner.insert(m.name.clone(), "_sources".into());
        }
        for p in outcomes[i].plans.iter().chain(&outcomes[i].extra) {
            owner.insert(p.name.clone(), m.name.clone());
        }
    }
    for p in seed_tests {
        owner.insert(p.name.clone(), "_tests".into());
    }
    let imports_of = |stem: &str, plans: &[&ModelPlan], refs: &[String]| -> String {
        let mut wanted: BTreeSet<&str> = BTreeSet::new();
        for p in plans {
            for i in p.inputs() {
                if let Some(o) = owner.get(i) {
                    wanted.insert(o);
                }
            }
        }
        for r in refs {
            if let Some(o) = owner.get(r) {
                wanted.insert(o);
            }
        }
        wanted.remove(stem);
        wanted.iter().map(|w| format!("import {w}\n")).collect()
    };

    // Sources (seeds, dbt sources, needs-review models read as tables).
    let mut src = String::from("# The seeds and sources of the dbt project, as strata sources.\n");
    for (_, t) in source_texts {
        src.push('\n');
        src.push_str(t);
    }
    for (i, m) in project.models.iter().enumerate() {
        if outcomes[i].declared_as_source {
            if let Some(Decl::Source(t)) = decls.get(&m.name) {
                src.push('\n');
                src.push_str(t);
            }
        }
    }
    files.push(("_sources.strata".into(), src));
    imports.push("_sources".into());
    if !seed_tests.is_empty() || !seed_blocks.is_empty() {
        let plans: Vec<&ModelPlan> = seed_tests.iter().collect();
        let refs: Vec<String> = seed_blocks
            .iter()
            .filter_map(|b| b.split(" in ").nth(1))
            .filter_map(|r| r.split('.').next())
            .map(|r| r.trim().to_string())
            .collect();
        let mut t = String::from(
            "# The tests of the seeds and sources, and the project's singular tests: models of their\n# failing rows, each expected empty.\n\n",
        );
        t.push_str(&imports_of("_tests", &plans, &refs));
        for p in seed_tests {
            t.push('\n');
            t.push_str(&p.to_text());
        }
        for b in seed_blocks {
            t.push('\n');
            t.push_str(b);
        }
        files.push(("_tests.strata".into(), t));
        imports.push("_tests".into());
    }

    // Which models only read seeds (and such models): the pipeline's.
    let seeds: BTreeSet<&str> = seed_paths.keys().map(String::as_str).collect();
    let mut runnable: BTreeSet<String> = BTreeSet::new();
    let mut all_plans: Vec<&ModelPlan> = Vec::new();
    for o in outcomes {
        all_plans.extend(o.plans.iter());
        all_plans.extend(o.extra.iter());
    }
    all_plans.extend(seed_tests.iter());
    // Plans are in dependency order within and across models (upstream
    // first), so one pass decides.
    let mut changed = true;
    while changed {
        changed = false;
        for p in &all_plans {
            if runnable.contains(&p.name) {
                continue;
            }
            if p.inputs()
                .iter()
                .all(|i| seeds.contains(i) || runnable.contains(*i))
            {
                runnable.insert(p.name.clone());
                changed = true;
            }
        }
    }

    for (i, m) in project.models.iter().enumerate() {
        let o = &outcomes[i];
        if o.status != Some(Status::Converted) {
            continue;
        }
        let mut text = format!("# dbt model {}\n\n", m.rel);
        let plans: Vec<&ModelPlan> = o.plans.iter().chain(&o.extra).collect();
        text.push_str(&imports_of(&m.name, &plans, &o.test_refs));
        let props = project.props.models.get(&m.name);
        for p in &o.plans {
            text.push('\n');
            if p.name == m.name {
                let mut p = p.clone();
                if let Some(d) = props.and_then(|p| p.description.clone()) {
                    p.comment.push(project.describe(&d));
                }
                let described: Vec<String> = props
                    .map(|p| {
                        p.columns
                            .iter()
                            .filter_map(|c| {
                                c.description.as_ref().map(|d| {
                                    format!(
                                        "{}: {}",
                                        c.name,
                                        project.describe(d).trim().replace('\n', "\n    ")
                                    )
                                })
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                if !described.is_empty() {
                    p.comment.push(format!(
                        "Columns:\n{}",
                        described
                            .iter()
                            .map(|d| format!("  {d}"))
                            .collect::<Vec<_>>()
                            .join("\n")
                    ));
                }
                if let Some(c) = &o.contract {
                    text.push_str(c);
                    text.push('\n');
                    p.contract = Some(contract_name(&m.name));
                }
                text.push_str(&p.to_text());
            } else {
                text.push_str(&format!(
                    "# From {} (a CTE, subquery or set-operation branch).\n",
                    m.rel
                ));
                text.push_str(&p.to_text());
            }
        }
        for p in &o.extra {
            text.push('\n');
            text.push_str("# A dbt test's failing rows.\n");
            text.push_str(&p.to_text());
        }
        for b in &o.tests {
            text.push('\n');
            text.push_str(b);
        }
        files.push((format!("{}.strata", m.name), text));
        imports.push(m.name.clone());
    }

    // The root: imports (sorted) and the seeds pipeline.
    imports.sort();
    let mut root = format!(
        "# The dbt project `{}`, imported by `strata import-dbt` (IMPORT.md says what converted).\n#\n#   strata run {root_name} --pipeline {PIPELINE} -o warehouse.duckdb\n\n",
        project.name
    );
    for imp in &imports {
        root.push_str(&format!("import {imp}\n"));
    }
    let mut pipeline_models: Vec<&str> = Vec::new();
    for p in &all_plans {
        if runnable.contains(&p.name) {
            pipeline_models.push(&p.name);
        }
    }
    root.push_str(&format!(
        "\n# The models that read only the seeds, run on the seed files.\npipeline {PIPELINE} {{\n  env: dev\n  models: [{}]\n  sources: {{\n",
        pipeline_models.join(", ")
    ));
    for (name, path) in seed_paths {
        root.push_str(&format!(
            "    {name}: from(path: {}),\n",
            quote(&relative(out_dir, path))
        ));
    }
    root.push_str("  }\n}\n");
    files.push((root_name.to_string(), root));

    // Formatted as `strata fmt` writes them.
    let files = files
        .into_iter()
        .map(|(path, text)| {
            let mut map = strata_lang::SourceMap::new();
            let id = map.add(path.clone(), text.clone());
            let formatted = strata_lang::fmt::format_source(id, &text).unwrap_or(text);
            (path, formatted)
        })
        .collect();
    let in_pipeline: BTreeSet<String> = project
        .models
        .iter()
        .filter(|m| runnable.contains(&m.name))
        .map(|m| m.name.clone())
        .collect();
    (files, in_pipeline)
}

/// `path` relative to directory `from` (`/`-separated); absolute when they
/// share no root.
fn relative(from: &Path, path: &Path) -> String {
    let abs = |p: &Path| {
        std::fs::canonicalize(p).unwrap_or_else(|_| {
            if p.is_absolute() {
                p.to_path_buf()
            } else {
                std::env::current_dir()
                    .map(|d| d.join(p))
                    .unwrap_or_else(|_| p.to_path_buf())
            }
        })
    };
    // The output directory may not exist yet: resolve its existing parent.
    let from_abs = {
        let mut existing = from.to_path_buf();
        let mut tail = Vec::new();
        while !existing.exists() {
            match (existing.file_name(), existing.parent()) {
                (Some(n), Some(p)) => {
                    tail.push(n.to_os_string());
                    existing = p.to_path_buf();
                }
                _ => break,
            }
            if existing.as_os_str().is_empty() {
                existing = PathBuf::from(".");
            }
        }
        let mut base = abs(&existing);
        for t in tail.into_iter().rev() {
            base.push(t);
        }
        base
    };
    let to_abs = abs(path);
    let a: Vec<_> = from_abs.components().collect();
    let b: Vec<_> = to_abs.components().collect();
    let common = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return to_abs.to_string_lossy().replace('\\', "/");
    }
    let mut parts: Vec<String> = Vec::new();
    for _ in common..a.len() {
        parts.push("..".into());
    }
    for c in &b[common..] {
        parts.push(c.as_os_str().to_string_lossy().into_owned());
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contract_names() {
        assert_eq!(contract_name("stg_orders"), "StgOrders");
        assert_eq!(contract_name("customers"), "Customers");
    }

    #[test]
    fn lines_map_back_to_the_model_file() {
        let source = "{% set x = 1 %}\nselect a\nfrom {{ ref('t') }}\nwhere b";
        let rendered = "\nselect a\nfrom \"$ref$t\"\nwhere b";
        assert_eq!(map_line(rendered, source, 2), (2, true));
        assert_eq!(map_line(rendered, source, 4), (4, true));
        assert_eq!(map_line(rendered, source, 3), (3, true));
        assert!(template_matches(
            "from {{ ref('t') }} t",
            "from \"$ref$t\" t"
        ));
        assert!(!template_matches("from {{ ref('t') }} t", "join x"));
        assert!(!template_matches("{{", "{{"));
        assert!(template_matches("{{ a }}{{ b }}", "xy"));
        assert!(!template_matches("}} {{", "x"));
    }
}
