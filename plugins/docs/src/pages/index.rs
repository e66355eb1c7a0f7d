//! The index page (every model, source, contract and test, the search and
//! the lineage graph), and the pages of sources and contracts.

use std::fmt::Write as _;

use strata_analysis::graph::{NodeId, NodeKind};
use strata_lang::ir::{self, Column};

use super::{pins_list, INDEX_SCRIPTS};
use crate::html::{esc, prose, summary};
use crate::site::{label, Docs};

impl Docs<'_> {
    pub fn source_page(&self, s: &ir::Source) -> String {
        let id = NodeId::new(NodeKind::Source, s.name.as_str());
        let mut out = String::new();
        self.heading(&id, &mut out);
        out.push_str("<dl class=\"facts\">\n");
        for (k, v) in &s.args {
            let _ = writeln!(out, "<dt>{}</dt><dd><code>{}</code></dd>", esc(k), esc(v));
        }
        let _ = writeln!(
            out,
            "<dt>Read by</dt><dd>{}</dd>\n<dt>Defined in</dt><dd><code>{}</code></dd>\n</dl>",
            self.links(&self.downstream(&id), "../"),
            esc(&self.location(s.span))
        );
        out.push_str(&Self::graph_link(&id));
        out.push_str("<h2 id=\"schema\">Columns</h2>\n");
        match &s.columns {
            Some(cols) => {
                let used = |_: usize, c: &Column| vec![self.used_by_cell(&id, &c.name)];
                out.push_str(&self.columns_table(&id, cols, &["Used by"], &used));
                out.push_str("<p>A run checks, before building anything, that the table (or the file that overrides it) has every column, with values that convert to its type.</p>\n");
            }
            None => out
                .push_str("<p class=\"none\">The source declares no <code>columns:</code>.</p>\n"),
        }
        self.shell.page(&format!("source {}", s.name), "../", &out)
    }

    pub fn contract_page(&self, c: &ir::Contract) -> String {
        let id = NodeId::new(NodeKind::Contract, c.name.as_str());
        let mut out = String::new();
        self.heading(&id, &mut out);
        let promised: Vec<&NodeId> = self
            .upstream(&id)
            .into_iter()
            .map(|(from, _, _)| from)
            .collect();
        let _ = writeln!(
            out,
            "<dl class=\"facts\">\n<dt>Promised by</dt><dd>{}</dd>\n<dt>Defined in</dt><dd><code>{}</code></dd>\n</dl>",
            self.links(&promised, "../"),
            esc(&self.location(c.span))
        );
        out.push_str(&Self::graph_link(&id));
        out.push_str("<h2 id=\"schema\">Columns</h2>\n");
        out.push_str(&self.columns_table(&id, &c.columns, &[], &|_, _| Vec::new()));
        out.push_str("<h2 id=\"pins\">Pins</h2>\n<p>Each model promising this contract is checked after it is built, before anything is published:</p>\n");
        out.push_str(&pins_list(c));
        self.shell
            .page(&format!("contract {}", c.name), "../", &out)
    }

    pub fn index_page(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "<h1>{}</h1>", esc(self.shell.site_title));
        if let Some(about) = &self.about {
            let _ = writeln!(out, "<div class=\"doc\">{}</div>", prose(about));
        }
        let g = &self.graph;
        let count = |k: NodeKind| g.nodes.iter().filter(|n| n.kind == k).count();
        let _ = writeln!(
            out,
            "<p class=\"counts\">{} models, {} sources, {} contracts, {} tests</p>",
            count(NodeKind::Model),
            count(NodeKind::Source),
            count(NodeKind::Contract),
            count(NodeKind::Test)
        );
        out.push_str(
            "<section class=\"lineage\" aria-label=\"Lineage graph\">\n\
             <div class=\"toolbar\"><button type=\"button\" id=\"fit\">Fit</button>\
             <button type=\"button\" id=\"clear\" disabled>Clear</button>\
             <span id=\"graph-status\" class=\"hint\">Drawing the graph…</span></div>\n\
             <div class=\"graph-area\"><div id=\"graph\"></div>\
             <aside id=\"focus\" hidden></aside></div>\n\
             <p class=\"hint\">Click a node to open its page. Hover it to see what it reads and what reads it; \
             right-click (or press and hold) to keep that lineage and trace its columns.</p>\n\
             <noscript><p>The graph needs JavaScript; the lists below do not.</p></noscript>\n</section>\n\
             <p id=\"search-status\" class=\"hint\" aria-live=\"polite\"></p>\n",
        );
        for script in INDEX_SCRIPTS {
            let _ = writeln!(out, "<script src=\"{script}\"></script>");
        }
        for (kind, title) in [
            (NodeKind::Model, "Models"),
            (NodeKind::Source, "Sources"),
            (NodeKind::Contract, "Contracts"),
            (NodeKind::Test, "Tests"),
        ] {
            let mut nodes: Vec<_> = g.nodes.iter().filter(|n| n.kind == kind).collect();
            nodes.sort_by(|a, b| a.name.cmp(&b.name));
            let _ = writeln!(
                out,
                "<section class=\"catalogue\" id=\"{}\">\n<h2>{title} <span class=\"how\">({})</span></h2>",
                kind.as_str(),
                nodes.len()
            );
            if nodes.is_empty() {
                out.push_str("<p class=\"none\">None.</p>\n</section>\n");
                continue;
            }
            out.push_str("<table class=\"list\">\n<thead><tr><th>Name</th><th>Columns</th><th>Description</th></tr></thead>\n<tbody>\n");
            for n in nodes {
                let description = self.description(&n.id).map(summary).unwrap_or_default();
                let _ = writeln!(
                    out,
                    "<tr data-id=\"{}\"><td><a href=\"{}\">{}</a></td><td class=\"cols\">{}</td><td>{}</td></tr>",
                    esc(&n.id.to_string()),
                    esc(self.url(&n.id)),
                    esc(&label(n)),
                    n.columns.len(),
                    esc(&description)
                );
            }
            out.push_str("</tbody>\n</table>\n</section>\n");
        }
        self.shell.page("index", "", &out)
    }
}
