//! Every name in a module's files and what it refers to: the declarations
//! of sources, models, contracts and their columns, and each reference to
//! them (inputs, qualified and unqualified columns, tests, pipelines).
//! Hover, go to definition, references and rename all read it.

use std::collections::HashMap;

use strata_lang::ast::{self, Decl, ExprKind, Ident, ItemKind};
use strata_lang::ir;
use strata_lang::{FileId, Span};

use crate::graph::{NodeId, NodeKind};

/// What a name refers to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Target {
    Node(NodeId),
    Column(NodeId, String),
}

/// One name in a file.
#[derive(Clone, Debug)]
pub struct Occurrence {
    pub span: Span,
    pub target: Target,
    /// Whether this is the declaration of the target.
    pub def: bool,
}

/// The occurrences of one file, in source order.
#[derive(Debug, Default)]
pub struct Index {
    pub occurrences: Vec<Occurrence>,
}

impl Index {
    /// The occurrence whose span holds byte `offset` (its end included, so
    /// that a cursor just after a name finds it), the innermost first.
    pub fn at(&self, file: FileId, offset: usize) -> Option<&Occurrence> {
        self.occurrences
            .iter()
            .filter(|o| {
                o.span.file == file
                    && o.span.start as usize <= offset
                    && offset <= o.span.end as usize
            })
            .min_by_key(|o| o.span.end - o.span.start)
    }
}

/// Build the index of `files` (the module's parsed files) against the
/// checked module.
pub fn index(module: &ir::Module, files: &[(FileId, ast::File)]) -> Index {
    let mut columns: HashMap<NodeId, &[ir::Column]> = HashMap::new();
    for s in &module.sources {
        let cols = s.columns.as_deref().unwrap_or_default();
        columns.insert(NodeId::new(NodeKind::Source, s.name.as_str()), cols);
    }
    for c in &module.contracts {
        columns.insert(NodeId::new(NodeKind::Contract, c.name.as_str()), &c.columns);
    }
    for m in &module.models {
        columns.insert(NodeId::new(NodeKind::Model, m.name.as_str()), &m.columns);
    }
    let mut b = Builder {
        columns,
        out: Vec::new(),
    };
    for (_, f) in files {
        for d in &f.decls {
            b.decl(d);
        }
    }
    Index { occurrences: b.out }
}

struct Builder<'m> {
    /// The columns of every source, contract and model, by node.
    columns: HashMap<NodeId, &'m [ir::Column]>,
    out: Vec<Occurrence>,
}

