//! `strata grammar` against an independent GBNF consumer: the npm package
//! `gbnf` (pinned in `tests/gbnf/package-lock.json`), driven by
//! `tests/gbnf/accept.mjs` under Node.js.
//!
//! * `grammar_is_valid_gbnf`: the printed grammar, with and without `--doc`,
//!   is read without error.
//! * `consumer_accepts_what_the_parser_accepts`: every example module
//!   (`examples/**/*.strata`) and every corpus program (`tests/corpus/**`)
//!   the parser accepts, and [`SAMPLES`] programs written by `strata
//!   grammar sample --seed 1`, are accepted, as is the canonical
//!   formatting (`strata fmt`) of the examples and samples; every corpus
//!   program the parser rejects is rejected, except those of
//!   [`OVER_ACCEPTED`], which show the over-approximations documented in
//!   `libs/lang/src/grammar/mod.rs`. The package needs about 0.15 ms per byte,
//!   so the inputs are split over [`PROCESSES`] node processes.
//!
//! Node.js is `$STRATA_NODE` or `node`; the package is looked up in
//! `$STRATA_GBNF_MODULES` (a `node_modules` directory), else
//! `~/.cache/strata-gbnf/node_modules` (where `.ci/run` installs it with
//! `npm ci`), else `tests/gbnf/node_modules` (`npm ci` in `tests/gbnf`).
//! When either is missing the tests are skipped with a message, except
//! under `CI`, where that is a failure.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::{json, Value};
use strata_lang::FileId;

#[path = "support/tools.rs"]
#[allow(dead_code)] // each test file uses its own part of the shared helpers
mod tools;
use tools::{root, STRATA};

/// How many sampled programs the consumer checks (`--seed 1`).
const SAMPLES: usize = 200;

/// How many node processes check the inputs at once.
const PROCESSES: usize = 2;

/// Corpus programs the parser rejects but the grammar accepts, and why.
const OVER_ACCEPTED: &[(&str, &str)] = &[
    (
        "parse-middle-keyword-as-column.strata",
        "a reserved word where a name is expected",
    ),
    (
        "parse-middle-keyword-as-model-name.strata",
        "a reserved word where a name is expected",
    ),
    (
        "parse-middle-type-keyword-as-column.strata",
        "a reserved word where a name is expected",
    ),
    (
        "parse-middle-type-keyword-in-expression.strata",
        "a reserved word where a name is expected",
    ),
];

fn rel(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Node.js and the `node_modules` directory holding `gbnf`, if present.
fn consumer() -> Option<(String, PathBuf)> {
    tools::node_packages("STRATA_GBNF_MODULES", "gbnf", &["gbnf"])
}

/// The consumer's answer for `grammar` and `inputs` (name, text): whether
/// the grammar is valid ("ok" or the error), and the result per input name.
fn check(
    node: &str,
    modules: &Path,
    grammar: &str,
    inputs: &[(String, String)],
) -> (String, BTreeMap<String, Value>) {
    // Split by size over the processes, and run them at once.
    let mut chunks: Vec<(usize, Vec<&(String, String)>)> = vec![(0, Vec::new()); PROCESSES];
    let mut by_size: Vec<&(String, String)> = inputs.iter().collect();
    by_size.sort_by_key(|(_, text)| std::cmp::Reverse(text.len()));
    for input in by_size {
        if let Some(chunk) = chunks.iter_mut().min_by_key(|(size, _)| *size) {
            chunk.0 += input.1.len();
            chunk.1.push(input);
        }
    }
    let answers: Vec<Value> = std::thread::scope(|scope| {
        let running: Vec<_> = chunks
            .iter()
            .map(|(_, chunk)| scope.spawn(move || run_consumer(node, modules, grammar, chunk)))
            .collect();
        running
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| panic!("a consumer thread panicked"))
            })
            .collect()
    });
    let mut verdict = String::new();
    let mut results = BTreeMap::new();
    for answer in answers {
        verdict = answer["grammar"]
            .as_str()
            .unwrap_or("no answer")
            .to_string();
        for r in answer["results"].as_array().map_or(&[][..], Vec::as_slice) {
            results.insert(r["name"].as_str().unwrap_or("").to_string(), r.clone());
        }
    }
    (verdict, results)
}

/// One run of `accept.mjs`.
fn run_consumer(node: &str, modules: &Path, grammar: &str, inputs: &[&(String, String)]) -> Value {
    let request = json!({
        "grammar": grammar,
        "inputs": inputs
            .iter()
            .map(|(name, text)| json!({"name": name, "text": text}))
            .collect::<Vec<_>>(),
    });
    let mut child = Command::new(node)
        .arg(root().join("tests/gbnf/accept.mjs"))
        .arg(modules)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {node}: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        let written = stdin.write_all(request.to_string().as_bytes());
        assert!(written.is_ok(), "cannot write to accept.mjs: {written:?}");
    }
    let out = child
        .wait_with_output()
        .unwrap_or_else(|e| panic!("accept.mjs did not finish: {e}"));
    assert!(
        out.status.success(),
        "accept.mjs failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("accept.mjs printed no JSON ({e})"))
}

