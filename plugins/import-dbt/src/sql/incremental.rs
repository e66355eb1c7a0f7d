//! dbt's usual incremental model, recognised: the SQL rendered with
//! `is_incremental()` true is the SQL rendered with it false plus one
//! filter, `col > (select max(col) from {{ this }})`, in a query level
//! whose rows reach the model's output unchanged. Then the rows dbt adds
//! on an incremental run are the rows of the full query whose output
//! column `col` is above the previous table's greatest — exactly what a
//! strata `incremental` model with `cdc_column: col` merges, so the model
//! can become one. Anything else is rebuilt in full (the reason says why).

use sqlparser::ast::{
    self as sql, BinaryOperator, Expr, GroupByExpr, JoinOperator, Query, Select, SelectItem,
    SetExpr, Statement, TableFactor,
};
use sqlparser::dialect::Dialect;

use crate::audit::expr::{args, conjuncts};

/// The filter an incremental run adds: the output column it compares
/// with the previous table's greatest value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Watermark {
    pub column: String,
    /// `>=` rather than `>`: the rows at the watermark are read again.
    pub inclusive: bool,
}

/// The watermark of a model whose incremental rendering is `incremental`
/// and full rendering `full`; `this` is how `{{ this }}` rendered. `Err`
/// says why the pattern is not there.
pub fn watermark(
    full: &str,
    incremental: &str,
    this: &str,
    dialect: &dyn Dialect,
) -> Result<Watermark, String> {
    let parse = |text: &str| -> Result<Box<Query>, String> {
        let mut statements = sqlparser::parser::Parser::parse_sql(dialect, text)
            .map_err(|e| format!("its SQL does not parse: {e}"))?;
        match (statements.pop(), statements.is_empty()) {
            (Some(Statement::Query(q)), true) => Ok(q),
            _ => Err("its SQL is not one SELECT statement".into()),
        }
    };
    let full = parse(full)?;
    let mut inc = parse(incremental)?;
    let this = this.to_lowercase();
    let mut found = Vec::new();
    take_filters(&mut inc, &this, &mut Vec::new(), &mut found);
    let (path, filter) = match found.len() {
        1 => found.remove(0),
        0 => {
            return Err("its {% if is_incremental() %} branch adds no filter on {{ this }}".into())
        }
        _ => {
            return Err(
                "its {% if is_incremental() %} branch filters on {{ this }} more than once".into(),
            )
        }
    };
    if inc != full {
        return Err(
            "its {% if is_incremental() %} branch changes more than a filter on {{ this }}".into(),
        );
    }
    let (compared, column, inclusive) = compared(&filter, &this)
        .ok_or("its filter on {{ this }} is not `col > (select max(col) from {{ this }})`")?;
    passes_through(&full, &path, compared, &column)?;
    Ok(Watermark { column, inclusive })
}

/// Where a query level is: the CTE it is (by name), or the model's own
/// SELECT (an empty path).
type Path = Vec<String>;

/// Remove, from every SELECT of `q`, the conjuncts of its WHERE that read
/// `this`; record each with the CTE path of its SELECT.
fn take_filters(q: &mut Query, this: &str, path: &mut Path, found: &mut Vec<(Path, Expr)>) {
    if let Some(with) = &mut q.with {
        for cte in &mut with.cte_tables {
            path.push(cte.alias.name.value.to_lowercase());
            take_filters(&mut cte.query, this, path, found);
            path.pop();
        }
    }
    if let SetExpr::Select(s) = q.body.as_mut() {
        let Some(selection) = s.selection.take() else {
            return;
        };
        let (reads, rest): (Vec<&Expr>, Vec<&Expr>) = conjuncts(&selection)
            .into_iter()
            .partition(|c| c.to_string().to_lowercase().contains(this));
        for r in reads {
            found.push((path.clone(), r.clone()));
        }
        s.selection = rest.into_iter().cloned().reduce(|a, b| Expr::BinaryOp {
            left: Box::new(a),
            op: BinaryOperator::And,
            right: Box::new(b),
        });
    }
}

