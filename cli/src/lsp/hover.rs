//! `textDocument/hover`: [`strata_analysis::ide::hover`] as markdown.

use lsp_types::{Hover, HoverContents, HoverParams, MarkupContent, MarkupKind};
use strata_analysis::ide;

use super::convert::at;
use super::{Failure, Server};

pub fn hover(server: &Server, p: HoverParams) -> Result<Option<Hover>, Failure> {
    let (_, a, offset) = at(server, &p.text_document_position_params)?;
    Ok(ide::hover(a, offset).map(|value| Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: None,
    }))
}
