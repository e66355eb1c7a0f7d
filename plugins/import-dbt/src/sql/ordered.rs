//! Aggregates with an order of their own and the calls that read a format:
//! `string_agg(x, ',' ORDER BY y)`, `listagg(x, ',') WITHIN GROUP (ORDER BY
//! y)`, `percentile_cont(0.9) WITHIN GROUP (ORDER BY x)` (and DuckDB's
//! `quantile_cont(x, 0.9)`), `strptime(s, '%Y-%m-%d')`, `strftime(d,
//! '%B')` (either argument first, as DuckDB takes them), as strata's
//! `string_agg(x, ",", sort: [y])`, `percentile_cont(x, 0.9)`,
//! `strptime(s, "%Y-%m-%d")` and `strftime(d, "%B")`.

use sqlparser::ast::{self as sql};
use strata_lang::types::Type;

use super::ops::with_filter;
use super::translator::{Input, Mode, Translator, Typed};
use super::{Refusal, R};
use crate::plan::SExpr;

/// The names translated here.
const NAMES: &[&str] = &[
    "string_agg",
    "listagg",
    "group_concat",
    "percentile_cont",
    "percentile_disc",
    "quantile_cont",
    "quantile_disc",
    "strptime",
    "try_strptime",
    "strftime",
];

