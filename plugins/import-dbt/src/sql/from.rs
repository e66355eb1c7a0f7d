//! The inputs of a `SELECT`: a table name (a CTE, a ref, a source), a
//! subquery as a helper model, and a join whose other side is a subquery.

use sqlparser::ast as sql;

use super::clauses::*;
use super::translator::{Input, Mode, Rel, Scope, Translator};
use super::{column_of, line_of, Named, Refusal, R};
use crate::names;
use crate::plan::{Join, JoinKind, ModelPlan, Op, SExpr, Step};

const NO_FROM_ITEM: &str =
    "this FROM item (a table function, LATERAL, PIVOT, UNNEST, ...) has no strata equivalent";

impl Translator<'_> {
    /// The relation a table name reads: a CTE in scope, else what the
    /// context resolves (a ref, a source, a relation of compiled SQL).
    pub(super) fn table(&self, name: &sql::ObjectName, scope: &Scope) -> R<Rel> {
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
    pub(super) fn factor(
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
            sql::TableFactor::Table {
                name,
                alias,
                args: Some(args),
                ..
            } => match self.series(name, args, alias.as_ref(), f, base)? {
                Some(r) => r,
                None => return Err(Refusal::at(NO_FROM_ITEM, f)),
            },
            other => return Err(Refusal::at(NO_FROM_ITEM, other)),
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

    /// A WHERE conjunct that is `[NOT] EXISTS (subquery)` or
    /// `x IN (subquery)`, as a semi or anti join; `None` for anything else.
    pub(super) fn subquery_join(
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
            on: Some(on),
            keys,
            promise: None,
            line: line_of(&**sub),
            column: column_of(&**sub),
        })))
    }
}
