//! One walk over a model's parsed SQL: every join of every `select` (in
//! CTEs, subqueries, set-operation branches; comma joins keyed in `where`),
//! its keys traced to base columns, the proof the joined side cannot repeat
//! its keys, and where an unproven join's repeated rows go (an aggregate
//! that double counts, a `group by` that collapses them, or the output).

use std::collections::BTreeSet;

use sqlparser::ast::{
    self as sql, Expr, GroupByExpr, JoinConstraint, JoinOperator, Query, Select, SelectItem,
    SetExpr, SetQuantifier, TableFactor, TableWithJoins,
};

use super::expr::{self as x, column_ref, conjuncts};
use super::shape::{Col, Fact, Fan, Rel, Rest, Shape};

/// What the walk asks of the project.
pub trait Env {
    /// The model, seed or source a table name of the SQL is.
    fn relation(&self, name: &sql::ObjectName) -> Option<Rel>;
    /// What a relation is proven unique on.
    fn facts(&mut self, rel: &Rel) -> Vec<Fact>;
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
struct Item {
    alias: String,
    shape: Shape,
    label: String,
    /// Joins of this `select` whose fan-out repeats this item's rows.
    repeated_by: Vec<usize>,
}

impl Item {
    /// How the report names the item in a key: its alias, or for a table
    /// of rendered SQL read by its marker (`$ref$orders`), its label.
    fn shown(&self) -> &str {
        if self.alias.starts_with('$') {
            &self.label
        } else {
            &self.alias
        }
    }
}

pub struct Walker<'e> {
    env: &'e mut dyn Env,
    /// CTEs in scope, innermost last: name, shape, `name AS (query)`.
    ctes: Vec<(String, Shape, String)>,
    pub joins: Vec<Found>,
}

fn lower(id: &sql::Ident) -> String {
    id.value.to_lowercase()
}

