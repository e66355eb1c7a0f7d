//! Set operations (`UNION [ALL]`, `INTERSECT`, `EXCEPT`) as strata's
//! `union`, and each branch that must be a model of its own.

use sqlparser::ast as sql;

use super::translator::{Rel, Scope, Translator};
use super::{ColInfo, Refusal, R};
use crate::names;
use crate::plan::{ModelPlan, SExpr, Step};

impl Translator<'_> {
    /// A set operation: each branch a relation (a model where strata needs
    /// one: the right side of a set operation, or a branch whose columns
    /// must be renamed to the first branch's), then `from b0 union all b1`.
    pub(super) fn set_operation(
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

    pub(super) fn branch(&mut self, e: &sql::SetExpr, scope: &Scope, base: &str) -> R<Rel> {
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
}
