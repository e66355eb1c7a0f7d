//! The recursive-descent parser: text to [`ast::File`] plus diagnostics.
//!
//! It accepts the reference implementation's language (`strata-lang`
//! 0.1.6: its tokens and grammar) with these differences:
//! every error is a `ParseError` diagnostic saying what was expected and what
//! was found, on the offending token; after an error the parser skips to the
//! next top-level declaration keyword and goes on, so one run reports the
//! first error of every broken declaration; `take 5..10` works; a join's
//! `expect` word gets a did-you-mean hint; nesting deeper than
//! [`MAX_DEPTH`], or an expression of more than [`MAX_OPERATORS`] binary
//! operators, is an error instead of a stack overflow.

mod decl;
mod expr;
mod model;
#[cfg(test)]
mod tests;

// The tables the grammar (crate::grammar) is built from, or checked against,
// and the language server completes from.
pub(crate) use decl::ANNOTATIONS;
#[cfg(test)]
pub(crate) use model::FN_MODEL_KEYWORDS;
pub use model::{ATTRS, CARDINALITIES, MODEL_CLAUSE_WORDS, MODEL_KEYWORDS};

use strata_codes as codes;

use crate::ast::{self, Ident};
use crate::diag::{sort_diagnostics, Diagnostic};
use crate::lexer::{self, shorten, Lexer, Token, TokenKind};
use crate::span::{FileId, Span};

/// How deeply expressions, types and model values may nest.
pub const MAX_DEPTH: u32 = 200;

/// How many binary operators one expression (a column's value, a filter, a
/// join condition) may hold. A chain `a + b + c ...` nests one level per
/// operator in the tree every later pass walks recursively, so this and
/// [`MAX_DEPTH`] together bound the tree's height (the checker's tasks run on
/// rayon threads of 2 MiB stacks).
pub const MAX_OPERATORS: u32 = 1_000;

/// Parse one file. Declarations that parsed are kept even when others failed;
/// the diagnostics (lex and parse errors) are in source order.
///
/// A large file is parsed in parts, in parallel, each from a line that
/// starts with a declaration keyword. A part counts only when the part
/// before it ended exactly there, between two declarations: the lexer
/// keeps no state between tokens and the parser none between declarations,
/// so the part then parsed just as the whole file would have. When any
/// part does not fit (the line was inside a string or comment), the file
/// is parsed again in one piece.
pub fn parse(file: FileId, text: &str) -> (ast::File, Vec<Diagnostic>) {
    parse_parts(file, text, &part_starts(text, rayon::current_num_threads()))
}

/// The smallest part worth a thread of its own, in bytes.
const MIN_PART: usize = 32 * 1024;

/// Where the parts of `text` start: 0, then for each further part the first
/// line at or after its share of the text that starts with a declaration
/// keyword (about four parts a thread, none under [`MIN_PART`]).
fn part_starts(text: &str, threads: usize) -> Vec<usize> {
    let parts = (threads * 4).min(text.len() / MIN_PART).max(1);
    let mut starts = vec![0];
    for i in 1..parts {
        let from = (text.len() * i / parts).max(starts[starts.len() - 1] + 1);
        if let Some(at) = decl_line_from(text, from) {
            if at > starts[starts.len() - 1] {
                starts.push(at);
            }
        }
    }
    starts
}

/// The first line at or after byte `from` that starts with a top-level
/// declaration keyword followed by a space.
fn decl_line_from(text: &str, from: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = from;
    loop {
        at += bytes.get(at..)?.iter().position(|&b| b == b'\n')? + 1;
        let line = &bytes[at..];
        let starts_decl = TOP_KEYWORDS.iter().any(|k| {
            line.starts_with(k.as_bytes()) && line.get(k.len()).is_some_and(|b| *b == b' ')
        });
        if starts_decl {
            return Some(at);
        }
    }
}

