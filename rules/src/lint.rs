//! Running the lints over a checked module: every lint's diagnostics, then
//! the `# strata: allow(...)` suppression comments, then the levels.
//!
//! * [`Levels`]: each lint's level, from its default, `strata.toml`'s
//!   `[lints]` table and the command line, in that order (later wins).
//! * Suppressions: a comment `# strata: allow(W001, W002)` (or `//`, or
//!   `/* */`) on its own line directly above a `model`, `source` or
//!   `contract` (other comment lines may come between) silences those
//!   lints for that declaration only. A listed lint that does not fire
//!   there is reported (W090); a directive strata cannot apply is reported
//!   (W091).
//! * [`lint`]: all of it; the result holds only lint diagnostics, each
//!   with the severity its level gives (`warn`: warning, `deny`: error).

use std::collections::{BTreeMap, HashMap};

use strata_codes as codes;
use strata_lang::diag::sort_diagnostics;
use strata_lang::{Checked, Diagnostic, FileId, Severity, SourceMap, Span};

use crate::{Level, Rule};

/// The lint code of unused suppressions.
const UNUSED_SUPPRESSION: &codes::Code = &codes::W090;
/// The lint code of suppressions that cannot be applied.
const INVALID_SUPPRESSION: &codes::Code = &codes::W091;

/// The group of every lint.
pub const GROUP_ALL: &str = "all";
/// The group of the lints whose level is `warn` at that point.
pub const GROUP_WARNINGS: &str = "warnings";

/// Every lint: the registered rules whose diagnostics are warnings.
pub fn lint_rules() -> impl Iterator<Item = &'static Rule> {
    crate::all()
        .into_iter()
        .filter(|r| r.severity == Severity::Warning)
}

/// A lint's level and what set it (for the note on a denied lint).
#[derive(Clone, Debug, PartialEq)]
struct Setting {
    level: Level,
    /// `None` for the default; else e.g. "`--deny warnings`".
    by: Option<String>,
}

/// The level of each lint.
#[derive(Clone, Debug, PartialEq)]
pub struct Levels {
    by_code: BTreeMap<&'static str, Setting>,
}

/// A level setting that names no lint (a usage error).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LevelError {
    pub message: String,
}

impl Default for Levels {
    fn default() -> Self {
        Levels::defaults()
    }
}

impl Levels {
    /// Every lint at the default level its code declares.
    pub fn defaults() -> Levels {
        Levels {
            by_code: lint_rules()
                .map(|r| {
                    let setting = Setting {
                        level: r.default_level,
                        by: None,
                    };
                    (r.code, setting)
                })
                .collect(),
        }
    }

    /// Set a level: `key` is a lint code (any case), `all` (every lint) or
    /// `warnings` (every lint whose level is `warn` now; so `--deny
    /// warnings` turns the warnings into errors and leaves allowed lints
    /// alone). `by` says where the setting comes from, for messages.
    pub fn set(&mut self, key: &str, level: Level, by: &str) -> Result<(), LevelError> {
        let setting = Setting {
            level,
            by: Some(by.to_string()),
        };
        if key.eq_ignore_ascii_case(GROUP_ALL) {
            for s in self.by_code.values_mut() {
                *s = setting.clone();
            }
            return Ok(());
        }
        if key.eq_ignore_ascii_case(GROUP_WARNINGS) {
            for s in self.by_code.values_mut().filter(|s| s.level == Level::Warn) {
                *s = setting.clone();
            }
            return Ok(());
        }
        let code = lint_code(key).map_err(|message| LevelError { message })?;
        self.by_code.insert(code, setting);
        Ok(())
    }

    /// Apply a `[lints]` table: the groups first (`all`, then `warnings`),
    /// then the codes, so that a code's own line wins whatever the order of
    /// the keys. `file` names the table in messages.
    pub fn set_table<'a>(
        &mut self,
        table: impl IntoIterator<Item = (&'a str, Level)>,
        file: &str,
    ) -> Result<(), LevelError> {
        let mut entries: Vec<(&str, Level)> = table.into_iter().collect();
        let rank = |k: &str| {
            if k.eq_ignore_ascii_case(GROUP_ALL) {
                0
            } else if k.eq_ignore_ascii_case(GROUP_WARNINGS) {
                1
            } else {
                2
            }
        };
        entries.sort_by_key(|(k, _)| rank(k));
        for (key, level) in entries {
            self.set(key, level, &format!("`{key} = \"{level}\"` in {file}"))
                .map_err(|e| LevelError {
                    message: format!("{file}: [lints] {}", e.message),
                })?;
        }
        Ok(())
    }

