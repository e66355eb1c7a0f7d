//! Queries to models: CTEs, `SELECT` (inputs and joins, filters, grouping,
//! the select list, `DISTINCT`, `ORDER BY` with `LIMIT`) and set
//! operations.

use sqlparser::ast as sql;

use super::clauses::*;
use super::translator::{Input, Mode, Output, Rel, Scope, Translator};
use super::{column_of, line_of, span_line, ColInfo, Refusal, R};
use crate::names;
use crate::plan::{Join, JoinKind, ModelPlan, Op, SExpr, SortKey, Step};

impl Translator<'_> {
    /// Translate a query. With `name`, the result is a model of that name;
    /// without, it may be an existing relation (a query that only aliases
    /// one). `base` names the helpers made for its parts.
    pub fn query(
        &mut self,
        q: &sql::Query,
        name: Option<&str>,
        outer: &Scope,
        base: &str,
    ) -> R<Rel> {
        if q.fetch.is_some()
            || !q.locks.is_empty()
            || q.for_clause.is_some()
            || q.settings.is_some()
            || q.format_clause.is_some()
            || !q.pipe_operators.is_empty()
        {
            return Err(Refusal::at(
                "a clause strata has no equivalent for (FETCH, FOR, SETTINGS, FORMAT or a pipe operator)",
                q,
            ));
        }
        let mut scope = outer.clone();
        // `select * from final`: the last CTE is the model itself.
        let main_cte = name.and_then(|_| main_alias_cte(q));
        if let Some(with) = &q.with {
            if with.recursive {
                return Err(Refusal::new(
                    "WITH RECURSIVE has no strata equivalent",
                    with.cte_tables
                        .first()
                        .map_or(0, |c| span_line(c.alias.name.span)),
                ));
            }
            for cte in &with.cte_tables {
                let cname = &cte.alias.name.value;
                if !cte.alias.columns.is_empty() {
                    return Err(Refusal::new(
                        format!("CTE `{cname}` renames its columns in a list: write the aliases in its select list"),
                        span_line(cte.alias.name.span),
                    ));
                }
                let is_main = main_cte
                    .as_deref()
                    .is_some_and(|m| m.eq_ignore_ascii_case(cname));
                let target = if is_main { name } else { None };
                let rel = self.query(&cte.query, target, &scope, &names::helper(base, cname))?;
                if is_main {
                    return Ok(rel);
                }
                scope.ctes.push((cname.clone(), rel));
            }
        }
        let order = order_items(q)?;
        let limit = limit_of(q)?;
        match &*q.body {
            sql::SetExpr::Select(s) => self.select(s, &order, limit, name, &scope, base),
            sql::SetExpr::Query(inner) if order.is_empty() && limit.is_none() => {
                self.query(inner, name, &scope, base)
            }
            sql::SetExpr::Query(inner) => {
                let rel = self.query(inner, None, &scope, &names::helper(base, "inner"))?;
                self.sorted_copy(rel, &order, limit, name, base)
            }
            sql::SetExpr::SetOperation { .. } => {
                let target = if order.is_empty() && limit.is_none() {
                    name
                } else {
                    None
                };
                let rel = self.set_operation(&q.body, target, &scope, base)?;
                if order.is_empty() && limit.is_none() {
                    Ok(rel)
                } else {
                    self.sorted_copy(rel, &order, limit, name, base)
                }
            }
            sql::SetExpr::Values(_) => Err(Refusal::at(
                "VALUES rows: strata models read sources and models (declare the rows as a seed)",
                &*q.body,
            )),
            other => Err(Refusal::at("this statement is not a query", other)),
        }
    }

    /// `from rel sort {...} take n` (an ORDER BY / LIMIT around a set
    /// operation or a parenthesised query).
    pub(super) fn sorted_copy(
        &mut self,
        rel: Rel,
        order: &[sql::OrderByExpr],
        limit: Option<(u64, Option<u64>)>,
        name: Option<&str>,
        base: &str,
    ) -> R<Rel> {
        let model_name = name.map_or_else(|| self.fresh(base), str::to_string);
        let mut plan = ModelPlan::new(&model_name, &rel.name);
        let input = Input {
            alias: rel.name.clone(),
            strata: rel.name.clone(),
            columns: rel.columns.clone(),
            merged: Vec::new(),
        };
        let items: Vec<(String, SExpr)> = rel
            .columns
            .iter()
            .map(|c| (c.name.clone(), SExpr::col(Some(&rel.name), &c.name)))
            .collect();
        plan.steps.push(Step::Select(items));
        let outputs: Vec<Output> = rel
            .columns
            .iter()
            .map(|c| {
                (
                    c.name.clone(),
                    SExpr::col(Some(&rel.name), &c.name),
                    c.ty.clone(),
                )
            })
            .collect();
        if limit.is_some() {
            let keys = self.sort_keys(order, &outputs, &[input], &Mode::Row)?;
            if !keys.is_empty() {
                plan.steps.push(Step::Sort(keys));
            }
        }
        if let Some((a, b)) = limit {
            plan.steps.push(Step::Take(a, b));
        }
        self.push(plan, rel.columns)
    }

    /// One `SELECT`.
    pub fn select(
        &mut self,
        s: &sql::Select,
        order: &[sql::OrderByExpr],
        limit: Option<(u64, Option<u64>)>,
        name: Option<&str>,
        scope: &Scope,
        base: &str,
    ) -> R<Rel> {
        unsupported_select_parts(s)?;
        if s.from.is_empty() {
            return self.constants(s, order, limit, name, base);
        }
        let [from] = s.from.as_slice() else {
            return Err(Refusal::at(
                "several relations in FROM separated by commas: write the join with JOIN ... ON",
                &s.from[1],
            ));
        };
        let mut inputs = vec![self.factor(&from.relation, scope, base, &[])?];

        // An alias of one relation: no model of its own.
        if name.is_none()
            && from.joins.is_empty()
            && s.selection.is_none()
            && s.having.is_none()
            && s.distinct.is_none()
            && limit.is_none()
            && matches!(&s.group_by, sql::GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty())
            && is_plain_star(&s.projection)
        {
            let i = &inputs[0];
            return Ok(Rel {
                name: i.strata.clone(),
                columns: i.columns.clone(),
            });
        }

        let model_name = name.map_or_else(|| self.fresh(base), str::to_string);
        let mut plan = ModelPlan::new(&model_name, &inputs[0].strata);

        for j in &from.joins {
            let input = self.factor(&j.relation, scope, base, &inputs)?;
            let (kind, constraint) = match &j.join_operator {
                sql::JoinOperator::Join(c) | sql::JoinOperator::Inner(c) => (JoinKind::Inner, c),
                sql::JoinOperator::Left(c) | sql::JoinOperator::LeftOuter(c) => (JoinKind::Left, c),
                sql::JoinOperator::Right(c) | sql::JoinOperator::RightOuter(c) => {
                    (JoinKind::Right, c)
                }
                sql::JoinOperator::FullOuter(c) => (JoinKind::Full, c),
                sql::JoinOperator::CrossJoin(c) => (JoinKind::Cross, c),
                sql::JoinOperator::Semi(c) | sql::JoinOperator::LeftSemi(c) => (JoinKind::Semi, c),
                sql::JoinOperator::Anti(c) | sql::JoinOperator::LeftAnti(c) => (JoinKind::Anti, c),
                _ => {
                    return Err(Refusal::at(
                        "this kind of join has no strata equivalent",
                        &j.relation,
                    ))
                }
            };
            let mut input = input;
            let on = match constraint {
                sql::JoinConstraint::On(e) if kind == JoinKind::Cross => {
                    return Err(Refusal::at("a CROSS JOIN with ON", e));
                }
                sql::JoinConstraint::On(e) => {
                    let mut all = inputs.clone();
                    all.push(input.clone());
                    Some(self.expr(e, &all, &Mode::Row)?.0)
                }
                sql::JoinConstraint::Using(cols) if kind.nulls_from_side() => {
                    return Err(Refusal::at(
                        "RIGHT or FULL JOIN ... USING (its key columns are merged from both sides): name the join columns with ON",
                        &cols[0],
                    ));
                }
                sql::JoinConstraint::Using(cols) => {
                    let mut conds = Vec::new();
                    for c in cols {
                        let Some(sql::ObjectNamePart::Identifier(id)) = c.0.last() else {
                            return Err(Refusal::at("a USING column", c));
                        };
                        let left = inputs
                            .iter()
                            .find(|i| find_col(&i.columns, &id.value).is_some())
                            .ok_or_else(|| {
                                Refusal::at(
                                    format!("USING ({}): no input on the left has it", id.value),
                                    c,
                                )
                            })?;
                        let lc = find_col(&left.columns, &id.value)
                            .map(|c| c.name.clone())
                            .unwrap_or_default();
                        let rc = find_col(&input.columns, &id.value)
                            .map(|c| c.name.clone())
                            .ok_or_else(|| {
                                Refusal::at(
                                    format!(
                                        "USING ({}): the joined relation has no such column",
                                        id.value
                                    ),
                                    c,
                                )
                            })?;
                        conds.push(SExpr::bin(
                            Op::Eq,
                            SExpr::col(Some(&left.strata), &lc),
                            SExpr::col(Some(&input.strata), &rc),
                        ));
                        input.merged.push(rc);
                    }
                    Some(and_all(conds).unwrap_or(SExpr::Bool(true)))
                }
                sql::JoinConstraint::Natural => {
                    return Err(Refusal::at(
                        "NATURAL JOIN: name the join columns with ON",
                        &j.relation,
                    ))
                }
                sql::JoinConstraint::None if kind == JoinKind::Cross => None,
                sql::JoinConstraint::None => {
                    return Err(Refusal::at("a join without ON", &j.relation))
                }
            };
            let keys = on
                .as_ref()
                .and_then(|on| join_keys(on, &inputs[0].strata, &input.strata));
            plan.steps.push(Step::Join(Join {
                kind,
                input: input.strata.clone(),
                on,
                keys,
                promise: None,
                line: line_of(&j.relation),
                column: column_of(&j.relation),
            }));
            if !matches!(kind, JoinKind::Semi | JoinKind::Anti) {
                inputs.push(input);
            }
        }

        // WHERE: EXISTS / IN (subquery) conjuncts become semi and anti
        // joins; the rest a filter.
        if let Some(w) = &s.selection {
            let mut filters = Vec::new();
            for c in sql_conjuncts(w) {
                if let Some(step) = self.subquery_join(c, &inputs, scope, base)? {
                    plan.steps.push(step);
                } else {
                    filters.push(self.expr(c, &inputs, &Mode::Row)?.0);
                }
            }
            if let Some(f) = and_all(filters) {
                if f.has_window() {
                    return Err(Refusal::at("a window function in WHERE", w));
                }
                plan.steps.push(Step::Filter(f));
            }
        }

        let grouped = match &s.group_by {
            sql::GroupByExpr::All(_) => true,
            sql::GroupByExpr::Expressions(e, m) => {
                if !m.is_empty() {
                    return Err(Refusal::at(
                        "GROUP BY ROLLUP / CUBE / GROUPING SETS have no strata equivalent",
                        s,
                    ));
                }
                !e.is_empty()
            }
        } || s.having.is_some()
            || s.projection.iter().any(|p| match p {
                sql::SelectItem::UnnamedExpr(e)
                | sql::SelectItem::ExprWithAlias { expr: e, .. } => {
                    super::aggregates::has_aggregate(e)
                }
                _ => false,
            });

        let distinct = match &s.distinct {
            None | Some(sql::Distinct::All) => false,
            Some(sql::Distinct::Distinct) => true,
            Some(sql::Distinct::On(_)) => {
                return Err(Refusal::at(
                    "DISTINCT ON keeps the first row of each group in ORDER BY order: strata's `dedup by` keeps a row chosen otherwise; rank with row_number() in one model and filter in the next",
                    s,
                ))
            }
        };

        if grouped {
            if let Some(q) = &s.qualify {
                return Err(Refusal::at(
                    "QUALIFY in a grouped SELECT: group in one model, filter the windows in the next",
                    q,
                ));
            }
            return self.grouped(s, plan, &inputs, order, limit, distinct, name, base);
        }

        let outputs = self.select_list(&s.projection, &inputs, &Mode::Row)?;
        // `select *` of one input: strata's passthrough is the same
        // columns in the same order.
        if let Some(q) = &s.qualify {
            let (steps, hidden) = self.qualify(q, &outputs, &inputs)?;
            plan.steps.extend(steps);
            if !hidden.is_empty() {
                // The hidden columns are dropped by the model reading this
                // one, which the rest of the query (DISTINCT, ORDER BY with
                // LIMIT) then reads.
                if limit.is_some() {
                    return Err(Refusal::at(
                        "QUALIFY on a window the select list does not output, with LIMIT: output the window",
                        q,
                    ));
                }
                let model = plan.name.clone();
                plan.name = self.fresh(&names::helper(base, "qualified"));
                let mut cols: Vec<ColInfo> = outputs
                    .iter()
                    .map(|(n, _, ty)| ColInfo {
                        name: n.clone(),
                        ty: ty.clone(),
                    })
                    .collect();
                cols.extend(hidden.iter().map(|n| ColInfo {
                    name: n.clone(),
                    ty: None,
                }));
                let helper = self.push(plan, cols)?;
                plan = ModelPlan::new(&model, &helper.name);
                plan.steps.push(Step::Select(
                    outputs
                        .iter()
                        .map(|(n, _, _)| (n.clone(), SExpr::col(Some(&helper.name), n)))
                        .collect(),
                ));
            }
        } else if !(is_plain_star(&s.projection) && inputs.len() == 1) {
            plan.steps.push(Step::Select(
                outputs
                    .iter()
                    .map(|(n, e, _)| (n.clone(), e.clone()))
                    .collect(),
            ));
        }
        if distinct {
            plan.steps.push(Step::Dedup);
        }
        if limit.is_some() {
            let keys = self.sort_keys(order, &outputs, &inputs, &Mode::Row)?;
            if !keys.is_empty() {
                plan.steps.push(Step::Sort(keys));
            }
        }
        if let Some((a, b)) = limit {
            plan.steps.push(Step::Take(a, b));
        }
        let cols = outputs
            .into_iter()
            .map(|(name, _, ty)| ColInfo { name, ty })
            .collect();
        self.push(plan, cols)
    }

    /// ORDER BY keys over a select list's outputs.
    pub(super) fn sort_keys(
        &mut self,
        order: &[sql::OrderByExpr],
        outputs: &[Output],
        inputs: &[Input],
        mode: &Mode,
    ) -> R<Vec<SortKey>> {
        let mut keys = Vec::new();
        for o in order {
            let desc = o.options.asc == Some(false);
            if o.with_fill.is_some() {
                return Err(Refusal::at("ORDER BY ... WITH FILL", &o.expr));
            }
            let key = match &o.expr {
                sql::Expr::Value(v) => match &v.value {
                    sql::Value::Number(n, _) => {
                        let i: usize = n.parse().unwrap_or(0);
                        let Some((name, _, _)) = i.checked_sub(1).and_then(|i| outputs.get(i))
                        else {
                            return Err(Refusal::at(
                                format!("ORDER BY {n}: no such column"),
                                &o.expr,
                            ));
                        };
                        SExpr::col(None, name)
                    }
                    _ => return Err(Refusal::at("ORDER BY a constant", &o.expr)),
                },
                sql::Expr::Identifier(i)
                    if outputs
                        .iter()
                        .any(|(n, _, _)| n.eq_ignore_ascii_case(&i.value)) =>
                {
                    let n = outputs
                        .iter()
                        .find(|(n, _, _)| n.eq_ignore_ascii_case(&i.value))
                        .map(|(n, _, _)| n.clone())
                        .unwrap_or_default();
                    SExpr::col(None, &n)
                }
                other => self.expr(other, inputs, mode)?.0,
            };
            keys.push(SortKey {
                expr: key,
                desc,
                nulls_first: nulls_first(&o.options),
            });
        }
        Ok(keys)
    }
}

/// Where a key's NULLs go, as strata writes it: `NULLS FIRST` is
/// `nulls_first`; `NULLS LAST` and no placement are strata's default
/// (NULLs last), which is DuckDB's for both directions.
pub(super) fn nulls_first(o: &sql::OrderByOptions) -> Option<bool> {
    (o.nulls_first == Some(true)).then_some(true)
}
