//! One column's lineage, followed through the module's graph: what reads
//! it downstream (transitively), or what it is computed from upstream.
//! `strata lineage` prints it; `strata lineage-diff --change SRC:COL`
//! turns the downstream consumers into the E030 gate.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde::Serialize;
use strata_lang::{Diagnostic, Span};

use crate::graph::{ColumnEdge, ColumnId, Graph, NodeId, NodeKind};

/// Which way to follow the lineage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The columns computed from this one, transitively, and every other
    /// read of them (filters, join keys, sorts, contracts, tests).
    Downstream,
    /// The columns this one is computed from, transitively.
    Upstream,
}

/// A read of a column that is not a lineage edge: a filter, a join key, a
/// sort, a contract or test check. It changes a reader's rows, not a
/// column's value.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Use {
    pub column: ColumnId,
    pub reader: NodeId,
    pub how: &'static str,
}

/// The lineage of one column in one direction.
#[derive(Clone, Debug, Serialize)]
pub struct Lineage {
    pub column: ColumnId,
    pub direction: Direction,
    /// The column edges reached, in breadth-first order from the column.
    pub edges: Vec<ColumnEdge>,
    /// Downstream only: the other reads of the column and of every column
    /// reached.
    pub uses: Vec<Use>,
}

impl Lineage {
    /// Every column or node that consumes the column downstream: the
    /// columns computed from it and the readers of its other uses, each
    /// once, as `node.column` or `kind node`.
    pub fn consumers(&self) -> Vec<String> {
        let mut out: BTreeSet<String> = self
            .edges
            .iter()
            .map(|e| format!("{}.{}", e.to.node.name, e.to.column))
            .collect();
        out.extend(
            self.uses
                .iter()
                .map(|u| format!("{} {}", u.reader.kind.as_str(), u.reader.name)),
        );
        out.into_iter().collect()
    }
}

/// The column `spec` names: `node.column` or `node:column` (the
/// reference's `--change` form), a model, source or contract column.
pub fn resolve(graph: &Graph, spec: &str) -> Result<ColumnId, String> {
    let Some((node, column)) = spec.split_once(['.', ':']) else {
        return Err(format!(
            "'{spec}' does not name a column: write MODEL.COLUMN or SOURCE.COLUMN"
        ));
    };
    let kinds = [NodeKind::Model, NodeKind::Source, NodeKind::Contract];
    let Some(n) = kinds
        .iter()
        .find_map(|k| graph.node(&NodeId::new(*k, node)))
    else {
        let names = graph
            .nodes
            .iter()
            .filter(|n| n.kind != NodeKind::Test)
            .map(|n| n.name.as_str());
        let hint = strata_lang::suggest::closest(node, names)
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        return Err(format!("no model, source or contract '{node}'{hint}"));
    };
    if !n.columns.iter().any(|c| c.name == column) {
        let hint = strata_lang::suggest::closest(column, n.columns.iter().map(|c| c.name.as_str()))
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
        return Err(format!(
            "{} {node} has no column '{column}'{hint}",
            n.kind.as_str()
        ));
    }
    Ok(ColumnId {
        node: n.id.clone(),
        column: column.to_string(),
    })
}

/// Follow `column` through `graph` in `direction`.
pub fn trace(graph: &Graph, column: &ColumnId, direction: Direction) -> Lineage {
    let mut seen: BTreeSet<ColumnId> = BTreeSet::from([column.clone()]);
    let mut order = vec![column.clone()];
    let mut edges = Vec::new();
    let mut i = 0;
    while i < order.len() {
        let here = order[i].clone();
        i += 1;
        for e in &graph.columns {
            let (at, next) = match direction {
                Direction::Downstream => (&e.from, &e.to),
                Direction::Upstream => (&e.to, &e.from),
            };
            if *at == here {
                edges.push(e.clone());
                if seen.insert(next.clone()) {
                    order.push(next.clone());
                }
            }
        }
    }
    let mut uses = BTreeSet::new();
    if direction == Direction::Downstream {
        for r in &graph.reads {
            if !seen.contains(&r.column) {
                continue;
            }
            // A read that is a lineage edge of this column is shown as one
            // (a filter or key of the same reader is a use of its own).
            let lineage_read = matches!(r.how, "select" | "group key" | "contract" | "test");
            let is_edge = lineage_read
                && graph
                    .columns
                    .iter()
                    .any(|e| e.from == r.column && e.to.node == r.reader);
            if !is_edge {
                uses.insert(Use {
                    column: r.column.clone(),
                    reader: r.reader.clone(),
                    how: r.how,
                });
            }
        }
    }
    Lineage {
        column: column.clone(),
        direction,
        edges,
        uses: uses.into_iter().collect(),
    }
}

