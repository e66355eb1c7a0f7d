//! A checked module as a graph: its sources, models, contracts and tests,
//! what reads what, and where every column comes from. `strata graph`
//! prints it, `strata diff` follows it downstream to find the blast radius
//! of a change, `strata docs` draws it, the language server resolves names
//! against its nodes.

use std::collections::BTreeSet;

use serde::Serialize;
use strata_lang::ir::{self, ColumnRef, InputKind, InputRole, Step, TExprKind};
use strata_lang::Span;

/// What a node of the graph is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum NodeKind {
    Source,
    Model,
    Contract,
    Test,
}

impl NodeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::Source => "source",
            NodeKind::Model => "model",
            NodeKind::Contract => "contract",
            NodeKind::Test => "test",
        }
    }
}

/// A node's identity: its kind and name (`model:enriched_orders`). A test
/// is named after the model it tests, with `#2`, `#3`, ... for the second
/// and later test blocks of one model.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId {
    pub kind: NodeKind,
    pub name: String,
}

impl NodeId {
    pub fn new(kind: NodeKind, name: impl Into<String>) -> NodeId {
        NodeId {
            kind,
            name: name.into(),
        }
    }

    pub fn of_input(input: &ir::Input) -> NodeId {
        let kind = match input.kind {
            InputKind::Source => NodeKind::Source,
            InputKind::Model => NodeKind::Model,
        };
        NodeId::new(kind, input.name.as_str())
    }
}

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.kind.as_str(), self.name)
    }
}

impl Serialize for NodeId {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A column of a node, as the graph shows it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct NodeColumn {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: String,
    pub nullable: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Node {
    pub id: NodeId,
    pub kind: NodeKind,
    pub name: String,
    /// Output columns of a model, declared columns of a source or contract,
    /// the columns a test checks (empty for a source without `columns:`).
    pub columns: Vec<NodeColumn>,
    #[serde(skip)]
    pub span: Span,
}

/// How the downstream node of an edge reads the upstream one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    /// A model's `from`.
    From,
    /// A model's `join_<kind>`.
    Join,
    /// A set operation's right side (`union`, ...).
    SetOp,
    /// A model that promises a contract (`model m -> contract C`).
    Contract,
    /// A test of a model, or a test's `expect c in other.c`.
    Test,
}

#[derive(Clone, Debug, Serialize)]
pub struct Edge {
    pub from: NodeId,
    pub to: NodeId,
    pub kind: EdgeKind,
    /// `left`, `inner`, `anti` or `semi` for a join.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub join: Option<&'static str>,
    /// The join's cardinality promise (`many_to_one`, `one_to_one`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect: Option<&'static str>,
}

impl Edge {
    /// The label drawn on the edge: `left many_to_one`, `inner`, `union`...
    pub fn label(&self) -> String {
        match (self.join, self.expect) {
            (Some(j), Some(e)) => format!("{j} {e}"),
            (Some(j), None) => j.to_string(),
            _ => String::new(),
        }
    }
}

/// A column of one node.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct ColumnId {
    pub node: NodeId,
    pub column: String,
}

/// One step of column lineage: `to` is computed from (or checks) `from`.
#[derive(Clone, Debug, Serialize)]
pub struct ColumnEdge {
    pub from: ColumnId,
    pub to: ColumnId,
    /// `passthrough`, `joined`, `derived`, `aggregate`, `group_key`,
    /// `literal` for a model's output; `contract` for a contract's column;
    /// `test` for a column a test checks.
    pub how: &'static str,
}

/// A column that a model, contract or test reads, and where.
#[derive(Clone, Debug)]
pub struct Read {
    pub column: ColumnId,
    pub reader: NodeId,
    /// The clause that reads it (the reader's declaration when no finer
    /// span is known).
    pub span: Span,
    /// What the reader does with it: `select`, `filter`, `join key`, ...
    pub how: &'static str,
}

/// The whole graph of one checked module.
#[derive(Debug, Default, Serialize)]
pub struct Graph {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Column-level lineage (outputs from inputs, contract columns from the
    /// model's, tested columns).
    pub columns: Vec<ColumnEdge>,
    /// Every column read, by whom (lineage plus filters, keys, sorts...).
    #[serde(skip)]
    pub reads: Vec<Read>,
}

fn node_columns(cols: &[ir::Column]) -> Vec<NodeColumn> {
    cols.iter()
        .map(|c| NodeColumn {
            name: c.name.to_string(),
            ty: c.ty.to_string(),
            nullable: c.nullable,
        })
        .collect()
}

impl Graph {
    pub fn of(module: &ir::Module) -> Graph {
        let mut g = Graph::default();
        for s in &module.sources {
            g.nodes.push(Node {
                id: NodeId::new(NodeKind::Source, s.name.as_str()),
                kind: NodeKind::Source,
                name: s.name.clone(),
                columns: s.columns.as_deref().map(node_columns).unwrap_or_default(),
                span: s.span,
            });
        }
        for m in &module.models {
            g.add_model(module, m);
        }
        for c in &module.contracts {
            g.nodes.push(Node {
                id: NodeId::new(NodeKind::Contract, c.name.as_str()),
                kind: NodeKind::Contract,
                name: c.name.clone(),
                columns: node_columns(&c.columns),
                span: c.span,
            });
        }
        let mut seen: Vec<&str> = Vec::new();
        for t in &module.tests {
            let n = seen.iter().filter(|m| **m == t.model).count();
            seen.push(&t.model);
            let name = match n {
                0 => t.model.clone(),
                _ => format!("{}#{}", t.model, n + 1),
            };
            g.add_test(module, t, NodeId::new(NodeKind::Test, name));
        }
        g
    }

