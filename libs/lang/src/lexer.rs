//! The lexer: source text to tokens, comments and lex diagnostics.
//!
//! Differences from the reference lexer (all deliberate):
//! * tokens carry real byte spans (the reference reports a symbol at the
//!   position after it);
//! * an unterminated `/* ...` is an error instead of silently swallowing the
//!   rest of the file;
//! * a `.` directly after another `.` never starts a number, so `take 5..10`
//!   lexes as `5` `.` `.` `10` (the reference lexes `.10` as a float);
//! * integer literals must fit in an `i64`;
//! * digits are ASCII only;
//! * a name may be written between backticks (`` `date` ``, `` `unit price` ``),
//!   so that a reserved word or any other text can name something
//!   ([`crate::ident`]); the reference refuses the backtick character.
//!
//! A lex error produces a [`TokenKind::Error`] token at its place (so the
//! parser stops there without a second message) and a diagnostic with the
//! code `ParseError` in [`Lexed::diagnostics`].

use strata_codes as codes;

use std::sync::LazyLock;

use crate::ast::{Comment, StrPart};
use crate::diag::Diagnostic;
use crate::hash::FastMap;
use crate::span::{FileId, Span};

/// Reserved words: never usable as names. (The reference's keyword set also
/// contains `->` and `=>`, which always lex as symbols.)
pub const KEYWORDS: &[&str] = &[
    "source",
    "contract",
    "model",
    "pipeline",
    "fn",
    "import",
    "from",
    "join_left",
    "join_inner",
    "join_right",
    "join_full",
    "join_cross",
    "join_anti",
    "join_semi",
    "on",
    "filter",
    "where",
    "let",
    "derive",
    "select",
    "aggregate",
    "group",
    "sort",
    "asc",
    "desc",
    "take",
    "all",
    "expand",
    "union",
    "intersect",
    "except",
    "dedup",
    "by",
    "distinct",
    "domain",
    "nonnull",
    "unique",
    "primary_key",
    "protected",
    "enum",
    "classification",
    "partition_by",
    "freshness",
    "freshness_column",
    "incremental",
    "merge_keys",
    "merge_strategy",
    "cdc_column",
    "not",
    "and",
    "or",
    "in",
    "is",
    "null",
    "true",
    "false",
    "for",
    "over",
    "test",
    "expect",
];

/// Type keywords: reserved too, and only meaningful in type positions.
pub const TYPE_KEYWORDS: &[&str] = &[
    "int64",
    "float32",
    "float64",
    "decimal",
    "string",
    "bool",
    "date",
    "timestamp",
    "timestamptz",
    "uuid",
    "json",
    "money",
    "array",
];

