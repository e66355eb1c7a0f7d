//! Small readings of sqlparser expressions the audit needs: conjuncts, the
//! children of a node, aggregates, plain column references, a line.

use sqlparser::ast::{
    self as sql, BinaryOperator, Expr, FunctionArg, FunctionArgExpr, FunctionArguments, Spanned,
};

/// The conjuncts of an `and` chain (through parentheses).
pub fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            let mut v = conjuncts(left);
            v.extend(conjuncts(right));
            v
        }
        Expr::Nested(inner) => conjuncts(inner),
        _ => vec![e],
    }
}

/// The plain-column part of a key: through parentheses and casts.
pub fn plain(e: &Expr) -> &Expr {
    match e {
        Expr::Nested(inner) | Expr::Cast { expr: inner, .. } => plain(inner),
        _ => e,
    }
}

/// `(qualifier, column)` of a column reference, lower case.
pub fn column_ref(e: &Expr) -> Option<(Option<String>, String)> {
    match plain(e) {
        Expr::Identifier(id) => Some((None, id.value.to_lowercase())),
        Expr::CompoundIdentifier(parts) if parts.len() >= 2 => Some((
            Some(parts[parts.len() - 2].value.to_lowercase()),
            parts[parts.len() - 1].value.to_lowercase(),
        )),
        _ => None,
    }
}

/// The arguments of a function call that are expressions.
pub fn args(f: &sql::Function) -> Vec<&Expr> {
    match &f.args {
        FunctionArguments::List(list) => list
            .args
            .iter()
            .filter_map(|a| match a {
                FunctionArg::Unnamed(FunctionArgExpr::Expr(e))
                | FunctionArg::Named {
                    arg: FunctionArgExpr::Expr(e),
                    ..
                }
                | FunctionArg::ExprNamed {
                    arg: FunctionArgExpr::Expr(e),
                    ..
                } => Some(e),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

pub fn is_distinct(f: &sql::Function) -> bool {
    matches!(&f.args, FunctionArguments::List(l)
        if matches!(l.duplicate_treatment, Some(sql::DuplicateTreatment::Distinct)))
}

/// The lower-case name of a function (its last part).
pub fn name(f: &sql::Function) -> String {
    f.name
        .0
        .last()
        .and_then(|p| p.as_ident())
        .map(|i| i.value.to_lowercase())
        .unwrap_or_default()
}

/// Aggregates whose value grows with repeated rows.
const SUMMING: &[&str] = &[
    "sum",
    "avg",
    "mean",
    "count",
    "count_if",
    "countif",
    "sum_if",
    "sumif",
    "array_agg",
    "list",
    "string_agg",
    "listagg",
    "group_concat",
    "stddev",
    "variance",
    "median",
];
/// Aggregates that repeated rows cannot change.
const STABLE: &[&str] = &[
    "min",
    "max",
    "any_value",
    "arbitrary",
    "first",
    "last",
    "bool_and",
    "bool_or",
    "every",
    "approx_count_distinct",
    "arg_min",
    "arg_max",
    "min_by",
    "max_by",
];

/// Whether `f` is an aggregate (not a window function); `Some(true)` when
/// repeated rows change its value.
pub fn aggregate(f: &sql::Function) -> Option<bool> {
    if f.over.is_some() {
        return None;
    }
    let n = name(f);
    if SUMMING.contains(&n.as_str()) {
        Some(!is_distinct(f))
    } else if STABLE.contains(&n.as_str()) {
        Some(false)
    } else {
        None
    }
}

/// The direct children of an expression (the common forms; a subquery is
/// not entered).
pub fn children(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::BinaryOp { left, right, .. }
        | Expr::IsDistinctFrom(left, right)
        | Expr::IsNotDistinctFrom(left, right) => vec![left, right],
        Expr::UnaryOp { expr, .. }
        | Expr::Nested(expr)
        | Expr::Cast { expr, .. }
        | Expr::IsNull(expr)
        | Expr::IsNotNull(expr)
        | Expr::IsTrue(expr)
        | Expr::IsFalse(expr)
        | Expr::IsNotTrue(expr)
        | Expr::IsNotFalse(expr)
        | Expr::Extract { expr, .. }
        | Expr::AtTimeZone {
            timestamp: expr, ..
        }
        | Expr::Collate { expr, .. } => vec![expr],
        Expr::Between {
            expr, low, high, ..
        } => vec![expr, low, high],
        Expr::InList { expr, list, .. } => {
            let mut v: Vec<&Expr> = vec![expr];
            v.extend(list.iter());
            v
        }
        Expr::Like { expr, pattern, .. } | Expr::ILike { expr, pattern, .. } => {
            vec![expr, pattern]
        }
        Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } => {
            let mut v: Vec<&Expr> = Vec::new();
            v.extend(operand.as_deref());
            for c in conditions {
                v.push(&c.condition);
                v.push(&c.result);
            }
            v.extend(else_result.as_deref());
            v
        }
        Expr::Function(f) => {
            let mut v = args(f);
            v.extend(f.filter.as_deref());
            v
        }
        Expr::Tuple(items) => items.iter().collect(),
        _ => Vec::new(),
    }
}

/// Every function call in `e` that is an aggregate, with whether it sums,
/// outermost first; the arguments of an aggregate are not searched further.
pub fn aggregates(e: &Expr) -> Vec<(&sql::Function, bool)> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        if let Expr::Function(f) = x {
            if let Some(sums) = aggregate(f) {
                out.push((f, sums));
                continue;
            }
        }
        stack.extend(children(x));
    }
    out
}