impl<'e> Walker<'e> {
    pub fn new(env: &'e mut dyn Env) -> Walker<'e> {
        Walker {
            env,
            ctes: Vec::new(),
            joins: Vec::new(),
        }
    }

    /// A whole statement's query: its shape, with the fan-outs that reach
    /// the output marked.
    pub fn statement(&mut self, q: &Query) -> Shape {
        let shape = self.query(q);
        for fan in &shape.fans {
            self.joins[fan.join].reaches_output = true;
        }
        shape
    }

    fn with_prefix(&self) -> String {
        if self.ctes.is_empty() {
            String::new()
        } else {
            let parts: Vec<&str> = self.ctes.iter().map(|c| c.2.as_str()).collect();
            format!("WITH {} ", parts.join(", "))
        }
    }

    fn query(&mut self, q: &Query) -> Shape {
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
    fn factor(&mut self, f: &TableFactor) -> Item {
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
                        let mut s = Shape::base(rel, facts);
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
    fn chain(
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

    /// Audit the join of the last item of `items` onto the ones before.
    fn join(
        &mut self,
        items: &mut [Item],
        kind: &str,
        (line, column): (usize, usize),
        on: Option<&Expr>,
        using: &[String],
        comma: bool,
    ) {
        let r = items.len() - 1;
        let id = self.joins.len();
        let mut found = Found {
            kind: kind.to_string(),
            line,
            column,
            from: items[..r].iter().map(|i| i.label.clone()).collect(),
            joined: items[r].label.clone(),
            ..Found::default()
        };
        // The key pairs: (left item, left column) and the right column.
        let mut pairs: Vec<(Option<(usize, String)>, String)> = Vec::new();
        for u in using {
            let left = resolve_name(&items[..r], None, u);
            pairs.push((left.map(|(i, n, _)| (i, n)), u.clone()));
        }
        if let Some(cond) = on {
            for c in conjuncts(cond) {
                let Expr::BinaryOp {
                    left,
                    op: sql::BinaryOperator::Eq,
                    right,
                } = c
                else {
                    // Not an equality: it only removes matches.
                    continue;
                };
                let side = |e: &Expr| -> Option<(usize, String)> {
                    let (q, n) = column_ref(e)?;
                    resolve_name(items, q.as_deref(), &n).map(|(i, n, _)| (i, n))
                };
                let (l, rr) = (side(left), side(right));
                let (mine, other, other_expr) = match (&l, &rr) {
                    (Some(a), _) if a.0 == r => (a.1.clone(), rr.clone(), right),
                    (_, Some(b)) if b.0 == r => (b.1.clone(), l.clone(), left),
                    _ => {
                        if mentions(items, r, c) && !comma {
                            found.unresolved.push(c.to_string());
                        }
                        continue;
                    }
                };
                match other {
                    Some((i, n)) if i != r => pairs.push((Some((i, n)), mine)),
                    Some(_) => found.unresolved.push(c.to_string()),
                    None if x::columns(other_expr).is_empty() || !comma => {
                        // A constant, or an expression of the from side.
                        pairs.push((None, mine));
                    }
                    None => {}
                }
            }
        }
        if comma && pairs.is_empty() && found.unresolved.is_empty() {
            found.kind = "cross (comma)".into();
        }
        let origin = |item: &Item, n: &str| {
            item.shape
                .col(n)
                .and_then(|c| c.origin)
                .map(|(rel, c)| format!("{}.{c}", rel.label()))
        };
        for (l, rcol) in &pairs {
            found.keys.push(Key {
                left: l
                    .as_ref()
                    .map(|(i, n)| format!("{}.{n}", items[*i].shown())),
                right: format!("{}.{rcol}", items[r].shown()),
                left_origin: l.as_ref().and_then(|(i, n)| origin(&items[*i], n)),
                right_origin: origin(&items[r], rcol),
            });
        }
        let right_keys: Vec<String> = pairs.iter().map(|p| p.1.clone()).collect();
        let mut rk = right_keys.clone();
        rk.sort();
        rk.dedup();
        let from_keys: Vec<(Rel, String)> = pairs
            .iter()
            .filter_map(|(l, _)| l.as_ref())
            .filter_map(|(i, n)| items[*i].shape.col(n).and_then(|c| c.origin))
            .collect();
        if matches!(kind, "semi" | "anti") {
            found.proof = Some((
                "cannot_repeat".into(),
                format!("{kind} join: keeps or drops rows, never repeats them"),
            ));
        } else if matches!(kind, "cross" | "cross (comma)") && rk.is_empty() {
            if let Some(f) = items[r].shape.proof(&[]) {
                found.proof = Some(("many_to_one".into(), format!("a single row: {}", f.why)));
            }
        } else if let Some(f) = items[r].shape.proof(&rk) {
            let one = left_unique(items, &pairs);
            found.proof = Some(match one {
                Some(w) => (
                    "one_to_one".into(),
                    format!(
                        "{} unique on ({}): {}; the from side too: {w}",
                        items[r].label,
                        f.columns.join(", "),
                        f.why
                    ),
                ),
                None => (
                    "many_to_one".into(),
                    format!(
                        "{} unique on ({}): {}",
                        items[r].label,
                        f.columns.join(", "),
                        f.why
                    ),
                ),
            });
        }
        if found.proof.is_none() && !rk.is_empty() && found.unresolved.is_empty() {
            found.count_on = count_on(&items[r].shape, &rk);
        }
        found.from_keys = from_keys;
        let proven = found.proof.is_some();
        self.joins.push(found);
        if !proven {
            for (i, item) in items.iter_mut().enumerate() {
                if i != r {
                    item.repeated_by.push(id);
                }
            }
        }
    }
}

/// An output column as the projection made it: name, column, and the input
/// `(item, column)` it copies.
type OutCol = (String, Col, Option<(usize, String)>);

/// A `group by` key: its output name, and the base column it copies.
type GroupKey = (Option<String>, Option<(Rel, String)>);

/// A projection: its columns, the expression of each (none for a
/// wildcard's), the items a wildcard takes whole, the columns not listed.
type Projection<'s> = (Vec<OutCol>, Vec<Option<&'s Expr>>, Vec<usize>, Option<Rest>);

impl Walker<'_> {
    fn select(&mut self, s: &Select) -> Shape {
        let cond = s.selection.as_ref();
        let mut items: Vec<Item> = Vec::new();
        for (k, twj) in s.from.iter().enumerate() {
            items = self.chain(twj, std::mem::take(&mut items), k > 0, cond);
        }
        // Joins inside scalar subqueries of the select.
        let mut exprs: Vec<&Expr> = Vec::new();
        for p in &s.projection {
            if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = p {
                exprs.push(e);
            }
        }
        exprs.extend(cond);
        exprs.extend(s.having.as_ref());
        for e in &exprs {
            for q in x::subqueries(e) {
                self.query(q);
            }
        }
        // `where rn = 1` over a `row_number() over (partition by ...)`.
        if let Some(w) = cond {
            for c in conjuncts(w) {
                if let Some((i, parts)) = first_row(&items, c) {
                    items[i].shape.unique.push(Fact::new(
                        parts,
                        "row_number() ... = 1 keeps one row per partition",
                    ));
                }
            }
        }
        let (outs, out_exprs, star, rest) = project(&items, s);
        let out_name = |i: usize, n: &str| -> Option<String> {
            if let Some((name, _, _)) = outs
                .iter()
                .find(|(_, _, src)| src.as_ref().is_some_and(|(j, m)| *j == i && m == n))
            {
                return Some(name.clone());
            }
            (star.contains(&i) && !outs.iter().any(|(o, _, _)| o == n)).then(|| n.to_string())
        };

        // Grouping and aggregates.
        let mut group: Vec<GroupKey> = Vec::new();
        let mut group_line = 0;
        let grouped = match &s.group_by {
            GroupByExpr::Expressions(list, _) if !list.is_empty() => {
                group_line = x::line(&list[0]);
                for g in list {
                    group.push(group_key(&items, &outs, &out_exprs, g));
                }
                true
            }
            GroupByExpr::All(_) => {
                for (e, o) in out_exprs.iter().zip(&outs) {
                    let Some(e) = e else { continue };
                    if x::aggregates(e).is_empty() {
                        group.push((Some(o.0.clone()), o.1.origin.clone()));
                    }
                }
                true
            }
            _ => false,
        };
        let mut aggs: Vec<(&sql::Function, bool)> = Vec::new();
        for p in &s.projection {
            if let SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } = p {
                aggs.extend(x::aggregates(e));
            }
        }
        if let Some(h) = &s.having {
            aggs.extend(x::aggregates(h));
        }
        let collapses = grouped || !aggs.is_empty();
        if group_line == 0 {
            group_line = x::line(&s.select_token.0);
        }

        // Double counting: a summing aggregate of a value of repeated rows.
        for (f, sums) in &aggs {
            if !sums {
                continue;
            }
            let mut hit: BTreeSet<usize> = BTreeSet::new();
            for arg in x::args(f) {
                for (q, n) in x::columns(arg) {
                    let Some((i, name, _)) = resolve_name(&items, q.as_deref(), &n) else {
                        continue;
                    };
                    hit.extend(items[i].repeated_by.iter().copied());
                    for fan in &items[i].shape.fans {
                        if fan.is_measure(&name) {
                            hit.insert(fan.join);
                        }
                    }
                }
            }
            for j in hit {
                self.joins[j].double.push((f.to_string(), x::line(*f)));
            }
        }

        // The fan-outs of this select and those its inputs carry.
        let mut here: BTreeSet<usize> = BTreeSet::new();
        for item in &items {
            here.extend(item.repeated_by.iter().copied());
        }
        let mut fans: Vec<Fan> = Vec::new();
        for &j in &here {
            let measures = outs
                .iter()
                .filter(|(_, _, src)| {
                    src.as_ref()
                        .is_some_and(|(i, _)| items[*i].repeated_by.contains(&j))
                })
                .map(|(n, _, _)| n.clone())
                .collect();
            fans.push(Fan {
                join: j,
                measures,
                rest: star.iter().any(|&i| items[i].repeated_by.contains(&j)),
                from_keys: self.joins[j].from_keys.clone(),
            });
        }
        for (i, item) in items.iter().enumerate() {
            for fan in &item.shape.fans {
                fans.push(Fan {
                    join: fan.join,
                    measures: fan.measures.iter().filter_map(|m| out_name(i, m)).collect(),
                    rest: fan.rest && star.contains(&i),
                    from_keys: fan.from_keys.clone(),
                });
            }
        }
        if collapses {
            let origins: Vec<&(Rel, String)> = group.iter().filter_map(|g| g.1.as_ref()).collect();
            for fan in &fans {
                let on_key =
                    !fan.from_keys.is_empty() && fan.from_keys.iter().all(|k| origins.contains(&k));
                let j = &mut self.joins[fan.join];
                if j.collapsed.is_none() {
                    j.collapsed = Some((group_line, on_key));
                }
            }
            fans.clear();
        }

        // What the output is unique on.
        let mut unique: Vec<Fact> = Vec::new();
        let names: Vec<String> = outs.iter().map(|o| o.0.clone()).collect();
        if matches!(s.distinct, Some(sql::Distinct::Distinct)) && rest.is_none() {
            unique.push(Fact::new(names.clone(), "select distinct"));
        }
        if grouped {
            let keys: Option<Vec<String>> = group.iter().map(|g| g.0.clone()).collect();
            if let Some(keys) = keys {
                unique.push(Fact::new(keys, "group by"));
            }
        } else if !aggs.is_empty() {
            unique.push(Fact::new(
                Vec::new(),
                "an aggregate without group by: one row",
            ));
        } else if here.is_empty() {
            if let Some(from) = items.first() {
                for f in &from.shape.unique {
                    let mapped: Option<Vec<String>> =
                        f.columns.iter().map(|c| out_name(0, c)).collect();
                    if let Some(m) = mapped {
                        let why = if f.why.starts_with("carried") {
                            f.why.clone()
                        } else {
                            format!("carried from {}: {}", from.label, f.why)
                        };
                        unique.push(Fact::new(m, why));
                    }
                }
            }
        }
        if let Some(q) = &s.qualify {
            for c in conjuncts(q) {
                if let Some(parts) = qualify_first(&items, c) {
                    let mapped: Option<Vec<String>> =
                        parts.iter().map(|(i, n)| out_name(*i, n)).collect();
                    if let Some(m) = mapped {
                        unique.push(Fact::new(m, "qualify row_number() ... = 1"));
                    }
                }
            }
        }
        // Row numbers: their partitions as output names.
        let mut cols: Vec<(String, Col)> = Vec::new();
        for (e, (n, c, _)) in out_exprs.iter().zip(&outs) {
            let mut c = c.clone();
            if let Some(e) = e {
                if let Some(parts) = x::row_number_partition(e) {
                    let mapped: Option<Vec<String>> = parts
                        .iter()
                        .map(|e| {
                            let (q, n) = column_ref(e)?;
                            let (i, n, _) = resolve_name(&items, q.as_deref(), &n)?;
                            out_name(i, &n)
                        })
                        .collect();
                    c.rownum = mapped;
                }
            }
            cols.push((n.clone(), c));
        }
        // `qualify rn = 1` on a row number of the select list.
        if let Some(q) = &s.qualify {
            for c in conjuncts(q) {
                let Some((None, n)) = equals_one(c).and_then(column_ref) else {
                    continue;
                };
                if let Some(parts) = cols
                    .iter()
                    .find(|(o, _)| *o == n)
                    .and_then(|(_, c)| c.rownum.clone())
                {
                    unique.push(Fact::new(parts, "qualify row_number() ... = 1"));
                }
            }
        }
        let plain = s.projection.iter().all(|p| match p {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                column_ref(e).is_some()
            }
            _ => true,
        });
        let pass =
            (items.len() == 1 && cond.is_none() && !collapses && s.distinct.is_none() && plain)
                .then(|| items[0].shape.pass.clone())
                .flatten();
        Shape {
            cols,
            rest,
            unique,
            fans,
            pass,
            sql: None,
        }
    }
}

