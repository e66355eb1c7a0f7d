//! SQL expressions to strata expressions, with DuckDB's meaning kept:
//! `IS NULL` through `coalesce(x == x, false)`, `IN (...)` as `or`s,
//! `BETWEEN` as two comparisons, `CASE` as `case(...)`, date arithmetic as
//! `date_add`, a string compared with a date cast to a date (as DuckDB
//! casts it), `concat` skipping NULLs as DuckDB's does.

use sqlparser::ast::{self as sql, Spanned};
use strata_lang::types::Type;

use super::select::{find_col, Input, Translator};
use super::{Refusal, R};
use crate::plan::{Op, Over, SExpr};
use crate::types;

/// How column references resolve.
pub enum Mode<'m> {
    /// To the inputs' columns.
    Row,
    /// After a GROUP BY: only to the keys and aggregates of the map.
    Post(&'m PostMap),
}

/// The keys and aggregates of a grouping, by their row-level expression,
/// and the name each has after the grouping (qualified by `input` when
/// read from a helper model).
#[derive(Default, Clone, Debug)]
pub struct PostMap {
    pub keys: Vec<(SExpr, String)>,
    pub aggs: Vec<(SExpr, String)>,
    pub input: Option<String>,
}

/// Aggregate functions strata has.
const AGGREGATES: &[&str] = &["count", "sum", "avg", "mean", "min", "max"];

/// Aggregate functions DuckDB has that strata does not (a call to one is
/// refused, and it still makes the SELECT a grouped one).
const OTHER_AGGREGATES: &[&str] = &[
    "string_agg",
    "array_agg",
    "list",
    "any_value",
    "arbitrary",
    "first",
    "last",
    "stddev",
    "stddev_samp",
    "stddev_pop",
    "variance",
    "var_samp",
    "var_pop",
    "median",
    "mode",
    "quantile",
    "quantile_cont",
    "quantile_disc",
    "bool_and",
    "bool_or",
    "every",
    "count_if",
    "countif",
    "approx_count_distinct",
    "product",
    "bit_and",
    "bit_or",
    "bit_xor",
    "max_by",
    "min_by",
    "arg_max",
    "arg_min",
    "argmax",
    "argmin",
    "listagg",
    "group_concat",
    "corr",
    "covar_pop",
    "covar_samp",
    "entropy",
    "kurtosis",
    "skewness",
    "sumkahan",
    "fsum",
    "favg",
    "histogram",
    "percentile_cont",
    "percentile_disc",
    "approx_quantile",
    "reservoir_quantile",
    "regr_slope",
    "regr_intercept",
    "regr_count",
    "regr_r2",
    "geomean",
    "geometric_mean",
    "sem",
    "mad",
    "bitstring_agg",
    "json_group_array",
    "json_group_object",
];

fn function_name(f: &sql::Function) -> String {
    f.name.to_string().to_ascii_lowercase()
}

/// Whether `e` is an aggregate call (no `OVER`) at its top.
pub fn is_aggregate_call(e: &sql::Expr) -> bool {
    match e {
        sql::Expr::Function(f) if f.over.is_none() => {
            let n = function_name(f);
            AGGREGATES.contains(&n.as_str()) || OTHER_AGGREGATES.contains(&n.as_str())
        }
        sql::Expr::Nested(inner) => is_aggregate_call(inner),
        _ => false,
    }
}

/// Whether an aggregate call (not a window) is anywhere in `e` (outside
/// subqueries).
pub fn has_aggregate(e: &sql::Expr) -> bool {
    let mut found = Vec::new();
    collect_aggregates(e, &mut found);
    !found.is_empty()
}

/// Every aggregate call in `e`, outermost first, not looking inside them.
pub fn collect_aggregates<'e>(e: &'e sql::Expr, out: &mut Vec<&'e sql::Expr>) {
    if is_aggregate_call(e) && !matches!(e, sql::Expr::Nested(_)) {
        out.push(e);
        return;
    }
    for c in children(e) {
        collect_aggregates(c, out);
    }
}