impl Builder<'_> {
    fn push(&mut self, ident: &Ident, target: Target, def: bool) {
        self.out.push(Occurrence {
            span: ident.span,
            target,
            def,
        });
    }

    /// The node an input name refers to: a model if there is one by that
    /// name, else a source.
    fn input_node(&self, name: &str) -> NodeId {
        let model = NodeId::new(NodeKind::Model, name);
        if self.columns.contains_key(&model) {
            model
        } else {
            NodeId::new(NodeKind::Source, name)
        }
    }

    /// A fixture test's `given` blocks: each input names a source or
    /// model, each listed column one of its columns.
    fn givens(&mut self, t: &ast::TestDecl) {
        for g in &t.givens {
            let node = self.input_node(&g.input.name);
            self.push(&g.input, Target::Node(node.clone()), false);
            for col in g.columns.iter().flatten() {
                let target = Target::Column(node.clone(), col.name.to_string());
                self.push(col, target, false);
            }
        }
    }

    fn columns_of(&self, node: &NodeId) -> Vec<String> {
        let cols: &[ir::Column] = self.columns.get(node).copied().unwrap_or_default();
        cols.iter().map(|c| c.name.to_string()).collect()
    }

    fn decl(&mut self, d: &Decl) {
        match d {
            Decl::Source(s) => {
                let id = NodeId::new(NodeKind::Source, s.name.name.as_str());
                self.push(&s.name, Target::Node(id.clone()), true);
                for f in s.columns.iter().flatten() {
                    self.push(
                        &f.name,
                        Target::Column(id.clone(), f.name.name.to_string()),
                        true,
                    );
                }
            }
            Decl::Contract(c) => {
                let id = NodeId::new(NodeKind::Contract, c.name.name.as_str());
                self.push(&c.name, Target::Node(id.clone()), true);
                for f in &c.fields {
                    self.push(
                        &f.name,
                        Target::Column(id.clone(), f.name.name.to_string()),
                        true,
                    );
                }
            }
            Decl::Model(m) => self.model(m),
            Decl::Test(t) => {
                let model = NodeId::new(NodeKind::Model, t.model.name.as_str());
                self.push(&t.model, Target::Node(model.clone()), false);
                self.givens(t);
                for c in &t.checks {
                    if let ast::TestCheckKind::Rows { columns, .. } = &c.kind {
                        for col in columns.iter().flatten() {
                            let target = Target::Column(model.clone(), col.name.to_string());
                            self.push(col, target, false);
                        }
                        continue;
                    }
                    if c.target.name != "row_count" {
                        self.push(
                            &c.target,
                            Target::Column(model.clone(), c.target.name.to_string()),
                            false,
                        );
                    }
                    if let ast::TestCheckKind::In { model: m, column } = &c.kind {
                        let other = NodeId::new(NodeKind::Model, m.name.as_str());
                        self.push(m, Target::Node(other.clone()), false);
                        self.push(
                            column,
                            Target::Column(other, column.name.to_string()),
                            false,
                        );
                    }
                }
            }
            Decl::Pipeline(p) => {
                for e in &p.models {
                    if let ExprKind::Column {
                        qualifier: None,
                        name,
                    } = &e.kind
                    {
                        let id = NodeId::new(NodeKind::Model, name.name.as_str());
                        self.push(name, Target::Node(id), false);
                    }
                }
                for s in &p.sources {
                    let id = NodeId::new(NodeKind::Source, s.source.name.as_str());
                    self.push(&s.source, Target::Node(id), false);
                }
            }
            Decl::Import(_) | Decl::Domain(_) | Decl::Fn(_) | Decl::Generator(_) => {}
        }
    }

    fn model(&mut self, m: &ast::ModelDecl) {
        let id = NodeId::new(NodeKind::Model, m.name.name.as_str());
        self.push(&m.name, Target::Node(id.clone()), true);
        if let Some(c) = &m.contract {
            let contract = NodeId::new(NodeKind::Contract, c.name.as_str());
            self.push(c, Target::Node(contract), false);
        }
        let mut scope = Scope {
            model: id.clone(),
            inputs: Vec::new(),
            defined: Vec::new(),
        };
        for input in ast::model_inputs(&m.items) {
            let node = self.input_node(&input.name);
            let cols = self.columns_of(&node);
            scope.inputs.push((input.name.to_string(), node, cols));
        }
        let outputs: Vec<String> = self.columns_of(&id);
        self.items(&m.items, &mut scope, &outputs);
    }

    fn items(&mut self, items: &[ast::Item], scope: &mut Scope, outputs: &[String]) {
        for it in items {
            match &it.kind {
                ItemKind::From(n) => {
                    let node = self.input_node(&n.name);
                    self.push(n, Target::Node(node), false);
                }
                ItemKind::Join(j) => {
                    let node = self.input_node(&j.input.name);
                    self.push(&j.input, Target::Node(node), false);
                    if let Some(on) = &j.on {
                        self.expr(on, scope);
                    }
                }
                ItemKind::SetOp { input, .. } => {
                    let node = self.input_node(&input.name);
                    self.push(input, Target::Node(node), false);
                }
                ItemKind::Filter { expr, .. } => self.expr(expr, scope),
                ItemKind::Let { name, expr } => {
                    self.expr(expr, scope);
                    scope.defined.push(name.name.to_string());
                }
                ItemKind::Assign(_, assigns) => {
                    for a in assigns {
                        self.expr(&a.expr, scope);
                        if outputs.iter().any(|o| *o == a.name.name) {
                            self.push(
                                &a.name,
                                Target::Column(scope.model.clone(), a.name.name.to_string()),
                                true,
                            );
                        }
                    }
                    for a in assigns {
                        scope.defined.push(a.name.name.to_string());
                    }
                }
                ItemKind::Group(g) => {
                    for k in &g.keys {
                        self.expr(k, scope);
                    }
                    self.items(&g.body, scope, outputs);
                    for k in &g.keys {
                        if let ExprKind::Column { name, .. } = &k.kind {
                            scope.defined.push(name.name.to_string());
                        }
                    }
                }
                ItemKind::Sort(keys) => {
                    for k in keys {
                        self.expr(&k.expr, scope);
                    }
                }
                ItemKind::Dedup { by: Some(by) } => {
                    for e in by {
                        self.expr(e, scope);
                    }
                }
                ItemKind::PartitionBy { exprs, .. } => {
                    for e in exprs {
                        self.expr(e, scope);
                    }
                }
                ItemKind::Expand { column, .. } => {
                    let target = scope.resolve(None, &column.name);
                    if let Some(t) = target {
                        self.push(column, t, false);
                    }
                }
                ItemKind::Incremental(inc) => {
                    for e in inc.merge_keys.iter().flatten() {
                        self.expr(e, scope);
                    }
                }
                _ => {}
            }
        }
    }

    fn expr(&mut self, e: &ast::Expr, scope: &Scope) {
        match &e.kind {
            ExprKind::Column { qualifier, name } => {
                if let Some(q) = qualifier {
                    if let Some((_, node, _)) = scope.inputs.iter().find(|(n, _, _)| *n == q.name) {
                        self.push(q, Target::Node(node.clone()), false);
                    }
                }
                if let Some(t) =
                    scope.resolve(qualifier.as_ref().map(|q| q.name.as_str()), &name.name)
                {
                    self.push(name, t, false);
                }
            }
            ExprKind::Call(c) => {
                for a in &c.args {
                    self.expr(&a.value, scope);
                }
                if let Some(w) = &c.over {
                    for p in &w.partition_by {
                        self.expr(p, scope);
                    }
                    for k in &w.sort {
                        self.expr(&k.expr, scope);
                    }
                }
                for k in c.sort.iter().flat_map(|s| &s.keys) {
                    self.expr(&k.expr, scope);
                }
            }
            ExprKind::Unary { operand, .. } => self.expr(operand, scope),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs, scope);
                self.expr(rhs, scope);
            }
            ExprKind::List(items) => {
                for i in items {
                    self.expr(i, scope);
                }
            }
            _ => {}
        }
    }
}

