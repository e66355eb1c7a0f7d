//! Declarative tests (`test model { expect .. }`) against their model's
//! output schema, and fixture tests (`given` rows) against the columns of
//! what the model reads: every value typed by the column it fills.

use strata_codes as codes;

use crate::ast::{self, FixtureRow, FixtureValue, TestCheckKind};
use crate::diag::Diagnostic;
use crate::ir::{self, Column, InputKind};
use crate::span::Span;
use crate::types::Type;
use crate::Name;

use super::fixture_value::check_value;
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
        severity: t.severity.map(|(s, _)| s).unwrap_or_default(),
    };
    if let (true, Some((_, span))) = (t.is_fixture(), t.severity) {
        diags.push(
            Diagnostic::new(
                &codes::E115,
                span,
                "a fixture test has no severity: it checks the model's logic on its `given` rows, and a failure is always an error",
            )
            .with_help("remove `severity:`, or move the checks that may warn to a test without `given` (it runs on the warehouse's data)"),
        );
    }
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