/// Every column reference in `e`.
pub fn columns(e: &Expr) -> Vec<(Option<String>, String)> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        match x {
            Expr::Identifier(_) | Expr::CompoundIdentifier(_) => out.extend(column_ref(x)),
            _ => stack.extend(children(x)),
        }
    }
    out
}

/// The 1-based line a node starts on (0 when the parser gave none).
pub fn line(node: &impl Spanned) -> usize {
    node.span().start.line as usize
}

/// `l = r`: its two sides.
pub fn equality(e: &Expr) -> Option<(&Expr, &Expr)> {
    match e {
        Expr::BinaryOp {
            left,
            op: BinaryOperator::Eq,
            right,
        } => Some((left, right)),
        _ => None,
    }
}

/// Where `node` starts: line and column.
pub fn start(node: &impl Spanned) -> (usize, usize) {
    let s = node.span().start;
    (s.line as usize, s.column as usize)
}

/// `row_number() over (partition by ...)`: the partition expressions.
pub fn row_number_partition(e: &Expr) -> Option<&[Expr]> {
    let Expr::Function(f) = plain(e) else {
        return None;
    };
    if name(f) != "row_number" {
        return None;
    }
    match &f.over {
        Some(sql::WindowType::WindowSpec(w)) => Some(&w.partition_by),
        _ => None,
    }
}

/// The subqueries directly in `e` (scalar, `in (select ...)`, `exists`).
pub fn subqueries(e: &Expr) -> Vec<&sql::Query> {
    let mut out = Vec::new();
    let mut stack = vec![e];
    while let Some(x) = stack.pop() {
        match x {
            Expr::Subquery(q) | Expr::Exists { subquery: q, .. } => out.push(q.as_ref()),
            Expr::InSubquery { expr, subquery, .. } => {
                out.push(subquery.as_ref());
                stack.push(expr);
            }
            _ => stack.extend(children(x)),
        }
    }
    out
}

/// A number literal's value (`group by 1`).
pub fn position(e: &Expr) -> Option<usize> {
    match e {
        Expr::Value(v) => match &v.value {
            sql::Value::Number(n, _) => n.parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::DuckDbDialect;
    use sqlparser::parser::Parser;

    fn expr(text: &str) -> Expr {
        Parser::new(&DuckDbDialect {})
            .try_with_sql(text)
            .unwrap_or_else(|e| panic!("{e}"))
            .parse_expr()
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn conjuncts_and_keys() {
        let e = expr("(a.x = b.x) and cast(b.y as int) = a.y and b.z > 1");
        let c = conjuncts(&e);
        assert_eq!(c.len(), 3);
        assert_eq!(
            column_ref(&expr("cast(b.y as int)")),
            Some((Some("b".into()), "y".into()))
        );
    }

    #[test]
    fn aggregates_that_sum() {
        let e = expr("sum(o.amount) + max(o.x) + count(distinct o.id) + sum(x) over ()");
        let found: Vec<(String, bool)> = aggregates(&e)
            .into_iter()
            .map(|(f, s)| (name(f), s))
            .collect();
        assert_eq!(found.len(), 3);
        assert!(found.contains(&("sum".into(), true)));
        assert!(found.contains(&("max".into(), false)));
        assert!(found.contains(&("count".into(), false)));
    }
}
