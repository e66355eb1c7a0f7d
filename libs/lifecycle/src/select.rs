//! Which models a command builds: a pipeline's or the named ones, with
//! every model upstream of them, in dependency order; and the sources they
//! read.

use std::collections::{BTreeSet, HashMap};

use strata_engine::Failure;

use crate::RunOptions;
use strata_lang::ir::{self, InputKind};

/// The models to build: the selection (pipeline models or names) with their
/// upstream models, in dependency order.
pub fn select_models<'m>(
    module: &'m ir::Module,
    names: &[String],
    pipeline: Option<&ir::Pipeline>,
) -> Result<Vec<&'m ir::Model>, Failure> {
    let mut wanted: Vec<String> = names.to_vec();
    if let Some(p) = pipeline {
        wanted.extend(p.models.iter().cloned());
    }
    if wanted.is_empty() {
        return Ok(module.models.iter().collect());
    }
    let by_name: HashMap<&str, &ir::Model> =
        module.models.iter().map(|m| (m.name.as_str(), m)).collect();
    let mut keep: BTreeSet<&str> = BTreeSet::new();
    let mut stack: Vec<String> = Vec::new();
    for w in &wanted {
        if !by_name.contains_key(w.as_str()) {
            let hint = strata_lang::suggest::closest(w, by_name.keys().copied())
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            return Err(Failure::Usage(format!(
                "no model '{w}' in the module{hint}"
            )));
        }
        stack.push(w.clone());
    }
    while let Some(n) = stack.pop() {
        let Some(m) = by_name.get(n.as_str()) else {
            continue;
        };
        if keep.insert(m.name.as_str()) {
            for i in &m.inputs {
                if i.kind == InputKind::Model {
                    stack.push(i.name.to_string());
                }
            }
        }
    }
    Ok(module
        .models
        .iter()
        .filter(|m| keep.contains(m.name.as_str()))
        .collect())
}

/// Find the pipeline by name.
/// The pipeline a run reads its sources through and the models it
/// selects: those named (with their upstream models) and the pipeline's,
/// or, with [`RunOptions::named_models_only`] and models named, those
/// named alone.
pub fn selected<'m>(
    module: &'m ir::Module,
    opts: &RunOptions,
) -> Result<(Option<&'m ir::Pipeline>, Vec<&'m ir::Model>), Failure> {
    let pipeline = find_pipeline(module, opts.pipeline.as_deref())?;
    let selecting = pipeline.filter(|_| !opts.named_models_only || opts.models.is_empty());
    Ok((pipeline, select_models(module, &opts.models, selecting)?))
}

pub fn find_pipeline<'m>(
    module: &'m ir::Module,
    name: Option<&str>,
) -> Result<Option<&'m ir::Pipeline>, Failure> {
    let Some(name) = name else {
        return Ok(None);
    };
    match module.pipelines.iter().find(|p| p.name == name) {
        Some(p) => Ok(Some(p)),
        None => {
            let hint = strata_lang::suggest::closest(
                name,
                module.pipelines.iter().map(|p| p.name.as_str()),
            )
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
            Err(Failure::Usage(format!("unknown pipeline '{name}'{hint}")))
        }
    }
}

/// Sources read by the selected models (from, join, set-op inputs).
pub(crate) fn sources_read(models: &[&ir::Model]) -> Vec<String> {
    let mut out: BTreeSet<String> = BTreeSet::new();
    for m in models {
        for i in &m.inputs {
            if i.kind == InputKind::Source {
                out.insert(i.name.to_string());
            }
        }
    }
    out.into_iter().collect()
}
