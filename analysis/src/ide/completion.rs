//! Completion: at the cursor, an input's columns after `input.`, the
//! cardinalities after `expect`, the sources and models after `from` or a
//! join, the columns, clauses and functions inside a model, the inputs and
//! columns of a fixture test, and the declaration keywords elsewhere.

use std::collections::BTreeSet;

use super::analysis::Analysis;
use crate::graph::{columns_of, NodeId, NodeKind};

/// What a completion is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// A column of an input.
    Column,
    /// A keyword, a clause or a cardinality.
    Keyword,
    /// A source or model to read.
    Relation,
    /// A model attribute (`owner:` ...).
    Attribute,
    /// A function or aggregate.
    Function,
}

/// One completion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
}

fn item(label: &str, kind: CompletionKind, detail: Option<String>) -> Completion {
    Completion {
        label: label.to_string(),
        kind,
        detail,
    }
}

/// The completions at byte `offset` of the document's `text`, in order.
pub fn completions(a: &Analysis, text: &str, offset: usize) -> Vec<Completion> {
    let module = &a.checked.module;
    let line_start = text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let before = text.get(line_start..offset).unwrap_or("");
    let words: Vec<&str> = before.split_whitespace().collect();
    let last = words.last().copied().unwrap_or("");
    let typing = !before.ends_with(char::is_whitespace);
    let previous = if typing {
        words.iter().rev().nth(1).copied()
    } else {
        words.last().copied()
    };
    let mut items = Vec::new();
    let decl = a.model_decl_at(offset);
    // `input.` : that input's columns.
    if typing {
        if let Some((qualifier, _)) = last.rsplit_once('.') {
            let qualifier = qualifier
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or(qualifier);
            let node = if module.models.iter().any(|m| m.name == qualifier) {
                NodeId::new(NodeKind::Model, qualifier)
            } else {
                NodeId::new(NodeKind::Source, qualifier)
            };
            for c in columns_of(module, &node).unwrap_or_default() {
                items.push(item(
                    &c.name,
                    CompletionKind::Column,
                    Some(c.ty.to_string()),
                ));
            }
            return items;
        }
    }
    if decl.is_none() {
        if let Some(spot) = super::fixture::spot(text, offset, typing) {
            return fixture_completions(a, &spot);
        }
    }
    match previous {
        Some("expect") => {
            for c in strata_lang::parser::CARDINALITIES {
                items.push(item(
                    c,
                    CompletionKind::Keyword,
                    Some("a join cardinality promise, checked at run time".into()),
                ));
            }
        }
        Some(w)
            if w == "from"
                || w.starts_with("join_")
                || w == "union"
                || w == "except"
                || w == "intersect" =>
        {
            let own = decl.map(|d| d.name.name.as_str());
            for s in &module.sources {
                items.push(item(
                    &s.name,
                    CompletionKind::Relation,
                    Some("source".into()),
                ));
            }
            for m in module
                .models
                .iter()
                .filter(|m| Some(m.name.as_str()) != own)
            {
                items.push(item(
                    &m.name,
                    CompletionKind::Relation,
                    Some("model".into()),
                ));
            }
        }
        _ => match decl {
            Some(d) => {
                let model = a.model(&d.name.name);
                let mut seen = BTreeSet::new();
                for input in model.map(|m| m.inputs.as_slice()).unwrap_or_default() {
                    for c in columns_of(module, &NodeId::of_input(input)).unwrap_or_default() {
                        if seen.insert(c.name.to_string()) {
                            items.push(item(
                                &c.name,
                                CompletionKind::Column,
                                Some(format!("{} ({})", c.ty, input.name)),
                            ));
                        }
                    }
                }
                for c in strata_lang::parser::MODEL_KEYWORDS
                    .iter()
                    .chain(strata_lang::parser::MODEL_CLAUSE_WORDS)
                {
                    items.push(item(c, CompletionKind::Keyword, None));
                }
                for a in strata_lang::parser::ATTRS {
                    items.push(item(&format!("{a}:"), CompletionKind::Attribute, None));
                }
                for f in strata_lang::catalog::functions() {
                    let kind = if f.aggregate { "aggregate" } else { "function" };
                    items.push(item(
                        f.name,
                        CompletionKind::Function,
                        Some(format!("{kind}: {} — {}", f.signature, f.summary)),
                    ));
                }
            }
            None => {
                for k in strata_lang::parser::TOP_KEYWORDS {
                    items.push(item(k, CompletionKind::Keyword, None));
                }
            }
        },
    }
    items
}

/// Inside a fixture test: the tested model's inputs after `given`, an
/// input's columns in `given input(..`, the model's output columns in
/// `expect rows(..`, and the test's words between entries.
fn fixture_completions(a: &Analysis, spot: &super::fixture::Spot) -> Vec<Completion> {
    use super::fixture::Spot;
    let module = &a.checked.module;
    let columns = |node: &NodeId, items: &mut Vec<Completion>| {
        for c in columns_of(module, node).unwrap_or_default() {
            let null = if c.nullable { "" } else { ", nonnull" };
            items.push(item(
                &c.name,
                CompletionKind::Column,
                Some(format!("{}{null} ({})", c.ty, node.name)),
            ));
        }
    };
    let mut items = Vec::new();
    match spot {
        Spot::Input { model } => {
            let mut seen = BTreeSet::new();
            for i in a
                .model(model)
                .map(|m| m.inputs.as_slice())
                .unwrap_or_default()
            {
                if seen.insert(i.name.to_string()) {
                    let node = NodeId::of_input(i);
                    items.push(item(
                        &i.name,
                        CompletionKind::Relation,
                        Some(format!("{} read by {model}", node.kind.as_str())),
                    ));
                }
            }
        }
        Spot::InputColumn { model, input } => {
            if let Some(i) = a
                .model(model)
                .and_then(|m| m.inputs.iter().find(|i| i.name == input.as_str()))
            {
                columns(&NodeId::of_input(i), &mut items);
            }
        }
        Spot::OutputColumn { model } => {
            columns(&NodeId::new(NodeKind::Model, model), &mut items);
        }
        Spot::Expect { model } => {
            items.push(item(
                "rows",
                CompletionKind::Keyword,
                Some("the exact rows the model outputs: rows(col, ..) { (v, ..) }".into()),
            ));
            items.push(item(
                "row_count",
                CompletionKind::Keyword,
                Some("the number of rows the model outputs".into()),
            ));
            columns(&NodeId::new(NodeKind::Model, model), &mut items);
        }
        Spot::Body { .. } => {
            items.push(item(
                "given",
                CompletionKind::Keyword,
                Some("the rows of an input: given input(col, ..) { (v, ..) }".into()),
            ));
            items.push(item(
                "expect",
                CompletionKind::Keyword,
                Some("expect rows(col, ..) { (v, ..) }, or a check: expect row_count > 0".into()),
            ));
        }
    }
    items
}
