//! SQL to strata: a dbt model's rendered SQL, parsed by sqlparser (DuckDB's
//! dialect unless the profile names another), becomes one strata model per
//! query level — the model itself, plus a helper model for each CTE that
//! is more than an alias (`<model>__<cte>`), each subquery in a `FROM`
//! (`<model>__<alias>`) and each branch of a set operation that must be a
//! model of its own.
//!
//! Every construct is translated to what means the same in strata (NULLs,
//! division, implicit casts included), or the model is refused with the
//! reason and the SQL line: never a guess.

mod aggregates;
mod clauses;
mod expr;
mod from;
mod functions;
mod group;
pub(crate) mod incremental;
mod literals;
mod nothing;
mod ops;
mod ordered;
mod projection;
mod qualify;
mod select;
mod setops;
mod translator;
mod window;

use std::collections::{BTreeMap, BTreeSet};

use sqlparser::ast::{self as sql, Spanned};
use sqlparser::dialect::Dialect;
use strata_lang::types::Type;

use crate::plan::ModelPlan;

/// A column of a relation, as far as the translator knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ColInfo {
    pub name: String,
    /// Its type, when known (declared, from the checker, or evident from
    /// the SQL: a cast, a literal, an aggregate).
    pub ty: Option<Type>,
}

/// A relation the translator can read: a source, or a model.
#[derive(Clone, Debug, PartialEq)]
pub struct RelInfo {
    pub columns: Vec<ColInfo>,
    pub is_model: bool,
}

impl RelInfo {
    /// A model as the checker typed it.
    pub fn checked_model(columns: &[strata_lang::ir::Column]) -> RelInfo {
        RelInfo {
            columns: columns
                .iter()
                .map(|c| ColInfo {
                    name: c.name.to_string(),
                    ty: Some(c.ty.clone()),
                })
                .collect(),
            is_model: true,
        }
    }
}

/// Why a model is not converted: a message and the SQL line (0: unknown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub line: usize,
}

impl Refusal {
    pub fn new(message: impl Into<String>, line: usize) -> Refusal {
        Refusal {
            message: message.into(),
            line,
        }
    }

    fn at(message: impl Into<String>, node: &impl Spanned) -> Refusal {
        Refusal::new(message, line_of(node))
    }
}

/// The first line of a node of the SQL (0 when sqlparser has no position).
fn line_of(node: &impl Spanned) -> usize {
    span_line(node.span())
}

/// The column a node of the SQL starts at (with its line, where the audit
/// found the same join).
fn column_of(node: &impl Spanned) -> usize {
    usize::try_from(node.span().start.column).unwrap_or(0)
}

fn span_line(span: sqlparser::tokenizer::Span) -> usize {
    usize::try_from(span.start.line).unwrap_or(0)
}

pub type R<T> = Result<T, Refusal>;

/// What a relation name in the SQL refers to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Named {
    /// A strata relation (model, seed or source).
    Relation(String),
    /// Not known: the message says why.
    Unknown(String),
}

/// What the translator is given.
pub struct Context<'a> {
    /// The dbt model's name (the strata model it becomes).
    pub model: &'a str,
    /// Every relation already translated or declared, by strata name.
    pub known: &'a BTreeMap<String, RelInfo>,
    /// Names a new helper model may not take.
    pub taken: &'a BTreeSet<String>,
    /// Resolves a table name of the SQL that is not a CTE: the render's
    /// markers (`$ref$x`), or a relation name of compiled SQL.
    pub resolve: &'a dyn Fn(&[String]) -> Named,
    /// The SQL's dialect is DuckDB's (where `/` never divides integers).
    pub duckdb: bool,
}

/// The strata models a dbt model becomes, helpers first.
#[derive(Debug, Default)]
pub struct Translation {
    pub plans: Vec<ModelPlan>,
}

/// The parser dialect for an adapter type.
pub fn dialect(adapter: &str) -> Box<dyn Dialect> {
    use sqlparser::dialect::*;
    match adapter {
        "postgres" | "redshift" => Box::new(PostgreSqlDialect {}),
        "snowflake" => Box::new(SnowflakeDialect),
        "bigquery" => Box::new(BigQueryDialect),
        "duckdb" => Box::new(DuckDbDialect),
        _ => Box::new(GenericDialect),
    }
}

/// Translate a model's rendered SQL.
pub fn translate(sql_text: &str, dialect: &dyn Dialect, cx: &Context) -> R<Translation> {
    let statements = sqlparser::parser::Parser::parse_sql(dialect, sql_text).map_err(|e| {
        let mut r = parse_refusal(&e);
        // "found: EOF": the text ended early, at its last line.
        if r.line == 0 && r.message.contains("EOF") {
            r.line = sql_text.trim_end().lines().count();
        }
        r
    })?;
    let mut queries = statements.iter().filter_map(|s| match s {
        sql::Statement::Query(q) => Some(q),
        _ => None,
    });
    let (Some(q), None, 1) = (queries.next(), queries.next(), statements.len()) else {
        return Err(Refusal::new(
            format!(
                "a model must be one SELECT statement (found {} statement(s))",
                statements.len()
            ),
            statements.first().map_or(0, line_of),
        ));
    };
    let mut t = translator::Translator::new(cx);
    let scope = translator::Scope::default();
    t.query(q, Some(cx.model), &scope, cx.model)?;
    Ok(Translation { plans: t.plans })
}

/// A parse error as a refusal with its line.
fn parse_refusal(e: &sqlparser::parser::ParserError) -> Refusal {
    let text = e.to_string();
    let text = text
        .strip_prefix("sql parser error: ")
        .unwrap_or(&text)
        .to_string();
    let line = text
        .find("Line: ")
        .and_then(|i| {
            text[i + 6..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse()
                .ok()
        })
        .unwrap_or(0);
    let message = match text.find(" at Line: ") {
        Some(i) => text[..i].to_string(),
        None => text,
    };
    Refusal::new(format!("SQL syntax error: {message}"), line)
}

#[cfg(test)]
mod tests;
