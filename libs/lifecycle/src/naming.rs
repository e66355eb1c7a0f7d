//! The physical names the lifecycle gives what it writes (kept compatible
//! with the reference): live views `v_<model>` (`v_<branch>__<model>` off
//! `main`), staged views `stg_<branch>__<model>`, snapshots
//! `snap_<run_id>_<model>`, frozen inputs `input_<run_id>_<source>`, the
//! segment a run adds to a relation it shares with earlier ones
//! (`seg_<relation>`), and the run ids themselves.

use sha2::{Digest, Sha256};

/// A short content hash of `parts` (16 hex digits): run ids.
pub fn short_hash(parts: &[String]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update(b"\x1f");
    }
    h.finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Table names must be valid identifiers in messages and views; keep the
/// branch name to safe characters.
fn branch_tag(branch: &str) -> String {
    branch
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The live view of a model on a branch.
pub fn live_view(model: &str, branch: &str) -> String {
    if branch == "main" {
        format!("v_{model}")
    } else {
        format!("v_{}__{model}", branch_tag(branch))
    }
}

/// The staged view of a model on a branch: the snapshot of the branch's
/// latest run of it, published or not.
pub fn staged_view(model: &str, branch: &str) -> String {
    format!("stg_{}__{model}", branch_tag(branch))
}

/// The snapshot a run builds a model into.
pub fn snapshot(run_id: &str, model: &str) -> String {
    format!("snap_{run_id}_{model}")
}

/// The table (or view of a stored file) a run freezes a source into.
pub fn frozen_input(run_id: &str, source: &str) -> String {
    format!("input_{run_id}_{source}")
}

/// The segment holding the rows a run adds to `relation` (a delta freeze,
/// the snapshot of an `append` model), which is then a view over the
/// segments it shares with earlier ones and this one.
pub fn segment(relation: &str) -> String {
    format!("seg_{relation}")
}