/// A reserved word found by [`keyword`].
#[derive(Clone, Copy)]
enum Reserved {
    Keyword(&'static str),
    Type(&'static str),
}

/// The reserved word `w` is, if any.
fn keyword(w: &str) -> Option<Reserved> {
    static RESERVED: LazyLock<FastMap<&str, Reserved>> = LazyLock::new(|| {
        let keywords = KEYWORDS.iter().map(|k| (*k, Reserved::Keyword(k)));
        let types = TYPE_KEYWORDS.iter().map(|k| (*k, Reserved::Type(k)));
        keywords.chain(types).collect()
    });
    RESERVED.get(w).copied()
}

/// Two-character symbols (longest match wins).
pub(crate) const SYMBOLS2: &[&str] = &["->", "==", "!=", "<=", ">=", "${", "=>", "||"];
/// One-character symbols.
pub(crate) const SYMBOLS1: &[&str] = &[
    "{", "}", "[", "]", "(", ")", ",", ":", ";", "=", ".", "<", ">", "+", "-", "*", "/", "%", "|",
    "!",
];

/// The symbol at the start of `rest`, longest first.
fn symbol_at(rest: &[u8]) -> Option<&'static str> {
    SYMBOLS2
        .iter()
        .chain(SYMBOLS1)
        .copied()
        .find(|s| rest.starts_with(s.as_bytes()))
}

#[derive(Clone, Debug, PartialEq)]
pub enum TokenKind<'a> {
    /// An identifier (including contextual words such as `many_to_one`), as
    /// written in the source; for a quoted name (`` `date` ``), the text
    /// between the backticks (the token's span covers them).
    Ident(&'a str),
    /// A reserved keyword (one of [`KEYWORDS`]).
    Keyword(&'static str),
    /// A type keyword (one of [`TYPE_KEYWORDS`]).
    TypeKeyword(&'static str),
    /// An integer literal (`_` separators removed).
    Int(i64),
    /// A float literal: its value and its text as written.
    Float(f64, &'a str),
    /// A string literal: its literal and `${var}` parts (no empty literal
    /// parts; an empty string has no parts).
    Str(Vec<StrPart>),
    /// A symbol such as `{`, `==` or `->`.
    Sym(&'static str),
    /// Text that could not be lexed; its diagnostic is in
    /// [`Lexed::diagnostics`].
    Error,
    /// The end of the input (always the last token).
    Eof,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token<'a> {
    pub kind: TokenKind<'a>,
    pub span: Span,
}

/// The result of lexing one file; tokens borrow their text from it.
#[derive(Clone, Debug, Default)]
pub struct Lexed<'a> {
    /// The tokens, always ending with one [`TokenKind::Eof`].
    pub tokens: Vec<Token<'a>>,
    pub comments: Vec<Comment>,
    pub diagnostics: Vec<Diagnostic>,
    /// The index of each [`TokenKind::Error`] token, in order.
    pub error_tokens: Vec<usize>,
}

/// The text of string parts with each `${var}` replaced by its own name (how
/// the reference uses a string as plain text: model names, attributes, ...).
pub fn flatten_parts(parts: &[StrPart]) -> String {
    let mut out = String::new();
    for p in parts {
        match p {
            StrPart::Lit(s) | StrPart::Var(s) => out.push_str(s),
        }
    }
    out
}

/// The text of string parts with each `${var}` kept as written: a string
/// used as data (a fixture value), where nothing is interpolated.
pub fn raw_parts(parts: &[StrPart]) -> String {
    let mut out = String::new();
    for p in parts {
        match p {
            StrPart::Lit(s) => out.push_str(s),
            StrPart::Var(v) => {
                out.push_str("${");
                out.push_str(v);
                out.push('}');
            }
        }
    }
    out
}

/// The parts of one string literal given as source text (quotes included),
/// e.g. the text under a quoted model name's span: `"m_${c}"` gives
/// `[Lit("m_"), Var("c")]`. `None` if the text is not exactly one valid
/// string literal.
pub fn string_literal_parts(literal: &str) -> Option<Vec<StrPart>> {
    let lexed = lex(FileId(0), literal);
    if !lexed.diagnostics.is_empty() || !lexed.comments.is_empty() {
        return None;
    }
    match lexed.tokens.as_slice() {
        [Token {
            kind: TokenKind::Str(parts),
            ..
        }, Token {
            kind: TokenKind::Eof,
            ..
        }] => Some(parts.clone()),
        _ => None,
    }
}

/// Whether `c` may start a word (Unicode letters and `_`).
pub fn is_word_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

/// Whether `c` may continue a word (letters, ASCII digits, `_`).
pub fn is_word_char(c: char) -> bool {
    c == '_' || c.is_alphabetic() || c.is_ascii_digit()
}

/// Whether `c` may appear in a name between backticks (anything but a
/// backtick and a control character; see [`crate::ident`]).
pub fn is_quotable_char(c: char) -> bool {
    c != '`' && !c.is_control()
}

/// Lex `text` (the contents of `file`) whole.
pub fn lex(file: FileId, text: &str) -> Lexed<'_> {
    let mut lexer = Lexer::new(file, text);
    // About one token per 4 bytes of typical source.
    lexer.out.tokens.reserve(text.len() / 4 + 1);
    while lexer.step() {}
    lexer.out
}

/// The lexer. [`Lexer::step`] lexes the next token into `out.tokens`, so
/// that the parser can take the tokens as it reaches them and drop those it
/// is done with ([`Lexed::tokens`] then holds only what it kept).
pub(crate) struct Lexer<'a> {
    file: FileId,
    text: &'a str,
    /// Byte offset of the next character; always on a char boundary.
    pos: usize,
    /// How many tokens were lexed (those dropped from `out.tokens`
    /// included).
    count: usize,
    /// The final EOF was lexed.
    done: bool,
    pub(crate) out: Lexed<'a>,
}

/// The end of the run of ASCII word characters from `i`.
fn word_end(bytes: &[u8], mut i: usize) -> usize {
    while bytes
        .get(i)
        .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    {
        i += 1;
    }
    i
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(file: FileId, text: &'a str) -> Self {
        // A byte-order mark at the very start is not part of the program.
        let start = if text.starts_with('\u{feff}') {
            '\u{feff}'.len_utf8()
        } else {
            0
        };
        Lexer::at(file, text, start)
    }

    /// A lexer of `text` from byte `pos`, a token's start.
    pub(crate) fn at(file: FileId, text: &'a str, pos: usize) -> Self {
        Lexer {
            file,
            text,
            pos,
            count: 0,
            done: false,
            out: Lexed::default(),
        }
    }

    fn char_at(&self, i: usize) -> Option<char> {
        self.text.get(i..).and_then(|s| s.chars().next())
    }

    fn peek(&self) -> Option<char> {
        self.char_at(self.pos)
    }

    /// The character after the one at `pos`.
    fn peek2(&self) -> Option<char> {
        let c = self.peek()?;
        self.char_at(self.pos + c.len_utf8())
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    /// The byte at `i` (0 past the end).
    fn byte(&self, i: usize) -> u8 {
        self.text.as_bytes().get(i).copied().unwrap_or(0)
    }

    // Inlined: called for every token.
    #[inline(always)]
    fn push(&mut self, kind: TokenKind<'a>, start: usize, end: usize) {
        let span = self.span(start, end);
        if matches!(kind, TokenKind::Error) {
            self.out.error_tokens.push(self.count);
        }
        self.count += 1;
        self.out.tokens.push(Token { kind, span });
    }

    fn error(&mut self, start: usize, end: usize, message: String, help: Option<&str>) {
        let mut d = Diagnostic::new(&codes::ParseError, self.span(start, end), message);
        if let Some(h) = help {
            d = d.with_help(h);
        }
        self.out.diagnostics.push(d);
    }

    /// Lex up to and including the next token (skipping blanks and
    /// comments), or the final EOF; `false` once the EOF was lexed.
    pub(crate) fn step(&mut self) -> bool {
        if self.done {
            return false;
        }
        let count = self.count;
        while self.count == count {
            let Some(&b) = self.text.as_bytes().get(self.pos) else {
                let end = self.text.len();
                self.push(TokenKind::Eof, end, end);
                self.done = true;
                break;
            };
            let start = self.pos;
            match b {
                b' ' | b'\t' | b'\r' | b'\n' => self.pos += 1,
                b'#' => self.line_comment(),
                b'/' if self.byte(start + 1) == b'/' => self.line_comment(),
                b'/' if self.byte(start + 1) == b'*' => self.block_comment(),
                b'"' => self.string(),
                b'`' => self.quoted_name(),
                b'0'..=b'9' => self.number(),
                b'.' if self.byte(start + 1).is_ascii_digit()
                    && !(start > 0 && self.byte(start - 1) == b'.') =>
                {
                    self.number()
                }
                b'a'..=b'z' | b'A'..=b'Z' | b'_' => self.word(),
                0x80.. => match self.peek() {
                    Some(c) if is_word_start(c) => self.word(),
                    Some(c) => self.symbol_or_error(c),
                    None => self.pos = self.text.len(),
                },
                _ => self.symbol_or_error(char::from(b)),
            }
        }
        true
    }

    /// How many tokens were lexed so far.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    fn line_comment(&mut self) {
        let start = self.pos;
        let rest = self.text.get(start..).unwrap_or("");
        let len = rest.find('\n').unwrap_or(rest.len());
        self.pos = start + len;
        self.out.comments.push(Comment {
            text: rest[..len].to_string(),
            span: self.span(start, self.pos),
        });
    }

    fn block_comment(&mut self) {
        let start = self.pos;
        let rest = self.text.get(start + 2..).unwrap_or("");
        match rest.find("*/") {
            Some(i) => {
                self.pos = start + 2 + i + 2;
                self.out.comments.push(Comment {
                    text: self.text.get(start..self.pos).unwrap_or("").to_string(),
                    span: self.span(start, self.pos),
                });
            }
            None => {
                self.pos = self.text.len();
                self.error(
                    start,
                    start + 2,
                    "unterminated block comment: '/*' has no closing '*/'".to_string(),
                    None,
                );
                self.push(TokenKind::Error, start, start + 2);
            }
        }
    }

    fn word(&mut self) {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        loop {
            // The ASCII run at once, then any other word character.
            self.pos = word_end(bytes, self.pos);
            match bytes.get(self.pos) {
                Some(0x80..) => match self.peek() {
                    Some(c) if is_word_char(c) => self.pos += c.len_utf8(),
                    _ => break,
                },
                _ => break,
            }
        }
        let w = self.text.get(start..self.pos).unwrap_or("");
        let kind = match keyword(w) {
            Some(Reserved::Keyword(k)) => TokenKind::Keyword(k),
            Some(Reserved::Type(k)) => TokenKind::TypeKeyword(k),
            None => TokenKind::Ident(w),
        };
        self.push(kind, start, self.pos);
    }

    /// A name between backticks: any characters but a backtick or a
    /// control character, at least one.
    fn quoted_name(&mut self) {
        let start = self.pos;
        let rest = self.text.get(start + 1..).unwrap_or("");
        let len = rest
            .find(|c: char| !is_quotable_char(c))
            .unwrap_or(rest.len());
        let inner = &rest[..len];
        let end = start + 1 + len;
        if rest[len..].starts_with('`') {
            self.pos = end + 1;
            if inner.is_empty() {
                self.error(
                    start,
                    self.pos,
                    "empty quoted name: '``' names nothing".to_string(),
                    Some("write a name between the backticks, e.g. `date`"),
                );
                self.push(TokenKind::Error, start, self.pos);
            } else {
                self.push(TokenKind::Ident(inner), start, self.pos);
            }
            return;
        }
        match rest[len..].chars().next() {
            Some(c) if c != '\n' && c != '\r' => {
                // A control character inside: the name runs to the next
                // backtick on its line, and is an error.
                let at = end;
                let line = &rest[len..];
                let close = line
                    .find(['`', '\n'])
                    .filter(|i| line[*i..].starts_with('`'));
                self.pos = close.map_or(end, |i| end + i + 1);
                self.error(
                    at,
                    at + c.len_utf8(),
                    format!(
                        "a quoted name cannot hold a control character (here U+{:04X})",
                        u32::from(c)
                    ),
                    Some("a name between backticks holds no tab, line break or other control character"),
                );
            }
            _ => {
                self.pos = end;
                self.error(
                    start,
                    start + 1,
                    "unterminated quoted name: this '`' has no closing '`' on its line".to_string(),
                    Some("a quoted name ends with '`' on the same line, e.g. `date`"),
                );
            }
        }
        self.push(TokenKind::Error, start, self.pos);
    }

    fn digits(&mut self) {
        while matches!(self.byte(self.pos), b'0'..=b'9' | b'_') {
            self.pos += 1;
        }
    }

    fn number(&mut self) {
        let start = self.pos;
        let mut is_float = false;
        if self.byte(self.pos) == b'.' {
            // `.5`
            self.pos += 1;
            self.digits();
            is_float = true;
        } else {
            self.digits();
            if self.byte(self.pos) == b'.' && self.byte(self.pos + 1).is_ascii_digit() {
                self.pos += 1;
                self.digits();
                is_float = true;
            }
        }
        let text: &'a str = self.text.get(start..self.pos).unwrap_or("");
        let clean: std::borrow::Cow<str> = if text.contains('_') {
            text.chars()
                .filter(|c| *c != '_')
                .collect::<String>()
                .into()
        } else {
            text.into()
        };
        if is_float {
            match clean.parse::<f64>() {
                Ok(v) => self.push(TokenKind::Float(v, text), start, self.pos),
                Err(_) => {
                    self.error(start, self.pos, format!("invalid number '{text}'"), None);
                    self.push(TokenKind::Error, start, self.pos);
                }
            }
        } else {
            match clean.parse::<i64>() {
                Ok(v) => self.push(TokenKind::Int(v), start, self.pos),
                Err(_) => {
                    self.error(
                        start,
                        self.pos,
                        format!(
                            "integer literal too large: '{}' does not fit in int64 (at most {})",
                            shorten(text, 40),
                            i64::MAX
                        ),
                        None,
                    );
                    self.push(TokenKind::Error, start, self.pos);
                }
            }
        }
    }

    fn string(&mut self) {
        let start = self.pos;
        self.pos += 1; // the opening quote
        let mut parts: Vec<StrPart> = Vec::new();
        let mut lit = String::new();
        // The first interpolation error: (start, end, message).
        let mut bad: Option<(usize, usize, String)> = None;
        loop {
            let Some(c) = self.peek() else {
                self.error(
                    start,
                    start + 1,
                    "unterminated string: this '\"' has no closing '\"'".to_string(),
                    None,
                );
                self.push(TokenKind::Error, start, self.pos);
                return;
            };
            match c {
                '"' => {
                    self.pos += 1;
                    break;
                }
                '\\' => {
                    self.pos += 1;
                    let Some(e) = self.peek() else {
                        continue; // reported as unterminated on the next turn
                    };
                    self.pos += e.len_utf8();
                    lit.push(match e {
                        'n' => '\n',
                        't' => '\t',
                        other => other,
                    });
                }
                '$' if self.peek2() == Some('{') => {
                    let at = self.pos;
                    self.pos += 2;
                    let name_start = self.pos;
                    while let Some(n) = self.peek() {
                        if !is_word_char(n) {
                            break;
                        }
                        self.pos += n.len_utf8();
                    }
                    let name = self
                        .text
                        .get(name_start..self.pos)
                        .unwrap_or("")
                        .to_string();
                    if name.is_empty() {
                        if bad.is_none() {
                            bad =
                                Some((at, self.pos, "empty interpolation '${}' in string".into()));
                        }
                        lit.push_str("${");
                    } else if self.peek() != Some('}') {
                        if bad.is_none() {
                            let found = match self.peek() {
                                None => "end of file".to_string(),
                                Some('"') => "the end of the string".to_string(),
                                Some(f) => format!("'{}'", f.escape_debug()),
                            };
                            bad = Some((
                                at,
                                self.pos,
                                format!(
                                    "expected '}}' to close the interpolation '${{{}', found {found}",
                                    shorten(&name, 40)
                                ),
                            ));
                        }
                        lit.push_str("${");
                        lit.push_str(&name);
                    } else {
                        self.pos += 1; // `}`
                        if !lit.is_empty() {
                            parts.push(StrPart::Lit(std::mem::take(&mut lit)));
                        }
                        parts.push(StrPart::Var(name));
                    }
                }
                _ => {
                    // The run of ordinary characters up to the next quote,
                    // escape or `$`, at once.
                    let rest = self.text.get(self.pos..).unwrap_or("");
                    match rest.find(['"', '\\', '$']).unwrap_or(rest.len()) {
                        0 => {
                            // A `$` that starts no interpolation.
                            self.pos += 1;
                            lit.push('$');
                        }
                        n => {
                            lit.push_str(&rest[..n]);
                            self.pos += n;
                        }
                    }
                }
            }
        }
        if !lit.is_empty() {
            parts.push(StrPart::Lit(lit));
        }
        match bad {
            Some((s, e, msg)) => {
                self.error(s, e, msg, None);
                self.push(TokenKind::Error, start, self.pos);
            }
            None => self.push(TokenKind::Str(parts), start, self.pos),
        }
    }

    fn symbol_or_error(&mut self, c: char) {
        let start = self.pos;
        if let Some(s) = symbol_at(self.text.as_bytes().get(start..).unwrap_or(&[])) {
            self.pos += s.len();
            self.push(TokenKind::Sym(s), start, self.pos);
            return;
        }
        // A run of characters no token can start with: one error.
        self.pos += c.len_utf8();
        while let Some(n) = self.peek() {
            if n.is_ascii_whitespace()
                || is_word_start(n)
                || n.is_ascii_digit()
                || n == '"'
                || n == '`'
            {
                break;
            }
            let r = self.text.get(self.pos..).unwrap_or("");
            if n == '#' || SYMBOLS1.iter().any(|s| r.starts_with(*s)) {
                break;
            }
            self.pos += n.len_utf8();
        }
        let bad = self.text.get(start..self.pos).unwrap_or("");
        let shown: String = bad.chars().take(20).flat_map(char::escape_debug).collect();
        let msg = if bad.chars().count() == 1 {
            format!("unexpected character '{shown}'")
        } else {
            format!("unexpected characters '{shown}'")
        };
        let help = match c {
            '\'' => Some("strings are written with double quotes: \"text\""),
            '&' => Some("use 'and' for a logical and"),
            '@' | '?' | '^' | '~' | '$' => None,
            _ => None,
        };
        self.error(start, self.pos, msg, help);
        self.push(TokenKind::Error, start, self.pos);
    }
}

/// `s` cut to at most `max` characters (with `...` when cut).
pub(crate) fn shorten(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<TokenKind<'_>> {
        let l = lex(FileId(0), text);
        assert!(l.diagnostics.is_empty(), "{:?}", l.diagnostics);
        l.tokens.into_iter().map(|t| t.kind).collect()
    }

    fn errors(text: &str) -> Vec<String> {
        lex(FileId(0), text)
            .diagnostics
            .into_iter()
            .map(|d| {
                assert_eq!(d.code, "ParseError");
                d.message
            })
            .collect()
    }

    fn id(s: &str) -> TokenKind<'_> {
        TokenKind::Ident(s)
    }

