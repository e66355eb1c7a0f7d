//! Go to definition and find references: the declaration a name refers to
//! (through passed-through columns to where they are declared), and every
//! place in the workspace that names the same thing.

use std::collections::BTreeSet;
use std::path::PathBuf;

use strata_lang::Span;

use super::analysis::Analysis;
use super::index::{Occurrence, Target};
use crate::graph::{NodeId, NodeKind};

/// The declaration of the name at byte `offset` of the document, a span of
/// `a`'s module.
pub fn definition(a: &Analysis, offset: usize) -> Option<Span> {
    let o = a.index().at(a.file, offset)?;
    definition_of(a, &o.target)
}

/// The declaration of `target`, following a passed-through column to where
/// it is declared.
fn definition_of(a: &Analysis, target: &Target) -> Option<Span> {
    if let Some(o) = a
        .index()
        .occurrences
        .iter()
        .find(|o| o.def && o.target == *target)
    {
        return Some(o.span);
    }
    let Target::Column(node, column) = target else {
        return None;
    };
    let m = a
        .model(&node.name)
        .filter(|_| node.kind == NodeKind::Model)?;
    let l = m.lineage.iter().find(|l| l.column == column.as_str())?;
    let (input, col) = l.from.first()?;
    let i = m.inputs.iter().find(|i| i.name == *input)?;
    definition_of(a, &Target::Column(NodeId::of_input(i), col.to_string()))
}

/// Every occurrence in `workspace` (the analyses of the open documents) of
/// what the name at byte `offset` of `a`'s document names, declarations
/// included when `declarations`; `None` when no name is there. Each span
/// is one of the module of the analysis it comes with.
pub fn references<'w>(
    workspace: &[&'w Analysis],
    a: &Analysis,
    offset: usize,
    declarations: bool,
) -> Option<Vec<(&'w Analysis, Span)>> {
    let o = a.index().at(a.file, offset)?;
    Some(
        occurrences_of(workspace, &o.target)
            .into_iter()
            .filter(|(_, o)| declarations || !o.def)
            .map(|(a, o)| (a, o.span))
            .collect(),
    )
}

/// Every occurrence of `target` in `workspace`, once per place (a file
/// several open documents' modules read is searched once).
pub fn occurrences_of<'w>(
    workspace: &[&'w Analysis],
    target: &Target,
) -> Vec<(&'w Analysis, &'w Occurrence)> {
    let mut seen: BTreeSet<(PathBuf, u32, u32)> = BTreeSet::new();
    let mut out = Vec::new();
    for &a in workspace {
        for o in a.index().occurrences.iter().filter(|o| o.target == *target) {
            let path = a.path(o.span.file).to_path_buf();
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            if seen.insert((path, o.span.start, o.span.end)) {
                out.push((a, o));
            }
        }
    }
    out
}