fn strata(args: &[&str]) -> String {
    let out = Command::new(STRATA)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run strata: {e}"));
    assert!(out.status.success(), "strata {args:?} failed: {out:?}");
    String::from_utf8(out.stdout).unwrap_or_else(|e| panic!("strata {args:?}: {e}"))
}

fn strata_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = entry.path();
            if p.is_dir() {
                pending.push(p);
            } else if p.extension().is_some_and(|e| e == "strata") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn parses(text: &str) -> bool {
    strata_lang::parser::parse(FileId(0), text).1.is_empty()
}

#[test]
fn grammar_is_valid_gbnf() {
    let Some((node, modules)) = consumer() else {
        return;
    };
    for args in [
        &["grammar"][..],
        &["grammar", "--doc"],
        &["grammar", "gbnf"],
    ] {
        let grammar = strata(args);
        assert!(grammar.starts_with("root ::=") || args.contains(&"--doc"));
        let (verdict, _) = check(&node, &modules, &grammar, &[]);
        assert_eq!(verdict, "ok", "strata {args:?} is not valid GBNF");
    }
}

#[test]
fn consumer_accepts_what_the_parser_accepts() {
    let Some((node, modules)) = consumer() else {
        return;
    };
    let grammar = strata(&["grammar"]);
    // (name, text, expected: accepted?)
    let mut inputs: Vec<(String, String, bool)> = Vec::new();
    // A program and its canonical formatting (accepted if it parses: the
    // formatter's output does not always).
    let add_formatted = |inputs: &mut Vec<(String, String, bool)>, name: String, text: String| {
        let formatted = strata_lang::fmt::format_source(FileId(0), &text)
            .unwrap_or_else(|e| panic!("{name} does not format: {e:?}"));
        let ok = parses(&formatted);
        inputs.push((format!("{name} (formatted)"), formatted, ok));
        inputs.push((name, text, true));
    };
    let mut examples = 0;
    for path in strata_files(&root().join("examples")) {
        let text = read(&path);
        assert!(parses(&text), "{} does not parse", rel(&path));
        add_formatted(&mut inputs, rel(&path), text);
        examples += 1;
    }
    assert!(examples >= 2, "no examples found");
    let mut rejected = Vec::new();
    for path in strata_files(&root().join("tests/corpus")) {
        let text = read(&path);
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let over = OVER_ACCEPTED.iter().any(|(f, _)| *f == name);
        let ok = parses(&text);
        assert!(!(ok && over), "{name} parses: remove it from OVER_ACCEPTED");
        if !ok {
            rejected.push(rel(&path));
        }
        inputs.push((rel(&path), text, ok || over));
    }
    assert!(
        rejected.len() >= 50,
        "the corpus has parse errors to reject"
    );
    let dir = std::env::temp_dir().join(format!("strata-gbnf-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    let count = SAMPLES.to_string();
    let dir_arg = dir.display().to_string();
    strata(&[
        "grammar", "sample", "--seed", "1", "--count", &count, "--out", &dir_arg,
    ]);
    let samples = strata_files(&dir);
    assert_eq!(samples.len(), SAMPLES);
    for path in samples {
        let text = read(&path);
        assert!(parses(&text), "sample {} does not parse", path.display());
        let name = format!(
            "sample {}",
            path.file_name().and_then(|n| n.to_str()).unwrap_or("")
        );
        add_formatted(&mut inputs, name, text);
    }
    let _ = fs::remove_dir_all(&dir);

    let request: Vec<(String, String)> = inputs
        .iter()
        .map(|(n, t, _)| (n.clone(), t.clone()))
        .collect();
    let (verdict, results) = check(&node, &modules, &grammar, &request);
    assert_eq!(verdict, "ok", "the grammar is not valid GBNF");
    let mut wrong = Vec::new();
    for (name, text, expected) in &inputs {
        let r = &results[name];
        let got = r["verdict"].as_str().unwrap_or("missing");
        let ok = match got {
            "accept" => *expected,
            "reject" | "incomplete" => !*expected,
            _ => false,
        };
        if !ok {
            let at = r["at"].as_u64().map_or(String::new(), |at| {
                let rest: String = text.chars().skip(at as usize).take(40).collect();
                format!(" at character {at}: {rest:?}")
            });
            let detail = r["error"].as_str().unwrap_or("");
            wrong.push(format!(
                "{name}: expected {}, got {got}{at} {detail}",
                if *expected { "accept" } else { "reject" }
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} inputs disagree:\n{}",
        wrong.len(),
        inputs.len(),
        wrong.join("\n")
    );
    eprintln!(
        "gbnf: {} inputs agree ({} examples, {} corpus programs rejected, {SAMPLES} samples)",
        inputs.len(),
        examples,
        rejected.len()
    );
}
