//! Operators: arithmetic and comparisons with DuckDB's meaning (integer
//! division, a string compared with a date), intervals and date
//! arithmetic, casts, aggregate filters.

use sqlparser::ast::{self as sql, Spanned};
use strata_lang::types::Type;

use super::literals::*;
use super::translator::{Input, Mode, Translator, Typed};
use super::{Refusal, R};
use crate::plan::{Op, SExpr};
use crate::types;

impl Translator<'_> {
    pub(super) fn binary(
        &mut self,
        e: &sql::Expr,
        left: &sql::Expr,
        op: &sql::BinaryOperator,
        right: &sql::Expr,
        inputs: &[Input],
        mode: &Mode,
    ) -> R<Typed> {
        use sql::BinaryOperator as B;
        // Date arithmetic: `d + interval`, `d - interval`, `d + n`.
        if matches!(op, B::Plus | B::Minus) {
            if let Some((n, u)) = self.interval(right, inputs, mode)? {
                let (d, dt) = self.expr(left, inputs, mode)?;
                return date_add(d, dt, n, u, matches!(op, B::Minus), true, e);
            }
            if matches!(op, B::Plus) {
                if let Some((n, u)) = self.interval(left, inputs, mode)? {
                    let (d, dt) = self.expr(right, inputs, mode)?;
                    return date_add(d, dt, n, u, false, true, e);
                }
            }
        }
        let (l, lt) = self.expr(left, inputs, mode)?;
        let (r, rt) = self.expr(right, inputs, mode)?;
        let cmp = |o: Op| -> R<Typed> {
            let (l, r) = compare_operands(l.clone(), lt.clone(), r.clone(), rt.clone(), e)?;
            Ok((SExpr::bin(o, l, r), Some(Type::Bool)))
        };
        let num = |t: &Option<Type>| t.as_ref().is_some_and(Type::is_numeric);
        let arith_ty = match (&lt, &rt) {
            (Some(Type::Int64), Some(Type::Int64)) => Some(Type::Int64),
            (Some(a), Some(b)) if a.is_numeric() && b.is_numeric() => {
                if *a == Type::Float64 || *b == Type::Float64 {
                    Some(Type::Float64)
                } else {
                    Some(Type::Decimal(38, 2))
                }
            }
            _ => None,
        };
        Ok(match op {
            B::Eq => cmp(Op::Eq)?,
            B::NotEq => cmp(Op::Ne)?,
            B::Lt => cmp(Op::Lt)?,
            B::LtEq => cmp(Op::Le)?,
            B::Gt => cmp(Op::Gt)?,
            B::GtEq => cmp(Op::Ge)?,
            B::And => (SExpr::bin(Op::And, l, r), Some(Type::Bool)),
            B::Or => (SExpr::bin(Op::Or, l, r), Some(Type::Bool)),
            B::Plus if lt.as_ref().is_some_and(Type::is_temporal) && num(&rt) => {
                return date_add(l, lt, r, "day", false, false, e)
            }
            B::Minus if lt.as_ref().is_some_and(Type::is_temporal) && num(&rt) => {
                return date_add(l, lt, r, "day", true, false, e)
            }
            B::Minus if lt == Some(Type::Date) && rt == Some(Type::Date) => (
                SExpr::call("date_diff", vec![r, l, SExpr::col(None, "day")]),
                Some(Type::Int64),
            ),
            B::Plus => (SExpr::bin(Op::Add, l, r), arith_ty),
            B::Minus => (SExpr::bin(Op::Sub, l, r), arith_ty),
            B::Multiply => (SExpr::bin(Op::Mul, l, r), arith_ty),
            B::Divide => {
                // DuckDB's `/` divides as floating point, as strata's does;
                // elsewhere integers divide as integers.
                let ints = lt != Some(Type::Float64) && rt != Some(Type::Float64);
                if !self.cx.duckdb && ints {
                    return Err(Refusal::at(
                        "`/` may divide integers as integers in this dialect; strata's `/` never does: cast an operand to a float",
                        e,
                    ));
                }
                (SExpr::bin(Op::Div, l, r), Some(Type::Float64))
            }
            B::Modulo => (SExpr::bin(Op::Mod, l, r), arith_ty),
            B::StringConcat => {
                let as_text = |x: SExpr, t: &Option<Type>| match t {
                    Some(Type::String) => x,
                    Some(_) => SExpr::call("cast", vec![x, SExpr::Str("string".into())]),
                    None => x,
                };
                (
                    SExpr::bin(Op::Concat, as_text(l, &lt), as_text(r, &rt)),
                    Some(Type::String),
                )
            }
            // DuckDB's `^` (and `**`) is power(), a double.
            B::PGExp | B::BitwiseXor if self.cx.duckdb && num(&lt) && num(&rt) => {
                (SExpr::call("power", vec![l, r]), Some(Type::Float64))
            }
            B::DuckIntegerDivide | B::MyIntegerDivide => {
                return Err(Refusal::at(
                    "integer division (`//`) has no strata equivalent",
                    e,
                ))
            }
            other => {
                return Err(Refusal::at(
                    format!("the operator {other} has no strata equivalent"),
                    e,
                ))
            }
        })
    }

    /// `interval 1 day`, `interval '3 months'`, `n * interval 1 day`,
    /// `cast(n as bigint) * interval 1 day`: the amount and strata's unit.
    pub(super) fn interval(
        &mut self,
        e: &sql::Expr,
        inputs: &[Input],
        mode: &Mode,
    ) -> R<Option<(SExpr, &'static str)>> {
        match e {
            sql::Expr::Nested(inner) => self.interval(inner, inputs, mode),
            sql::Expr::Interval(i) => {
                if i.last_field.is_some() || i.fractional_seconds_precision.is_some() {
                    return Err(Refusal::at("an interval with several fields", e));
                }
                let (amount, u) = match (&*i.value, &i.leading_field) {
                    (sql::Expr::Value(v), None) => {
                        let Some(s) = string_of(&v.value) else {
                            return Err(Refusal::at("an interval", e));
                        };
                        let mut parts = s.split_whitespace();
                        let (Some(n), Some(u), None) = (parts.next(), parts.next(), parts.next())
                        else {
                            return Err(Refusal::at(format!("the interval '{s}': strata adds years, quarters, months, weeks or days"), e));
                        };
                        (n.to_string(), unit(u))
                    }
                    (sql::Expr::Value(v), Some(f)) => match &v.value {
                        sql::Value::Number(n, _) => (n.clone(), datetime_field_unit(f)),
                        other => match string_of(other) {
                            Some(s) => (s.to_string(), datetime_field_unit(f)),
                            None => return Err(Refusal::at("an interval", e)),
                        },
                    },
                    _ => return Err(Refusal::at("an interval of a computed amount", e)),
                };
                let Some(u) = u else {
                    return Err(Refusal::at(
                        "an interval in hours, minutes or seconds: strata adds years, quarters, months, weeks or days",
                        e,
                    ));
                };
                let n = number(&amount, e)?.0;
                if !matches!(n, SExpr::Int(_)) {
                    return Err(Refusal::at("an interval of a fractional amount", e));
                }
                Ok(Some((n, u)))
            }
            sql::Expr::BinaryOp {
                left,
                op: sql::BinaryOperator::Multiply,
                right,
            } => {
                let (iv, other) = if matches!(strip(right), sql::Expr::Interval(_)) {
                    (right, left)
                } else if matches!(strip(left), sql::Expr::Interval(_)) {
                    (left, right)
                } else {
                    return Ok(None);
                };
                let Some((one, u)) = self.interval(iv, inputs, mode)? else {
                    return Ok(None);
                };
                let (n, nt) = self.expr(other, inputs, mode)?;
                if nt.is_some() && nt != Some(Type::Int64) {
                    return Err(Refusal::at(
                        "an interval multiplied by a value that is not an integer",
                        e,
                    ));
                }
                // `cast(n as bigint)` is n for an integer.
                let n = match n {
                    SExpr::Call { name, args, .. }
                        if name == "cast"
                            && args.len() == 2
                            && args[1] == SExpr::Str("int64".into()) =>
                    {
                        args.into_iter().next().unwrap_or(SExpr::Int(0))
                    }
                    other => other,
                };
                let n = match one {
                    SExpr::Int(1) => n,
                    k => SExpr::bin(Op::Mul, n, k),
                };
                Ok(Some((n, u)))
            }
            _ => Ok(None),
        }
    }
}