    /// The levels of one command, the one way they are made: the
    /// defaults, then a `[lints]` table (with the file it is in, for
    /// messages), then the command line's settings `(level, code or
    /// group)` in order (a later one wins). `Err` is the message of a bad
    /// table entry or setting (a usage error), a setting named as its flag.
    pub fn configured<'a>(
        table: Option<(impl IntoIterator<Item = (&'a str, Level)>, &str)>,
        settings: &[(Level, String)],
    ) -> Result<Levels, String> {
        let mut levels = Levels::defaults();
        if let Some((table, file)) = table {
            levels.set_table(table, file).map_err(|e| e.message)?;
        }
        for (level, key) in settings {
            levels
                .set(key, *level, &format!("`--{level} {key}`"))
                .map_err(|e| format!("--{level} {key}: {}", e.message))?;
        }
        Ok(levels)
    }

    /// The level of a code: a lint's setting; errors are always `deny`.
    pub fn level(&self, code: &str) -> Level {
        self.by_code.get(code).map_or(Level::Deny, |s| s.level)
    }

    fn denied_by(&self, code: &str) -> Option<&str> {
        self.by_code.get(code).and_then(|s| s.by.as_deref())
    }
}

/// The registered lint code a key names (any case), or why it names none.
fn lint_code(key: &str) -> Result<&'static str, String> {
    match crate::find(key) {
        Some(r) if r.severity == Severity::Warning => Ok(r.code),
        Some(r) => Err(format!(
            "{} is an error, not a lint: errors are always reported and cannot be allowed",
            r.code
        )),
        None => {
            let candidates: Vec<&str> = lint_rules()
                .map(|r| r.code)
                .chain([GROUP_WARNINGS, GROUP_ALL])
                .collect();
            let upper = key.to_ascii_uppercase();
            let hint = strata_lang::suggest::closest(&upper, candidates.iter().copied())
                .or_else(|| strata_lang::suggest::closest(key, candidates.iter().copied()))
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            Err(format!(
                "unknown lint `{key}`{hint}; a level applies to a lint code (`strata rules` lists them), `warnings` or `all`"
            ))
        }
    }
}

/// Run every lint over a checked module and apply the suppression comments
/// and the levels. The result is sorted into source order; it holds no
/// diagnostic of the module itself (those are in `checked.diagnostics`).
pub fn lint(checked: &Checked, levels: &Levels) -> Vec<Diagnostic> {
    let raw = crate::run_lints(&checked.module);
    let (mut directives, mut out) = directives(checked);
    directives.sort_by_key(|d| (d.decl.file, d.decl.start));
    for d in raw {
        if !suppress(&mut directives, &d) {
            out.push(d);
        }
    }
    for dir in &directives {
        for entry in dir.codes.iter().filter(|c| !c.used) {
            out.push(
                Diagnostic::new(
                    UNUSED_SUPPRESSION,
                    entry.span,
                    format!(
                        "unused suppression: {} does not fire on {}",
                        entry.code, dir.what
                    ),
                )
                .with_label("nothing to suppress")
                .with_help(format!("remove `{}` from the comment", entry.code)),
            );
        }
    }
    let mut out: Vec<Diagnostic> = out
        .into_iter()
        .filter_map(|d| at_level(d, levels))
        .collect();
    sort_diagnostics(&mut out);
    out
}

/// The diagnostic as its level makes it, or `None` when it is allowed.
fn at_level(mut d: Diagnostic, levels: &Levels) -> Option<Diagnostic> {
    match levels.level(d.code) {
        Level::Allow => None,
        Level::Warn => {
            d.severity = Severity::Warning;
            Some(d)
        }
        Level::Deny => {
            d.severity = Severity::Error;
            let by = levels
                .denied_by(d.code)
                .map_or("by default".to_string(), |b| format!("by {b}"));
            let note = format!("{} is denied {by}", d.code);
            Some(d.with_note(note))
        }
    }
}

