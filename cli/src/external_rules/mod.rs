//! External rules: executables, in any language, that `strata check` runs
//! after the built-in rules. Each gets the typed module as JSON on stdin and
//! answers diagnostics as JSON on stdout ([`schema`], version
//! [`schema::VERSION`]; docs/external-rules.md). Their diagnostics are
//! rendered, sorted and counted like the built-in ones, with the code
//! `<rule>:<code>` so that they can never collide with a built-in code or
//! with another rule's.
//!
//! Which rules run: those listed in strata.toml `[rules] external` (a name
//! with a `/` is a path relative to the strata.toml; a bare name is looked
//! up on `PATH`), then every `strata-rule-<name>` executable on `PATH`
//! unless `[rules] path-discovery = false`. Anything that goes wrong with a
//! rule (it cannot start, fails, times out, crashes or answers something
//! malformed) is an environment failure naming the rule, never a crash.

pub mod process;
pub mod schema;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use strata_lang::{Checked, Diagnostic, Severity, SourceMap, Span};

use crate::config::ProjectConfig;
use crate::external::{self, Lookup, RULE_PREFIX};
use process::Unfinished;
use schema::{AnswerSeverity, AnswerSpan};

/// How long a rule may run by default, in seconds.
pub const DEFAULT_TIMEOUT_SECS: f64 = 30.0;

/// An external rule executable and the name its diagnostics are prefixed
/// with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalRule {
    /// `naming` for `strata-rule-naming`; a listed file's name without its
    /// extension otherwise.
    pub name: String,
    pub path: PathBuf,
}

impl ExternalRule {
    fn from_path(path: PathBuf) -> ExternalRule {
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = stem.strip_prefix(RULE_PREFIX).unwrap_or(&stem).to_string();
        ExternalRule { name, path }
    }

    fn describe(&self) -> String {
        format!("external rule `{}` ({})", self.name, self.path.display())
    }
}

/// The `strata-rule-*` executables on `PATH`, by name. When the cache of
/// `PATH` listings is current ([`external::on_path_cached`]), found at once;
/// otherwise scanned on a thread of its own from [`PathRules::scan`] on
/// (reading the `PATH` directories takes about a millisecond, as long as
/// loading a large module), so that the scan is done by the time the module
/// is checked.
pub struct PathRules {
    scan: Option<std::thread::JoinHandle<BTreeMap<String, PathBuf>>>,
    found: BTreeMap<String, PathBuf>,
}

impl PathRules {
    /// Start scanning `PATH`.
    pub fn scan() -> PathRules {
        // With every listing cached, the scan is a `stat` per directory:
        // cheaper here than a thread of its own.
        if let Some(found) = external::on_path_cached(RULE_PREFIX) {
            return PathRules { scan: None, found };
        }
        let builder = std::thread::Builder::new().name("path-rules".into());
        let scan =
            builder.spawn(|| external::on_path(RULE_PREFIX));
        match scan {
            Ok(scan) => PathRules {
                scan: Some(scan),
                found: BTreeMap::new(),
            },
            Err(_) => PathRules {
                scan: None,
                found: external::on_path(RULE_PREFIX),
            },
        }
    }

    /// The rules found, once the scan is done.
    fn found(&mut self) -> &BTreeMap<String, PathBuf> {
        if let Some(scan) = self.scan.take() {
            self.found = scan
                .join()
                .unwrap_or_else(|_| external::on_path(RULE_PREFIX));
        }
        &self.found
    }
}

