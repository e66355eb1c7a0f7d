//! What the server knows about a document (its module checked, its files
//! parsed, the index of names) and the handlers of every request.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use lsp_server::ErrorCode;
use lsp_types::{Diagnostic as LspDiagnostic, Location, Url};
use serde_json::{json, Value};
use strata_analysis::graph::{columns_of, NodeId, NodeKind};
use strata_lang::ast::{self, Decl, ItemKind};
use strata_lang::ir;
use strata_lang::{Checked, Diagnostic, FileId, LoadOptions, Severity, Span};
use strata_rules::ModuleInput;

use super::index::{self, Index, Occurrence, Target};
use super::position::{Encoding, LineIndex};
use super::{Doc, Failure, Server};

/// One document's module, checked.
pub struct Analysis {
    pub checked: Checked,
    /// The document's own file in the module.
    pub file: FileId,
    /// Its files parsed and the index of names: built by the first request
    /// that needs them, not on the way to the diagnostics.
    syntax: std::cell::OnceCell<Syntax>,
}

struct Syntax {
    /// Every file of the module, parsed (the checker keeps no syntax tree).
    files: Vec<(FileId, ast::File)>,
    index: Index,
}

impl Analysis {
    /// Check the module rooted at `path`, reading open documents from
    /// `overlay`, with the lints at the levels of the nearest strata.toml.
    pub fn new(path: &Path, overlay: BTreeMap<PathBuf, String>) -> Analysis {
        let options = LoadOptions {
            search_dirs: Vec::new(),
            overlay,
        };
        let mut checked =
            strata_rules::check_module(ModuleInput::Files(&[path.to_path_buf()]), &options);
        // A strata.toml that cannot be read is reported on stderr (the
        // server's log); the module's own diagnostics are published anyway.
        if let Err(e) = strata_analysis::lints::add_lints(path, &mut checked, None, &[]) {
            eprintln!("error: {}", e.message());
        }
        let file = checked.sources.find(path).unwrap_or(FileId(0));
        Analysis {
            checked,
            file,
            syntax: std::cell::OnceCell::new(),
        }
    }

    fn syntax(&self) -> &Syntax {
        self.syntax.get_or_init(|| {
            let files: Vec<(FileId, ast::File)> = self
                .checked
                .sources
                .files()
                .map(|(id, f)| (id, strata_lang::parser::parse(id, &f.text).0))
                .collect();
            let index = index::index(&self.checked.module, &files);
            Syntax { files, index }
        })
    }

    /// Every file of the module, parsed.
    pub fn files(&self) -> &[(FileId, ast::File)] {
        &self.syntax().files
    }

    /// The names of the module's files and what they refer to.
    pub fn index(&self) -> &Index {
        &self.syntax().index
    }

    fn text(&self, file: FileId) -> &str {
        &self.checked.sources.get(file).text
    }

    fn uri(&self, file: FileId) -> Option<Url> {
        let path = &self.checked.sources.get(file).path;
        let abs = if path.is_absolute() {
            path.clone()
        } else {
            std::env::current_dir().ok()?.join(path)
        };
        Url::from_file_path(abs).ok()
    }

    fn location(&self, span: Span, enc: Encoding) -> Option<Location> {
        let lines = LineIndex::new(self.text(span.file), enc);
        let range = lines.range(span.start as usize, span.end as usize);
        Some(Location::new(self.uri(span.file)?, range))
    }

    /// The `publishDiagnostics` parameters of the document.
    pub fn publish(
        &self,
        uri: &Url,
        version: i32,
        text: &str,
        enc: Encoding,
    ) -> lsp_types::PublishDiagnosticsParams {
        let lines = LineIndex::new(text, enc);
        let diagnostics = self
            .checked
            .diagnostics
            .iter()
            .filter(|d| d.span.file == self.file)
            .map(|d| self.diagnostic(d, uri, &lines, enc))
            .collect();
        lsp_types::PublishDiagnosticsParams::new(uri.clone(), diagnostics, Some(version))
    }

