//! SQL expressions to strata expressions, with DuckDB's meaning kept:
//! `IS NULL` through `coalesce(x == x, false)`, `IN (...)` as `or`s,
//! `BETWEEN` as two comparisons, `CASE` as `case(...)`, date arithmetic as
//! `date_add`, a string compared with a date cast to a date (as DuckDB
//! casts it), `concat` skipping NULLs as DuckDB's does.

use sqlparser::ast::{self as sql};
use strata_lang::types::Type;

use super::aggregates::*;
use super::clauses::find_col;
use super::literals::*;
use super::ops::*;
use super::translator::{Input, Mode, Translator, Typed};
use super::{Refusal, R};
use crate::plan::{Op, SExpr};
use crate::types;

impl Translator<'_> {
    /// Resolve a column reference.
    pub(super) fn column(
        &self,
        parts: &[sql::Ident],
        inputs: &[Input],
        node: &sql::Expr,
    ) -> R<Typed> {
        match parts {
            [c] => {
                let found: Vec<&Input> = inputs
                    .iter()
                    .filter(|i| find_col(&i.columns, &c.value).is_some())
                    .collect();
                match found.as_slice() {
                    [i] => {
                        let col =
                            find_col(&i.columns, &c.value).map(|c| (c.name.clone(), c.ty.clone()));
                        let (name, ty) = col.unwrap_or_default();
                        Ok((SExpr::col(Some(&i.strata), &name), ty))
                    }
                    [] => Err(Refusal::at(
                        format!(
                            "no input has a column `{}` (inputs: {})",
                            c.value,
                            inputs
                                .iter()
                                .map(|i| i.alias.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        node,
                    )),
                    // A USING join merged the column: the left one.
                    [first, rest @ ..]
                        if rest
                            .iter()
                            .all(|r| r.merged.iter().any(|m| m.eq_ignore_ascii_case(&c.value))) =>
                    {
                        let col = find_col(&first.columns, &c.value)
                            .map(|c| (c.name.clone(), c.ty.clone()));
                        let (name, ty) = col.unwrap_or_default();
                        Ok((SExpr::col(Some(&first.strata), &name), ty))
                    }
                    _ => Err(Refusal::at(
                        format!("column `{}` is in more than one input: qualify it", c.value),
                        node,
                    )),
                }
            }
            [q, c] => {
                let Some(i) = inputs
                    .iter()
                    .rev()
                    .find(|i| i.alias.eq_ignore_ascii_case(&q.value))
                else {
                    return Err(Refusal::at(
                        format!("no input is called `{}`", q.value),
                        node,
                    ));
                };
                let Some(col) = find_col(&i.columns, &c.value) else {
                    return Err(Refusal::at(
                        format!("`{}` has no column `{}`", q.value, c.value),
                        node,
                    ));
                };
                Ok((SExpr::col(Some(&i.strata), &col.name), col.ty.clone()))
            }
            _ => Err(Refusal::at(
                "a column named with more than a table and a column",
                node,
            )),
        }
    }

    /// Translate an expression.
    pub fn expr(&mut self, e: &sql::Expr, inputs: &[Input], mode: &Mode) -> R<Typed> {
        if let Mode::Post(map) = mode {
            if is_aggregate_call(e) {
                let (x, ty) = self.expr(e, inputs, &Mode::Row)?;
                return match map.aggs.iter().find(|(a, _)| *a == x) {
                    Some((_, n)) => Ok((SExpr::col(map.input.as_deref(), n), ty)),
                    None => Err(Refusal::at("an aggregate that is not computed", e)),
                };
            }
            if let Ok((x, ty)) = self.expr(e, inputs, &Mode::Row) {
                if let Some((_, n)) = map.keys.iter().find(|(k, _)| *k == x) {
                    return Ok((SExpr::col(map.input.as_deref(), n), ty));
                }
            }
            if matches!(
                e,
                sql::Expr::Identifier(_) | sql::Expr::CompoundIdentifier(_)
            ) {
                return Err(Refusal::at(
                    format!("`{e}` is neither in GROUP BY nor aggregated"),
                    e,
                ));
            }
        }
        use sql::Expr as E;
        Ok(match e {
            E::Identifier(i) => self.column(std::slice::from_ref(i), inputs, e)?,
            E::CompoundIdentifier(parts) => self.column(parts, inputs, e)?,
            E::Nested(inner) => self.expr(inner, inputs, mode)?,
            E::CompoundFieldAccess { root, access_chain } => {
                self.access(e, root, access_chain, inputs, mode)?
            }
            E::Value(v) => match &v.value {
                sql::Value::Number(n, _) => number(n, e)?,
                sql::Value::Boolean(b) => (SExpr::Bool(*b), Some(Type::Bool)),
                sql::Value::Null => (SExpr::Null, None),
                other => match string_of(other) {
                    Some(s) => run_value(s, e)?
                        .unwrap_or_else(|| (SExpr::Str(s.to_string()), Some(Type::String))),
                    None => return Err(Refusal::at(format!("the literal {other}"), e)),
                },
            },
            E::TypedString(t) => {
                let Some(s) = string_of(&t.value.value) else {
                    return Err(Refusal::at("a typed literal", e));
                };
                let ty = types::from_warehouse(&t.data_type.to_string())
                    .map_err(|why| Refusal::at(why, e))?;
                match run_value(s, e)? {
                    Some((x, _)) => cast(x, &ty, e)?,
                    None => cast(SExpr::Str(s.to_string()), &ty, e)?,
                }
            }
            E::UnaryOp { op, expr } => {
                let (x, ty) = self.expr(expr, inputs, mode)?;
                match op {
                    sql::UnaryOperator::Not => (SExpr::negate(x), Some(Type::Bool)),
                    sql::UnaryOperator::Minus => match x {
                        SExpr::Int(i) => (SExpr::Int(-i), ty),
                        SExpr::Float(f) => (SExpr::Float(format!("-{f}")), ty),
                        other => (SExpr::Neg(Box::new(other)), ty),
                    },
                    sql::UnaryOperator::Plus => (x, ty),
                    other => return Err(Refusal::at(format!("the operator {other}"), e)),
                }
            }
            E::AtTimeZone {
                timestamp,
                time_zone,
            } => {
                let utc = matches!(&**time_zone, sql::Expr::Value(v)
                    if string_of(&v.value).is_some_and(|z| z.eq_ignore_ascii_case("utc")));
                if !utc {
                    return Err(Refusal::at(
                        format!("`{e}`: AT TIME ZONE in a zone other than UTC (strata's DuckDB has no time zone database)"),
                        e,
                    ));
                }
                // DuckDB: a timestamp's wall-clock time read in UTC is an
                // instant; an instant's wall-clock time in UTC a timestamp.
                match self.expr(timestamp, inputs, mode)? {
                    (x, Some(Type::Timestamp)) => {
                        (SExpr::call("from_utc", vec![x]), Some(Type::TimestampTz))
                    }
                    (x, Some(Type::TimestampTz)) => {
                        (SExpr::call("to_utc", vec![x]), Some(Type::Timestamp))
                    }
                    _ => {
                        return Err(Refusal::at(
                            format!("`{e}`: AT TIME ZONE of something not known to be a timestamp"),
                            e,
                        ))
                    }
                }
            }
            E::IsNull(x) => (SExpr::is_null(self.expr(x, inputs, mode)?.0), Some(Type::Bool)),
            E::IsNotNull(x) => (
                SExpr::is_not_null(self.expr(x, inputs, mode)?.0),
                Some(Type::Bool),
            ),
            E::IsTrue(x) => (
                SExpr::call("coalesce", vec![self.expr(x, inputs, mode)?.0, SExpr::Bool(false)]),
                Some(Type::Bool),
            ),
            E::IsNotTrue(x) => (
                SExpr::negate(SExpr::call(
                    "coalesce",
                    vec![self.expr(x, inputs, mode)?.0, SExpr::Bool(false)],
                )),
                Some(Type::Bool),
            ),
            E::IsFalse(x) => (
                SExpr::call(
                    "coalesce",
                    vec![SExpr::negate(self.expr(x, inputs, mode)?.0), SExpr::Bool(false)],
                ),
                Some(Type::Bool),
            ),
            E::IsNotFalse(x) => (
                SExpr::negate(SExpr::call(
                    "coalesce",
                    vec![SExpr::negate(self.expr(x, inputs, mode)?.0), SExpr::Bool(false)],
                )),
                Some(Type::Bool),
            ),
            E::IsDistinctFrom(a, b) | E::IsNotDistinctFrom(a, b) => {
                let (a, _) = self.expr(a, inputs, mode)?;
                let (b, _) = self.expr(b, inputs, mode)?;
                let same = SExpr::bin(
                    Op::Or,
                    SExpr::call("coalesce", vec![SExpr::bin(Op::Eq, a.clone(), b.clone()), SExpr::Bool(false)]),
                    SExpr::bin(Op::And, SExpr::is_null(a), SExpr::is_null(b)),
                );
                let x = if matches!(e, E::IsDistinctFrom(..)) {
                    SExpr::negate(same)
                } else {
                    same
                };
                (x, Some(Type::Bool))
            }
            E::InList {
                expr,
                list,
                negated,
            } => {
                let (x, xt) = self.expr(expr, inputs, mode)?;
                let mut ors: Option<SExpr> = None;
                for item in list {
                    let (v, vt) = self.expr(item, inputs, mode)?;
                    let (l, r) = compare_operands(x.clone(), xt.clone(), v, vt, item)?;
                    let eq = SExpr::bin(Op::Eq, l, r);
                    ors = Some(match ors {
                        None => eq,
                        Some(acc) => SExpr::bin(Op::Or, acc, eq),
                    });
                }
                let Some(ors) = ors else {
                    return Err(Refusal::at("IN with an empty list", e));
                };
                (if *negated { SExpr::negate(ors) } else { ors }, Some(Type::Bool))
            }
            E::Between {
                expr,
                negated,
                low,
                high,
            } => {
                let (x, xt) = self.expr(expr, inputs, mode)?;
                let (lo, lt) = self.expr(low, inputs, mode)?;
                let (hi, ht) = self.expr(high, inputs, mode)?;
                let (a, lo) = compare_operands(x.clone(), xt.clone(), lo, lt, &**low)?;
                let (b, hi) = compare_operands(x, xt, hi, ht, &**high)?;
                let both = SExpr::bin(Op::And, SExpr::bin(Op::Ge, a, lo), SExpr::bin(Op::Le, b, hi));
                (if *negated { SExpr::negate(both) } else { both }, Some(Type::Bool))
            }
            E::Like {
                negated,
                any: false,
                expr,
                pattern,
                escape_char: None,
            } => {
                let (x, _) = self.expr(expr, inputs, mode)?;
                let (p, _) = self.expr(pattern, inputs, mode)?;
                let like = SExpr::call("like", vec![x, p]);
                (if *negated { SExpr::negate(like) } else { like }, Some(Type::Bool))
            }
            E::ILike {
                negated,
                any: false,
                expr,
                pattern,
                escape_char: None,
            } => {
                let (x, _) = self.expr(expr, inputs, mode)?;
                let (p, _) = self.expr(pattern, inputs, mode)?;
                let like = SExpr::call(
                    "like",
                    vec![SExpr::call("lower", vec![x]), SExpr::call("lower", vec![p])],
                );
                (if *negated { SExpr::negate(like) } else { like }, Some(Type::Bool))
            }
            E::BinaryOp { left, op, right } => self.binary(e, left, op, right, inputs, mode)?,
            E::Cast {
                kind,
                expr,
                data_type,
                array: false,
                format: None,
            } => {
                if matches!(kind, sql::CastKind::TryCast | sql::CastKind::SafeCast) {
                    return Err(Refusal::at(
                        "TRY_CAST gives NULL where a value does not convert: strata's cast has no such form",
                        e,
                    ));
                }
                let (x, _) = self.expr(expr, inputs, mode)?;
                let ty = types::from_warehouse(&data_type.to_string())
                    .map_err(|why| Refusal::at(format!("cast to {data_type}: {why}"), e))?;
                cast(x, &ty, e)?
            }
            E::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let op = match operand {
                    Some(o) => Some(self.expr(o, inputs, mode)?),
                    None => None,
                };
                let mut args = Vec::new();
                let mut ty: Option<Type> = None;
                for c in conditions {
                    let (cond, ct) = self.expr(&c.condition, inputs, mode)?;
                    let cond = match &op {
                        Some((o, ot)) => {
                            let (l, r) = compare_operands(o.clone(), ot.clone(), cond, ct, &c.condition)?;
                            SExpr::bin(Op::Eq, l, r)
                        }
                        None => cond,
                    };
                    let (v, vt) = self.expr(&c.result, inputs, mode)?;
                    ty = ty.or(vt);
                    args.push(cond);
                    args.push(v);
                }
                if let Some(el) = else_result {
                    let (v, vt) = self.expr(el, inputs, mode)?;
                    ty = ty.or(vt);
                    args.push(v);
                }
                (SExpr::call("case", args), ty)
            }
            E::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                let mut args = vec![self.expr(expr, inputs, mode)?.0];
                match substring_from {
                    Some(f) => args.push(self.expr(f, inputs, mode)?.0),
                    None => args.push(SExpr::Int(1)),
                }
                if let Some(f) = substring_for {
                    args.push(self.expr(f, inputs, mode)?.0);
                }
                (SExpr::call("substring", args), Some(Type::String))
            }
            E::Trim {
                trim_where,
                trim_what: None,
                expr,
                trim_characters: None,
            } => {
                let f = match trim_where {
                    None | Some(sql::TrimWhereField::Both) => "trim",
                    Some(sql::TrimWhereField::Leading) => "ltrim",
                    Some(sql::TrimWhereField::Trailing) => "rtrim",
                };
                (SExpr::call(f, vec![self.expr(expr, inputs, mode)?.0]), Some(Type::String))
            }
            E::Function(f) => self.function(e, f, inputs, mode)?,
            E::Exists { .. } | E::InSubquery { .. } => {
                return Err(Refusal::at(
                    "EXISTS / IN (subquery) outside a WHERE condition of its own: only a WHERE conjunct becomes a semi or anti join",
                    e,
                ))
            }
            E::Subquery(_) => {
                return Err(Refusal::at(
                    "a scalar subquery: compute it in a model of its own and join it",
                    e,
                ))
            }
            E::Extract { field, expr, .. } => {
                let (x, _) = self.expr(expr, inputs, mode)?;
                let Some(part) = date_part(x, &field.to_string()) else {
                    return Err(Refusal::at(
                        format!("EXTRACT({field} ...): strata's date_part has year, quarter, month, day, dayofyear, week (ISO), isodow (and dow from it), hour, minute and second"),
                        e,
                    ));
                };
                (part, Some(Type::Int64))
            }
            E::Interval(_) => {
                return Err(Refusal::at(
                    "an interval outside date arithmetic (date + interval)",
                    e,
                ))
            }
            other => {
                return Err(Refusal::at(
                    format!("`{other}` has no strata equivalent"),
                    other,
                ))
            }
        })
    }

    /// `x[i]` on an array, `x[a:b]` on a string; `s.col[..]` (parsed as
    /// `s` with the chain `.col`, `[..]`) names its column first.
    fn access(
        &mut self,
        e: &sql::Expr,
        root: &sql::Expr,
        access_chain: &[sql::AccessExpr],
        inputs: &[Input],
        mode: &Mode,
    ) -> R<Typed> {
        let names: Vec<sql::Ident> = access_chain
            .iter()
            .map_while(|a| match a {
                sql::AccessExpr::Dot(sql::Expr::Identifier(i)) => Some(i.clone()),
                _ => None,
            })
            .collect();
        if let (sql::Expr::Identifier(first), false) = (root, names.is_empty()) {
            let rest = &access_chain[names.len()..];
            let column = sql::Expr::CompoundIdentifier([vec![first.clone()], names].concat());
            let e = match rest.is_empty() {
                true => column,
                false => sql::Expr::CompoundFieldAccess {
                    root: Box::new(column),
                    access_chain: rest.to_vec(),
                },
            };
            return self.expr(&e, inputs, mode);
        }
        if let [sql::AccessExpr::Subscript(sql::Subscript::Index { index })] = access_chain {
            let (x, ty) = self.expr(root, inputs, mode)?;
            let Some(Type::Array(element)) = ty else {
                return Err(Refusal::at(
                    format!("`{e}`: an element of something that is not known to be an array"),
                    e,
                ));
            };
            let i = positive_literal(index, e)?;
            // DuckDB counts from 1 (past the end: null), strata's array_get from 0.
            return Ok((
                SExpr::call("array_get", vec![x, SExpr::Int(i - 1)]),
                Some(*element),
            ));
        }
        let [sql::AccessExpr::Subscript(sql::Subscript::Slice {
            lower_bound,
            upper_bound,
            stride: None,
        })] = access_chain
        else {
            return Err(Refusal::at(format!("`{e}` has no strata equivalent"), e));
        };
        let (x, ty) = self.expr(root, inputs, mode)?;
        if ty != Some(Type::String) {
            return Err(Refusal::at(
                format!("`{e}`: a slice of something that is not known to be a string"),
                e,
            ));
        }
        Ok((
            string_slice(x, lower_bound.as_ref(), upper_bound.as_ref(), e)?,
            ty,
        ))
    }
}

