//! The module's graph drawn as text: Graphviz dot and mermaid flowcharts
//! (`strata graph`), with `--columns` the column lineage between ports.

use std::fmt::Write as _;

use strata_analysis::graph::{Edge, EdgeKind, Graph, Node, NodeId, NodeKind};
use strata_plugin::html_escape;

fn dot_quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn dot_shape(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Source => "cylinder",
        NodeKind::Model => "box",
        NodeKind::Contract => "hexagon",
        NodeKind::Test => "note",
    }
}

fn title(n: &Node) -> String {
    match n.kind {
        NodeKind::Test => format!("test {}", n.name),
        _ => n.name.clone(),
    }
}

/// The graph in Graphviz's language. With columns, every node is a table
/// with a port per column and lineage edges join the ports.
pub fn dot(g: &Graph, columns: bool) -> String {
    let mut out = String::from("digraph strata {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n");
    for n in &g.nodes {
        if columns && !n.columns.is_empty() {
            let mut rows = format!(
                "<tr><td bgcolor=\"lightgrey\"><b>{}</b></td></tr>",
                html_escape(&title(n))
            );
            for c in &n.columns {
                let _ = write!(
                    rows,
                    "<tr><td port=\"c_{}\" align=\"left\">{}: {}</td></tr>",
                    c.name,
                    html_escape(&c.name),
                    html_escape(&c.ty)
                );
            }
            let _ = writeln!(
                out,
                "  {} [shape=plain, label=<<table border=\"1\" cellborder=\"0\" cellspacing=\"0\">{rows}</table>>];",
                dot_quote(&n.id.to_string())
            );
        } else {
            let _ = writeln!(
                out,
                "  {} [label={}, shape={}];",
                dot_quote(&n.id.to_string()),
                dot_quote(&title(n)),
                dot_shape(n.kind)
            );
        }
    }
    for e in &g.edges {
        let mut attrs = Vec::new();
        let label = e.label();
        if !label.is_empty() {
            attrs.push(format!("label={}", dot_quote(&label)));
        }
        if matches!(e.kind, EdgeKind::Contract | EdgeKind::Test) {
            attrs.push("style=dashed".to_string());
        }
        if columns {
            attrs.push("penwidth=2".to_string());
        }
        let attrs = if attrs.is_empty() {
            String::new()
        } else {
            format!(" [{}]", attrs.join(", "))
        };
        let _ = writeln!(
            out,
            "  {} -> {}{attrs};",
            dot_quote(&e.from.to_string()),
            dot_quote(&e.to.to_string())
        );
    }
    if columns {
        let has_ports = |id: &NodeId| g.node(id).is_some_and(|n| !n.columns.is_empty());
        for c in &g.columns {
            // Out of a column's right side, into the next one's left.
            let end = |id: &NodeId, column: &str, side: &str| {
                if has_ports(id) {
                    format!("{}:c_{column}:{side}", dot_quote(&id.to_string()))
                } else {
                    dot_quote(&id.to_string())
                }
            };
            let _ = writeln!(
                out,
                "  {} -> {} [color=grey, arrowsize=0.5, tooltip={}];",
                end(&c.from.node, &c.from.column, "e"),
                end(&c.to.node, &c.to.column, "w"),
                dot_quote(c.how)
            );
        }
    }
    out.push_str("}\n");
    out
}

/// Text inside a mermaid `"..."` label.
fn mermaid_text(s: &str) -> String {
    s.replace('"', "#quot;")
        .replace('<', "#lt;")
        .replace('>', "#gt;")
}

fn mermaid_node(id: &str, kind: NodeKind, text: &str) -> String {
    let text = mermaid_text(text);
    match kind {
        NodeKind::Source => format!("{id}[(\"{text}\")]"),
        NodeKind::Model => format!("{id}[\"{text}\"]"),
        NodeKind::Contract => format!("{id}{{{{\"{text}\"}}}}"),
        NodeKind::Test => format!("{id}>\"{text}\"]"),
    }
}

/// The graph as a mermaid flowchart. Node ids are `n0`, `n1`, ... (a name
/// such as `end` would be a mermaid keyword); with columns every node with
/// columns is a subgraph of column nodes `n0_0`, `n0_1`, ...
pub fn mermaid(g: &Graph, columns: bool) -> String {
    let index = |id: &NodeId| g.nodes.iter().position(|n| n.id == *id);
    let mut out = String::from("flowchart LR\n");
    for (i, n) in g.nodes.iter().enumerate() {
        if columns && !n.columns.is_empty() {
            let _ = writeln!(out, "  subgraph n{i}[\"{}\"]", mermaid_text(&title(n)));
            for (k, c) in n.columns.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "    n{i}_{k}[\"{}\"]",
                    mermaid_text(&format!("{}: {}", c.name, c.ty))
                );
            }
            out.push_str("  end\n");
        } else {
            let _ = writeln!(
                out,
                "  {}",
                mermaid_node(&format!("n{i}"), n.kind, &title(n))
            );
        }
    }
    let arrow = |e: &Edge| match e.kind {
        EdgeKind::Contract | EdgeKind::Test => "-.->",
        _ => "-->",
    };
    for e in &g.edges {
        let (Some(a), Some(b)) = (index(&e.from), index(&e.to)) else {
            continue;
        };
        let label = e.label();
        if label.is_empty() {
            let _ = writeln!(out, "  n{a} {} n{b}", arrow(e));
        } else {
            let _ = writeln!(
                out,
                "  n{a} {}|\"{}\"| n{b}",
                arrow(e),
                mermaid_text(&label)
            );
        }
    }
    if columns {
        let column_node = |id: &NodeId, column: &str| -> Option<String> {
            let i = index(id)?;
            Some(
                match g.nodes[i].columns.iter().position(|c| c.name == column) {
                    Some(k) => format!("n{i}_{k}"),
                    None => format!("n{i}"),
                },
            )
        };
        for c in &g.columns {
            let (Some(a), Some(b)) = (
                column_node(&c.from.node, &c.from.column),
                column_node(&c.to.node, &c.to.column),
            ) else {
                continue;
            };
            let _ = writeln!(out, "  {a} --- {b}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shop() -> Graph {
        let checked = strata_rules::check_module_text(
            "shop.strata",
            include_str!("../../../examples/shop/shop.strata"),
        );
        Graph::of(&checked.module)
    }

    #[test]
    fn dot_labels_joins_with_kind_and_promise() {
        let text = dot(&shop(), false);
        assert!(
            text.contains(
                "\"source:customers\" -> \"model:enriched_orders\" [label=\"left many_to_one\"];"
            ),
            "{text}"
        );
        assert!(
            text.contains("\"contract:EnrichedOrder\" [label=\"EnrichedOrder\", shape=hexagon];")
        );
    }

    #[test]
    fn dot_columns_join_ports() {
        let text = dot(&shop(), true);
        assert!(
            text.contains(
                "\"source:products\":c_unit_price:e -> \"model:enriched_orders\":c_revenue:w"
            ),
            "{text}"
        );
    }

    #[test]
    fn mermaid_ids_are_never_keywords() {
        let checked = strata_rules::check_module_text(
            "m.strata",
            "source end(ns: \"n\", dataset: \"d\") { columns: { id: int64 } }\nmodel graph { from end }\n",
        );
        assert!(!checked.has_errors(), "{:#?}", checked.diagnostics);
        let text = mermaid(&Graph::of(&checked.module), false);
        assert_eq!(
            text,
            "flowchart LR\n  n0[(\"end\")]\n  n1[\"graph\"]\n  n0 --> n1\n"
        );
    }
}
