//! A model's page: its output schema, where each column comes from and
//! who reads it, its joins and what each promise proves, its pins and
//! tests, its last run, its SQL.

use std::fmt::Write as _;

use strata_analysis::graph::{ColumnId, EdgeKind, NodeId, NodeKind};
use strata_lang::ast::{Cardinality, JoinKind, TestCheckKind};
use strata_lang::ir::{self, Column};
use strata_lang::sql;

use super::pins_list;
use crate::html::esc;
use crate::site::{test_anchor, Docs};

impl Docs<'_> {
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
                "<section class=\"join\">\n<h3><code>{} {}</code> {}</h3>\n<p>{}</p>\n",
                j.kind.keyword(),
                esc(&j.input),
                match j.expect {
                    Some(c) => format!("<span class=\"promise\">expect {}</span>", c.as_str()),
                    None => "<span class=\"none\">no cardinality promise</span>".to_string(),
                },
                if j.kind == JoinKind::Cross {
                    "every row with every row (a cross join has no condition)".to_string()
                } else {
                    format!("on <code>{}</code>", esc(self.text(j.on_span)))
                }
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
                    esc(&strata_analysis::compile::check_query(
                        &strata_analysis::compile::Relations::of(&self.checked.module, self.dialect),
                        m,
                        &c
                    )),
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
            if t.is_fixture {
                // A fixture test: its name and its rows, as written.
                let name = t
                    .name
                    .as_deref()
                    .map(|n| format!(" <strong>{}</strong>", esc(n)))
                    .unwrap_or_default();
                let _ = write!(
                    out,
                    "<section class=\"test fixture\" id=\"{anchor}\">\n<p><code>{}</code>{name} \
                     <span class=\"how\">fixture test: runs the model on the rows it gives \
                     (<code>strata test</code>, no warehouse)</span></p>\n<pre><code>{}</code></pre>\n</section>\n",
                    esc(&self.location(t.span)),
                    esc(self.text(t.span))
                );
                continue;
            }
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
}