/// One code of a suppression comment.
#[derive(Debug)]
struct Entry {
    code: &'static str,
    /// The code's text inside the comment.
    span: Span,
    used: bool,
}

/// A suppression comment attached to a declaration.
#[derive(Debug)]
struct Directive {
    /// The declaration it applies to.
    decl: Span,
    /// `model 'm'`, for messages.
    what: String,
    codes: Vec<Entry>,
}

/// Whether a directive on the declaration that contains `d` lists its code
/// (marking that entry used). `directives` is sorted by declaration start;
/// declarations do not nest, so the candidate is the last one starting at
/// or before the diagnostic.
fn suppress(directives: &mut [Directive], d: &Diagnostic) -> bool {
    let key = (d.span.file, d.span.start);
    let after = directives.partition_point(|dir| (dir.decl.file, dir.decl.start) <= key);
    // Several directives may sit on one declaration (separate comments).
    let mut suppressed = false;
    for dir in directives[..after].iter_mut().rev() {
        if dir.decl.file != d.span.file || dir.decl.end < d.span.end {
            break;
        }
        if let Some(entry) = dir.codes.iter_mut().find(|e| e.code == d.code) {
            entry.used = true;
            suppressed = true;
        }
    }
    suppressed
}

/// The declarations a suppression can sit above: start -> (span, what).
fn declarations(checked: &Checked) -> HashMap<(FileId, u32), (Span, String)> {
    let m = &checked.module;
    let models = m
        .models
        .iter()
        .map(|x| (x.span, format!("model '{}'", x.name)));
    let sources = m
        .sources
        .iter()
        .map(|x| (x.span, format!("source '{}'", x.name)));
    let contracts = m
        .contracts
        .iter()
        .map(|x| (x.span, format!("contract '{}'", x.name)));
    models
        .chain(sources)
        .chain(contracts)
        .map(|(span, what)| ((span.file, span.start), (span, what)))
        .collect()
}

/// Every `strata:` comment: the directives that apply, and W091 for the
/// others (and for the codes of an applicable one that cannot be allowed).
fn directives(checked: &Checked) -> (Vec<Directive>, Vec<Diagnostic>) {
    let decls = declarations(checked);
    let comment_ends: HashMap<(FileId, u32), u32> = checked
        .comments
        .iter()
        .map(|c| ((c.span.file, c.span.start), c.span.end))
        .collect();
    let mut found = Vec::new();
    let mut problems = Vec::new();
    for c in &checked.comments {
        let Some(parsed) = parse_directive(&c.text) else {
            continue;
        };
        let at = |range: std::ops::Range<usize>| {
            let start = c.span.start as usize;
            Span::new(c.span.file, start + range.start, start + range.end)
        };
        const ALLOW_HELP: &str = "write `# strata: allow(CODE, ...)` with lint codes such as W001";
        let codes = match parsed {
            Err(message) => {
                let d = invalid(c.span, message).with_label("not `strata: allow(CODE, ...)`");
                problems.push(d.with_help(ALLOW_HELP));
                continue;
            }
            Ok(codes) => codes,
        };
        let decl = match attached_declaration(&checked.sources, c.span, &decls, &comment_ends) {
            Ok(decl) => decl,
            Err(why) => {
                problems.push(
                    invalid(c.span, format!("this suppression applies to nothing: {why}"))
                        .with_label("not directly above a declaration")
                        .with_help(
                            "put it on its own line directly above the model, source or contract it is for",
                        ),
                );
                continue;
            }
        };
        let mut entries = Vec::new();
        for (text, range) in codes {
            match suppressible(text) {
                Ok(code) => entries.push(Entry {
                    code,
                    span: at(range),
                    used: false,
                }),
                Err(message) => {
                    problems.push(invalid(at(range), message).with_label("cannot be allowed here"))
                }
            }
        }
        found.push(Directive {
            decl: decl.0,
            what: decl.1.clone(),
            codes: entries,
        });
    }
    (found, problems)
}

