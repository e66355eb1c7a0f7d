//! External rules: executables, in any language, that `strata check` runs
//! after the built-in rules. Each gets the typed module as JSON on stdin and
//! answers diagnostics as JSON on stdout ([`schema`], version
//! [`schema::VERSION`]; docs/external-rules.md). Their diagnostics are
//! rendered, sorted and counted like the built-in ones, with the code
//! `<rule>:<code>` so that they can never collide with a built-in code or
//! with another rule's.
//!
//! A rule is handed the module's full text, so only rules the user asked
//! for run ([`resolve`]): those named with `strata check --rule`, those
//! listed in strata.toml `[rules] external` (in both, a name with a `/` is a
//! path, a bare name is looked up on `PATH`), and the `strata-rule-<name>`
//! executables on `PATH` only when strata.toml says `[rules] path-discovery
//! = true`. Anything that goes wrong with a rule (it cannot start, fails,
//! times out, crashes or answers something malformed) is an environment
//! failure naming the rule, never a crash.

pub mod process;
pub mod schema;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use strata_lang::{Checked, Diagnostic, Severity, SourceMap, Span};

use strata_project::ProjectConfig;

use crate::path::{self as external, Lookup, RULE_PREFIX};
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

/// The rules to run over a project's modules, in order: those named on the
/// command line (`strata check --rule`, `cli_rules`), then those its
/// strata.toml lists, then, only when the strata.toml turns PATH discovery
/// on, the `strata-rule-*` executables on `PATH`. A name runs once, the
/// first of that name winning (so `--rule` can stand in for a listed rule).
/// A rule named on the command line or listed that is missing or not
/// executable is an error.
///
/// In `cli_rules` and the strata.toml's list alike, an entry with a `/` is
/// a path (relative to the current directory, or to the strata.toml's
/// directory); a bare name is an executable on `PATH`.
pub fn resolve(config: &ProjectConfig, cli_rules: &[PathBuf]) -> Result<Vec<ExternalRule>, String> {
    let mut rules: Vec<ExternalRule> = Vec::new();
    let mut add = |rule: ExternalRule| {
        if !rules.iter().any(|r| r.name == rule.name) {
            rules.push(rule);
        }
    };
    for entry in cli_rules {
        add(ExternalRule::from_path(find(entry, None, "--rule")?));
    }
    let config_file = config
        .path
        .as_deref()
        .map_or_else(|| "strata.toml".to_string(), |p| p.display().to_string());
    for entry in &config.external_rules {
        add(ExternalRule::from_path(find(
            Path::new(entry),
            config.dir(),
            &config_file,
        )?));
    }
    if config.path_rules {
        for (name, path) in rules_on_path() {
            add(ExternalRule {
                name: name.clone(),
                path: path.clone(),
            });
        }
    }
    Ok(rules)
}

/// The `strata-rule-*` executables on `PATH`, read once per run (a project
/// of many modules asks for them once per module).
fn rules_on_path() -> &'static BTreeMap<String, PathBuf> {
    static FOUND: OnceLock<BTreeMap<String, PathBuf>> = OnceLock::new();
    FOUND.get_or_init(|| external::on_path(RULE_PREFIX))
}