    fn add_model(&mut self, module: &ir::Module, m: &ir::Model) {
        let id = NodeId::new(NodeKind::Model, m.name.as_str());
        let first_read = self.reads.len();
        self.nodes.push(Node {
            id: id.clone(),
            kind: NodeKind::Model,
            name: m.name.clone(),
            columns: node_columns(&m.columns),
            span: m.span,
        });
        let mut joins_used = vec![false; m.joins.len()];
        for input in &m.inputs {
            let (kind, join, expect) = match input.role {
                InputRole::From => (EdgeKind::From, None, None),
                InputRole::SetOp => (EdgeKind::SetOp, None, None),
                InputRole::Join => {
                    let j = m
                        .joins
                        .iter()
                        .enumerate()
                        .find(|(i, j)| !joins_used[*i] && j.input == input.name);
                    match j {
                        Some((i, j)) => {
                            joins_used[i] = true;
                            (
                                EdgeKind::Join,
                                Some(j.kind.name()),
                                j.expect.map(|c| c.as_str()),
                            )
                        }
                        None => (EdgeKind::Join, None, None),
                    }
                }
            };
            self.edges.push(Edge {
                from: NodeId::of_input(input),
                to: id.clone(),
                kind,
                join,
                expect,
            });
        }
        for l in &m.lineage {
            for (input, column) in &l.from {
                let Some(i) = m.inputs.iter().find(|i| i.name == *input) else {
                    continue;
                };
                let from = ColumnId {
                    node: NodeId::of_input(i),
                    column: column.to_string(),
                };
                let to = ColumnId {
                    node: id.clone(),
                    column: l.column.to_string(),
                };
                self.columns.push(ColumnEdge {
                    from: from.clone(),
                    to,
                    how: l.how,
                });
                self.reads.push(Read {
                    column: from,
                    reader: id.clone(),
                    span: output_span(m, &l.column),
                    how: if l.how == "group_key" {
                        "group key"
                    } else {
                        "select"
                    },
                });
            }
        }
        // Columns read outside the outputs: filters, join keys, group keys,
        // sorts (an output's own reads are in its lineage already).
        for (step, span) in m.steps.iter().zip(&m.step_spans) {
            let how = match step {
                Step::Join { .. } => "join key",
                Step::Filter(_) => "filter",
                Step::Having(_) => "having",
                Step::Let { .. } => "let",
                Step::Group { .. } => "group key",
                Step::Sort(_) => "sort",
                Step::SetOp { input, .. } => {
                    let right = &m.inputs[*input];
                    for c in model_or_source_columns(module, right) {
                        self.reads.push(Read {
                            column: ColumnId {
                                node: NodeId::of_input(right),
                                column: c,
                            },
                            reader: id.clone(),
                            span: *span,
                            how: "set operation",
                        });
                    }
                    continue;
                }
                _ => continue,
            };
            for e in step.exprs() {
                e.walk(&mut |e| {
                    if let TExprKind::Column(ColumnRef::Input { input, column }) = &e.kind {
                        self.reads.push(Read {
                            column: ColumnId {
                                node: NodeId::of_input(&m.inputs[*input]),
                                column: column.to_string(),
                            },
                            reader: id.clone(),
                            span: *span,
                            how,
                        });
                    }
                });
            }
        }
        // A group key is read by its lineage and by its `group` step: once.
        let mut seen = BTreeSet::new();
        let mut i = first_read;
        while i < self.reads.len() {
            let r = &self.reads[i];
            if seen.insert((r.column.clone(), r.span.start, r.span.end, r.how)) {
                i += 1;
            } else {
                self.reads.remove(i);
            }
        }
        if let Some(c) = &m.contract {
            let contract = NodeId::new(NodeKind::Contract, c.as_str());
            self.edges.push(Edge {
                from: id.clone(),
                to: contract.clone(),
                kind: EdgeKind::Contract,
                join: None,
                expect: None,
            });
            let promised = module.contracts.iter().find(|k| k.name == *c);
            for col in promised.map(|k| k.columns.as_slice()).unwrap_or_default() {
                let from = ColumnId {
                    node: id.clone(),
                    column: col.name.to_string(),
                };
                self.columns.push(ColumnEdge {
                    from: from.clone(),
                    to: ColumnId {
                        node: contract.clone(),
                        column: col.name.to_string(),
                    },
                    how: "contract",
                });
                self.reads.push(Read {
                    column: from,
                    reader: contract.clone(),
                    span: m.name_span,
                    how: "contract",
                });
            }
        }
    }

