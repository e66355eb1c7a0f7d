//! One walk over a model's parsed SQL: every join of every `select` (in
//! CTEs, subqueries, set-operation branches; comma joins keyed in `where`),
//! its keys traced to base columns, the proof the joined side cannot repeat
//! its keys, and where an unproven join's repeated rows go (an aggregate
//! that double counts, a `group by` that collapses them, or the output).
//!
//! This file walks the queries and their `from` items; `join` judges each
//! join (keys, proof, what to count), `select` a `select`'s projection,
//! grouping and aggregates (double counting, what the output is unique on).

use sqlparser::ast::{
    self as sql, Expr, JoinConstraint, JoinOperator, Query, SetExpr, SetQuantifier, TableFactor,
    TableWithJoins,
};

use super::expr as x;
use super::shape::{Col, Fact, Fan, Rel, Rest, Shape};

/// What the walk asks of the project.
pub trait Env {
    /// The model, seed or source a table name of the SQL is.
    fn relation(&self, name: &sql::ObjectName) -> Option<Rel>;
    /// What a relation is proven unique on.
    fn facts(&mut self, rel: &Rel) -> Vec<Fact>;
    /// The fan-outs whose repeated rows reach a model's output (with their
    /// `origin`).
    fn fans(&mut self, rel: &Rel) -> Vec<Fan>;
}

/// What an upstream model's fan-out (`upstream`: the model, the join's
/// index) does in the model walked: an aggregate of its repeated rows'
/// values (text, line) that double counts, or (`None`) its rows reach this
/// model's output.
#[derive(Clone, Debug)]
pub struct Downstream {
    pub upstream: (String, usize),
    pub double: Option<(String, usize)>,
}

/// One key of a join: the joined side's column, the from side's (none for
/// a key compared with a constant), each with the base column it copies.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Key {
    pub left: Option<String>,
    pub right: String,
    pub left_origin: Option<String>,
    pub right_origin: Option<String>,
}

/// What to count duplicates on, on the data: a base relation's columns, or
/// the rows of SQL (a CTE, a subquery) on its columns.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(tag = "on", rename_all = "snake_case")]
pub enum CountOn {
    Relation { rel: Rel, columns: Vec<String> },
    Sql { sql: String, columns: Vec<String> },
}

/// A join as the walk found it.
#[derive(Clone, Debug, Default)]
pub struct Found {
    pub kind: String,
    /// Line in the SQL walked.
    pub line: usize,
    /// Column of the joined relation in the SQL walked (with `line`, the
    /// import finds the join it translated).
    pub column: usize,
    pub from: Vec<String>,
    pub joined: String,
    pub keys: Vec<Key>,
    pub unresolved: Vec<String>,
    /// `(many_to_one | one_to_one | cannot_repeat, why)`.
    pub proof: Option<(String, String)>,
    pub count_on: Option<CountOn>,
    /// Aggregates of the from side's values over the repeated rows.
    pub double: Vec<(String, usize)>,
    /// A `group by` collapsing the repeated rows: its line, and whether it
    /// is on the from side's key.
    pub collapsed: Option<(usize, bool)>,
    pub reaches_output: bool,
    /// The from side's key columns (base origins).
    pub from_keys: Vec<(Rel, String)>,
}

/// A relation in the scope of a `select`.
#[derive(Clone)]
pub(super) struct Item {
    pub(super) alias: String,
    pub(super) shape: Shape,
    pub(super) label: String,
    /// Joins of this `select` whose fan-out repeats this item's rows.
    pub(super) repeated_by: Vec<usize>,
}

impl Item {
    /// How the report names the item in a key: its alias, or for a table
    /// of rendered SQL read by its marker (`$ref$orders`), its label.
    pub(super) fn shown(&self) -> &str {
        if self.alias.starts_with('$') {
            &self.label
        } else {
            &self.alias
        }
    }
}

pub struct Walker<'e> {
    pub(super) env: &'e mut dyn Env,
    /// CTEs in scope, innermost last: name, shape, `name AS (query)`.
    pub(super) ctes: Vec<(String, Shape, String)>,
    pub joins: Vec<Found>,
    pub downstream: Vec<Downstream>,
}

pub(super) fn lower(id: &sql::Ident) -> String {
    id.value.to_lowercase()
}

