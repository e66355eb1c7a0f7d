//! The changes of a module's declarations: its sources, contracts and
//! tests here, its models in [`super::models`], every column in
//! [`super::columns`].

use std::collections::BTreeMap;

use strata_lang::ir;
use strata_lang::Span;

use super::change::{Change, Kind};
use super::pair::{ColumnSpans, Pair};
use crate::graph::{Graph, NodeId, NodeKind};

impl Pair<'_> {
    /// Every change, sources first, then models, contracts and tests.
    pub fn changes(&self) -> Vec<Change> {
        let mut out = Vec::new();
        self.sources(&mut out);
        self.models(&mut out);
        self.contracts(&mut out);
        self.tests(&mut out);
        out
    }

    fn sources(&self, out: &mut Vec<Change>) {
        let old = &self.old.checked.module.sources;
        let new = &self.new.checked.module.sources;
        let mut added: Vec<&ir::Source> = new
            .iter()
            .filter(|n| !old.iter().any(|s| s.name == n.name))
            .collect();
        for s in old {
            let id = NodeId::new(NodeKind::Source, s.name.as_str());
            match new.iter().find(|n| n.name == s.name) {
                None => {
                    // The same columns under a new name.
                    let renamed = added
                        .iter()
                        .position(|n| n.columns.is_some() && n.columns == s.columns)
                        .map(|i| added.remove(i));
                    let (kind, detail) = match renamed {
                        Some(n) => (Kind::Renamed, format!("source {} -> {}", s.name, n.name)),
                        None => (Kind::Removed, "source removed".to_string()),
                    };
                    let mut c = self.change(id.clone(), None, kind, detail);
                    c.old_span = Some(self.old.span(s.span));
                    c.new_span = renamed.map(|n| self.new.span(n.span));
                    c.readers = self.readers(&id, None);
                    c.downstream = self.node_downstream(&id);
                    if !c.downstream.is_empty() {
                        c.breaking = Some(format!("source {} is read downstream", s.name));
                    }
                    out.push(c);
                }
                Some(n) => {
                    let old_cols = s.columns.as_deref().unwrap_or_default();
                    let new_cols = n.columns.as_deref().unwrap_or_default();
                    let spans = ColumnSpans {
                        old: &|c| self.old.span(s.column_span(c)),
                        new: &|c| self.new.span(n.column_span(c)),
                        new_decl: self.new.span(n.span),
                    };
                    self.columns(out, &id, old_cols, new_cols, &|_, _| false, &spans);
                }
            }
        }
        for n in added {
            out.push(self.added(
                NodeId::new(NodeKind::Source, n.name.as_str()),
                None,
                "source added".into(),
                self.new.span(n.span),
            ));
        }
    }

    fn contracts(&self, out: &mut Vec<Change>) {
        let old = &self.old.checked.module.contracts;
        let new = &self.new.checked.module.contracts;
        for k in old {
            let id = NodeId::new(NodeKind::Contract, k.name.as_str());
            match new.iter().find(|n| n.name == k.name) {
                None => {
                    let mut c =
                        self.change(id.clone(), None, Kind::Removed, "contract removed".into());
                    c.old_span = Some(self.old.span(k.span));
                    c.breaking = Some(format!("contract {} is a published promise", k.name));
                    out.push(c);
                }
                Some(n) => {
                    let before = out.len();
                    let spans = ColumnSpans {
                        old: &|_| self.old.span(k.span),
                        new: &|_| self.new.span(n.span),
                        new_decl: self.new.span(n.span),
                    };
                    self.columns(out, &id, &k.columns, &n.columns, &|_, _| false, &spans);
                    // Every weakening of a contract breaks its consumers.
                    for c in &mut out[before..] {
                        if c.breaking.is_none()
                            && matches!(c.kind, Kind::Removed | Kind::Renamed | Kind::Retyped)
                        {
                            c.breaking = Some(format!(
                                "contract {} no longer promises {}",
                                k.name,
                                c.column.as_deref().unwrap_or("it")
                            ));
                        }
                    }
                }
            }
        }
        for n in new.iter().filter(|n| !old.iter().any(|k| k.name == n.name)) {
            out.push(self.added(
                NodeId::new(NodeKind::Contract, n.name.as_str()),
                None,
                "contract added".into(),
                self.new.span(n.span),
            ));
        }
    }

    fn tests(&self, out: &mut Vec<Change>) {
        let tests = |g: &Graph| -> BTreeMap<NodeId, Span> {
            g.nodes
                .iter()
                .filter(|n| n.kind == NodeKind::Test)
                .map(|n| (n.id.clone(), n.span))
                .collect()
        };
        let (old, new) = (tests(&self.old.graph), tests(&self.new.graph));
        for (id, span) in &old {
            if !new.contains_key(id) {
                let mut c = self.change(id.clone(), None, Kind::Removed, "test removed".into());
                c.old_span = Some(self.old.span(*span));
                out.push(c);
            }
        }
        for (id, span) in &new {
            if !old.contains_key(id) {
                out.push(self.added(id.clone(), None, "test added".into(), self.new.span(*span)));
            }
        }
    }
}
