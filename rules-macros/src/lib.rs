//! `#[rule(...)]`: declares a strata diagnostic code and registers it in the
//! rule registry of the `strata-rules` crate.
//!
//! ```ignore
//! /// Unknown column.
//! ///
//! /// ## What it means
//! /// ...
//! #[rule(code = "E040", name = "unknown-column", severity = error, phase = resolve)]
//! pub struct UnknownColumn;
//!
//! /// The model has no `owner:`.
//! #[rule(code = "W002", name = "model-without-owner", severity = warning, phase = lint, level = warn)]
//! pub fn model_without_owner(module: &strata_lang::ir::Module, out: &mut Vec<strata_lang::Diagnostic>) {}
//!
//! /// Misused join `expect`.
//! #[rule(code = "E079", name = "join-cardinality-shape", severity = error, phase = check)]
//! pub fn join_cardinality_shape(module: &strata_lang::ir::Module, out: &mut Vec<strata_lang::Diagnostic>) {}
//! ```
//!
//! On a `struct` the rule is a declaration of a code that the parser, the
//! checker or the materializer emits; on a `fn` it is also a check over the
//! typed IR. A warning (a `W` code, a lint) declares its default `level`
//! (`allow`, `warn` or `deny`); an error is always `deny`, so `level` may be
//! left out (and may not be anything else). Either way the item is kept and an `::inventory::submit!` of a
//! `::strata_rules::Rule` is emitted beside it, so a crate using the macro
//! depends on `strata-rules`, `strata-rules-macros` and `inventory`.
//!
//! The arguments and the doc comment are validated at compile time; the
//! validation is plain functions over parsed syntax ([`RuleArgs::from_args`],
//! [`doc_text`]) so that it is unit-tested here without a compile-fail
//! harness.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, Item, Lit, LitStr, MetaNameValue, Token};

/// Declare and register a rule. See the crate documentation.
#[proc_macro_attribute]
pub fn rule(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = TokenStream2::from(item);
    match expand(attr.into(), item.clone()) {
        Ok(tokens) => tokens.into(),
        // Keep the item so that its uses do not add errors of their own.
        Err(err) => {
            let err = err.to_compile_error();
            quote!(#item #err).into()
        }
    }
}

fn expand(attr: TokenStream2, item: TokenStream2) -> syn::Result<TokenStream2> {
    let args = Punctuated::<MetaNameValue, Token![,]>::parse_terminated.parse2(attr)?;
    let args = RuleArgs::from_args(args.into_iter().collect())?;
    let item: Item = syn::parse2(item)?;
    let (attrs, check) = match &item {
        Item::Struct(s) => (&s.attrs, None),
        Item::Fn(f) => (&f.attrs, Some(&f.sig.ident)),
        other => {
            return Err(syn::Error::new(
                other.span(),
                "#[rule] goes on a `struct` (a code that the parser, checker or \
                 materializer emits) or on a `fn` (a check over the typed IR)",
            ))
        }
    };
    let doc = doc_text(attrs, item_ident_span(&item))?;
    Ok(registration(&item, &args, &doc, check))
}

fn item_ident_span(item: &Item) -> Span {
    match item {
        Item::Struct(s) => s.ident.span(),
        Item::Fn(f) => f.sig.ident.span(),
        other => other.span(),
    }
}

fn registration(
    item: &Item,
    args: &RuleArgs,
    doc: &str,
    check: Option<&syn::Ident>,
) -> TokenStream2 {
    let code = args.code.as_str();
    let name = args.name.as_str();
    let severity = syn::Ident::new(args.severity.variant(), Span::call_site());
    let phase = syn::Ident::new(args.phase.variant(), Span::call_site());
    let level = syn::Ident::new(args.level.variant(), Span::call_site());
    let doc = LitStr::new(doc, Span::call_site());
    let check = match check {
        Some(f) => quote!(::core::option::Option::Some(#f)),
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #item
        ::inventory::submit! {
            ::strata_rules::Rule {
                code: #code,
                name: #name,
                severity: ::strata_rules::Severity::#severity,
                phase: ::strata_rules::Phase::#phase,
                default_level: ::strata_rules::Level::#level,
                doc: #doc,
                check: #check,
            }
        }
    }
}

/// How serious a rule's diagnostics are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Severity {
    Error,
    Warning,
}

impl Severity {
    const WORDS: &'static [(&'static str, Severity)] =
        &[("error", Severity::Error), ("warning", Severity::Warning)];

    fn variant(self) -> &'static str {
        match self {
            Severity::Error => "Error",
            Severity::Warning => "Warning",
        }
    }
}