impl Translator<'_> {
    /// The translation of a call of one of [`NAMES`] (`None` for any other
    /// function, or a window: the general translation refuses it).
    pub(super) fn ordered_call(
        &mut self,
        e: &sql::Expr,
        f: &sql::Function,
        name: &str,
        inputs: &[Input],
        mode: &Mode,
    ) -> Option<R<Typed>> {
        if !NAMES.contains(&name) || f.over.is_some() || f.null_treatment.is_some() {
            return None;
        }
        // An aggregate reads its arguments row by row.
        let mode = if name.ends_with("strptime") || name == "strftime" {
            mode
        } else {
            &Mode::Row
        };
        Some(self.ordered(e, f, name, inputs, mode))
    }

    fn ordered(
        &mut self,
        e: &sql::Expr,
        f: &sql::Function,
        name: &str,
        inputs: &[Input],
        mode: &Mode,
    ) -> R<Typed> {
        let sql::FunctionArguments::List(list) = &f.args else {
            return Err(Refusal::at(format!("{name}() without arguments"), e));
        };
        if list.duplicate_treatment == Some(sql::DuplicateTreatment::Distinct) {
            return Err(Refusal::at(format!("{name}(DISTINCT ...)"), e));
        }
        let mut order: Vec<&sql::OrderByExpr> = f.within_group.iter().collect();
        for clause in &list.clauses {
            match clause {
                sql::FunctionArgumentClause::OrderBy(keys) if order.is_empty() => {
                    order.extend(keys)
                }
                other => return Err(Refusal::at(format!("{name}(... {other})"), e)),
            }
        }
        let mut args = Vec::new();
        for a in &list.args {
            match a {
                sql::FunctionArg::Unnamed(sql::FunctionArgExpr::Expr(x)) => {
                    args.push(self.expr(x, inputs, mode)?)
                }
                _ => {
                    return Err(Refusal::at(
                        format!("{name}(...) with a named or * argument"),
                        e,
                    ))
                }
            }
        }
        let filter = match &f.filter {
            Some(c) => Some(self.expr(c, inputs, &Mode::Row)?.0),
            None => None,
        };
        let mut keys = Vec::new();
        for o in &order {
            if o.options.nulls_first == Some(true) {
                return Err(Refusal::at(
                    format!("{name}(...) ORDER BY ... NULLS FIRST: strata sorts NULLs last"),
                    e,
                ));
            }
            keys.push((
                self.expr(&o.expr, inputs, &Mode::Row)?.0,
                o.options.asc == Some(false),
            ));
        }
        match name {
            "string_agg" | "listagg" | "group_concat" => {
                let (x, ty) = match args.first() {
                    Some(x) if args.len() <= 2 => x.clone(),
                    _ => {
                        return Err(Refusal::at(
                            format!("{name}() with {} argument(s)", args.len()),
                            e,
                        ))
                    }
                };
                let sep = match args.get(1) {
                    Some((SExpr::Str(s), _)) => s.clone(),
                    None => ",".to_string(),
                    Some(_) => {
                        return Err(Refusal::at(
                            format!("{name}() with a separator that is not a literal"),
                            e,
                        ))
                    }
                };
                let x = match ty {
                    Some(Type::String) => x,
                    _ => SExpr::call("cast", vec![x, SExpr::Str("string".into())]),
                };
                // Without an order, DuckDB's is whatever it reads first:
                // the values' own order is one of them, and stays the same.
                if keys.is_empty() {
                    keys.push((x.clone(), false));
                }
                let call = SExpr::Call {
                    name: "string_agg".into(),
                    distinct: false,
                    args: vec![with_filter(x, filter), SExpr::Str(sep)],
                    kwargs: vec![("sort".into(), SExpr::SortKeys(keys))],
                    over: None,
                };
                Ok((call, Some(Type::String)))
            }
            "percentile_cont" | "percentile_disc" | "quantile_cont" | "quantile_disc" => {
                let cont = name.ends_with("cont");
                let (x, fraction) = match (name.starts_with("percentile"), &args[..], &keys[..]) {
                    (true, [p], [(x, false)]) => (x.clone(), p.0.clone()),
                    (false, [(x, _), p], []) => (x.clone(), p.0.clone()),
                    _ => {
                        return Err(Refusal::at(
                            format!(
                                "{name}(...) other than of one fraction over one ascending key"
                            ),
                            e,
                        ))
                    }
                };
                let in_range = match &fraction {
                    SExpr::Int(v) => (0..=1).contains(v),
                    SExpr::Float(t) => t.parse::<f64>().is_ok_and(|v| (0.0..=1.0).contains(&v)),
                    _ => false,
                };
                if !in_range {
                    return Err(Refusal::at(
                        format!("{name}() of a fraction that is not a literal between 0 and 1"),
                        e,
                    ));
                }
                let ty = if name.starts_with("percentile") {
                    self.expr(&order[0].expr, inputs, &Mode::Row)?.1
                } else {
                    args[0].1.clone()
                };
                if !matches!(
                    ty,
                    Some(Type::Int64 | Type::Float64) | Some(Type::Decimal(..))
                ) || (cont && matches!(ty, Some(Type::Decimal(..))))
                {
                    // DuckDB interpolates a decimal in its own type.
                    return Err(Refusal::at(
                        format!("{name}() of a value that is not an int64 or float64 (or a decimal for _disc)"),
                        e,
                    ));
                }
                let strata = if cont {
                    "percentile_cont"
                } else {
                    "percentile_disc"
                };
                let ty = if cont { Some(Type::Float64) } else { ty };
                Ok((
                    SExpr::call(strata, vec![with_filter(x, filter), fraction]),
                    ty,
                ))
            }
            "strftime" => {
                // DuckDB takes the format first or second.
                let mut args = args;
                if matches!(args.first(), Some((SExpr::Str(_), _))) {
                    args.reverse();
                }
                let format_ok = matches!(args.get(1), Some((SExpr::Str(f), _))
                    if strata_lang::catalog::format::parse(f).is_ok());
                let temporal =
                    matches!(args.first(), Some((_, Some(Type::Date | Type::Timestamp))));
                if args.len() != 2
                    || !format_ok
                    || !temporal
                    || filter.is_some()
                    || !keys.is_empty()
                {
                    return Err(Refusal::at(
                        "strftime() of a date or timestamp with a format other than a literal of %Y %y %m %d %j %H %M %S %b %B %a %A",
                        e,
                    ));
                }
                let plain = args.into_iter().map(|a| a.0).collect();
                Ok((SExpr::call("strftime", plain), Some(Type::String)))
            }
            _ => {
                // strptime: a format strata reads; DuckDB fails the run on a
                // text that does not match it, where strata answers null.
                let format_ok = matches!(args.get(1), Some((SExpr::Str(f), _))
                    if strata_lang::catalog::format::parse_for_reading(f).is_ok());
                if args.len() != 2 || !format_ok || filter.is_some() || !keys.is_empty() {
                    return Err(Refusal::at(
                        "strptime() with a format other than a literal of %Y %m %d %H %M %S",
                        e,
                    ));
                }
                let plain = args.into_iter().map(|a| a.0).collect();
                Ok((SExpr::call("strptime", plain), Some(Type::Timestamp)))
            }
        }
    }
}