    fn add_test(&mut self, module: &ir::Module, t: &ir::Test, id: NodeId) {
        let tested = NodeId::new(NodeKind::Model, t.model.as_str());
        let mut columns: Vec<NodeColumn> = Vec::new();
        let mut others: Vec<NodeId> = Vec::new();
        let model = module.models.iter().find(|m| m.name == t.model);
        for check in &t.checks {
            let read = |node: &NodeId, column: &str, span: Span, g: &mut Graph| {
                let col = ColumnId {
                    node: node.clone(),
                    column: column.to_string(),
                };
                g.columns.push(ColumnEdge {
                    from: col.clone(),
                    to: ColumnId {
                        node: id.clone(),
                        column: column.to_string(),
                    },
                    how: "test",
                });
                g.reads.push(Read {
                    column: col,
                    reader: id.clone(),
                    span,
                    how: "test",
                });
            };
            // `expect rows(a, b)` reads those output columns (every one
            // when it lists none); `given` rows read nothing of the module.
            if let strata_lang::ast::TestCheckKind::Rows {
                columns: listed, ..
            } = &check.kind
            {
                let names: Vec<&str> = match listed {
                    Some(cols) => cols.iter().map(|c| c.name.as_str()).collect(),
                    None => model
                        .map(|m| m.columns.iter().map(|c| c.name.as_str()).collect())
                        .unwrap_or_default(),
                };
                for name in names {
                    if let Some(c) = model.and_then(|m| m.columns.iter().find(|c| c.name == name)) {
                        if !columns.iter().any(|k| k.name == name) {
                            columns.extend(node_columns(std::slice::from_ref(c)));
                        }
                        read(&tested, name, check.span, self);
                    }
                }
                continue;
            }
            let target = check.target.name.as_str();
            if target != "row_count" {
                if let Some(c) = model.and_then(|m| m.columns.iter().find(|c| c.name == target)) {
                    if !columns.iter().any(|k| k.name == target) {
                        columns.extend(node_columns(std::slice::from_ref(c)));
                    }
                }
                read(&tested, target, check.span, self);
            }
            if let strata_lang::ast::TestCheckKind::In { model, column } = &check.kind {
                let other = NodeId::new(NodeKind::Model, model.name.as_str());
                read(&other, column.name.as_str(), check.span, self);
                if other != tested && !others.contains(&other) {
                    others.push(other);
                }
            }
        }
        self.nodes.push(Node {
            id: id.clone(),
            kind: NodeKind::Test,
            name: id.name.clone(),
            columns,
            span: t.span,
        });
        for from in std::iter::once(tested).chain(others) {
            self.edges.push(Edge {
                from,
                to: id.clone(),
                kind: EdgeKind::Test,
                join: None,
                expect: None,
            });
        }
    }

    pub fn node(&self, id: &NodeId) -> Option<&Node> {
        self.nodes.iter().find(|n| n.id == *id)
    }

