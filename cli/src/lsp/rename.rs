//! `textDocument/prepareRename` and `textDocument/rename`: the name under
//! the cursor renamed in every file of the open documents' modules, or
//! refused with the reason ([`strata_analysis::ide::rename`]).

use std::collections::HashMap;

use lsp_types::{
    PrepareRenameResponse, RenameParams, TextDocumentPositionParams, TextEdit, Url, WorkspaceEdit,
};
use strata_analysis::ide;

use super::convert::{at, text_edit, uri, workspace};
use super::position::LineIndex;
use super::{Failure, Server};

pub fn prepare(
    server: &Server,
    p: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>, Failure> {
    let (doc, a, offset) = at(server, &p)?;
    let span = ide::prepare_rename(a, offset).map_err(Failure::failed)?;
    let lines = LineIndex::new(&doc.text, server.encoding);
    let range = lines.range(span.start as usize, span.end as usize);
    Ok(Some(PrepareRenameResponse::Range(range)))
}

pub fn rename(server: &Server, p: RenameParams) -> Result<Option<WorkspaceEdit>, Failure> {
    let (_, a, offset) = at(server, &p.text_document_position)?;
    let workspace = workspace(server);
    let (name, spans) = ide::rename(&workspace, a, offset, &p.new_name).map_err(Failure::failed)?;
    let mut changes: HashMap<Url, Vec<TextEdit>> = HashMap::new();
    for (a, span) in spans {
        let Some(uri) = uri(a, span.file) else {
            continue;
        };
        // An open document's text is the editor's: positions in it.
        let text = server
            .docs
            .get(&uri)
            .map_or_else(|| a.text(span.file), |d| d.text.as_str());
        let lines = LineIndex::new(text, server.encoding);
        let edit = text_edit(&lines, span.start as usize, span.end as usize, &name);
        changes.entry(uri).or_default().push(edit);
    }
    Ok(Some(WorkspaceEdit::new(changes)))
}
