//! The commit `strata --version` names, as `STRATA_COMMIT` ("7f6a3fe
//! 2025-06-01", or empty when it is not known).
//!
//! Taken from `STRATA_COMMIT` when the build sets it (a release built from
//! an archive without `.git`), else from git when this workspace is a clone
//! of its own. Built anywhere else (an sdist, a vendored copy, no git on
//! PATH) the commit is simply not known: the build never fails for it, and
//! an sdist unpacked inside some other clone does not take that clone's
//! commit.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=STRATA_COMMIT");
    let commit = match std::env::var("STRATA_COMMIT") {
        Ok(given) => given.trim().to_string(),
        Err(_) => git_commit().unwrap_or_default(),
    };
    println!("cargo:rustc-env=STRATA_COMMIT={commit}");
}

/// `<short hash> <commit date>` of the workspace's HEAD, and the files whose
/// change means a new HEAD (so that a commit rebuilds only this crate).
fn git_commit() -> Option<String> {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    let workspace = manifest.parent()?.canonicalize().ok()?;
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(&workspace)
            .args(args)
            .output()
            .ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        out.status.success().then(|| text.trim().to_string())
    };
    let top = PathBuf::from(git(&["rev-parse", "--show-toplevel"])?);
    if top.canonicalize().ok()? != workspace {
        return None;
    }
    // HEAD moves on a checkout; the branch it names, on a commit (a loose
    // ref, or `packed-refs` once git packs it). Only files that exist are
    // watched: cargo reruns a script whose watched file is missing every time.
    let mut watched = vec![git(&["rev-parse", "--git-path", "HEAD"])?];
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        watched.push(git(&["rev-parse", "--git-path", &branch])?);
    }
    watched.push(git(&["rev-parse", "--git-common-dir"])? + "/packed-refs");
    for file in watched {
        let path = workspace.join(Path::new(&file));
        if path.is_file() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
    }
    git(&["log", "-1", "--format=%h %cs"]).filter(|c| !c.is_empty())
}
