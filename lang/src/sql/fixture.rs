//! The SQL of a fixture test's literal rows: a table per input, typed as
//! the input declares its columns, that the model's lowered query then
//! reads exactly as it reads a warehouse table.

use crate::ast::{FixtureValue, FixtureValueKind};
use crate::ir::{Column, FixtureTable};
use crate::types::Type;

use super::dialect::{Dialect, Unsupported};

/// `CREATE TABLE <table> (..); INSERT INTO <table> VALUES (..), ..;` for
/// the rows of `t` (`table` quoted). Every column of the relation is
/// created with its declared type; a column the rows do not give holds
/// NULL, or its type's zero value ([`zero_value`]) when it is `nonnull`.
pub fn fixture_table_sql(d: Dialect, table: &str, t: &FixtureTable) -> Result<String, Unsupported> {
    let mut defs = Vec::with_capacity(t.columns.len());
    for c in &t.columns {
        defs.push(format!("{} {}", d.ident(&c.name), column_type(d, &c.ty)?));
    }
    let mut sql = format!("CREATE TABLE {table} ({})", defs.join(", "));
    if t.rows.is_empty() {
        sql.push(';');
        return Ok(sql);
    }
    // The column each position of a row gives, per column.
    let mut given_at: Vec<Option<usize>> = vec![None; t.columns.len()];
    for (k, &i) in t.given.iter().enumerate() {
        given_at[i] = Some(k);
    }
    let defaults: Vec<String> = t
        .columns
        .iter()
        .map(|c| missing_value(d, c))
        .collect::<Result<_, _>>()?;
    let mut rows = Vec::with_capacity(t.rows.len());
    for row in &t.rows {
        let mut cells = Vec::with_capacity(t.columns.len());
        for (i, c) in t.columns.iter().enumerate() {
            cells.push(match given_at[i].and_then(|k| row.get(k)) {
                Some(v) => value_sql(d, v, &c.ty)?,
                None => defaults[i].clone(),
            });
        }
        rows.push(format!("({})", cells.join(", ")));
    }
    sql.push_str(&format!(
        ";\nINSERT INTO {table} VALUES {};",
        rows.join(",\n  ")
    ));
    Ok(sql)
}

/// The physical type of a fixture column: a column of no known type (an
/// output that is always NULL) holds text.
fn column_type(d: Dialect, ty: &Type) -> Result<String, Unsupported> {
    match ty {
        Type::Unknown => d.type_name(&Type::String),
        ty => d.type_name(ty),
    }
}

/// What a column the rows leave out holds: NULL, or the zero value of its
/// type when it is `nonnull` (never null in the data the test describes).
fn missing_value(d: Dialect, c: &Column) -> Result<String, Unsupported> {
    if c.nullable || c.ty.is_unknown() {
        return Ok("NULL".into());
    }
    let zero = zero_value(&c.ty);
    value_sql(d, &zero, &c.ty)
}

/// The zero value of a type, which a `nonnull` column a fixture leaves out
/// holds: 0, `""`, false, 1970-01-01, 1970-01-01 00:00:00, the nil uuid,
/// the empty JSON object, the empty array.
pub fn zero_value(ty: &Type) -> FixtureValue {
    let kind = match ty {
        Type::Int64 | Type::Decimal(..) | Type::Money(_) => FixtureValueKind::Int(0),
        Type::Float64 => FixtureValueKind::Float("0.0".into()),
        Type::String => FixtureValueKind::Str(String::new()),
        Type::Bool => FixtureValueKind::Bool(false),
        Type::Date => FixtureValueKind::Str("1970-01-01".into()),
        Type::Timestamp => FixtureValueKind::Str("1970-01-01 00:00:00".into()),
        Type::Uuid => FixtureValueKind::Str("00000000-0000-0000-0000-000000000000".into()),
        Type::Json => FixtureValueKind::Str("{}".into()),
        Type::Array(_) => FixtureValueKind::List(Vec::new()),
        Type::Unknown => FixtureValueKind::Null,
    };
    FixtureValue {
        kind,
        span: crate::span::Span::default(),
    }
}

/// A value as SQL, cast to `ty` (the checker made sure it fits).
pub fn value_sql(d: Dialect, v: &FixtureValue, ty: &Type) -> Result<String, Unsupported> {
    let raw = match (&v.kind, ty) {
        (_, Type::Unknown) => return Ok("NULL".into()),
        (FixtureValueKind::Int(i), _) => i.to_string(),
        (FixtureValueKind::Float(text), _) => text.replace('_', ""),
        (FixtureValueKind::Str(s), _) => d.string(s),
        (FixtureValueKind::Bool(b), _) => if *b { "TRUE" } else { "FALSE" }.into(),
        (FixtureValueKind::Null, _) => "NULL".into(),
        (FixtureValueKind::List(items), Type::Array(elem)) => {
            let parts = items
                .iter()
                .map(|x| value_sql(d, x, elem))
                .collect::<Result<Vec<_>, _>>()?;
            d.array_literal(&parts.join(", "))
        }
        (FixtureValueKind::List(_), other) => {
            return Err(format!("a list does not fit a column of type {other}"))
        }
    };
    d.cast(&raw, ty)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Name;

    fn column(name: &str, ty: Type, nullable: bool) -> Column {
        Column {
            name: Name::new(name),
            ty,
            nullable,
            unique: false,
            primary_key: false,
            protected: false,
            enum_values: None,
            classification: None,
        }
    }

    fn value(kind: FixtureValueKind) -> FixtureValue {
        FixtureValue {
            kind,
            span: crate::span::Span::default(),
        }
    }

    #[test]
    fn left_out_columns_are_null_or_the_zero_value_of_a_nonnull_type() {
        let t = FixtureTable {
            name: Name::new("orders"),
            span: Default::default(),
            columns: vec![
                column("id", Type::Int64, false),
                column("note", Type::String, true),
                column("day", Type::Date, false),
                column("tags", Type::Array(Box::new(Type::String)), true),
            ],
            given: vec![3, 0],
            rows: vec![vec![
                value(FixtureValueKind::List(vec![value(FixtureValueKind::Str(
                    "a'b".into(),
                ))])),
                value(FixtureValueKind::Int(-7)),
            ]],
            row_spans: vec![Default::default()],
        };
        let sql = fixture_table_sql(Dialect::DuckDb, "\"t\"", &t).expect("sql");
        assert_eq!(
            sql,
            "CREATE TABLE \"t\" (\"id\" BIGINT, \"note\" VARCHAR, \"day\" DATE, \"tags\" VARCHAR[]);\n\
             INSERT INTO \"t\" VALUES (CAST(-7 AS BIGINT), NULL, CAST('1970-01-01' AS DATE), CAST([CAST('a''b' AS VARCHAR)] AS VARCHAR[]));"
        );
        let empty = FixtureTable {
            rows: Vec::new(),
            ..t
        };
        let sql = fixture_table_sql(Dialect::Postgres, "\"t\"", &empty).expect("sql");
        assert_eq!(
            sql,
            "CREATE TABLE \"t\" (\"id\" BIGINT, \"note\" TEXT, \"day\" DATE, \"tags\" TEXT[]);"
        );
    }
}