/// The rules a project runs: those its strata.toml lists, in order, then
/// the `strata-rule-*` executables on `PATH` (by name; one already listed
/// under the same name is not run twice), unless the project turned PATH
/// discovery off.
pub fn discover(
    config: &ProjectConfig,
    path_rules: &mut PathRules,
) -> Result<Vec<ExternalRule>, String> {
    let mut rules: Vec<ExternalRule> = Vec::new();
    let config_file = config
        .path
        .as_deref()
        .map_or_else(|| "strata.toml".to_string(), |p| p.display().to_string());
    for entry in &config.external_rules {
        let path = if entry.contains('/') || entry.contains(std::path::MAIN_SEPARATOR) {
            let path = config
                .dir()
                .map_or_else(|| PathBuf::from(entry), |d| d.join(entry));
            if !path.is_file() {
                return Err(format!(
                    "{config_file}: external rule `{entry}` not found ({} is not a file)",
                    path.display()
                ));
            }
            path
        } else {
            match external::lookup(entry) {
                Lookup::Found(path) => path,
                Lookup::NotExecutable(path) => {
                    return Err(format!(
                        "{config_file}: external rule `{entry}` is not executable ({})",
                        path.display()
                    ))
                }
                Lookup::Missing => {
                    return Err(format!(
                        "{config_file}: external rule `{entry}` not found on PATH"
                    ))
                }
            }
        };
        let rule = ExternalRule::from_path(path);
        if !rules.iter().any(|r| r.name == rule.name) {
            rules.push(rule);
        }
    }
    if config.path_rules {
        for (name, path) in path_rules.found() {
            if !rules.iter().any(|r| &r.name == name) {
                rules.push(ExternalRule {
                    name: name.clone(),
                    path: path.clone(),
                });
            }
        }
    }
    Ok(rules)
}

/// Run every rule over one checked module; their diagnostics, or the first
/// failure as a message naming the rule.
pub fn run_all(
    rules: &[ExternalRule],
    root: &Path,
    checked: &Checked,
    timeout: Duration,
) -> Result<Vec<Diagnostic>, String> {
    let mut out = Vec::new();
    for rule in rules {
        let input = input_json(rule, root, checked)?;
        out.extend(run_one(rule, input, &checked.sources, timeout)?);
    }
    Ok(out)
}

/// The input document for one rule, as one line of JSON.
fn input_json(rule: &ExternalRule, root: &Path, checked: &Checked) -> Result<Vec<u8>, String> {
    let builder = schema::Builder {
        sources: &checked.sources,
    };
    let doc = schema::Document {
        version: schema::VERSION,
        strata_version: env!("CARGO_PKG_VERSION"),
        rule: &rule.name,
        root: root.display().to_string(),
        files: checked
            .sources
            .files()
            .map(|(_, f)| schema::File {
                path: f.path.display().to_string(),
                text: &f.text,
            })
            .collect(),
        module: builder.module(&checked.module),
    };
    let mut bytes = serde_json::to_vec(&doc)
        .map_err(|e| format!("cannot serialise the module for {}: {e}", rule.describe()))?;
    bytes.push(b'\n');
    Ok(bytes)
}

fn run_one(
    rule: &ExternalRule,
    input: Vec<u8>,
    sources: &SourceMap,
    timeout: Duration,
) -> Result<Vec<Diagnostic>, String> {
    let this = std::env::current_exe().unwrap_or_default();
    let finished = match process::run(&rule.path, &[("STRATA", &this)], input, timeout) {
        Ok(f) => f,
        Err(Unfinished::Spawn(e)) => {
            return Err(format!("{} cannot be run: {e}", rule.describe()));
        }
        Err(Unfinished::Wait(e)) => {
            return Err(format!("{} could not be waited for: {e}", rule.describe()));
        }
        Err(Unfinished::TimedOut { stderr }) => {
            return Err(format!(
                "{} did not answer within {} s and was stopped (raise the limit with --rule-timeout){}",
                rule.describe(),
                timeout.as_secs_f64(),
                stderr_tail(&stderr)
            ));
        }
    };
    let stderr = stderr_tail(&finished.stderr);
    match external::describe_exit(finished.status) {
        (Some(problem), _) => {
            return Err(format!("{} {problem}{stderr}", rule.describe()));
        }
        (None, 0) => {}
        (None, code) => {
            return Err(format!(
                "{} failed with exit code {code}{stderr}",
                rule.describe()
            ));
        }
    }
    // A rule's own messages on stderr are passed on, as a command's are.
    if !finished.stderr.is_empty() {
        eprint!("{}", String::from_utf8_lossy(&finished.stderr));
    }
    diagnostics_of(&rule.name, &finished.stdout, sources)
        .map_err(|e| format!("{} answered {e}", rule.describe()))
}

