//! Declarative tests (`test model { expect .. }`) against their model's
//! output schema, and fixture tests (`given` rows) against the columns of
//! what the model reads: every value typed by the column it fills.

use strata_codes as codes;

use crate::ast::{self, FixtureRow, FixtureValue, FixtureValueKind, TestCheckKind};
use crate::diag::Diagnostic;
use crate::ir::{self, Column, InputKind};
use crate::span::Span;
use crate::types::Type;
use crate::Name;

use super::Env;

/// Validate a test against its model: its checks, and for a fixture test
/// its `given` rows and `expect rows`.
pub(super) fn check_test(
    t: &ast::TestDecl,
    env: &Env,
    models: &[ir::Model],
    diags: &mut Vec<Diagnostic>,
) -> ir::Test {
    let find = |name: &str| models.iter().find(|m| m.name == name);
    let mut out = ir::Test {
        model: t.model.name.to_string(),
        name: t.name.as_ref().map(|(n, _)| n.clone()),
        span: t.span,
        name_span: t.name.as_ref().map_or(t.model.span, |(_, s)| *s),
        checks: t.checks.clone(),
        fixture: None,
        is_fixture: t.is_fixture(),
    };
    let Some(model) = find(&t.model.name) else {
        let mut d = Diagnostic::new(
            &codes::E091,
            t.model.span,
            format!("test names unknown model '{}'", t.model.name),
        );
        if let Some(s) = crate::suggest::closest(&t.model.name, env.models.keys().map(Name::as_str))
        {
            d = d.with_help(format!("did you mean `{s}`?"));
        }
        diags.push(d);
        return out;
    };
    if !model.ok {
        return out;
    }
    let errors_before = diags.len();
    let mut rows_check: Option<&ast::TestCheck> = None;
    for c in &t.checks {
        match &c.kind {
            TestCheckKind::Rows { .. } if !t.is_fixture() => diags.push(
                Diagnostic::new(
                    &codes::E115,
                    c.span,
                    format!(
                        "`expect rows` compares what '{}' outputs from `given` rows, and this test gives none",
                        model.name
                    ),
                )
                .with_help(format!(
                    "give the rows of each input the model reads (`given {}(..) {{ .. }}`), or check the materialized data with `expect row_count == N` / `expect column == value`",
                    first_input(model).unwrap_or("input")
                )),
            ),
            TestCheckKind::Rows { .. } => match rows_check {
                Some(first) => diags.push(
                    Diagnostic::new(
                        &codes::E025,
                        c.target.span,
                        "`expect rows` is given more than once in this test",
                    )
                    .with_secondary(first.target.span, "first given here")
                    .with_help("keep one `expect rows` (a test compares one set of output rows); split the cases into two tests"),
                ),
                None => rows_check = Some(c),
            },
            TestCheckKind::In { model: rm, .. } if t.is_fixture() => diags.push(
                Diagnostic::new(
                    &codes::E115,
                    c.span,
                    format!(
                        "`expect {} in {}.{}` reads another model's materialized data, and a fixture test runs on its `given` rows alone",
                        c.target.name,
                        rm.name,
                        match &c.kind {
                            TestCheckKind::In { column, .. } => column.name.as_str(),
                            _ => "",
                        }
                    ),
                )
                .with_help("move this check to a test without `given` (it runs on the warehouse's data), or spell out the output rows with `expect rows`"),
            ),
            _ => check_expect(c, model, &find, env, diags),
        }
    }
    if !t.is_fixture() {
        return out;
    }
    let inputs = given_inputs(t, model, env, models, diags);
    let expected = rows_check.and_then(|c| expected_rows(c, model, diags));
    if diags.len() == errors_before {
        if let Some(inputs) = inputs {
            out.fixture = Some(ir::Fixture {
                inputs,
                expected,
                ordered: model
                    .steps
                    .iter()
                    .any(|s| matches!(s, ir::Step::Sort(keys) if !keys.is_empty())),
            });
        }
    }
    out
}

/// The first input a model reads, for examples in messages.
fn first_input(model: &ir::Model) -> Option<&str> {
    model.inputs.first().map(|i| i.name.as_str())
}

