//! Rendering diagnostics: ariadne reports for people, JSON for machines.

use std::io::IsTerminal;

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind};
use serde::Serialize;
use strata_lang::{Diagnostic, Severity, SourceMap};

pub use strata_plugin::{print_json, print_text, Format};

/// Whether stderr output may be coloured: only on a terminal, never with
/// `NO_COLOR` set.
pub fn stderr_color() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal()
}

fn display_path(sources: &SourceMap, d: &Diagnostic) -> String {
    sources.get(d.span.file).path.display().to_string()
}

/// Render one diagnostic as an ariadne report into `out`.
pub fn write_diagnostic(
    sources: &SourceMap,
    d: &Diagnostic,
    color: bool,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let path = display_path(sources, d);
    let text = &sources.get(d.span.file).text;
    let clamp = |start: u32, end: u32| {
        let s = (start as usize).min(text.len());
        let e = (end as usize).clamp(s, text.len());
        s..e
    };
    let kind = match d.severity {
        Severity::Error => ReportKind::Error,
        Severity::Warning => ReportKind::Warning,
    };
    let main_color = match d.severity {
        Severity::Error => Color::Red,
        Severity::Warning => Color::Yellow,
    };
    let primary = clamp(d.span.start, d.span.end);
    let mut report = Report::build(kind, (path.clone(), primary.clone()))
        .with_config(
            Config::default()
                .with_color(color)
                .with_index_type(IndexType::Byte),
        )
        .with_code(d.code)
        .with_message(&d.message);
    // ariadne draws only labels with a message: default to the diagnostic's.
    let label_text = d.label.as_deref().unwrap_or(&d.message);
    report = report.with_label(
        Label::new((path.clone(), primary))
            .with_message(label_text)
            .with_color(main_color),
    );
    let mut files = vec![(path.clone(), text.clone())];
    for l in &d.labels {
        let lpath = sources.get(l.span.file).path.display().to_string();
        let ltext = &sources.get(l.span.file).text;
        let s = (l.span.start as usize).min(ltext.len());
        let e = (l.span.end as usize).clamp(s, ltext.len());
        if !files.iter().any(|(p, _)| *p == lpath) {
            files.push((lpath.clone(), ltext.clone()));
        }
        report = report.with_label(
            Label::new((lpath, s..e))
                .with_message(&l.message)
                .with_color(Color::Blue),
        );
    }
    for n in &d.notes {
        report = report.with_note(n);
    }
    if let Some(h) = &d.help {
        report = report.with_help(h);
    }
    report.finish().write(ariadne::sources(files), out)
}

/// Print diagnostics to stderr, in order.
pub fn print_diagnostics(sources: &SourceMap, diags: &[Diagnostic]) {
    let color = stderr_color();
    let stderr = std::io::stderr();
    let mut lock = stderr.lock();
    for d in diags {
        // A failed write to stderr leaves nothing better to do.
        let _ = write_diagnostic(sources, d, color, &mut lock);
    }
}

/// A diagnostic in the `--format json` output.
#[derive(Debug, Serialize)]
pub struct JsonDiagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Secondary locations: `{file, line, column, end_line, end_column, message}`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<serde_json::Value>,
}

pub fn json_diagnostic(sources: &SourceMap, d: &Diagnostic) -> JsonDiagnostic {
    let file = sources.get(d.span.file);
    let (line, column) = file.line_col(d.span.start as usize);
    let (end_line, end_column) = file.line_col(d.span.end as usize);
    JsonDiagnostic {
        code: d.code,
        severity: d.severity,
        message: d.message.clone(),
        file: file.path.display().to_string(),
        line,
        column,
        end_line,
        end_column,
        help: d.help.clone(),
        notes: d.notes.clone(),
        labels: d
            .labels
            .iter()
            .map(|l| {
                let f = sources.get(l.span.file);
                let (line, column) = f.line_col(l.span.start as usize);
                let (end_line, end_column) = f.line_col(l.span.end as usize);
                serde_json::json!({
                    "file": f.path.display().to_string(),
                    "line": line,
                    "column": column,
                    "end_line": end_line,
                    "end_column": end_column,
                    "message": l.message,
                })
            })
            .collect(),
    }
}

pub fn json_diagnostics(sources: &SourceMap, diags: &[Diagnostic]) -> Vec<JsonDiagnostic> {
    diags.iter().map(|d| json_diagnostic(sources, d)).collect()
}

/// One-line summary of a diagnostic count: `2 errors, 1 warning`.
pub fn count_summary(diags: &[Diagnostic]) -> String {
    let errors = diags.iter().filter(|d| d.is_error()).count();
    let warnings = diags.len() - errors;
    let plural = |n: usize, w: &str| {
        if n == 1 {
            format!("{n} {w}")
        } else {
            format!("{n} {w}s")
        }
    };
    match (errors, warnings) {
        (e, 0) => plural(e, "error"),
        (0, w) => plural(w, "warning"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    }
}