/// Every `protected` column of the module's sources and models that
/// something reads downstream, with its consumers (`strata status`: the
/// blast surface of changing them).
pub fn protected_consumers(
    graph: &Graph,
    module: &strata_lang::ir::Module,
) -> Vec<(ColumnId, Vec<String>)> {
    let sources = module.sources.iter().map(|s| {
        (
            NodeKind::Source,
            s.name.as_str(),
            s.columns.as_deref().unwrap_or_default(),
        )
    });
    let models = module
        .models
        .iter()
        .map(|m| (NodeKind::Model, m.name.as_str(), m.columns.as_slice()));
    let mut out = Vec::new();
    for (kind, node, columns) in sources.chain(models) {
        for c in columns.iter().filter(|c| c.protected) {
            let id = ColumnId {
                node: NodeId::new(kind, node),
                column: c.name.to_string(),
            };
            let consumers = trace(graph, &id, Direction::Downstream).consumers();
            if !consumers.is_empty() {
                out.push((id, consumers));
            }
        }
    }
    out
}

/// The E030 of `lineage-diff --change SRC:COL`: changing or removing the
/// column breaks its consumers. `None` when nothing consumes it.
pub fn change_diagnostic(lineage: &Lineage, span: Span) -> Option<Diagnostic> {
    let consumers = lineage.consumers();
    if consumers.is_empty() {
        return None;
    }
    let c = &lineage.column;
    const SHOWN: usize = 8;
    let mut shown = consumers
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if consumers.len() > SHOWN {
        shown.push_str(&format!(" and {} more", consumers.len() - SHOWN));
    }
    Some(
        Diagnostic::new(
            &strata_codes::E030,
            span,
            format!(
                "breaking change: {} consumer(s) read {}.{} downstream",
                consumers.len(),
                c.node.name,
                c.column
            ),
        )
        .with_label(format!("removing or narrowing {} breaks them", c.column))
        .with_note(format!("consumers: {shown}"))
        .with_help(
            "keep the column as it is until every consumer has moved off it \
             (`strata lineage FILE NODE.COLUMN` lists them)",
        ),
    )
}

/// `node.column`, as the text and dot renderings name a column.
pub fn column_name(c: &ColumnId) -> String {
    format!("{}.{}", c.node.name, c.column)
}

impl Lineage {
    /// One edge a line, then the other reads (`strata lineage`).
    pub fn text(&self) -> String {
        let l = self;
        let mut out = String::new();
        let way = match l.direction {
            Direction::Downstream => "downstream",
            Direction::Upstream => "upstream",
        };
        let _ = writeln!(
            out,
            "{} ({}), {way}:",
            column_name(&l.column),
            l.column.node.kind.as_str()
        );
        if l.edges.is_empty() {
            let _ = writeln!(out, "  no column edges");
        }
        for e in &l.edges {
            let _ = writeln!(
                out,
                "  {} -> {}  ({})",
                column_name(&e.from),
                column_name(&e.to),
                e.how
            );
        }
        if !l.uses.is_empty() {
            let _ = writeln!(out, "also read by:");
            for u in &l.uses {
                let _ = writeln!(
                    out,
                    "  {} {} reads {} ({})",
                    u.reader.kind.as_str(),
                    u.reader.name,
                    column_name(&u.column),
                    u.how
                );
            }
        }
        out
    }

