//! Queries to models: CTEs, `SELECT` (inputs and joins, filters, grouping,
//! the select list, `DISTINCT`, `ORDER BY` with `LIMIT`) and set
//! operations.

use std::collections::BTreeMap;

use sqlparser::ast as sql;
use strata_lang::types::Type;

use super::expr::Mode;
use super::{line_of, span_line, ColInfo, Context, Named, Refusal, RelInfo, R};
use crate::names;
use crate::plan::{Join, JoinKind, Keys, ModelPlan, Op, SExpr, Step};

/// A relation a query level can read: its strata name and columns.
#[derive(Clone, Debug)]
pub struct Rel {
    pub name: String,
    pub columns: Vec<ColInfo>,
}

/// The CTEs visible at a query level, innermost last.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    ctes: Vec<(String, Rel)>,
}

impl Scope {
    fn find(&self, name: &str) -> Option<&Rel> {
        self.ctes
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, r)| r)
    }
}

/// One input of a `SELECT`: its SQL alias, its strata name, its columns.
#[derive(Clone, Debug)]
pub struct Input {
    pub alias: String,
    pub strata: String,
    pub columns: Vec<ColInfo>,
    /// Columns a `USING` join merged into an earlier input's (not repeated
    /// by `*`).
    pub merged: Vec<String>,
}

pub struct Translator<'a> {
    pub cx: &'a Context<'a>,
    pub plans: Vec<ModelPlan>,
    /// The models made here, with their columns.
    pub local: BTreeMap<String, RelInfo>,
    /// Translating a set operation's later branch, whose column names do
    /// not matter (the first branch's are kept): an expression without an
    /// alias is named by its position.
    positional: bool,
}

/// An output of a select list: its name, its expression, its type.
type Output = (String, SExpr, Option<Type>);

