//! Completion: at the cursor, an input's columns after `input.`, the
//! words of windows and sorts (`partition_by:`, `rows:`, `unbounded`,
//! `nulls_first` ...) where they go, the cardinalities after `expect`, the sources and models after `from` or a
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
    /// The text to insert when it is not the label: a column or relation
    /// whose name must be quoted (`` `date` ``).
    pub insert: Option<String>,
}

fn item(label: &str, kind: CompletionKind, detail: Option<String>) -> Completion {
    let name = matches!(kind, CompletionKind::Column | CompletionKind::Relation);
    Completion {
        label: label.to_string(),
        kind,
        detail,
        insert: (name && !strata_lang::ident::is_plain(label))
            .then(|| strata_lang::ident::written(label).into_owned()),
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
            let head = before.rsplit_once('.').map_or("", |(h, _)| h);
            let qualifier = match head.strip_suffix('`') {
                // A quoted input (it may hold spaces): the text between
                // its backticks.
                Some(q) => q.rsplit('`').next().unwrap_or(q),
                None => qualifier
                    .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or(qualifier),
            };
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
    // Inside a window or after a sort direction (a model being written
    // may not parse: the text says where the cursor is).
    if let Some(words) = ordering_words(&text[..offset.min(text.len())], previous) {
        return words;
    }
    if decl.is_none() {
        if let Some(spot) = super::fixture::spot(text, offset, typing) {
            return fixture_completions(a, &spot);
        }
        // `name: ` in a source, contract or domain: a column type.
        if previous.is_some_and(|w| w.len() > 1 && w.ends_with(':') && w != "classification:") {
            for t in strata_lang::lexer::TYPE_KEYWORDS {
                items.push(item(t, CompletionKind::Keyword, Some("type".into())));
            }
            return items;
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

/// The words of ordering where they go: after `asc`/`desc`, where NULLs
/// sort; directly inside `over (`, the window's parts; in a frame's
/// brackets, `unbounded`. `None` elsewhere.
fn ordering_words(before: &str, previous: Option<&str>) -> Option<Vec<Completion>> {
    let keyword =
        |label: &str, detail: &str| item(label, CompletionKind::Keyword, Some(detail.into()));
    if matches!(previous, Some("asc" | "desc")) {
        return Some(vec![
            keyword("nulls_first", "NULLs sort before every value"),
            keyword("nulls_last", "NULLs sort after every value (the default)"),
        ]);
    }
    // The innermost bracket still open, and the text before it, in the
    // last few lines only (a window is short; a file may be long).
    let mut from = before.len().saturating_sub(2048);
    while !before.is_char_boundary(from) {
        from += 1;
    }
    let mut open: Vec<usize> = Vec::new();
    for (i, c) in before[from..].char_indices().map(|(i, c)| (i + from, c)) {
        match c {
            '(' | '[' | '{' => open.push(i),
            ')' | ']' | '}' => {
                open.pop();
            }
            _ => {}
        }
    }
    let at = *open.last()?;
    let head = before[..at].trim_end();
    match &before[at..=at] {
        "(" if head.ends_with("over") => Some(vec![
            keyword("partition_by:", "partition_by: [k, ..]: one window per value of the keys"),
            keyword("sort:", "sort: [k [desc] [nulls_first|nulls_last], ..]: the window's order"),
            keyword("rows:", "rows: [start, end]: the frame in rows from the current one (-2 before, 0 it, unbounded)"),
            keyword("range:", "range: [start, end]: the frame in values of the one int64 sort key"),
        ]),
        "[" if head.ends_with("rows:") || head.ends_with("range:") => Some(vec![keyword(
            "unbounded",
            "the partition's first row (as the start) or last row (as the end)",
        )]),
        _ => None,
    }
}

/// Inside a test: the tested model's inputs after `given`, an input's
/// columns in `given input(..`, the model's output columns in
/// `expect rows(..`, the test's words between entries (`severity` before
/// the first), and `warn` / `error` after `severity:`.
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
        Spot::Severity => {
            items.push(item(
                "warn",
                CompletionKind::Keyword,
                Some("a failing check is reported and never blocks publishing".into()),
            ));
            items.push(item(
                "error",
                CompletionKind::Keyword,
                Some("the default: a failing check stops the run, nothing published".into()),
            ));
        }
        Spot::Body { first, .. } => {
            if *first {
                items.push(item(
                    "severity",
                    CompletionKind::Keyword,
                    Some("severity: warn — a failing check is reported, never blocking (first in the body)".into()),
                ));
            }
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
