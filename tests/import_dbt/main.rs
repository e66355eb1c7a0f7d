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

/// The text of every file under `dir`, by its path relative to `dir`.
fn files_of(dir: &Path) -> BTreeMap<String, String> {
    walk(dir)
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(dir)
                .unwrap_or_else(|e| panic!("{e}"))
                .to_string_lossy()
                .into_owned();
            let t = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (rel, t)
        })
        .collect()
}

/// The files an import wrote (path to text) and its report, as
/// `report.json`, are tests/dbt/snapshots/<name>, file for file
/// (`STRATA_BLESS=1` rewrites the snapshot first).
fn check_snapshot(name: &str, written: &BTreeMap<String, String>, report: &serde_json::Value) {
    let mut report_text = serde_json::to_string_pretty(report).unwrap_or_default();
    report_text.push('\n');
    let mut expected = written.clone();
    expected.insert("report.json".into(), report_text);
    let expected = &expected;
    let snapshot = root().join("tests/dbt/snapshots").join(name);
    if std::env::var_os("STRATA_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(&snapshot);
        for (rel, t) in expected {
            let p = snapshot.join(rel);
            if let Some(parent) = p.parent() {
                std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
            }
            std::fs::write(&p, t).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    let on_disk = files_of(&snapshot);
    let names = |m: &BTreeMap<String, String>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        names(expected),
        names(&on_disk),
        "the files written (STRATA_BLESS=1 rewrites the snapshots)"
    );
    for (rel, t) in expected {
        assert_eq!(
            on_disk.get(rel),
            Some(t),
            "{rel} differs from tests/dbt/snapshots/{name}/{rel} (STRATA_BLESS=1 rewrites the snapshots)"
        );
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

/// `strata check DIR` (relative to `cwd`) exits 0.
fn assert_checks(cwd: &Path, dir: &str) {
    assert_ok(&strata(&["check", dir], cwd));
}

/// A run of strata that exited 0 (else its output is the message).
fn assert_ok(o: &std::process::Output) {
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
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
    import_project(tmp, "corpus", out, flags)
}

/// Import the project `<tmp>/<project>` into `<tmp>/<out>` with `flags`;
/// the report (JSON).
fn import_project(tmp: &Path, project: &str, out: &str, flags: &[&str]) -> serde_json::Value {
    let mut args = vec!["import-dbt", project, "-o", out, "--format", "json"];
    args.extend_from_slice(flags);
    let o = strata(&args, tmp);
    assert_ok(&o);
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)))
}

mod audit;
mod corpus;
mod dbt_rows;
mod fuzz;
mod incremental;
mod init;
mod on_dbt;
mod packages;
mod unit_tests;