/// DuckDB's `s[a:b]` of a string, for literal bounds `1 <= a <= b` (either
/// left out): the characters from a to b, both included — strata's
/// `substring(s, a, b - a + 1)`.
/// A subscript or slice bound that is a whole number from 1 (DuckDB counts
/// a bound below 1 from the end, which strata does not).
fn positive_literal(b: &sql::Expr, e: &sql::Expr) -> R<i64> {
    match b {
        sql::Expr::Value(v) => match &v.value {
            sql::Value::Number(n, _) => match n.parse::<i64>() {
                Ok(i) if i >= 1 => Ok(i),
                _ => Err(Refusal::at(
                    format!("`{e}`: a subscript below 1 (counted from the end in DuckDB)"),
                    e,
                )),
            },
            _ => Err(Refusal::at(
                format!("`{e}`: a subscript that is not a number"),
                e,
            )),
        },
        _ => Err(Refusal::at(
            format!("`{e}`: a subscript that is not a literal"),
            e,
        )),
    }
}

fn string_slice(
    x: SExpr,
    lower: Option<&sql::Expr>,
    upper: Option<&sql::Expr>,
    e: &sql::Expr,
) -> R<SExpr> {
    let bound = |b: Option<&sql::Expr>| b.map(|b| positive_literal(b, e)).transpose();
    let start = bound(lower)?.unwrap_or(1);
    let mut args = vec![x, SExpr::Int(start)];
    if let Some(end) = bound(upper)? {
        if end < start {
            return Err(Refusal::at(format!("`{e}`: an empty slice"), e));
        }
        args.push(SExpr::Int(end - start + 1));
    }
    Ok(SExpr::call("substring", args))
}
