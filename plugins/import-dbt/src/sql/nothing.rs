//! Queries that read nothing: a `SELECT` without `FROM` (constants) is a
//! model that starts from one literal row (`rows(...) { (..) }`) and
//! computes its select list over it.

use sqlparser::ast as sql;

use strata_lang::types::Type;

use super::translator::{Mode, Rel, Translator};
use super::{ColInfo, Refusal, R};
use crate::plan::{ModelPlan, SExpr, Step};

/// The clause a constant `SELECT` starts from: one row of one column,
/// which the select list does not read (it is replaced by the outputs).
const ONE_ROW: &str = "rows(one: int64) { (1) }";

impl Translator<'_> {
    /// `select 1 as a, current_date as d [where c]`: `rows(one: int64) {
    /// (1) }`, the filter, then the select list.
    pub(super) fn constants(
        &mut self,
        s: &sql::Select,
        order: &[sql::OrderByExpr],
        limit: Option<(u64, Option<u64>)>,
        name: Option<&str>,
        base: &str,
    ) -> R<Rel> {
        if s.having.is_some()
            || s.qualify.is_some()
            || s.distinct.is_some()
            || !matches!(&s.group_by, sql::GroupByExpr::Expressions(e, _) if e.is_empty())
            || !order.is_empty()
            || limit.is_some()
        {
            return Err(Refusal::at(
                "a SELECT without FROM with GROUP BY, QUALIFY, DISTINCT, ORDER BY or LIMIT",
                s,
            ));
        }
        let outputs = self.select_list(&s.projection, &[], &Mode::Row)?;
        if outputs.iter().any(|(_, e, _)| e.has_window()) {
            return Err(Refusal::at("a window function in a SELECT without FROM", s));
        }
        let model_name = name.map_or_else(|| self.fresh(base), str::to_string);
        let mut plan = ModelPlan::new(&model_name, "");
        plan.head = Some(ONE_ROW.to_string());
        if let Some(w) = &s.selection {
            let cond = self.expr(w, &[], &Mode::Row)?.0;
            plan.steps.push(Step::Filter(cond));
        }
        plan.steps.push(Step::Select(
            outputs
                .iter()
                .map(|(n, e, _)| (n.clone(), e.clone()))
                .collect(),
        ));
        let cols = outputs
            .into_iter()
            .map(|(name, _, ty)| ColInfo { name, ty })
            .collect();
        self.push(plan, cols)
    }
}

impl Translator<'_> {
    /// `generate_series(a, b[, step])` / `range(a, b[, step])` in `FROM`:
    /// a helper model `series col from a to b step ..`, with DuckDB's
    /// meaning (`range` leaves its end out; a series of dates is one of
    /// timestamps). `None` when `name` is neither.
    pub(super) fn series(
        &mut self,
        name: &sql::ObjectName,
        args: &sql::TableFunctionArgs,
        alias: Option<&sql::TableAlias>,
        f: &sql::TableFactor,
        base: &str,
    ) -> R<Option<(Rel, String)>> {
        let func = name.to_string().to_ascii_lowercase();
        let inclusive = match func.as_str() {
            "generate_series" => true,
            "range" => false,
            _ => return Ok(None),
        };
        let mut xs = Vec::new();
        for a in &args.args {
            match a {
                sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) => xs.push(x),
                _ => return Err(Refusal::at(format!("{func}() with a named argument"), f)),
            }
        }
        let col = match alias.map(|a| a.columns.as_slice()) {
            Some([c]) => c.name.value.clone(),
            Some([]) | None => func.clone(),
            Some(_) => {
                return Err(Refusal::at(
                    format!("{func}() has one column: its alias names more"),
                    f,
                ))
            }
        };
        let (start, end, step) = match xs.as_slice() {
            [end] => (None, *end, None),
            [start, end] => (Some(*start), *end, None),
            [start, end, step] => (Some(*start), *end, Some(*step)),
            _ => {
                return Err(Refusal::at(
                    format!("{func}() with {} arguments", xs.len()),
                    f,
                ))
            }
        };
        let (end, end_ty) = self.expr(end, &[], &Mode::Row)?;
        let (start, start_ty) = match start {
            Some(s) => self.expr(s, &[], &Mode::Row)?,
            None => (SExpr::Int(0), Some(Type::Int64)),
        };
        let ty = match (&start_ty, &end_ty) {
            (Some(a), Some(b)) if a == b => a.clone(),
            _ => {
                return Err(Refusal::at(
                    format!("{func}() of bounds of different or unknown types"),
                    f,
                ))
            }
        };
        let step = match (&ty, step) {
            (Type::Int64, None) => "1".to_string(),
            (Type::Int64, Some(s)) => match self.expr(s, &[], &Mode::Row)?.0 {
                SExpr::Int(n) if n > 0 => n.to_string(),
                _ => {
                    return Err(Refusal::at(
                        format!("{func}() stepping by other than a positive whole number"),
                        s,
                    ))
                }
            },
            (Type::Date | Type::Timestamp, Some(s)) => match self.interval(s, &[], &Mode::Row)? {
                Some((SExpr::Int(n), unit)) if n > 0 => format!("{n} {unit}s"),
                _ => {
                    return Err(Refusal::at(
                        format!("{func}() stepping by other than a positive interval of days, weeks, months, quarters or years"),
                        s,
                    ))
                }
            },
            _ => {
                return Err(Refusal::at(
                    format!("{func}() of values that are not integers, dates or timestamps"),
                    f,
                ))
            }
        };
        // A series of dates is one of timestamps in DuckDB; `range` leaves
        // its end out (computed here: the bounds are constants).
        let (start, end, ty) = match ty {
            Type::Date => {
                if !inclusive {
                    return Err(Refusal::at(
                        "range() of dates leaves its end out: write generate_series",
                        f,
                    ));
                }
                let ts = |x: SExpr| SExpr::call("cast", vec![x, SExpr::Str("timestamp".into())]);
                (ts(start), ts(end), Type::Timestamp)
            }
            Type::Int64 if !inclusive => match end {
                SExpr::Int(n) => (start, SExpr::Int(n - 1), Type::Int64),
                _ => {
                    return Err(Refusal::at(
                        "range() whose end is not a number: write generate_series",
                        f,
                    ))
                }
            },
            Type::Timestamp if !inclusive => {
                return Err(Refusal::at(
                    "range() of timestamps leaves its end out: write generate_series",
                    f,
                ))
            }
            ty => (start, end, ty),
        };
        let table = match alias {
            Some(a) => a.name.value.clone(),
            None => func.clone(),
        };
        let model_name = self.fresh(&crate::names::helper(base, &table));
        let mut plan = ModelPlan::new(&model_name, "");
        plan.head = Some(format!(
            "series {} from {} to {} step {step}",
            strata_lang::ident::written(&col),
            start.to_text(),
            end.to_text()
        ));
        let rel = self.push(
            plan,
            vec![ColInfo {
                name: col,
                ty: Some(ty),
            }],
        )?;
        Ok(Some((rel, table)))
    }
}
