//! What changed between two versions of a module, column by column, and
//! what downstream each change reaches (its blast radius), followed through
//! the old version's graph: the consumers that relied on what was there.
//!
//! A change is **breaking** (E030) when it can invalidate a consumer:
//!
//! * a column that a downstream model, contract or test reads (or a
//!   `protected` one) is removed, renamed or retyped (only widening a
//!   decimal keeps it compatible);
//! * a column that a contract or test reads (or a protected one) becomes
//!   nullable;
//! * a model or source that something reads is removed or renamed;
//! * a promise is weakened: a join's `expect` dropped or relaxed from
//!   `one_to_one` to `many_to_one`, a model no longer promising its
//!   contract, a contract losing a column, its `nonnull`, `unique` or
//!   `primary_key`, gaining enum values or changing a type, or removed.
//!
//! Everything else (added models and columns, a changed definition, a
//! changed join kind, a strengthened promise) is reported with its blast
//! radius but does not fail the gate.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use strata_codes as codes;
use strata_lang::ir::{self, Column};
use strata_lang::types::Type;
use strata_lang::{Checked, Diagnostic, SourceMap, Span};

use crate::project::{output_span, ColumnId, Graph, NodeId, NodeKind, Read};

/// One version of the module: what was checked, its graph, and where its
/// files start in the source map both versions share.
pub struct Version<'a> {
    pub checked: &'a Checked,
    pub graph: Graph,
    file_offset: u32,
}

impl Version<'_> {
    /// A span of this version in the shared source map.
    fn span(&self, s: Span) -> Span {
        Span {
            file: strata_lang::FileId(s.file.0 + self.file_offset),
            ..s
        }
    }

    fn model(&self, name: &str) -> Option<&ir::Model> {
        self.checked.module.models.iter().find(|m| m.name == name)
    }
}

/// What kind of change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Added,
    Removed,
    Renamed,
    Retyped,
    /// A column became nullable.
    Nullable,
    /// A column became non-null.
    Nonnull,
    /// `unique`, `primary_key`, `protected` or enum values changed.
    Flags,
    /// A model's definition changed (its columns did not).
    Definition,
    /// A join's kind (`left`, `inner`, ...) changed.
    JoinKind,
    JoinAdded,
    JoinRemoved,
    /// A join's `expect` promise changed.
    Promise,
    /// The contract a model promises changed.
    Contract,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Added => "added",
            Kind::Removed => "removed",
            Kind::Renamed => "renamed",
            Kind::Retyped => "retyped",
            Kind::Nullable => "nullable",
            Kind::Nonnull => "nonnull",
            Kind::Flags => "flags",
            Kind::Definition => "definition",
            Kind::JoinKind => "join kind",
            Kind::JoinAdded => "join added",
            Kind::JoinRemoved => "join removed",
            Kind::Promise => "promise",
            Kind::Contract => "contract",
        }
    }
}

/// Everything downstream that a change reaches.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Downstream {
    pub columns: BTreeSet<ColumnId>,
    pub models: BTreeSet<String>,
    pub contracts: BTreeSet<String>,
    pub tests: BTreeSet<String>,
}

impl Downstream {
    pub fn is_empty(&self) -> bool {
        self.models.is_empty() && self.contracts.is_empty() && self.tests.is_empty()
    }

