//! The module's files: `_sources.strata`, `_tests.strata`, one file per
//! converted dbt model (each importing the files of what it reads), and
//! the root with its `seeds` pipeline and its `dbt` pipeline; formatted as
//! `strata fmt` writes them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::contract::contract_name;
use super::layout;
use super::{Outcome, DBT, PIPELINE};
use crate::check::Decl;
use crate::names::{quote, written};
use crate::plan::ModelPlan;
use crate::project::Project;
use crate::report::Status;

/// The module's files, the models the `seeds` pipeline runs, whether it
/// is written (not when no model reads only seeds), and the file (stem)
/// each converted model is written to.
pub(super) struct Assembled {
    pub files: Vec<(String, String)>,
    pub in_pipeline: BTreeSet<String>,
    pub seeds_pipeline: bool,
    pub file_of: BTreeMap<String, String>,
}

/// One written file's models (`(dbt file, body)`) and the files it imports.
type FileParts<'a> = (Vec<(&'a str, &'a str)>, BTreeSet<String>);

/// The module's files and the models the `seeds` pipeline runs.
#[allow(clippy::too_many_arguments)]
pub(super) fn assemble(
    project: &Project,
    outcomes: &[Outcome],
    source_texts: &[(String, String)],
    seed_tests: &[ModelPlan],
    seed_blocks: &[String],
    seed_paths: &BTreeMap<String, PathBuf>,
    decls: &BTreeMap<String, Decl>,
    root_name: &str,
    out_dir: &Path,
    dbt_target: bool,
) -> Assembled {
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
    let wanted_by = |plans: &[&ModelPlan], refs: &[String]| -> BTreeSet<String> {
        let mut wanted: BTreeSet<String> = BTreeSet::new();
        for p in plans {
            for i in p.inputs() {
                if let Some(o) = owner.get(i) {
                    wanted.insert(o.clone());
                }
            }
        }
        for r in refs {
            if let Some(o) = owner.get(r) {
                wanted.insert(o.clone());
            }
        }
        wanted
    };
    let import_lines = |stem: &str, wanted: &BTreeSet<String>| -> String {
        wanted
            .iter()
            .filter(|w| w.as_str() != stem)
            .map(|w| format!("import {}\n", written(w)))
            .collect()
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

    // Each converted model's file: its body, and the files it imports.
    let mut bodies: Vec<(String, String, BTreeSet<String>)> = Vec::new();
    let mut rel_of: BTreeMap<&str, &str> = BTreeMap::new();
    for (i, m) in project.models.iter().enumerate() {
        let o = &outcomes[i];
        if o.status != Some(Status::Converted) {
            continue;
        }
        rel_of.insert(&m.name, &m.rel);
        let mut text = String::new();
        let plans: Vec<&ModelPlan> = o.plans.iter().chain(&o.extra).collect();
        let wanted = wanted_by(&plans, &o.test_refs);
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
        bodies.push((m.name.clone(), text, wanted));
    }
    // Files that would import each other (a model's test reads a model
    // that reads it) are one file: no two files import each other.
    let file_of = layout::one_file_per_cycle(
        &bodies
            .iter()
            .map(|(n, _, w)| (n.clone(), w.clone()))
            .collect::<BTreeMap<_, _>>(),
    );
    let mut merged: BTreeMap<&str, FileParts> = BTreeMap::new();
    for (name, text, wanted) in &bodies {
        let file = file_of.get(name).map_or(name.as_str(), String::as_str);
        let entry = merged.entry(file).or_default();
        entry
            .0
            .push((rel_of.get(name.as_str()).copied().unwrap_or(""), text));
        for w in wanted {
            entry
                .1
                .insert(file_of.get(w).cloned().unwrap_or_else(|| w.clone()));
        }
    }
    for (file, (texts, wanted)) in &merged {
        let mut text = String::new();
        if let [(rel, body)] = texts.as_slice() {
            text.push_str(&format!("# dbt model {rel}\n\n"));
            text.push_str(&import_lines(file, wanted));
            text.push_str(body);
        } else {
            text.push_str("# dbt models that read, or test with, each other: one strata file, as\n# two files cannot import each other.\n\n");
            text.push_str(&import_lines(file, wanted));
            for (rel, body) in texts {
                text.push_str(&format!("\n# dbt model {rel}\n"));
                text.push_str(body);
            }
        }
        files.push((format!("{file}.strata"), text));
        imports.push((*file).to_string());
    }
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
        let wanted: BTreeSet<String> = wanted_by(&plans, &refs)
            .into_iter()
            .map(|w| file_of.get(&w).cloned().unwrap_or(w))
            .collect();
        t.push_str(&import_lines("_tests", &wanted));
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

    // The root: imports (sorted), the seeds pipeline (when a model reads
    // only seeds) and the dbt pipeline (when the profile names dbt's
    // warehouse).
    imports.sort();
    let mut pipeline_models: Vec<std::borrow::Cow<str>> = Vec::new();
    for p in &all_plans {
        if runnable.contains(&p.name) {
            pipeline_models.push(written(&p.name));
        }
    }
    let seeds_pipeline = !pipeline_models.is_empty();
    let mut root = format!(
        "# The dbt project `{}`, imported by `strata import-dbt` (IMPORT.md says what converted).\n#\n",
        project.name
    );
    if dbt_target {
        root.push_str(&format!("#   strata run {root_name} --target {DBT}\n"));
    }
    if seeds_pipeline {
        root.push_str(&format!(
            "#   strata run {root_name} --pipeline {PIPELINE} -o warehouse.duckdb\n"
        ));
    }
    root.push('\n');
    for imp in &imports {
        root.push_str(&format!("import {}\n", written(imp)));
    }
    if seeds_pipeline {
        root.push_str(&format!(
            "\n# The models that read only the seeds, run on the seed files.\npipeline {PIPELINE} {{\n  env: dev\n  models: [{}]\n  sources: {{\n",
            pipeline_models.join(", ")
        ));
        for (name, path) in seed_paths {
            root.push_str(&format!(
                "    {}: from(path: {}),\n",
                written(name),
                quote(&relative(out_dir, path))
            ));
        }
        root.push_str("  }\n}\n");
    }
    if dbt_target {
        root.push_str(&format!(
            "\n# Every model, on the warehouse dbt built (`--target {DBT}`, strata.toml): each source and\n# seed read where dbt reads it, published into a schema of strata's own.\npipeline {DBT} {{\n  env: prod\n}}\n"
        ));
    }
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
    Assembled {
        files,
        in_pipeline,
        seeds_pipeline,
        file_of,
    }
}

/// `path` relative to directory `from` (`/`-separated); absolute when they
/// share no root.
pub(super) fn relative(from: &Path, path: &Path) -> String {
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
