//! Model fingerprints: the first 16 hex digits of a SHA-256 over the model's
//! name, its contract, its canonical text and its upstream fingerprints, so
//! a change to a model or to anything upstream changes it, and reformatting
//! (or editing comments) does not.

use sha2::{Digest, Sha256};

use crate::ast::ModelDecl;
use crate::ir;

/// The model's canonical text: the formatter's rendering of its syntax tree
/// (no comments, no layout choices), whitespace collapsed.
fn canonical_text(m: &ModelDecl) -> String {
    crate::fmt::format_model(m).split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Fingerprint of a checked model; `upstream` holds the models checked
/// before it (all of its upstream models among them).
pub fn model_fingerprint(m: &ModelDecl, model: &ir::Model, upstream: &[ir::Model]) -> String {
    let mut h = Sha256::new();
    h.update(model.name.as_bytes());
    h.update(b"|");
    h.update(model.contract.as_deref().unwrap_or("").as_bytes());
    h.update(b"|");
    h.update(canonical_text(m).as_bytes());
    for input in &model.inputs {
        if let Some(up) = upstream
            .iter()
            .find(|u| u.name == input.name && input.kind == ir::InputKind::Model)
        {
            h.update(b"|");
            h.update(up.fingerprint.as_bytes());
        }
    }
    let digest = h.finalize();
    digest.iter().take(8).map(|b| format!("{b:02x}")).collect()
}