    /// `uri` and `lines` are the document's.
    fn diagnostic(
        &self,
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
        let related: Vec<lsp_types::DiagnosticRelatedInformation> = d
            .labels
            .iter()
            .filter_map(|l| {
                // A label in the document itself: its URI and line index,
                // already at hand.
                let location = if l.span.file == self.file {
                    let range = lines.range(l.span.start as usize, l.span.end as usize);
                    Location::new(uri.clone(), range)
                } else {
                    self.location(l.span, enc)?
                };
                Some(lsp_types::DiagnosticRelatedInformation {
                    location,
                    message: l.message.clone(),
                })
            })
            .collect();
        LspDiagnostic {
            range: lines.range(d.span.start as usize, d.span.end as usize),
            severity: Some(if d.severity == Severity::Error {
                lsp_types::DiagnosticSeverity::ERROR
            } else {
                lsp_types::DiagnosticSeverity::WARNING
            }),
            code: Some(lsp_types::NumberOrString::String(d.code.to_string())),
            code_description: code_documentation(d.code)
                .and_then(|href| Url::parse(&href).ok())
                .map(|href| lsp_types::CodeDescription { href }),
            source: Some("strata".into()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            tags: None,
            data: None,
        }
    }

    /// The checked model `name`.
    fn model(&self, name: &str) -> Option<&ir::Model> {
        self.checked.module.models.iter().find(|m| m.name == name)
    }

    /// The model declaration of this file that holds `offset`.
    fn model_decl_at(&self, offset: usize) -> Option<&ast::ModelDecl> {
        self.files()
            .iter()
            .filter(|(id, _)| *id == self.file)
            .flat_map(|(_, f)| &f.decls)
            .find_map(|d| match d {
                Decl::Model(m)
                    if (m.span.start as usize) <= offset && offset <= m.span.end as usize =>
                {
                    Some(m)
                }
                _ => None,
            })
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

fn params<T: serde::de::DeserializeOwned>(p: Value) -> Result<T, Failure> {
    serde_json::from_value(p).map_err(|e| Failure::invalid(format!("invalid parameters: {e}")))
}

fn text_document_uri(p: &Value) -> Result<Url, Failure> {
    let uri = p
        .pointer("/textDocument/uri")
        .and_then(Value::as_str)
        .ok_or_else(|| Failure::invalid("missing textDocument.uri"))?;
    Url::parse(uri).map_err(|e| Failure::invalid(format!("bad uri {uri}: {e}")))
}

pub fn notification(server: &mut Server, method: &str, p: Value) {
    match method {
        "textDocument/didOpen" => {
            let Ok(uri) = text_document_uri(&p) else {
                return;
            };
            let Ok(path) = uri.to_file_path() else {
                return;
            };
            let text = p
                .pointer("/textDocument/text")
                .and_then(Value::as_str)
                .unwrap_or("");
            let version = p
                .pointer("/textDocument/version")
                .and_then(Value::as_i64)
                .unwrap_or(0);
            server.docs.insert(
                uri.clone(),
                Doc {
                    path,
                    text: text.to_string(),
                    version: version as i32,
                    analysis: None,
                    dirty: true,
                },
            );
            server.invalidate_importers(&uri);
        }
        "textDocument/didChange" => {
            let Ok(uri) = text_document_uri(&p) else {
                return;
            };
            let enc = server.encoding;
            let Some(doc) = server.docs.get_mut(&uri) else {
                return;
            };
            if let Some(v) = p.pointer("/textDocument/version").and_then(Value::as_i64) {
                doc.version = v as i32;
            }
            for change in p["contentChanges"].as_array().into_iter().flatten() {
                let new = change["text"].as_str().unwrap_or("");
                match change
                    .get("range")
                    .and_then(|r| serde_json::from_value::<lsp_types::Range>(r.clone()).ok())
                {
                    Some(range) => {
                        let lines = LineIndex::new(&doc.text, enc);
                        let start = lines.offset(range.start);
                        let end = lines.offset(range.end).max(start);
                        doc.text.replace_range(start..end, new);
                    }
                    None => doc.text = new.to_string(),
                }
            }
            server.invalidate_importers(&uri);
        }
        "textDocument/didClose" => {
            if let Ok(uri) = text_document_uri(&p) {
                server.close(&uri);
            }
        }
        "textDocument/didSave" | "workspace/didChangeWatchedFiles" => {
            for doc in server.docs.values_mut() {
                doc.dirty = true;
            }
        }
        _ => {}
    }
}

pub fn handle(server: &mut Server, method: &str, p: Value) -> Result<Value, Failure> {
    server.check_dirty();
    match method {
        "textDocument/hover" => hover(server, &p),
        "textDocument/definition" => definition(server, &p),
        "textDocument/references" => references(server, &p),
        "textDocument/completion" => completion(server, &p),
        "textDocument/codeAction" => code_actions(server, &p),
        "textDocument/formatting" => formatting(server, &p),
        "textDocument/documentSymbol" => document_symbols(server, &p),
        "workspace/symbol" => workspace_symbols(server, &p),
        "textDocument/prepareRename" => prepare_rename(server, &p),
        "textDocument/rename" => rename(server, &p),
        "strata/compiledSql" => compiled_sql(server, &p),
        _ => Err(Failure {
            code: ErrorCode::MethodNotFound,
            message: format!("unknown method {method}"),
        }),
    }
}

/// The open document of a request, its analysis and the byte offset of
/// its `position`.
fn at<'s>(server: &'s Server, p: &Value) -> Result<(&'s Doc, &'s Analysis, usize), Failure> {
    let uri = text_document_uri(p)?;
    let doc = server
        .docs
        .get(&uri)
        .ok_or_else(|| Failure::invalid(format!("{uri} is not open")))?;
    let analysis = doc
        .analysis
        .as_ref()
        .ok_or_else(|| Failure::invalid(format!("{uri} is not analysed")))?;
    let position: lsp_types::Position = match p.get("position") {
        Some(v) => params(v.clone())?,
        None => lsp_types::Position::new(0, 0),
    };
    let offset = LineIndex::new(&doc.text, server.encoding).offset(position);
    Ok((doc, analysis, offset))
}

fn markdown(value: String) -> Value {
    json!({ "contents": { "kind": "markdown", "value": value } })
}

fn column_line(c: &ir::Column) -> String {
    let mut flags = vec![if c.nullable { "nullable" } else { "nonnull" }.to_string()];
    if c.primary_key {
        flags.push("primary_key".into());
    } else if c.unique {
        flags.push("unique".into());
    }
    if c.protected {
        flags.push("protected".into());
    }
    if let Some(values) = &c.enum_values {
        flags.push(format!("enum {{ {} }}", values.join(", ")));
    }
    format!("`{}`: {} ({})", c.name, c.ty, flags.join(", "))
}

fn schema(cols: &[ir::Column]) -> String {
    cols.iter()
        .map(|c| format!("- {}\n", column_line(c)))
        .collect()
}

fn describe_target(a: &Analysis, target: &Target) -> Option<String> {
    let module = &a.checked.module;
    match target {
        Target::Node(node) => {
            let cols = columns_of(module, node)?;
            let head = match node.kind {
                NodeKind::Model => {
                    let m = a.model(&node.name)?;
                    let contract = m
                        .contract
                        .as_ref()
                        .map(|c| format!(" -> contract {c}"))
                        .unwrap_or_default();
                    let inputs: Vec<String> =
                        m.inputs.iter().map(|i| format!("`{}`", i.name)).collect();
                    format!(
                        "**model** `{}`{contract}\n\nreads {}\n",
                        node.name,
                        inputs.join(", ")
                    )
                }
                kind => format!("**{}** `{}`\n", kind.as_str(), node.name),
            };
            Some(format!("{head}\n{}", schema(cols)))
        }
        Target::Column(node, column) => {
            let cols = columns_of(module, node)?;
            let c = cols.iter().find(|c| c.name == column.as_str())?;
            let mut text = format!(
                "**{}** `{}`\n\n{}\n",
                node.kind.as_str(),
                node.name,
                column_line(c)
            );
            if node.kind == NodeKind::Model {
                if let Some(l) = a
                    .model(&node.name)
                    .and_then(|m| m.lineage.iter().find(|l| l.column == column.as_str()))
                {
                    let from: Vec<String> =
                        l.from.iter().map(|(i, c)| format!("`{i}.{c}`")).collect();
                    let from = if from.is_empty() {
                        "nothing (a literal or count)".to_string()
                    } else {
                        from.join(", ")
                    };
                    text.push_str(&format!("\n{} from {from}\n", l.how.replace('_', " ")));
                }
            }
            Some(text)
        }
    }
}

/// What the run-time check of an `expect` counts.
fn describe_expect(a: &Analysis, offset: usize) -> Option<String> {
    let decl = a.model_decl_at(offset)?;
    let model = a.model(&decl.name.name)?;
    let join = decl
        .items
        .iter()
        .filter_map(|it| match &it.kind {
            ItemKind::Join(j) => Some(j),
            _ => None,
        })
        .find(|j| {
            j.expect
                .as_ref()
                .is_some_and(|e| (e.span.start as usize) <= offset && offset <= e.span.end as usize)
        })?;
    let card = join.expect.as_ref()?.cardinality.as_str();
    let mut text = format!(
        "**expect {card}** on `{} {}`\n\n",
        join.kind.keyword(),
        join.input.name
    );
    let sides: Vec<_> = strata_lang::sql::check_sides(model)
        .filter(|s| s.join_input == join.input.name.as_str())
        .collect();
    if sides.is_empty() {
        text.push_str(
            "no run-time check: the join's `on` cannot be counted (see the diagnostic)\n",
        );
        return Some(text);
    }
    for s in sides {
        let keys: Vec<&str> = s.keys.iter().map(|k| k.as_str()).collect();
        text.push_str(&format!(
            "- `strata run` counts the duplicate key groups of `{}` on ({}); one aborts the run (PinError) and publishes nothing\n",
            s.table,
            keys.join(", ")
        ));
    }
    Some(text)
}

fn hover(server: &Server, p: &Value) -> Result<Value, Failure> {
    let (_, a, offset) = at(server, p)?;
    let mut parts: Vec<String> = Vec::new();
    if let Some(t) = describe_expect(a, offset) {
        parts.push(t);
    } else if let Some(o) = a.index().at(a.file, offset) {
        parts.extend(describe_target(a, &o.target));
    }
    for d in a.checked.diagnostics.iter().filter(|d| {
        d.span.file == a.file && (d.span.start as usize) <= offset && offset <= d.span.end as usize
    }) {
        if let Some(rule) = strata_rules::find(d.code) {
            parts.push(format!(
                "**{}** ({}): {}",
                rule.code,
                rule.name,
                rule.summary()
            ));
        }
    }
    if parts.is_empty() {
        return Ok(Value::Null);
    }
    Ok(markdown(parts.join("\n---\n")))
}

/// Every analysis of the open documents (the workspace the server sees).
fn analyses(server: &Server) -> impl Iterator<Item = &Analysis> {
    server.docs.values().filter_map(|d| d.analysis.as_ref())
}

/// The declaration of `target`, following a passed-through column to where
/// it is declared.
fn definition_of(a: &Analysis, target: &Target) -> Option<Span> {
    if let Some(o) = a
        .index()
        .occurrences
        .iter()
        .find(|o| o.def && o.target == *target)
    {
        return Some(o.span);
    }
    let Target::Column(node, column) = target else {
        return None;
    };
    let m = a
        .model(&node.name)
        .filter(|_| node.kind == NodeKind::Model)?;
    let l = m.lineage.iter().find(|l| l.column == column.as_str())?;
    let (input, col) = l.from.first()?;
    let i = m.inputs.iter().find(|i| i.name == *input)?;
    definition_of(a, &Target::Column(NodeId::of_input(i), col.to_string()))
}

fn definition(server: &Server, p: &Value) -> Result<Value, Failure> {
    let (_, a, offset) = at(server, p)?;
    let Some(o) = a.index().at(a.file, offset) else {
        return Ok(Value::Null);
    };
    Ok(definition_of(a, &o.target)
        .and_then(|span| a.location(span, server.encoding))
        .map_or(Value::Null, |l| json!(l)))
}

/// Every occurrence of `target` in the workspace, once per place.
fn occurrences_of<'s>(server: &'s Server, target: &Target) -> Vec<(&'s Analysis, &'s Occurrence)> {
    let mut seen: BTreeSet<(PathBuf, u32, u32)> = BTreeSet::new();
    let mut out = Vec::new();
    for a in analyses(server) {
        for o in a.index().occurrences.iter().filter(|o| o.target == *target) {
            let path = a.checked.sources.get(o.span.file).path.clone();
            let path = std::fs::canonicalize(&path).unwrap_or(path);
            if seen.insert((path, o.span.start, o.span.end)) {
                out.push((a, o));
            }
        }
    }
    out
}

fn references(server: &Server, p: &Value) -> Result<Value, Failure> {
    let (_, a, offset) = at(server, p)?;
    let Some(o) = a.index().at(a.file, offset) else {
        return Ok(Value::Null);
    };
    let with_decl = p
        .pointer("/context/includeDeclaration")
        .and_then(Value::as_bool)
        .unwrap_or(true);
    let locations: Vec<Value> = occurrences_of(server, &o.target)
        .into_iter()
        .filter(|(_, o)| with_decl || !o.def)
        .filter_map(|(a, o)| a.location(o.span, server.encoding))
        .map(|l| json!(l))
        .collect();
    Ok(Value::from(locations))
}

fn item(label: &str, kind: u32, detail: Option<String>) -> Value {
    let mut v = json!({ "label": label, "kind": kind });
    if let Some(d) = detail {
        v["detail"] = Value::from(d);
    }
    v
}

fn completion(server: &Server, p: &Value) -> Result<Value, Failure> {
    let (doc, a, offset) = at(server, p)?;
    let module = &a.checked.module;
    let line_start = doc.text[..offset.min(doc.text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let before = doc.text.get(line_start..offset).unwrap_or("");
    let words: Vec<&str> = before.split_whitespace().collect();
    let last = words.last().copied().unwrap_or("");
    let typing = !before.ends_with(char::is_whitespace);
    let previous = if typing {
        words.iter().rev().nth(1).copied()
    } else {
        words.last().copied()
    };
    let mut items = Vec::new();
    let decl = a.model_decl_at(offset);
    // `input.` : that input's columns.
    if typing {
        if let Some((qualifier, _)) = last.rsplit_once('.') {
            let qualifier = qualifier
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or(qualifier);
            let node = if module.models.iter().any(|m| m.name == qualifier) {
                NodeId::new(NodeKind::Model, qualifier)
            } else {
                NodeId::new(NodeKind::Source, qualifier)
            };
            for c in columns_of(module, &node).unwrap_or_default() {
                items.push(item(&c.name, 5, Some(c.ty.to_string())));
            }
            return Ok(json!({ "isIncomplete": false, "items": items }));
        }
    }
    match previous {
        Some("expect") => {
            for c in strata_lang::parser::CARDINALITIES {
                items.push(item(
                    c,
                    14,
                    Some("a join cardinality promise, checked at run time".into()),
                ));
            }
        }
        Some(w)
            if w == "from"
                || w.starts_with("join_")
                || w == "union"
                || w == "except"
                || w == "intersect" =>
        {
            let own = decl.map(|d| d.name.name.as_str());
            for s in &module.sources {
                items.push(item(&s.name, 7, Some("source".into())));
            }
            for m in module
                .models
                .iter()
                .filter(|m| Some(m.name.as_str()) != own)
            {
                items.push(item(&m.name, 7, Some("model".into())));
            }
        }
        _ => match decl {
            Some(d) => {
                let model = a.model(&d.name.name);
                let mut seen = BTreeSet::new();
                for input in model.map(|m| m.inputs.as_slice()).unwrap_or_default() {
                    for c in columns_of(module, &NodeId::of_input(input)).unwrap_or_default() {
                        if seen.insert(c.name.to_string()) {
                            items.push(item(
                                &c.name,
                                5,
                                Some(format!("{} ({})", c.ty, input.name)),
                            ));
                        }
                    }
                }
                for c in strata_lang::parser::MODEL_KEYWORDS {
                    items.push(item(c, 14, None));
                }
                for a in strata_lang::parser::ATTRS {
                    items.push(item(&format!("{a}:"), 10, None));
                }
                for f in strata_lang::catalog::FUNCTIONS {
                    let kind = if f.aggregate { "aggregate" } else { "function" };
                    items.push(item(f.name, 3, Some(format!("{kind}: {}", f.arity_text()))));
                }
            }
            None => {
                for k in strata_lang::parser::TOP_KEYWORDS {
                    items.push(item(k, 14, None));
                }
            }
        },
    }
    Ok(json!({ "isIncomplete": false, "items": items }))
}

/// A workspace edit of one file.
fn edit(uri: &Url, edits: Vec<Value>) -> Value {
    json!({ "changes": { uri.as_str(): edits } })
}

fn text_edit(lines: &LineIndex, start: usize, end: usize, new: &str) -> Value {
    json!({ "range": lines.range(start, end), "newText": new })
}

fn code_actions(server: &Server, p: &Value) -> Result<Value, Failure> {
    let (doc, a, _) = at(server, p)?;
    let uri = text_document_uri(p)?;
    let lines = LineIndex::new(&doc.text, server.encoding);
    let range: lsp_types::Range = params(p.get("range").cloned().unwrap_or(Value::Null))?;
    let (start, end) = (lines.offset(range.start), lines.offset(range.end));
    let mut actions = Vec::new();
    let touches = |s: Span| (s.start as usize) <= end && start <= s.end as usize;
    for d in a
        .checked
        .diagnostics
        .iter()
        .filter(|d| d.span.file == a.file && touches(d.span))
    {
        let action = |title: String, edits: Vec<Value>| json!({ "title": title, "kind": "quickfix", "isPreferred": true, "edit": edit(&uri, edits) });
        let help = d.help.as_deref().unwrap_or("");
        if let Some(name) = help
            .strip_prefix("did you mean `")
            .and_then(|h| h.strip_suffix("`?"))
        {
            actions.push(action(
                format!("replace with `{name}`"),
                vec![text_edit(
                    &lines,
                    d.span.start as usize,
                    d.span.end as usize,
                    name,
                )],
            ));
        }
        if d.code == "W090" {
            if let Some(edits) = drop_suppressed_code(a, d, &lines) {
                actions.push(action(
                    format!(
                        "remove the unused suppression ({})",
                        help.trim_start_matches("remove ")
                    ),
                    edits,
                ));
            }
        }
    }
    // A join without a promise whose `on` a check can count: promise it.
    if let Some(decl) = a.model_decl_at(start) {
        if let Some(model) = a.model(&decl.name.name) {
            for j in model
                .joins
                .iter()
                .filter(|j| j.expect.is_none() && j.implied_keys.is_some())
            {
                if !(touches(j.keyword_span) || touches(j.on_span)) {
                    continue;
                }
                let at = j.on_span.end as usize;
                actions.push(json!({
                    "title": format!("promise `expect many_to_one` on {} {} (checked at run time)", j.kind.keyword(), j.input),
                    "kind": "quickfix",
                    "edit": edit(&uri, vec![text_edit(&lines, at, at, " expect many_to_one")]),
                }));
            }
        }
    }
    Ok(Value::from(actions))
}

/// The edit that removes an unused code from its `# strata: allow(..)`
/// comment (the whole comment line when it was the only one).
fn drop_suppressed_code(a: &Analysis, d: &Diagnostic, lines: &LineIndex) -> Option<Vec<Value>> {
    let text = a.text(a.file);
    let c = a.checked.comments.iter().find(|c| {
        c.span.file == a.file && c.span.start <= d.span.start && d.span.end <= c.span.end
    })?;
    let open = text[c.span.range()].find('(')? + c.span.start as usize + 1;
    let close = text[c.span.range()].rfind(')')? + c.span.start as usize;
    let codes: Vec<&str> = text
        .get(open..close)?
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let unused = text.get(d.span.range())?.trim();
    let kept: Vec<&str> = codes.into_iter().filter(|c| *c != unused).collect();
    if kept.is_empty() {
        let line_start = text[..c.span.start as usize]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let line_end = text[c.span.end as usize..]
            .find('\n')
            .map_or(text.len(), |i| c.span.end as usize + i + 1);
        let only_comment = text[line_start..c.span.start as usize].trim().is_empty();
        let (s, e) = if only_comment {
            (line_start, line_end)
        } else {
            (c.span.start as usize, c.span.end as usize)
        };
        return Some(vec![text_edit(lines, s, e, "")]);
    }
    Some(vec![text_edit(lines, open, close, &kept.join(", "))])
}

fn formatting(server: &Server, p: &Value) -> Result<Value, Failure> {
    let (doc, _, _) = at(server, p)?;
    match strata_lang::fmt::format_source(FileId(0), &doc.text) {
        Ok(formatted) if formatted == doc.text => Ok(Value::from(Vec::<Value>::new())),
        Ok(formatted) => {
            let lines = LineIndex::new(&doc.text, server.encoding);
            Ok(Value::from(vec![text_edit(
                &lines,
                0,
                doc.text.len(),
                &formatted,
            )]))
        }
        Err(_) => Err(Failure {
            code: ErrorCode::RequestFailed,
            message: "the document has syntax errors: it is formatted once it parses".into(),
        }),
    }
}

/// LSP symbol kinds.
const MODULE: u32 = 2;
const FUNCTION: u32 = 12;
const FIELD: u32 = 8;
const CLASS: u32 = 5;
const STRUCT: u32 = 23;
const INTERFACE: u32 = 11;
const EVENT: u32 = 24;
const TYPE_PARAMETER: u32 = 26;

/// `(name, kind, whole span, name span, columns with their type text)`.
type Symbol<'f> = (String, u32, Span, Span, Vec<(&'f ast::Ident, String)>);

fn decl_symbols(file: &ast::File) -> Vec<Symbol<'_>> {
    fn fields(f: &[ast::FieldDef]) -> Vec<(&ast::Ident, String)> {
        f.iter()
            .map(|f| (&f.name, format!("{:?}", f.ty.kind).to_lowercase()))
            .collect()
    }
    file.decls
        .iter()
        .filter_map(|d| {
            Some(match d {
                Decl::Source(s) => (
                    s.name.name.to_string(),
                    STRUCT,
                    s.span,
                    s.name.span,
                    s.columns.as_deref().map(fields).unwrap_or_default(),
                ),
                Decl::Contract(c) => (
                    c.name.name.to_string(),
                    INTERFACE,
                    c.span,
                    c.name.span,
                    fields(&c.fields),
                ),
                Decl::Model(m) => {
                    let outputs = m
                        .items
                        .iter()
                        .filter_map(|it| match &it.kind {
                            ItemKind::Assign(_, a) => Some(
                                a.iter()
                                    .map(|a| (&a.name, String::new()))
                                    .collect::<Vec<_>>(),
                            ),
                            _ => None,
                        })
                        .flatten()
                        .collect();
                    (m.name.name.to_string(), CLASS, m.span, m.name.span, outputs)
                }
                Decl::Test(t) => (
                    format!("test {}", t.model.name),
                    EVENT,
                    t.span,
                    t.model.span,
                    Vec::new(),
                ),
                Decl::Pipeline(p) => (
                    p.name.name.to_string(),
                    MODULE,
                    p.span,
                    p.name.span,
                    Vec::new(),
                ),
                Decl::Domain(x) => (
                    x.name.name.to_string(),
                    TYPE_PARAMETER,
                    x.span,
                    x.name.span,
                    Vec::new(),
                ),
                Decl::Fn(f) => (
                    f.name.name.to_string(),
                    FUNCTION,
                    f.span,
                    f.name.span,
                    Vec::new(),
                ),
                Decl::Import(_) | Decl::Generator(_) => return None,
            })
        })
        .collect()
}

