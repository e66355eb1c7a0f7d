//! How `strata test` reports its fixture tests: a line per test, a row
//! diff per failed comparison (text), or one JSON object.

use strata_lang::ir;
use strata_lang::types::Type;
use strata_lang::Checked;
use strata_lifecycle::fixtures::{label, FixtureRun, Outcome, Row, RowDiff};
use strata_plugin::{outln, Host};

/// A cell as the test would write it: strings, dates, timestamps, uuids and
/// JSON quoted; numbers and booleans bare; `null`.
pub fn cell_text(cell: &Option<String>, ty: &Type) -> String {
    match (cell, ty) {
        (None, _) => "null".to_string(),
        (
            Some(s),
            Type::String
            | Type::Date
            | Type::Timestamp
            | Type::TimestampTz
            | Type::Uuid
            | Type::Json
            | Type::Unknown,
        ) => strata_lang::fmt::quote_string(s),
        (Some(s), _) => s.clone(),
    }
}

/// The human report: a line per test, the diff under a failed one, then a
/// summary line. The failures' diagnostics are printed by [`print_failures`].
pub fn print_run(run: &FixtureRun, module: &ir::Module) {
    if run.results.is_empty() {
        return;
    }
    outln!(
        "fixture tests: {} on an in-memory DuckDB (no warehouse is read)",
        run.results.len()
    );
    let width = run
        .results
        .iter()
        .map(|r| label(&module.tests[r.test]).chars().count())
        .max()
        .unwrap_or(0);
    for r in &run.results {
        let name = label(&module.tests[r.test]);
        let pad = " ".repeat(width - name.chars().count());
        let rows = r
            .rows
            .map(|n| format!("  ({n} row{})", if n == 1 { "" } else { "s" }))
            .unwrap_or_default();
        match &r.outcome {
            Outcome::Passed => outln!("  ok    {name}{pad}{rows}"),
            Outcome::Check(d) => outln!("  FAIL  {name}{pad}{rows}: {}", d.message),
            Outcome::Rows(diff, _) => {
                outln!("  FAIL  {name}{pad}{rows}: {}", diff.summary());
                for line in diff_lines(diff) {
                    outln!("        {line}");
                }
            }
        }
    }
    let failed = run.failed();
    outln!(
        "fixture tests: {} passed, {failed} failed ({:.2} s)",
        run.results.len() - failed,
        run.elapsed.as_secs_f64()
    );
}

/// The diagnostic of every failed fixture test (stderr).
pub fn print_failures(run: &FixtureRun, checked: &Checked, host: &dyn Host) {
    let diags: Vec<strata_lang::Diagnostic> = run
        .results
        .iter()
        .filter_map(|r| match &r.outcome {
            Outcome::Passed => None,
            Outcome::Check(d) | Outcome::Rows(_, d) => Some((**d).clone()),
        })
        .collect();
    if !diags.is_empty() {
        host.print_diagnostics(&checked.sources, &diags);
    }
}

/// A row diff as aligned text lines: the column names, then `-` for an
/// expected row the output lacks, `+` for an output row nothing expected,
/// a `-`/`+` pair for a changed row.
pub fn diff_lines(diff: &RowDiff) -> Vec<String> {
    let types: Vec<&Type> = diff.columns.iter().map(|(_, t)| t).collect();
    let texts = |row: &Row| -> Vec<String> {
        row.iter()
            .zip(&types)
            .map(|(c, t)| cell_text(c, t))
            .collect()
    };
    // (marker, cells, note)
    let mut lines: Vec<(&str, Vec<String>, String)> = Vec::new();
    for (e, a) in &diff.changed {
        let differ: Vec<&str> = e
            .iter()
            .zip(a)
            .zip(&diff.columns)
            .filter(|((x, y), _)| x != y)
            .map(|(_, (n, _))| n.as_str())
            .collect();
        lines.push(("-", texts(e), format!("changed: {}", differ.join(", "))));
        lines.push(("+", texts(a), String::new()));
    }
    for m in &diff.missing {
        lines.push(("-", texts(m), "missing".into()));
    }
    for u in &diff.unexpected {
        lines.push(("+", texts(u), "unexpected".into()));
    }
    if let Some((at, e, a)) = &diff.order {
        lines.push(("-", texts(e), format!("expected at row {}", at + 1)));
        lines.push(("+", texts(a), format!("the model's row {}", at + 1)));
    }
    let mut widths: Vec<usize> = diff
        .columns
        .iter()
        .map(|(n, _)| n.chars().count())
        .collect();
    for (_, cells, _) in &lines {
        for (w, c) in widths.iter_mut().zip(cells) {
            *w = (*w).max(c.chars().count());
        }
    }
    let join = |marker: &str, cells: &[String], note: &str| {
        let mut s = format!("{marker} ");
        for (k, (c, w)) in cells.iter().zip(&widths).enumerate() {
            s.push_str(c);
            if k + 1 < cells.len() || !note.is_empty() {
                s.push_str(&" ".repeat(w - c.chars().count() + 2));
            }
        }
        if !note.is_empty() {
            s.push_str(&format!("({note})"));
        }
        s.trim_end().to_string()
    };
    let header: Vec<String> = diff.columns.iter().map(|(n, _)| n.clone()).collect();
    let mut out = vec![join(" ", &header, "")];
    out.extend(lines.iter().map(|(m, c, n)| join(m, c, n)));
    out
}