/// The output columns of a projection, the items a wildcard takes whole,
/// and the columns it does not list.
fn project<'s>(items: &[Item], s: &'s Select) -> Projection<'s> {
    let mut outs: Vec<OutCol> = Vec::new();
    let mut exprs: Vec<Option<&'s Expr>> = Vec::new();
    let mut star: Vec<usize> = Vec::new();
    let mut rest: Option<Rest> = None;
    let mut whole = |i: usize, outs: &mut Vec<OutCol>, rest: &mut Option<Rest>| {
        for (n, c) in &items[i].shape.cols {
            outs.push((n.clone(), c.clone(), Some((i, n.clone()))));
        }
        star.push(i);
        if let Some(r) = &items[i].shape.rest {
            *rest = Some(if rest.is_none() && items.len() == 1 {
                r.clone()
            } else {
                Rest::Unknown
            });
        }
    };
    for p in &s.projection {
        match p {
            SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => {
                let name = match p {
                    SelectItem::ExprWithAlias { alias, .. } => lower(alias),
                    _ => column_ref(e)
                        .map(|(_, n)| n)
                        .unwrap_or_else(|| e.to_string().to_lowercase()),
                };
                let src = column_ref(e).and_then(|(q, n)| resolve_name(items, q.as_deref(), &n));
                exprs.resize(outs.len(), None);
                exprs.push(Some(e));
                match src {
                    Some((i, n, c)) => outs.push((
                        name,
                        Col {
                            origin: c.origin,
                            rownum: None,
                        },
                        Some((i, n)),
                    )),
                    None => outs.push((name, Col::default(), None)),
                }
            }
            SelectItem::Wildcard(_) => {
                for i in 0..items.len() {
                    whole(i, &mut outs, &mut rest);
                }
            }
            SelectItem::QualifiedWildcard(kind, _) => {
                let alias = match kind {
                    sql::SelectItemQualifiedWildcardKind::ObjectName(n) => {
                        n.0.last()
                            .and_then(|p| p.as_ident())
                            .map(lower)
                            .unwrap_or_default()
                    }
                    _ => String::new(),
                };
                match items.iter().position(|i| i.alias == alias) {
                    Some(i) => whole(i, &mut outs, &mut rest),
                    None => rest = Some(Rest::Unknown),
                }
            }
            _ => rest = Some(Rest::Unknown),
        }
    }
    exprs.resize(outs.len(), None);
    (outs, exprs, star, rest)
}

