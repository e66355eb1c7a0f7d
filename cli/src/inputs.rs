//! Turning command-line paths into the `.strata` files to read.

use std::path::{Path, PathBuf};

/// Expand paths: a file stays itself; a directory gives every `*.strata`
/// file under it, recursively, sorted. A path that does not exist is an
/// error naming it.
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found)
                .map_err(|e| format!("cannot read directory {}: {e}", p.display()))?;
            found.sort();
            if found.is_empty() {
                return Err(format!("no .strata files under {}", p.display()));
            }
            out.extend(found);
        } else if p.exists() {
            out.push(p.clone());
        } else {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    Ok(out)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "strata") {
            out.push(path);
        }
    }
    Ok(())
}
