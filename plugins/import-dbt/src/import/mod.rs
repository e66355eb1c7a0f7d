//! The import, start to end: read the project, type its seeds and
//! sources (`inputs`), render every model and order them (`models`),
//! translate each (its helpers first) and check it with strata's checker
//! (`translate`), carry its tests (`carry`, `specs`, `contract`; dbt unit
//! tests as fixture tests: `unit`), and
//! assemble the module files (`assemble`) and the report (`entries`).

mod assemble;
mod carry;
mod contract;
mod entries;
mod fanout;
mod incremental;
mod inputs;
mod layout;
mod lines;
mod models;
pub(crate) mod specs;
mod translate;
mod unit;
mod warehouse;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use sqlparser::dialect::Dialect;
use strata_lang::ir;

use crate::audit::Audit;
use crate::catalog::{Catalog, Manifest};
use crate::check::Decl;
use crate::error::Failure;
use crate::jinja::{Dep, Renderer};
use crate::plan::ModelPlan;
use crate::project::{Project, ReadOptions};
use crate::report::{Reason, Report, Status, Summary};
use crate::sql::{self, RelInfo};

pub use contract::contract_name;

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

/// The name of the target (strata.toml) and of the pipeline that run on
/// the warehouse dbt built.
pub const DBT: &str = "dbt";

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
    /// How an incremental model merges, when dbt's is the usual pattern.
    incremental: Option<incremental::Merge>,
}

/// Import a dbt project. Every module written is checked whole; a model
/// whose file would not check (which the per-model check should already
/// have caught) is needs review instead, and the import is redone.
/// What the import knows as it goes: every relation declared so far, the
/// names taken, the evidence of uniqueness, and per dbt model its outcome.
struct State<'p> {
    project: &'p Project,
    manifest: Option<Manifest>,
    catalog: Option<Catalog>,
    report: Report,
    /// Everything a helper or test model may not be named.
    taken: BTreeSet<String>,
    /// What the translator can read, by strata name.
    known: BTreeMap<String, RelInfo>,
    /// What the checker is given, by strata name.
    decls: BTreeMap<String, Decl>,
    /// Seeds and sources strata cannot read, and why.
    problems: BTreeMap<String, Vec<String>>,
    /// The fan-out audit of every model (`fanout`), once their SQL is read.
    audit: Option<Audit>,
    /// The declarations of the seeds and sources (`_sources.strata`).
    source_texts: Vec<(String, String)>,
    seed_paths: BTreeMap<String, PathBuf>,
    /// A dbt source's (source, table) to its strata name.
    source_names: BTreeMap<(String, String), String>,
    by_name: BTreeMap<&'p str, usize>,
    /// Per dbt model (in `project.models` order).
    outcomes: Vec<Outcome>,
    /// Per dbt model: the SQL translated (rendered, or dbt's compiled).
    sql_of: Vec<Option<String>>,
    dialect: Box<dyn Dialect>,
    duckdb: bool,
    /// Test models (and their blocks) of seeds, sources and singular
    /// tests: `_tests.strata`.
    seed_tests: Vec<ModelPlan>,
    seed_blocks: Vec<String>,
    /// dbt's warehouse, read-only, for columns nothing else gives.
    reader: warehouse::Reader,
}

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
        let source = checked.sources.get(d.span.file);
        let file = source.path.clone();
        let mut stem = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A file of several models (see `layout`): the model whose
        // section the error is in.
        let before = source.text.get(..d.span.start as usize).unwrap_or("");
        if let Some(at) = before.rfind("\n# dbt model ") {
            let rel = before[at + 13..].lines().next().unwrap_or("").trim();
            if let Some(m) = result.report.models.iter().find(|m| m.file == rel) {
                stem = m.name.clone();
            }
        }
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
    let (mut project, target) = Project::read_with_target(
        &options.project,
        &ReadOptions {
            vars: options.vars.clone(),
            profiles_dir: options.profiles_dir.clone(),
        },
        options.target_path.as_deref(),
    )?;
    crate::jinja::render_project_yaml(&mut project);
    let project = project;
    let manifest = if options.ignore_manifest {
        None
    } else {
        Manifest::read(&target)?
    };
    let catalog = Catalog::read(&target)?;
    let (warehouse, problem) =
        match crate::profile::find(&options.project, options.profiles_dir.as_deref()) {
            Ok(w) => (w, None),
            Err(f) if f.code == strata_plugin::exit::USAGE => (None, Some(f.message)),
            Err(f) => return Err(f),
        };
    let mut st = State::new(&project, manifest, catalog, warehouse);
    if let Some(why) = problem {
        st.report.notes.push(Reason::new(
            format!("dbt's warehouse is not read, and no `dbt` target is written: {why}"),
            "profiles.yml",
            0,
        ));
    }
    st.declare_seeds();
    st.declare_sources();
    let renderer = Renderer::new(&project);
    st.read_models(&renderer);
    let order = st.order_models();
    st.audit_models();
    st.translate_models(&order, forced);
    st.carry_tests(&renderer);
    st.carry_unit_tests();
    Ok(st.finish(options))
}

impl<'p> State<'p> {
    fn new(
        project: &'p Project,
        manifest: Option<Manifest>,
        catalog: Option<Catalog>,
        warehouse: Option<crate::profile::Warehouse>,
    ) -> State<'p> {
        let report = Report {
            root: String::new(),
            pipeline: None,
            target: None,
            project: project.name.clone(),
            adapter: project.adapter.clone(),
            adapter_from: project.adapter_from.clone(),
            compiled_from_manifest: manifest.as_ref().is_some_and(|m| !m.compiled.is_empty()),
            models: Vec::new(),
            joins: Vec::new(),
            tests: Vec::new(),
            seeds: Vec::new(),
            sources: Vec::new(),
            notes: Vec::new(),
            summary: Summary::default(),
        };
        let mut taken: BTreeSet<String> = BTreeSet::new();
        for m in &project.models {
            taken.insert(m.name.clone());
        }
        for s in &project.seeds {
            taken.insert(s.name.clone());
        }
        let by_name: BTreeMap<&str, usize> = project
            .models
            .iter()
            .enumerate()
            .map(|(i, m)| (m.name.as_str(), i))
            .collect();
        State {
            project,
            manifest,
            catalog,
            report,
            taken,
            known: BTreeMap::new(),
            decls: BTreeMap::new(),
            problems: BTreeMap::new(),
            audit: None,
            source_texts: Vec::new(),
            seed_paths: BTreeMap::new(),
            source_names: BTreeMap::new(),
            by_name,
            outcomes: (0..project.models.len())
                .map(|_| Outcome::default())
                .collect(),
            sql_of: vec![None; project.models.len()],
            dialect: sql::dialect(&project.adapter),
            duckdb: project.adapter == "duckdb",
            seed_tests: Vec::new(),
            seed_blocks: Vec::new(),
            reader: warehouse::Reader::new(warehouse),
        }
    }
}