    fn add_node(&mut self, id: &NodeId) {
        let set = match id.kind {
            NodeKind::Model => &mut self.models,
            NodeKind::Contract => &mut self.contracts,
            NodeKind::Test => &mut self.tests,
            NodeKind::Source => return,
        };
        set.insert(id.name.clone());
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Change {
    /// The node changed (`model:enriched_orders`).
    pub node: NodeId,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    pub kind: Kind,
    /// What changed, as text: `revenue: float64 -> int64`.
    pub detail: String,
    /// Why the change breaks a consumer; `None` when it does not.
    pub breaking: Option<String>,
    pub downstream: Downstream,
    /// Where it was (old version) and is (new version), in the shared map.
    #[serde(skip)]
    pub old_span: Option<Span>,
    #[serde(skip)]
    pub new_span: Option<Span>,
    /// The old version's direct readers of what changed.
    #[serde(skip)]
    pub readers: Vec<Read>,
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
    renames: std::cell::RefCell<BTreeMap<ColumnId, String>>,
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

    /// Every change, sources first, then models, contracts and tests.
    pub fn changes(&self) -> Vec<Change> {
        let mut out = Vec::new();
        self.sources(&mut out);
        self.models(&mut out);
        self.contracts(&mut out);
        self.tests(&mut out);
        out
    }

    fn change(&self, node: NodeId, column: Option<&str>, kind: Kind, detail: String) -> Change {
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
    fn added(&self, node: NodeId, column: Option<&str>, detail: String, span: Span) -> Change {
        let mut c = self.change(node, column, Kind::Added, detail);
        c.new_span = Some(span);
        c
    }

    /// The old version's direct readers of `node`'s column (any column when
    /// `column` is `None`).
    fn readers(&self, node: &NodeId, column: Option<&str>) -> Vec<Read> {
        self.old
            .graph
            .reads
            .iter()
            .filter(|r| r.column.node == *node && column.is_none_or(|c| r.column.column == c))
            .cloned()
            .collect()
    }

    /// What the old version computes from `node.column`, transitively.
    fn column_downstream(&self, node: &NodeId, column: &str) -> Downstream {
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
    fn node_downstream(&self, node: &NodeId) -> Downstream {
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

    fn models(&self, out: &mut Vec<Change>) {
        let old = &self.old.checked.module.models;
        let new = &self.new.checked.module.models;
        let removed: Vec<&ir::Model> = old
            .iter()
            .filter(|m| self.new.model(&m.name).is_none())
            .collect();
        let mut added: Vec<&ir::Model> = new
            .iter()
            .filter(|m| self.old.model(&m.name).is_none())
            .collect();
        for m in removed {
            let id = NodeId::new(NodeKind::Model, m.name.as_str());
            // The same columns from the same inputs under a new name.
            let same = |n: &&ir::Model| {
                n.columns == m.columns
                    && n.inputs
                        .iter()
                        .map(|i| &i.name)
                        .eq(m.inputs.iter().map(|i| &i.name))
            };
            let renamed = added.iter().position(same).map(|i| added.remove(i));
            let (kind, detail) = match renamed {
                Some(n) => (Kind::Renamed, format!("model {} -> {}", m.name, n.name)),
                None => (Kind::Removed, "model removed".to_string()),
            };
            let mut c = self.change(id.clone(), None, kind, detail);
            c.old_span = Some(self.old.span(m.name_span));
            c.new_span = renamed.map(|n| self.new.span(n.name_span));
            c.readers = self.readers(&id, None);
            c.downstream = self.node_downstream(&id);
            if !c.downstream.is_empty() {
                c.breaking = Some(format!("model {} is read downstream", m.name));
            } else if let Some(k) = &m.contract {
                c.breaking = Some(format!("model {} promised contract {k}", m.name));
            }
            out.push(c);
        }
        for m in old {
            if let Some(n) = self.new.model(&m.name) {
                self.model(out, m, n);
            }
        }
        for n in added {
            out.push(self.added(
                NodeId::new(NodeKind::Model, n.name.as_str()),
                None,
                "model added".into(),
                self.new.span(n.name_span),
            ));
        }
    }

    fn model(&self, out: &mut Vec<Change>, m: &ir::Model, n: &ir::Model) {
        let id = NodeId::new(NodeKind::Model, m.name.as_str());
        let before = out.len();
        if n.ok || n.schema_complete {
            let spans = ColumnSpans {
                old: &|c| self.old.span(output_span(m, c)),
                new: &|c| self.new.span(output_span(n, c)),
                new_decl: self.new.span(n.name_span),
            };
            let renames = self.renames.borrow().clone();
            let lineage = |old: &str, new: &str| {
                let from = |model: &ir::Model, c: &str, map: bool| {
                    let l = model.lineage.iter().find(|l| l.column == c)?;
                    let from: Vec<(String, String)> = l
                        .from
                        .iter()
                        .map(|(input, col)| {
                            let renamed = model
                                .inputs
                                .iter()
                                .find(|i| i.name == *input)
                                .filter(|_| map)
                                .and_then(|i| {
                                    renames.get(&ColumnId {
                                        node: NodeId::of_input(i),
                                        column: col.to_string(),
                                    })
                                });
                            (
                                input.to_string(),
                                renamed.map_or(col.to_string(), String::clone),
                            )
                        })
                        .collect();
                    Some((from, l.how))
                };
                from(m, old, true)
                    .is_some_and(|l| !l.0.is_empty() && Some(l) == from(n, new, false))
            };
            self.columns(out, &id, &m.columns, &n.columns, &lineage, &spans);
        }
        self.joins(out, &id, m, n);
        if m.contract != n.contract {
            let detail = format!(
                "contract {} -> {}",
                m.contract.as_deref().unwrap_or("none"),
                n.contract.as_deref().unwrap_or("none")
            );
            let mut c = self.change(id.clone(), None, Kind::Contract, detail);
            c.old_span = Some(self.old.span(m.name_span));
            c.new_span = Some(self.new.span(n.name_span));
            c.downstream = self.node_downstream(&id);
            if let Some(k) = &m.contract {
                c.breaking = Some(format!("model {} no longer promises contract {k}", m.name));
            }
            out.push(c);
        }
        if out.len() == before && self.definition(m) != self.new_definition(n) {
            let mut c = self.change(
                id.clone(),
                None,
                Kind::Definition,
                "definition changed (same columns)".into(),
            );
            c.old_span = Some(self.old.span(m.span));
            c.new_span = Some(self.new.span(n.span));
            c.downstream = self.node_downstream(&id);
            out.push(c);
        }
    }

    /// A model's text without comments and with every run of whitespace
    /// one space: what a definition change is judged on.
    fn definition(&self, m: &ir::Model) -> String {
        definition_text(self.old.checked, m)
    }

    fn new_definition(&self, m: &ir::Model) -> String {
        definition_text(self.new.checked, m)
    }

    fn joins(&self, out: &mut Vec<Change>, id: &NodeId, m: &ir::Model, n: &ir::Model) {
        let mut used = vec![false; n.joins.len()];
        for j in &m.joins {
            let found = n
                .joins
                .iter()
                .enumerate()
                .find(|(i, k)| !used[*i] && k.input == j.input);
            let Some((i, k)) = found else {
                let mut c = self.change(
                    id.clone(),
                    None,
                    Kind::JoinRemoved,
                    format!("{} {} removed", j.kind.keyword(), j.input),
                );
                c.old_span = Some(self.old.span(j.keyword_span));
                c.downstream = self.node_downstream(id);
                if let Some(e) = j.expect {
                    c.breaking = Some(format!(
                        "the join promised {}: the model's rows change",
                        e.as_str()
                    ));
                }
                out.push(c);
                continue;
            };
            used[i] = true;
            if j.kind != k.kind {
                let mut c = self.change(
                    id.clone(),
                    None,
                    Kind::JoinKind,
                    format!("{} {} -> {}", j.kind.keyword(), j.input, k.kind.keyword()),
                );
                c.old_span = Some(self.old.span(j.keyword_span));
                c.new_span = Some(self.new.span(k.keyword_span));
                c.downstream = self.node_downstream(id);
                out.push(c);
            }
            if j.expect != k.expect {
                let name = |e: Option<strata_lang::ast::Cardinality>| {
                    e.map_or("no promise", |e| e.as_str())
                };
                let mut c = self.change(
                    id.clone(),
                    None,
                    Kind::Promise,
                    format!(
                        "{} {}: expect {} -> {}",
                        k.kind.keyword(),
                        k.input,
                        name(j.expect),
                        name(k.expect)
                    ),
                );
                c.old_span = Some(self.old.span(j.expect_span.unwrap_or(j.keyword_span)));
                c.new_span = Some(self.new.span(k.expect_span.unwrap_or(k.keyword_span)));
                c.downstream = self.node_downstream(id);
                if strength(k.expect) < strength(j.expect) {
                    c.breaking = Some(format!(
                        "the promise on {} {} is weakened",
                        k.kind.keyword(),
                        k.input
                    ));
                }
                out.push(c);
            }
        }
        for (k, _) in n.joins.iter().zip(&used).filter(|(_, u)| !**u) {
            let mut c = self.change(
                id.clone(),
                None,
                Kind::JoinAdded,
                format!("{} {} added", k.kind.keyword(), k.input),
            );
            c.new_span = Some(self.new.span(k.keyword_span));
            c.downstream = self.node_downstream(id);
            out.push(c);
        }
    }

    /// Compare the columns of one node in both versions. `renamed(old,
    /// new)` says whether a removed and an added column are one column
    /// renamed (the same type is required too).
    fn columns(
        &self,
        out: &mut Vec<Change>,
        id: &NodeId,
        old: &[Column],
        new: &[Column],
        renamed: &dyn Fn(&str, &str) -> bool,
        spans: &ColumnSpans,
    ) {
        let mut added: Vec<&Column> = new
            .iter()
            .filter(|c| !old.iter().any(|o| o.name == c.name))
            .collect();
        for o in old {
            let readers = self.readers(id, Some(&o.name));
            let read_by = describe_readers(&readers);
            let Some(n) = new.iter().find(|n| n.name == o.name) else {
                let to = added
                    .iter()
                    .position(|a| a.ty == o.ty && renamed(&o.name, &a.name))
                    .map(|i| added.remove(i));
                if let Some(a) = to {
                    self.renames.borrow_mut().insert(
                        ColumnId {
                            node: id.clone(),
                            column: o.name.to_string(),
                        },
                        a.name.to_string(),
                    );
                }
                let (kind, detail) = match to {
                    Some(a) => (Kind::Renamed, format!("{} -> {}", o.name, a.name)),
                    None => (Kind::Removed, format!("{}: {}", o.name, o.ty)),
                };
                let mut c = self.change(id.clone(), Some(&o.name), kind, detail);
                c.old_span = Some((spans.old)(&o.name));
                c.new_span = Some(to.map_or(spans.new_decl, |a| (spans.new)(&a.name)));
                c.downstream = self.column_downstream(id, &o.name);
                c.breaking = match (&read_by, o.protected) {
                    (Some(r), _) => Some(format!("{}.{} is read by {r}", id.name, o.name)),
                    (None, true) => Some(format!("{}.{} is protected", id.name, o.name)),
                    (None, false) => None,
                };
                c.readers = readers;
                out.push(c);
                continue;
            };
            let mut push = |kind: Kind, detail: String, breaking: Option<String>| {
                let mut c = self.change(id.clone(), Some(&o.name), kind, detail);
                c.old_span = Some((spans.old)(&o.name));
                c.new_span = Some((spans.new)(&n.name));
                c.downstream = self.column_downstream(id, &o.name);
                c.breaking = breaking;
                c.readers = readers.clone();
                out.push(c);
            };
            // A column of unknown type (the new version has errors upstream)
            // cannot be compared.
            if o.ty != n.ty && n.ty != Type::Unknown {
                let breaking = match (&read_by, o.protected) {
                    _ if widens(&o.ty, &n.ty) => None,
                    (Some(r), _) => Some(format!("{}.{} is read by {r}", id.name, o.name)),
                    (None, true) => Some(format!("{}.{} is protected", id.name, o.name)),
                    (None, false) => None,
                };
                push(
                    Kind::Retyped,
                    format!("{}: {} -> {}", o.name, o.ty, n.ty),
                    breaking,
                );
            }
            if o.nullable != n.nullable {
                if n.nullable {
                    let strict: Vec<&Read> = readers
                        .iter()
                        .filter(|r| matches!(r.reader.kind, NodeKind::Contract | NodeKind::Test))
                        .collect();
                    let breaking = match strict.first() {
                        Some(r) => Some(format!(
                            "{}.{} may now be null and {} reads it",
                            id.name, o.name, r.reader
                        )),
                        None if o.protected => Some(format!("{}.{} is protected", id.name, o.name)),
                        None if id.kind == NodeKind::Contract => Some(format!(
                            "contract {} no longer promises it non-null",
                            id.name
                        )),
                        None => None,
                    };
                    push(
                        Kind::Nullable,
                        format!("{} may now be null", o.name),
                        breaking,
                    );
                } else {
                    push(Kind::Nonnull, format!("{} is now nonnull", o.name), None);
                }
            }
            let lost = lost_flags(o, n);
            let gained = lost_flags(n, o);
            if !lost.is_empty() || !gained.is_empty() {
                let mut parts = Vec::new();
                if !lost.is_empty() {
                    parts.push(format!("lost {}", lost.join(", ")));
                }
                if !gained.is_empty() {
                    parts.push(format!("gained {}", gained.join(", ")));
                }
                let breaking = if lost.is_empty() {
                    None
                } else if id.kind == NodeKind::Contract {
                    Some(format!(
                        "contract {} promises less: {}",
                        id.name,
                        lost.join(", ")
                    ))
                } else if lost.contains(&"protected") {
                    Some(format!("{}.{} is no longer protected", id.name, o.name))
                } else {
                    None
                };
                push(
                    Kind::Flags,
                    format!("{}: {}", o.name, parts.join("; ")),
                    breaking,
                );
            }
        }
        for a in added {
            out.push(self.added(
                id.clone(),
                Some(&a.name),
                format!("{}: {}", a.name, a.ty),
                (spans.new)(&a.name),
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

    /// A diagnostic of the new version, pointing into the shared map.
    pub fn new_diagnostic(&self, d: &Diagnostic) -> Diagnostic {
        let mut d = d.clone();
        d.span = self.new.span(d.span);
        for l in &mut d.labels {
            l.span = self.new.span(l.span);
        }
        d
    }

    /// The E030 diagnostic of a breaking change: at the change in the new
    /// version (or where it was, for a removal), with where it was and who
    /// reads it in the old version.
    pub fn diagnostic(&self, c: &Change) -> Option<Diagnostic> {
        let why = c.breaking.as_ref()?;
        let what = match &c.column {
            Some(col) => format!("{} {}.{}", c.kind.as_str(), c.node.name, col),
            None => format!("{} {}: {}", c.node.kind.as_str(), c.node.name, c.detail),
        };
        let primary = c.new_span.or(c.old_span)?;
        let mut d = Diagnostic::new(&codes::E030, primary, format!("breaking change: {what}"))
            .with_label(c.detail.clone());
        if let (Some(old), Some(_)) = (c.old_span, c.new_span) {
            d = d.with_secondary(old, "before");
        }
        const SHOWN: usize = 4;
        for r in c.readers.iter().take(SHOWN) {
            d = d.with_secondary(
                self.old.span(r.span),
                format!(
                    "{} {} reads {} here ({})",
                    r.reader.kind.as_str(),
                    r.reader.name,
                    r.column.column,
                    r.how
                ),
            );
        }
        if c.readers.len() > SHOWN {
            d = d.with_note(format!("and {} more reads", c.readers.len() - SHOWN));
        }
        d = d.with_note(why.clone());
        if !c.downstream.is_empty() {
            d = d.with_note(format!("reaches {}", describe_downstream(&c.downstream)));
        }
        let help = match c.kind {
            Kind::Removed | Kind::Renamed | Kind::Retyped => {
                "keep the old one beside the new one until every consumer has moved to it, \
                 then remove it in a later change"
            }
            Kind::Promise | Kind::JoinRemoved => {
                "keep the promise (make it true by construction: `dedup by` the key upstream), \
                 or tell the consumers that rows may now repeat"
            }
            _ => "if the consumers can take it, change them first; otherwise keep the promise",
        };
        Some(d.with_help(help))
    }
}

/// Where a node's columns are declared in each version.
struct ColumnSpans<'f> {
    old: &'f dyn Fn(&str) -> Span,
    new: &'f dyn Fn(&str) -> Span,
    /// The node in the new version (where a removed column was dropped).
    new_decl: Span,
}

fn definition_text(checked: &Checked, m: &ir::Model) -> String {
    let file = checked.sources.get(m.span.file);
    let mut text = String::new();
    let start = m.span.start as usize;
    let end = (m.span.end as usize).min(file.text.len());
    let mut at = start;
    for c in checked.comments.iter().filter(|c| {
        c.span.file == m.span.file && c.span.start as usize >= start && c.span.end as usize <= end
    }) {
        text.push_str(file.text.get(at..c.span.start as usize).unwrap_or_default());
        text.push(' ');
        at = c.span.end as usize;
    }
    text.push_str(file.text.get(at..end).unwrap_or_default());
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// How strong a join promise is: none < many_to_one < one_to_one.
fn strength(e: Option<strata_lang::ast::Cardinality>) -> u8 {
    use strata_lang::ast::Cardinality;
    match e {
        None => 0,
        Some(Cardinality::ManyToOne) => 1,
        Some(Cardinality::OneToOne) => 2,
    }
}

/// Whether every value of `old` fits `new` exactly: only a decimal that
/// keeps its scale or more, and its integer digits or more.
fn widens(old: &Type, new: &Type) -> bool {
    match (old, new) {
        (Type::Decimal(p, s), Type::Decimal(q, t)) => t >= s && q - t >= p - s,
        _ => false,
    }
}

/// The flags `a` has and `b` has not (enum values: `b` accepting more).
fn lost_flags(a: &Column, b: &Column) -> Vec<&'static str> {
    let mut lost = Vec::new();
    if a.primary_key && !b.primary_key {
        lost.push("primary_key");
    }
    if a.unique && !b.unique {
        lost.push("unique");
    }
    if a.protected && !b.protected {
        lost.push("protected");
    }
    let accepts_more = match (&a.enum_values, &b.enum_values) {
        (Some(_), None) => true,
        (Some(x), Some(y)) => y.iter().any(|v| !x.contains(v)),
        _ => false,
    };
    if accepts_more {
        lost.push("enum values");
    }
    lost
}

/// `revenue_by_country (filter), test enriched_orders`, or `None`.
fn describe_readers(readers: &[Read]) -> Option<String> {
    let mut names: Vec<String> = Vec::new();
    for r in readers {
        let name = match r.reader.kind {
            NodeKind::Model => format!("{} ({})", r.reader.name, r.how),
            kind => format!("{} {}", kind.as_str(), r.reader.name),
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    (!names.is_empty()).then(|| names.join(", "))
}

/// `2 models (a, b), contract C, 1 test (t)`.
pub fn describe_downstream(d: &Downstream) -> String {
    let part = |set: &BTreeSet<String>, one: &str, many: &str| -> Option<String> {
        let names: Vec<&str> = set.iter().map(String::as_str).collect();
        match names.len() {
            0 => None,
            1 => Some(format!("{one} {}", names[0])),
            n => Some(format!("{n} {many} ({})", names.join(", "))),
        }
    };
    [
        part(&d.models, "model", "models"),
        part(&d.contracts, "contract", "contracts"),
        part(&d.tests, "test", "tests"),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(", ")
}