    /// Keep only `seeds` and the nodes upstream or downstream of them.
    pub fn keep_connected(&mut self, seeds: &[NodeId]) {
        let mut keep: BTreeSet<NodeId> = seeds.iter().cloned().collect();
        for downstream in [false, true] {
            let mut todo: Vec<NodeId> = seeds.to_vec();
            while let Some(n) = todo.pop() {
                for e in &self.edges {
                    let (here, next) = if downstream {
                        (&e.from, &e.to)
                    } else {
                        (&e.to, &e.from)
                    };
                    if *here == n && keep.insert(next.clone()) {
                        todo.push(next.clone());
                    }
                }
            }
        }
        self.nodes.retain(|n| keep.contains(&n.id));
        self.edges
            .retain(|e| keep.contains(&e.from) && keep.contains(&e.to));
        self.columns
            .retain(|c| keep.contains(&c.from.node) && keep.contains(&c.to.node));
        self.reads
            .retain(|r| keep.contains(&r.column.node) && keep.contains(&r.reader));
    }
}

/// The span of the clause that defines output `column` of model `m` (the
/// model's name when it is passed through without a clause of its own).
pub fn output_span(m: &ir::Model, column: &str) -> Span {
    m.steps
        .iter()
        .zip(&m.step_spans)
        .rev()
        .find(|(s, _)| match s {
            Step::Output { name, .. } | Step::GroupOutput { name, .. } => name == column,
            Step::Group { keys } => keys.iter().any(|(n, _)| n == column),
            _ => false,
        })
        .map_or(m.name_span, |(_, span)| *span)
}

fn model_or_source_columns(module: &ir::Module, input: &ir::Input) -> Vec<String> {
    columns_of(module, &NodeId::of_input(input))
        .unwrap_or_default()
        .iter()
        .map(|c| c.name.to_string())
        .collect()
}

/// The columns of a node of the module (a test has none).
pub fn columns_of<'m>(module: &'m ir::Module, node: &NodeId) -> Option<&'m [ir::Column]> {
    match node.kind {
        NodeKind::Model => module
            .models
            .iter()
            .find(|m| m.name == node.name)
            .map(|m| m.columns.as_slice()),
        NodeKind::Source => module
            .sources
            .iter()
            .find(|s| s.name == node.name)
            .map(|s| s.columns.as_deref().unwrap_or_default()),
        NodeKind::Contract => module
            .contracts
            .iter()
            .find(|c| c.name == node.name)
            .map(|c| c.columns.as_slice()),
        NodeKind::Test => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn graph(text: &str) -> Graph {
        let checked = strata_rules::check_module_text("m.strata", text);
        assert!(!checked.has_errors(), "{:#?}", checked.diagnostics);
        Graph::of(&checked.module)
    }

    const SHOP: &str = include_str!("../../../examples/shop/shop.strata");

    #[test]
    fn one_node_per_declaration_and_one_edge_per_dependency() {
        let g = graph(SHOP);
        let ids: Vec<String> = g.nodes.iter().map(|n| n.id.to_string()).collect();
        for id in [
            "source:orders",
            "model:enriched_orders",
            "contract:EnrichedOrder",
            "test:enriched_orders",
            "test:revenue_by_country",
        ] {
            assert!(ids.contains(&id.to_string()), "{id} in {ids:?}");
        }
        let join = g
            .edges
            .iter()
            .find(|e| e.from.name == "customers" && e.to.name == "enriched_orders")
            .expect("customers -> enriched_orders");
        assert_eq!(
            (join.kind, join.join, join.expect),
            (EdgeKind::Join, Some("left"), Some("many_to_one"))
        );
        // `expect category in revenue_by_country.category`: the test reads both.
        let into_test: Vec<String> = g
            .edges
            .iter()
            .filter(|e| e.to.to_string() == "test:enriched_orders")
            .map(|e| e.from.to_string())
            .collect();
        assert_eq!(
            into_test,
            ["model:enriched_orders", "model:revenue_by_country"]
        );
    }

    #[test]
    fn reads_include_filters_and_join_keys_not_only_outputs() {
        let g = graph(SHOP);
        let readers = |node: &str, column: &str| -> Vec<(String, &'static str)> {
            g.reads
                .iter()
                .filter(|r| r.column.node.name == node && r.column.column == column)
                .map(|r| (r.reader.to_string(), r.how))
                .collect()
        };
        assert!(readers("customers", "customer_id")
            .contains(&("model:enriched_orders".to_string(), "join key")));
        assert!(readers("enriched_orders", "status")
            .contains(&("model:revenue_by_country".to_string(), "filter")));
        assert!(readers("enriched_orders", "revenue")
            .contains(&("contract:EnrichedOrder".to_string(), "contract")));
        assert!(readers("enriched_orders", "category")
            .contains(&("test:enriched_orders".to_string(), "test")));
        // Only the shop's fixture test reads customer_cards.name (its
        // `expect rows`); no model does.
        assert_eq!(
            readers("customer_cards", "name"),
            [("test:customer_cards".to_string(), "test")]
        );
    }

    #[test]
    fn a_second_test_block_of_a_model_is_its_own_node() {
        let g = graph(
            "source s(ns: \"n\", dataset: \"d\") { columns: { id: int64 } }\n\
             model m { from s }\n\
             test m { expect row_count > 0 }\n\
             test m { expect id > 0 }\n",
        );
        let tests: Vec<String> = g
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Test)
            .map(|n| n.id.to_string())
            .collect();
        assert_eq!(tests, ["test:m", "test:m#2"]);
    }

    #[test]
    fn keep_connected_keeps_upstream_and_downstream_only() {
        let mut g = graph(SHOP);
        g.keep_connected(&[NodeId::new(NodeKind::Model, "customer_stats")]);
        let ids: Vec<String> = g.nodes.iter().map(|n| n.id.to_string()).collect();
        assert_eq!(
            ids,
            [
                "source:orders",
                "model:customer_stats",
                "model:customer_cards",
                // The shop's fixture test of customer_cards.
                "test:customer_cards"
            ]
        );
    }
}
