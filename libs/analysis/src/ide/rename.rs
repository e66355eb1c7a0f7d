//! Rename: what the name under the cursor refers to renamed everywhere in
//! the workspace, or refused with the reason (a name the warehouse or a
//! contract fixes, a passed-through column, a test, a name already taken).

use strata_lang::{ident, Span};

use super::analysis::Analysis;
use super::index::Target;
use super::navigation::occurrences_of;
use crate::graph::{columns_of, NodeKind};

/// The span of the name at byte `offset` of the document when it can be
/// renamed; else why not.
pub fn prepare_rename(a: &Analysis, offset: usize) -> Result<Span, String> {
    let Some(o) = a.index().at(a.file, offset) else {
        return Err("nothing to rename here".into());
    };
    if let Some(why) = rename_refusal(a, &o.target) {
        return Err(why);
    }
    Ok(o.span)
}

/// A rename: the text to write, and each span to replace with it (with
/// the analysis whose module it is a span of).
pub type Renaming<'w> = (String, Vec<(&'w Analysis, Span)>);

/// What renaming what the name at byte `offset` of `a`'s document refers
/// to `new_name` takes: the text to write (the name quoted when it must
/// be, `` `date` ``) and every span of `workspace` (the analyses of the
/// open documents) to replace with it, each with the analysis whose module
/// it is a span of; or why it cannot be renamed so. `new_name` is a word
/// (a reserved one too: it is quoted) or any name between backticks.
pub fn rename<'w>(
    workspace: &[&'w Analysis],
    a: &Analysis,
    offset: usize,
    new_name: &str,
) -> Result<Renaming<'w>, String> {
    let new_name = match new_name.strip_prefix('`').and_then(|n| n.strip_suffix('`')) {
        Some(inner) if ident::is_writable(inner) => inner,
        Some(_) => {
            return Err(format!(
                "{new_name} is not a name: between backticks, a name holds at least one character, \
                 and no backtick, tab or line break"
            ))
        }
        None if ident::is_word(new_name) => new_name,
        None if ident::is_writable(new_name) => {
            return Err(format!(
            "`{new_name}` is not a plain name (letters, digits and _, not starting with a digit): \
                 to use it, write it between backticks"
        ))
        }
        None => return Err(format!("`{new_name}` is not a name")),
    };
    let Some(o) = a.index().at(a.file, offset) else {
        return Err("nothing to rename here".into());
    };
    if let Some(why) = rename_refusal(a, &o.target) {
        return Err(why);
    }
    let module = &a.checked.module;
    let taken = match &o.target {
        Target::Node(n) => match n.kind {
            NodeKind::Contract => module.contracts.iter().any(|c| c.name == new_name),
            _ => {
                module.models.iter().any(|m| m.name == new_name)
                    || module.sources.iter().any(|s| s.name == new_name)
            }
        },
        Target::Column(n, _) => columns_of(module, n)
            .unwrap_or_default()
            .iter()
            .any(|c| c.name == new_name),
    };
    if taken {
        return Err(format!("`{new_name}` is already taken"));
    }
    let spans = occurrences_of(workspace, &o.target)
        .into_iter()
        .map(|(a, o)| (a, o.span))
        .collect();
    Ok((ident::written(new_name).into_owned(), spans))
}

/// Why `target` cannot be renamed, if it cannot.
fn rename_refusal(a: &Analysis, target: &Target) -> Option<String> {
    match target {
        Target::Column(node, column) => match node.kind {
            NodeKind::Source => Some(format!(
                "`{column}` names a column of the warehouse table behind source `{}`: rename it there and in the source together",
                node.name
            )),
            NodeKind::Contract => Some(format!(
                "contract `{}` promises `{column}` by name: rename the models' column and the contract together",
                node.name
            )),
            NodeKind::Model => {
                let m = a.model(&node.name)?;
                if !a.index().occurrences.iter().any(|o| o.def && o.target == *target) {
                    return Some(format!(
                        "`{column}` is passed through from an input of `{}`: rename it where it is defined, or name it in a `select`",
                        node.name
                    ));
                }
                let contract = m.contract.as_ref().and_then(|c| a.checked.module.contracts.iter().find(|k| k.name == *c));
                if contract.is_some_and(|k| k.columns.iter().any(|c| c.name == column.as_str())) {
                    return Some(format!(
                        "contract `{}` promises `{column}`: renaming it would break the contract",
                        m.contract.as_deref().unwrap_or_default()
                    ));
                }
                None
            }
            NodeKind::Test => Some("a test is not renamed".into()),
        },
        Target::Node(node) if node.kind == NodeKind::Test => Some("a test is named after its model".into()),
        Target::Node(_) => None,
    }
}