fn invalid(span: Span, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(INVALID_SUPPRESSION, span, message)
}

/// A code a comment may allow: a lint other than the suppression lints.
fn suppressible(text: &str) -> Result<&'static str, String> {
    let code = lint_code(text).map_err(|m| {
        // The flag wording does not fit a comment: no groups here.
        m.split("; a level applies")
            .next()
            .unwrap_or(&m)
            .to_string()
    })?;
    if code == UNUSED_SUPPRESSION.code() || code == INVALID_SUPPRESSION.code() {
        return Err(format!(
            "{code} cannot be allowed by a comment; set its level with `--allow {code}` or `{code} = \"allow\"` in the [lints] table of strata.toml"
        ));
    }
    Ok(code)
}

/// The codes of a `strata:` comment with their byte ranges in the comment
/// text; `None` for an ordinary comment; `Err` for a malformed directive.
#[allow(clippy::type_complexity)]
fn parse_directive(text: &str) -> Option<Result<Vec<(&str, std::ops::Range<usize>)>, String>> {
    let (body_start, body) = if let Some(b) = text.strip_prefix('#') {
        (1, b)
    } else if let Some(b) = text.strip_prefix("//") {
        (2, b)
    } else if let Some(b) = text.strip_prefix("/*") {
        (2, b.strip_suffix("*/").unwrap_or(b))
    } else {
        return None;
    };
    let lead = body.len() - body.trim_start().len();
    let rest = body.trim_start().strip_prefix("strata:")?;
    // Offset of `rest` in `text`.
    let mut pos = body_start + lead + "strata:".len();
    let word_len = rest.trim_start().len();
    pos += rest.len() - word_len;
    let rest = rest.trim_start();
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    if word != "allow" {
        let found = if word.is_empty() {
            "nothing".to_string()
        } else {
            format!("`{word}`")
        };
        return Some(Err(format!(
            "malformed suppression: expected `strata: allow(CODE, ...)`, found {found} after `strata:`"
        )));
    }
    let after_word = &rest[word.len()..];
    let open = after_word.len() - after_word.trim_start().len();
    let Some(inner_and_rest) = after_word.trim_start().strip_prefix('(') else {
        return Some(Err(
            "malformed suppression: expected `(` after `allow`, as in `strata: allow(W001)`"
                .to_string(),
        ));
    };
    let Some(close) = inner_and_rest.find(')') else {
        return Some(Err(
            "malformed suppression: `allow(` has no closing `)`".to_string()
        ));
    };
    if !inner_and_rest[close + 1..].trim().is_empty() {
        return Some(Err(format!(
            "malformed suppression: unexpected `{}` after `allow(...)`",
            inner_and_rest[close + 1..].trim()
        )));
    }
    let inner = &inner_and_rest[..close];
    let inner_start = pos + word.len() + open + 1;
    let mut codes = Vec::new();
    let mut offset = 0;
    for part in inner.split(',') {
        let trimmed = part.trim();
        let start = inner_start + offset + (part.len() - part.trim_start().len());
        offset += part.len() + 1;
        if trimmed.is_empty() {
            let what = if inner.trim().is_empty() {
                "`allow()` lists no code"
            } else {
                "an empty code between commas"
            };
            return Some(Err(format!("malformed suppression: {what}")));
        }
        codes.push((trimmed, start..start + trimmed.len()));
    }
    Some(Ok(codes))
}