/// When a rule's code is reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    Parse,
    Resolve,
    Check,
    Lint,
    Materialize,
}

impl Phase {
    const WORDS: &'static [(&'static str, Phase)] = &[
        ("parse", Phase::Parse),
        ("resolve", Phase::Resolve),
        ("check", Phase::Check),
        ("lint", Phase::Lint),
        ("materialize", Phase::Materialize),
    ];

    fn variant(self) -> &'static str {
        match self {
            Phase::Parse => "Parse",
            Phase::Resolve => "Resolve",
            Phase::Check => "Check",
            Phase::Lint => "Lint",
            Phase::Materialize => "Materialize",
        }
    }
}

/// A rule's default level (mirrors `strata_rules::Level`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    Allow,
    Warn,
    Deny,
}

impl Level {
    const WORDS: &'static [(&'static str, Level)] = &[
        ("allow", Level::Allow),
        ("warn", Level::Warn),
        ("deny", Level::Deny),
    ];

    fn variant(self) -> &'static str {
        match self {
            Level::Allow => "Allow",
            Level::Warn => "Warn",
            Level::Deny => "Deny",
        }
    }
}

/// The validated arguments of `#[rule(...)]`.
#[derive(Debug)]
pub(crate) struct RuleArgs {
    pub(crate) code: String,
    pub(crate) name: String,
    pub(crate) severity: Severity,
    pub(crate) phase: Phase,
    pub(crate) level: Level,
}

const ARG_NAMES: &str = "`code`, `name`, `severity`, `phase`, `level`";