/// A `group by` expression: its output name (when it is an output
/// column) and the base column it copies.
fn group_key(items: &[Item], outs: &[OutCol], exprs: &[Option<&Expr>], g: &Expr) -> GroupKey {
    if let Some(k) = x::position(g) {
        return match outs.get(k.wrapping_sub(1)) {
            Some(o) => (Some(o.0.clone()), o.1.origin.clone()),
            None => (None, None),
        };
    }
    if let Some((q, n)) = column_ref(g) {
        if let Some((i, n, c)) = resolve_name(items, q.as_deref(), &n) {
            let out = outs
                .iter()
                .find(|o| o.2.as_ref().is_some_and(|(j, m)| *j == i && *m == n))
                .map(|o| o.0.clone());
            return (out, c.origin);
        }
        if q.is_none() {
            if let Some(o) = outs.iter().find(|o| o.0 == n) {
                return (Some(o.0.clone()), o.1.origin.clone());
            }
        }
    }
    // An expression that is an output column's expression.
    let text = g.to_string();
    for (e, o) in exprs.iter().zip(outs) {
        if e.is_some_and(|e| e.to_string() == text) {
            return (Some(o.0.clone()), o.1.origin.clone());
        }
    }
    (None, None)
}

/// The item and column a (qualified) name denotes.
fn resolve_name(items: &[Item], qual: Option<&str>, name: &str) -> Option<(usize, String, Col)> {
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

/// Whether `e` mentions a column of item `r`.
fn mentions(items: &[Item], r: usize, e: &Expr) -> bool {
    x::columns(e).iter().any(|(q, n)| {
        resolve_name(items, q.as_deref(), n).is_some_and(|(i, _, _)| i == r)
            || q.as_deref() == Some(items[r].alias.as_str())
    })
}

/// Why the from side is unique on its keys too (one item, not repeated).
fn left_unique(items: &[Item], pairs: &[(Option<(usize, String)>, String)]) -> Option<String> {
    let lefts: Vec<&(usize, String)> = pairs.iter().filter_map(|p| p.0.as_ref()).collect();
    // The first item of the `from`: a later one (joined many_to_one) can
    // repeat its rows over the rows of the items before it.
    let first = lefts.first()?.0;
    if first != 0 || lefts.iter().any(|l| l.0 != first) || !items[first].repeated_by.is_empty() {
        return None;
    }
    let mut keys: Vec<String> = lefts.iter().map(|l| l.1.clone()).collect();
    keys.sort();
    items[first].shape.proof(&keys).map(|f| {
        format!(
            "{} unique on ({}): {}",
            items[first].label,
            f.columns.join(", "),
            f.why
        )
    })
}

/// What to count on the data for a joined side unique on `keys` or not.
fn count_on(shape: &Shape, keys: &[String]) -> Option<CountOn> {
    if let Some(rel) = &shape.pass {
        if !matches!(rel, Rel::Other { .. }) {
            let cols: Option<Vec<String>> = keys
                .iter()
                .map(|k| match shape.col(k)?.origin? {
                    (r, c) if &r == rel => Some(c),
                    _ => None,
                })
                .collect();
            if let Some(columns) = cols {
                return Some(CountOn::Relation {
                    rel: rel.clone(),
                    columns,
                });
            }
        }
    }
    let sql = shape.sql.clone()?;
    keys.iter()
        .all(|k| shape.col(k).is_some())
        .then(|| CountOn::Sql {
            sql,
            columns: keys.to_vec(),
        })
}

/// `e = 1` or `1 = e`: `e`.
fn equals_one(c: &Expr) -> Option<&Expr> {
    let Expr::BinaryOp {
        left,
        op: sql::BinaryOperator::Eq,
        right,
    } = c
    else {
        return None;
    };
    if x::position(right) == Some(1) {
        Some(left)
    } else if x::position(left) == Some(1) {
        Some(right)
    } else {
        None
    }
}

/// `rn = 1` where `rn` is a row number: the item and its partition.
fn first_row(items: &[Item], c: &Expr) -> Option<(usize, Vec<String>)> {
    let (q, n) = column_ref(equals_one(c)?)?;
    let (i, _, c) = resolve_name(items, q.as_deref(), &n)?;
    c.rownum.map(|p| (i, p))
}

/// `qualify row_number() over (partition by ...) = 1`: the partition.
fn qualify_first(items: &[Item], c: &Expr) -> Option<Vec<(usize, String)>> {
    x::row_number_partition(equals_one(c)?)?
        .iter()
        .map(|e| {
            let (q, n) = column_ref(e)?;
            resolve_name(items, q.as_deref(), &n).map(|(i, n, _)| (i, n))
        })
        .collect()
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