fn document_symbols(server: &Server, p: &Value) -> Result<Value, Failure> {
    let (doc, a, _) = at(server, p)?;
    let lines = LineIndex::new(&doc.text, server.encoding);
    let range = |s: Span| lines.range(s.start as usize, s.end as usize);
    let Some((_, file)) = a.files().iter().find(|(id, _)| *id == a.file) else {
        return Ok(Value::from(Vec::<Value>::new()));
    };
    let symbols: Vec<Value> = decl_symbols(file)
        .into_iter()
        .map(|(name, kind, span, name_span, children)| {
            let children: Vec<Value> = children
                .into_iter()
                .map(|(ident, detail)| json!({ "name": ident.name.as_str(), "detail": detail, "kind": FIELD, "range": range(ident.span), "selectionRange": range(ident.span) }))
                .collect();
            json!({ "name": name, "kind": kind, "range": range(span), "selectionRange": range(name_span), "children": children })
        })
        .collect();
    Ok(Value::from(symbols))
}

fn workspace_symbols(server: &Server, p: &Value) -> Result<Value, Failure> {
    let query = p["query"].as_str().unwrap_or("").to_lowercase();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for a in analyses(server) {
        for (id, file) in a.files() {
            for (name, kind, _, name_span, _) in decl_symbols(file) {
                if !name.to_lowercase().contains(&query) {
                    continue;
                }
                let Some(location) = a.location(name_span, server.encoding) else {
                    continue;
                };
                if seen.insert((location.uri.to_string(), name_span.start, *id)) {
                    out.push(json!({ "name": name, "kind": kind, "location": location }));
                }
            }
        }
    }
    Ok(Value::from(out))
}