impl RuleArgs {
    /// Validate the `key = value` arguments. Every problem is reported (the
    /// errors are combined), each at the argument it is about; a missing
    /// argument is reported at the attribute.
    pub(crate) fn from_args(args: Vec<MetaNameValue>) -> syn::Result<RuleArgs> {
        let mut errors = Errors::default();
        let mut code: Option<(String, Span)> = None;
        let mut name = None;
        let mut severity: Option<(Severity, Span)> = None;
        let mut phase = None;
        let mut level: Option<(Level, Span)> = None;
        for arg in &args {
            let Some(key) = arg.path.get_ident() else {
                errors.push(arg.path.span(), format!("expected one of {ARG_NAMES}"));
                continue;
            };
            let key_name = key.to_string();
            let seen = match key_name.as_str() {
                "code" => code.is_some(),
                "name" => name.is_some(),
                "severity" => severity.is_some(),
                "phase" => phase.is_some(),
                "level" => level.is_some(),
                _ => {
                    errors.push(
                        key.span(),
                        format!("unknown argument `{key_name}`; expected one of {ARG_NAMES}"),
                    );
                    continue;
                }
            };
            if seen {
                errors.push(key.span(), format!("duplicate argument `{key_name}`"));
                continue;
            }
            let parsed = match key_name.as_str() {
                "code" => parse_code(&arg.value).map(|c| code = Some((c, arg.value.span()))),
                "name" => parse_name(&arg.value).map(|n| name = Some(n)),
                "severity" => parse_word(&arg.value, "severity", Severity::WORDS)
                    .map(|s| severity = Some((s, arg.value.span()))),
                "level" => parse_word(&arg.value, "level", Level::WORDS)
                    .map(|l| level = Some((l, arg.value.span()))),
                _ => parse_word(&arg.value, "phase", Phase::WORDS).map(|p| phase = Some(p)),
            };
            if let Err(e) = parsed {
                errors.add(e);
            }
        }
        for (missing, example) in [
            (code.is_none(), "code = \"E040\""),
            (name.is_none(), "name = \"unknown-column\""),
            (severity.is_none(), "severity = error"),
            (phase.is_none(), "phase = resolve"),
        ] {
            let key = example.split(' ').next().unwrap_or(example);
            // A key given with a bad value was reported already.
            let given = args.iter().any(|a| a.path.is_ident(key));
            if missing && !given {
                errors.push(
                    Span::call_site(),
                    format!("missing argument `{key}` (e.g. `{example}`)"),
                );
            }
        }
        if let (Some((code, _)), Some((severity, span))) = (&code, &severity) {
            let required = match code.as_bytes().first() {
                Some(b'E' | b'F') => Some(Severity::Error),
                Some(b'W') => Some(Severity::Warning),
                _ => None,
            };
            if let Some(required) = required.filter(|r| r != severity) {
                let word = Severity::WORDS
                    .iter()
                    .find(|(_, s)| *s == required)
                    .map_or("", |(w, _)| w);
                errors.push(
                    *span,
                    format!("code `{code}` must have `severity = {word}` (E and F codes are errors, W codes warnings)"),
                );
            }
        }
        let level_given = args.iter().any(|a| a.path.is_ident("level"));
        match (&severity, &level) {
            (Some((Severity::Warning, _)), None) if !level_given => errors.push(
                Span::call_site(),
                "missing argument `level`: a warning is a lint and declares its default \
                 level (`level = warn`; `allow` for a pedantic lint, `deny` for one that \
                 fails the build)"
                    .to_string(),
            ),
            (Some((Severity::Error, _)), Some((l, span))) if *l != Level::Deny => errors.push(
                *span,
                "an error is always `level = deny` (only warnings have a level that \
                 can be changed); remove `level`"
                    .to_string(),
            ),
            _ => {}
        }
        errors.finish()?;
        match (code, name, severity, phase) {
            (Some((code, _)), Some(name), Some((severity, _)), Some(phase)) => Ok(RuleArgs {
                code,
                name,
                severity,
                phase,
                level: level.map_or(Level::Deny, |(l, _)| l),
            }),
            // Unreachable: every missing argument was reported above.
            _ => Err(syn::Error::new(Span::call_site(), "incomplete #[rule]")),
        }
    }
}

/// Accumulates errors so that one compile shows every problem.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, span: Span, message: String) {
        self.add(syn::Error::new(span, message));
    }

    fn add(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

fn string_literal(value: &Expr, what: &str, example: &str) -> syn::Result<String> {
    match value {
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) => Ok(s.value()),
        other => Err(syn::Error::new(
            other.span(),
            format!("`{what}` must be a string literal, e.g. `{what} = {example}`"),
        )),
    }
}

fn parse_code(value: &Expr) -> syn::Result<String> {
    let code = string_literal(value, "code", "\"E040\"")?;
    if is_valid_code(&code) {
        Ok(code)
    } else {
        Err(syn::Error::new(
            value.span(),
            format!(
                "invalid rule code \"{code}\": expected E, F or W followed by three digits \
                 (\"E040\", \"F001\", \"W002\"), \"ParseError\" or \"PinError\""
            ),
        ))
    }
}

/// `E\d{3}|F\d{3}|W\d{3}|ParseError|PinError`
pub(crate) fn is_valid_code(code: &str) -> bool {
    if code == "ParseError" || code == "PinError" {
        return true;
    }
    let bytes = code.as_bytes();
    bytes.len() == 4
        && matches!(bytes[0], b'E' | b'F' | b'W')
        && bytes[1..].iter().all(u8::is_ascii_digit)
}

fn parse_name(value: &Expr) -> syn::Result<String> {
    let name = string_literal(value, "name", "\"unknown-column\"")?;
    if is_kebab_case(&name) {
        Ok(name)
    } else {
        Err(syn::Error::new(
            value.span(),
            format!(
                "rule name \"{name}\" must be kebab-case: lowercase words of letters and \
                 digits joined by single `-`, e.g. \"unknown-column\""
            ),
        ))
    }
}

