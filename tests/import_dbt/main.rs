//! `strata import-dbt` on the dbt project of `tests/dbt/corpus` (60 small
//! models: one or more per construct the import converts, and the ones it
//! must report as needing review):
//!
//! * the strata it writes and its report are snapshots
//!   (`tests/dbt/snapshots/corpus/`; `STRATA_BLESS=1` rewrites them), the
//!   same bytes twice, and `strata check` accepts them;
//! * for every converted model the `seeds` pipeline runs, the rows
//!   `strata run` publishes equal the rows of dbt's own compiled SQL run in
//!   DuckDB on the same seed files (names, order, values). dbt (from
//!   `$STRATA_DBT`, else `~/.cache/strata-dbt/bin/dbt`, as `.ci/run`
//!   installs it) runs once for the whole corpus; missing, the test is
//!   skipped with a message, and fails under `CI`;
//! * the dbt unit tests carried as fixture tests pass and fail in
//!   `strata test` as they do in `dbt test` (`unit_tests.rs`);
//! * 1,000 mutated models import without a panic;
//! * `strata init --from-dbt` writes a project whose printed run command runs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "../support/tools.rs"]
#[allow(dead_code)]
mod tools;

#[path = "../support/pg.rs"]
mod pg;
#[path = "../support/spark.rs"]
mod spark;

use tools::{root, STRATA};

/// Copy a directory tree.
fn copy_dir(from: &Path, to: &Path) {
    for entry in walk(from) {
        let rel = entry.strip_prefix(from).unwrap_or_else(|e| panic!("{e}"));
        let dest = to.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{}: {e}", parent.display()));
        }
        std::fs::copy(&entry, &dest).unwrap_or_else(|e| panic!("{}: {e}", entry.display()));
    }
}

/// Every file under `dir`, sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The corpus and its dbt_utils stand-in, copied into a fresh directory:
/// `<tmp>/corpus`.
fn corpus_copy() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    copy_dir(&root().join("tests/dbt/corpus"), &tmp.path().join("corpus"));
    copy_dir(
        &root().join("tests/dbt/dbt_utils"),
        &tmp.path().join("dbt_utils"),
    );
    tmp
}

fn strata(args: &[&str], cwd: &Path) -> std::process::Output {
    Command::new(STRATA)
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("STRATA_CORPUS_REGION")
        .output()
        .unwrap_or_else(|e| panic!("cannot run strata: {e}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Import the corpus copy in `tmp` into `<tmp>/out`; the report (JSON).
fn import_corpus(tmp: &Path, out: &str) -> serde_json::Value {
    import_corpus_with(tmp, out, &["--no-manifest"])
}

/// The same, with other flags.
fn import_corpus_with(tmp: &Path, out: &str, flags: &[&str]) -> serde_json::Value {
    let mut args = vec!["import-dbt", "corpus", "-o", out, "--format", "json"];
    args.extend_from_slice(flags);
    let o = strata(&args, tmp);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)))
}

mod audit;
mod corpus;
mod dbt_rows;
mod fuzz;
mod init;
mod unit_tests;