    #[test]
    fn keyword_lists() {
        assert_eq!(KEYWORDS.len(), 60);
        assert_eq!(TYPE_KEYWORDS.len(), 13);
        for k in KEYWORDS {
            assert!(!TYPE_KEYWORDS.contains(k));
            assert!(matches!(keyword(k), Some(Reserved::Keyword(x)) if x == *k));
        }
        for k in TYPE_KEYWORDS {
            assert!(matches!(keyword(k), Some(Reserved::Type(x)) if x == *k));
        }
        for w in [
            "",
            "x",
            "sources",
            "Model",
            "int",
            "int640",
            "fro",
            "many_to_one",
            "_from",
            "é",
            "merge_strategy_x",
            "merge_strategies_",
        ] {
            assert!(keyword(w).is_none(), "{w}");
        }
    }

    #[test]
    fn words() {
        use TokenKind::*;
        assert_eq!(
            kinds("model date país Select many_to_one _x1 x_2"),
            vec![
                Keyword("model"),
                TypeKeyword("date"),
                id("país"),
                id("Select"),
                id("many_to_one"),
                id("_x1"),
                id("x_2"),
                Eof
            ]
        );
    }

    #[test]
    fn quoted_names() {
        use TokenKind::*;
        assert_eq!(
            kinds("`date` `unit price` `it's \"x\"` `a.b`.c `é`"),
            vec![
                id("date"),
                id("unit price"),
                id("it's \"x\""),
                id("a.b"),
                Sym("."),
                id("c"),
                id("é"),
                Eof
            ]
        );
        // The span covers the backticks.
        let l = lex(FileId(0), "x `select`");
        assert_eq!(l.tokens[1].span.range(), 2..10);
        assert_eq!(
            errors("a `` b"),
            vec!["empty quoted name: '``' names nothing"]
        );
        assert_eq!(
            errors("a `b\nc"),
            vec!["unterminated quoted name: this '`' has no closing '`' on its line"]
        );
        assert_eq!(
            errors("`b"),
            vec!["unterminated quoted name: this '`' has no closing '`' on its line"]
        );
        assert_eq!(
            errors("`a\tb` c"),
            vec!["a quoted name cannot hold a control character (here U+0009)"]
        );
        // After an error the next token is lexed.
        let l = lex(FileId(0), "`a\tb` c `` d");
        assert_eq!(l.tokens[0].span.range(), 0..5);
        assert_eq!(l.tokens[1].kind, id("c"));
        assert_eq!(l.tokens[2].kind, TokenKind::Error);
        assert_eq!(l.tokens[3].kind, id("d"));
        let l = lex(FileId(0), "`ab\nc");
        assert_eq!(l.diagnostics[0].span.range(), 0..1);
        assert_eq!(l.tokens[1].kind, id("c"));
    }