/// The last lines a failed rule wrote on stderr, to show with the failure.
fn stderr_tail(stderr: &[u8]) -> String {
    const LINES: usize = 20;
    let text = String::from_utf8_lossy(stderr);
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return String::new();
    }
    let skip = lines.len().saturating_sub(LINES);
    let mut out = String::from("\nits stderr ends with:");
    for line in &lines[skip..] {
        out.push_str("\n  | ");
        out.push_str(line);
    }
    out
}

/// Parse and validate an answer; each message says what is wrong with it.
pub fn diagnostics_of(
    rule: &str,
    stdout: &[u8],
    sources: &SourceMap,
) -> Result<Vec<Diagnostic>, String> {
    let value: serde_json::Value = serde_json::from_slice(stdout).map_err(|e| {
        if stdout.iter().all(u8::is_ascii_whitespace) {
            "nothing on stdout (expected a JSON document)".to_string()
        } else {
            format!("malformed JSON on stdout: {e}")
        }
    })?;
    match value.get("version") {
        Some(v) if v.as_u64() == Some(schema::VERSION) => {}
        Some(v) => {
            return Err(format!(
                "version {v}, but this strata reads version {} (see docs/external-rules.md)",
                schema::VERSION
            ))
        }
        None => {
            return Err(format!(
                "a document without \"version\" (this strata reads version {})",
                schema::VERSION
            ))
        }
    }
    let answer: schema::Answer = serde_json::from_value(value)
        .map_err(|e| format!("a document that does not follow version 1: {e}"))?;
    answer
        .diagnostics
        .into_iter()
        .enumerate()
        .map(|(i, d)| {
            diagnostic(rule, d, sources)
                .map_err(|e| format!("an invalid diagnostic (number {}): {e}", i + 1))
        })
        .collect()
}

fn diagnostic(
    rule: &str,
    d: schema::AnswerDiagnostic,
    sources: &SourceMap,
) -> Result<Diagnostic, String> {
    let code_ok = d.code.len() <= 32
        && d.code
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic())
        && d.code
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if !code_ok {
        return Err(format!(
            "code {:?} must be 1-32 ASCII letters, digits, `_` or `-`, starting with a letter",
            d.code
        ));
    }
    if d.message.trim().is_empty() {
        return Err("an empty message".into());
    }
    let code = intern(format!("{rule}:{}", d.code));
    let span = span(&d.span, sources)?;
    let severity = match d.severity {
        AnswerSeverity::Error => Severity::Error,
        AnswerSeverity::Warning => Severity::Warning,
    };
    let mut out = Diagnostic::external(code, severity, span, d.message);
    out.label = d.label;
    out.help = d.help;
    out.notes = d.notes;
    for l in d.labels {
        out = out.with_secondary(span_of_label(&l.span, sources)?, l.message);
    }
    Ok(out)
}

fn span_of_label(s: &AnswerSpan, sources: &SourceMap) -> Result<Span, String> {
    span(s, sources).map_err(|e| format!("a label's {e}"))
}

/// A span of the answer, checked against the module's files.
fn span(s: &AnswerSpan, sources: &SourceMap) -> Result<Span, String> {
    let count = sources.files().count();
    if s.file as usize >= count {
        return Err(format!(
            "span file {} is not one of the {count} input files (0-based index)",
            s.file
        ));
    }
    let file_id = strata_lang::FileId(s.file);
    let text = &sources.get(file_id).text;
    let (start, end) = (s.start as usize, s.end as usize);
    if start > end || end > text.len() {
        return Err(format!(
            "span {start}..{end} is outside {} ({} bytes)",
            sources.get(file_id).path.display(),
            text.len()
        ));
    }
    if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
        return Err(format!(
            "span {start}..{end} cuts a character of {}",
            sources.get(file_id).path.display()
        ));
    }
    Ok(Span::new(file_id, start, end))
}

