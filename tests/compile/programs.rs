//! The programs

use super::*;

/// The root programs of the corpus whose verdict is `ok` (differences.tsv
/// overrides reference.tsv), as parse_check.py selects them.
fn valid_corpus_programs() -> Vec<PathBuf> {
    let dir = root().join("tests/corpus");
    let mut verdict = BTreeMap::new();
    for name in ["reference.tsv", "differences.tsv"] {
        for line in read(&dir.join(name)).lines() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split('\t');
            if let (Some(file), Some(v)) = (parts.next(), parts.next()) {
                verdict.insert(file.to_string(), v.to_string());
            }
        }
    }
    verdict
        .into_iter()
        .filter(|(_, v)| v == "ok")
        .map(|(f, _)| dir.join(f))
        .collect()
}

pub(crate) fn strata_files(dir: &Path, recursive: bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() && recursive {
                pending.push(p);
            } else if p.extension().is_some_and(|e| e == "strata") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Every program whose compiled SQL must run: the valid corpus, the
/// examples, the execution fixtures, the edge programs and the showcase.
pub(crate) fn all_programs() -> Vec<PathBuf> {
    let r = root();
    let mut all = valid_corpus_programs();
    all.extend(strata_files(&r.join("examples"), true));
    all.extend(strata_files(&r.join("tests/sql/exec"), false));
    all.extend(strata_files(&r.join("tests/sql/programs"), false));
    all.push(r.join("tests/cmd/compile/compile-showcase.strata"));
    all
}

/// `(file, dialect)` pairs that must not compile (tests/sql/expected_compile_errors.txt).
pub(crate) fn expected_compile_errors() -> Vec<(String, String)> {
    read(&root().join("tests/sql/expected_compile_errors.txt"))
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| {
            let mut p = l.split('\t');
            Some((p.next()?.to_string(), p.next()?.to_string()))
        })
        .collect()
}