/// One `expect` on a column or `row_count`, or `expect col in model.col`.
fn check_expect<'m>(
    c: &ast::TestCheck,
    model: &ir::Model,
    find: &dyn Fn(&str) -> Option<&'m ir::Model>,
    env: &Env,
    diags: &mut Vec<Diagnostic>,
) {
    if c.target.name == "row_count" {
        if let TestCheckKind::Compare { value, .. } = &c.kind {
            if !matches!(value.kind, ast::TestLitKind::Int(_)) {
                diags.push(Diagnostic::new(
                    &codes::E094,
                    value.span,
                    "row_count compares with an integer literal",
                ));
            }
        }
        return;
    }
    let Some(col) = model
        .columns
        .iter()
        .rev()
        .find(|col| col.name == c.target.name)
    else {
        diags.push(unknown_output_column(model, &c.target));
        return;
    };
    match &c.kind {
        TestCheckKind::Compare { value, .. } => {
            let lit = match &value.kind {
                ast::TestLitKind::Int(_) => Type::Int64,
                ast::TestLitKind::Float(..) => Type::Float64,
                ast::TestLitKind::Str(_) => Type::String,
                ast::TestLitKind::Bool(_) => Type::Bool,
                ast::TestLitKind::Null => Type::Unknown,
            };
            if lit != col.ty {
                let mut d = Diagnostic::new(
                    &codes::E094,
                    value.span,
                    format!(
                        "test literal is {lit} but column '{}' is {}",
                        col.name, col.ty
                    ),
                );
                if lit.is_unknown() {
                    d = d.with_help("null cannot be compared in a test; declare the column nonnull in a contract to check for missing values");
                }
                diags.push(d);
            }
        }
        TestCheckKind::In { model: rm, column } => {
            let Some(r) = find(&rm.name) else {
                let mut d = Diagnostic::new(
                    &codes::E101,
                    rm.span,
                    format!("referential test names unknown model '{}'", rm.name),
                );
                if let Some(s) =
                    crate::suggest::closest(&rm.name, env.models.keys().map(Name::as_str))
                {
                    d = d.with_help(format!("did you mean `{s}`?"));
                }
                diags.push(d);
                return;
            };
            if r.ok && !r.columns.iter().any(|c| c.name == column.name) {
                diags.push(Diagnostic::new(
                    &codes::E102,
                    column.span,
                    format!(
                        "referential test names unknown column '{}.{}'",
                        rm.name, column.name
                    ),
                ));
            }
        }
        TestCheckKind::Rows { .. } => {}
    }
}

/// E092: a test names a column its model does not output.
fn unknown_output_column(model: &ir::Model, name: &ast::Ident) -> Diagnostic {
    let mut d = Diagnostic::new(
        &codes::E092,
        name.span,
        format!(
            "test on '{}' names unknown column '{}'",
            model.name, name.name
        ),
    );
    if let Some(s) =
        crate::suggest::closest(&name.name, model.columns.iter().map(|c| c.name.as_str()))
    {
        d = d.with_help(format!("did you mean `{s}`?"));
    }
    d
}