/// A `'static` copy of a code: diagnostics carry `&'static str` codes, and an
/// external rule's are known only at run time. Each distinct code is kept
/// once for the life of the process.
fn intern(code: String) -> &'static str {
    static CODES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut codes = match CODES.lock() {
        Ok(c) => c,
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some(c) = codes.get(code.as_str()) {
        return c;
    }
    let leaked: &'static str = Box::leak(code.into_boxed_str());
    codes.insert(leaked);
    leaked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources() -> SourceMap {
        let mut s = SourceMap::new();
        s.add("m.strata", "model m { from é }\n");
        s
    }

    fn answer(text: &str) -> Result<Vec<Diagnostic>, String> {
        diagnostics_of("demo", text.as_bytes(), &sources())
    }

    #[test]
    fn a_valid_answer_becomes_namespaced_diagnostics() {
        let d = answer(
            r#"{"version": 1, "diagnostics": [{"code": "N1", "severity": "warning", "message": "m",
                "span": {"file": 0, "start": 6, "end": 7, "line": 1, "column": 7},
                "help": "h", "notes": ["n"], "labels": [{"span": {"file": 0, "start": 0, "end": 5}, "message": "l"}]}]}"#,
        )
        .expect("valid");
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].code, "demo:N1");
        assert!(!d[0].is_error());
        assert_eq!(d[0].span.range(), 6..7);
        assert_eq!(d[0].help.as_deref(), Some("h"));
        assert_eq!(d[0].labels[0].message, "l");
        assert!(answer(r#"{"version": 1, "diagnostics": []}"#)
            .expect("valid")
            .is_empty());
    }

    #[test]
    fn every_malformed_answer_is_a_message() {
        let span = r#""span": {"file": 0, "start": 0, "end": 1}"#;
        for (text, expected) in [
            ("", "nothing on stdout"),
            ("{", "malformed JSON"),
            (r#"{"diagnostics": []}"#, "without \"version\""),
            (r#"{"version": 2, "diagnostics": []}"#, "version 2, but"),
            (
                r#"{"version": "1", "diagnostics": []}"#,
                "version \"1\", but",
            ),
            (r#"{"version": 1}"#, "missing field `diagnostics`"),
            (
                &format!(
                    r#"{{"version": 1, "diagnostics": [{{"code": "9x", "severity": "error", "message": "m", {span}}}]}}"#
                ),
                "code \"9x\"",
            ),
            (
                &format!(
                    r#"{{"version": 1, "diagnostics": [{{"code": "A", "severity": "fatal", "message": "m", {span}}}]}}"#
                ),
                "unknown variant `fatal`",
            ),
            (
                &format!(
                    r#"{{"version": 1, "diagnostics": [{{"code": "A", "severity": "error", "mesage": "m", {span}}}]}}"#
                ),
                "unknown field `mesage`",
            ),
            (
                r#"{"version": 1, "diagnostics": [{"code": "A", "severity": "error", "message": "m", "span": {"file": 1, "start": 0, "end": 1}}]}"#,
                "span file 1 is not one of the 1 input files",
            ),
            (
                r#"{"version": 1, "diagnostics": [{"code": "A", "severity": "error", "message": "m", "span": {"file": 0, "start": 5, "end": 99}}]}"#,
                "span 5..99 is outside m.strata",
            ),
            (
                r#"{"version": 1, "diagnostics": [{"code": "A", "severity": "error", "message": "m", "span": {"file": 0, "start": 0, "end": 16}}]}"#,
                "cuts a character",
            ),
        ] {
            match answer(text) {
                Err(e) => assert!(e.contains(expected), "{text}: {e}"),
                Ok(d) => panic!("{text} was accepted: {d:?}"),
            }
        }
    }

    #[test]
    fn interned_codes_are_shared() {
        let a = intern("x:A".to_string());
        let b = intern("x:A".to_string());
        assert!(std::ptr::eq(a, b));
    }

    #[test]
    fn a_listed_rule_is_named_after_its_file() {
        let r = ExternalRule::from_path(PathBuf::from("tools/strata-rule-naming"));
        assert_eq!(r.name, "naming");
        let r = ExternalRule::from_path(PathBuf::from("tools/pii_check.py"));
        assert_eq!(r.name, "pii_check");
    }
}
