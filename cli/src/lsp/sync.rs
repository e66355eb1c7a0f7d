//! Document sync: the editor opens, changes, saves and closes documents;
//! each change marks for a new check the documents whose modules read the
//! file (checked once the messages that have arrived are handled).

use lsp_types::notification::{self as notify, Notification as _};
use lsp_types::{
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
};
use serde_json::Value;

use super::convert::{self, defaults};
use super::position::LineIndex;
use super::{Doc, Server};

/// Handle a notification (one whose parameters cannot be read is ignored).
pub fn notification(server: &mut Server, method: &str, p: Value) {
    match method {
        notify::DidOpenTextDocument::METHOD => {
            if let Ok(p) = convert::params(p, defaults::DID_OPEN) {
                open(server, p);
            }
        }
        notify::DidChangeTextDocument::METHOD => {
            if let Ok(p) = convert::params(p, &[]) {
                change(server, p);
            }
        }
        notify::DidCloseTextDocument::METHOD => {
            if let Ok(p) = convert::params::<DidCloseTextDocumentParams>(p, &[]) {
                server.close(&p.text_document.uri);
            }
        }
        notify::DidSaveTextDocument::METHOD | notify::DidChangeWatchedFiles::METHOD => {
            for doc in server.docs.values_mut() {
                doc.dirty = true;
            }
        }
        _ => {}
    }
}

fn open(server: &mut Server, p: DidOpenTextDocumentParams) {
    let uri = p.text_document.uri;
    let Ok(path) = uri.to_file_path() else {
        return;
    };
    server.docs.insert(
        uri.clone(),
        Doc {
            path,
            text: p.text_document.text,
            version: p.text_document.version,
            analysis: None,
            dirty: true,
        },
    );
    server.invalidate_importers(&uri);
}

fn change(server: &mut Server, p: DidChangeTextDocumentParams) {
    let uri = p.text_document.uri;
    let enc = server.encoding;
    let Some(doc) = server.docs.get_mut(&uri) else {
        return;
    };
    doc.version = p.text_document.version;
    for change in p.content_changes {
        match change.range {
            Some(range) => {
                let lines = LineIndex::new(&doc.text, enc);
                let start = lines.offset(range.start);
                let end = lines.offset(range.end).max(start);
                doc.text.replace_range(start..end, &change.text);
            }
            None => doc.text = change.text,
        }
    }
    server.invalidate_importers(&uri);
}
