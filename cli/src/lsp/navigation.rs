//! `textDocument/definition` and `textDocument/references`: where the name
//! under the cursor is declared, and every place in the open documents'
//! modules that names the same thing.

use lsp_types::{GotoDefinitionParams, GotoDefinitionResponse, Location, ReferenceParams};
use strata_analysis::ide;

use super::convert::{at, location, workspace};
use super::{Failure, Server};

pub fn definition(
    server: &Server,
    p: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>, Failure> {
    let (_, a, offset) = at(server, &p.text_document_position_params)?;
    Ok(ide::definition(a, offset)
        .and_then(|span| location(a, span, server.encoding))
        .map(GotoDefinitionResponse::Scalar))
}

pub fn references(server: &Server, p: ReferenceParams) -> Result<Option<Vec<Location>>, Failure> {
    let (_, a, offset) = at(server, &p.text_document_position)?;
    let workspace = workspace(server);
    let found = ide::references(&workspace, a, offset, p.context.include_declaration);
    Ok(found.map(|found| {
        found
            .into_iter()
            .filter_map(|(a, span)| location(a, span, server.encoding))
            .collect()
    }))
}
