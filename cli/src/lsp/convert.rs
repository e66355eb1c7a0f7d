//! Between the protocol and the analysis, in one place: a request's
//! parameters read as lsp-types' and its document and byte offset found;
//! spans, diagnostics, edits and kinds written as lsp-types' values.

use lsp_server::ErrorCode;
use lsp_types::request::Request;
use lsp_types::{
    CodeDescription, CompletionItemKind, Diagnostic as LspDiagnostic, DiagnosticRelatedInformation,
    DiagnosticSeverity, Location, NumberOrString, Position, PublishDiagnosticsParams,
    TextDocumentPositionParams, TextEdit, Url,
};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use strata_analysis::ide::{self, Analysis};
use strata_lang::{Diagnostic, FileId, Severity, Span};

use super::position::{Encoding, LineIndex};
use super::{Doc, Failure, Server};

/// A member of a request's parameters that a client may leave out, by its
/// path, with the value the server reads in its place.
pub type Fill = (&'static [&'static str], fn() -> Value);

/// What the server has always read for the members a client leaves out:
/// the start of the document for a position, the declaration included in
/// references, no diagnostics in a code action's context, the defaults
/// for formatting options (the printer has none), an empty query or name.
pub mod defaults {
    use super::{Fill, Position, Value};

    fn start() -> Value {
        serde_json::to_value(Position::default()).unwrap_or_default()
    }

    pub const AT: &[Fill] = &[(&["position"], start)];
    pub const REFERENCES: &[Fill] = &[
        (&["position"], start),
        (&["context", "includeDeclaration"], || Value::Bool(true)),
    ];
    pub const CODE_ACTION: &[Fill] = &[(&["context", "diagnostics"], || Value::Array(Vec::new()))];
    pub const FORMATTING: &[Fill] = &[
        (&["options", "tabSize"], || Value::from(2)),
        (&["options", "insertSpaces"], || Value::Bool(true)),
    ];
    pub const SYMBOLS: &[Fill] = &[(&["query"], || Value::from(""))];
    pub const RENAME: &[Fill] = &[(&["position"], start), (&["newName"], || Value::from(""))];
    pub const SQL: &[Fill] = AT;
    pub const INITIALIZE: &[Fill] = &[(&["capabilities"], || Value::Object(Default::default()))];
    pub const DID_OPEN: &[Fill] = &[
        (&["textDocument", "languageId"], || Value::from("")),
        (&["textDocument", "version"], || Value::from(0)),
        (&["textDocument", "text"], || Value::from("")),
    ];
}

/// `p` read as `T`, with `fills` filled in where `p` leaves them out.
pub fn params<T: DeserializeOwned>(mut p: Value, fills: &[Fill]) -> Result<T, Failure> {
    if p.is_null() {
        p = Value::Object(Map::new());
    }
    for (path, value) in fills {
        fill(&mut p, path, *value);
    }
    serde_json::from_value(p).map_err(|e| Failure::invalid(format!("invalid parameters: {e}")))
}

/// Put `value()` at `path` of `p` unless something is there (or a member
/// on the way is not an object: the parameters are then refused).
fn fill(p: &mut Value, path: &[&str], value: fn() -> Value) {
    let Some((last, parents)) = path.split_last() else {
        return;
    };
    let mut at = p;
    for key in parents {
        match at {
            Value::Object(map) => at = map.entry(*key).or_insert_with(|| Value::Object(Map::new())),
            _ => return,
        }
    }
    if let Value::Object(map) = at {
        map.entry(*last).or_insert_with(value);
    }
}

/// Answer request `R`: its parameters read (with `fills` filled in),
/// handled by `handler`, its result as JSON.
pub fn answer<R: Request>(
    server: &Server,
    p: Value,
    fills: &[Fill],
    handler: fn(&Server, R::Params) -> Result<R::Result, Failure>,
) -> Result<Value, Failure> {
    to_json(handler(server, params(p, fills)?)?)
}

/// A result as the JSON of its response.
pub fn to_json(result: impl serde::Serialize) -> Result<Value, Failure> {
    serde_json::to_value(result).map_err(|e| Failure {
        code: ErrorCode::InternalError,
        message: format!("strata lsp cannot write its answer: {e}"),
    })
}

/// The open document `uri` and its analysis.
pub fn document<'s>(server: &'s Server, uri: &Url) -> Result<(&'s Doc, &'s Analysis), Failure> {
    let doc = server
        .docs
        .get(uri)
        .ok_or_else(|| Failure::invalid(format!("{uri} is not open")))?;
    let analysis = doc
        .analysis
        .as_ref()
        .ok_or_else(|| Failure::invalid(format!("{uri} is not analysed")))?;
    Ok((doc, analysis))
}

