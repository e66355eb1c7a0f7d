//! Rendering diagnostics: ariadne reports for people, JSON for machines.

use std::io::IsTerminal;
use std::ops::Range;

use ariadne::{Color, Config, IndexType, Label, Report, ReportKind};
use serde::Serialize;
use strata_lang::{Diagnostic, FileId, Severity, SourceMap, Span};

pub use strata_plugin::{html_escape, print_json, print_text, Format};

/// Whether stderr output may be coloured: only on a terminal, never with
/// `NO_COLOR` set.
pub fn stderr_color() -> bool {
    std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()) && std::io::stderr().is_terminal()
}

fn display_path(sources: &SourceMap, file: FileId) -> String {
    sources.get(file).path.display().to_string()
}

/// The ariadne report of one diagnostic.
fn report<'a>(
    sources: &SourceMap,
    d: &'a Diagnostic,
    color: bool,
) -> Report<'a, (String, Range<usize>)> {
    let range = |span: Span| {
        let len = sources.get(span.file).text.len();
        let s = (span.start as usize).min(len);
        let e = (span.end as usize).clamp(s, len);
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
    let path = display_path(sources, d.span.file);
    let primary = range(d.span);
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
        Label::new((path, primary))
            .with_message(label_text)
            .with_color(main_color),
    );
    for l in &d.labels {
        report = report.with_label(
            Label::new((display_path(sources, l.span.file), range(l.span)))
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
    report.finish()
}

/// Render diagnostics as ariadne reports into `out`, in order. The files'
/// line tables are built once for all of them (a module with thousands of
/// lint warnings renders in linear time).
pub fn write_diagnostics(
    sources: &SourceMap,
    diags: &[Diagnostic],
    color: bool,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    // ariadne indexes the lines of every file it is given: give it only the
    // files the diagnostics point into (none for a clean module).
    let shown = |id: FileId| {
        diags
            .iter()
            .any(|d| d.span.file == id || d.labels.iter().any(|l| l.span.file == id))
    };
    let mut cache = ariadne::sources(
        sources
            .files()
            .filter(|&(id, _)| shown(id))
            .map(|(_, f)| (f.path.display().to_string(), f.text.as_str())),
    );
    for d in diags {
        report(sources, d, color).write(&mut cache, &mut *out)?;
    }
    Ok(())
}

/// Print diagnostics to stderr, in order.
pub fn print_diagnostics(sources: &SourceMap, diags: &[Diagnostic]) {
    let color = stderr_color();
    let stderr = std::io::stderr();
    let mut lock = stderr.lock();
    // A failed write to stderr leaves nothing better to do.
    let _ = write_diagnostics(sources, diags, color, &mut lock);
}

/// Where a span is: the file as shown, and 1-based lines and columns
/// (columns in characters; the end is the position after the span).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Position {
    pub file: String,
    pub line: usize,
    pub column: usize,
    pub end_line: usize,
    pub end_column: usize,
}

pub fn position(sources: &SourceMap, span: Span) -> Position {
    let file = sources.get(span.file);
    let (line, column) = file.line_col(span.start as usize);
    let (end_line, end_column) = file.line_col(span.end as usize);
    Position {
        file: file.path.display().to_string(),
        line,
        column,
        end_line,
        end_column,
    }
}

/// A diagnostic in the `--format json` output.
#[derive(Debug, Serialize)]
pub struct JsonDiagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    #[serde(flatten)]
    pub at: Position,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub help: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Secondary locations: `{file, line, column, end_line, end_column, message}`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<JsonLabel>,
}

/// A secondary location of a diagnostic in the `--format json` output.
#[derive(Debug, Serialize)]
pub struct JsonLabel {
    #[serde(flatten)]
    pub at: Position,
    pub message: String,
}

pub fn json_diagnostic(sources: &SourceMap, d: &Diagnostic) -> JsonDiagnostic {
    JsonDiagnostic {
        code: d.code,
        severity: d.severity,
        message: d.message.clone(),
        at: position(sources, d.span),
        help: d.help.clone(),
        notes: d.notes.clone(),
        labels: d
            .labels
            .iter()
            .map(|l| JsonLabel {
                at: position(sources, l.span),
                message: l.message.clone(),
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
