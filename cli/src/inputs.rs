//! Turning command-line paths into the `.strata` files to read.

use std::path::{Path, PathBuf};

/// Expand paths: a file stays itself; a directory gives every `*.strata`
/// file under it, recursively, sorted. Symbolic links are followed (a
/// linked directory is walked like any other), except one that leads back
/// to a directory being walked: its files are found once, under the
/// directory's own name. A path that does not exist is an error naming it.
pub fn expand_paths(paths: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut found = walk(p)?;
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

fn is_strata(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "strata")
}

/// The `*.strata` files under `dir`, in no particular order.
fn walk(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(dir).follow_links(true) {
        match entry {
            Ok(entry) => {
                if !entry.file_type().is_dir() && is_strata(entry.path()) {
                    out.push(entry.into_path());
                }
            }
            // A link back to a directory being walked: already walked.
            Err(e) if e.loop_ancestor().is_some() => {}
            Err(e) => {
                let path = e.path().unwrap_or(dir).to_path_buf();
                // A dangling link is what it is named: a `.strata` one is
                // kept, to be reported as unreadable where it is read;
                // another is not an input.
                if e.depth() > 0 && path.is_symlink() && !path.exists() {
                    if is_strata(&path) {
                        out.push(path);
                    }
                    continue;
                }
                let why = e
                    .io_error()
                    .map_or_else(|| e.to_string(), ToString::to_string);
                return Err(format!("cannot read directory {}: {why}", path.display()));
            }
        }
    }
    Ok(out)
}

#[cfg(all(test, unix))]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    /// A fresh, empty directory under the system's temporary directory.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("strata-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn touch(path: &Path) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "").unwrap();
    }

    #[test]
    fn a_tree_gives_its_strata_files_sorted() {
        let root = scratch("inputs-tree");
        for f in [
            "b.strata",
            "a/z.strata",
            "a/y.txt",
            "a.strata",
            "c/d/e.strata",
        ] {
            touch(&root.join(f));
        }
        // A directory named like a module is walked, not read.
        std::fs::create_dir_all(root.join("dir.strata/f")).unwrap();
        touch(&root.join("dir.strata/f/g.strata"));
        let found = expand_paths(std::slice::from_ref(&root)).unwrap();
        let rel: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(&root).unwrap().to_str().unwrap())
            .collect();
        assert_eq!(
            rel,
            [
                "a/z.strata",
                "a.strata",
                "b.strata",
                "c/d/e.strata",
                "dir.strata/f/g.strata"
            ]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_symlink_loop_is_walked_once() {
        let root = scratch("inputs-loop");
        touch(&root.join("m/a.strata"));
        touch(&root.join("m/sub/b.strata"));
        // Back to an ancestor, and to the directory itself.
        symlink(root.join("m"), root.join("m/sub/up")).unwrap();
        symlink(root.join("m/sub"), root.join("m/sub/here")).unwrap();
        // A linked directory elsewhere is walked; a dangling link named
        // like a module is kept (reading it reports it), another is not.
        touch(&root.join("lib/c.strata"));
        symlink(root.join("lib"), root.join("m/lib")).unwrap();
        symlink(root.join("gone.strata"), root.join("m/gone.strata")).unwrap();
        symlink(root.join("gone"), root.join("m/gone")).unwrap();
        let m = root.join("m");
        let found = expand_paths(std::slice::from_ref(&m)).unwrap();
        let rel: Vec<_> = found
            .iter()
            .map(|p| p.strip_prefix(&m).unwrap().to_str().unwrap())
            .collect();
        assert_eq!(
            rel,
            ["a.strata", "gone.strata", "lib/c.strata", "sub/b.strata"]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn missing_and_empty_paths_are_errors() {
        let root = scratch("inputs-missing");
        let e = expand_paths(&[root.join("nope")]).unwrap_err();
        assert!(e.ends_with("nope: no such file or directory"), "{e}");
        let e = expand_paths(std::slice::from_ref(&root)).unwrap_err();
        assert!(e.starts_with("no .strata files under "), "{e}");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