/// Parse `text` in parts starting at `starts` (the first is 0), falling back
/// to one part when a part does not fit.
fn parse_parts(file: FileId, text: &str, starts: &[usize]) -> (ast::File, Vec<Diagnostic>) {
    use rayon::prelude::*;
    if starts.len() > 1 {
        let parts: Vec<Option<Part>> = (0..starts.len())
            .into_par_iter()
            .map(|i| parse_part(file, text, starts[i], starts.get(i + 1).copied()))
            .collect();
        if parts.iter().all(Option::is_some) {
            let parts: Vec<Part> = parts.into_iter().flatten().collect();
            let mut out = ast::File {
                decls: Vec::with_capacity(parts.iter().map(|p| p.file.decls.len()).sum()),
                comments: Vec::with_capacity(parts.iter().map(|p| p.file.comments.len()).sum()),
            };
            let mut diags = Vec::new();
            for part in parts {
                out.decls.extend(part.file.decls);
                out.comments.extend(part.file.comments);
                diags.extend(part.diags);
            }
            return (out, diags);
        }
    }
    let whole = parse_part(file, text, 0, None);
    // A part with no end always fits.
    whole.map_or_else(Default::default, |p| (p.file, p.diags))
}

/// A part of a file, parsed.
struct Part {
    file: ast::File,
    diags: Vec<Diagnostic>,
}

/// Parse the declarations of `text` from byte `start` up to the one that
/// starts at byte `end` (to the end when `None`); `None` when no
/// declaration starts exactly at `end`.
fn parse_part(file: FileId, text: &str, start: usize, end: Option<usize>) -> Option<Part> {
    let mut p = Parser::new(file, text, start);
    let before_end = |p: &Parser| end.is_none_or(|e| (p.peek().span.start as usize) < e);
    let mut decls = Vec::new();
    let mut diags = Vec::new();
    // Token ranges skipped by recovery (after each failing token).
    let mut skipped = Vec::new();
    while !p.at_eof() && before_end(&p) {
        let start = p.pos;
        // Recovery looks back no further than the token before `start`.
        p.forget_before(start.saturating_sub(1));
        p.depth = 0;
        p.exprs = 0;
        match p.top_decl() {
            Ok(d) => decls.push(d),
            Err(fail) => {
                if let Some(d) = fail.0 {
                    diags.push(*d);
                }
                let failed_at = p.pos;
                p.recover(start);
                skipped.push(failed_at + 1..p.pos);
            }
        }
    }
    let end = match end {
        Some(e) if p.peek().span.start as usize != e => return None,
        Some(e) => e,
        None => text.len() + 1,
    };
    let mut lexed = p.lexer.out;
    // What the lexer read ahead past `end` is the next part's.
    let mine = |span: Span| (span.start as usize) < end;
    lexed.comments.retain(|c| mine(c.span));
    // The n-th error token goes with the n-th lex diagnostic. Lex errors in
    // text skipped after a declaration's first error are not reported, like
    // the parse errors that text would have caused.
    // Both the error tokens and the skipped ranges are in increasing order.
    let mut ranges = skipped.iter().peekable();
    for (&i, d) in lexed.error_tokens.iter().zip(lexed.diagnostics) {
        while ranges.next_if(|r| r.end <= i).is_some() {}
        if !ranges.peek().is_some_and(|r| r.contains(&i)) && mine(d.span) {
            diags.push(d);
        }
    }
    diags.append(&mut p.errors);
    sort_diagnostics(&mut diags);
    Some(Part {
        file: ast::File {
            decls,
            comments: lexed.comments,
        },
        diags,
    })
}

/// Parse a single expression (the whole text must be one expression).
// The signature is the one the rest of the workspace uses for diagnostics.
#[allow(clippy::result_large_err)]
pub fn parse_expr(file: FileId, text: &str) -> Result<ast::Expr, Diagnostic> {
    let mut p = Parser::new(file, text, 0);
    let parsed = p.expr().map_err(|f| p.fail_into_diag(f));
    // A lex error anywhere in the text is the error, whatever the parse did.
    p.lex_to(usize::MAX);
    if let Some(d) = std::mem::take(&mut p.lexer.out.diagnostics)
        .into_iter()
        .next()
    {
        return Err(d);
    }
    let e = parsed?;
    if !p.at_eof() {
        let f = p.unexpected("the end of the expression");
        return Err(p.fail_into_diag(f));
    }
    Ok(e)
}

