//! The dbt models before translation: rendered (or dbt's compiled SQL),
//! their configs applied (disabled, incremental, ephemeral), what keeps
//! one from converting whatever its SQL (a Python model, a name clash, a
//! version), what each reads, and their order (upstream first; a cycle is
//! needs review).

use std::collections::{BTreeMap, BTreeSet};

use rayon::prelude::*;
use serde_json::Value;

use super::incremental::{rebuilt_in_full, Merge};
use super::lines::line_with;
use super::{Outcome, State};
use crate::jinja::this_marker;
use crate::jinja::{Dep, Renderer};
use crate::names;
use crate::project::ModelFile;
use crate::report::{Reason, Status};
use crate::sql::incremental::watermark;

impl State<'_> {
    /// Render every model and read its config.
    pub(super) fn read_models(&mut self, renderer: &Renderer) {
        let project = self.project;
        let State {
            manifest,
            report,
            outcomes,
            sql_of,
            dialect,
            ..
        } = self;
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
                Some(renderer.render_in(m.package.as_deref(), &m.name, &m.rel, &m.text))
            })
            .collect();

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
                    config.extend(f.config.clone());
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
            let incremental =
                config.get("materialized").and_then(Value::as_str) == Some("incremental");
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
            let dbt_disabled = manifest
                .as_ref()
                .is_some_and(|mf| mf.disabled.contains(&m.name));
            if dbt_disabled || config.get("enabled").is_some_and(super::carry::disabled) {
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
                Some("incremental") => {
                    let merge = match &renders[i] {
                        Some(Ok(full)) => renderer
                            .render_incremental(m.package.as_deref(), &m.name, &m.rel, &m.text)
                            .map_err(|f| {
                                format!(
                                    "with is_incremental() true its Jinja does not render: {}",
                                    f.message
                                )
                            })
                            .and_then(|inc| {
                                watermark(&full.sql, &inc.sql, &this_marker(&m.name), &**dialect)
                            })
                            .and_then(|w| Merge::of(&config, &w)),
                        _ => Err("its Jinja does not render".to_string()),
                    };
                    match merge {
                        Ok(merge) => o.incremental = Some(merge),
                        Err(why) => {
                            o.notes
                                .push(Reason::new(rebuilt_in_full(&why), m.rel.clone(), 0))
                        }
                    }
                }
                Some("ephemeral") => o.notes.push(Reason::new(
                    "ephemeral in dbt: a model of its own in strata",
                    m.rel.clone(),
                    0,
                )),
                _ => {}
            }
        }
    }

    /// Resolve dependencies; order the models; find cycles.
    pub(super) fn order_models(&mut self) -> Vec<usize> {
        let project = self.project;
        let State {
            by_name,
            outcomes,
            source_names,
            ..
        } = self;
        let enabled = |i: usize, outcomes: &[Outcome]| outcomes[i].status != Some(Status::Disabled);
        let mut edges: Vec<Vec<usize>> = vec![Vec::new(); project.models.len()];
        for i in 0..project.models.len() {
            if !enabled(i, outcomes) {
                continue;
            }
            let deps = outcomes[i].deps.clone();
            let m = &project.models[i];
            for d in &deps {
                match d {
                    Dep::Ref(n) => match by_name.get(n.as_str()) {
                        Some(&j) if enabled(j, outcomes) => {
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
        topo_order(&edges, &project.models, outcomes, |i, o| enabled(i, o))
    }
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