/// `col > (select max(col2) from this)` (or `>=`, either side, the
/// subquery's `max` or the whole subquery in a `coalesce`): `col`'s name
/// when it is `col2`, with the expression naming it.
fn compared<'a>(filter: &'a Expr, this: &str) -> Option<(&'a Expr, String, bool)> {
    let Expr::BinaryOp { left, op, right } = unnest(filter) else {
        return None;
    };
    let (column, bound, inclusive) = match op {
        BinaryOperator::Gt => (left, right, false),
        BinaryOperator::GtEq => (left, right, true),
        BinaryOperator::Lt => (right, left, false),
        BinaryOperator::LtEq => (right, left, true),
        _ => return None,
    };
    let name = plain_column(column)?;
    (greatest_of(bound, this)? == name).then_some((column.as_ref(), name, inclusive))
}

/// The column whose greatest value of `this` the expression is.
fn greatest_of(e: &Expr, this: &str) -> Option<String> {
    match unnest(e) {
        Expr::Subquery(q) => {
            let SetExpr::Select(s) = q.body.as_ref() else {
                return None;
            };
            let reads_this = s.from.len() == 1
                && s.from[0].joins.is_empty()
                && matches!(&s.from[0].relation, TableFactor::Table { name, .. }
                    if name.to_string().to_lowercase() == this);
            let [item] = s.projection.as_slice() else {
                return None;
            };
            let e = match item {
                SelectItem::UnnamedExpr(e) | SelectItem::ExprWithAlias { expr: e, .. } => e,
                _ => return None,
            };
            let plain_query = q.with.is_none() && s.selection.is_none() && no_group(s);
            (reads_this && plain_query).then(|| max_of(e))?
        }
        Expr::Function(f) if is(f, "coalesce") => greatest_of(args(f).first()?, this),
        _ => None,
    }
}

/// `max(col)` (or `coalesce(max(col), ...)`): `col`.
fn max_of(e: &Expr) -> Option<String> {
    match unnest(e) {
        Expr::Function(f) if is(f, "max") && f.over.is_none() => match args(f).as_slice() {
            [x] => plain_column(x),
            _ => None,
        },
        Expr::Function(f) if is(f, "coalesce") => max_of(args(f).first()?),
        _ => None,
    }
}

fn is(f: &sql::Function, name: &str) -> bool {
    f.name.to_string().eq_ignore_ascii_case(name)
}

fn unnest(e: &Expr) -> &Expr {
    match e {
        Expr::Nested(inner) => unnest(inner),
        _ => e,
    }
}

/// A column named without anything around it: its name, lower case.
fn plain_column(e: &Expr) -> Option<String> {
    match unnest(e) {
        Expr::Identifier(id) => Some(id.value.to_lowercase()),
        Expr::CompoundIdentifier(parts) => parts.last().map(|p| p.value.to_lowercase()),
        _ => None,
    }
}

fn no_group(s: &Select) -> bool {
    matches!(&s.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty())
}