/// Why `target` cannot be renamed, if it cannot.
fn rename_refusal(a: &Analysis, target: &Target) -> Option<String> {
    match target {
        Target::Column(node, column) => match node.kind {
            NodeKind::Source => Some(format!(
                "`{column}` names a column of the warehouse table behind source `{}`: rename it there and in the source together",
                node.name
            )),
            NodeKind::Contract => Some(format!(
                "contract `{}` promises `{column}` by name: rename the models' column and the contract together",
                node.name
            )),
            NodeKind::Model => {
                let m = a.model(&node.name)?;
                if !a.index().occurrences.iter().any(|o| o.def && o.target == *target) {
                    return Some(format!(
                        "`{column}` is passed through from an input of `{}`: rename it where it is defined, or name it in a `select`",
                        node.name
                    ));
                }
                let contract = m.contract.as_ref().and_then(|c| a.checked.module.contracts.iter().find(|k| k.name == *c));
                if contract.is_some_and(|k| k.columns.iter().any(|c| c.name == column.as_str())) {
                    return Some(format!(
                        "contract `{}` promises `{column}`: renaming it would break the contract",
                        m.contract.as_deref().unwrap_or_default()
                    ));
                }
                None
            }
            NodeKind::Test => Some("a test is not renamed".into()),
        },
        Target::Node(node) if node.kind == NodeKind::Test => Some("a test is named after its model".into()),
        Target::Node(_) => None,
    }
}