pub(super) fn with_filter(x: SExpr, filter: Option<SExpr>) -> SExpr {
    match filter {
        Some(c) => SExpr::call("if", vec![c, x, SExpr::Null]),
        None => x,
    }
}

pub(super) fn strip(e: &sql::Expr) -> &sql::Expr {
    match e {
        sql::Expr::Nested(i) => strip(i),
        other => other,
    }
}

/// A cast, refusing what strata cannot name.
pub(super) fn cast(x: SExpr, ty: &Type, node: &impl Spanned) -> R<Typed> {
    let Some(name) = types::cast_name(ty) else {
        return Err(Refusal::at(format!("a cast to {ty}"), node));
    };
    Ok((
        SExpr::call("cast", vec![x, SExpr::Str(name)]),
        Some(ty.clone()),
    ))
}

/// The operands of a comparison, with a string literal compared to a date
/// or a timestamp cast to it (DuckDB casts the literal), a string compared
/// to a bigint cast to a bigint, and a date compared to a timestamp cast to
/// a timestamp (as DuckDB compares them).
pub(super) fn compare_operands(
    l: SExpr,
    lt: Option<Type>,
    r: SExpr,
    rt: Option<Type>,
    node: &impl Spanned,
) -> R<(SExpr, SExpr)> {
    let fix = |x: SExpr, xt: &Option<Type>, other: &Option<Type>| -> R<SExpr> {
        match (xt, other) {
            (Some(Type::String), Some(t @ (Type::Date | Type::Timestamp)))
                if matches!(x, SExpr::Str(_)) =>
            {
                Ok(cast(x, t, node)?.0)
            }
            (Some(Type::Date), Some(Type::Timestamp)) => Ok(cast(x, &Type::Timestamp, node)?.0),
            // DuckDB compares a string with a bigint as a bigint (the
            // string cast; a string that is no number fails dbt's run).
            (Some(Type::String), Some(Type::Int64)) => Ok(cast(x, &Type::Int64, node)?.0),
            _ => Ok(x),
        }
    };
    Ok((fix(l, &lt, &rt)?, fix(r, &rt, &lt)?))
}

/// `d + n units` as `date_add(d, units: n)`, of the type DuckDB gives it:
/// a date plus an interval is a timestamp, a date plus a number of days a
/// date.
#[allow(clippy::too_many_arguments)]
pub(super) fn date_add(
    d: SExpr,
    dt: Option<Type>,
    n: SExpr,
    u: &str,
    minus: bool,
    interval: bool,
    node: &impl Spanned,
) -> R<Typed> {
    let Some(t) = dt.filter(Type::is_temporal) else {
        return Err(Refusal::at(
            "date arithmetic on a value not known to be a date or timestamp",
            node,
        ));
    };
    let kw = match u {
        "year" => "years",
        "quarter" => "quarters",
        "month" => "months",
        "week" => "weeks",
        _ => "days",
    };
    let call = SExpr::Call {
        name: if minus { "date_sub" } else { "date_add" }.into(),
        distinct: false,
        args: vec![d],
        kwargs: vec![(kw.into(), n)],
        over: None,
    };
    if interval && t == Type::Date {
        return cast(call, &Type::Timestamp, node);
    }
    Ok((call, Some(t)))
}
