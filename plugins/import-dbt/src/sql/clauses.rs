//! Small readings of a query's clauses: `*` alone, the CTE a query only
//! aliases, names and aliases, `AND`ed conditions and join keys,
//! `ORDER BY` / `LIMIT`, and the parts of a `SELECT` strata has no
//! equivalent for.

use sqlparser::ast as sql;

use super::{ColInfo, Refusal, R};
use crate::plan::{Keys, Op, SExpr};

/// Whether a select list is exactly `*` (no EXCLUDE, REPLACE, ...).
pub(super) fn is_plain_star(items: &[sql::SelectItem]) -> bool {
    matches!(items, [sql::SelectItem::Wildcard(o)]
        if o.opt_ilike.is_none() && o.opt_exclude.is_none() && o.opt_except.is_none()
            && o.opt_replace.is_none() && o.opt_rename.is_none() && o.opt_alias.is_none())
}

/// The CTE a query only aliases (`with ... select * from final`), when no
/// other CTE reads it.
pub(super) fn main_alias_cte(q: &sql::Query) -> Option<String> {
    let with = q.with.as_ref()?;
    let sql::SetExpr::Select(s) = &*q.body else {
        return None;
    };
    if q.order_by.is_some()
        || q.limit_clause.is_some()
        || s.selection.is_some()
        || s.having.is_some()
        || s.distinct.is_some()
        || s.from.len() != 1
        || !s.from[0].joins.is_empty()
        || !is_plain_star(&s.projection)
        || !matches!(&s.group_by, sql::GroupByExpr::Expressions(e, _) if e.is_empty())
    {
        return None;
    }
    let sql::TableFactor::Table {
        name, alias: None, ..
    } = &s.from[0].relation
    else {
        return None;
    };
    let [sql::ObjectNamePart::Identifier(id)] = name.0.as_slice() else {
        return None;
    };
    let target = id.value.to_ascii_lowercase();
    let position = with
        .cte_tables
        .iter()
        .position(|c| c.alias.name.value.eq_ignore_ascii_case(&target))?;
    // Read by a later CTE: it must stay a model of its own.
    let read_later = with.cte_tables[position + 1..]
        .iter()
        .any(|c| mentions(&c.query.to_string(), &target));
    (!read_later).then_some(target)
}

/// Whether `text` has `word` as a whole identifier (case-insensitive).
pub(super) fn mentions(text: &str, word: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    let mut start = 0;
    while let Some(i) = lower[start..].find(word) {
        let at = start + i;
        let before = lower[..at].chars().next_back();
        let after = lower[at + word.len()..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if boundary(before) && boundary(after) {
            return true;
        }
        start = at + word.len();
    }
    false
}

pub(super) fn object_last(n: &sql::ObjectName) -> String {
    match n.0.last() {
        Some(sql::ObjectNamePart::Identifier(i)) => i.value.clone(),
        _ => String::new(),
    }
}

/// A relation marker's readable name (`$ref$orders` is `orders`).
pub fn display_name(s: &str) -> String {
    s.rsplit('$').next().unwrap_or(s).to_string()
}

pub(super) fn alias_of(a: Option<&sql::TableAlias>, node: &sql::TableFactor) -> R<Option<String>> {
    match a {
        None => Ok(None),
        Some(a) if a.columns.is_empty() => Ok(Some(a.name.value.clone())),
        Some(_) => Err(Refusal::at(
            "a table alias that renames columns: rename them in a select list",
            node,
        )),
    }
}

pub fn find_col<'c>(cols: &'c [ColInfo], name: &str) -> Option<&'c ColInfo> {
    cols.iter()
        .find(|c| c.name == name)
        .or_else(|| cols.iter().find(|c| c.name.eq_ignore_ascii_case(name)))
}

pub(super) fn sql_conjuncts(e: &sql::Expr) -> Vec<&sql::Expr> {
    match e {
        sql::Expr::BinaryOp {
            left,
            op: sql::BinaryOperator::And,
            right,
        } => {
            let mut v = sql_conjuncts(left);
            v.extend(sql_conjuncts(right));
            v
        }
        sql::Expr::Nested(inner)
            if matches!(
                &**inner,
                sql::Expr::BinaryOp {
                    op: sql::BinaryOperator::And,
                    ..
                }
            ) =>
        {
            sql_conjuncts(inner)
        }
        other => vec![other],
    }
}

pub fn and_all(mut v: Vec<SExpr>) -> Option<SExpr> {
    if v.is_empty() {
        return None;
    }
    let first = v.remove(0);
    Some(
        v.into_iter()
            .fold(first, |acc, e| SExpr::bin(Op::And, acc, e)),
    )
}

