//! `textDocument/codeAction` ([`strata_analysis::ide::quick_fixes`]) and
//! `textDocument/formatting` (the `strata fmt` printer).

use std::collections::HashMap;

use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, CodeActionParams, CodeActionResponse,
    DocumentFormattingParams, TextEdit, WorkspaceEdit,
};
use strata_analysis::ide;
use strata_lang::FileId;

use super::convert::{document, edit, text_edit};
use super::position::LineIndex;
use super::{Failure, Server};

pub fn code_actions(
    server: &Server,
    p: CodeActionParams,
) -> Result<Option<CodeActionResponse>, Failure> {
    let uri = p.text_document.uri;
    let (doc, a) = document(server, &uri)?;
    let lines = LineIndex::new(&doc.text, server.encoding);
    let (start, end) = (lines.offset(p.range.start), lines.offset(p.range.end));
    let actions = ide::quick_fixes(a, start, end)
        .into_iter()
        .map(|fix| {
            let edits = fix.edits.iter().map(|e| edit(&lines, e)).collect();
            CodeActionOrCommand::CodeAction(CodeAction {
                title: fix.title,
                kind: Some(CodeActionKind::QUICKFIX),
                edit: Some(WorkspaceEdit::new(HashMap::from([(uri.clone(), edits)]))),
                is_preferred: fix.preferred.then_some(true),
                ..CodeAction::default()
            })
        })
        .collect();
    Ok(Some(actions))
}

pub fn formatting(
    server: &Server,
    p: DocumentFormattingParams,
) -> Result<Option<Vec<TextEdit>>, Failure> {
    let (doc, _) = document(server, &p.text_document.uri)?;
    match strata_lang::fmt::format_source(FileId(0), &doc.text) {
        Ok(formatted) if formatted == doc.text => Ok(Some(Vec::new())),
        Ok(formatted) => {
            let lines = LineIndex::new(&doc.text, server.encoding);
            Ok(Some(vec![text_edit(&lines, 0, doc.text.len(), &formatted)]))
        }
        Err(_) => Err(Failure::failed(
            "the document has syntax errors: it is formatted once it parses",
        )),
    }
}
