//! The pages of the site: the index, and one page per model, source and
//! contract. Every text from the module goes through [`esc`].

use std::fmt::Write as _;

use strata_analysis::graph::{ColumnId, EdgeKind, NodeId, NodeKind};
use strata_lang::ir::{self, Column};

mod index;
mod model;

use crate::html::{esc, prose};
use crate::site::Docs;

/// The scripts of the index page, in order. They come right after the
/// graph's section, before the lists: the graph is drawn while the browser
/// reads the rest (thousands of rows for a large module).
const INDEX_SCRIPTS: &[&str] = &["assets/cytoscape.min.js", "graph.js", "assets/site.js"];

impl Docs<'_> {
    /// A link to a node's page from a page at `root`.
    fn link(&self, id: &NodeId, root: &str) -> String {
        let text = match id.kind {
            NodeKind::Test => format!("test {}", id.name),
            _ => id.name.clone(),
        };
        format!(
            "<a class=\"{}\" href=\"{root}{}\">{}</a>",
            id.kind.as_str(),
            esc(self.url(id)),
            esc(&text)
        )
    }

    /// A link to a column, on its node's page.
    fn column_link(&self, c: &ColumnId, root: &str) -> String {
        let page = self.url(&c.node);
        let page = page.split('#').next().unwrap_or(page);
        format!(
            "<a href=\"{root}{}#col-{}\">{}.{}</a>",
            esc(page),
            esc(&c.column),
            esc(&c.node.name),
            esc(&c.column)
        )
    }

    fn upstream(&self, id: &NodeId) -> Vec<(&NodeId, EdgeKind, String)> {
        self.graph
            .edges
            .iter()
            .filter(|e| e.to == *id)
            .map(|e| (&e.from, e.kind, e.label()))
            .collect()
    }

    fn downstream(&self, id: &NodeId) -> Vec<&NodeId> {
        let mut out: Vec<&NodeId> = Vec::new();
        for e in self.graph.edges.iter().filter(|e| e.from == *id) {
            if !out.contains(&&e.to) {
                out.push(&e.to);
            }
        }
        out
    }

    /// The links to `ids` (or "none").
    fn links(&self, ids: &[&NodeId], root: &str) -> String {
        if ids.is_empty() {
            return "<span class=\"none\">none</span>".to_string();
        }
        ids.iter()
            .map(|id| self.link(id, root))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The page's title, kind and description.
    fn heading(&self, id: &NodeId, out: &mut String) {
        let _ = writeln!(
            out,
            "<h1><span class=\"kind {0}\">{0}</span> {1}</h1>",
            id.kind.as_str(),
            esc(&id.name)
        );
        match self.description(id) {
            Some(d) => {
                let _ = writeln!(out, "<div class=\"doc\">{}</div>", prose(d));
            }
            None => out.push_str("<p class=\"doc none\">No description: write a comment directly above the declaration.</p>\n"),
        }
    }

    /// "Show in the lineage graph".
    fn graph_link(id: &NodeId) -> String {
        format!(
            "<p class=\"graph-link\"><a href=\"../index.html#focus={}\">Show in the lineage graph</a></p>\n",
            esc(&id.to_string())
        )
    }

    /// A table of columns: type, nullability, flags, then `extra`
    /// headers and cells per column, and the description.
    fn columns_table(
        &self,
        node: &NodeId,
        columns: &[Column],
        extra: &[&str],
        cells: &dyn Fn(usize, &Column) -> Vec<String>,
    ) -> String {
        let mut out = String::from("<table class=\"columns\">\n<thead><tr><th>Column</th><th>Type</th><th>Nullable</th><th>Flags</th>");
        for h in extra {
            let _ = write!(out, "<th>{h}</th>");
        }
        out.push_str("<th>Description</th></tr></thead>\n<tbody>\n");
        for (i, c) in columns.iter().enumerate() {
            let id = ColumnId {
                node: node.clone(),
                column: c.name.to_string(),
            };
            let _ = write!(
                out,
                "<tr id=\"col-{0}\"><td><code>{0}</code></td><td><code>{1}</code></td><td>{2}</td><td>{3}</td>",
                esc(&c.name),
                esc(&c.ty.to_string()),
                if c.nullable { "yes" } else { "<b>no</b>" },
                flags(c)
            );
            for cell in cells(i, c) {
                let _ = write!(out, "<td>{cell}</td>");
            }
            let description = match self.column_description(&id) {
                Some(d) => match &d.from {
                    Some(from) => format!(
                        "{} <span class=\"from\">(from {})</span>",
                        prose(&d.text),
                        self.column_link(from, "../")
                    ),
                    None => prose(&d.text),
                },
                None => String::new(),
            };
            let _ = writeln!(out, "<td class=\"doc\">{description}</td></tr>");
        }
        out.push_str("</tbody>\n</table>\n");
        out
    }

    /// Who reads a column, and how.
    fn used_by_cell(&self, node: &NodeId, column: &str) -> String {
        let used = self.used_by(&ColumnId {
            node: node.clone(),
            column: column.to_string(),
        });
        used.iter()
            .map(|u| {
                format!(
                    "{} <span class=\"how\">{}</span>",
                    self.link(&u.reader, "../"),
                    u.how
                )
            })
            .collect::<Vec<_>>()
            .join("<br>")
    }
}

/// A column's declared flags, as badges.
fn flags(c: &Column) -> String {
    let mut out = Vec::new();
    if c.primary_key {
        out.push("<span class=\"flag\">primary key</span>".to_string());
    }
    if c.unique {
        out.push("<span class=\"flag\">unique</span>".to_string());
    }
    if c.protected {
        out.push("<span class=\"flag protected\">protected</span>".to_string());
    }
    if let Some(values) = &c.enum_values {
        out.push(format!(
            "<span class=\"flag\">enum {{ {} }}</span>",
            esc(&values.join(", "))
        ));
    }
    if let Some(class) = &c.classification {
        out.push(format!(
            "<span class=\"flag protected\">classification: {}</span>",
            esc(class)
        ));
    }
    out.join(" ")
}

/// The pins a contract's columns are checked with.
fn pins_list(c: &ir::Contract) -> String {
    let mut out = String::from("<ul class=\"pins\">\n");
    for col in &c.columns {
        let mut what = vec![format!(
            "has a physical type compatible with <code>{}</code>",
            esc(&col.ty.to_string())
        )];
        if !col.nullable {
            what.push("no NULL".to_string());
        }
        if let Some(values) = &col.enum_values {
            what.push(format!(
                "no value outside {{ {} }} (NULL allowed)",
                esc(&values.join(", "))
            ));
        }
        if col.primary_key || col.unique {
            what.push("no duplicated non-NULL value".to_string());
        }
        let _ = writeln!(
            out,
            "<li><code>{}</code>: {}</li>",
            esc(&col.name),
            what.join("; ")
        );
    }
    out.push_str("</ul>\n");
    out
}