pub(crate) fn is_kebab_case(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.split('-').all(|word| {
            !word.is_empty()
                && word
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        })
}

fn parse_word<T: Copy>(value: &Expr, what: &str, words: &[(&str, T)]) -> syn::Result<T> {
    let expected = words
        .iter()
        .map(|(w, _)| format!("`{w}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let known = |w: &str| words.iter().find(|(name, _)| *name == w).map(|(_, v)| *v);
    let mut message = format!("`{what}` must be one of {expected}");
    match value {
        Expr::Path(p) => {
            if let Some(v) = p.path.get_ident().and_then(|i| known(&i.to_string())) {
                return Ok(v);
            }
        }
        Expr::Lit(ExprLit {
            lit: Lit::Str(s), ..
        }) if known(&s.value()).is_some() => {
            message = format!("write `{what} = {}`: a bare word, not a string", s.value());
        }
        _ => {}
    }
    Err(syn::Error::new(value.span(), message))
}

/// The item's doc comment as text: `#[doc]` lines joined with newlines, the
/// one leading space that `/// ` leaves stripped, trailing blank lines
/// removed. Its first line, the summary, must not be blank.
pub(crate) fn doc_text(attrs: &[Attribute], item_span: Span) -> syn::Result<String> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        let text = match &attr.meta {
            syn::Meta::NameValue(MetaNameValue {
                value:
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }),
                ..
            }) => s.value(),
            _ => {
                return Err(syn::Error::new(
                    attr.span(),
                    "a rule's documentation must be written as `///` doc comments",
                ))
            }
        };
        for line in text.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            lines.push(line.strip_prefix(' ').unwrap_or(line).to_owned());
        }
    }
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    match (first, last) {
        (Some(first), Some(last)) if first == 0 => Ok(lines[first..=last].join("\n")),
        (Some(_), _) => Err(syn::Error::new(
            item_span,
            "the first line of a rule's doc comment is its summary and must not be blank",
        )),
        _ => Err(syn::Error::new(
            item_span,
            "a rule needs a doc comment: a one-line summary (shown by `strata rules`), \
             then what the code means, a failing example and the fix (shown by `strata explain`)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> syn::Result<RuleArgs> {
        let parsed = Punctuated::<MetaNameValue, Token![,]>::parse_terminated
            .parse_str(text)
            .map_err(|e| syn::Error::new(e.span(), format!("test input does not parse: {e}")))?;
        RuleArgs::from_args(parsed.into_iter().collect())
    }

    fn error_of(text: &str) -> String {
        match args(text) {
            Ok(a) => panic!("expected an error for `{text}`, got {a:?}"),
            Err(e) => e
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    #[test]
    fn accepts_a_complete_declaration() {
        let a =
            args(r#"code = "E040", name = "unknown-column", severity = error, phase = resolve"#)
                .expect("valid");
        assert_eq!(a.code, "E040");
        assert_eq!(a.name, "unknown-column");
        assert_eq!(a.severity, Severity::Error);
        assert_eq!(a.phase, Phase::Resolve);
    }

    #[test]
    fn arguments_may_come_in_any_order_with_a_trailing_comma() {
        let a = args(
            r#"level = allow, phase = lint, severity = warning, name = "no-owner", code = "W002","#,
        )
        .expect("valid");
        assert_eq!(a.code, "W002");
        assert_eq!(a.severity, Severity::Warning);
        assert_eq!(a.phase, Phase::Lint);
        assert_eq!(a.level, Level::Allow);
    }

    #[test]
    fn a_warning_declares_its_level_and_an_error_is_deny() {
        let err = error_of(r#"code = "W002", name = "x", severity = warning, phase = lint"#);
        assert!(err.contains("missing argument `level`"), "{err}");
        let err = error_of(
            r#"code = "W002", name = "x", severity = warning, phase = lint, level = loud"#,
        );
        assert!(
            err.contains("`level` must be one of `allow`, `warn`, `deny`"),
            "{err}"
        );
        assert!(!err.contains("missing argument `level`"), "{err}");
        let err =
            error_of(r#"code = "E040", name = "x", severity = error, phase = check, level = warn"#);
        assert!(err.contains("an error is always `level = deny`"), "{err}");
        let a =
            args(r#"code = "E040", name = "x", severity = error, phase = check"#).expect("valid");
        assert_eq!(a.level, Level::Deny);
        let a = args(r#"code = "E040", name = "x", severity = error, phase = check, level = deny"#)
            .expect("valid");
        assert_eq!(a.level, Level::Deny);
    }

    #[test]
    fn accepts_parse_error_and_pin_error() {
        for code in ["ParseError", "PinError"] {
            let text =
                format!(r#"code = "{code}", name = "x", severity = error, phase = materialize"#);
            assert!(args(&text).is_ok(), "{code}");
        }
    }

    #[test]
    fn code_must_match_the_pattern() {
        for bad in [
            "E40",
            "E0400",
            "X040",
            "e040",
            "E04a",
            "",
            "Parse",
            "ParseErrors",
        ] {
            let text = format!(r#"code = "{bad}", name = "x", severity = error, phase = check"#);
            let err = error_of(&text);
            assert!(err.contains("invalid rule code"), "{bad}: {err}");
        }
    }

    #[test]
    fn code_must_be_a_string() {
        let err = error_of(r#"code = E040, name = "x", severity = error, phase = check"#);
        assert!(err.contains("`code` must be a string literal"), "{err}");
    }

    #[test]
    fn severity_must_match_the_code_family() {
        let err = error_of(r#"code = "E040", name = "x", severity = warning, phase = check"#);
        assert!(err.contains("must have `severity = error`"), "{err}");
        let err = error_of(r#"code = "F001", name = "x", severity = warning, phase = check"#);
        assert!(err.contains("must have `severity = error`"), "{err}");
        let err = error_of(r#"code = "W001", name = "x", severity = error, phase = lint"#);
        assert!(err.contains("must have `severity = warning`"), "{err}");
    }

    #[test]
    fn name_must_be_kebab_case() {
        for bad in [
            "Unknown-column",
            "unknown_column",
            "unknown--column",
            "-unknown",
            "unknown-",
            "unknown column",
            "1st",
            "",
        ] {
            let text = format!(r#"code = "E040", name = "{bad}", severity = error, phase = check"#);
            let err = error_of(&text);
            assert!(err.contains("must be kebab-case"), "{bad}: {err}");
        }
        assert!(is_kebab_case("e2e-check-2"));
    }

    #[test]
    fn severity_and_phase_are_checked_words() {
        let err = error_of(r#"code = "E040", name = "x", severity = fatal, phase = check"#);
        assert!(
            err.contains("`severity` must be one of `error`, `warning`"),
            "{err}"
        );
        let err = error_of(r#"code = "E040", name = "x", severity = "error", phase = check"#);
        assert!(
            err.contains("write `severity = error`: a bare word, not a string"),
            "{err}"
        );
        let err = error_of(r#"code = "E040", name = "x", severity = error, phase = typing"#);
        assert!(
            err.contains(
                "`phase` must be one of `parse`, `resolve`, `check`, `lint`, `materialize`"
            ),
            "{err}"
        );
    }

    #[test]
    fn unknown_duplicate_and_missing_arguments_are_errors() {
        let err =
            error_of(r#"code = "E040", name = "x", severity = error, phase = check, lvl = deny"#);
        assert!(err.contains("unknown argument `lvl`"), "{err}");
        let err = error_of(
            r#"code = "E040", code = "E041", name = "x", severity = error, phase = check"#,
        );
        assert!(err.contains("duplicate argument `code`"), "{err}");
        let err = error_of(r#"code = "E040""#);
        for key in ["name", "severity", "phase"] {
            assert!(err.contains(&format!("missing argument `{key}`")), "{err}");
        }
        assert!(!err.contains("missing argument `code`"), "{err}");
        let err = error_of("");
        assert!(err.contains("missing argument `code`"), "{err}");
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let err = error_of(r#"code = "E40", name = "Bad_Name", severity = fatal"#);
        assert!(err.contains("invalid rule code"), "{err}");
        assert!(err.contains("must be kebab-case"), "{err}");
        assert!(err.contains("`severity` must be one of"), "{err}");
        assert!(err.contains("missing argument `phase`"), "{err}");
        // A key given with a bad value is not also reported as missing.
        assert!(!err.contains("missing argument `code`"), "{err}");
    }

    fn doc_of(item: &str) -> syn::Result<String> {
        let item: syn::ItemStruct = syn::parse_str(item)?;
        doc_text(&item.attrs, item.ident.span())
    }

    #[test]
    fn doc_is_collected_with_one_leading_space_stripped() {
        let doc = doc_of(
            "///\n/// Unknown column.\n///\n/// ## Example\n/// ```strata\n///   indented\n/// ```\n///\nstruct X;",
        );
        // The summary is the first line, so it cannot be preceded by a blank one.
        assert!(doc.is_err());
        let doc = doc_of(
            "/// Unknown column.\n///\n/// ## Example\n/// ```strata\n///   indented\n/// ```\n///\nstruct X;",
        )
        .expect("valid doc");
        assert_eq!(
            doc,
            "Unknown column.\n\n## Example\n```strata\n  indented\n```"
        );
    }

    #[test]
    fn block_doc_comments_and_doc_attributes_work() {
        let doc = doc_of("#[doc = \"Summary.\"]\n#[doc = \" More.\"]\nstruct X;").expect("valid");
        assert_eq!(doc, "Summary.\nMore.");
    }

    #[test]
    fn a_missing_or_blank_doc_is_an_error() {
        let err = doc_of("struct X;").expect_err("no doc");
        assert!(
            err.to_string().contains("a rule needs a doc comment"),
            "{err}"
        );
        let err = doc_of("///\n///   \nstruct X;").expect_err("blank doc");
        assert!(
            err.to_string().contains("a rule needs a doc comment"),
            "{err}"
        );
        let err = doc_of("#[doc = include_str!(\"x.md\")]\nstruct X;").expect_err("not literal");
        assert!(err.to_string().contains("`///` doc comments"), "{err}");
    }

    #[test]
    fn expansion_registers_the_rule() {
        let attr: TokenStream2 = syn::parse_str(
            r#"code = "E079", name = "join-shape", severity = error, phase = check"#,
        )
        .expect("tokens");
        let item: TokenStream2 =
            syn::parse_str("/// Summary.\npub fn join_shape(m: &M, out: &mut Vec<D>) {}")
                .expect("tokens");
        let out = expand(attr, item).expect("expands").to_string();
        assert!(out.contains("pub fn join_shape"), "{out}");
        assert!(out.contains(":: inventory :: submit !"), "{out}");
        assert!(out.contains("code : \"E079\""), "{out}");
        assert!(
            out.contains(":: strata_rules :: Severity :: Error"),
            "{out}"
        );
        assert!(out.contains(":: strata_rules :: Phase :: Check"), "{out}");
        assert!(out.contains(":: strata_rules :: Level :: Deny"), "{out}");
        assert!(out.contains("doc : \"Summary.\""), "{out}");
        assert!(
            out.contains(":: core :: option :: Option :: Some (join_shape)"),
            "{out}"
        );
    }

    #[test]
    fn expansion_rejects_other_items() {
        let attr: TokenStream2 =
            syn::parse_str(r#"code = "E079", name = "x", severity = error, phase = check"#)
                .expect("tokens");
        let item: TokenStream2 = syn::parse_str("/// S.\nconst X: u8 = 1;").expect("tokens");
        let err = expand(attr, item).expect_err("const is not a rule item");
        assert!(err.to_string().contains("goes on a `struct`"), "{err}");
    }
}
