//! Everything a page of the site needs to know about the module, found
//! once: each node's page, the descriptions, who reads which column, the
//! SQL and the last runs; and the graph the index draws (`graph.js`).

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Value};
use strata_analysis::graph::{ColumnId, Graph, Node, NodeId, NodeKind};
use strata_lang::ir;
use strata_lang::sql::Dialect;
use strata_lang::{Checked, Span};

use super::comments::Comments;
use super::history::LastRun;
use super::html::Shell;
use super::layout::{self, Size};

/// The warehouse's last run of each model, when one was given.
pub struct Runs {
    /// The warehouse as messages show it (no password).
    pub warehouse: String,
    pub last: BTreeMap<String, LastRun>,
}

/// A column's description: its own comment, or that of the one column it
/// is passed through from.
pub struct Described {
    pub text: String,
    pub from: Option<ColumnId>,
}

/// A read of a column, as the column's table shows it.
pub struct UsedBy {
    pub reader: NodeId,
    pub how: &'static str,
}

pub struct Docs<'a> {
    pub checked: &'a Checked,
    pub graph: Graph,
    pub shell: Shell<'a>,
    /// The dialect of the SQL shown.
    pub dialect: Dialect,
    /// Each model's `CREATE VIEW`.
    pub sql: HashMap<&'a str, &'a str>,
    pub runs: Option<Runs>,
    /// What the root file's opening comment says.
    pub about: Option<String>,
    urls: HashMap<NodeId, String>,
    described: HashMap<NodeId, String>,
    columns_described: HashMap<ColumnId, Described>,
    used_by: HashMap<ColumnId, Vec<UsedBy>>,
}

impl<'a> Docs<'a> {
    pub fn new(
        checked: &'a Checked,
        shell: Shell<'a>,
        dialect: Dialect,
        sql: HashMap<&'a str, &'a str>,
        runs: Option<Runs>,
    ) -> Docs<'a> {
        let graph = Graph::of(&checked.module);
        let comments = Comments::new(&checked.sources, &checked.comments);
        let about = checked
            .sources
            .files()
            .next()
            .and_then(|(file, _)| comments.file_header(file));
        let mut docs = Docs {
            checked,
            shell,
            dialect,
            sql,
            runs,
            about,
            urls: page_urls(&graph),
            described: HashMap::new(),
            columns_described: HashMap::new(),
            used_by: HashMap::new(),
            graph,
        };
        docs.describe(&comments);
        for r in &docs.graph.reads {
            let used = docs.used_by.entry(r.column.clone()).or_default();
            if !used.iter().any(|u| u.reader == r.reader && u.how == r.how) {
                used.push(UsedBy {
                    reader: r.reader.clone(),
                    how: r.how,
                });
            }
        }
        docs
    }

    /// Descriptions of every declaration and column, models in dependency
    /// order so that a passed-through column can take its input's.
    fn describe(&mut self, comments: &Comments) {
        let checked: &'a Checked = self.checked;
        let module = &checked.module;
        let own = |id: NodeId, span: Span, described: &mut HashMap<NodeId, String>| {
            if let Some(text) = comments.describe(span) {
                described.insert(id, text);
            }
        };
        let column = |node: &NodeId, name: &str| ColumnId {
            node: node.clone(),
            column: name.to_string(),
        };
        for s in &module.sources {
            let id = NodeId::new(NodeKind::Source, s.name.as_str());
            own(id.clone(), s.span, &mut self.described);
            for (c, span) in s.columns.iter().flatten().zip(&s.column_spans) {
                if let Some(text) = comments.describe(*span) {
                    self.columns_described
                        .insert(column(&id, &c.name), Described { text, from: None });
                }
            }
        }
        for k in &module.contracts {
            let id = NodeId::new(NodeKind::Contract, k.name.as_str());
            own(id.clone(), k.span, &mut self.described);
            for (c, span) in k.columns.iter().zip(&k.column_spans) {
                if let Some(text) = comments.describe(*span) {
                    self.columns_described
                        .insert(column(&id, &c.name), Described { text, from: None });
                }
            }
        }
        for m in &module.models {
            let id = NodeId::new(NodeKind::Model, m.name.as_str());
            own(id.clone(), m.span, &mut self.described);
            for ((c, span), l) in m.columns.iter().zip(&m.column_spans).zip(&m.lineage) {
                let key = column(&id, &c.name);
                let own_text = (*span != m.name_span)
                    .then(|| comments.describe(*span))
                    .flatten();
                let described = match own_text {
                    Some(text) => Some(Described { text, from: None }),
                    None => self.passed_through(m, l).and_then(|from| {
                        let text = self.columns_described.get(&from)?.text.clone();
                        Some(Described {
                            text,
                            from: Some(from),
                        })
                    }),
                };
                if let Some(d) = described {
                    self.columns_described.insert(key, d);
                }
            }
        }
    }

    /// The one input column an output passes through unchanged.
    fn passed_through(&self, m: &ir::Model, l: &ir::Lineage) -> Option<ColumnId> {
        if !matches!(l.how, "passthrough" | "joined" | "group_key") || l.from.len() != 1 {
            return None;
        }
        let (input, column) = &l.from[0];
        Some(ColumnId {
            node: self.input_node(m, input)?,
            column: column.to_string(),
        })
    }

    /// The node an input of `m` (by its name or alias) reads.
    pub fn input_node(&self, m: &ir::Model, input: &str) -> Option<NodeId> {
        let i = m.inputs.iter().find(|i| i.name == input)?;
        Some(NodeId::new(
            match i.kind {
                ir::InputKind::Source => NodeKind::Source,
                ir::InputKind::Model => NodeKind::Model,
            },
            i.name.as_str(),
        ))
    }

    pub fn url(&self, id: &NodeId) -> &str {
        self.urls.get(id).map_or("index.html", String::as_str)
    }

    pub fn description(&self, id: &NodeId) -> Option<&str> {
        self.described.get(id).map(String::as_str)
    }

    pub fn column_description(&self, id: &ColumnId) -> Option<&Described> {
        self.columns_described.get(id)
    }

    pub fn used_by(&self, id: &ColumnId) -> &[UsedBy] {
        self.used_by.get(id).map_or(&[][..], Vec::as_slice)
    }

    /// `file:line` of a span.
    pub fn location(&self, span: Span) -> String {
        let file = self.checked.sources.get(span.file);
        let (line, _) = file.line_col(span.start as usize);
        format!("{}:{line}", file.path.display())
    }

    /// The source text of a span.
    pub fn text(&self, span: Span) -> &str {
        self.checked
            .sources
            .get(span.file)
            .text
            .get(span.start as usize..span.end as usize)
            .unwrap_or("")
    }

    /// The graph the index draws, as `graph.js`: nodes with their place,
    /// size, page and columns; edges by node index; column lineage.
    pub fn graph_script(&self) -> String {
        let g = &self.graph;
        let index: HashMap<&NodeId, usize> = g
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (&n.id, i))
            .collect();
        let sizes: Vec<Size> = g.nodes.iter().map(node_size).collect();
        let edges: Vec<(usize, usize)> = g
            .edges
            .iter()
            .filter_map(|e| Some((*index.get(&e.from)?, *index.get(&e.to)?)))
            .collect();
        let at = layout::layered(&sizes, &edges);
        let nodes: Vec<Value> = g
            .nodes
            .iter()
            .zip(&sizes)
            .zip(&at)
            .map(|((n, size), (x, y))| {
                let columns: Vec<Value> = n.columns.iter().map(|c| json!([c.name, c.ty])).collect();
                json!({
                    "id": n.id,
                    "kind": n.kind,
                    "name": n.name,
                    "label": label(n),
                    "url": self.url(&n.id),
                    "x": x.round(),
                    "y": y.round(),
                    "w": size.width,
                    "columns": columns,
                })
            })
            .collect();
        let edge_list: Vec<Value> = g
            .edges
            .iter()
            .filter_map(|e| {
                Some(json!({
                    "from": index.get(&e.from)?,
                    "to": index.get(&e.to)?,
                    "kind": e.kind,
                    "label": e.label(),
                }))
            })
            .collect();
        let lineage: Vec<Value> = g
            .columns
            .iter()
            .filter_map(|c| {
                Some(json!([
                    index.get(&c.from.node)?,
                    c.from.column,
                    index.get(&c.to.node)?,
                    c.to.column,
                    c.how
                ]))
            })
            .collect();
        let data = json!({"nodes": nodes, "edges": edge_list, "lineage": lineage});
        format!(
            "// The lineage graph of this site, drawn by assets/site.js.\nwindow.STRATA_DOCS = {data};\n"
        )
    }
}

