//! The runtime checks: contract pins on a model's output and declarative
//! tests (join cardinality is in `cardinality/`).

use strata_codes as codes;
use strata_lang::ast::{CompareOp, Severity, TestCheckKind, TestLitKind};
use strata_lang::ir::{self, Column};
use strata_lang::{Diagnostic, Span};

use strata_engine::{DataFailure, Failure, SAMPLES};
use strata_lang::sql::Dialect;

use crate::registry::CheckContext;
use crate::session::Session;

pub(crate) fn fail(report: &[String], diagnostic: Diagnostic) -> Failure {
    Failure::Data(Box::new(DataFailure {
        report: report.to_vec(),
        diagnostic,
    }))
}

/// A `unique` / `primary_key` pin that passed: `(column, kind)`.
pub type UniquePin = (String, &'static str);

impl CheckContext<'_> {
    /// Contract pins of one model, on its materialized table: column presence
    /// and physical type, then nonnull / enum / unique / primary_key counts in
    /// one query. Report lines are appended to `report`. Returns the unique /
    /// primary_key pins that passed: proofs a later cardinality check in the
    /// run may reuse.
    pub(crate) fn pins(&mut self, contract: &ir::Contract) -> Result<Vec<UniquePin>, Failure> {
        let (wh, model, table) = (self.wh, self.model, self.table);
        let report = &mut *self.report;
        let span = model.name_span;
        let ident = |name: &str| wh.ident(name);
        let physical = wh.columns(&ident(table))?;
        let physical_type = |name: &str| {
            physical
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, ty)| ty.clone())
        };
        // Presence and type first: the counting query needs the columns.
        for col in &contract.columns {
            let field = format!("{}.{}", model.name, col.name);
            match physical_type(&col.name) {
                None => {
                    return Err(fail(
                        report,
                        pin_error(
                            span,
                            format!(
                            "pin FAILED [{field}] column is missing from the materialized output"
                        ),
                            None,
                        ),
                    ))
                }
                Some(p) if !wh.compatible(&col.ty, &p) => {
                    return Err(fail(
                        report,
                        pin_error(
                            span,
                            format!(
                                "pin FAILED [{field}] physical type {p} is not compatible with {}",
                                col.ty
                            ),
                            None,
                        ),
                    ))
                }
                Some(p) => report.push(format!("  ok  {field}: type {} ({p})", col.ty)),
            }
        }
        // One query for every count.
        let mut items = vec!["COUNT(*)".to_string()];
        let mut what: Vec<(&Column, &'static str, String)> = Vec::new();
        for col in &contract.columns {
            let c = ident(&col.name);
            if !col.nullable {
                items.push(format!("COUNT(*) FILTER (WHERE {c} IS NULL)"));
                what.push((col, "nonnull", format!("{c} IS NULL")));
            }
            if let Some(values) = &col.enum_values {
                let list: Vec<String> = values.iter().map(|v| wh.string(v)).collect();
                let cond = format!(
                    "{c} IS NOT NULL AND {} NOT IN ({})",
                    wh.text(&c),
                    list.join(", ")
                );
                items.push(format!("COUNT(*) FILTER (WHERE {cond})"));
                what.push((col, "enum", cond));
            }
            if col.unique {
                items.push(format!("COUNT({c}) - COUNT(DISTINCT {c})"));
                what.push((
                    col,
                    if col.primary_key {
                        "primary_key"
                    } else {
                        "unique"
                    },
                    c.clone(),
                ));
            }
        }
        let row = wh
            .rows(&format!(
                "SELECT {} FROM {}",
                items.join(", "),
                ident(table)
            ))?
            .into_iter()
            .next()
            .unwrap_or_default();
        let total: i64 = row
            .first()
            .cloned()
            .flatten()
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        let mut unique = Vec::new();
        for (i, (col, kind, cond)) in what.iter().enumerate() {
            let bad: i64 = row
                .get(i + 1)
                .cloned()
                .flatten()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
            let field = format!("{}.{}", model.name, col.name);
            if bad == 0 {
                report.push(format!("  ok  {field}: {kind}"));
                if matches!(*kind, "unique" | "primary_key") {
                    unique.push((col.name.to_string(), *kind));
                }
                continue;
            }
            let c = ident(&col.name);
            let (text, samples_sql) = match *kind {
                "nonnull" => (
                    format!("pin FAILED [{field}] nonnull: {bad} of {total} rows are NULL"),
                    None,
                ),
                "enum" => (
                    format!(
                        "pin FAILED [{field}] enum: {bad} of {total} rows have a value outside {{{}}}",
                        col.enum_values.as_deref().map_or(String::new(), |v| v.join(", "))
                    ),
                    Some(format!(
                        "SELECT {}, COUNT(*) AS n FROM {} WHERE {cond} GROUP BY 1 ORDER BY n DESC, 1 LIMIT {SAMPLES}",
                        wh.text(&c),
                        ident(table)
                    )),
                ),
                _ => (
                    format!("pin FAILED [{field}] {kind}: {bad} duplicated rows (NULLs are not duplicates)"),
                    Some(format!(
                        "SELECT {}, COUNT(*) AS n FROM {} WHERE {c} IS NOT NULL GROUP BY {c} HAVING COUNT(*) > 1 ORDER BY n DESC, 1 LIMIT {SAMPLES}",
                        wh.text(&c),
                        ident(table)
                    )),
                ),
            };
            let samples = match samples_sql {
                Some(sql) => Some(samples_text(&wh.rows(&sql)?)),
                None => None,
            };
            return Err(fail(report, pin_error(span, text, samples)));
        }
        Ok(unique)
    }
}