    /// Graphviz dot: the column bold, its edges, the other reads dashed.
    pub fn dot(&self) -> String {
        let l = self;
        let q = |s: &str| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
        let mut out = String::from("digraph lineage {\n  rankdir=LR;\n  node [fontname=\"Helvetica\", shape=box];\n  edge [fontname=\"Helvetica\", fontsize=10];\n");
        let _ = writeln!(out, "  {} [style=bold];", q(&column_name(&l.column)));
        for e in &l.edges {
            let _ = writeln!(
                out,
                "  {} -> {} [label={}];",
                q(&column_name(&e.from)),
                q(&column_name(&e.to)),
                q(e.how)
            );
        }
        for u in &l.uses {
            let reader = u.reader.to_string();
            let _ = writeln!(out, "  {} [shape=ellipse];", q(&reader));
            let _ = writeln!(
                out,
                "  {} -> {} [label={}, style=dashed];",
                q(&column_name(&u.column)),
                q(&reader),
                q(u.how)
            );
        }
        out.push_str("}\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHOP: &str = include_str!("../../../examples/shop/shop.strata");

    fn graph() -> Graph {
        let checked = strata_rules::check_module_text("shop.strata", SHOP);
        assert!(!checked.has_errors(), "{:#?}", checked.diagnostics);
        Graph::of(&checked.module)
    }

    fn edges(l: &Lineage) -> Vec<String> {
        l.edges
            .iter()
            .map(|e| {
                format!(
                    "{}.{} -> {}.{}",
                    e.from.node.name, e.from.column, e.to.node.name, e.to.column
                )
            })
            .collect()
    }

    #[test]
    fn downstream_follows_columns_transitively_and_lists_other_reads() {
        let g = graph();
        let c = resolve(&g, "orders.customer_id").expect("resolves");
        let l = trace(&g, &c, Direction::Downstream);
        assert_eq!(
            edges(&l),
            ["orders.customer_id -> customer_stats.customer_id"]
        );
        let uses: Vec<(String, &str)> = l
            .uses
            .iter()
            .map(|u| (u.reader.to_string(), u.how))
            .collect();
        assert!(
            uses.contains(&("model:enriched_orders".into(), "join key")),
            "{uses:?}"
        );
        assert!(
            uses.contains(&("model:customer_stats".into(), "filter")),
            "{uses:?}"
        );
        // Transitively: customer_cards joins on customer_stats.customer_id.
        assert!(
            uses.contains(&("model:customer_cards".into(), "join key")),
            "{uses:?}"
        );
        assert!(change_diagnostic(&l, Span::default()).is_some());
    }

    #[test]
    fn upstream_reaches_the_sources() {
        let g = graph();
        let c = resolve(&g, "revenue_by_country:revenue").expect("resolves");
        let l = trace(&g, &c, Direction::Upstream);
        let e = edges(&l);
        assert!(e.contains(&"orders.quantity -> enriched_orders.revenue".to_string()));
        assert!(e.contains(&"products.unit_price -> enriched_orders.revenue".to_string()));
        assert!(l.uses.is_empty());
    }

    #[test]
    fn an_unread_column_has_no_consumers() {
        let g = graph();
        let c = resolve(&g, "customers.segment").expect("resolves");
        let l = trace(&g, &c, Direction::Downstream);
        assert!(l.consumers().is_empty(), "{:?}", l.consumers());
        assert!(change_diagnostic(&l, Span::default()).is_none());
    }

    #[test]
    fn protected_columns_with_readers_are_listed() {
        let text = SHOP.replace(
            "country: string\n    segment",
            "country: string protected\n    segment",
        );
        let checked = strata_rules::check_module_text("shop.strata", &text);
        assert!(!checked.has_errors(), "{:#?}", checked.diagnostics);
        let g = Graph::of(&checked.module);
        let p = protected_consumers(&g, &checked.module);
        assert_eq!(p.len(), 1, "{p:?}");
        assert_eq!(p[0].0.column, "country");
        assert!(
            p[0].1.contains(&"enriched_orders.country".to_string()),
            "{p:?}"
        );
        assert!(
            p[0].1.contains(&"revenue_by_country.country".to_string()),
            "{p:?}"
        );
    }

    #[test]
    fn unknown_names_are_told_with_a_suggestion() {
        let g = graph();
        let e = resolve(&g, "orders.custmer_id").expect_err("unknown column");
        assert!(e.contains("did you mean `customer_id`"), "{e}");
        let e = resolve(&g, "order.customer_id").expect_err("unknown node");
        assert!(e.contains("did you mean `orders`"), "{e}");
        assert!(resolve(&g, "orders").is_err());
    }
}
