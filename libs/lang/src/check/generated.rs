//! The inputs of a model that reads nothing: `rows` (literal rows, each
//! value typed by the column written) and `series` (the values between two
//! constant bounds). What the clauses must be, apart from the scope they
//! fill (`model.rs`).

use strata_codes as codes;

use crate::ast::{ExprKind, RowsClause, SeriesClause};
use crate::catalog::DATE_ADD_UNITS;
use crate::diag::Diagnostic;
use crate::ir::FixtureTable;
use crate::span::Span;
use crate::types::Type;

use super::fixture_value::check_value;
use super::{resolve_fields, Env};

/// The typed rows of a `rows` clause written at `span`; `None` when a
/// column type did not resolve. A repeated column is E025, a row of another
/// width E114, a value that does not fit its column E113 (the checks of
/// fixture rows: the rows that fail are left out).
pub(super) fn rows_table(
    r: &RowsClause,
    model: &str,
    span: Span,
    env: &Env,
    diags: &mut Vec<Diagnostic>,
) -> Option<FixtureTable> {
    let columns = resolve_fields(&r.columns, env, diags)?;
    for (k, c) in r.columns.iter().enumerate() {
        if let Some(first) = r.columns[..k].iter().find(|f| f.name.name == c.name.name) {
            diags.push(
                Diagnostic::new(
                    &codes::E025,
                    c.name.span,
                    format!("column '{}' is declared more than once", c.name.name),
                )
                .with_secondary(first.name.span, "first declared here")
                .with_help("name each column of 'rows' once"),
            );
        }
    }
    let what = format!("the rows of model {model}");
    let mut rows = Vec::with_capacity(r.rows.len());
    let mut row_spans = Vec::with_capacity(r.rows.len());
    for row in &r.rows {
        if row.values.len() != columns.len() {
            let (n, w) = (row.values.len(), columns.len());
            let names: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
            diags.push(
                Diagnostic::new(
                    &codes::E114,
                    row.span,
                    format!(
                        "this row has {n} value{} but 'rows' has {w} column{} ({})",
                        if n == 1 { "" } else { "s" },
                        if w == 1 { "" } else { "s" },
                        names.join(", ")
                    ),
                )
                .with_help("give one value per column, in order: `null` for none"),
            );
            continue;
        }
        let mut ok = true;
        for (v, c) in row.values.iter().zip(&columns) {
            ok &= check_value(v, c, &c.ty, &what, diags);
        }
        if ok {
            rows.push(row.values.clone());
            row_spans.push(row.span);
        }
    }
    Some(FixtureTable {
        name: "rows".into(),
        span,
        given: (0..columns.len()).collect(),
        columns,
        rows,
        row_spans,
    })
}

/// E120 for each column a series bound reads: a bound is a constant.
/// Whether the bounds read none.
pub(super) fn series_bounds_constant(s: &SeriesClause, diags: &mut Vec<Diagnostic>) -> bool {
    let mut ok = true;
    for bound in [&s.start, &s.end] {
        bound.walk(&mut |e| {
            if let ExprKind::Column { name, .. } = &e.kind {
                ok = false;
                diags.push(
                    Diagnostic::new(
                        &codes::E120,
                        e.span,
                        format!(
                            "a series bound is a constant: it cannot read column '{}'",
                            name.name
                        ),
                    )
                    .with_help(
                        "write a literal, a cast of one or a function of constants such as current_date()",
                    ),
                );
            }
        });
    }
    ok
}

/// The type of the series' values and its unit (`None` for int64), from
/// the bounds' types; E120 when the bounds differ or are not int64, date or
/// timestamp, or the step is not a whole number above zero (with a unit
/// only for dates and timestamps); E071 for an unknown unit.
pub(super) fn series_type(
    s: &SeriesClause,
    start: &Type,
    end: &Type,
    diags: &mut Vec<Diagnostic>,
) -> Option<(Type, Option<&'static str>)> {
    let ty = match (start, end) {
        (Type::Unknown, _) | (_, Type::Unknown) => return None,
        (a, b) if a != b => {
            diags.push(
                Diagnostic::new(
                    &codes::E120,
                    s.start.span.to(s.end.span),
                    format!(
                        "the bounds of series '{}' are {a} and {b}: they must have one type",
                        s.name.name
                    ),
                )
                .with_help(
                    "cast one bound to the other's type, e.g. cast(\"2024-12-31\", \"date\")",
                ),
            );
            return None;
        }
        (t @ (Type::Int64 | Type::Date | Type::Timestamp), _) => t.clone(),
        (t, _) => {
            diags.push(
                Diagnostic::new(
                    &codes::E120,
                    s.start.span.to(s.end.span),
                    format!(
                        "series '{}' counts int64, date or timestamp values, not {t}",
                        s.name.name
                    ),
                )
                .with_help("bound it with two integers, two dates or two timestamps"),
            );
            return None;
        }
    };
    let Some(step) = &s.step else {
        return Some((ty.clone(), (ty != Type::Int64).then_some("days")));
    };
    if step.count < 1 {
        diags.push(
            Diagnostic::new(
                &codes::E120,
                step.span,
                format!(
                    "the step of series '{}' is {}: it must be at least 1",
                    s.name.name, step.count
                ),
            )
            .with_help("series count upwards: write the lower bound first and a step of 1 or more"),
        );
        return None;
    }
    match (&step.unit, &ty) {
        (None, Type::Int64) => Some((ty, None)),
        (None, _) => Some((ty, Some("days"))),
        (Some(u), Type::Int64) => {
            diags.push(
                Diagnostic::new(
                    &codes::E120,
                    u.span,
                    format!(
                        "series '{}' counts integers: its step takes no unit ('{}')",
                        s.name.name, u.name
                    ),
                )
                .with_help(format!("write `step {}`", step.count)),
            );
            None
        }
        (Some(u), _) => match DATE_ADD_UNITS.iter().find(|k| **k == u.name.as_str()) {
            Some(unit) => Some((ty, Some(*unit))),
            None => {
                diags.push(
                    Diagnostic::new(
                        &codes::E071,
                        u.span,
                        format!(
                            "unknown unit '{}' for the step of series '{}'",
                            u.name, s.name.name
                        ),
                    )
                    .with_help(format!("use one of {}", DATE_ADD_UNITS.join(", "))),
                );
                None
            }
        },
    }
}