fn prepare_rename(server: &Server, p: &Value) -> Result<Value, Failure> {
    let (doc, a, offset) = at(server, p)?;
    let Some(o) = a.index().at(a.file, offset) else {
        return Err(Failure {
            code: ErrorCode::RequestFailed,
            message: "nothing to rename here".into(),
        });
    };
    if let Some(why) = rename_refusal(a, &o.target) {
        return Err(Failure {
            code: ErrorCode::RequestFailed,
            message: why,
        });
    }
    let lines = LineIndex::new(&doc.text, server.encoding);
    Ok(json!(
        lines.range(o.span.start as usize, o.span.end as usize)
    ))
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

fn rename(server: &Server, p: &Value) -> Result<Value, Failure> {
    let (_, a, offset) = at(server, p)?;
    let new_name = p["newName"].as_str().unwrap_or("");
    let refuse = |message: String| Failure {
        code: ErrorCode::RequestFailed,
        message,
    };
    if !is_identifier(new_name) {
        return Err(refuse(format!(
            "`{new_name}` is not a name (letters, digits and _, not starting with a digit)"
        )));
    }
    let Some(o) = a.index().at(a.file, offset) else {
        return Err(refuse("nothing to rename here".into()));
    };
    if let Some(why) = rename_refusal(a, &o.target) {
        return Err(refuse(why));
    }
    let module = &a.checked.module;
    let taken = match &o.target {
        Target::Node(n) => match n.kind {
            NodeKind::Contract => module.contracts.iter().any(|c| c.name == new_name),
            _ => {
                module.models.iter().any(|m| m.name == new_name)
                    || module.sources.iter().any(|s| s.name == new_name)
            }
        },
        Target::Column(n, _) => columns_of(module, n)
            .unwrap_or_default()
            .iter()
            .any(|c| c.name == new_name),
    };
    if taken {
        return Err(refuse(format!("`{new_name}` is already taken")));
    }
    let mut changes: BTreeMap<String, Vec<Value>> = BTreeMap::new();
    for (a, o) in occurrences_of(server, &o.target) {
        let Some(uri) = a.uri(o.span.file) else {
            continue;
        };
        // An open document's text is the editor's: positions in it.
        let text = server
            .docs
            .get(&uri)
            .map_or_else(|| a.text(o.span.file), |d| d.text.as_str());
        let lines = LineIndex::new(text, server.encoding);
        changes.entry(uri.to_string()).or_default().push(text_edit(
            &lines,
            o.span.start as usize,
            o.span.end as usize,
            new_name,
        ));
    }
    Ok(json!({ "changes": changes }))
}

fn compiled_sql(server: &Server, p: &Value) -> Result<Value, Failure> {
    let (_, a, offset) = at(server, p)?;
    let name = p["dialect"].as_str().unwrap_or("duckdb");
    let dialect = strata_lang::sql::Dialect::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = strata_lang::sql::Dialect::ALL
            .iter()
            .map(|d| d.name())
            .collect();
        Failure::invalid(format!("unknown dialect {name} ({})", known.join(", ")))
    })?;
    let decl = a.model_decl_at(offset).ok_or_else(|| Failure {
        code: ErrorCode::RequestFailed,
        message: "the cursor is not in a model".into(),
    })?;
    let name = decl.name.name.to_string();
    if a.checked.has_errors() {
        return Err(Failure {
            code: ErrorCode::RequestFailed,
            message: "the module has errors: fix them to see its SQL".into(),
        });
    }
    let compiled = strata_analysis::compile::compile_module(
        &a.checked.module,
        std::slice::from_ref(&name),
        dialect,
    )
    .map_err(|d| Failure {
        code: ErrorCode::RequestFailed,
        message: d.first().map_or_else(String::new, |d| d.message.clone()),
    })?;
    let sql: Vec<&str> = compiled.views.iter().map(|v| v.sql.as_str()).collect();
    Ok(json!({ "model": name, "sql": sql.join("\n") }))
}