/// The keys of an `on` condition, when it has the shape strata's `expect`
/// checks: an `and` of `==` whose joined-side operands are plain columns.
pub fn join_keys(on: &SExpr, left: &str, right: &str) -> Option<Keys> {
    let mut keys = Keys::default();
    let mentions_right = |e: &SExpr| {
        let mut cols = Vec::new();
        e.columns(&mut cols);
        cols.iter().any(|(q, _)| q.as_deref() == Some(right))
    };
    let plain = |e: &SExpr, input: &str| match e {
        SExpr::Col {
            input: Some(q),
            name,
        } if q == input => Some(name.clone()),
        _ => None,
    };
    for c in on.conjuncts() {
        if !mentions_right(c) {
            continue;
        }
        let SExpr::Bin(Op::Eq, l, r) = c else {
            return None;
        };
        let (rcol, other) = match (plain(l, right), plain(r, right)) {
            (Some(rc), _) if !mentions_right(r) => (rc, &**r),
            (_, Some(rc)) if !mentions_right(l) => (rc, &**l),
            _ => return None,
        };
        match plain(other, left) {
            Some(lcol) => {
                if !keys.pairs.contains(&(lcol.clone(), rcol.clone())) {
                    keys.pairs.push((lcol, rcol));
                }
            }
            None => {
                if !keys.right_only.contains(&rcol) {
                    keys.right_only.push(rcol);
                }
            }
        }
    }
    (!keys.right().is_empty()).then_some(keys)
}

/// ORDER BY items of a query (`ORDER BY ALL` refused).
pub(super) fn order_items(q: &sql::Query) -> R<Vec<sql::OrderByExpr>> {
    match &q.order_by {
        None => Ok(Vec::new()),
        Some(o) => match &o.kind {
            sql::OrderByKind::Expressions(v) => Ok(v.clone()),
            sql::OrderByKind::All(_) => {
                Err(Refusal::at("ORDER BY ALL: list the columns", &*q.body))
            }
        },
    }
}

/// LIMIT / OFFSET as a `take`: `(n, None)` or `(first, Some(last))`.
pub(super) fn limit_of(q: &sql::Query) -> R<Option<(u64, Option<u64>)>> {
    let Some(l) = &q.limit_clause else {
        return Ok(None);
    };
    let number = |e: &sql::Expr| -> R<u64> {
        match e {
            sql::Expr::Value(v) => match &v.value {
                sql::Value::Number(n, _) => n
                    .parse()
                    .map_err(|_| Refusal::at(format!("LIMIT/OFFSET {n}"), e)),
                _ => Err(Refusal::at("LIMIT/OFFSET must be a number", e)),
            },
            _ => Err(Refusal::at("LIMIT/OFFSET must be a number", e)),
        }
    };
    let (limit, offset) = match l {
        sql::LimitClause::LimitOffset {
            limit,
            offset,
            limit_by,
        } => {
            if !limit_by.is_empty() {
                return Err(Refusal::at("LIMIT BY", &limit_by[0]));
            }
            (
                limit.as_ref().map(number).transpose()?,
                offset.as_ref().map(|o| number(&o.value)).transpose()?,
            )
        }
        sql::LimitClause::OffsetCommaLimit { offset, limit } => {
            (Some(number(limit)?), Some(number(offset)?))
        }
    };
    Ok(match (limit, offset) {
        (None, None) => None,
        (Some(n), None | Some(0)) => Some((n, None)),
        (Some(0), Some(_)) => Some((0, None)),
        (Some(n), Some(o)) => Some((o.saturating_add(1), Some(o.saturating_add(n)))),
        (None, Some(_)) => {
            return Err(Refusal::at(
                "OFFSET without LIMIT: strata's take needs a last row",
                &*q.body,
            ))
        }
    })
}

/// Parts of a SELECT strata has no equivalent for.
pub(super) fn unsupported_select_parts(s: &sql::Select) -> R<()> {
    let bad = if s.top.is_some() {
        Some("TOP")
    } else if s.into.is_some() {
        Some("SELECT INTO")
    } else if !s.lateral_views.is_empty() {
        Some("LATERAL VIEW")
    } else if s.prewhere.is_some() {
        Some("PREWHERE")
    } else if !s.named_window.is_empty() {
        Some("a named WINDOW (write the window in each over (...))")
    } else if !s.cluster_by.is_empty() || !s.distribute_by.is_empty() || !s.sort_by.is_empty() {
        Some("CLUSTER / DISTRIBUTE / SORT BY")
    } else if !s.connect_by.is_empty() {
        Some("CONNECT BY")
    } else if s.value_table_mode.is_some() {
        Some("SELECT AS STRUCT / VALUE")
    } else if s.exclude.is_some() {
        Some("EXCLUDE after the select list")
    } else if !matches!(s.flavor, sql::SelectFlavor::Standard) {
        Some("FROM-first SELECT")
    } else {
        None
    };
    match bad {
        Some(what) => Err(Refusal::at(format!("{what} has no strata equivalent"), s)),
        None => Ok(()),
    }
}