/// The sub-expressions of `e` (those of the forms translated; subqueries
/// excluded).
fn children(e: &sql::Expr) -> Vec<&sql::Expr> {
    use sql::Expr as E;
    match e {
        E::IsFalse(x)
        | E::IsNotFalse(x)
        | E::IsTrue(x)
        | E::IsNotTrue(x)
        | E::IsNull(x)
        | E::IsNotNull(x)
        | E::IsUnknown(x)
        | E::IsNotUnknown(x)
        | E::Nested(x) => vec![x],
        E::IsDistinctFrom(a, b) | E::IsNotDistinctFrom(a, b) => vec![a, b],
        E::InList { expr, list, .. } => {
            let mut v = vec![&**expr];
            v.extend(list.iter());
            v
        }
        E::Between {
            expr, low, high, ..
        } => vec![expr, low, high],
        E::BinaryOp { left, right, .. } => vec![left, right],
        E::Like { expr, pattern, .. } | E::ILike { expr, pattern, .. } => vec![expr, pattern],
        E::UnaryOp { expr, .. } => vec![expr],
        E::Cast { expr, .. } => vec![expr],
        E::Substring {
            expr,
            substring_from,
            substring_for,
            ..
        } => {
            let mut v = vec![&**expr];
            v.extend(substring_from.iter().map(|b| &**b));
            v.extend(substring_for.iter().map(|b| &**b));
            v
        }
        E::Trim { expr, .. } => vec![expr],
        E::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            let mut v: Vec<&sql::Expr> = Vec::new();
            v.extend(operand.iter().map(|b| &**b));
            for c in conditions {
                v.push(&c.condition);
                v.push(&c.result);
            }
            v.extend(else_result.iter().map(|b| &**b));
            v
        }
        E::Function(f) => {
            let mut v = Vec::new();
            if let sql::FunctionArguments::List(l) = &f.args {
                for a in &l.args {
                    if let sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x))
                    | sql::FunctionArg::Named {
                        arg: sql::FunctionArgExpr::Expr(x),
                        ..
                    } = a
                    {
                        v.push(x);
                    }
                }
            }
            if let Some(filter) = &f.filter {
                v.push(filter);
            }
            v
        }
        _ => Vec::new(),
    }
}

type Typed = (SExpr, Option<Type>);

fn string_of(v: &sql::Value) -> Option<&str> {
    match v {
        sql::Value::SingleQuotedString(s)
        | sql::Value::EscapedStringLiteral(s)
        | sql::Value::TripleSingleQuotedString(s)
        | sql::Value::NationalStringLiteral(s) => Some(s),
        _ => None,
    }
}

/// A SQL number as a strata literal.
fn number(text: &str, node: &impl Spanned) -> R<Typed> {
    let clean = text.replace('_', "");
    if let Ok(i) = clean.parse::<i64>() {
        return Ok((SExpr::Int(i), Some(Type::Int64)));
    }
    if clean.chars().all(|c| c.is_ascii_digit()) {
        return Err(Refusal::at(
            format!("the number {text} does not fit in int64"),
            node,
        ));
    }
    let Ok(f) = clean.parse::<f64>() else {
        return Err(Refusal::at(format!("the number {text}"), node));
    };
    if !f.is_finite() {
        return Err(Refusal::at(format!("the number {text}"), node));
    }
    // DuckDB reads `1.5` as a DECIMAL literal; strata's float64 reads the
    // same digits (the values computed with it may differ past 15 digits).
    let mut t = if clean.contains(['e', 'E']) {
        format!("{f}")
    } else {
        clean.clone()
    };
    if t.starts_with('.') {
        t.insert(0, '0');
    }
    if t.ends_with('.') {
        t.push('0');
    }
    if !t.contains('.') {
        t.push_str(".0");
    }
    Ok((SExpr::Float(t), Some(Type::Float64)))
}

/// A date part written in SQL (`'day'`, `day`, `'days'`) as strata's unit.
fn unit(text: &str) -> Option<&'static str> {
    match text.trim().trim_matches('\'').to_ascii_lowercase().as_str() {
        "year" | "years" | "y" | "yr" | "yrs" => Some("year"),
        "quarter" | "quarters" => Some("quarter"),
        "month" | "months" | "mon" | "mons" => Some("month"),
        "week" | "weeks" | "w" => Some("week"),
        "day" | "days" | "d" | "dayofmonth" => Some("day"),
        _ => None,
    }
}

fn datetime_field_unit(f: &sql::DateTimeField) -> Option<&'static str> {
    unit(&f.to_string())
}

