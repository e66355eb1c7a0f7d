//! Discipline checks over the rule registry and the source tree, in the
//! spirit of rustc's tidy for error codes:
//!
//! * every code declared in `strata-codes` has exactly one `#[rule]`, in its
//!   own file, and it is registered (linked);
//! * every declared rule documents what it means, a failing example and the
//!   fix;
//! * every declared code is triggered by at least one trycmd case;
//! * a plugin's codes are not built-in codes, and only external rules make
//!   diagnostics of codes that are not declared.
//!
//! That every code the source emits is declared is not checked here: a
//! diagnostic is made from a code's constant (`Diagnostic::new(&codes::E040,
//! ...)`), so an undeclared code does not compile.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// The workspace's members, as its Cargo.toml lists them (directories).
fn workspace_members() -> Vec<String> {
    let manifest = read(&workspace_root().join("Cargo.toml"));
    let members = manifest
        .lines()
        .find(|l| l.trim_start().starts_with("members"))
        .unwrap_or_else(|| panic!("no members in the workspace's Cargo.toml"));
    members
        .split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// All files under `dir` (recursively) whose name ends with `suffix`, sorted.
fn files_under(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if path.to_string_lossy().ends_with(suffix) {
                found.push(path);
            }
        }
    }
    found.sort();
    found
}

fn relative(path: &Path) -> String {
    let root = workspace_root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

fn declared_codes() -> BTreeSet<&'static str> {
    strata_codes::ALL.iter().map(|c| c.code()).collect()
}

/// The arguments of the `#[rule(...)]` attributes in a source text (lines
/// that start with one, so not doc comments that mention one), as written:
/// `E040`, `crate::W020`.
fn rule_attribute_codes(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|line| {
            let rest = line.trim_start().strip_prefix("#[rule(")?;
            let end = rest.find(")]")?;
            Some(rest[..end].trim().trim_end_matches(',').trim().to_owned())
        })
        .collect()
}

/// The codes a source text declares with `Code::error("...", ...)` or
/// `Code::warning("...", ...)`, as a rule crate outside strata does.
fn code_declarations(text: &str) -> Vec<String> {
    let mut codes = Vec::new();
    for constructor in ["Code::error(", "Code::warning("] {
        for (at, open) in text.match_indices(constructor) {
            let rest = text[at + open.len()..].trim_start();
            let Some(rest) = rest.strip_prefix('"') else {
                continue;
            };
            if let Some(end) = rest.find('"') {
                codes.push(rest[..end].to_owned());
            }
        }
    }
    codes
}

/// The codes that plugin crates (`plugins/*/src`) declare, with the
/// plugin's directory. They are not linked into `strata` (this test's
/// registry); each plugin's own tests run its binary.
fn plugin_declared_codes() -> BTreeMap<String, PathBuf> {
    let mut codes = BTreeMap::new();
    let Ok(plugins) = fs::read_dir(workspace_root().join("plugins")) else {
        return codes;
    };
    for plugin in plugins.flatten().map(|p| p.path()) {
        for path in files_under(&plugin.join("src"), ".rs") {
            for code in code_declarations(&read(&path)) {
                codes.insert(code, plugin.clone());
            }
        }
    }
    codes
}

mod codes;
mod commands;
mod dependencies;
mod engine;
mod explanations;
mod first_steps;
mod functions;
mod manual;
mod selftest;
mod trycmd;
mod undeclared;

#[allow(unused_imports)]
use {codes::*, explanations::*, manual::*, selftest::*, trycmd::*, undeclared::*};
