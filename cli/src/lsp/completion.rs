//! `textDocument/completion`: [`strata_analysis::ide::completions`] as one
//! complete list.

use lsp_types::{CompletionItem, CompletionList, CompletionParams, CompletionResponse};
use strata_analysis::ide;

use super::convert::{at, completion_kind};
use super::{Failure, Server};

pub fn completion(
    server: &Server,
    p: CompletionParams,
) -> Result<Option<CompletionResponse>, Failure> {
    let (doc, a, offset) = at(server, &p.text_document_position)?;
    let items = ide::completions(a, &doc.text, offset)
        .into_iter()
        .map(|c| CompletionItem {
            // A quoted name is inserted with its backticks, and found by
            // the name typed without them.
            filter_text: c.insert.as_ref().map(|_| c.label.clone()),
            insert_text: c.insert,
            label: c.label,
            kind: Some(completion_kind(c.kind)),
            detail: c.detail,
            ..CompletionItem::default()
        })
        .collect();
    Ok(Some(CompletionResponse::List(CompletionList {
        is_incomplete: false,
        items,
    })))
}