    #[test]
    fn numbers() {
        use TokenKind::*;
        assert_eq!(
            kinds("1_000 1__0 1_ 1.5 .5 1e3"),
            vec![
                Int(1000),
                Int(10),
                Int(1),
                Float(1.5, "1.5"),
                Float(0.5, ".5"),
                Int(1),
                id("e3"),
                Eof
            ]
        );
        assert_eq!(
            kinds("5..10"),
            vec![Int(5), Sym("."), Sym("."), Int(10), Eof]
        );
        assert_eq!(
            kinds("5 .. 10"),
            vec![Int(5), Sym("."), Sym("."), Int(10), Eof]
        );
        assert_eq!(kinds("5.. 10"), kinds("5 ..10"));
        assert_eq!(kinds("9223372036854775807"), vec![Int(i64::MAX), Eof]);
        assert_eq!(
            errors("9223372036854775808"),
            vec!["integer literal too large: '9223372036854775808' does not fit in int64 (at most 9223372036854775807)"]
        );
    }

    #[test]
    fn symbols_and_spans() {
        let l = lex(FileId(3), "a->b == ${ => || | ! %");
        let syms: Vec<_> = l
            .tokens
            .iter()
            .map(|t| (t.kind.clone(), t.span.start, t.span.end))
            .collect();
        assert_eq!(syms[1], (TokenKind::Sym("->"), 1, 3));
        assert_eq!(syms[3], (TokenKind::Sym("=="), 5, 7));
        assert_eq!(syms[4].0, TokenKind::Sym("${"));
        assert_eq!(syms[5].0, TokenKind::Sym("=>"));
        assert_eq!(syms[6].0, TokenKind::Sym("||"));
        assert_eq!(syms[7].0, TokenKind::Sym("|"));
        assert_eq!(syms[8].0, TokenKind::Sym("!"));
        assert_eq!(l.tokens[0].span.file, FileId(3));
        let eof = l.tokens.last().map(|t| t.span);
        assert_eq!(eof, Some(Span::new(FileId(3), 22, 22)));
    }

