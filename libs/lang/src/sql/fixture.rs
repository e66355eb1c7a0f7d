//! The SQL of a fixture test's literal rows: a query of typed literal rows
//! per input, typed as the input declares its columns, that the model's
//! lowered query then reads (as a subquery) exactly as it reads a
//! warehouse table.

use crate::ast::{FixtureValue, FixtureValueKind};
use crate::ir::{Column, FixtureTable};
use crate::types::Type;

use super::dialect::{Dialect, Unsupported};

/// `SELECT CAST(v."tag" AS BIGINT) AS "tag", CAST(v."c" AS T) AS "c", ..
/// FROM (VALUES (..), ..) AS v("tag", "c", ..)`: the rows of several
/// tables of one relation (the same columns: each test's rows of one
/// input) as one query, each row led by the number its table is given in
/// `tables`. Every column of the relation has its declared type; a column
/// the rows do not give holds NULL, or its type's zero value
/// ([`zero_value`]) when it is `nonnull`. With `ordinal`, a last BIGINT
/// column of that name numbers each table's rows from 0 in the order they
/// are written. No rows: the same columns, no row.
pub fn fixture_rows_sql(
    d: Dialect,
    tables: &[(i64, &FixtureTable)],
    tag: &str,
    ordinal: Option<&str>,
) -> Result<String, Unsupported> {
    rows_sql(d, tables, Some(tag), ordinal)
}

/// The rows of a `rows` clause as one query: [`fixture_rows_sql`] of one
/// table, without the tag.
pub fn literal_rows_sql(d: Dialect, table: &FixtureTable) -> Result<String, Unsupported> {
    rows_sql(d, &[(0, table)], None, None)
}

fn rows_sql(
    d: Dialect,
    tables: &[(i64, &FixtureTable)],
    tag: Option<&str>,
    ordinal: Option<&str>,
) -> Result<String, Unsupported> {
    let Some((_, first)) = tables.first() else {
        return Err("no rows to write".into());
    };
    let columns = &first.columns;
    let mut names = Vec::with_capacity(columns.len() + 2);
    let mut types = Vec::with_capacity(columns.len() + 2);
    if let Some(tag) = tag {
        names.push(d.ident(tag));
        types.push(d.type_name(&Type::Int64)?);
    }
    for c in columns {
        names.push(d.ident(&c.name));
        types.push(column_type(d, &c.ty)?);
    }
    if let Some(o) = ordinal {
        names.push(d.ident(o));
        types.push(d.type_name(&Type::Int64)?);
    }
    let defaults: Vec<String> = columns
        .iter()
        .map(|c| missing_value(d, c))
        .collect::<Result<_, _>>()?;
    let mut rows = Vec::new();
    for (number, t) in tables {
        // The column each position of a row gives, per column.
        let mut given_at: Vec<Option<usize>> = vec![None; columns.len()];
        for (k, &i) in t.given.iter().enumerate() {
            given_at[i] = Some(k);
        }
        for (r, row) in t.rows.iter().enumerate() {
            let mut cells = Vec::with_capacity(names.len());
            if tag.is_some() {
                cells.push(number.to_string());
            }
            for (i, c) in columns.iter().enumerate() {
                cells.push(match given_at[i].and_then(|k| row.get(k)) {
                    Some(v) => cell_sql(d, v, &c.ty)?,
                    None => defaults[i].clone(),
                });
            }
            if ordinal.is_some() {
                cells.push(r.to_string());
            }
            rows.push(format!("({})", cells.join(", ")));
        }
    }
    if rows.is_empty() {
        let items: Vec<String> = names
            .iter()
            .zip(&types)
            .map(|(n, ty)| format!("CAST(NULL AS {ty}) AS {n}"))
            .collect();
        return Ok(format!("SELECT {} WHERE 1 = 0", items.join(", ")));
    }
    if d == Dialect::BigQuery {
        // BigQuery has no VALUES list: one SELECT of cast cells per row.
        return bigquery_rows(d, tables, &names, &types, ordinal.is_some());
    }
    // The outer casts type a column whose cells are all an untyped NULL.
    let items: Vec<String> = names
        .iter()
        .zip(&types)
        .map(|(n, ty)| format!("CAST(v.{n} AS {ty}) AS {n}"))
        .collect();
    Ok(format!(
        "SELECT {} FROM (VALUES {}) AS v({})",
        items.join(", "),
        rows.join(", "),
        names.join(", ")
    ))
}

