//! The one diagnostic type every part of strata reports with.

use strata_codes::Code;

use crate::span::Span;

pub use strata_codes::Severity;

/// A secondary location with a message.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// A problem found in a module: a code (`E040`, `ParseError`, `W001`, ...),
/// a message, the primary span it is about, optional labels and a help line.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// Short text shown under the primary span (defaults to nothing).
    pub label: Option<String>,
    pub labels: Vec<Label>,
    pub help: Option<String>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    /// A diagnostic of a declared code, with the code's severity.
    pub fn new(code: &'static Code, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::make(code.code(), code.severity(), span, message.into())
    }

    /// A diagnostic of a code that strata does not declare: an external
    /// rule's `<rule>:<code>`, with the severity the rule gives it.
    pub fn external(
        code: &'static str,
        severity: Severity,
        span: Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::make(code, severity, span, message.into())
    }

    fn make(code: &'static str, severity: Severity, span: Span, message: String) -> Diagnostic {
        Diagnostic {
            code,
            severity,
            message,
            span,
            label: None,
            labels: Vec::new(),
            help: None,
            notes: Vec::new(),
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }

    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Sort diagnostics into source order (file, then position), keeping the
/// relative order of diagnostics at the same position.
pub fn sort_diagnostics(diags: &mut [Diagnostic]) {
    diags.sort_by_key(|d| (d.span.file, d.span.start, d.span.end));
}
