//! The pages of the site: the index, and one page per model, source and
//! contract. Every text from the module goes through [`esc`].

use std::fmt::Write as _;

use strata_analysis::graph::{ColumnId, EdgeKind, NodeId, NodeKind};
use strata_lang::ast::{Cardinality, TestCheckKind};
use strata_lang::ir::{self, Column};
use strata_lang::sql;

use super::html::{esc, prose, summary};
use super::site::{label, test_anchor, Docs};

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

    pub fn model_page(&self, m: &ir::Model) -> String {
        let id = NodeId::new(NodeKind::Model, m.name.as_str());
        let mut out = String::new();
        self.heading(&id, &mut out);
        out.push_str("<dl class=\"facts\">\n");
        if let Some(c) = &m.contract {
            let _ = writeln!(
                out,
                "<dt>Contract</dt><dd>{}</dd>",
                self.link(&NodeId::new(NodeKind::Contract, c.as_str()), "../")
            );
        }
        for (k, v) in &m.attrs {
            let _ = writeln!(out, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(v));
        }
        let reads: Vec<String> = self
            .upstream(&id)
            .into_iter()
            .map(|(from, kind, label)| {
                let how = match kind {
                    EdgeKind::From => "from".to_string(),
                    EdgeKind::Join => format!("join {label}"),
                    EdgeKind::SetOp => "set operation".to_string(),
                    _ => String::new(),
                };
                format!(
                    "{} <span class=\"how\">{}</span>",
                    self.link(from, "../"),
                    esc(how.trim())
                )
            })
            .collect();
        let _ = writeln!(out, "<dt>Reads</dt><dd>{}</dd>", reads.join(", "));
        let _ = writeln!(
            out,
            "<dt>Read by</dt><dd>{}</dd>",
            self.links(&self.downstream(&id), "../")
        );
        if let Some(inc) = &m.incremental {
            let how = if inc.merge_keys.is_empty() {
                "append".to_string()
            } else {
                format!(
                    "upsert on ({})",
                    esc(&inc
                        .merge_keys
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", "))
                )
            };
            let _ = writeln!(
                out,
                "<dt>Incremental</dt><dd>{how}, new rows by <code>{}</code></dd>",
                esc(&inc.cdc_column)
            );
        }
        let _ = writeln!(
            out,
            "<dt>Defined in</dt><dd><code>{}</code></dd>\n<dt>Fingerprint</dt><dd><code class=\"fingerprint\">{}</code></dd>\n</dl>",
            esc(&self.location(m.span)),
            esc(&m.fingerprint)
        );
        out.push_str(&Self::graph_link(&id));

        out.push_str("<h2 id=\"schema\">Output schema</h2>\n");
        let lineage_cell = |i: usize, _: &Column| -> Vec<String> {
            let from = m.lineage.get(i).map_or(String::new(), |l| {
                let cols: Vec<String> = l
                    .from
                    .iter()
                    .map(|(input, column)| match self.input_node(m, input) {
                        Some(node) => self.column_link(
                            &ColumnId {
                                node,
                                column: column.to_string(),
                            },
                            "../",
                        ),
                        None => esc(&format!("{input}.{column}")),
                    })
                    .collect();
                let cols = if cols.is_empty() {
                    "<span class=\"none\">a literal</span>".to_string()
                } else {
                    cols.join(", ")
                };
                format!("{cols} <span class=\"how\">{}</span>", l.how)
            });
            vec![from, self.used_by_cell(&id, &m.columns[i].name)]
        };
        out.push_str(&self.columns_table(
            &id,
            &m.columns,
            &["Computed from", "Used by"],
            &lineage_cell,
        ));

        self.joins_section(m, &mut out);
        if let Some(c) = m
            .contract
            .as_ref()
            .and_then(|c| self.checked.module.contracts.iter().find(|k| k.name == *c))
        {
            let _ = writeln!(
                out,
                "<h2 id=\"pins\">Pins</h2>\n<p>Checked on the built rows before anything is published (contract {}):</p>",
                self.link(&NodeId::new(NodeKind::Contract, c.name.as_str()), "../")
            );
            out.push_str(&pins_list(c));
        }
        self.tests_section(m, &mut out);
        self.last_run_section(m, &mut out);
        let _ = writeln!(
            out,
            "<h2 id=\"sql\">SQL <span class=\"how\">({})</span></h2>",
            self.dialect.name()
        );
        match self.sql.get(m.name.as_str()) {
            Some(sql) => {
                let _ = writeln!(out, "<pre class=\"sql\"><code>{}</code></pre>", esc(sql));
            }
            None => out.push_str("<p class=\"none\">Not compiled.</p>\n"),
        }
        self.shell.page(&format!("model {}", m.name), "../", &out)
    }

    /// Each join, with what its promise proves and how a run checks it.
    fn joins_section(&self, m: &ir::Model, out: &mut String) {
        if m.joins.is_empty() {
            return;
        }
        out.push_str("<h2 id=\"joins\">Joins and their promises</h2>\n");
        let mut checks = sql::cardinality_checks(m).into_iter().peekable();
        for j in &m.joins {
            let _ = write!(
                out,
                "<section class=\"join\">\n<h3><code>{} {}</code> {}</h3>\n<p>on <code>{}</code></p>\n",
                j.kind.keyword(),
                esc(&j.input),
                match j.expect {
                    Some(c) => format!("<span class=\"promise\">expect {}</span>", c.as_str()),
                    None => "<span class=\"none\">no cardinality promise</span>".to_string(),
                },
                esc(self.text(j.on_span))
            );
            let (Some(card), Some(_)) = (j.expect, j.keys()) else {
                out.push_str("</section>\n");
                continue;
            };
            let sides = match card {
                Cardinality::ManyToOne => 1,
                Cardinality::OneToOne => 2,
            };
            for _ in 0..sides {
                let Some(c) = checks.next_if(|c| c.join_input == j.input) else {
                    break;
                };
                let (reader, counted) = if c.left_side {
                    (j.input.as_str(), j.left_input.as_str())
                } else {
                    (j.left_input.as_str(), j.input.as_str())
                };
                let keys = c.keys.join(", ");
                let _ = write!(
                    out,
                    "<p class=\"proves\">Each <b>{}</b> row matches at most one <b>{}</b> row on <code>{}</code>.</p>\n\
                     <p>A run checks it on exactly the relation this model read ({}): it counts the key groups \
                     of <code>{}</code> on <code>({})</code> that hold more than one row, NULL keys excluded, \
                     and fails (exit 3, nothing published) unless there are none.{}</p>\n\
                     <details><summary>The check's query ({})</summary><pre class=\"sql\"><code>{}</code></pre></details>\n",
                    esc(reader),
                    esc(counted),
                    esc(&keys),
                    self.link_input(m, counted),
                    esc(counted),
                    esc(&keys),
                    self.by_construction(m, c.input, &c.keys),
                    self.dialect.name(),
                    esc(&strata_analysis::compile::check_query(self.dialect, m, &c)),
                );
            }
            out.push_str("</section>\n");
        }
    }

    /// A link to the input of `m` named `name`.
    fn link_input(&self, m: &ir::Model, name: &str) -> String {
        match self.input_node(m, name) {
            Some(node) => format!("{} {}", node.kind.as_str(), self.link(&node, "../")),
            None => esc(name),
        }
    }

    /// Why a check needs no query when its input model is unique on the
    /// keys by construction.
    fn by_construction(&self, m: &ir::Model, input: usize, keys: &[String]) -> String {
        let Some(i) = m.inputs.get(input) else {
            return String::new();
        };
        if i.kind != ir::InputKind::Model {
            return String::new();
        }
        let Some(upstream) = self.checked.module.models.iter().find(|u| u.name == i.name) else {
            return String::new();
        };
        upstream
            .unique_by_construction()
            .into_iter()
            .find(|(set, _)| set.iter().all(|k| keys.iter().any(|key| key == k.as_str())))
            .map_or(String::new(), |(set, by)| {
                format!(
                    " When the same run builds {}, no query runs: it is unique on ({}) by {}.",
                    esc(&upstream.name),
                    esc(&set
                        .iter()
                        .map(|k| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")),
                    by.describe()
                )
            })
    }

    fn tests_section(&self, m: &ir::Model, out: &mut String) {
        let tests: Vec<(&ir::Test, String)> = self
            .graph
            .nodes
            .iter()
            .filter(|n| n.kind == NodeKind::Test)
            .zip(&self.checked.module.tests)
            .filter(|(_, t)| t.model == m.name)
            .map(|(n, t)| (t, test_anchor(&n.name)))
            .collect();
        out.push_str("<h2 id=\"tests\">Tests</h2>\n");
        if tests.is_empty() {
            out.push_str("<p class=\"none\">No <code>test</code> block checks this model.</p>\n");
            return;
        }
        for (t, anchor) in tests {
            let _ = write!(
                out,
                "<section class=\"test\" id=\"{anchor}\">\n<p><code>{}</code></p>\n<ul>\n",
                esc(&self.location(t.span))
            );
            for check in &t.checks {
                let text = self.text(check.span);
                let text = text.strip_prefix("expect").unwrap_or(text).trim();
                let other = match &check.kind {
                    TestCheckKind::In { model, .. } if model.name != m.name => format!(
                        " <span class=\"how\">reads {}</span>",
                        self.link(&NodeId::new(NodeKind::Model, model.name.as_str()), "../")
                    ),
                    _ => String::new(),
                };
                let _ = writeln!(out, "<li><code>expect {}</code>{other}</li>", esc(text));
            }
            out.push_str("</ul>\n</section>\n");
        }
    }

    fn last_run_section(&self, m: &ir::Model, out: &mut String) {
        let Some(runs) = &self.runs else {
            return;
        };
        out.push_str("<h2 id=\"last-run\">Last run</h2>\n");
        let Some(r) = runs.last.get(&m.name) else {
            let _ = writeln!(
                out,
                "<p class=\"none\">No run recorded in <code>{}</code> has built this model.</p>",
                esc(&runs.warehouse)
            );
            return;
        };
        let rows = match r.rows {
            Some(n) => format!("{n} in <code>{}</code>", esc(&r.snapshot)),
            None => format!(
                "<span class=\"none\">unknown: <code>{}</code> was dropped by <code>strata gc</code></span>",
                esc(&r.snapshot)
            ),
        };
        let _ = write!(
            out,
            "<dl class=\"facts run\">\n<dt>Run</dt><dd><code>{}</code></dd>\n<dt>Started</dt><dd>{}</dd>\n\
             <dt>Branch</dt><dd>{}{}</dd>\n<dt>Rows</dt><dd>{rows}</dd>\n<dt>Warehouse</dt><dd><code>{}</code></dd>\n</dl>\n",
            esc(&r.run_id),
            esc(&r.started_at),
            esc(&r.branch),
            if r.stage_only { " (staged only)" } else { "" },
            esc(&runs.warehouse),
        );
        if r.checks.is_empty() {
            out.push_str(
                "<p class=\"none\">The run checked no pin, join or test of this model.</p>\n",
            );
            return;
        }
        out.push_str("<p>Passed in that run:</p>\n<ul class=\"checks\">\n");
        for (status, text) in &r.checks {
            let _ = writeln!(
                out,
                "<li class=\"{status}\"><span class=\"status\">{status}</span> <code>{}</code></li>",
                esc(text)
            );
        }
        out.push_str("</ul>\n");
    }

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