/// `e.g. a (3 rows), b (2 rows)` from `(value, count)` rows.
fn samples_text(rows: &[Vec<Option<String>>]) -> String {
    let parts: Vec<String> = rows
        .iter()
        .map(|r| {
            format!(
                "{} ({} rows)",
                r.first()
                    .cloned()
                    .flatten()
                    .unwrap_or_else(|| "NULL".into()),
                r.get(1).cloned().flatten().unwrap_or_default()
            )
        })
        .collect();
    format!("e.g. {}", parts.join(", "))
}

fn pin_error(span: Span, text: String, samples: Option<String>) -> Diagnostic {
    let mut d = Diagnostic::new(&codes::PinError, span, text)
        .with_label("checked here")
        .with_note("nothing was published: the live data is unchanged");
    if let Some(s) = samples {
        d = d.with_note(s);
    }
    d
}

impl Session<'_> {
    /// Run the declarative tests of one model against `relation`; `resolve`
    /// gives the relation of a referenced model (`expect c in m.c`). `name`
    /// names the test in reports (its model, or a fixture test's label).
    pub fn declarative(
        &self,
        test: &ir::Test,
        name: &str,
        relation: &str,
        resolve: &dyn Fn(&str) -> Option<String>,
        report: &mut Vec<String>,
    ) -> Result<(), Failure> {
        let wh = self.wh();
        // `expect rows` is the fixture runner's: nothing else, no query.
        if test
            .checks
            .iter()
            .all(|c| matches!(c.kind, TestCheckKind::Rows { .. }))
        {
            return Ok(());
        }
        let ident = |name: &str| wh.ident(name);
        let total = wh.count(&format!("SELECT COUNT(*) FROM {relation}"))?;
        for check in &test.checks {
            let target = &check.target.name;
            let (label, violations, sample_sql) = match &check.kind {
                TestCheckKind::Compare { op, value } if target == "row_count" => {
                    let n = match value.kind {
                        TestLitKind::Int(n) => n,
                        _ => 0,
                    };
                    let ok = compare_i64(total, *op, n);
                    let label = format!("row_count {} {n}", op.symbol());
                    if ok {
                        report.push(format!("  ok  test {name}: {label} ({total})"));
                        continue;
                    }
                    let what = format!("expect {label}: the model has {total} rows");
                    failed(report, test, name, check.span, &what, None)?;
                    continue;
                }
                TestCheckKind::Compare { op, value } => {
                    let c = ident(target);
                    let cond = format!(
                        "NOT ({c} {} {})",
                        sql_op(*op),
                        literal(wh.dialect(), &value.kind)
                    );
                    let label = format!(
                        "{target} {} {}",
                        op.symbol(),
                        lit_text(wh.dialect(), &value.kind)
                    );
                    let count =
                        wh.count(&format!("SELECT COUNT(*) FROM {relation} WHERE {cond}"))?;
                    let samples = format!(
                        "SELECT {}, COUNT(*) AS n FROM {relation} WHERE {cond} GROUP BY 1 ORDER BY n DESC, 1 LIMIT {SAMPLES}",
                        wh.text(&c)
                    );
                    (label, count, samples)
                }
                // Compared by the fixture runner (`crate::fixtures`).
                TestCheckKind::Rows { .. } => continue,
                TestCheckKind::In { model, column } => {
                    let Some(other) = resolve(&model.name) else {
                        return Err(Failure::Environment(format!(
                            "test on {}: model {} is not materialized",
                            name, model.name
                        )));
                    };
                    let c = ident(target);
                    let cond = format!(
                        "{c} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {other} AS r WHERE r.{} = t.{c})",
                        ident(&column.name)
                    );
                    let label = format!("{target} in {}.{}", model.name, column.name);
                    let count = wh.count(&format!(
                        "SELECT COUNT(*) FROM {relation} AS t WHERE {cond}"
                    ))?;
                    let samples = format!(
                        "SELECT {}, COUNT(*) AS n FROM {relation} AS t WHERE {cond} GROUP BY 1 ORDER BY n DESC, 1 LIMIT {SAMPLES}",
                        wh.text(&format!("t.{c}"))
                    );
                    (label, count, samples)
                }
            };
            if violations == 0 {
                report.push(format!("  ok  test {name}: {label} ({total} rows)"));
                continue;
            }
            let samples = samples_text(&wh.rows(&sample_sql)?);
            let what = format!("expect {label}: {violations} of {total} rows violate it");
            failed(report, test, name, check.span, &what, Some(samples))?;
        }
        Ok(())
    }
}