/// A cell as JSON: a number for int64 and float64 (when it reads as one),
/// a boolean, null, else its text.
fn cell_json(cell: &Option<String>, ty: &Type) -> serde_json::Value {
    let Some(text) = cell else {
        return serde_json::Value::Null;
    };
    match ty {
        Type::Int64 => text
            .parse::<i64>()
            .map_or_else(|_| text.clone().into(), Into::into),
        Type::Float32 | Type::Float64 => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| text.clone().into(), serde_json::Value::Number),
        Type::Bool => match text.as_str() {
            "true" => true.into(),
            "false" => false.into(),
            _ => text.clone().into(),
        },
        _ => text.clone().into(),
    }
}

fn diff_json(diff: &RowDiff) -> serde_json::Value {
    let row = |r: &Row| -> serde_json::Value {
        r.iter()
            .zip(&diff.columns)
            .map(|(c, (_, t))| cell_json(c, t))
            .collect()
    };
    serde_json::json!({
        "columns": diff.columns.iter().map(|(n, t)| serde_json::json!({"name": n, "type": t.to_string()})).collect::<Vec<_>>(),
        "ordered": diff.ordered,
        "expected_rows": diff.expected_rows,
        "actual_rows": diff.actual_rows,
        "missing": diff.missing.iter().map(row).collect::<Vec<_>>(),
        "unexpected": diff.unexpected.iter().map(row).collect::<Vec<_>>(),
        "changed": diff.changed.iter().map(|(e, a)| serde_json::json!({"expected": row(e), "actual": row(a)})).collect::<Vec<_>>(),
        "order": diff.order.as_ref().map(|(at, e, a)| serde_json::json!({"row": at + 1, "expected": row(e), "actual": row(a)})),
    })
}

/// The fixture tests of a run as one JSON object.
pub fn run_json(run: &FixtureRun, checked: &Checked, host: &dyn Host) -> serde_json::Value {
    let tests: Vec<serde_json::Value> = run
        .results
        .iter()
        .map(|r| {
            let t = &checked.module.tests[r.test];
            let mut v = serde_json::json!({
                "model": t.model,
                "name": t.name,
                "label": label(t),
                "ok": r.passed(),
                "rows": r.rows,
                "report": r.report,
            });
            match &r.outcome {
                Outcome::Passed => {}
                Outcome::Check(d) => v["failure"] = host.json_diagnostic(&checked.sources, d),
                Outcome::Rows(diff, d) => {
                    v["failure"] = host.json_diagnostic(&checked.sources, d);
                    v["diff"] = diff_json(diff);
                }
            }
            v
        })
        .collect();
    let failed = run.failed();
    serde_json::json!({
        "passed": run.results.len() - failed,
        "failed": failed,
        "ms": (run.elapsed.as_secs_f64() * 1e6).round() / 1e3,
        "tests": tests,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diff_reads_as_rows_to_copy_into_the_test() {
        let diff = RowDiff {
            columns: vec![("id".into(), Type::Int64), ("country".into(), Type::String)],
            missing: vec![vec![Some("3".into()), None]],
            unexpected: vec![vec![Some("4".into()), Some("PT".into())]],
            changed: vec![(
                vec![Some("2".into()), Some("unknown".into())],
                vec![Some("2".into()), Some("E\"S".into())],
            )],
            ..RowDiff::default()
        };
        assert_eq!(
            diff_lines(&diff),
            [
                "  id  country",
                "- 2   \"unknown\"  (changed: country)",
                "+ 2   \"E\\\"S\"",
                "- 3   null       (missing)",
                "+ 4   \"PT\"       (unexpected)",
            ]
        );
    }
}