/// The rows of [`rows_sql`] for BigQuery: `SELECT CAST(v AS T) AS c, ..`
/// per row, joined by `UNION ALL`.
fn bigquery_rows(
    d: Dialect,
    tables: &[(i64, &FixtureTable)],
    names: &[String],
    types: &[String],
    ordinal: bool,
) -> Result<String, Unsupported> {
    let mut selects = Vec::new();
    let tagged = names.len() > tables[0].1.columns.len() + usize::from(ordinal);
    for (number, t) in tables {
        let mut given_at: Vec<Option<usize>> = vec![None; t.columns.len()];
        for (k, &i) in t.given.iter().enumerate() {
            given_at[i] = Some(k);
        }
        for (r, row) in t.rows.iter().enumerate() {
            let mut cells = Vec::with_capacity(names.len());
            if tagged {
                cells.push(number.to_string());
            }
            for (i, c) in t.columns.iter().enumerate() {
                cells.push(match given_at[i].and_then(|k| row.get(k)) {
                    Some(v) => literal_sql(d, v, &c.ty)?,
                    None => missing_value(d, c)?,
                });
            }
            if ordinal {
                cells.push(r.to_string());
            }
            let items: Vec<String> = cells
                .iter()
                .zip(names.iter().zip(types))
                .map(|(v, (n, ty))| format!("CAST({v} AS {ty}) AS {n}"))
                .collect();
            selects.push(format!("SELECT {}", items.join(", ")));
        }
    }
    Ok(selects.join(" UNION ALL "))
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
    cell_sql(d, &zero, &c.ty)
}

/// The zero value of a type, which a `nonnull` column a fixture leaves out
/// holds: 0, `""`, false, 1970-01-01, 1970-01-01 00:00:00, the nil uuid,
/// the empty JSON object, the empty array.
pub fn zero_value(ty: &Type) -> FixtureValue {
    let kind = match ty {
        Type::Int64 | Type::Decimal(..) | Type::Money(_) => FixtureValueKind::Int(0),
        Type::Float32 | Type::Float64 => FixtureValueKind::Float("0.0".into()),
        Type::String => FixtureValueKind::Str(String::new()),
        Type::Bool => FixtureValueKind::Bool(false),
        Type::Date => FixtureValueKind::Str("1970-01-01".into()),
        Type::Timestamp => FixtureValueKind::Str("1970-01-01 00:00:00".into()),
        Type::TimestampTz => FixtureValueKind::Str("1970-01-01 00:00:00Z".into()),
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
    if ty.is_unknown() {
        return Ok("NULL".into());
    }
    d.cast(&literal_sql(d, v, ty)?, ty)
}

/// A value of a row of `VALUES`: the bare literal, which the query's
/// column cast types (DuckDB parses every token of a statement: a cast per
/// cell would cost more than the rows); a list keeps its casts, so that its
/// elements have their type.
fn cell_sql(d: Dialect, v: &FixtureValue, ty: &Type) -> Result<String, Unsupported> {
    match (&v.kind, ty) {
        (_, Type::Unknown) => Ok("NULL".into()),
        (FixtureValueKind::List(_), _) => value_sql(d, v, ty),
        _ => literal_sql(d, v, ty),
    }
}

/// The literal of a value, uncast.
fn literal_sql(d: Dialect, v: &FixtureValue, ty: &Type) -> Result<String, Unsupported> {
    Ok(match (&v.kind, ty) {
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
    })
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
        let sql = fixture_rows_sql(Dialect::DuckDb, &[(4, &t)], "t", None).expect("sql");
        assert_eq!(
            sql,
            "SELECT CAST(v.\"t\" AS BIGINT) AS \"t\", CAST(v.\"id\" AS BIGINT) AS \"id\", \
             CAST(v.\"note\" AS VARCHAR) AS \"note\", \
             CAST(v.\"day\" AS DATE) AS \"day\", CAST(v.\"tags\" AS VARCHAR[]) AS \"tags\" \
             FROM (VALUES (4, -7, NULL, '1970-01-01', CAST([CAST('a''b' AS VARCHAR)] AS VARCHAR[]))) \
             AS v(\"t\", \"id\", \"note\", \"day\", \"tags\")"
        );
        let empty = FixtureTable {
            rows: Vec::new(),
            ..t.clone()
        };
        let sql = fixture_rows_sql(Dialect::Postgres, &[(0, &empty)], "t", Some("#")).expect("sql");
        assert_eq!(
            sql,
            "SELECT CAST(NULL AS BIGINT) AS \"t\", CAST(NULL AS BIGINT) AS \"id\", CAST(NULL AS TEXT) AS \"note\", \
             CAST(NULL AS DATE) AS \"day\", CAST(NULL AS TEXT[]) AS \"tags\", CAST(NULL AS BIGINT) AS \"#\" WHERE 1 = 0"
        );
        // Several tests' rows of one relation: each led by its number,
        // numbered from 0 within its own table.
        let two = FixtureTable {
            given: vec![0],
            rows: vec![
                vec![value(FixtureValueKind::Int(1))],
                vec![value(FixtureValueKind::Int(2))],
            ],
            row_spans: vec![Default::default(); 2],
            ..t.clone()
        };
        let sql = fixture_rows_sql(
            Dialect::DuckDb,
            &[(0, &empty), (7, &two), (9, &t)],
            "t",
            Some("o"),
        )
        .expect("sql");
        assert!(
            sql.contains(
                "(VALUES (7, 1, NULL, '1970-01-01', NULL, 0), (7, 2, NULL, '1970-01-01', NULL, 1), \
                 (9, -7, NULL, '1970-01-01', CAST([CAST('a''b' AS VARCHAR)] AS VARCHAR[]), 0))"
            ),
            "{sql}"
        );
    }
}