/// A parse failure. `None` when the offending token is a lex error, whose
/// diagnostic the lexer already produced.
pub(crate) struct Fail(Option<Box<Diagnostic>>);

impl Fail {
    fn with_help(self, help: impl Into<String>) -> Fail {
        Fail(self.0.map(|d| Box::new(d.with_help(help))))
    }

    fn with_note(self, note: impl Into<String>) -> Fail {
        Fail(self.0.map(|d| Box::new(d.with_note(note))))
    }
}

pub(crate) type PResult<T> = Result<T, Fail>;

/// Part of an error message, built only when the error happens: the parser
/// must not format messages for every token that is fine.
pub(crate) trait Text {
    fn text(self) -> String;
}

impl Text for &str {
    fn text(self) -> String {
        self.to_string()
    }
}

impl Text for &String {
    fn text(self) -> String {
        self.clone()
    }
}

/// A message part computed on demand: `Lazy(|| format!(..))`.
pub(crate) struct Lazy<F>(pub F);

impl<F: FnOnce() -> String> Text for Lazy<F> {
    fn text(self) -> String {
        (self.0)()
    }
}

/// Top-level declaration keywords: the points error recovery resumes at.
pub const TOP_KEYWORDS: &[&str] = &[
    "source", "contract", "model", "pipeline", "fn", "import", "domain", "test",
];

/// How many tokens past the current one are always lexed: the parser's
/// lookahead ([`Parser::peek_at`]) stays
/// within it.
const LOOKAHEAD: usize = 64;

pub(crate) struct Parser<'a> {
    text: &'a str,
    /// The tokens are lexed as the parser reaches them: `lexer.out.tokens`
    /// holds those from index `base` (the declaration being parsed, less
    /// what recovery no longer needs) to [`LOOKAHEAD`] past `pos`, so that
    /// a large file's tokens are never all in memory at once.
    lexer: Lexer<'a>,
    base: usize,
    /// Index of the current token.
    pos: usize,
    /// Span of the last consumed token.
    prev: Span,
    depth: u32,
    /// Expressions entered and not yet left: 0 outside any expression.
    exprs: u32,
    /// Binary operators so far in the outermost expression being parsed.
    operators: u32,
    /// Errors that do not stop the declaration's parse (a repeated key).
    errors: Vec<Diagnostic>,
}

impl<'a> Parser<'a> {
    /// A parser of `text` from byte `start` (0, or a token's start).
    fn new(file: FileId, text: &'a str, start: usize) -> Parser<'a> {
        let mut p = Parser {
            text,
            lexer: if start == 0 {
                Lexer::new(file, text)
            } else {
                Lexer::at(file, text, start)
            },
            base: 0,
            pos: 0,
            prev: Span::new(file, start, start),
            depth: 0,
            exprs: 0,
            operators: 0,
            errors: Vec::new(),
        };
        p.lex_to(LOOKAHEAD);
        p
    }

    // ----- token access -------------------------------------------------

    /// Lex until token `i` exists, or the final EOF does.
    fn lex_to(&mut self, i: usize) {
        while self.lexer.count() <= i && self.lexer.step() {}
    }

    /// Drop the tokens before index `i`: nothing looks back at them.
    fn forget_before(&mut self, i: usize) {
        if i > self.base {
            self.lexer.out.tokens.drain(..i - self.base);
            self.base = i;
        }
    }

    /// Token `i` (the final EOF when past the end). `i` is at least `base`
    /// and lexed: at most [`LOOKAHEAD`] past `pos`, or lexed by the caller.
    fn tok(&self, i: usize) -> &Token<'a> {
        let toks = &self.lexer.out.tokens;
        &toks[(i - self.base).min(toks.len() - 1)]
    }

