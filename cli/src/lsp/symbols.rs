//! `textDocument/documentSymbol` (the document's declarations, with their
//! columns) and `workspace/symbol` (the declarations of every file of the
//! open documents' modules whose name matches).

use std::collections::BTreeSet;

use lsp_types::{
    DocumentSymbol, DocumentSymbolParams, DocumentSymbolResponse, SymbolInformation,
    WorkspaceSymbolParams, WorkspaceSymbolResponse,
};
use strata_analysis::ide;

use super::convert::{document, location, symbol_kind, workspace};
use super::position::LineIndex;
use super::{Failure, Server};

pub fn document_symbols(
    server: &Server,
    p: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>, Failure> {
    let (doc, a) = document(server, &p.text_document.uri)?;
    let lines = LineIndex::new(&doc.text, server.encoding);
    let range = |s: strata_lang::Span| lines.range(s.start as usize, s.end as usize);
    #[allow(deprecated)] // `deprecated` is a field every symbol has (unset)
    let symbols = ide::document_symbols(a)
        .into_iter()
        .map(|s| {
            let children = s
                .columns
                .into_iter()
                .map(|c| DocumentSymbol {
                    name: c.name,
                    detail: Some(c.detail),
                    kind: lsp_types::SymbolKind::FIELD,
                    tags: None,
                    deprecated: None,
                    range: range(c.span),
                    selection_range: range(c.span),
                    children: None,
                })
                .collect();
            DocumentSymbol {
                name: s.name,
                detail: None,
                kind: symbol_kind(s.kind),
                tags: None,
                deprecated: None,
                range: range(s.span),
                selection_range: range(s.name_span),
                children: Some(children),
            }
        })
        .collect();
    Ok(Some(DocumentSymbolResponse::Nested(symbols)))
}

pub fn workspace_symbols(
    server: &Server,
    p: WorkspaceSymbolParams,
) -> Result<Option<WorkspaceSymbolResponse>, Failure> {
    let analyses = workspace(server);
    // A file several modules read is listed once.
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (a, file, s) in ide::workspace_symbols(&analyses, &p.query) {
        let Some(location) = location(a, s.name_span, server.encoding) else {
            continue;
        };
        if seen.insert((location.uri.to_string(), s.name_span.start, file)) {
            #[allow(deprecated)] // `deprecated` is a field every symbol has (unset)
            out.push(SymbolInformation {
                name: s.name,
                kind: symbol_kind(s.kind),
                tags: None,
                deprecated: None,
                location,
                container_name: None,
            });
        }
    }
    Ok(Some(WorkspaceSymbolResponse::Flat(out)))
}