impl Translator<'_> {
    /// Resolve a column reference.
    fn column(&self, parts: &[sql::Ident], inputs: &[Input], node: &sql::Expr) -> R<Typed> {
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
            E::Value(v) => match &v.value {
                sql::Value::Number(n, _) => number(n, e)?,
                sql::Value::Boolean(b) => (SExpr::Bool(*b), Some(Type::Bool)),
                sql::Value::Null => (SExpr::Null, None),
                other => match string_of(other) {
                    Some(s) => (SExpr::Str(s.to_string()), Some(Type::String)),
                    None => return Err(Refusal::at(format!("the literal {other}"), e)),
                },
            },
            E::TypedString(t) => {
                let Some(s) = string_of(&t.value.value) else {
                    return Err(Refusal::at("a typed literal", e));
                };
                let ty = types::from_warehouse(&t.data_type.to_string())
                    .map_err(|why| Refusal::at(why, e))?;
                cast(SExpr::Str(s.to_string()), &ty, e)?
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
            E::Extract { field, .. } => {
                return Err(Refusal::at(
                    format!("EXTRACT({field} ...) has no strata equivalent (the language has date_trunc, date_diff and date_add)"),
                    e,
                ))
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

    fn binary(
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
    fn interval(
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

    fn function(
        &mut self,
        e: &sql::Expr,
        f: &sql::Function,
        inputs: &[Input],
        mode: &Mode,
    ) -> R<Typed> {
        let name = function_name(f);
        if f.name.0.len() != 1 {
            return Err(Refusal::at(format!("the function {}", f.name), e));
        }
        if name == "__strata_unsupported" {
            return Err(Refusal::at(
                format!(
                    "the macro renders {}, which import-dbt does not translate",
                    f.args
                ),
                e,
            ));
        }
        if name == "__strata_star" {
            return Err(Refusal::at("dbt_utils.star() inside an expression", e));
        }
        if f.null_treatment.is_some() || !f.within_group.is_empty() || f.uses_odbc_syntax {
            return Err(Refusal::at(
                format!("{name}(...) with IGNORE NULLS or WITHIN GROUP"),
                e,
            ));
        }
        if !matches!(f.parameters, sql::FunctionArguments::None) {
            return Err(Refusal::at(format!("{name}(...)(...)"), e));
        }
        let (args, distinct, star) = match &f.args {
            sql::FunctionArguments::None => (Vec::new(), false, false),
            sql::FunctionArguments::Subquery(_) => {
                return Err(Refusal::at(format!("{name}(subquery)"), e))
            }
            sql::FunctionArguments::List(l) => {
                if !l.clauses.is_empty() {
                    return Err(Refusal::at(
                        format!(
                            "{name}(... ORDER BY / LIMIT / SEPARATOR ...) has no strata equivalent"
                        ),
                        e,
                    ));
                }
                let distinct = matches!(
                    l.duplicate_treatment,
                    Some(sql::DuplicateTreatment::Distinct)
                );
                let mut star = false;
                let mut args = Vec::new();
                for a in &l.args {
                    match a {
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) => args.push(x),
                        sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Wildcard) => star = true,
                        _ => {
                            return Err(Refusal::at(
                                format!("{name}(...) with a named or `t.*` argument"),
                                e,
                            ))
                        }
                    }
                }
                (args, distinct, star)
            }
        };
        let aggregate = AGGREGATES.contains(&name.as_str());
        if OTHER_AGGREGATES.contains(&name.as_str()) {
            return Err(Refusal::at(
                format!("the aggregate {name}() has no strata equivalent (strata has count, sum, avg, min and max)"),
                e,
            ));
        }
        // FILTER (WHERE c) on an aggregate: the argument where c holds,
        // NULL elsewhere (ignored by the aggregate).
        let filter = match &f.filter {
            Some(c) if aggregate && f.over.is_none() => Some(self.expr(c, inputs, &Mode::Row)?.0),
            Some(c) => return Err(Refusal::at("FILTER (WHERE ...) on this call", &**c)),
            None => None,
        };
        let inner_mode = if aggregate && f.over.is_none() {
            &Mode::Row
        } else {
            mode
        };
        let mut xs = Vec::new();
        for a in &args {
            xs.push(self.expr(a, inputs, inner_mode)?);
        }
        let arg_ty = xs.first().and_then(|x| x.1.clone());
        let count = xs.len();
        let mut plain: Vec<SExpr> = xs.iter().map(|x| x.0.clone()).collect();
        let want = |lo: usize, hi: usize| -> R<()> {
            if count < lo || count > hi {
                Err(Refusal::at(format!("{name}() with {count} argument(s)"), e))
            } else {
                Ok(())
            }
        };
        if distinct && name != "count" {
            return Err(Refusal::at(
                format!("{name}(DISTINCT ...): strata has count(distinct x) only"),
                e,
            ));
        }
        let (call, ty): Typed = match name.as_str() {
            "count" => {
                if star || count == 0 {
                    let arg = match filter {
                        Some(c) => vec![SExpr::call("if", vec![c, SExpr::Int(1), SExpr::Null])],
                        None => Vec::new(),
                    };
                    (SExpr::call("count", arg), Some(Type::Int64))
                } else {
                    want(1, 1)?;
                    let x = with_filter(plain.remove(0), filter);
                    (
                        SExpr::Call {
                            name: "count".into(),
                            distinct,
                            args: vec![x],
                            kwargs: Vec::new(),
                            over: None,
                        },
                        Some(Type::Int64),
                    )
                }
            }
            "sum" | "min" | "max" | "avg" | "mean" => {
                want(1, 1)?;
                let x = with_filter(plain.remove(0), filter);
                let n = if name == "mean" { "avg" } else { name.as_str() };
                let ty = if n == "avg" {
                    Some(Type::Float64)
                } else {
                    arg_ty.clone()
                };
                (SExpr::call(n, vec![x]), ty)
            }
            "row_number" | "rank" | "dense_rank" => {
                want(0, 0)?;
                (SExpr::call(&name, Vec::new()), Some(Type::Int64))
            }
            "lag" | "lead" => {
                want(1, 3)?;
                (SExpr::call(&name, plain), arg_ty.clone())
            }
            "first_value" | "last_value" => {
                want(1, 1)?;
                (SExpr::call(&name, plain), arg_ty.clone())
            }
            "coalesce" | "ifnull" => {
                if name == "ifnull" {
                    want(2, 2)?;
                }
                let ty = xs.iter().find_map(|x| x.1.clone());
                (SExpr::call("coalesce", plain), ty)
            }
            "nullif" => {
                want(2, 2)?;
                let (a, at) = xs[0].clone();
                let (b, bt) = xs[1].clone();
                let (ca, cb) = compare_operands(a.clone(), at.clone(), b, bt, e)?;
                (
                    SExpr::call("if", vec![SExpr::bin(Op::Eq, ca, cb), SExpr::Null, a]),
                    at,
                )
            }
            "if" | "iff" => {
                want(3, 3)?;
                let ty = xs[1].1.clone().or(xs[2].1.clone());
                (SExpr::call("if", plain), ty)
            }
            "upper" | "lower" | "ucase" | "lcase" => {
                want(1, 1)?;
                let n = if name.starts_with('u') {
                    "upper"
                } else {
                    "lower"
                };
                (SExpr::call(n, plain), Some(Type::String))
            }
            "trim" | "ltrim" | "rtrim" => {
                want(1, 1)?;
                (SExpr::call(&name, plain), Some(Type::String))
            }
            "length" | "len" | "char_length" | "character_length" => {
                want(1, 1)?;
                if arg_ty.is_some() && arg_ty != Some(Type::String) {
                    return Err(Refusal::at(
                        format!("{name}() of a value that is not a string"),
                        e,
                    ));
                }
                (SExpr::call("length", plain), Some(Type::Int64))
            }
            "replace" => {
                want(3, 3)?;
                (SExpr::call("replace", plain), Some(Type::String))
            }
            "lpad" | "rpad" => {
                want(3, 3)?;
                (SExpr::call(&name, plain), Some(Type::String))
            }
            "left" | "right" => {
                want(2, 2)?;
                (SExpr::call(&name, plain), Some(Type::String))
            }
            "starts_with" | "startswith" | "prefix" => {
                want(2, 2)?;
                (SExpr::call("startswith", plain), Some(Type::Bool))
            }
            "substring" | "substr" => {
                want(2, 3)?;
                (SExpr::call("substring", plain), Some(Type::String))
            }
            "split_part" => {
                want(3, 3)?;
                (SExpr::call("split_part", plain), Some(Type::String))
            }
            "regexp_replace" => {
                want(3, 4)?;
                let global = matches!(plain.get(3), Some(SExpr::Str(o)) if o.contains('g'));
                if !global {
                    return Err(Refusal::at(
                        "regexp_replace() without the 'g' option replaces the first match only; strata's replaces every match",
                        e,
                    ));
                }
                plain.truncate(3);
                (SExpr::call("regexp_replace", plain), Some(Type::String))
            }
            "regexp_matches" => {
                want(2, 2)?;
                (SExpr::call("rlike", plain), Some(Type::Bool))
            }
            "concat" => {
                // DuckDB's concat() skips NULL arguments.
                let parts: Vec<SExpr> = xs
                    .iter()
                    .map(|(x, t)| {
                        let text = match t {
                            Some(Type::String) => x.clone(),
                            _ => SExpr::call("cast", vec![x.clone(), SExpr::Str("string".into())]),
                        };
                        SExpr::call("coalesce", vec![text, SExpr::Str(String::new())])
                    })
                    .collect();
                if parts.is_empty() {
                    return Err(Refusal::at("concat() of nothing", e));
                }
                (SExpr::call("concat", parts), Some(Type::String))
            }
            "date_trunc" | "datetrunc" => {
                want(2, 2)?;
                let u = match &plain[0] {
                    SExpr::Str(s) => unit(s),
                    SExpr::Col { input: None, name } => unit(name),
                    _ => None,
                };
                let Some(u) = u else {
                    return Err(Refusal::at(
                        "date_trunc to a part other than year, quarter, month, week or day",
                        e,
                    ));
                };
                let call = SExpr::call("date_trunc", vec![plain[1].clone(), SExpr::col(None, u)]);
                // DuckDB truncates a date to a timestamp.
                match xs[1].1.clone() {
                    Some(Type::Date) => cast(call, &Type::Timestamp, e)?,
                    ty => (call, ty),
                }
            }
            "date_diff" | "datediff" => {
                want(3, 3)?;
                let u = match &plain[0] {
                    SExpr::Str(s) => unit(s),
                    _ => None,
                };
                let Some(u) = u else {
                    return Err(Refusal::at(
                        "date_diff in a part other than year, quarter, month, week or day",
                        e,
                    ));
                };
                if u == "week" {
                    return Err(Refusal::at(
                        "date_diff('week', ...) counts week boundaries differently in strata",
                        e,
                    ));
                }
                (
                    SExpr::call(
                        "date_diff",
                        vec![plain[1].clone(), plain[2].clone(), SExpr::col(None, u)],
                    ),
                    Some(Type::Int64),
                )
            }
            other => {
                return Err(Refusal::at(
                    format!("the function {other}() has no strata equivalent"),
                    e,
                ))
            }
        };
        let Some(over) = &f.over else {
            return Ok((call, ty));
        };
        let sql::WindowType::WindowSpec(spec) = over else {
            return Err(Refusal::at("a named window: write it in the over (...)", e));
        };
        if spec.window_name.is_some() {
            return Err(Refusal::at("a window that extends a named window", e));
        }
        if let Some(frame) = &spec.window_frame {
            // Only the default frame means what strata's window means.
            let default = matches!(frame.units, sql::WindowFrameUnits::Range)
                && matches!(frame.start_bound, sql::WindowFrameBound::Preceding(None))
                && matches!(
                    frame.end_bound,
                    None | Some(sql::WindowFrameBound::CurrentRow)
                );
            if !default {
                return Err(Refusal::at(
                    "a window frame (ROWS / RANGE BETWEEN ...): strata's windows use the default frame",
                    e,
                ));
            }
        }
        let mut partition_by = Vec::new();
        for p in &spec.partition_by {
            partition_by.push(self.expr(p, inputs, mode)?.0);
        }
        let mut sort = Vec::new();
        for o in &spec.order_by {
            if o.options.nulls_first == Some(true) {
                return Err(Refusal::at(
                    "a window ORDER BY ... NULLS FIRST: strata sorts NULLs last",
                    e,
                ));
            }
            sort.push((
                self.expr(&o.expr, inputs, mode)?.0,
                o.options.asc == Some(false),
            ));
        }
        let call = match call {
            SExpr::Call {
                name,
                distinct,
                args,
                kwargs,
                ..
            } => SExpr::Call {
                name,
                distinct,
                args,
                kwargs,
                over: Some(Box::new(Over { partition_by, sort })),
            },
            other => other,
        };
        Ok((call, ty))
    }
}

fn with_filter(x: SExpr, filter: Option<SExpr>) -> SExpr {
    match filter {
        Some(c) => SExpr::call("if", vec![c, x, SExpr::Null]),
        None => x,
    }
}

fn strip(e: &sql::Expr) -> &sql::Expr {
    match e {
        sql::Expr::Nested(i) => strip(i),
        other => other,
    }
}

/// A cast, refusing what strata cannot name.
fn cast(x: SExpr, ty: &Type, node: &impl Spanned) -> R<Typed> {
    let Some(name) = types::cast_name(ty) else {
        return Err(Refusal::at(format!("a cast to {ty}"), node));
    };
    Ok((
        SExpr::call("cast", vec![x, SExpr::Str(name)]),
        Some(ty.clone()),
    ))
}

/// The operands of a comparison, with a string literal compared to a date
/// or a timestamp cast to it (DuckDB casts the literal).
fn compare_operands(
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
            _ => Ok(x),
        }
    };
    Ok((fix(l, &lt, &rt)?, fix(r, &rt, &lt)?))
}

/// `d + n units` as `date_add(d, units: n)`, of the type DuckDB gives it:
/// a date plus an interval is a timestamp, a date plus a number of days a
/// date.
#[allow(clippy::too_many_arguments)]
fn date_add(
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