    fn peek(&self) -> &Token<'a> {
        self.peek_at(0)
    }

    /// The token `n` places ahead (the final EOF when past the end).
    fn peek_at(&self, n: usize) -> &Token<'a> {
        debug_assert!(n <= LOOKAHEAD);
        self.tok(self.pos + n)
    }

    fn kind(&self) -> &TokenKind<'a> {
        &self.peek().kind
    }

    fn at_eof(&self) -> bool {
        matches!(self.kind(), TokenKind::Eof)
    }

    /// Consume the current token (never the final EOF); its span.
    fn bump(&mut self) -> Span {
        let t = self.peek();
        let span = t.span;
        if !matches!(t.kind, TokenKind::Eof) {
            self.pos += 1;
            self.lex_to(self.pos + LOOKAHEAD);
        }
        self.prev = span;
        span
    }

    fn is_sym_at(&self, n: usize, s: &str) -> bool {
        matches!(&self.peek_at(n).kind, TokenKind::Sym(x) if *x == s)
    }

    fn is_sym(&self, s: &str) -> bool {
        self.is_sym_at(0, s)
    }

    fn is_kw(&self, k: &str) -> bool {
        matches!(self.kind(), TokenKind::Keyword(x) if *x == k)
    }

    /// Whether the current token is the contextual word `name`: written
    /// bare (a quoted name, `` `given` ``, is always a name).
    fn is_ident(&self, name: &str) -> bool {
        matches!(self.kind(), TokenKind::Ident(x) if *x == name) && !self.quoted()
    }

    /// Whether the current token was written between backticks.
    fn quoted(&self) -> bool {
        self.text.as_bytes().get(self.peek().span.start as usize) == Some(&b'`')
    }

    fn eat_sym(&mut self, s: &str) -> Option<Span> {
        if self.is_sym(s) {
            Some(self.bump())
        } else {
            None
        }
    }

    fn eat_kw(&mut self, k: &str) -> Option<Span> {
        if self.is_kw(k) {
            Some(self.bump())
        } else {
            None
        }
    }

    /// The span from `start` to the end of the last consumed token.
    fn since(&self, start: Span) -> Span {
        start.to(self.prev)
    }

    // ----- errors -------------------------------------------------------

    /// A failure on `tok` with `message` (silent when `tok` is a lex error).
    fn fail_at(&self, tok: &Token, message: impl Into<String>) -> Fail {
        if matches!(tok.kind, TokenKind::Error) {
            return Fail(None);
        }
        Fail(Some(Box::new(Diagnostic::new(
            &codes::ParseError,
            tok.span,
            message,
        ))))
    }

    /// Whether `key` (its word at `at`) is given for the first time in this
    /// declaration, `first` noting where it was. A second time is E025
    /// (`columns:` of a source, `models:` or `env:` of a pipeline): one of
    /// the two would be dropped without a word, so the first is kept and the
    /// error points at both.
    fn first_time(&mut self, first: &mut Option<Span>, key: &str, kind: &str, at: Span) -> bool {
        let Some(first) = *first else {
            *first = Some(at);
            return true;
        };
        self.errors.push(
            Diagnostic::new(
                &codes::E025,
                at,
                format!("{kind} key '{key}' is given more than once"),
            )
            .with_secondary(first, "first given here")
            .with_help(format!(
                "keep one '{key}:' (merge the two if both are needed)"
            )),
        );
        false
    }

    /// `expected <what>, found <current token>`.
    fn unexpected(&self, what: &str) -> Fail {
        let tok = self.peek();
        let f = self.fail_at(
            tok,
            format!("expected {what}, found {}", self.describe(tok)),
        );
        match &tok.kind {
            TokenKind::Keyword(k) | TokenKind::TypeKeyword(k)
                if what.contains("name") || what.contains("identifier") =>
            {
                f.with_help(format!(
                    "'{k}' is a reserved word; to use it as a name, quote it: `{k}`"
                ))
            }
            _ => f,
        }
    }

    fn fail_into_diag(&self, f: Fail) -> Diagnostic {
        match f.0 {
            Some(d) => *d,
            None => Diagnostic::new(&codes::ParseError, self.peek().span, "invalid token"),
        }
    }

    /// How a token is named in messages: `identifier 'x'`, `keyword 'by'`,
    /// `'{'`, `end of file`, ...
    fn describe(&self, tok: &Token) -> String {
        let src = self.text.get(tok.span.range()).unwrap_or("");
        match &tok.kind {
            TokenKind::Ident(_) => format!("identifier '{}'", shorten(src, 40)),
            TokenKind::Keyword(k) => format!("keyword '{k}'"),
            TokenKind::TypeKeyword(k) => format!("type keyword '{k}'"),
            TokenKind::Int(_) => format!("integer {}", shorten(src, 40)),
            TokenKind::Float(_, text) => format!("number {}", shorten(text, 40)),
            TokenKind::Str(_) => format!("string {}", shorten(src, 40)),
            TokenKind::Sym(s) => format!("'{s}'"),
            TokenKind::Error => format!("'{}'", shorten(src, 40)),
            TokenKind::Eof => "end of file".to_string(),
        }
    }

    // ----- common pieces ------------------------------------------------

    fn expect_sym(&mut self, s: &str, context: impl Text) -> PResult<Span> {
        if let Some(sp) = self.eat_sym(s) {
            return Ok(sp);
        }
        let context = context.text();
        let what = if context.is_empty() {
            format!("'{s}'")
        } else {
            format!("'{s}' {context}")
        };
        Err(self.unexpected(&what))
    }

    fn expect_kw(&mut self, k: &str, context: impl Text) -> PResult<Span> {
        if let Some(sp) = self.eat_kw(k) {
            return Ok(sp);
        }
        Err(self.unexpected(&format!("keyword '{k}' {}", context.text())))
    }

    /// An identifier (never a keyword or type keyword); `what` names it in
    /// the error: `a column name`, `a model name`, ...
    fn ident(&mut self, what: impl Text) -> PResult<Ident> {
        if let TokenKind::Ident(name) = *self.kind() {
            let span = self.bump();
            return Ok(Ident {
                name: crate::Name::new(name),
                span,
            });
        }
        Err(self.unexpected(&what.text()))
    }

    /// An integer literal.
    fn int(&mut self, what: &str) -> PResult<(i64, Span)> {
        if let TokenKind::Int(v) = self.kind() {
            let v = *v;
            let span = self.bump();
            return Ok((v, span));
        }
        Err(self.unexpected(what))
    }

    /// Whether the current token can be taken as `ANY` (a single token whose
    /// text is used).
    fn at_any(&self) -> bool {
        !matches!(self.kind(), TokenKind::Eof | TokenKind::Error)
    }

    /// Take any single token as text: `(text, quoted, span)`.
    fn any_text(&mut self, what: &str) -> PResult<(String, bool, Span)> {
        if !self.at_any() {
            return Err(self.unexpected(what));
        }
        let t = self.peek().clone();
        self.bump();
        let (text, quoted) = match &t.kind {
            TokenKind::Ident(n) => (n.to_string(), false),
            TokenKind::Keyword(k) | TokenKind::TypeKeyword(k) | TokenKind::Sym(k) => {
                (k.to_string(), false)
            }
            TokenKind::Int(_) => (self.int_text(t.span), false),
            TokenKind::Float(_, text) => (text.replace('_', ""), false),
            TokenKind::Str(parts) => (lexer::flatten_parts(parts), true),
            TokenKind::Error | TokenKind::Eof => (String::new(), false),
        };
        Ok((text, quoted, t.span))
    }

    /// An integer literal's digits as written, without `_` separators.
    fn int_text(&self, span: Span) -> String {
        let src = self.text.get(span.range()).unwrap_or("");
        src.chars().filter(|c| *c != '_').collect()
    }

    /// A string literal used as plain text (variables flattened to their
    /// names).
    fn string_text(&mut self, what: &str) -> PResult<(String, Span)> {
        if let TokenKind::Str(parts) = self.kind() {
            let text = lexer::flatten_parts(parts);
            let span = self.bump();
            return Ok((text, span));
        }
        Err(self.unexpected(what))
    }

    /// Enter one nesting level (expressions, types, model values).
    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            let tok = self.peek().clone();
            return Err(self.fail_at(
                &tok,
                format!("nesting too deep (more than {MAX_DEPTH} levels)"),
            ));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    // ----- recovery -----------------------------------------------------

    /// After a failure in the declaration starting at token `start`, skip
    /// to the next top-level declaration keyword that is at bracket depth 0
    /// (counted from `start`), or that starts a line at column 0, or that
    /// can never appear inside a declaration.
    fn recover(&mut self, start: usize) {
        let err = self.pos.max(start + 1);
        let mut depth: i64 = 0;
        let mut i = start;
        loop {
            // `looks_like_decl` reads two tokens past `i`.
            self.lex_to(i + 2);
            let t = self.tok(i);
            match &t.kind {
                TokenKind::Eof => break,
                TokenKind::Keyword(k) if i >= err && TOP_KEYWORDS.contains(k) => {
                    let after_arrow = i > 0
                        && matches!(&self.tok(i - 1).kind, TokenKind::Sym("->"))
                        && *k == "contract";
                    let line_start = {
                        let s = t.span.start as usize;
                        s == 0 || self.text.as_bytes().get(s - 1) == Some(&b'\n')
                    };
                    let nestable = *k == "model" || *k == "contract";
                    // The offending token itself only when it starts a line
                    // or is followed by what starts its declaration
                    // (`model a { from t source s() ..`); in `model test {`
                    // it is a misused name.
                    let resume = if i == self.pos {
                        self.first_on_line(i) || self.looks_like_decl(i)
                    } else {
                        depth <= 0 || line_start || (!nestable && self.looks_like_decl(i))
                    };
                    if !after_arrow && resume {
                        break;
                    }
                }
                TokenKind::Sym("{" | "(" | "[") => depth += 1,
                TokenKind::Sym("}" | ")" | "]") => depth -= 1,
                _ => {}
            }
            i += 1;
        }
        self.pos = i;
        self.lex_to(self.pos + LOOKAHEAD);
    }

    /// Whether the declaration keyword at token `i` is followed by the
    /// tokens its declaration starts with (`source s (`, `model m {`, ...).
    fn looks_like_decl(&self, i: usize) -> bool {
        let kind = |n: usize| Some(&self.tok(i + n).kind);
        let ident = |n: usize| matches!(kind(n), Some(TokenKind::Ident(_)));
        let sym = |n: usize, s: &str| matches!(kind(n), Some(TokenKind::Sym(x)) if *x == s);
        match &self.tok(i).kind {
            TokenKind::Keyword("source") | TokenKind::Keyword("fn") => ident(1) && sym(2, "("),
            TokenKind::Keyword("model") => {
                (ident(1) || matches!(kind(1), Some(TokenKind::Str(_))))
                    && (sym(2, "{") || sym(2, "->"))
            }
            TokenKind::Keyword("contract") => ident(1) && sym(2, "{"),
            TokenKind::Keyword("test") => {
                ident(1) && (sym(2, "{") || matches!(kind(2), Some(TokenKind::Str(_))))
            }
            TokenKind::Keyword("domain") => ident(1) && sym(2, "="),
            TokenKind::Keyword("pipeline") => ident(1) && (sym(2, "{") || ident(2)),
            TokenKind::Keyword("import") => ident(1),
            _ => false,
        }
    }

    /// Whether token `i` is the first token on its line.
    fn first_on_line(&self, i: usize) -> bool {
        let start = self.tok(i).span.start as usize;
        let before = self.text.as_bytes().get(..start).unwrap_or(&[]);
        for b in before.iter().rev() {
            match b {
                b'\n' => return true,
                b' ' | b'\t' | b'\r' => {}
                _ => return false,
            }
        }
        true
    }
}

/// `'a'`, `'a' or 'b'`, `'a', 'b' or 'c'`.
pub(crate) fn or_list(words: &[&str]) -> String {
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}