impl<'a> Translator<'a> {
    pub fn new(cx: &'a Context<'a>) -> Translator<'a> {
        Translator {
            cx,
            plans: Vec::new(),
            local: BTreeMap::new(),
            positional: false,
        }
    }

    /// A helper name not taken yet, from `base`.
    pub(super) fn fresh(&self, base: &str) -> String {
        let free = |n: &str| {
            n != self.cx.model
                && !self.cx.taken.contains(n)
                && !self.local.contains_key(n)
                && !self.cx.known.contains_key(n)
        };
        if free(base) {
            return base.to_string();
        }
        (2..)
            .map(|i| format!("{base}_{i}"))
            .find(|n| free(n))
            .unwrap_or_else(|| base.to_string())
    }

    /// Add a finished model.
    pub(super) fn push(&mut self, mut plan: ModelPlan, columns: Vec<ColInfo>) -> R<Rel> {
        if let Some(why) = names::refusal(&plan.name) {
            return Err(Refusal::new(format!("model name: {why}"), 0));
        }
        plan.columns = columns.iter().map(|c| c.name.clone()).collect();
        self.local.insert(
            plan.name.clone(),
            RelInfo {
                columns: columns.clone(),
                is_model: true,
            },
        );
        let rel = Rel {
            name: plan.name.clone(),
            columns,
        };
        self.plans.push(plan);
        Ok(rel)
    }

    fn relation(&self, name: &str) -> Option<&RelInfo> {
        self.local.get(name).or_else(|| self.cx.known.get(name))
    }

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
    fn sorted_copy(
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

    /// A set operation: each branch a relation (a model where strata needs
    /// one: the right side of a set operation, or a branch whose columns
    /// must be renamed to the first branch's), then `from b0 union all b1`.
    fn set_operation(
        &mut self,
        body: &sql::SetExpr,
        name: Option<&str>,
        scope: &Scope,
        base: &str,
    ) -> R<Rel> {
        // Flatten the left-deep chain.
        let mut ops: Vec<(&'static str, &sql::SetExpr)> = Vec::new();
        let mut cur = body;
        while let sql::SetExpr::SetOperation {
            left,
            op,
            set_quantifier,
            right,
        } = cur
        {
            let kw = match (op, set_quantifier) {
                (sql::SetOperator::Union, sql::SetQuantifier::All) => "union all",
                (sql::SetOperator::Union, sql::SetQuantifier::Distinct | sql::SetQuantifier::None) => "union",
                (sql::SetOperator::Intersect, sql::SetQuantifier::Distinct | sql::SetQuantifier::None) => "intersect",
                (sql::SetOperator::Except | sql::SetOperator::Minus, sql::SetQuantifier::Distinct | sql::SetQuantifier::None) => "except",
                _ => {
                    return Err(Refusal::at(
                        format!("{op} {set_quantifier}: strata has union, union all, intersect and except (distinct), by position"),
                        &**right,
                    ))
                }
            };
            ops.push((kw, &**right));
            cur = left;
        }
        ops.reverse();
        let first = self.branch(cur, scope, &names::helper(base, "part_1"))?;
        let mut plan_name = name.map_or_else(|| self.fresh(base), str::to_string);
        if plan_name == first.name {
            plan_name = self.fresh(base);
        }
        let mut plan = ModelPlan::new(&plan_name, &first.name);
        let mut columns = first.columns.clone();
        for (i, (kw, right)) in ops.into_iter().enumerate() {
            let outer = std::mem::replace(&mut self.positional, true);
            let rel = self.branch(
                right,
                scope,
                &names::helper(base, &format!("part_{}", i + 2)),
            );
            self.positional = outer;
            let rel = rel?;
            if rel.columns.len() != first.columns.len() {
                return Err(Refusal::at(
                    format!(
                        "the branches of {kw} have {} and {} columns",
                        first.columns.len(),
                        rel.columns.len()
                    ),
                    right,
                ));
            }
            // The right side must be a model with the first branch's
            // column names.
            let same_names = rel
                .columns
                .iter()
                .zip(&first.columns)
                .all(|(a, b)| a.name == b.name);
            let is_model = self.relation(&rel.name).is_some_and(|r| r.is_model);
            // A branch translated here into a model with a select list: its
            // outputs take the first branch's names directly.
            let own_select = self.plans.last().is_some_and(|p| {
                p.name == rel.name
                    && matches!(p.steps.last(), Some(Step::Select(items)) if items.len() == first.columns.len())
            });
            let rel = if same_names && is_model {
                rel
            } else if own_select {
                let names: Vec<String> = first.columns.iter().map(|c| c.name.clone()).collect();
                let mut cols = rel.columns.clone();
                if let Some(p) = self.plans.last_mut() {
                    if let Some(Step::Select(items)) = p.steps.last_mut() {
                        for (item, n) in items.iter_mut().zip(&names) {
                            item.0 = n.clone();
                        }
                    }
                    p.columns = names.clone();
                }
                for (c, n) in cols.iter_mut().zip(&names) {
                    c.name = n.clone();
                }
                if let Some(info) = self.local.get_mut(&rel.name) {
                    info.columns = cols.clone();
                }
                Rel {
                    name: rel.name,
                    columns: cols,
                }
            } else {
                let n = self.fresh(&names::helper(base, &format!("part_{}", i + 2)));
                let mut p = ModelPlan::new(&n, &rel.name);
                let items = rel
                    .columns
                    .iter()
                    .zip(&first.columns)
                    .map(|(c, f)| (f.name.clone(), SExpr::col(Some(&rel.name), &c.name)))
                    .collect();
                p.steps.push(Step::Select(items));
                let cols = first
                    .columns
                    .iter()
                    .zip(&rel.columns)
                    .map(|(f, c)| ColInfo {
                        name: f.name.clone(),
                        ty: c.ty.clone(),
                    })
                    .collect();
                self.push(p, cols)?
            };
            for (c, r) in columns.iter_mut().zip(&rel.columns) {
                if c.ty != r.ty {
                    c.ty = None;
                }
            }
            plan.steps.push(Step::SetOp(kw, rel.name.clone()));
        }
        self.push(plan, columns)
    }

    fn branch(&mut self, e: &sql::SetExpr, scope: &Scope, base: &str) -> R<Rel> {
        match e {
            sql::SetExpr::Select(s) => self.select(s, &[], None, None, scope, base),
            sql::SetExpr::Query(q) => self.query(q, None, scope, base),
            sql::SetExpr::SetOperation { .. } => self.set_operation(e, None, scope, base),
            other => Err(Refusal::at(
                "a set operation branch must be a SELECT",
                other,
            )),
        }
    }

    /// The relation a table name reads: a CTE in scope, else what the
    /// context resolves (a ref, a source, a relation of compiled SQL).
    fn table(&self, name: &sql::ObjectName, scope: &Scope) -> R<Rel> {
        let parts: Vec<String> = name
            .0
            .iter()
            .map(|p| match p {
                sql::ObjectNamePart::Identifier(i) => Ok(i.value.clone()),
                sql::ObjectNamePart::Function(_) => {
                    Err(Refusal::at("a relation name computed by a function", name))
                }
            })
            .collect::<R<_>>()?;
        if let [one] = parts.as_slice() {
            if let Some(rel) = scope.find(one) {
                return Ok(rel.clone());
            }
        }
        match (self.cx.resolve)(&parts) {
            Named::Relation(strata) => match self.relation(&strata) {
                Some(info) => Ok(Rel {
                    name: strata,
                    columns: info.columns.clone(),
                }),
                None => Err(Refusal::at(
                    format!("`{strata}` has no known columns"),
                    name,
                )),
            },
            Named::Unknown(why) => Err(Refusal::at(why, name)),
        }
    }

    /// The relation of a `FROM` item and the alias the query calls it by.
    fn factor(
        &mut self,
        f: &sql::TableFactor,
        scope: &Scope,
        base: &str,
        taken: &[Input],
    ) -> R<Input> {
        let (rel, alias) = match f {
            sql::TableFactor::Table {
                name,
                alias,
                args: None,
                with_hints,
                version: None,
                with_ordinality: false,
                partitions,
                json_path: None,
                ..
            } if with_hints.is_empty() && partitions.is_empty() => {
                let rel = self.table(name, scope)?;
                let default_alias = match name.0.last() {
                    Some(sql::ObjectNamePart::Identifier(i)) => display_name(&i.value),
                    _ => rel.name.clone(),
                };
                (rel, alias_of(alias.as_ref(), f)?.unwrap_or(default_alias))
            }
            sql::TableFactor::Derived {
                lateral: false,
                subquery,
                alias,
                ..
            } => {
                let Some(a) = alias_of(alias.as_ref(), f)? else {
                    return Err(Refusal::at("a subquery in FROM needs an alias", f));
                };
                let rel = self.query(subquery, None, scope, &names::helper(base, &a))?;
                (rel, a)
            }
            other => {
                return Err(Refusal::at(
                    "this FROM item (a table function, LATERAL, PIVOT, UNNEST, ...) has no strata equivalent",
                    other,
                ))
            }
        };
        // strata names an input by its relation: a relation read twice
        // (a self-join) is read the second time through a helper model.
        let rel = if taken.iter().any(|i| i.strata == rel.name) {
            let n = self.fresh(&names::helper(base, &alias));
            let mut p = ModelPlan::new(&n, &rel.name);
            p.steps.push(Step::Select(
                rel.columns
                    .iter()
                    .map(|c| (c.name.clone(), SExpr::col(Some(&rel.name), &c.name)))
                    .collect(),
            ));
            self.push(p, rel.columns.clone())?
        } else {
            rel
        };
        Ok(Input {
            alias,
            strata: rel.name,
            columns: rel.columns,
            merged: Vec::new(),
        })
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
        let [from] = s.from.as_slice() else {
            return Err(if s.from.is_empty() {
                Refusal::at(
                    "a SELECT without FROM: strata models read a source or a model",
                    s,
                )
            } else {
                Refusal::at(
                    "several relations in FROM separated by commas: write the join with JOIN ... ON",
                    &s.from[1],
                )
            });
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
                sql::JoinOperator::Semi(c) | sql::JoinOperator::LeftSemi(c) => (JoinKind::Semi, c),
                sql::JoinOperator::Anti(c) | sql::JoinOperator::LeftAnti(c) => (JoinKind::Anti, c),
                sql::JoinOperator::Right(_) | sql::JoinOperator::RightOuter(_) => {
                    return Err(Refusal::at(
                        "RIGHT JOIN: strata has left and inner joins (swap the two sides into a LEFT JOIN)",
                        &j.relation,
                    ))
                }
                sql::JoinOperator::FullOuter(_) => {
                    return Err(Refusal::at(
                        "FULL OUTER JOIN has no strata equivalent",
                        &j.relation,
                    ))
                }
                sql::JoinOperator::CrossJoin(_) => {
                    return Err(Refusal::at(
                        "CROSS JOIN has no strata equivalent (every join has an `on` condition)",
                        &j.relation,
                    ))
                }
                _ => {
                    return Err(Refusal::at(
                        "this kind of join has no strata equivalent",
                        &j.relation,
                    ))
                }
            };
            let mut input = input;
            let on = match constraint {
                sql::JoinConstraint::On(e) => {
                    let mut all = inputs.clone();
                    all.push(input.clone());
                    self.expr(e, &all, &Mode::Row)?.0
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
                    and_all(conds).unwrap_or(SExpr::Bool(true))
                }
                sql::JoinConstraint::Natural => {
                    return Err(Refusal::at(
                        "NATURAL JOIN: name the join columns with ON",
                        &j.relation,
                    ))
                }
                sql::JoinConstraint::None => {
                    return Err(Refusal::at("a join without ON", &j.relation))
                }
            };
            let keys = join_keys(&on, &inputs[0].strata, &input.strata);
            plan.steps.push(Step::Join(Join {
                kind,
                input: input.strata.clone(),
                on,
                keys,
                promise: None,
                evidence: String::new(),
                line: line_of(&j.relation),
            }));
            if matches!(kind, JoinKind::Left | JoinKind::Inner) {
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
                | sql::SelectItem::ExprWithAlias { expr: e, .. } => super::expr::has_aggregate(e),
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
            return self.grouped(s, plan, &inputs, order, limit, distinct, name, base);
        }

        let outputs = self.select_list(&s.projection, &inputs, &Mode::Row)?;
        // `select *` of one input: strata's passthrough is the same
        // columns in the same order.
        if !(is_plain_star(&s.projection) && inputs.len() == 1) {
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

    /// The select list's outputs (stars expanded).
    fn select_list(
        &mut self,
        items: &[sql::SelectItem],
        inputs: &[Input],
        mode: &Mode,
    ) -> R<Vec<Output>> {
        let mut out: Vec<Output> = Vec::new();
        for item in items {
            match item {
                sql::SelectItem::UnnamedExpr(e) => {
                    if let Some(expanded) = self.star_call(e, inputs)? {
                        out.extend(expanded);
                        continue;
                    }
                    let name = match e {
                        sql::Expr::Identifier(i) => i.value.clone(),
                        sql::Expr::CompoundIdentifier(p) => {
                            p.last().map(|i| i.value.clone()).unwrap_or_default()
                        }
                        _ if self.positional => format!("column_{}", out.len() + 1),
                        _ => {
                            return Err(Refusal::at(
                                format!("`{e}` has no alias: name the column with AS"),
                                e,
                            ))
                        }
                    };
                    let (x, ty) = self.expr(e, inputs, mode)?;
                    // DuckDB names a column reference by the column, not
                    // as the query spells it (`select ID` of `id` is `id`).
                    let name = match (&x, e) {
                        (
                            SExpr::Col { name: actual, .. },
                            sql::Expr::Identifier(_) | sql::Expr::CompoundIdentifier(_),
                        ) if actual.eq_ignore_ascii_case(&name) => actual.clone(),
                        _ => name,
                    };
                    out.push((name, x, ty));
                }
                sql::SelectItem::ExprWithAlias { expr, alias } => {
                    let (x, ty) = self.expr(expr, inputs, mode)?;
                    out.push((alias.value.clone(), x, ty));
                }
                sql::SelectItem::ExprWithAliases { expr, .. } => {
                    return Err(Refusal::at("several aliases for one expression", expr))
                }
                sql::SelectItem::Wildcard(opts) => {
                    if !matches!(mode, Mode::Row) {
                        return Err(Refusal::new(
                            "`*` in a grouped SELECT",
                            span_line(opts.wildcard_token.0.span),
                        ));
                    }
                    let cols: Vec<(&Input, &ColInfo)> = inputs
                        .iter()
                        .flat_map(|i| {
                            i.columns
                                .iter()
                                .filter(|c| !i.merged.contains(&c.name))
                                .map(move |c| (i, c))
                        })
                        .collect();
                    out.extend(self.expand_star(cols, opts, inputs)?);
                }
                sql::SelectItem::QualifiedWildcard(kind, opts) => {
                    let sql::SelectItemQualifiedWildcardKind::ObjectName(obj) = kind else {
                        return Err(Refusal::new(
                            "`expr.*`",
                            span_line(opts.wildcard_token.0.span),
                        ));
                    };
                    let q = obj
                        .0
                        .last()
                        .and_then(|p| match p {
                            sql::ObjectNamePart::Identifier(i) => Some(i.value.clone()),
                            _ => None,
                        })
                        .unwrap_or_default();
                    let Some(input) = inputs.iter().find(|i| i.alias.eq_ignore_ascii_case(&q))
                    else {
                        return Err(Refusal::at(
                            format!("`{q}.*`: no input is called `{q}`"),
                            obj,
                        ));
                    };
                    let cols: Vec<(&Input, &ColInfo)> =
                        input.columns.iter().map(|c| (input, c)).collect();
                    out.extend(self.expand_star(cols, opts, inputs)?);
                }
            }
        }
        for (i, (n, _, _)) in out.iter().enumerate() {
            if let Some(why) = names::refusal(n) {
                return Err(Refusal::new(format!("output column: {why}"), 0));
            }
            if out[..i].iter().any(|(m, _, _)| m.eq_ignore_ascii_case(n)) {
                return Err(Refusal::new(
                    format!("two output columns are named `{n}`"),
                    0,
                ));
            }
        }
        if out.is_empty() {
            return Err(Refusal::new("the SELECT has no columns", 0));
        }
        Ok(out)
    }

    /// `*` with DuckDB's `EXCLUDE` and `REPLACE`.
    fn expand_star(
        &mut self,
        cols: Vec<(&Input, &ColInfo)>,
        opts: &sql::WildcardAdditionalOptions,
        inputs: &[Input],
    ) -> R<Vec<Output>> {
        if opts.opt_ilike.is_some()
            || opts.opt_except.is_some()
            || opts.opt_rename.is_some()
            || opts.opt_alias.is_some()
        {
            return Err(Refusal::new(
                "`*` with ILIKE, EXCEPT, RENAME or an alias: list the columns",
                span_line(opts.wildcard_token.0.span),
            ));
        }
        let excluded: Vec<String> = match &opts.opt_exclude {
            None => Vec::new(),
            Some(sql::ExcludeSelectItem::Single(n)) => vec![object_last(n)],
            Some(sql::ExcludeSelectItem::Multiple(ns)) => ns.iter().map(object_last).collect(),
        };
        for x in &excluded {
            if !cols.iter().any(|(_, c)| c.name.eq_ignore_ascii_case(x)) {
                return Err(Refusal::new(
                    format!("`* EXCLUDE ({x})`: no such column"),
                    span_line(opts.wildcard_token.0.span),
                ));
            }
        }
        let mut out = Vec::new();
        for (input, c) in cols {
            if excluded.iter().any(|x| x.eq_ignore_ascii_case(&c.name)) {
                continue;
            }
            let replaced = opts.opt_replace.as_ref().and_then(|r| {
                r.items
                    .iter()
                    .find(|it| it.column_name.value.eq_ignore_ascii_case(&c.name))
            });
            match replaced {
                Some(r) => {
                    let (x, ty) = self.expr(&r.expr, inputs, &Mode::Row)?;
                    out.push((c.name.clone(), x, ty));
                }
                None => out.push((
                    c.name.clone(),
                    SExpr::col(Some(&input.strata), &c.name),
                    c.ty.clone(),
                )),
            }
        }
        Ok(out)
    }

    /// `__strata_star(relation, alias, prefix, suffix, except...)`: what
    /// import-dbt's `dbt_utils.star` renders.
    fn star_call(&mut self, e: &sql::Expr, inputs: &[Input]) -> R<Option<Vec<Output>>> {
        let sql::Expr::Function(f) = e else {
            return Ok(None);
        };
        if !f.name.to_string().eq_ignore_ascii_case("__strata_star") {
            return Ok(None);
        }
        let sql::FunctionArguments::List(list) = &f.args else {
            return Err(Refusal::at("dbt_utils.star()", e));
        };
        let mut args = list.args.iter().map(|a| match a {
            sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) => Some(x),
            _ => None,
        });
        let rel_name = match args.next().flatten() {
            Some(sql::Expr::Identifier(i)) => vec![i.value.clone()],
            Some(sql::Expr::CompoundIdentifier(p)) => p.iter().map(|i| i.value.clone()).collect(),
            _ => return Err(Refusal::at("dbt_utils.star(from=...) needs a relation", e)),
        };
        let text = |x: Option<Option<&sql::Expr>>| -> String {
            match x.flatten() {
                Some(sql::Expr::Value(v)) => match &v.value {
                    sql::Value::SingleQuotedString(s) => s.clone(),
                    _ => String::new(),
                },
                _ => String::new(),
            }
        };
        let alias = text(args.next());
        let prefix = text(args.next());
        let suffix = text(args.next());
        let except: Vec<String> = args.map(|a| text(Some(a))).collect();
        let named = match rel_name.as_slice() {
            [one] => inputs.iter().find(|i| {
                i.alias.eq_ignore_ascii_case(one)
                    || display_name(one).eq_ignore_ascii_case(&i.alias)
            }),
            _ => None,
        };
        let rel = match named {
            Some(i) => Rel {
                name: i.strata.clone(),
                columns: i.columns.clone(),
            },
            None => {
                let rel = match (self.cx.resolve)(&rel_name) {
                    Named::Relation(n) => self.relation(&n).map(|r| Rel {
                        name: n.clone(),
                        columns: r.columns.clone(),
                    }),
                    Named::Unknown(_) => None,
                };
                rel.ok_or_else(|| {
                    Refusal::at("dbt_utils.star(from=...): the relation is not known", e)
                })?
            }
        };
        // The columns are read from the input with that relation (or the
        // alias given).
        let input = if alias.is_empty() {
            inputs.iter().find(|i| i.strata == rel.name)
        } else {
            inputs.iter().find(|i| i.alias.eq_ignore_ascii_case(&alias))
        };
        let Some(input) = input else {
            return Err(Refusal::at(
                "dbt_utils.star(): the relation is not an input of this SELECT",
                e,
            ));
        };
        let mut out = Vec::new();
        for c in &rel.columns {
            if except.iter().any(|x| x.eq_ignore_ascii_case(&c.name)) {
                continue;
            }
            out.push((
                format!("{prefix}{}{suffix}", c.name),
                SExpr::col(Some(&input.strata), &c.name),
                c.ty.clone(),
            ));
        }
        Ok(Some(out))
    }

    /// ORDER BY keys over a select list's outputs.
    pub(super) fn sort_keys(
        &mut self,
        order: &[sql::OrderByExpr],
        outputs: &[Output],
        inputs: &[Input],
        mode: &Mode,
    ) -> R<Vec<(SExpr, bool)>> {
        let mut keys = Vec::new();
        for o in order {
            let desc = o.options.asc == Some(false);
            if o.options.nulls_first == Some(true) {
                return Err(Refusal::at(
                    "ORDER BY ... NULLS FIRST: strata sorts NULLs last",
                    &o.expr,
                ));
            }
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
            keys.push((key, desc));
        }
        Ok(keys)
    }

    /// A WHERE conjunct that is `[NOT] EXISTS (subquery)` or
    /// `x IN (subquery)`, as a semi or anti join; `None` for anything else.
    fn subquery_join(
        &mut self,
        c: &sql::Expr,
        inputs: &[Input],
        scope: &Scope,
        base: &str,
    ) -> R<Option<Step>> {
        let (sub, kind, lhs) = match c {
            sql::Expr::Exists { subquery, negated } => (
                subquery,
                if *negated { JoinKind::Anti } else { JoinKind::Semi },
                None,
            ),
            sql::Expr::UnaryOp {
                op: sql::UnaryOperator::Not,
                expr,
            } => match &**expr {
                sql::Expr::Exists {
                    subquery,
                    negated: false,
                } => (subquery, JoinKind::Anti, None),
                sql::Expr::Nested(inner) => match &**inner {
                    sql::Expr::Exists {
                        subquery,
                        negated: false,
                    } => (subquery, JoinKind::Anti, None),
                    _ => return Ok(None),
                },
                _ => return Ok(None),
            },
            sql::Expr::InSubquery {
                expr,
                subquery,
                negated: false,
            } => (subquery, JoinKind::Semi, Some(&**expr)),
            sql::Expr::InSubquery {
                negated: true,
                subquery,
                ..
            } => {
                return Err(Refusal::at(
                    "NOT IN (subquery) is not an anti join when the subquery returns a NULL (no row is kept then): write NOT EXISTS",
                    &**subquery,
                ))
            }
            _ => return Ok(None),
        };
        let sql::SetExpr::Select(s) = &*sub.body else {
            return Err(Refusal::at("a subquery that is not a plain SELECT", &**sub));
        };
        if sub.with.is_some()
            || sub.order_by.is_some()
            || sub.limit_clause.is_some()
            || s.from.len() != 1
            || s.from.first().is_some_and(|f| !f.joins.is_empty())
            || s.having.is_some()
            || s.distinct.is_some()
            || !matches!(&s.group_by, sql::GroupByExpr::Expressions(e, _) if e.is_empty())
        {
            return Err(Refusal::at(
                "a subquery in WHERE must read one relation with no join, grouping or limit to become a semi or anti join",
                &**sub,
            ));
        }
        let Some(first) = s.from.first() else {
            return Ok(None);
        };
        let right = self.factor(&first.relation, scope, base, inputs)?;
        let mut all = inputs.to_vec();
        all.push(right.clone());
        let mut conds = Vec::new();
        if let Some(x) = lhs {
            let [item] = s.projection.as_slice() else {
                return Err(Refusal::at("IN (subquery) with several columns", &**sub));
            };
            let e = match item {
                sql::SelectItem::UnnamedExpr(e)
                | sql::SelectItem::ExprWithAlias { expr: e, .. } => e,
                _ => return Err(Refusal::at("IN (subquery) selecting `*`", &**sub)),
            };
            let inner = self.expr(e, std::slice::from_ref(&right), &Mode::Row)?.0;
            let outer = self.expr(x, inputs, &Mode::Row)?.0;
            conds.push(SExpr::bin(Op::Eq, outer, inner));
        }
        if let Some(w) = &s.selection {
            conds.push(self.expr(w, &all, &Mode::Row)?.0);
        }
        let Some(on) = and_all(conds) else {
            return Err(Refusal::at(
                "EXISTS over a subquery unrelated to the outer rows (no WHERE)",
                &**sub,
            ));
        };
        let keys = join_keys(&on, &inputs[0].strata, &right.strata);
        Ok(Some(Step::Join(Join {
            kind,
            input: right.strata,
            on,
            keys,
            promise: None,
            evidence: String::new(),
            line: line_of(&**sub),
        })))
    }
}

/// Whether a select list is exactly `*` (no EXCLUDE, REPLACE, ...).
fn is_plain_star(items: &[sql::SelectItem]) -> bool {
    matches!(items, [sql::SelectItem::Wildcard(o)]
        if o.opt_ilike.is_none() && o.opt_exclude.is_none() && o.opt_except.is_none()
            && o.opt_replace.is_none() && o.opt_rename.is_none() && o.opt_alias.is_none())
}

/// The CTE a query only aliases (`with ... select * from final`), when no
/// other CTE reads it.
fn main_alias_cte(q: &sql::Query) -> Option<String> {
    let with = q.with.as_ref()?;
    let sql::SetExpr::Select(s) = &*q.body else {
        return None;
    };
    if q.order_by.is_some()
        || q.limit_clause.is_some()
        || s.selection.is_some()
        || s.having.is_some()
        || s.distinct.is_some()
        || s.from.len() != 1
        || !s.from[0].joins.is_empty()
        || !is_plain_star(&s.projection)
        || !matches!(&s.group_by, sql::GroupByExpr::Expressions(e, _) if e.is_empty())
    {
        return None;
    }
    let sql::TableFactor::Table {
        name, alias: None, ..
    } = &s.from[0].relation
    else {
        return None;
    };
    let [sql::ObjectNamePart::Identifier(id)] = name.0.as_slice() else {
        return None;
    };
    let target = id.value.to_ascii_lowercase();
    let position = with
        .cte_tables
        .iter()
        .position(|c| c.alias.name.value.eq_ignore_ascii_case(&target))?;
    // Read by a later CTE: it must stay a model of its own.
    let read_later = with.cte_tables[position + 1..]
        .iter()
        .any(|c| mentions(&c.query.to_string(), &target));
    (!read_later).then_some(target)
}

/// Whether `text` has `word` as a whole identifier (case-insensitive).
fn mentions(text: &str, word: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let mut start = 0;
    while let Some(i) = lower[start..].find(word) {
        let at = start + i;
        let before = lower[..at].chars().next_back();
        let after = lower[at + word.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if boundary(before) && boundary(after) {
            return true;
        }
        start = at + word.len();
    }
    false
}

fn object_last(n: &sql::ObjectName) -> String {
    match n.0.last() {
        Some(sql::ObjectNamePart::Identifier(i)) => i.value.clone(),
        _ => String::new(),
    }
}

/// A relation marker's readable name (`$ref$orders` is `orders`).
pub fn display_name(s: &str) -> String {
    s.rsplit('$').next().unwrap_or(s).to_string()
}

fn alias_of(a: Option<&sql::TableAlias>, node: &sql::TableFactor) -> R<Option<String>> {
    match a {
        None => Ok(None),
        Some(a) if a.columns.is_empty() => Ok(Some(a.name.value.clone())),
        Some(_) => Err(Refusal::at(
            "a table alias that renames columns: rename them in a select list",
            node,
        )),
    }
}

pub fn find_col<'c>(cols: &'c [ColInfo], name: &str) -> Option<&'c ColInfo> {
    cols.iter()
        .find(|c| c.name == name)
        .or_else(|| cols.iter().find(|c| c.name.eq_ignore_ascii_case(name)))
}

fn sql_conjuncts(e: &sql::Expr) -> Vec<&sql::Expr> {
    match e {
        sql::Expr::BinaryOp {
            left,
            op: sql::BinaryOperator::And,
            right,
        } => {
            let mut v = sql_conjuncts(left);
            v.extend(sql_conjuncts(right));
            v
        }
        sql::Expr::Nested(inner)
            if matches!(
                &**inner,
                sql::Expr::BinaryOp {
                    op: sql::BinaryOperator::And,
                    ..
                }
            ) =>
        {
            sql_conjuncts(inner)
        }
        other => vec![other],
    }
}

pub fn and_all(mut v: Vec<SExpr>) -> Option<SExpr> {
    if v.is_empty() {
        return None;
    }
    let first = v.remove(0);
    Some(
        v.into_iter()
            .fold(first, |acc, e| SExpr::bin(Op::And, acc, e)),
    )
}

/// The keys of an `on` condition, when it has the shape strata's `expect`
/// checks: an `and` of `==` whose joined-side operands are plain columns.
pub fn join_keys(on: &SExpr, left: &str, right: &str) -> Option<Keys> {
    let mut keys = Keys::default();
    let mentions_right = |e: &SExpr| {
        let mut cols = Vec::new();
        e.columns(&mut cols);
        cols.iter().any(|(q, _)| q.as_deref() == Some(right))
    };
    let plain = |e: &SExpr, input: &str| match e {
        SExpr::Col {
            input: Some(q),
            name,
        } if q == input => Some(name.clone()),
        _ => None,
    };
    for c in on.conjuncts() {
        if !mentions_right(c) {
            continue;
        }
        let SExpr::Bin(Op::Eq, l, r) = c else {
            return None;
        };
        let (rcol, other) = match (plain(l, right), plain(r, right)) {
            (Some(rc), _) if !mentions_right(r) => (rc, &**r),
            (_, Some(rc)) if !mentions_right(l) => (rc, &**l),
            _ => return None,
        };
        match plain(other, left) {
            Some(lcol) => {
                if !keys.pairs.contains(&(lcol.clone(), rcol.clone())) {
                    keys.pairs.push((lcol, rcol));
                }
            }
            None => {
                if !keys.right_only.contains(&rcol) {
                    keys.right_only.push(rcol);
                }
            }
        }
    }
    (!keys.right().is_empty()).then_some(keys)
}

/// ORDER BY items of a query (`ORDER BY ALL` refused).
fn order_items(q: &sql::Query) -> R<Vec<sql::OrderByExpr>> {
    match &q.order_by {
        None => Ok(Vec::new()),
        Some(o) => match &o.kind {
            sql::OrderByKind::Expressions(v) => Ok(v.clone()),
            sql::OrderByKind::All(_) => {
                Err(Refusal::at("ORDER BY ALL: list the columns", &*q.body))
            }
        },
    }
}

/// LIMIT / OFFSET as a `take`: `(n, None)` or `(first, Some(last))`.
fn limit_of(q: &sql::Query) -> R<Option<(u64, Option<u64>)>> {
    let Some(l) = &q.limit_clause else {
        return Ok(None);
    };
    let number = |e: &sql::Expr| -> R<u64> {
        match e {
            sql::Expr::Value(v) => match &v.value {
                sql::Value::Number(n, _) => n
                    .parse()
                    .map_err(|_| Refusal::at(format!("LIMIT/OFFSET {n}"), e)),
                _ => Err(Refusal::at("LIMIT/OFFSET must be a number", e)),
            },
            _ => Err(Refusal::at("LIMIT/OFFSET must be a number", e)),
        }
    };
    let (limit, offset) = match l {
        sql::LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        } => {
            if !limit_by.is_empty() {
                return Err(Refusal::at("LIMIT BY", &limit_by[0]));
            }
            (
                limit.as_ref().map(number).transpose()?,
                offset.as_ref().map(|o| number(&o.value)).transpose()?,
            )
        }
        sql::LimitClause::OffsetCommaLimit { offset, limit } => {
            (Some(number(limit)?), Some(number(offset)?))
        }
    };
    Ok(match (limit, offset) {
        (None, None) => None,
        (Some(n), None | Some(0)) => Some((n, None)),
        (Some(0), Some(_)) => Some((0, None)),
        (Some(n), Some(o)) => Some((o.saturating_add(1), Some(o.saturating_add(n)))),
        (None, Some(_)) => {
            return Err(Refusal::at(
                "OFFSET without LIMIT: strata's take needs a last row",
                &*q.body,
            ))
        }
    })
}

