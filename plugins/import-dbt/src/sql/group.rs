//! Grouped SELECTs: `group { keys } ( aggregate {...} filter having )`
//! when the select list is the keys then the aggregates; otherwise a
//! helper model that groups (`<model>__grouped`) and the model computing
//! the select list over its keys and aggregates.

use sqlparser::ast as sql;

use super::aggregates::{collect_aggregates, has_aggregate, is_aggregate_call};
use super::translator::{Input, Mode, PostMap, Rel, Translator};
use super::{ColInfo, Refusal, R};
use crate::names;
use crate::plan::{Group, ModelPlan, SExpr, Step};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Item {
    Key(usize),
    Agg(usize),
    Other,
}

impl Translator<'_> {
    #[allow(clippy::too_many_arguments)]
    pub(super) fn grouped(
        &mut self,
        s: &sql::Select,
        mut plan: ModelPlan,
        inputs: &[Input],
        order: &[sql::OrderByExpr],
        limit: Option<(u64, Option<u64>)>,
        distinct: bool,
        name: Option<&str>,
        base: &str,
    ) -> R<Rel> {
        // `*` / `t.*` under GROUP BY ALL: every column of the inputs (or
        // of `t`) is a key, as DuckDB groups them.
        let group_all = matches!(&s.group_by, sql::GroupByExpr::All(_));
        let stars: Vec<Vec<(String, sql::Expr)>> = s
            .projection
            .iter()
            .map(|p| match p {
                sql::SelectItem::Wildcard(o) if group_all && o.to_string().is_empty() => {
                    star_keys(inputs, None)
                }
                sql::SelectItem::QualifiedWildcard(
                    sql::SelectItemQualifiedWildcardKind::ObjectName(q),
                    o,
                ) if group_all && o.to_string().is_empty() => star_keys(inputs, Some(q)),
                _ => Vec::new(),
            })
            .collect();
        // The select list: named expressions only.
        let mut items: Vec<(String, &sql::Expr)> = Vec::new();
        for (p, star) in s.projection.iter().zip(&stars) {
            match p {
                sql::SelectItem::Wildcard(_) | sql::SelectItem::QualifiedWildcard(..)
                    if !star.is_empty() =>
                {
                    items.extend(star.iter().map(|(n, e)| (n.clone(), e)));
                }
                sql::SelectItem::UnnamedExpr(e) => {
                    let n = match e {
                        sql::Expr::Identifier(i) => i.value.clone(),
                        sql::Expr::CompoundIdentifier(v) => {
                            v.last().map(|i| i.value.clone()).unwrap_or_default()
                        }
                        _ => {
                            return Err(Refusal::at(
                                format!("`{e}` has no alias: name the column with AS"),
                                e,
                            ))
                        }
                    };
                    // Named by the column, as DuckDB names it.
                    let n = match self.expr(e, inputs, &Mode::Row) {
                        Ok((SExpr::Col { name: actual, .. }, _))
                            if actual.eq_ignore_ascii_case(&n) =>
                        {
                            actual
                        }
                        _ => n,
                    };
                    items.push((n, e));
                }
                sql::SelectItem::ExprWithAlias { expr, alias } => {
                    items.push((alias.value.clone(), expr))
                }
                _ => {
                    return Err(Refusal::new(
                        "`*` in a grouped SELECT: list the grouped columns",
                        0,
                    ))
                }
            }
        }
        for (i, (n, _)) in items.iter().enumerate() {
            if let Some(why) = names::refusal(n) {
                return Err(Refusal::new(format!("output column: {why}"), 0));
            }
            if items[..i].iter().any(|(m, _)| m.eq_ignore_ascii_case(n)) {
                return Err(Refusal::new(
                    format!("two output columns are named `{n}`"),
                    0,
                ));
            }
        }

        // The grouping keys, as SQL expressions.
        let key_sql: Vec<&sql::Expr> = match &s.group_by {
            sql::GroupByExpr::All(_) => items
                .iter()
                .filter(|(_, e)| !has_aggregate(e))
                .map(|(_, e)| *e)
                .collect(),
            sql::GroupByExpr::Expressions(v, _) => {
                let mut out = Vec::new();
                for k in v {
                    let resolved = match k {
                        sql::Expr::Value(val) => match &val.value {
                            sql::Value::Number(n, _) => {
                                let i: usize = n.parse().unwrap_or(0);
                                match i.checked_sub(1).and_then(|i| items.get(i)) {
                                    Some((_, e)) => *e,
                                    None => {
                                        return Err(Refusal::at(
                                            format!("GROUP BY {n}: no such column"),
                                            k,
                                        ))
                                    }
                                }
                            }
                            _ => k,
                        },
                        // A select alias (DuckDB), when no input has
                        // a column of that name.
                        sql::Expr::Identifier(id)
                            if !inputs.iter().any(|i| {
                                super::clauses::find_col(&i.columns, &id.value).is_some()
                            }) =>
                        {
                            items
                                .iter()
                                .find(|(n, _)| n.eq_ignore_ascii_case(&id.value))
                                .map_or(k, |(_, e)| *e)
                        }
                        other => other,
                    };
                    out.push(resolved);
                }
                out
            }
        };
        let mut keys: Vec<SExpr> = Vec::new();
        let mut key_types = Vec::new();
        for k in &key_sql {
            let (x, ty) = self.expr(k, inputs, &Mode::Row)?;
            if x.has_window() {
                return Err(Refusal::at("a window function in GROUP BY", *k));
            }
            if has_aggregate(k) {
                return Err(Refusal::at("an aggregate in GROUP BY", *k));
            }
            if !keys.contains(&x) {
                keys.push(x);
                key_types.push(ty);
            }
        }

        // Every aggregate call of the select list, HAVING and ORDER BY.
        let mut agg_sql: Vec<&sql::Expr> = Vec::new();
        for (_, e) in &items {
            collect_aggregates(e, &mut agg_sql);
        }
        if let Some(h) = &s.having {
            collect_aggregates(h, &mut agg_sql);
        }
        if limit.is_some() {
            for o in order {
                collect_aggregates(&o.expr, &mut agg_sql);
            }
        }
        let mut aggs: Vec<(SExpr, Option<strata_lang::types::Type>)> = Vec::new();
        for a in &agg_sql {
            let t = self.expr(a, inputs, &Mode::Row)?;
            if !aggs.iter().any(|(x, _)| *x == t.0) {
                aggs.push(t);
            }
        }

        // Which item is which.
        let mut kinds = Vec::new();
        for (_, e) in &items {
            let row = self.expr(e, inputs, &Mode::Row).ok().map(|t| t.0);
            let kind = match row {
                Some(x) if keys.contains(&x) => {
                    Item::Key(keys.iter().position(|k| *k == x).unwrap_or(0))
                }
                Some(x) if aggs.iter().any(|(a, _)| *a == x) && is_aggregate_call(e) => {
                    Item::Agg(aggs.iter().position(|(a, _)| *a == x).unwrap_or(0))
                }
                _ => Item::Other,
            };
            kinds.push(kind);
        }
        let first_agg = kinds.iter().position(|k| matches!(k, Item::Agg(_)));
        let last_key = kinds.iter().rposition(|k| matches!(k, Item::Key(_)));
        let keys_then_aggs = match (first_agg, last_key) {
            (Some(a), Some(k)) => k < a,
            _ => true,
        };
        let every_key_once =
            (0..keys.len()).all(|i| kinds.iter().filter(|k| **k == Item::Key(i)).count() == 1);
        let every_agg_once =
            (0..aggs.len()).all(|i| kinds.iter().filter(|k| **k == Item::Agg(i)).count() == 1);
        let single =
            keys_then_aggs && every_key_once && every_agg_once && !kinds.contains(&Item::Other);

        let model_name = name.map_or_else(|| plan.name.clone(), str::to_string);
        if single {
            // Keys named as the select list names them.
            let mut map = PostMap::default();
            let mut group_keys = Vec::new();
            let mut lets = Vec::new();
            let mut key_names = vec![String::new(); keys.len()];
            for ((n, _), kind) in items.iter().zip(&kinds) {
                if let Item::Key(i) = kind {
                    key_names[*i] = n.clone();
                }
            }
            // Key order: as the select list has them.
            let mut order_of_keys: Vec<usize> = Vec::new();
            for kind in &kinds {
                if let Item::Key(i) = kind {
                    order_of_keys.push(*i);
                }
            }
            for &i in &order_of_keys {
                let n = &key_names[i];
                match &keys[i] {
                    SExpr::Col { name: c, .. } if c == n => group_keys.push(keys[i].clone()),
                    other => {
                        lets.push((n.clone(), other.clone()));
                        group_keys.push(SExpr::col(None, n));
                    }
                }
                map.keys.push((keys[i].clone(), n.clone()));
            }
            let mut aggregates = Vec::new();
            for ((n, _), kind) in items.iter().zip(&kinds) {
                if let Item::Agg(j) = kind {
                    aggregates.push((n.clone(), aggs[*j].0.clone()));
                    map.aggs.push((aggs[*j].0.clone(), n.clone()));
                }
            }
            let having = match &s.having {
                Some(h) => vec![self.expr(h, inputs, &Mode::Post(&map))?.0],
                None => Vec::new(),
            };
            for (n, e) in lets {
                plan.steps.push(Step::Let(n, e));
            }
            plan.steps.push(Step::Group(Group {
                keys: group_keys,
                aggregates,
                having,
            }));
            plan.name = model_name;
            let cols: Vec<ColInfo> = order_of_keys
                .iter()
                .map(|&i| ColInfo {
                    name: key_names[i].clone(),
                    ty: key_types[i].clone(),
                })
                .chain(items.iter().zip(&kinds).filter_map(|((n, _), k)| match k {
                    Item::Agg(j) => Some(ColInfo {
                        name: n.clone(),
                        ty: aggs[*j].1.clone(),
                    }),
                    _ => None,
                }))
                .collect();
            if distinct {
                plan.steps.push(Step::Dedup);
            }
            if limit.is_some() {
                let outputs: Vec<(String, SExpr, Option<strata_lang::types::Type>)> = cols
                    .iter()
                    .map(|c| (c.name.clone(), SExpr::col(None, &c.name), c.ty.clone()))
                    .collect();
                let keys = self.sort_keys(order, &outputs, inputs, &Mode::Post(&map))?;
                if !keys.is_empty() {
                    plan.steps.push(Step::Sort(keys));
                }
            }
            if let Some((a, b)) = limit {
                plan.steps.push(Step::Take(a, b));
            }
            return self.push(plan, cols);
        }

        // Two models: one groups, the next computes the select list.
        let helper = self.fresh(&names::helper(&model_name, "grouped"));
        let mut used: Vec<String> = Vec::new();
        let mut key_names = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            let from_item = items
                .iter()
                .zip(&kinds)
                .find(|(_, kind)| **kind == Item::Key(i))
                .map(|((n, _), _)| n.clone());
            let natural = match k {
                SExpr::Col { name, .. } => Some(name.clone()),
                _ => None,
            };
            let n = [from_item, natural]
                .into_iter()
                .flatten()
                .find(|n| !used.contains(n) && names::is_ident(n))
                .unwrap_or_else(|| format!("key_{}", i + 1));
            used.push(n.clone());
            key_names.push(n);
        }
        let mut agg_names = Vec::new();
        for (j, _) in aggs.iter().enumerate() {
            let from_item = items
                .iter()
                .zip(&kinds)
                .find(|(_, kind)| **kind == Item::Agg(j))
                .map(|((n, _), _)| n.clone());
            let n = from_item
                .filter(|n| !used.contains(n))
                .unwrap_or_else(|| format!("agg_{}", j + 1));
            used.push(n.clone());
            agg_names.push(n);
        }
        let mut inner = PostMap::default();
        let mut group_keys = Vec::new();
        plan.name = helper.clone();
        for (k, n) in keys.iter().zip(&key_names) {
            match k {
                SExpr::Col { name: c, .. } if c == n => group_keys.push(k.clone()),
                other => {
                    plan.steps.push(Step::Let(n.clone(), other.clone()));
                    group_keys.push(SExpr::col(None, n));
                }
            }
            inner.keys.push((k.clone(), n.clone()));
        }
        let aggregates: Vec<(String, SExpr)> = aggs
            .iter()
            .zip(&agg_names)
            .map(|((a, _), n)| (n.clone(), a.clone()))
            .collect();
        for (a, n) in aggregates.iter().map(|(n, a)| (a, n)) {
            inner.aggs.push((a.clone(), n.clone()));
        }
        let having = match &s.having {
            Some(h) => vec![self.expr(h, inputs, &Mode::Post(&inner))?.0],
            None => Vec::new(),
        };
        plan.steps.push(Step::Group(Group {
            keys: group_keys,
            aggregates,
            having,
        }));
        let mut helper_cols: Vec<ColInfo> = Vec::new();
        for (i, n) in key_names.iter().enumerate() {
            helper_cols.push(ColInfo {
                name: n.clone(),
                ty: key_types[i].clone(),
            });
        }
        for ((_, ty), n) in aggs.iter().zip(&agg_names) {
            helper_cols.push(ColInfo {
                name: n.clone(),
                ty: ty.clone(),
            });
        }
        self.push(plan, helper_cols.clone())?;

        let mut outer = PostMap {
            input: Some(helper.clone()),
            ..PostMap::default()
        };
        outer.keys = inner.keys.clone();
        outer.aggs = inner.aggs.clone();
        let main_name = if name.is_some() {
            model_name
        } else {
            self.fresh(base)
        };
        let mut main = ModelPlan::new(&main_name, &helper);
        let mut outputs = Vec::new();
        for (n, e) in &items {
            let (x, ty) = self.expr(e, inputs, &Mode::Post(&outer))?;
            outputs.push((n.clone(), x, ty));
        }
        main.steps.push(Step::Select(
            outputs
                .iter()
                .map(|(n, e, _)| (n.clone(), e.clone()))
                .collect(),
        ));
        if distinct {
            main.steps.push(Step::Dedup);
        }
        if limit.is_some() {
            let keys = self.sort_keys(order, &outputs, inputs, &Mode::Post(&outer))?;
            if !keys.is_empty() {
                main.steps.push(Step::Sort(keys));
            }
        }
        if let Some((a, b)) = limit {
            main.steps.push(Step::Take(a, b));
        }
        let cols = outputs
            .into_iter()
            .map(|(name, _, ty)| ColInfo { name, ty })
            .collect();
        self.push(main, cols)
    }
}

/// The columns `*` (or `q.*`) selects, each as `alias.column`.
fn star_keys(inputs: &[Input], q: Option<&sql::ObjectName>) -> Vec<(String, sql::Expr)> {
    let qualifier = q.and_then(|q| match q.0.as_slice() {
        [sql::ObjectNamePart::Identifier(i)] => Some(i.value.as_str()),
        _ => None,
    });
    if q.is_some() && qualifier.is_none() {
        return Vec::new();
    }
    inputs
        .iter()
        .filter(|i| qualifier.is_none_or(|a| i.alias.eq_ignore_ascii_case(a)))
        .flat_map(|i| {
            i.columns
                .iter()
                .filter(|c| !i.merged.contains(&c.name))
                .map(move |c| {
                    (
                        c.name.clone(),
                        sql::Expr::CompoundIdentifier(vec![
                            sql::Ident::new(i.alias.clone()),
                            sql::Ident::new(c.name.clone()),
                        ]),
                    )
                })
        })
        .collect()
}