/// The rows of the query level at `path` reach the model's output one for
/// one, with `column` unchanged: every level from it up to the model's
/// SELECT reads the one below as its first relation, keeps or adds rows
/// only by inner and left joins, and neither groups, deduplicates,
/// windows nor limits; `column` is passed through by name.
fn passes_through(q: &Query, path: &Path, compared: &Expr, column: &str) -> Result<(), String> {
    let ctes: Vec<(String, &Query)> = q
        .with
        .iter()
        .flat_map(|w| &w.cte_tables)
        .map(|c| (c.alias.name.value.to_lowercase(), c.query.as_ref()))
        .collect();
    let level = |name: Option<&str>| -> Result<&Query, String> {
        match name {
            None => Ok(q),
            Some(n) => ctes
                .iter()
                .find(|(c, _)| c == n)
                .map(|(_, q)| *q)
                .ok_or_else(|| format!("its watermark filter is in a nested CTE `{n}`")),
        }
    };
    let ([] | [_]) = path.as_slice() else {
        return Err("its watermark filter is in a nested CTE".into());
    };
    let mut below: Option<String> = path.first().cloned();
    plain_level(level(below.as_deref())?, Err(compared), column)?;
    while let Some(name) = below {
        // Who reads it: exactly one level, as its first relation.
        let readers: Vec<Option<&str>> = ctes
            .iter()
            .map(|(c, q)| (Some(c.as_str()), *q))
            .chain([(None, q)])
            .filter(|(_, r)| mentions(r, &name))
            .map(|(c, _)| c)
            .collect();
        let [reader] = readers.as_slice() else {
            return Err(format!(
                "the CTE `{name}` its watermark filter is in is read {} times",
                readers.len()
            ));
        };
        plain_level(level(*reader)?, Ok(&name), column)?;
        below = reader.map(str::to_string);
    }
    Ok(())
}

/// Whether `q`'s own SELECT (not its CTEs) names relation `name`.
fn mentions(q: &Query, name: &str) -> bool {
    let mut body = q.clone();
    body.with = None;
    let text = body.to_string().to_lowercase();
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == name)
}