/// What a node of the drawn graph says.
pub fn label(n: &Node) -> String {
    match n.kind {
        NodeKind::Test => format!("test {}", n.name),
        _ => n.name.clone(),
    }
}

/// A node's box: wide enough for its label in the site's 12 px font (and
/// a test's arrow-shaped tip).
fn node_size(n: &Node) -> Size {
    let chars = label(n).chars().count() as f64;
    let tip = if n.kind == NodeKind::Test { 24.0 } else { 0.0 };
    Size {
        width: (chars * 7.2 + 24.0 + tip).clamp(60.0, 360.0),
        height: 30.0,
    }
}

/// Each node's page, from the site's root: `models/NAME.html`, ...; a
/// test is a section of its model's page. Two names of a kind that differ
/// only in case get distinct files (`-2`), for case-insensitive disks.
fn page_urls(g: &Graph) -> HashMap<NodeId, String> {
    let mut urls = HashMap::new();
    let mut taken: HashMap<String, usize> = HashMap::new();
    for n in &g.nodes {
        let dir = match n.kind {
            NodeKind::Source => "sources",
            NodeKind::Model => "models",
            NodeKind::Contract => "contracts",
            NodeKind::Test => continue,
        };
        let key = format!("{dir}/{}", n.name.to_lowercase());
        let seen = taken.entry(key).or_insert(0);
        *seen += 1;
        let file = match *seen {
            1 => format!("{dir}/{}.html", n.name),
            k => format!("{dir}/{}-{k}.html", n.name),
        };
        urls.insert(n.id.clone(), file);
    }
    for n in g.nodes.iter().filter(|n| n.kind == NodeKind::Test) {
        let model = n.name.split('#').next().unwrap_or(&n.name);
        let page = urls
            .get(&NodeId::new(NodeKind::Model, model))
            .cloned()
            .unwrap_or_else(|| "index.html".to_string());
        urls.insert(n.id.clone(), format!("{page}#{}", test_anchor(&n.name)));
    }
    urls
}

/// The anchor of a test block on its model's page: `test`, `test-2`, ...
pub fn test_anchor(test_name: &str) -> String {
    match test_name.split_once('#') {
        Some((_, k)) => format!("test-{k}"),
        None => "test".to_string(),
    }
}