/// Parts of a SELECT strata has no equivalent for.
fn unsupported_select_parts(s: &sql::Select) -> R<()> {
    let bad = if s.top.is_some() {
        Some("TOP")
    } else if s.into.is_some() {
        Some("SELECT INTO")
    } else if !s.lateral_views.is_empty() {
        Some("LATERAL VIEW")
    } else if s.prewhere.is_some() {
        Some("PREWHERE")
    } else if s.qualify.is_some() {
        Some("QUALIFY (rank in one model with row_number() over (...), filter in the next)")
    } else if !s.named_window.is_empty() {
        Some("a named WINDOW (write the window in each over (...))")
    } else if !s.cluster_by.is_empty() || !s.distribute_by.is_empty() || !s.sort_by.is_empty() {
        Some("CLUSTER / DISTRIBUTE / SORT BY")
    } else if !s.connect_by.is_empty() {
        Some("CONNECT BY")
    } else if s.value_table_mode.is_some() {
        Some("SELECT AS STRUCT / VALUE")
    } else if s.exclude.is_some() {
        Some("EXCLUDE after the select list")
    } else if !matches!(s.flavor, sql::SelectFlavor::Standard) {
        Some("FROM-first SELECT")
    } else {
        None
    };
    match bad {
        Some(what) => Err(Refusal::at(format!("{what} has no strata equivalent"), s)),
        None => Ok(()),
    }
}