/// The open document of a request, its analysis and the byte offset of
/// its position.
pub fn at<'s>(
    server: &'s Server,
    p: &TextDocumentPositionParams,
) -> Result<(&'s Doc, &'s Analysis, usize), Failure> {
    let (doc, analysis) = document(server, &p.text_document.uri)?;
    let offset = LineIndex::new(&doc.text, server.encoding).offset(p.position);
    Ok((doc, analysis, offset))
}

/// Every analysis of the open documents (the workspace the server sees).
pub fn workspace(server: &Server) -> Vec<&Analysis> {
    server
        .docs
        .values()
        .filter_map(|d| d.analysis.as_ref())
        .collect()
}

/// The URI of a file of `a`'s module.
pub fn uri(a: &Analysis, file: FileId) -> Option<Url> {
    let path = a.path(file);
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().ok()?.join(path)
    };
    Url::from_file_path(abs).ok()
}

/// Where a span of `a`'s module is.
pub fn location(a: &Analysis, span: Span, enc: Encoding) -> Option<Location> {
    let lines = LineIndex::new(a.text(span.file), enc);
    let range = lines.range(span.start as usize, span.end as usize);
    Some(Location::new(uri(a, span.file)?, range))
}

/// The edit replacing `start..end` of the text of `lines` with `new`.
pub fn text_edit(lines: &LineIndex, start: usize, end: usize, new: &str) -> TextEdit {
    TextEdit::new(lines.range(start, end), new.to_string())
}

/// An edit of the analysis's document as the protocol's.
pub fn edit(lines: &LineIndex, e: &ide::Edit) -> TextEdit {
    text_edit(lines, e.range.start, e.range.end, &e.new_text)
}

pub fn symbol_kind(kind: ide::SymbolKind) -> lsp_types::SymbolKind {
    use ide::SymbolKind as K;
    match kind {
        K::Source => lsp_types::SymbolKind::STRUCT,
        K::Contract => lsp_types::SymbolKind::INTERFACE,
        K::Model => lsp_types::SymbolKind::CLASS,
        K::Test => lsp_types::SymbolKind::EVENT,
        K::Pipeline => lsp_types::SymbolKind::MODULE,
        K::Domain => lsp_types::SymbolKind::TYPE_PARAMETER,
        K::Function => lsp_types::SymbolKind::FUNCTION,
    }
}

pub fn completion_kind(kind: ide::CompletionKind) -> CompletionItemKind {
    use ide::CompletionKind as K;
    match kind {
        K::Column => CompletionItemKind::FIELD,
        K::Keyword => CompletionItemKind::KEYWORD,
        K::Relation => CompletionItemKind::CLASS,
        K::Attribute => CompletionItemKind::PROPERTY,
        K::Function => CompletionItemKind::FUNCTION,
    }
}

/// The `publishDiagnostics` parameters of the document `uri` (its `text`
/// at `version`) analysed as `a`.
pub fn publish(
    a: &Analysis,
    uri: &Url,
    version: i32,
    text: &str,
    enc: Encoding,
) -> PublishDiagnosticsParams {
    let lines = LineIndex::new(text, enc);
    let diagnostics = a
        .checked
        .diagnostics
        .iter()
        .filter(|d| d.span.file == a.file)
        .map(|d| diagnostic(a, d, uri, &lines, enc))
        .collect();
    PublishDiagnosticsParams::new(uri.clone(), diagnostics, Some(version))
}

/// `uri` and `lines` are the document's.
fn diagnostic(
    a: &Analysis,
    d: &Diagnostic,
    uri: &Url,
    lines: &LineIndex,
    enc: Encoding,
) -> LspDiagnostic {
    let mut message = d.message.clone();
    if let Some(h) = &d.help {
        message.push_str(&format!("\nhelp: {h}"));
    }
    for n in &d.notes {
        message.push_str(&format!("\nnote: {n}"));
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .filter_map(|l| {
            // A label in the document itself: its URI and line index,
            // already at hand.
            let location = if l.span.file == a.file {
                let range = lines.range(l.span.start as usize, l.span.end as usize);
                Location::new(uri.clone(), range)
            } else {
                location(a, l.span, enc)?
            };
            Some(DiagnosticRelatedInformation {
                location,
                message: l.message.clone(),
            })
        })
        .collect();
    LspDiagnostic {
        range: lines.range(d.span.start as usize, d.span.end as usize),
        severity: Some(if d.severity == Severity::Error {
            DiagnosticSeverity::ERROR
        } else {
            DiagnosticSeverity::WARNING
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        code_description: code_documentation(d.code)
            .and_then(|href| Url::parse(&href).ok())
            .map(|href| CodeDescription { href }),
        source: Some("strata".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}

/// Where a code's documentation is: the `strata explain` text as a page
/// of `$STRATA_CODE_DOCS` (a URL prefix, e.g. a published docs site), when
/// set.
fn code_documentation(code: &str) -> Option<String> {
    let base = std::env::var("STRATA_CODE_DOCS")
        .ok()
        .filter(|b| !b.is_empty())?;
    Some(format!("{}{code}", base))
}
