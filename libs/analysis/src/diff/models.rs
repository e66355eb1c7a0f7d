//! The changes of the models: removed, renamed and added ones, and in
//! each kept one its columns (renames followed through lineage), joins,
//! promises, contract and definition.

use strata_lang::ir;
use strata_lang::Checked;

use super::change::{Change, Kind};
use super::pair::{ColumnSpans, Pair};
use crate::graph::{output_span, ColumnId, NodeId, NodeKind};

impl Pair<'_> {
    pub(super) fn models(&self, out: &mut Vec<Change>) {
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