    #[test]
    fn strings() {
        use TokenKind::*;
        assert_eq!(
            kinds(r#""a\n\t\"\\\q" "" "m_${c}x${d}""#),
            vec![
                Str(vec![StrPart::Lit("a\n\t\"\\q".into())]),
                Str(vec![]),
                Str(vec![
                    StrPart::Lit("m_".into()),
                    StrPart::Var("c".into()),
                    StrPart::Lit("x".into()),
                    StrPart::Var("d".into())
                ]),
                Eof
            ]
        );
        assert_eq!(
            kinds("\"multi\nline $x\""),
            vec![Str(vec![StrPart::Lit("multi\nline $x".into())]), Eof]
        );
        assert_eq!(
            string_literal_parts("\"m_${c}\""),
            Some(vec![StrPart::Lit("m_".into()), StrPart::Var("c".into())])
        );
        assert_eq!(string_literal_parts("\"a\" b"), None);
        assert_eq!(
            flatten_parts(&[StrPart::Lit("m_".into()), StrPart::Var("c".into())]),
            "m_c"
        );
    }

    #[test]
    fn string_errors() {
        assert_eq!(
            errors("\"abc"),
            vec!["unterminated string: this '\"' has no closing '\"'"]
        );
        assert_eq!(
            errors("\"abc\\"),
            vec!["unterminated string: this '\"' has no closing '\"'"]
        );
        assert_eq!(
            errors("\"a${}\""),
            vec!["empty interpolation '${}' in string"]
        );
        assert_eq!(
            errors("\"a${b c}\""),
            vec!["expected '}' to close the interpolation '${b', found ' '"]
        );
        // The token after a bad string is still lexed.
        let l = lex(FileId(0), "\"${}\" x");
        assert_eq!(l.tokens[0].kind, TokenKind::Error);
        assert_eq!(l.tokens[1].kind, id("x"));
    }

    #[test]
    fn comments() {
        let l = lex(FileId(0), "a // one\nb # two\nc /* three\n */ d");
        let texts: Vec<_> = l.comments.iter().map(|c| c.text.as_str()).collect();
        assert_eq!(texts, vec!["// one", "# two", "/* three\n */"]);
        let c = &l.comments[2];
        assert_eq!(
            &"a // one\nb # two\nc /* three\n */ d"[c.span.range()],
            c.text
        );
        assert_eq!(l.tokens.len(), 5);
        assert_eq!(
            errors("a /* never closed"),
            vec!["unterminated block comment: '/*' has no closing '*/'"]
        );
    }

    #[test]
    fn bad_characters() {
        assert_eq!(errors("a @ b"), vec!["unexpected character '@'"]);
        assert_eq!(errors("a && b"), vec!["unexpected characters '&&'"]);
        assert_eq!(
            errors("'x'"),
            vec!["unexpected character '\\''", "unexpected character '\\''"]
        );
        // Non-ASCII digits are not digits.
        assert_eq!(errors("x ٣"), vec!["unexpected character '٣'"]);
        let l = lex(FileId(0), "a ¹ b");
        assert_eq!(l.tokens[1].kind, TokenKind::Error);
        assert_eq!(l.tokens[1].span.range(), 2..4);
        assert_eq!(l.tokens[2].kind, id("b"));
        // BOM at the start is skipped.
        assert_eq!(kinds("\u{feff}x"), vec![id("x"), TokenKind::Eof]);
    }
}