/// The executable a rule entry names: a path (joined to `base` when
/// relative and there is one) that must be a file, or a bare name looked
/// up on `PATH`. `origin` (the strata.toml, or `--rule`) starts each
/// message.
fn find(entry: &Path, base: Option<&Path>, origin: &str) -> Result<PathBuf, String> {
    let shown = entry.display();
    // A bare name is its own file name (`a/`, `./a` and `..` are paths).
    if entry.file_name() != Some(entry.as_os_str()) {
        let path = base.map_or_else(|| entry.to_path_buf(), |d| d.join(entry));
        if !path.is_file() {
            return Err(format!(
                "{origin}: external rule `{shown}` not found ({} is not a file)",
                path.display()
            ));
        }
        return Ok(path);
    }
    match external::lookup(entry) {
        Lookup::Found(path) => Ok(path),
        Lookup::NotExecutable(path) => Err(format!(
            "{origin}: external rule `{shown}` is not executable ({})",
            path.display()
        )),
        Lookup::Missing => Err(format!(
            "{origin}: external rule `{shown}` not found on PATH"
        )),
    }
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
        Err(Unfinished::TimedOut {
            stderr,
            exited: false,
        }) => {
            return Err(format!(
                "{} did not answer within {} s and was stopped (raise the limit with --rule-timeout){}",
                rule.describe(),
                timeout.as_secs_f64(),
                stderr_tail(&stderr)
            ));
        }
        Err(Unfinished::TimedOut {
            stderr,
            exited: true,
        }) => {
            return Err(format!(
                "{} exited, but a process it started still held its stdout or stderr open after {} s and was stopped{}",
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

    /// A fresh directory holding the executables `names` (and nothing on
    /// any `PATH`).
    #[cfg(unix)]
    fn tools(test: &str, names: &[&str]) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("strata-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        for name in names {
            let path = dir.join(name);
            std::fs::write(&path, "#!/bin/sh\n").expect("write");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        dir
    }

    fn config_in(dir: &Path, external: &[&str]) -> ProjectConfig {
        ProjectConfig {
            path: Some(dir.join("strata.toml")),
            external_rules: external.iter().map(|e| e.to_string()).collect(),
            ..ProjectConfig::default()
        }
    }

    #[cfg(unix)]
    #[test]
    fn command_line_rules_run_first_and_win_by_name() {
        let dir = tools("resolve-order", &["strata-rule-a", "b"]);
        std::fs::create_dir(dir.join("x")).expect("mkdir");
        std::fs::copy(dir.join("b"), dir.join("x/strata-rule-a")).expect("copy");
        let config = config_in(&dir, &["./b", "x/strata-rule-a"]);
        let cli = [dir.join("strata-rule-a")];
        let rules = resolve(&config, &cli).expect("all found");
        let found: Vec<(&str, &Path)> = rules
            .iter()
            .map(|r| (r.name.as_str(), r.path.as_path()))
            .collect();
        assert_eq!(
            found,
            [
                ("a", dir.join("strata-rule-a").as_path()),
                ("b", dir.join("./b").as_path())
            ]
        );
        // Without `--rule`, the listed `a` runs.
        let rules = resolve(&config, &[]).expect("all found");
        assert_eq!(rules[1].path, dir.join("x/strata-rule-a"));
        // Nothing asked for, nothing runs: PATH discovery is off by default.
        assert!(resolve(&config_in(&dir, &[]), &[])
            .expect("none")
            .is_empty());
        std::fs::remove_dir_all(&dir).ok();
    }

    #[cfg(unix)]
    #[test]
    fn a_missing_rule_is_an_error_naming_where_it_was_asked_for() {
        let dir = tools("resolve-missing", &[]);
        let config = config_in(&dir, &["tools/nope"]);
        let e = resolve(&config, &[]).expect_err("missing");
        assert!(
            e.starts_with(&format!(
                "{}: external rule `tools/nope` not found",
                dir.join("strata.toml").display()
            )),
            "{e}"
        );
        let e = resolve(&config_in(&dir, &[]), &[dir.join("nope")]).expect_err("missing");
        assert!(e.starts_with("--rule: external rule `"), "{e}");
        assert!(e.ends_with("is not a file)"), "{e}");
        // A bare name is looked up on PATH, never in the current directory.
        let e = resolve(
            &config_in(&dir, &[]),
            &[PathBuf::from("strata-rule-surely-not-installed")],
        )
        .expect_err("missing");
        assert_eq!(
            e,
            "--rule: external rule `strata-rule-surely-not-installed` not found on PATH"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_listed_rule_is_named_after_its_file() {
        let r = ExternalRule::from_path(PathBuf::from("tools/strata-rule-naming"));
        assert_eq!(r.name, "naming");
        let r = ExternalRule::from_path(PathBuf::from("tools/pii_check.py"));
        assert_eq!(r.name, "pii_check");
    }
}