/// One level the watermark's rows pass through: a plain SELECT reading
/// `from` first (`Ok`: the level below; `Err`: the filter's own level,
/// with the column the filter compares, which must be of that relation),
/// with `column` in its output unchanged.
fn plain_level(q: &Query, from: Result<&str, &Expr>, column: &str) -> Result<(), String> {
    let SetExpr::Select(s) = q.body.as_ref() else {
        return Err("a set operation is between its watermark filter and its output".into());
    };
    let where_ = match from {
        Ok(f) => format!(" reading `{f}`"),
        Err(_) => " where its watermark filter is".to_string(),
    };
    if q.limit_clause.is_some() || q.fetch.is_some() {
        return Err(format!("the SELECT{where_} has a LIMIT"));
    }
    if s.distinct.is_some() || !no_group(s) || s.having.is_some() || s.qualify.is_some() {
        return Err(format!(
            "the SELECT{where_} groups or deduplicates its rows"
        ));
    }
    if s.projection
        .iter()
        .any(|p| p.to_string().to_uppercase().contains(" OVER "))
    {
        return Err(format!("the SELECT{where_} has a window function"));
    }
    let [first] = s.from.as_slice() else {
        return Err(format!("the SELECT{where_} reads more than one FROM item"));
    };
    let first_alias = match &first.relation {
        TableFactor::Table { name, alias, .. } => {
            let named = name.to_string().to_lowercase();
            if let Ok(f) = from {
                if named != f {
                    return Err(format!("the SELECT reading `{f}` reads it in a join"));
                }
            }
            alias
                .as_ref()
                .map_or(named, |a| a.name.value.to_lowercase())
        }
        _ => return Err(format!("the SELECT{where_} reads a subquery first")),
    };
    let joined = !first.joins.is_empty();
    for j in &first.joins {
        if !matches!(
            j.join_operator,
            JoinOperator::Join(_)
                | JoinOperator::Inner(_)
                | JoinOperator::Left(_)
                | JoinOperator::LeftOuter(_)
        ) {
            return Err(format!(
                "the SELECT{where_} has a join that can add or drop its rows (not inner or left)"
            ));
        }
    }
    // `column` comes out unchanged, from the first relation.
    let from_first = |e: &Expr| match unnest(e) {
        Expr::Identifier(id) => !joined && id.value.eq_ignore_ascii_case(column),
        Expr::CompoundIdentifier(p) => {
            p.len() == 2
                && p[0].value.eq_ignore_ascii_case(&first_alias)
                && p[1].value.eq_ignore_ascii_case(column)
        }
        _ => false,
    };
    if let Err(compared) = from {
        if !from_first(compared) {
            return Err(format!(
                "the column its watermark filter compares is not of the first relation of the SELECT{where_}"
            ));
        }
    }
    let kept = s.projection.iter().any(|p| match p {
        SelectItem::Wildcard(_) => !joined,
        SelectItem::QualifiedWildcard(kind, _) => {
            kind.to_string().eq_ignore_ascii_case(&first_alias)
        }
        SelectItem::UnnamedExpr(e) => from_first(e),
        SelectItem::ExprWithAlias { expr, alias } => {
            alias.value.eq_ignore_ascii_case(column) && from_first(expr)
        }
        _ => false,
    });
    if kept {
        Ok(())
    } else {
        Err(format!(
            "the SELECT{where_} does not pass `{column}` through unchanged from its first relation"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::dialect::DuckDbDialect;

    const THIS: &str = "\"$this$events\"";

    fn wm(full: &str, inc: &str) -> Result<Watermark, String> {
        watermark(full, inc, THIS, &DuckDbDialect {})
    }

    #[test]
    fn the_usual_pattern_in_the_select() {
        let full = "select id, updated_at, x from src where x > 0";
        let inc = format!(
            "select id, updated_at, x from src where x > 0 and updated_at > (select max(updated_at) from {THIS})"
        );
        assert_eq!(
            wm(full, &inc),
            Ok(Watermark {
                column: "updated_at".into(),
                inclusive: false
            })
        );
        let inc = format!(
            "select * from src where x > 0 and updated_at >= (select coalesce(max(updated_at), '1900-01-01') from {THIS})"
        );
        let full = "select * from src where x > 0";
        assert_eq!(wm(full, &inc).map(|w| w.inclusive), Ok(true));
    }

    #[test]
    fn in_a_cte_read_by_the_model() {
        let full = "with s as (select * from src), f as (select s.id, s.ts, c.name from s left join c on s.cid = c.id) select id, ts, name from f";
        let inc = format!("with s as (select * from src where ts > (select max(ts) from {THIS})), f as (select s.id, s.ts, c.name from s left join c on s.cid = c.id) select id, ts, name from f");
        assert_eq!(wm(full, &inc).map(|w| w.column), Ok("ts".into()));
    }

    #[test]
    fn refused_when_the_rows_do_not_pass_through() {
        // grouped after the filter
        let full = "with s as (select * from src) select id, max(ts) as ts from s group by id";
        let inc = format!("with s as (select * from src where ts > (select max(ts) from {THIS})) select id, max(ts) as ts from s group by id");
        assert!(wm(full, &inc).is_err_and(|e| e.contains("groups")));
        // a window over the filtered rows
        let full = "select id, ts, row_number() over (partition by id order by ts) as n from src";
        let inc = format!("select id, ts, row_number() over (partition by id order by ts) as n from src where ts > (select max(ts) from {THIS})");
        assert!(wm(full, &inc).is_err_and(|e| e.contains("window")));
        // another column compared
        let full = "select id, ts from src";
        let inc = format!("select id, ts from src where loaded > (select max(ts) from {THIS})");
        assert!(wm(full, &inc).is_err());
        // the branch changes more than a filter
        let inc = format!("select id, ts, 1 as y from src where ts > (select max(ts) from {THIS})");
        assert!(wm(full, &inc).is_err_and(|e| e.contains("more than a filter")));
        // no filter at all
        assert!(wm(full, full).is_err_and(|e| e.contains("adds no filter")));
        // renamed on the way out
        let inc = format!("select id, ts as t from src where ts > (select max(ts) from {THIS})");
        let full = "select id, ts as t from src";
        assert!(wm(full, &inc).is_err());
        // the filtered side of a left join is its right side
        let full = "select a.id, b.ts from a left join b on a.id = b.id";
        let inc = format!("select a.id, b.ts from a left join b on a.id = b.id where b.ts > (select max(ts) from {THIS})");
        assert!(wm(full, &inc).is_err());
    }
}