/// The declaration a comment is attached to: the comment is alone on its
/// line, and the next line that is not a comment of the same run starts a
/// model, source or contract.
fn attached_declaration<'d>(
    sources: &SourceMap,
    comment: Span,
    decls: &'d HashMap<(FileId, u32), (Span, String)>,
    comment_ends: &HashMap<(FileId, u32), u32>,
) -> Result<&'d (Span, String), &'static str> {
    let text = sources.get(comment.file).text.as_str();
    let start = comment.start as usize;
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    if !text[line_start..start].trim().is_empty() {
        return Err("it ends a line of code");
    }
    let mut end = comment.end as usize;
    loop {
        let Some(newline) = text[end..].find('\n') else {
            return Err("nothing follows it");
        };
        if !text[end..end + newline].trim().is_empty() {
            return Err("code follows it on the same line");
        }
        let next = end + newline + 1;
        let line = text[next..].split('\n').next().unwrap_or("");
        if line.trim().is_empty() {
            return Err(if next >= text.len() {
                "nothing follows it"
            } else {
                "a blank line separates it from what follows"
            });
        }
        let first = (next + line.len() - line.trim_start().len()) as u32;
        if let Some(decl) = decls.get(&(comment.file, first)) {
            return Ok(decl);
        }
        match comment_ends.get(&(comment.file, first)) {
            Some(e) => end = *e as usize,
            None => return Err("the line after it is not a model, source or contract"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(text: &str) -> Vec<&str> {
        match parse_directive(text) {
            Some(Ok(codes)) => codes
                .into_iter()
                .map(|(code, range)| {
                    assert_eq!(&text[range], code, "range of {code} in {text:?}");
                    code
                })
                .collect(),
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    fn malformed(text: &str) -> String {
        match parse_directive(text) {
            Some(Err(m)) => m,
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    #[test]
    fn directives_are_parsed_with_the_span_of_each_code() {
        assert_eq!(codes("# strata: allow(W003)"), ["W003"]);
        assert_eq!(codes("#strata:allow( W001 ,W002 )"), ["W001", "W002"]);
        assert_eq!(codes("// strata: allow(W001)"), ["W001"]);
        assert_eq!(codes("/* strata: allow (W001) */"), ["W001"]);
        assert!(parse_directive("# an ordinary comment").is_none());
        assert!(parse_directive("# strata is great").is_none());
    }

    #[test]
    fn malformed_directives_say_what_is_wrong() {
        assert!(malformed("# strata: alow(W001)").contains("found `alow`"));
        assert!(malformed("# strata:").contains("found nothing"));
        assert!(malformed("# strata: allow W001").contains("expected `(`"));
        assert!(malformed("# strata: allow(W001").contains("no closing"));
        assert!(malformed("# strata: allow(W001) please").contains("unexpected `please`"));
        assert!(malformed("# strata: allow()").contains("lists no code"));
        assert!(malformed("# strata: allow(W001,,W002)").contains("empty code"));
    }

    #[test]
    fn levels_follow_the_order_of_settings() {
        let mut l = Levels::defaults();
        assert_eq!(l.level("W001"), Level::Warn);
        assert_eq!(l.level("W003"), Level::Allow);
        assert_eq!(l.level("E040"), Level::Deny);
        l.set("warnings", Level::Deny, "x").expect("group");
        assert_eq!(l.level("W001"), Level::Deny);
        assert_eq!(l.level("W003"), Level::Allow, "allowed lints stay allowed");
        l.set("w001", Level::Warn, "x").expect("code in any case");
        assert_eq!(l.level("W001"), Level::Warn);
        l.set("all", Level::Allow, "x").expect("group");
        assert!(lint_rules().all(|r| l.level(r.code) == Level::Allow));
    }

    #[test]
    fn a_table_applies_groups_before_codes() {
        let mut l = Levels::defaults();
        l.set_table([("W002", Level::Warn), ("all", Level::Deny)], "strata.toml")
            .expect("valid");
        assert_eq!(l.level("W002"), Level::Warn);
        assert_eq!(l.level("W001"), Level::Deny);
    }

    #[test]
    fn unknown_and_error_codes_are_refused_with_a_suggestion() {
        let mut l = Levels::defaults();
        let e = l.set("W00l", Level::Deny, "x").expect_err("unknown");
        assert!(e.message.contains("did you mean `W001`?"), "{}", e.message);
        let e = l.set("warning", Level::Deny, "x").expect_err("unknown");
        assert!(
            e.message.contains("did you mean `warnings`?"),
            "{}",
            e.message
        );
        let e = l.set("E040", Level::Allow, "x").expect_err("an error");
        assert!(e.message.contains("E040 is an error"), "{}", e.message);
        let e = l
            .set_table([("W01", Level::Allow)], "p/strata.toml")
            .expect_err("unknown");
        assert!(
            e.message
                .starts_with("p/strata.toml: [lints] unknown lint `W01`"),
            "{}",
            e.message
        );
    }
}