impl<'e> Walker<'e> {
    pub fn new(env: &'e mut dyn Env) -> Walker<'e> {
        Walker {
            env,
            ctes: Vec::new(),
            joins: Vec::new(),
            downstream: Vec::new(),
        }
    }

    /// A whole statement's query: its shape, with the fan-outs that reach
    /// the output marked.
    pub fn statement(&mut self, q: &Query) -> Shape {
        let shape = self.query(q);
        for fan in &shape.fans {
            match &fan.origin {
                None => self.joins[fan.join].reaches_output = true,
                Some(up) => self.downstream.push(Downstream {
                    upstream: up.clone(),
                    double: None,
                }),
            }
        }
        shape
    }

    pub(super) fn with_prefix(&self) -> String {
        if self.ctes.is_empty() {
            String::new()
        } else {
            let parts: Vec<&str> = self.ctes.iter().map(|c| c.2.as_str()).collect();
            format!("WITH {} ", parts.join(", "))
        }
    }

    pub(super) fn query(&mut self, q: &Query) -> Shape {
        let depth = self.ctes.len();
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                let name = lower(&cte.alias.name);
                let mut s = self.query(&cte.query);
                s.rename(
                    &cte.alias
                        .columns
                        .iter()
                        .map(|c| lower(&c.name))
                        .collect::<Vec<_>>(),
                );
                let text = format!("{} AS ({})", cte.alias.name, cte.query);
                let prefix = self.with_prefix();
                let all = if prefix.is_empty() {
                    format!("WITH {text} ")
                } else {
                    format!("{}, {text} ", prefix.trim_end())
                };
                s.sql = Some(format!("({all}SELECT * FROM {})", cte.alias.name));
                self.ctes.push((name, s, text));
            }
        }
        let mut shape = self.set_expr(&q.body);
        if q.limit_clause.is_some() || q.fetch.is_some() {
            shape.pass = None;
        }
        self.ctes.truncate(depth);
        shape
    }

    fn set_expr(&mut self, e: &SetExpr) -> Shape {
        match e {
            SetExpr::Select(s) => self.select(s),
            SetExpr::Query(q) => self.query(q),
            SetExpr::SetOperation {
                left,
                op,
                set_quantifier,
                right,
            } => {
                let l = self.set_expr(left);
                let r = self.set_expr(right);
                let mut out = Shape {
                    cols: l
                        .cols
                        .iter()
                        .map(|(n, _)| (n.clone(), Col::default()))
                        .collect(),
                    rest: l.rest.as_ref().map(|_| Rest::Unknown),
                    ..Shape::default()
                };
                // Both branches' fan-outs reach the result, by position.
                out.fans = l.fans.clone();
                for mut fan in r.fans {
                    fan.measures = fan
                        .measures
                        .iter()
                        .filter_map(|m| {
                            let i = r.cols.iter().position(|(n, _)| n == m)?;
                            l.cols.get(i).map(|(n, _)| n.clone())
                        })
                        .collect();
                    out.fans.push(fan);
                }
                let distinct = matches!(
                    set_quantifier,
                    SetQuantifier::Distinct | SetQuantifier::None
                ) && matches!(op, sql::SetOperator::Union);
                if distinct && out.rest.is_none() && !out.cols.is_empty() {
                    out.unique.push(Fact::new(
                        out.cols.iter().map(|(n, _)| n.clone()).collect(),
                        "union (distinct)",
                    ));
                }
                out
            }
            _ => Shape::unknown(),
        }
    }

    /// The shape of a relation in a `from` or `join`, its alias and label.
    pub(super) fn factor(&mut self, f: &TableFactor) -> Item {
        let (alias, shape, label) = match f {
            TableFactor::Table { name, alias, .. } => {
                let written = name.to_string();
                let single = (name.0.len() == 1)
                    .then(|| name.0[0].as_ident().map(lower))
                    .flatten();
                let cte = single
                    .as_ref()
                    .and_then(|n| self.ctes.iter().rev().find(|c| &c.0 == n));
                let (mut shape, label) = match cte {
                    Some(c) => (c.1.clone(), c.0.clone()),
                    None => {
                        let rel = self.env.relation(name).unwrap_or(Rel::Other {
                            name: written.clone(),
                        });
                        let facts = self.env.facts(&rel);
                        let label = rel.label();
                        let fans = self.env.fans(&rel);
                        let mut s = Shape::base(rel, facts);
                        s.fans = fans;
                        s.sql = Some(written.clone());
                        (s, label)
                    }
                };
                let a = match alias {
                    Some(a) => {
                        shape.rename(&a.columns.iter().map(|c| lower(&c.name)).collect::<Vec<_>>());
                        lower(&a.name)
                    }
                    None => name
                        .0
                        .last()
                        .and_then(|p| p.as_ident())
                        .map(lower)
                        .unwrap_or_default(),
                };
                (a, shape, label)
            }
            TableFactor::Derived {
                subquery, alias, ..
            } => {
                let mut shape = self.query(subquery);
                shape.sql = Some(format!("({}{})", self.with_prefix(), subquery));
                let a = match alias {
                    Some(a) => {
                        shape.rename(&a.columns.iter().map(|c| lower(&c.name)).collect::<Vec<_>>());
                        lower(&a.name)
                    }
                    None => String::new(),
                };
                let label = if a.is_empty() {
                    "(subquery)".to_string()
                } else {
                    format!("(subquery {a})")
                };
                (a, shape, label)
            }
            TableFactor::NestedJoin {
                table_with_joins,
                alias,
            } => {
                let items = self.chain(table_with_joins, Vec::new(), false, None);
                let mut shape = merge(&items);
                shape.sql = None;
                let a = alias.as_ref().map(|a| lower(&a.name)).unwrap_or_default();
                (a, shape, "(nested join)".to_string())
            }
            other => {
                let a = match other {
                    TableFactor::Function { alias, .. }
                    | TableFactor::TableFunction { alias, .. }
                    | TableFactor::UNNEST { alias, .. } => {
                        alias.as_ref().map(|a| lower(&a.name)).unwrap_or_default()
                    }
                    _ => String::new(),
                };
                (a, Shape::unknown(), "(table function)".to_string())
            }
        };
        Item {
            // An unaliased table of rendered SQL is read by its marker
            // (`$ref$orders`): the label says it already.
            label: if alias.is_empty() || alias == label || alias.starts_with('$') {
                label
            } else {
                format!("{label} as {alias}")
            },
            alias,
            shape,
            repeated_by: Vec::new(),
        }
    }

    /// A `from` item and its joins, each join audited as it is met.
    /// `where_` keys comma joins (a later item of the `from` list).
    pub(super) fn chain(
        &mut self,
        twj: &TableWithJoins,
        before: Vec<Item>,
        comma: bool,
        cond: Option<&Expr>,
    ) -> Vec<Item> {
        let mut items = before;
        let first = self.factor(&twj.relation);
        items.push(first);
        if comma {
            let at = x::start(&twj.relation);
            self.join(&mut items, "comma", at, cond, &[], true);
        }
        for j in &twj.joins {
            let (kind, constraint) = match &j.join_operator {
                JoinOperator::Join(c) | JoinOperator::Inner(c) => ("inner", Some(c)),
                JoinOperator::Left(c) | JoinOperator::LeftOuter(c) => ("left", Some(c)),
                JoinOperator::Right(c) | JoinOperator::RightOuter(c) => ("right", Some(c)),
                JoinOperator::FullOuter(c) => ("full", Some(c)),
                JoinOperator::CrossJoin(c) => ("cross", Some(c)),
                JoinOperator::Semi(c) | JoinOperator::LeftSemi(c) | JoinOperator::RightSemi(c) => {
                    ("semi", Some(c))
                }
                JoinOperator::Anti(c) | JoinOperator::LeftAnti(c) | JoinOperator::RightAnti(c) => {
                    ("anti", Some(c))
                }
                JoinOperator::AsOf { constraint, .. } => ("asof", Some(constraint)),
                JoinOperator::CrossApply => ("cross apply", None),
                JoinOperator::OuterApply => ("outer apply", None),
                _ => ("other", None),
            };
            let item = self.factor(&j.relation);
            let at = x::start(&j.relation);
            items.push(item);
            let (on, using): (Option<&Expr>, Vec<String>) = match constraint {
                Some(JoinConstraint::On(e)) => (Some(e), Vec::new()),
                Some(JoinConstraint::Using(cols)) => (
                    None,
                    cols.iter()
                        .filter_map(|c| c.0.last().and_then(|p| p.as_ident()).map(lower))
                        .collect(),
                ),
                _ => (None, Vec::new()),
            };
            self.join(&mut items, kind, at, on, &using, false);
        }
        items
    }
}

/// The item and column a (qualified) name denotes.
pub(super) fn resolve_name(
    items: &[Item],
    qual: Option<&str>,
    name: &str,
) -> Option<(usize, String, Col)> {
    if let Some(q) = qual {
        let i = items.iter().position(|it| it.alias == q)?;
        return items[i].shape.col(name).map(|c| (i, name.to_string(), c));
    }
    if let Some(i) = items.iter().position(|it| it.shape.lists(name)) {
        return items[i].shape.col(name).map(|c| (i, name.to_string(), c));
    }
    let open: Vec<usize> = (0..items.len())
        .filter(|&i| items[i].shape.rest.is_some())
        .collect();
    match open.as_slice() {
        [i] => items[*i].shape.col(name).map(|c| (*i, name.to_string(), c)),
        _ => None,
    }
}

/// The shape of a nested join: its items' columns.
fn merge(items: &[Item]) -> Shape {
    let mut s = Shape::default();
    for it in items {
        s.cols.extend(it.shape.cols.iter().cloned());
        if it.shape.rest.is_some() {
            s.rest = Some(if items.len() == 1 {
                it.shape.rest.clone().unwrap_or(Rest::Unknown)
            } else {
                Rest::Unknown
            });
        }
    }
    s
}
