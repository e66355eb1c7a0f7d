//! The two versions of a module side by side: one source map for both,
//! each version's graph, and the walks downstream in the old one.

use std::collections::{BTreeMap, BTreeSet};

use strata_lang::ir;
use strata_lang::{Checked, SourceMap, Span};

use super::change::{Change, Downstream, Kind};
use crate::graph::{ColumnId, Graph, NodeId, NodeKind, Read};

/// One version of the module: what was checked, its graph, and where its
/// files start in the source map both versions share.
pub struct Version<'a> {
    pub checked: &'a Checked,
    pub graph: Graph,
    file_offset: u32,
}

impl Version<'_> {
    /// A span of this version in the shared source map.
    pub(super) fn span(&self, s: Span) -> Span {
        Span {
            file: strata_lang::FileId(s.file.0 + self.file_offset),
            ..s
        }
    }

    pub(super) fn model(&self, name: &str) -> Option<&ir::Model> {
        self.checked.module.models.iter().find(|m| m.name == name)
    }
}

/// The two versions' files in one source map (old first, then new), so
/// that a diagnostic can point into both.
pub struct Pair<'a> {
    pub sources: SourceMap,
    pub old: Version<'a>,
    pub new: Version<'a>,
    /// Columns found renamed so far (old column -> new name): a column
    /// computed from a renamed one is renamed too when the rest of its
    /// lineage is the same.
    pub(super) renames: std::cell::RefCell<BTreeMap<ColumnId, String>>,
}

impl<'a> Pair<'a> {
    /// `old_name` gives the name an old file has in reports.
    pub fn new(
        old: &'a Checked,
        new: &'a Checked,
        old_name: &dyn Fn(&std::path::Path) -> String,
    ) -> Pair<'a> {
        let mut sources = SourceMap::new();
        let mut n = 0;
        for (_, f) in old.sources.files() {
            sources.add(old_name(&f.path), f.text.clone());
            n += 1;
        }
        for (_, f) in new.sources.files() {
            sources.add(f.path.clone(), f.text.clone());
        }
        Pair {
            sources,
            old: Version {
                checked: old,
                graph: Graph::of(&old.module),
                file_offset: 0,
            },
            new: Version {
                checked: new,
                graph: Graph::of(&new.module),
                file_offset: n,
            },
            renames: Default::default(),
        }
    }

    pub(super) fn change(
        &self,
        node: NodeId,
        column: Option<&str>,
        kind: Kind,
        detail: String,
    ) -> Change {
        Change {
            node,
            column: column.map(str::to_string),
            kind,
            detail,
            breaking: None,
            downstream: Downstream::default(),
            old_span: None,
            new_span: None,
            readers: Vec::new(),
        }
    }

    /// Something only the new version has, declared at `span` (new version).
    pub(super) fn added(
        &self,
        node: NodeId,
        column: Option<&str>,
        detail: String,
        span: Span,
    ) -> Change {
        let mut c = self.change(node, column, Kind::Added, detail);
        c.new_span = Some(span);
        c
    }

    /// The old version's direct readers of `node`'s column (any column when
    /// `column` is `None`).
    pub(super) fn readers(&self, node: &NodeId, column: Option<&str>) -> Vec<Read> {
        self.old
            .graph
            .reads
            .iter()
            .filter(|r| r.column.node == *node && column.is_none_or(|c| r.column.column == c))
            .cloned()
            .collect()
    }

    /// What the old version computes from `node.column`, transitively.
    pub(super) fn column_downstream(&self, node: &NodeId, column: &str) -> Downstream {
        let mut down = Downstream::default();
        let mut todo = vec![ColumnId {
            node: node.clone(),
            column: column.to_string(),
        }];
        let mut seen: BTreeSet<ColumnId> = BTreeSet::new();
        let mut rows_change: BTreeSet<NodeId> = BTreeSet::new();
        while let Some(c) = todo.pop() {
            if !seen.insert(c.clone()) {
                continue;
            }
            for r in self.old.graph.reads.iter().filter(|r| r.column == c) {
                down.add_node(&r.reader);
                // A model that filters, joins, groups or sorts on the column
                // changes its rows, and so everything downstream of it.
                if r.reader.kind == NodeKind::Model && r.how != "select" {
                    rows_change.insert(r.reader.clone());
                }
            }
            for e in self.old.graph.columns.iter().filter(|e| e.from == c) {
                down.columns.insert(e.to.clone());
                todo.push(e.to.clone());
            }
        }
        for m in rows_change {
            let more = self.node_downstream(&m);
            down.models.extend(more.models);
            down.contracts.extend(more.contracts);
            down.tests.extend(more.tests);
        }
        down
    }

    /// Every node downstream of `node` in the old version.
    pub(super) fn node_downstream(&self, node: &NodeId) -> Downstream {
        let mut down = Downstream::default();
        let mut todo = vec![node.clone()];
        let mut seen: BTreeSet<NodeId> = BTreeSet::new();
        while let Some(n) = todo.pop() {
            for e in self.old.graph.edges.iter().filter(|e| e.from == n) {
                if seen.insert(e.to.clone()) {
                    down.add_node(&e.to);
                    todo.push(e.to.clone());
                }
            }
        }
        down
    }
}

/// Where a node's columns are declared in each version.
pub(super) struct ColumnSpans<'f> {
    pub(super) old: &'f dyn Fn(&str) -> Span,
    pub(super) new: &'f dyn Fn(&str) -> Span,
    /// The node in the new version (where a removed column was dropped).
    pub(super) new_decl: Span,
}
