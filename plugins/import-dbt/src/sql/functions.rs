//! Function calls: aggregates (with `FILTER` and `DISTINCT`), window
//! functions, and the scalar functions strata has, with DuckDB's meaning.

use sqlparser::ast::{self as sql};
use strata_lang::types::Type;

use super::aggregates::*;
use super::literals::*;
use super::ops::{cast, compare_operands, with_filter};
use super::translator::{Input, Mode, Translator, Typed};
use super::{Refusal, R};
use crate::plan::{Op, Over, SExpr, SortKey};

impl Translator<'_> {
    pub(super) fn function(
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
        if let Some(t) = self.ordered_call(e, f, &name, inputs, mode) {
            return t;
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
        // DuckDB reads `f(a = b)` in a scalar call as a comparison, where
        // sqlparser's DuckDB dialect reads a named argument.
        let compared: Vec<sql::Expr> = match &f.args {
            sql::FunctionArguments::List(l) => l
                .args
                .iter()
                .filter_map(|a| match a {
                    sql::FunctionArg::Named {
                        name,
                        arg: sql::FunctionArgExpr::Expr(x),
                        operator: sql::FunctionArgOperator::Equals,
                    } => Some(sql::Expr::BinaryOp {
                        left: Box::new(sql::Expr::Identifier(name.clone())),
                        op: sql::BinaryOperator::Eq,
                        right: Box::new(x.clone()),
                    }),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        let mut compared = compared.iter();
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
                        sql::FunctionArg::Named {
                            arg: sql::FunctionArgExpr::Expr(_),
                            operator: sql::FunctionArgOperator::Equals,
                            ..
                        } => args.extend(compared.next()),
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
        let aggregate = is_strata_aggregate(&name);
        if OTHER_AGGREGATES.contains(&name.as_str()) {
            return Err(Refusal::at(
                format!("the aggregate {name}() has no strata equivalent (strata has count, sum, avg, min, max, count_if, bool_and, bool_or, median and stddev)"),
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
            "date_part" | "datepart" => {
                want(2, 2)?;
                let part = match &plain[0] {
                    SExpr::Str(p) => date_part(plain[1].clone(), p),
                    _ => None,
                };
                let Some(part) = part else {
                    return Err(Refusal::at(
                        "date_part of a part strata's date_part has not (year, quarter, month, day, dayofyear, week, isodow, dow, hour, minute, second)",
                        e,
                    ));
                };
                (part, Some(Type::Int64))
            }
            "year" | "quarter" | "month" | "day" | "dayofyear" | "weekofyear" | "isodow"
            | "dayofweek" | "hour" | "minute" | "second"
                if count == 1 =>
            {
                let x = plain.remove(0);
                let part = date_part(x.clone(), &name)
                    .unwrap_or_else(|| SExpr::call("date_part", vec![x, SExpr::col(None, "year")]));
                (part, Some(Type::Int64))
            }
            "greatest" | "least" => {
                want(2, usize::MAX)?;
                let types: Vec<&Type> = xs.iter().filter_map(|x| x.1.as_ref()).collect();
                if types.windows(2).any(|w| w[0] != w[1]) {
                    return Err(Refusal::at(
                        format!("{name}() of values of different types"),
                        e,
                    ));
                }
                (
                    SExpr::call(&name, plain),
                    types.first().map(|t| (*t).clone()),
                )
            }
            "mod" | "fmod" => {
                want(2, 2)?;
                let ty = match (&xs[0].1, &xs[1].1) {
                    (Some(Type::Int64), Some(Type::Int64)) => Type::Int64,
                    (Some(Type::Float64), Some(Type::Int64 | Type::Float64))
                    | (Some(Type::Int64), Some(Type::Float64)) => Type::Float64,
                    _ => {
                        return Err(Refusal::at(
                            format!("{name}() of values that are not int64 or float64"),
                            e,
                        ))
                    }
                };
                (
                    SExpr::bin(Op::Mod, plain[0].clone(), plain[1].clone()),
                    Some(ty),
                )
            }
            "date_diff" | "datediff" => {
                want(3, 3)?;
                let Some(u) = unit_literal(&plain[0], unit) else {
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
            other => match strata_lang::catalog::lookup_sql(other).filter(|f| f.duckdb_same) {
                Some(func) => {
                    want(func.min_args, func.max_args.unwrap_or(usize::MAX))?;
                    let ty = func.returns.type_for(arg_ty.as_ref());
                    // A decimal result: DuckDB may give it another scale
                    // (not a sum: strata types it as DuckDB does).
                    let sum = func.returns == strata_lang::catalog::Returns::SumA1;
                    if matches!(ty, Some(Type::Decimal(..))) && !sum {
                        return Err(Refusal::at(
                            format!("{other}() of a decimal (DuckDB may give its result another scale than strata)"),
                            e,
                        ));
                    }
                    if func.aggregate && f.over.is_none() {
                        let x = with_filter(plain.remove(0), filter);
                        plain.insert(0, x);
                    }
                    (SExpr::call(func.name, plain), ty)
                }
                None => {
                    return Err(Refusal::at(
                        format!("the function {other}() has no strata equivalent"),
                        e,
                    ))
                }
            },
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
        let frame = match (&spec.window_frame, &call) {
            (Some(f), SExpr::Call { name, .. }) => super::window::frame(f, name, e)?,
            _ => None,
        };
        let mut partition_by = Vec::new();
        for p in &spec.partition_by {
            partition_by.push(self.expr(p, inputs, mode)?.0);
        }
        let mut sort = Vec::new();
        for o in &spec.order_by {
            sort.push(SortKey {
                expr: self.expr(&o.expr, inputs, mode)?.0,
                desc: o.options.asc == Some(false),
                nulls_first: super::select::nulls_first(&o.options),
            });
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
                over: Some(Box::new(Over {
                    partition_by,
                    sort,
                    frame,
                })),
            },
            other => other,
        };
        Ok((call, ty))
    }
}

/// The unit a string literal names, as `read` reads it (`'year'`).
fn unit_literal(x: &SExpr, read: fn(&str) -> Option<&'static str>) -> Option<&'static str> {
    match x {
        SExpr::Str(s) => read(s),
        _ => None,
    }
}