/// A declarative check that failed: the run's PinError (nothing is
/// published), or for a `severity: warn` test a `WARN` report line, and
/// the run goes on.
fn failed(
    report: &mut Vec<String>,
    test: &ir::Test,
    name: &str,
    span: Span,
    what: &str,
    samples: Option<String>,
) -> Result<(), Failure> {
    match test.severity {
        Severity::Warn => {
            let samples = samples.map(|s| format!("; {s}")).unwrap_or_default();
            report.push(format!(
                "  WARN test {name}: {what}{samples} (severity: warn, not blocking)"
            ));
            Ok(())
        }
        Severity::Error => {
            let mut d = Diagnostic::new(
                &codes::PinError,
                span,
                format!("test FAILED [{name}] {what}"),
            )
            .with_label("this expectation");
            if let Some(s) = samples {
                d = d.with_note(s);
            }
            Err(fail(report, d))
        }
    }
}

fn compare_i64(a: i64, op: CompareOp, b: i64) -> bool {
    match op {
        CompareOp::Eq => a == b,
        CompareOp::Ne => a != b,
        CompareOp::Lt => a < b,
        CompareOp::Le => a <= b,
        CompareOp::Gt => a > b,
        CompareOp::Ge => a >= b,
    }
}

fn sql_op(op: CompareOp) -> &'static str {
    match op {
        CompareOp::Eq => "=",
        CompareOp::Ne => "<>",
        other => other.symbol(),
    }
}

fn literal(dialect: Dialect, l: &TestLitKind) -> String {
    match l {
        TestLitKind::Int(n) => n.to_string(),
        TestLitKind::Float(_, text) => text.replace('_', ""),
        TestLitKind::Str(s) => dialect.string(s),
        TestLitKind::Bool(b) => b.to_string().to_uppercase(),
        TestLitKind::Null => "NULL".into(),
    }
}

fn lit_text(dialect: Dialect, l: &TestLitKind) -> String {
    match l {
        TestLitKind::Str(s) => format!("{s:?}"),
        other => literal(dialect, other),
    }
}