/// The typed tables of a fixture test's `given` clauses, one per input the
/// model reads; `None` when an input's columns are unknown (its own errors
/// are reported where it is declared).
fn given_inputs(
    t: &ast::TestDecl,
    model: &ir::Model,
    env: &Env,
    models: &[ir::Model],
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<ir::FixtureTable>> {
    // Each input name once, in the order the model first reads it.
    let mut reads: Vec<&ir::Input> = Vec::new();
    for i in &model.inputs {
        if !reads.iter().any(|r| r.name == i.name) {
            reads.push(i);
        }
    }
    let columns_of = |input: &ir::Input| -> Option<Vec<Column>> {
        match input.kind {
            InputKind::Source => env
                .source_columns(&input.name)
                .flatten()
                .map(|c| c.as_ref().clone()),
            InputKind::Model => models
                .iter()
                .find(|m| m.name == input.name)
                .filter(|m| m.schema_complete || m.ok)
                .map(|m| m.columns.clone()),
        }
    };
    let mut tables: Vec<Option<ir::FixtureTable>> = vec![None; reads.len()];
    let mut complete = true;
    let mut seen: Vec<&ast::Given> = Vec::new();
    let mut suggested: Vec<Name> = Vec::new();
    for g in &t.givens {
        if let Some(first) = seen.iter().find(|s| s.input.name == g.input.name) {
            diags.push(
                Diagnostic::new(
                    &codes::E025,
                    g.input.span,
                    format!(
                        "`given {}` is written more than once in this test",
                        g.input.name
                    ),
                )
                .with_secondary(first.input.span, "first given here")
                .with_help("give all of the input's rows in one `given` block"),
            );
            continue;
        }
        seen.push(g);
        let Some(at) = reads.iter().position(|r| r.name == g.input.name) else {
            let names: Vec<&str> = reads.iter().map(|r| r.name.as_str()).collect();
            let close = crate::suggest::closest(&g.input.name, names.iter().copied());
            let mut d = Diagnostic::new(
                &codes::E110,
                g.input.span,
                format!(
                    "the test gives rows for '{}', which model '{}' does not read",
                    g.input.name, model.name
                ),
            )
            .with_secondary(
                model.name_span,
                format!("'{}' reads {}", model.name, or_none(&names)),
            );
            if let Some(s) = close {
                // The input meant is not reported missing as well.
                suggested.push(Name::new(s));
                d = d.with_help(format!("did you mean `given {s}`?"));
            } else {
                d = d.with_help(
                    "a fixture gives the rows of the sources and models the tested model names in `from`, a join or a set operation; remove this block",
                );
            }
            diags.push(d);
            continue;
        };
        let Some(columns) = columns_of(reads[at]) else {
            complete = false;
            continue;
        };
        let kind = match reads[at].kind {
            InputKind::Source => "source",
            InputKind::Model => "model",
        };
        let what = format!("{kind} '{}'", g.input.name);
        let (given, rows, row_spans) = typed_rows(
            &columns,
            g.columns.as_deref().unwrap_or(&[]),
            &g.rows,
            &what,
            &|name| {
                let mut d = Diagnostic::new(
                    &codes::E112,
                    name.span,
                    format!("{what} has no column '{}'", name.name),
                );
                if let Some(s) =
                    crate::suggest::closest(&name.name, columns.iter().map(|c| c.name.as_str()))
                {
                    d = d.with_help(format!("did you mean `{s}`?"));
                } else {
                    let all: Vec<&str> = columns.iter().map(|c| c.name.as_str()).collect();
                    d = d.with_help(format!("its columns: {}", all.join(", ")));
                }
                d
            },
            diags,
        );
        tables[at] = Some(ir::FixtureTable {
            name: g.input.name.clone(),
            span: g.span,
            columns,
            given,
            rows,
            row_spans,
        });
    }
    let missing: Vec<&str> = reads
        .iter()
        .zip(&tables)
        .filter(|(r, t)| t.is_none() && !seen.iter().any(|g| g.input.name == r.name))
        .map(|(r, _)| r.name.as_str())
        .collect();
    let reported: Vec<&str> = missing
        .iter()
        .copied()
        .filter(|m| !suggested.iter().any(|s| s == m))
        .collect();
    if !missing.is_empty() && reported.is_empty() {
        return None;
    }
    let missing = reported;
    if !missing.is_empty() {
        let at = t.name.as_ref().map_or(t.model.span, |(_, s)| *s);
        let quoted: Vec<String> = missing.iter().map(|m| format!("'{m}'")).collect();
        diags.push(
            Diagnostic::new(
                &codes::E111,
                at,
                format!(
                    "the fixture test of '{}' gives no rows for {}, which the model reads",
                    model.name,
                    join_and(&quoted)
                ),
            )
            .with_secondary(model.name_span, "the model reads it")
            .with_help(format!(
                "give each input the model reads its rows; an empty input is written `given {} {{}}`",
                missing[0]
            )),
        );
        return None;
    }
    if !complete {
        return None;
    }
    tables.into_iter().collect()
}

/// The typed table of an `expect rows` check: the compared output columns
/// (those written, else all) and the rows.
fn expected_rows(
    c: &ast::TestCheck,
    model: &ir::Model,
    diags: &mut Vec<Diagnostic>,
) -> Option<ir::FixtureTable> {
    let TestCheckKind::Rows { columns, rows } = &c.kind else {
        return None;
    };
    let what = format!("model '{}'", model.name);
    let (given, rows, row_spans) = typed_rows(
        &model.columns,
        columns.as_deref().unwrap_or(&[]),
        rows,
        &what,
        &|name| unknown_output_column(model, name),
        diags,
    );
    // The compared columns, in the order written; every output column when
    // none is written (`expect rows {}`).
    let (columns, given) = if columns.is_some() {
        let cols: Vec<Column> = given.iter().map(|&i| model.columns[i].clone()).collect();
        let n = cols.len();
        (cols, (0..n).collect())
    } else {
        (model.columns.clone(), (0..model.columns.len()).collect())
    };
    Some(ir::FixtureTable {
        name: Name::new(&model.name),
        span: c.span,
        columns,
        given,
        rows,
        row_spans,
    })
}

/// The rows of a fixture block typed against `columns`: the index of each
/// column written (E112 through `unknown` for a name that is not one,
/// E025 for a repeated one), each row's values checked (E114 for a row of
/// another width, E113 for a value that does not fit its column).
type Typed = (Vec<usize>, Vec<Vec<FixtureValue>>, Vec<Span>);

fn typed_rows(
    columns: &[Column],
    header: &[ast::Ident],
    rows: &[FixtureRow],
    what: &str,
    unknown: &dyn Fn(&ast::Ident) -> Diagnostic,
    diags: &mut Vec<Diagnostic>,
) -> Typed {
    let mut given: Vec<Option<usize>> = Vec::with_capacity(header.len());
    for (k, name) in header.iter().enumerate() {
        if let Some(first) = header[..k].iter().find(|h| h.name == name.name) {
            diags.push(
                Diagnostic::new(
                    &codes::E025,
                    name.span,
                    format!("column '{}' is listed more than once", name.name),
                )
                .with_secondary(first.span, "first listed here")
                .with_help("list each column once"),
            );
            given.push(None);
            continue;
        }
        match columns.iter().position(|c| c.name == name.name) {
            Some(i) => given.push(Some(i)),
            None => {
                diags.push(unknown(name));
                given.push(None);
            }
        }
    }
    let mut out_rows = Vec::with_capacity(rows.len());
    let mut spans = Vec::with_capacity(rows.len());
    for row in rows {
        if row.values.len() != header.len() {
            let (n, w) = (row.values.len(), header.len());
            let mut d = Diagnostic::new(
                &codes::E114,
                row.span,
                format!(
                    "this row has {n} value{} but the column list has {w} ({})",
                    plural(n),
                    header
                        .iter()
                        .map(|h| h.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            d = if n < w {
                d.with_help(format!(
                    "give a value for every listed column, `null` for none (a column of {what} left out of the list is NULL, or its type's zero value when `nonnull`)"
                ))
            } else {
                d.with_help("remove the extra values, or add their columns to the list")
            };
            diags.push(d);
            continue;
        }
        let mut ok = true;
        for (value, col) in row.values.iter().zip(&given) {
            if let Some(i) = col {
                ok &= check_value(value, &columns[*i], &columns[*i].ty, what, diags);
            }
        }
        if ok {
            out_rows.push(row.values.clone());
            spans.push(row.span);
        }
    }
    (given.into_iter().flatten().collect(), out_rows, spans)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn or_none(names: &[&str]) -> String {
    if names.is_empty() {
        "no input".to_string()
    } else {
        names.join(", ")
    }
}

/// `a`, `a and b`, `a, b and c`.
fn join_and(items: &[String]) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// Whether `v` fits column `col` (whose type, or an array's element type
/// when `ty` is one, is `ty`); E113 when it does not.
fn check_value(
    v: &FixtureValue,
    col: &Column,
    ty: &Type,
    what: &str,
    diags: &mut Vec<Diagnostic>,
) -> bool {
    let top = *ty == col.ty;
    let problem: Option<(String, Option<String>)> = match (&v.kind, ty) {
        (FixtureValueKind::Null, _) if top && !col.nullable => Some((
            format!(
                "column '{}' of {what} is never null, and the test gives null",
                col.name
            ),
            Some(format!(
                "give a value of type {}; a row that leaves '{}' out of the column list gets its type's zero value",
                col.ty, col.name
            )),
        )),
        (FixtureValueKind::Null, _) => None,
        (_, Type::Unknown) => Some((
            format!("column '{}' of {what} has no known type: only null fits it", col.name),
            None,
        )),
        (FixtureValueKind::Int(_), Type::Int64 | Type::Float64) => None,
        (FixtureValueKind::Float(_), Type::Float64) => None,
        (FixtureValueKind::Float(text), Type::Int64) => Some((
            format!("{text} is not an integer, and column '{}' is int64", col.name),
            None,
        )),
        (FixtureValueKind::Int(_) | FixtureValueKind::Float(_), Type::Decimal(p, s)) => {
            decimal_fits(&number_text(v), *p, *s).map(|why| (format!("{why} in column '{}' ({ty})", col.name), None))
        }
        (FixtureValueKind::Int(_) | FixtureValueKind::Float(_), Type::Money(_)) => {
            decimal_fits(&number_text(v), 38, 2).map(|why| (format!("{why} in column '{}' ({ty}: two decimal places)", col.name), None))
        }
        (FixtureValueKind::Str(_), Type::String) => None,
        (FixtureValueKind::Str(s), Type::Date) => (!valid_date(s)).then(|| {
            (
                format!("\"{s}\" is not a date (column '{}')", col.name),
                Some("write a date as \"YYYY-MM-DD\", e.g. \"2024-01-31\"".to_string()),
            )
        }),
        (FixtureValueKind::Str(s), Type::Timestamp) => (!valid_timestamp(s)).then(|| {
            (
                format!("\"{s}\" is not a timestamp (column '{}')", col.name),
                Some("write a timestamp as \"YYYY-MM-DD HH:MM[:SS[.ffffff]]\" (a `T` may replace the space), without a time zone, e.g. \"2024-01-31 08:30:00\"".to_string()),
            )
        }),
        (FixtureValueKind::Str(s), Type::Uuid) => (!valid_uuid(s)).then(|| {
            (
                format!("\"{s}\" is not a uuid (column '{}')", col.name),
                Some("write a uuid as 32 hex digits in groups of 8-4-4-4-12, e.g. \"123e4567-e89b-12d3-a456-426614174000\"".to_string()),
            )
        }),
        (FixtureValueKind::Str(s), Type::Json) => serde_json::from_str::<serde_json::Value>(s)
            .err()
            .map(|e| {
                (
                    format!("the string is not JSON (column '{}' is json): {e}", col.name),
                    Some("write the JSON text as a string: \"{\\\"a\\\": 1}\"".to_string()),
                )
            }),
        (FixtureValueKind::Bool(_), Type::Bool) => None,
        (FixtureValueKind::List(items), Type::Array(elem)) => {
            let mut ok = true;
            for item in items {
                ok &= check_value(item, col, elem, what, diags);
            }
            return ok;
        }
        (kind, ty) => Some((
            format!(
                "{} does not fit column '{}' of {what}, which is {}",
                describe(kind),
                col.name,
                if top { col.ty.to_string() } else { format!("an array of {ty}") }
            ),
            hint(kind, ty),
        )),
    };
    match problem {
        None => true,
        Some((message, help)) => {
            let mut d = Diagnostic::new(&codes::E113, v.span, message);
            if let Some(h) = help {
                d = d.with_help(h);
            }
            diags.push(d);
            false
        }
    }
}

/// What a value is, in a message: `the string "x"`, `the integer 3`, ...
fn describe(kind: &FixtureValueKind) -> String {
    match kind {
        FixtureValueKind::Int(i) => format!("the integer {i}"),
        FixtureValueKind::Float(t) => format!("the number {t}"),
        FixtureValueKind::Str(s) => format!("the string \"{}\"", crate::lexer::shorten(s, 40)),
        FixtureValueKind::Bool(b) => format!("{b}"),
        FixtureValueKind::Null => "null".into(),
        FixtureValueKind::List(_) => "a list".into(),
    }
}

/// How to write a value of type `ty`, when the value given looks like one
/// written the wrong way.
fn hint(kind: &FixtureValueKind, ty: &Type) -> Option<String> {
    Some(match (kind, ty) {
        (
            FixtureValueKind::Str(s),
            Type::Int64 | Type::Float64 | Type::Decimal(..) | Type::Money(_),
        ) if s.trim().parse::<f64>().is_ok() => {
            format!("numbers are written without quotes: {}", s.trim())
        }
        (FixtureValueKind::Str(s), Type::Bool) if s == "true" || s == "false" => {
            format!("write {s} without quotes")
        }
        (FixtureValueKind::Int(i), Type::String) => format!("strings are quoted: \"{i}\""),
        (FixtureValueKind::Float(t), Type::String) => format!("strings are quoted: \"{t}\""),
        (_, Type::Date) => "write a date as a string: \"2024-01-31\"".into(),
        (_, Type::Timestamp) => "write a timestamp as a string: \"2024-01-31 08:30:00\"".into(),
        (_, Type::Array(_)) => "write an array as a list: [1, 2]".into(),
        _ => return None,
    })
}

/// A number value's text without `_` separators.
fn number_text(v: &FixtureValue) -> String {
    match &v.kind {
        FixtureValueKind::Int(i) => i.to_string(),
        FixtureValueKind::Float(t) => t.replace('_', ""),
        _ => String::new(),
    }
}

/// Why the number `text` does not fit `decimal(p, s)`, if it does not.
fn decimal_fits(text: &str, p: u32, s: u32) -> Option<String> {
    let digits = text.trim_start_matches('-');
    let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
    let int = int.trim_start_matches('0');
    let frac = frac.trim_end_matches('0');
    if frac.len() > s as usize {
        return Some(format!(
            "{text} has {} decimal places, more than {s}",
            frac.len()
        ));
    }
    if int.len() > p.saturating_sub(s) as usize {
        return Some(format!(
            "{text} has {} digits before the point, more than {}",
            int.len(),
            p.saturating_sub(s)
        ));
    }
    None
}

/// `YYYY-MM-DD`, a real day of the proleptic Gregorian calendar.
pub fn valid_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = s.get(r)?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())
            .flatten()
    };
    let (Some(y), Some(m), Some(d)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

/// `YYYY-MM-DD[( |T)HH:MM[:SS[.f{1,6}]]]` without a time zone.
pub fn valid_timestamp(s: &str) -> bool {
    if s.len() == 10 {
        return valid_date(s);
    }
    let (Some(date), Some(sep), Some(time)) = (s.get(..10), s.get(10..11), s.get(11..)) else {
        return false;
    };
    if !valid_date(date) || !(sep == " " || sep == "T") {
        return false;
    }
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    if time.contains('.')
        && (frac.is_empty() || frac.len() > 6 || !frac.bytes().all(|c| c.is_ascii_digit()))
    {
        return false;
    }
    let parts: Vec<&str> = hms.split(':').collect();
    if !(2..=3).contains(&parts.len()) || (parts.len() == 2 && !frac.is_empty()) {
        return false;
    }
    let limits = [23, 59, 59];
    parts.iter().zip(limits).all(|(p, max)| {
        p.len() == 2
            && p.bytes().all(|c| c.is_ascii_digit())
            && p.parse::<u32>().is_ok_and(|v| v <= max)
    })
}

/// 8-4-4-4-12 hex digits.
pub fn valid_uuid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|c| c.is_ascii_hexdigit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_timestamps_are_iso_and_real() {
        for ok in ["2024-01-31", "2024-02-29", "2000-02-29", "1970-01-01"] {
            assert!(valid_date(ok), "{ok}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2024-13-01",
            "2024-1-5",
            "24-01-01",
            "2024/01/01",
            "2024-01-00",
            "",
        ] {
            assert!(!valid_date(bad), "{bad}");
        }
        for ok in [
            "2024-01-31 08:30",
            "2024-01-31T08:30:00",
            "2024-01-31 23:59:59.123456",
            "2024-01-31",
        ] {
            assert!(valid_timestamp(ok), "{ok}");
        }
        for bad in [
            "2024-01-31 24:00",
            "2024-01-31 08:30:00+02",
            "2024-01-31 8:30",
            "2024-01-31 08:30.5",
            "2024-01-31 08:30:00.1234567",
            "2024-01-31x08:30",
        ] {
            assert!(!valid_timestamp(bad), "{bad}");
        }
    }

    #[test]
    fn decimals_fit_their_precision_and_scale() {
        assert_eq!(decimal_fits("12.50", 4, 1), None);
        assert_eq!(decimal_fits("-999.99", 5, 2), None);
        assert!(decimal_fits("1.255", 10, 2).is_some_and(|w| w.contains("3 decimal places")));
        assert!(decimal_fits("1000", 5, 2).is_some_and(|w| w.contains("4 digits before the point")));
        assert_eq!(decimal_fits("0.5", 1, 1), None);
    }

    #[test]
    fn uuids_are_grouped_hex() {
        assert!(valid_uuid("123e4567-e89b-12d3-a456-426614174000"));
        assert!(!valid_uuid("123e4567e89b12d3a456426614174000"));
        assert!(!valid_uuid("123e4567-e89b-12d3-a456-42661417400g"));
    }
}