/// The names a model's clause can see.
struct Scope {
    model: NodeId,
    /// `(name as written, node, its columns)`, from input first.
    inputs: Vec<(String, NodeId, Vec<String>)>,
    /// Names the model defined so far (lets, outputs, group keys).
    defined: Vec<String>,
}

impl Scope {
    /// A column `qualifier.name` or `name`: an input's column, or one the
    /// model defined earlier (then its own output).
    fn resolve(&self, qualifier: Option<&str>, name: &str) -> Option<Target> {
        if let Some(q) = qualifier {
            let (_, node, cols) = self.inputs.iter().find(|(n, _, _)| n == q)?;
            return cols
                .iter()
                .any(|c| c == name)
                .then(|| Target::Column(node.clone(), name.to_string()));
        }
        if self.defined.iter().any(|d| d == name) {
            return Some(Target::Column(self.model.clone(), name.to_string()));
        }
        self.inputs
            .iter()
            .find(|(_, _, cols)| cols.iter().any(|c| c == name))
            .map(|(_, node, _)| Target::Column(node.clone(), name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occurrences(text: &str) -> Vec<(String, String, bool)> {
        let checked = strata_rules::check_module_text("m.strata", text);
        let (file, _) = strata_lang::parser::parse(FileId(0), text);
        let idx = index(&checked.module, &[(FileId(0), file)]);
        idx.occurrences
            .iter()
            .map(|o| {
                let t = match &o.target {
                    Target::Node(n) => n.to_string(),
                    Target::Column(n, c) => format!("{n}.{c}"),
                };
                (text[o.span.range()].to_string(), t, o.def)
            })
            .collect()
    }

    #[test]
    fn columns_resolve_to_inputs_or_to_the_model_s_own_outputs() {
        let text = "source s(ns: \"n\", dataset: \"d\") { columns: { id: int64, v: int64 } }\n\
                    source t(ns: \"n\", dataset: \"t\") { columns: { id: int64, w: int64 } }\n\
                    model m {\n  from s\n  join_left t on s.id == t.id expect many_to_one\n  \
                    select { id = id, total = v + t.w }\n  sort { total }\n}\n\
                    test m { expect total > 0 }\n";
        let occ = occurrences(text);
        let has = |name: &str, target: &str, def: bool| {
            occ.contains(&(name.to_string(), target.to_string(), def))
        };
        assert!(has("s", "source:s", true), "{occ:?}");
        assert!(has("id", "source:s.id", true));
        assert!(has("t", "source:t", false));
        assert!(has("w", "source:t.w", false));
        assert!(has("v", "source:s.v", false));
        assert!(has("total", "model:m.total", true));
        // `sort { total }` after the select: the model's own output.
        assert_eq!(
            occ.iter()
                .filter(|(n, t, d)| n == "total" && t == "model:m.total" && !d)
                .count(),
            2,
            "{occ:?}"
        );
    }

    #[test]
    fn fixture_inputs_and_columns_refer_to_what_they_name() {
        let text = "source s(ns: \"n\", dataset: \"d\") { columns: { id: int64, v: int64 } }\n\
                    model m { from s select { id = id, total = v } }\n\
                    test m \"x\" { given s(id, v) { (1, 2) } expect rows(total) { (2) } }\n";
        let occ = occurrences(text);
        let has =
            |name: &str, target: &str| occ.contains(&(name.to_string(), target.to_string(), false));
        assert!(has("s", "source:s"), "{occ:?}");
        assert!(has("v", "source:s.v"), "{occ:?}");
        assert!(has("total", "model:m.total"), "{occ:?}");
        // `rows` is a word of the test, not a column.
        assert!(!occ.iter().any(|(n, _, _)| n == "rows"), "{occ:?}");
    }
}
