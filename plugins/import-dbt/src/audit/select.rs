//! One `select` of the walk: its `from` items and joins (`walk`, `join`),
//! `where rn = 1` dedups, the projection, grouping and aggregates — an
//! aggregate of repeated rows' values double counts, a `group by`
//! collapses them — and what the output is unique on and which fan-outs
//! it carries.

use std::collections::BTreeSet;

use sqlparser::ast::{self as sql, Expr, GroupByExpr, Select, SelectItem};

use super::expr::{self as x, column_ref, conjuncts};
use super::shape::{Col, Fact, Fan, Rel, Rest, Shape};
use super::walk::{lower, resolve_name, Downstream, Item, Walker};

/// An output column as the projection made it: name, column, and the input
/// `(item, column)` it copies.
type OutCol = (String, Col, Option<(usize, String)>);

/// A `group by` key: its output name, and the base column it copies.
type GroupKey = (Option<String>, Option<(Rel, String)>);

/// A projection: its columns, the expression of each (none for a
/// wildcard's), the items a wildcard takes whole, the columns not listed.
type Projection<'s> = (Vec<OutCol>, Vec<Option<&'s Expr>>, Vec<usize>, Option<Rest>);

impl Walker<'_> {
    pub(super) fn select(&mut self, s: &Select) -> Shape {
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
            let mut upstream: BTreeSet<(String, usize)> = BTreeSet::new();
            for arg in x::args(f) {
                for (q, n) in x::columns(arg) {
                    let Some((i, name, _)) = resolve_name(&items, q.as_deref(), &n) else {
                        continue;
                    };
                    hit.extend(items[i].repeated_by.iter().copied());
                    for fan in &items[i].shape.fans {
                        if fan.is_measure(&name) {
                            match &fan.origin {
                                None => {
                                    hit.insert(fan.join);
                                }
                                Some(up) => {
                                    upstream.insert(up.clone());
                                }
                            }
                        }
                    }
                }
            }
            for j in hit {
                self.joins[j].double.push((f.to_string(), x::line(*f)));
            }
            for up in upstream {
                self.downstream.push(Downstream {
                    upstream: up,
                    double: Some((f.to_string(), x::line(*f))),
                });
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
                origin: None,
            });
        }
        for (i, item) in items.iter().enumerate() {
            for fan in &item.shape.fans {
                fans.push(Fan {
                    join: fan.join,
                    measures: fan.measures.iter().filter_map(|m| out_name(i, m)).collect(),
                    rest: fan.rest && star.contains(&i),
                    from_keys: fan.from_keys.clone(),
                    origin: fan.origin.clone(),
                });
            }
        }
        if collapses {
            let origins: Vec<&(Rel, String)> = group.iter().filter_map(|g| g.1.as_ref()).collect();
            // A group by here collapses an upstream model's repeated rows
            // too; what it sums of them is double counting (above).
            for fan in fans.iter().filter(|f| f.origin.is_none()) {
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

/// `e = 1` or `1 = e`: `e`.
fn equals_one(c: &Expr) -> Option<&Expr> {
    let (left, right) = x::equality(c)?;
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
