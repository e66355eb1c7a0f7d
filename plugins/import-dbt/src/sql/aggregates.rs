//! Aggregate calls: which functions are aggregates (strata's and DuckDB's
//! others), and finding them in an expression.

use sqlparser::ast::{self as sql};

/// Aggregate functions strata has under these names.
const AGGREGATES: &[&str] = &["count", "sum", "avg", "mean", "min", "max"];

/// Whether DuckDB's function `name` is an aggregate strata has: one of
/// [`AGGREGATES`], or a catalog aggregate DuckDB computes alike.
pub(super) fn is_strata_aggregate(name: &str) -> bool {
    AGGREGATES.contains(&name)
        || strata_lang::catalog::lookup_sql(name).is_some_and(|f| f.aggregate && f.duckdb_same)
}

/// Aggregate functions DuckDB has that strata does not (a call to one is
/// refused, and it still makes the SELECT a grouped one).
pub(super) const OTHER_AGGREGATES: &[&str] = &[
    "string_agg",
    "array_agg",
    "list",
    "any_value",
    "arbitrary",
    "first",
    "last",
    "stddev_pop",
    "variance",
    "var_samp",
    "var_pop",
    "mode",
    "quantile",
    "quantile_cont",
    "quantile_disc",
    "approx_count_distinct",
    "product",
    "bit_and",
    "bit_or",
    "bit_xor",
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

pub(super) fn function_name(f: &sql::Function) -> String {
    f.name.to_string().to_ascii_lowercase()
}

/// Whether `e` is an aggregate call (no `OVER`) at its top.
pub fn is_aggregate_call(e: &sql::Expr) -> bool {
    match e {
        sql::Expr::Function(f) if f.over.is_none() => {
            let n = function_name(f);
            is_strata_aggregate(&n) || OTHER_AGGREGATES.contains(&n.as_str())
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
pub(super) fn children(e: &sql::Expr) -> Vec<&sql::Expr> {
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
