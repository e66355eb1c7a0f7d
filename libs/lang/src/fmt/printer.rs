//! AST to [`Doc`], placing comments by source position.

use std::collections::BTreeMap;

use super::doc::{concat, Doc};
use super::lits;
use crate::ast::*;
use crate::ident::written;
use crate::span::Span;

/// How a bracketed, comma-separated list is laid out.
struct ListStyle {
    open: &'static str,
    close: &'static str,
    /// A space inside the brackets when flat (`{ a, b }` rather than `[a, b]`).
    pad: bool,
    /// A trailing comma when broken (only where the grammar accepts one).
    trailing_comma: bool,
}

const BRACES: ListStyle = ListStyle {
    open: "{",
    close: "}",
    pad: true,
    trailing_comma: true,
};
const BRACKETS: ListStyle = ListStyle {
    open: "[",
    close: "]",
    pad: false,
    trailing_comma: true,
};
const BRACKETS_STRICT: ListStyle = ListStyle {
    open: "[",
    close: "]",
    pad: false,
    trailing_comma: false,
};
const PARENS: ListStyle = ListStyle {
    open: "(",
    close: ")",
    pad: false,
    trailing_comma: false,
};
/// No brackets (`dedup by a, b`): a space before the first element.
const BARE: ListStyle = ListStyle {
    open: "",
    close: "",
    pad: true,
    trailing_comma: false,
};

pub(crate) struct Printer<'a> {
    /// The source text, when printing a parsed file (spans index into it).
    src: Option<&'a str>,
    /// Comments not placed yet, by start offset: (end, text).
    pending: BTreeMap<u32, (u32, String)>,
    /// Every comment's range, for skipping comments while scanning the source.
    comment_ranges: Vec<(u32, u32)>,
    /// End offset of the last node or comment placed.
    last_end: u32,
    /// Comments before this offset are not taken as leading or closing
    /// comments: inside an expression, a list, a comprehension or a model
    /// value only takes the comments it encloses; the others are left to the
    /// enclosing entry (before which they go).
    floor: u32,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum DeclKind {
    Import,
    Domain,
    Other,
}

impl<'a> Printer<'a> {
    /// A printer for a parsed file (comments placed by position).
    pub(crate) fn with_source(src: &'a str, comments: &[Comment]) -> Printer<'a> {
        let mut pending = BTreeMap::new();
        let mut comment_ranges = Vec::new();
        for c in comments {
            // Line endings are the renderer's business: no `\r` of a CRLF file.
            let text = c.text.replace("\r\n", "\n");
            let text = text.trim_end_matches('\r').to_string();
            // A line comment's span holds the `\r` of its CRLF: it ends
            // before it, like the whitespace the scanners skip.
            let cr = c.text.len() - c.text.trim_end_matches('\r').len();
            let end = c.span.end.saturating_sub(cr as u32);
            pending.insert(c.span.start, (end, text));
            comment_ranges.push((c.span.start, end));
        }
        comment_ranges.sort_unstable();
        Printer {
            src: Some(src),
            pending,
            comment_ranges,
            last_end: 0,
            floor: 0,
        }
    }

    /// A printer that ignores spans and comments (canonical text of a node).
    pub(crate) fn bare() -> Printer<'static> {
        Printer {
            src: None,
            pending: BTreeMap::new(),
            comment_ranges: Vec::new(),
            last_end: 0,
            floor: 0,
        }
    }

    // ---------------------------------------------------------------------
    // Source scanning

    fn slice(&self, from: u32, to: u32) -> Option<&'a str> {
        let src = self.src?;
        if from > to {
            return None;
        }
        src.get(from as usize..to as usize)
    }

    /// Whether the source between `from` and `to` contains an empty line.
    fn has_blank(&self, from: u32, to: u32) -> bool {
        let Some(text) = self.slice(from, to) else {
            return false;
        };
        let mut seen_newline = false;
        let mut blank = true;
        for c in text.chars() {
            if c == '\n' {
                if seen_newline && blank {
                    return true;
                }
                seen_newline = true;
                blank = true;
            } else if !c.is_whitespace() {
                blank = false;
            }
        }
        false
    }

    /// Whether anything but whitespace precedes `pos` on its source line.
    fn code_before(&self, pos: u32) -> bool {
        let Some(before) = self.slice(0, pos) else {
            return false;
        };
        // A lone `\r` ends a line too.
        let line_start = before.rfind(['\n', '\r']).map_or(0, |i| i + 1);
        // A byte-order mark is not code.
        !before[line_start..]
            .trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
            .is_empty()
    }

    /// The start of the comment that ends at `end`, or that ends with
    /// blanks after `end` (`# x ` trimmed from the right).
    fn comment_ending_at(&self, end: u32) -> Option<u32> {
        self.comment_ranges
            .iter()
            .find(|&&(s, e)| s < end && end <= e)
            .map(|&(s, _)| s)
    }

    fn comment_starting_at(&self, start: u32) -> Option<u32> {
        self.comment_ranges
            .iter()
            .find(|&&(s, _)| s == start)
            .map(|&(_, e)| e)
    }

    /// The offset before `pos` after skipping whitespace and comments backwards.
    fn skip_back(&self, mut pos: u32) -> u32 {
        let Some(src) = self.src else {
            return pos;
        };
        loop {
            let before = src.get(..pos as usize).unwrap_or("");
            let trimmed = before.trim_end();
            pos = trimmed.len() as u32;
            match self.comment_ending_at(pos) {
                Some(s) => pos = s,
                None => return pos,
            }
        }
    }

    /// The offset at or after `pos` after skipping whitespace and comments.
    fn skip_fwd(&self, mut pos: u32) -> u32 {
        let Some(src) = self.src else {
            return pos;
        };
        loop {
            let after = src.get(pos as usize..).unwrap_or("");
            pos += (after.len() - after.trim_start().len()) as u32;
            match self.comment_starting_at(pos) {
                Some(e) => pos = e,
                None => return pos,
            }
        }
    }

    /// Whether only spaces, then a line end, a separator, a closing bracket
    /// or another comment follow `pos` on its line.
    fn ends_line(&self, pos: u32) -> bool {
        let Some(rest) = self.src.and_then(|src| src.get(pos as usize..)) else {
            return true;
        };
        let rest = rest.trim_start_matches([' ', '\t']);
        rest.is_empty()
            || rest.starts_with(['\n', '\r', ',', ';', ')', ']', '}', '#'])
            || rest.starts_with("//")
            || rest.starts_with("/*")
    }

    /// The end of the word `w` (one of `words`) that follows `pos` after
    /// whitespace and comments, else `pos`.
    fn extend_over(&self, pos: u32, words: &[&str]) -> u32 {
        let Some(src) = self.src else {
            return pos;
        };
        let at = self.skip_fwd(pos);
        let rest = src.get(at as usize..).unwrap_or("");
        for w in words {
            if let Some(after) = rest.strip_prefix(w) {
                if !after.starts_with(crate::lexer::is_word_char) {
                    return at + w.len() as u32;
                }
            }
        }
        pos
    }

    /// Walks backwards from `pos` over `tokens` (last one first), skipping
    /// whitespace and comments; the start of the first token when all match.
    fn find_back(&self, pos: u32, tokens: &[&str]) -> Option<u32> {
        let src = self.src?;
        let mut p = pos;
        for tok in tokens.iter().rev() {
            p = self.skip_back(p);
            let before = src.get(..p as usize)?;
            if !before.ends_with(tok) {
                return None;
            }
            p -= tok.len() as u32;
            if lits::is_word(tok) {
                let prev = src.get(..p as usize)?.chars().next_back();
                if prev.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                    return None;
                }
            }
        }
        Some(p)
    }

    /// Walks forward from `pos` over optional `,` and then `close`; the
    /// offset after `close` when found.
    fn find_close(&self, pos: u32, close: char) -> Option<u32> {
        let src = self.src?;
        let mut p = self.skip_fwd(pos);
        if src.get(p as usize..)?.starts_with(',') {
            p = self.skip_fwd(p + 1);
        }
        if src.get(p as usize..)?.starts_with(close) {
            Some(p + close.len_utf8() as u32)
        } else {
            None
        }
    }

    /// The span of an entry `key: <open> elements <close>` whose first and
    /// last elements are at `first` and `last`: from `key` to the closing
    /// bracket when the source shows them, else the elements' span.
    fn keyed_span(&self, key: &str, open: &str, close: char, first: Span, last: Span) -> Span {
        Span {
            start: self
                .find_back(first.start, &[key, ":", open])
                .unwrap_or(first.start),
            end: self.find_close(last.end, close).unwrap_or(last.end),
            ..first
        }
    }

    // ---------------------------------------------------------------------
    // Comments

    fn take_before(&mut self, pos: u32) -> Vec<(u32, u32, String)> {
        if pos <= self.floor {
            return Vec::new();
        }
        let keys: Vec<u32> = self
            .pending
            .range(self.floor..pos)
            .map(|(k, _)| *k)
            .collect();
        keys.into_iter()
            .filter_map(|k| self.pending.remove(&k).map(|(e, t)| (k, e, t)))
            .collect()
    }

    /// The start of the first thing at or before `pos` still to place: a
    /// pending comment or `pos` itself.
    fn next_start(&self, pos: u32) -> u32 {
        if pos <= self.floor {
            return pos;
        }
        self.pending
            .range(self.floor..pos)
            .next()
            .map_or(pos, |(k, _)| *k)
    }

    /// Runs `f` with comments before `floor` out of its reach (see
    /// [`Printer::floor`]).
    fn within<T>(&mut self, floor: u32, f: impl FnOnce(&mut Self) -> T) -> T {
        let saved = self.floor;
        self.floor = self.floor.max(floor);
        let out = f(self);
        self.floor = saved;
        out
    }

    /// Comments before a node starting at `start`, each on its own line (or
    /// at the end of the previous line when code precedes it on its source
    /// line), keeping single blank lines.
    fn leading(&mut self, start: u32, allow_blank: bool) -> Doc {
        let mut out = Vec::new();
        let mut any = false;
        for (s, e, text) in self.take_before(start) {
            if (allow_blank || any) && self.has_blank(self.last_end, s) {
                out.push(Doc::HardLine);
            }
            if self.code_before(s) {
                // Ends the previous line: in the output, the previous
                // node's trailing comment, after which no blank line is
                // kept unless `allow_blank`.
                out.push(Doc::Trailing(text));
            } else {
                out.push(Doc::Comment(text));
                out.push(Doc::HardLine);
                any = true;
            }
            self.last_end = self.last_end.max(e);
        }
        if (allow_blank || any) && self.has_blank(self.last_end, start) {
            out.push(Doc::HardLine);
        }
        concat(out)
    }

    /// Comments inside `[start, end)` that no sub-node took: moved to lines of
    /// their own before the node.
    fn inner(&mut self, start: u32, end: u32) -> Doc {
        let start = start.max(self.floor);
        if start >= end {
            return Doc::nil();
        }
        let keys: Vec<u32> = self.pending.range(start..end).map(|(k, _)| *k).collect();
        let mut out = Vec::new();
        for k in keys {
            if let Some((_, text)) = self.pending.remove(&k) {
                out.push(Doc::Comment(text));
                out.push(Doc::HardLine);
            }
        }
        concat(out)
    }

    /// Comments right after `end` on the same line (only whitespace, `,` or
    /// `;` in between): kept at the end of the node's line.
    fn trailing(&mut self, end: u32) -> Doc {
        let mut out = Vec::new();
        let mut pos = end;
        while let Some((&s, &(e, ref text))) = self.pending.range(pos..).next() {
            let Some(between) = self.slice(pos, s) else {
                break;
            };
            if !between.chars().all(|c| matches!(c, ' ' | '\t' | ',' | ';')) {
                break;
            }
            let is_line = !text.starts_with("/*");
            if !is_line && !self.ends_line(e) {
                // Code of the same node follows: not a trailing comment.
                break;
            }
            let Some((_, text)) = self.pending.remove(&s) else {
                break;
            };
            out.push(Doc::Trailing(text));
            pos = e;
            self.last_end = self.last_end.max(e);
            if is_line {
                break;
            }
        }
        concat(out)
    }

    /// Comments left before `end` (the end of a block): after the block's
    /// last line, each on its own line, or at the end of the last line when
    /// code precedes it on its source line. `start` is where the block
    /// starts: a blank line is kept only after something inside it.
    fn closing(&mut self, start: u32, end: u32) -> Doc {
        let mut out = Vec::new();
        // Whether the output line so far ends with a line comment.
        let mut line_closed = false;
        for (s, e, text) in self.take_before(end) {
            let is_line = !text.starts_with("/*");
            if self.code_before(s) && !line_closed {
                out.push(Doc::Trailing(text));
            } else {
                out.push(Doc::HardLine);
                if self.last_end > start && self.has_blank(self.last_end, s) {
                    out.push(Doc::HardLine);
                }
                out.push(Doc::Comment(text));
            }
            line_closed = is_line;
            self.last_end = self.last_end.max(e);
        }
        concat(out)
    }

    /// A line-level node: its leading comments, its content, the comments
    /// inside it that no sub-node placed, and its trailing comments.
    fn node(&mut self, span: Span, allow_blank: bool, f: impl FnOnce(&mut Self) -> Doc) -> Doc {
        let lead = self.leading(span.start, allow_blank);
        let body = f(self);
        let inner = self.inner(span.start, span.end);
        self.last_end = self.last_end.max(span.end);
        let trail = self.trailing(span.end);
        concat([lead, inner, body, trail])
    }

    /// One node per line.
    fn lines<T>(
        &mut self,
        items: &[T],
        span_of: impl Fn(&T) -> Span,
        mut f: impl FnMut(&mut Self, &T) -> Doc,
    ) -> Vec<Doc> {
        let mut out = Vec::new();
        for (i, it) in items.iter().enumerate() {
            out.push(Doc::HardLine);
            out.push(self.node(span_of(it), i > 0, |p| f(p, it)));
        }
        out
    }

    /// `open` + one line per part + `close`, or `open close` joined when empty.
    fn braces(open: &str, parts: Vec<Doc>, close: &str) -> Doc {
        if parts.iter().all(is_nil) {
            return Doc::text(format!("{open}{close}"));
        }
        concat([
            Doc::text(open),
            Doc::nest(concat(parts)),
            Doc::HardLine,
            Doc::text(close),
        ])
    }

    /// A comma-separated list: flat when it fits, else one element per line.
    fn comma_list<T>(
        &mut self,
        style: &ListStyle,
        items: &[T],
        span_of: impl Fn(&T) -> Span,
        mut f: impl FnMut(&mut Self, usize, &T) -> Doc,
    ) -> Doc {
        if items.is_empty() {
            return Doc::text(format!("{}{}", style.open, style.close));
        }
        let edge = || if style.pad { Doc::Line } else { Doc::SoftLine };
        // The list takes the comments after its opening bracket.
        let first = span_of(&items[0]).start;
        let floor = match style.open {
            "" => first,
            open => self.find_back(first, &[open]).unwrap_or(first),
        };
        let inner = self.within(floor, |p| {
            let mut inner = vec![edge()];
            let n = items.len();
            for (i, it) in items.iter().enumerate() {
                let sp = span_of(it);
                inner.push(p.leading(sp.start, false));
                inner.push(f(p, i, it));
                p.last_end = p.last_end.max(sp.end);
                if i + 1 < n {
                    inner.push(Doc::text(","));
                } else if style.trailing_comma {
                    inner.push(Doc::if_break(Doc::text(","), Doc::nil()));
                }
                // Without a closing bracket, a comment after the last
                // element ends the enclosing clause's line: that clause
                // takes it.
                if i + 1 < n || !style.close.is_empty() {
                    inner.push(p.trailing(sp.end));
                }
                if i + 1 < n {
                    inner.push(Doc::Line);
                }
            }
            inner
        });
        let mut parts = vec![Doc::text(style.open), Doc::nest(concat(inner))];
        if !style.close.is_empty() {
            parts.push(edge());
            parts.push(Doc::text(style.close));
        }
        Doc::group(concat(parts))
    }

    // ---------------------------------------------------------------------
    // Strings taken from the source

    /// The string literal written at `from..to`, re-escaped, keeping its
    /// `${var}` parts (the AST keeps only the flattened text of these).
    fn source_string(&self, from: u32, to: u32) -> Option<String> {
        let text = self.slice(from, to)?;
        let parts = crate::lexer::string_literal_parts(text)?;
        Some(lits::quote_parts(&parts))
    }

    /// Whether the text at `span` was written as a string literal.
    fn written_quoted(&self, span: Span) -> Option<bool> {
        let text = self.slice(span.start, span.end)?;
        if text.is_empty() {
            return None;
        }
        Some(text.ends_with('"'))
    }

    /// A string value: from the source when it is there, else re-quoted.
    fn string_value(&self, value: &str, span: Span) -> String {
        self.source_string(span.start, span.end)
            .unwrap_or_else(|| lits::quote(value))
    }

    /// An integer as written (`1_000`) when the source has it, else its value.
    fn int_text(&self, v: i64, span: Span) -> String {
        match self.slice(span.start, span.end) {
            Some(t)
                if t.starts_with(|c: char| c.is_ascii_digit())
                    && t.bytes().all(|b| b.is_ascii_digit() || b == b'_') =>
            {
                t.to_string()
            }
            _ => v.to_string(),
        }
    }

    fn kv_value(&self, kv: &KeyValue) -> String {
        if kv.quoted {
            self.string_value(&kv.value, kv.value_span)
        } else {
            self.word_text(&kv.value, kv.value_span)
        }
    }

    fn kv_key(&self, kv: &KeyValue) -> String {
        self.word_or_string(&kv.key.name, kv.key.span)
    }

    fn kv(&self, kv: &KeyValue) -> Doc {
        Doc::text(format!("{}: {}", self.kv_key(kv), self.kv_value(kv)))
    }

    /// A single token taken as text (`ANY` in the grammar): as a string when
    /// it was written as one, else as written.
    fn word_or_string(&self, text: &str, span: Span) -> String {
        if self.written_quoted(span) == Some(true) {
            self.string_value(text, span)
        } else {
            self.word_text(text, span)
        }
    }

    /// A single token taken as text (`ANY`) that was not a string: between
    /// backticks again when it was written so (`` `a b` ``; kept even
    /// around a plain word, which may be a contextual word there, as
    /// `` `columns`: { `` in a source), else as written (a word, a keyword,
    /// a number, a symbol).
    fn word_text(&self, text: &str, span: Span) -> String {
        match self.slice(span.start, span.end) {
            Some(w) if w.starts_with('`') => format!("`{text}`"),
            _ => text.to_string(),
        }
    }

    // ---------------------------------------------------------------------
    // File and declarations

    pub(crate) fn file(&mut self, file: &File) -> Doc {
        let mut parts = Vec::new();
        let mut prev: Option<DeclKind> = None;
        for d in &file.decls {
            let span = d.span();
            let kind = match d {
                Decl::Import(_) => DeclKind::Import,
                Decl::Domain(_) => DeclKind::Domain,
                _ => DeclKind::Other,
            };
            if let Some(pk) = prev {
                parts.push(Doc::HardLine);
                let run = pk == kind && kind != DeclKind::Other;
                if !run || self.has_blank(self.last_end, self.next_start(span.start)) {
                    parts.push(Doc::HardLine);
                }
            }
            parts.push(self.node(span, false, |p| p.decl(d)));
            prev = Some(kind);
        }
        parts.push(self.closing(0, u32::MAX));
        concat(parts)
    }

    fn decl(&mut self, d: &Decl) -> Doc {
        match d {
            Decl::Import(i) => {
                let path: Vec<_> = i.path.iter().map(|p| written(&p.name)).collect();
                Doc::text(format!("import {}", path.join(".")))
            }
            Decl::Source(s) => self.source(s),
            Decl::Contract(c) => {
                let head = self.inner(c.span.start, c.name.span.end);
                let mut body = self.lines(&c.fields, |f| f.span, |p, f| p.field(f));
                body.push(self.closing(c.span.start, c.span.end));
                concat([
                    head,
                    Doc::text(format!("contract {} ", written(&c.name.name))),
                    Self::braces("{", body, "}"),
                ])
            }
            Decl::Domain(dd) => Doc::text(format!(
                "domain {} = {}",
                written(&dd.name.name),
                type_ref(&dd.ty)
            )),
            Decl::Model(m) => self.model(m),
            Decl::Pipeline(p) => self.pipeline(p),
            Decl::Test(t) => self.test(t),
            Decl::Fn(f) => self.fn_decl(f),
            Decl::Generator(e) => self.expr(e),
        }
    }

    fn source(&mut self, s: &SourceDecl) -> Doc {
        let head_comments = self.inner(s.span.start, s.name.span.end);
        let args = self.comma_list(
            &PARENS,
            &s.args,
            |a| a.key.span.to(a.value_span),
            |p, _, a| p.kv(a),
        );
        // An entry before a property whose key is `,` keeps a `,` after it:
        // else the parser reads that key as the separator.
        let comma_key = |p: &Self, i: usize| s.props.get(i).is_some_and(|kv| p.kv_key(kv) == ",");
        let mut body = Vec::new();
        if let Some(fields) = &s.columns {
            body.push(Doc::HardLine);
            let comma = comma_key(self, 0);
            body.push(self.columns(fields, s.columns_span, comma));
        }
        let n_before = usize::from(s.columns.is_some());
        for (i, kv) in s.props.iter().enumerate() {
            body.push(Doc::HardLine);
            let span = kv.key.span.to(kv.value_span);
            let comma = comma_key(self, i + 1);
            let doc = self.node(span, i + n_before > 0, |p| {
                let entry = p.kv(kv);
                if comma {
                    concat([entry, Doc::text(",")])
                } else {
                    entry
                }
            });
            body.push(doc);
        }
        let body_start = s.args.last().map_or(s.span.start, |a| a.value_span.end);
        body.push(self.closing(body_start, s.span.end));
        let mut out = vec![
            head_comments,
            Doc::text(format!("source {}", written(&s.name.name))),
            args,
        ];
        if !body.iter().all(is_nil) {
            out.push(Doc::text(" "));
            out.push(Self::braces("{", body, "}"));
        }
        concat(out)
    }

    /// `columns: { .. }` (written at `span` when known), one field per line
    /// (and `,` after it with `comma`).
    fn columns(&mut self, fields: &[FieldDef], span: Option<Span>, comma: bool) -> Doc {
        let comma = Doc::text(if comma { "," } else { "" });
        let span = match (span, fields.first(), fields.last()) {
            (Some(sp), _, _) => sp,
            (None, Some(first), Some(last)) => {
                self.keyed_span("columns", "{", '}', first.span, last.span)
            }
            (None, _, _) => return concat([Doc::text("columns: {}"), comma]),
        };
        self.node(span, false, |p| {
            let mut body = p.lines(fields, |f| f.span, |p, f| p.field(f));
            body.push(p.closing(span.start, span.end));
            concat([Doc::text("columns: "), Self::braces("{", body, "}"), comma])
        })
    }

    fn field(&mut self, f: &FieldDef) -> Doc {
        let mut parts = vec![Doc::text(format!(
            "{}: {}",
            written(&f.name.name),
            type_ref(&f.ty)
        ))];
        for a in &f.annotations {
            parts.push(Doc::text(" "));
            parts.push(self.annotation(a));
        }
        concat(parts)
    }

    fn annotation(&mut self, a: &Annotation) -> Doc {
        match a {
            Annotation::Nonnull(_) => Doc::text("nonnull"),
            Annotation::Unique(_) => Doc::text("unique"),
            Annotation::PrimaryKey(_) => Doc::text("primary_key"),
            Annotation::Protected(_) => Doc::text("protected"),
            Annotation::Enum(values, _) => {
                let list = self.comma_list(
                    &BRACES,
                    values,
                    |(_, sp)| *sp,
                    |p, _, (v, sp)| Doc::text(p.enum_value(v, *sp)),
                );
                concat([Doc::text("enum "), list])
            }
            Annotation::Classification(v, sp) => {
                let written = self.slice(sp.start, sp.end).unwrap_or("");
                let value = match written.find('"') {
                    Some(i) if written.ends_with('"') => self
                        .source_string(sp.start + i as u32, sp.end)
                        .unwrap_or_else(|| lits::quote(v)),
                    _ if lits::is_ident(v) => v.clone(),
                    _ => lits::quote(v),
                };
                Doc::text(format!("classification: {value}"))
            }
        }
    }

    fn enum_value(&self, v: &str, sp: Span) -> String {
        match self.written_quoted(sp) {
            Some(true) => self.string_value(v, sp),
            _ if lits::is_word(v) || lits::is_int(v) => v.to_string(),
            _ => lits::quote(v),
        }
    }

    fn model_head_end(m: &ModelDecl) -> u32 {
        m.contract.as_ref().map_or(m.name.span.end, |c| c.span.end)
    }

    pub(crate) fn model(&mut self, m: &ModelDecl) -> Doc {
        let head_end = Self::model_head_end(m);
        let head = self.inner(m.span.start, head_end);
        let name = if m.name_quoted {
            self.string_value(&m.name.name, m.name.span)
        } else {
            written(&m.name.name).into_owned()
        };
        let mut title = format!("model {name}");
        if let Some(c) = &m.contract {
            title.push_str(" -> contract ");
            title.push_str(&written(&c.name));
        }
        title.push(' ');
        let mut body = self.lines(&m.items, |i| i.span, |p, i| p.item(i));
        body.push(self.closing(m.span.start, m.span.end));
        concat([head, Doc::text(title), Self::braces("{", body, "}")])
    }

    fn pipeline(&mut self, pl: &PipelineDecl) -> Doc {
        let head = self.inner(pl.span.start, pl.name.span.end);
        let mut body = Vec::new();
        let mut entries = 0;
        if let Some(env) = &pl.env {
            let start = self
                .find_back(env.span.start, &["env", ":"])
                .unwrap_or(env.span.start);
            body.push(Doc::HardLine);
            let span = Span { start, ..env.span };
            body.push(self.node(span, false, |_| {
                Doc::text(format!("env: {}", written(&env.name)))
            }));
            entries += 1;
        }
        if let (Some(first), Some(last)) = (pl.models.first(), pl.models.last()) {
            let span = self.keyed_span("models", "[", ']', first.span, last.span);
            body.push(Doc::HardLine);
            body.push(self.node(span, entries > 0, |p| {
                let list = p.comma_list(&BRACKETS, &pl.models, |e| e.span, |p, _, e| p.expr(e));
                concat([Doc::text("models: "), list])
            }));
            entries += 1;
        }
        if let (Some(first), Some(last)) = (pl.sources.first(), pl.sources.last()) {
            let span = self.keyed_span("sources", "{", '}', first.span, last.span);
            body.push(Doc::HardLine);
            body.push(self.node(span, entries > 0, |p| {
                let mut inner = p.lines(&pl.sources, |o| o.span, |p, o| p.source_override(o));
                inner.push(p.closing(span.start, span.end));
                concat([Doc::text("sources: "), Self::braces("{", inner, "}")])
            }));
        }
        body.push(self.closing(pl.span.start, pl.span.end));
        concat([
            head,
            Doc::text(format!("pipeline {} ", written(&pl.name.name))),
            Self::braces("{", body, "}"),
        ])
    }

    fn source_override(&mut self, o: &SourceOverride) -> Doc {
        let name = Doc::text(written(&o.source.name).into_owned());
        let func = match (&o.func, o.args.is_empty()) {
            (Some(f), _) => self.word_or_string(&f.name, f.span),
            (None, true) => return name,
            (None, false) => "from".to_string(),
        };
        let args = self.comma_list(
            &PARENS,
            &o.args,
            |a| a.key.span.to(a.value_span),
            |p, _, a| p.kv(a),
        );
        concat([name, Doc::text(format!(": {func}")), args])
    }

    fn test(&mut self, t: &TestDecl) -> Doc {
        let head_end = t.name.as_ref().map_or(t.model.span.end, |(_, s)| s.end);
        let head = self.inner(t.span.start, head_end);
        // The severity, `given` blocks and checks, in the order written.
        let mut entries: Vec<TestEntry> = t
            .severity
            .iter()
            .map(|&(s, span)| TestEntry::Severity(s, span))
            .chain(t.givens.iter().map(TestEntry::Given))
            .chain(t.checks.iter().map(TestEntry::Check))
            .collect();
        entries.sort_by_key(|e| e.span().start);
        let mut body = self.lines(&entries, TestEntry::span, |p, e| match e {
            TestEntry::Severity(s, _) => Doc::text(format!("severity: {}", s.as_str())),
            TestEntry::Given(g) => p.given(g),
            TestEntry::Check(c) => p.check(c),
        });
        body.push(self.closing(t.span.start, t.span.end));
        let name = match &t.name {
            Some((n, span)) => format!(" {}", self.string_value(n, *span)),
            None => String::new(),
        };
        concat([
            head,
            Doc::text(format!("test {}{name} ", written(&t.model.name))),
            Self::braces("{", body, "}"),
        ])
    }

    fn given(&mut self, g: &Given) -> Doc {
        self.fixture_block(
            format!("given {}", written(&g.input.name)),
            g.columns.as_deref(),
            &g.rows,
            g.span,
        )
    }

    /// `<head>(col, ..) { rows }`: one row per line, each value padded so
    /// that the columns line up.
    fn fixture_block(
        &mut self,
        head: String,
        columns: Option<&[Ident]>,
        rows: &[FixtureRow],
        span: Span,
    ) -> Doc {
        let header = match columns {
            Some(cols) => self.comma_list(
                &PARENS,
                cols,
                |c| c.span,
                |_, _, c| Doc::text(written(&c.name).into_owned()),
            ),
            None => Doc::nil(),
        };
        concat([Doc::text(head), self.rows_braces(header, rows, span)])
    }

    /// `<header> { rows }` of a fixture block or a `rows` clause (written at
    /// `span`): one row per line, each value padded so that the columns line
    /// up.
    fn rows_braces(&mut self, header: Doc, rows: &[FixtureRow], span: Span) -> Doc {
        let texts: Vec<Vec<String>> = rows
            .iter()
            .map(|r| r.values.iter().map(|v| self.fixture_value(v)).collect())
            .collect();
        let mut widths: Vec<usize> = Vec::new();
        for row in &texts {
            for (k, v) in row.iter().enumerate() {
                let w = v.chars().count();
                match widths.get_mut(k) {
                    Some(x) => *x = (*x).max(w),
                    None => widths.push(w),
                }
            }
        }
        let indexed: Vec<(usize, &FixtureRow)> = rows.iter().enumerate().collect();
        let mut body = self.lines(
            &indexed,
            |(_, r)| r.span,
            |_, (i, _)| {
                let row = &texts[*i];
                let mut line = String::from("(");
                for (k, v) in row.iter().enumerate() {
                    line.push_str(v);
                    if k + 1 < row.len() {
                        line.push(',');
                        let pad = widths[k] - v.chars().count();
                        line.extend(std::iter::repeat_n(' ', pad + 1));
                    }
                }
                line.push(')');
                Doc::text(line)
            },
        );
        body.push(self.closing(span.start, span.end));
        concat([header, Doc::text(" "), Self::braces("{", body, "}")])
    }

    /// A fixture value as written (numbers kept, strings re-escaped).
    fn fixture_value(&self, v: &FixtureValue) -> String {
        match &v.kind {
            FixtureValueKind::Int(i) => match self.slice(v.span.start, v.span.end) {
                Some(t) if t.starts_with('-') => {
                    let digits = t[1..].trim_start();
                    if lits::is_int(&digits.replace('_', "")) && !digits.starts_with('_') {
                        format!("-{digits}")
                    } else {
                        i.to_string()
                    }
                }
                _ => self.int_text(*i, v.span),
            },
            FixtureValueKind::Float(text) => text.clone(),
            FixtureValueKind::Str(s) => self.string_value(s, v.span),
            FixtureValueKind::Bool(b) => b.to_string(),
            FixtureValueKind::Null => "null".to_string(),
            FixtureValueKind::List(items) => {
                let parts: Vec<String> = items.iter().map(|x| self.fixture_value(x)).collect();
                format!("[{}]", parts.join(", "))
            }
        }
    }

    fn check(&mut self, c: &TestCheck) -> Doc {
        let rest = match &c.kind {
            TestCheckKind::Compare { op, value } => {
                let lit = match &value.kind {
                    TestLitKind::Int(i) => self.int_text(*i, value.span),
                    TestLitKind::Float(v, text) => float_text(*v, text),
                    TestLitKind::Str(s) => self.string_value(s, value.span),
                    TestLitKind::Bool(b) => b.to_string(),
                    TestLitKind::Null => "null".to_string(),
                };
                format!("{} {lit}", op.symbol())
            }
            TestCheckKind::In { model, column } => {
                format!("in {}.{}", written(&model.name), written(&column.name))
            }
            TestCheckKind::Rows { columns, rows } => {
                return self.fixture_block("expect rows".into(), columns.as_deref(), rows, c.span)
            }
        };
        Doc::text(format!("expect {} {rest}", written(&c.target.name)))
    }

    fn fn_decl(&mut self, f: &FnDecl) -> Doc {
        // Comments before the name, then those of the signature that no
        // parameter took, all go before the declaration.
        let mut head = vec![self.inner(f.span.start, f.name.span.end)];
        let params = self.comma_list(
            &PARENS,
            &f.params,
            |(n, t)| n.span.to(t.span),
            |_, _, (n, t)| Doc::text(format!("{}: {}", written(&n.name), t.text)),
        );
        head.push(self.inner(f.span.start, f.ret.span.end));
        let body = vec![
            Doc::HardLine,
            self.node(f.body.span, false, |p| p.expr(&f.body)),
            self.closing(f.span.start, f.span.end),
        ];
        concat([
            concat(head),
            Doc::text(format!("fn {}", written(&f.name.name))),
            params,
            Doc::text(format!(" -> {} ", f.ret.text)),
            Self::braces("{", body, "}"),
        ])
    }

    // ---------------------------------------------------------------------
    // Model clauses

    fn item(&mut self, it: &Item) -> Doc {
        match &it.kind {
            ItemKind::Attr(kv) => self.kv(kv),
            ItemKind::From(id) => Doc::text(format!("from {}", written(&id.name))),
            ItemKind::Rows(r) => {
                let header = self.comma_list(&PARENS, &r.columns, |c| c.span, |p, _, c| p.field(c));
                concat([
                    Doc::text("rows"),
                    self.rows_braces(header, &r.rows, it.span),
                ])
            }
            ItemKind::Series(s) => {
                let mut parts = vec![
                    Doc::text(format!("series {} from ", written(&s.name.name))),
                    self.expr(&s.start),
                    Doc::text(" to "),
                    self.expr(&s.end),
                ];
                if let Some(step) = &s.step {
                    parts.push(Doc::text(format!(" step {}", step.count)));
                    if let Some(u) = &step.unit {
                        parts.push(Doc::text(format!(" {}", u.name)));
                    }
                }
                concat(parts)
            }
            ItemKind::Join(j) => {
                let mut parts = vec![Doc::text(format!(
                    "{} {}",
                    j.kind.keyword(),
                    written(&j.input.name)
                ))];
                if let Some(on) = &j.on {
                    parts.push(Doc::text(" on "));
                    parts.push(self.expr(on));
                }
                if let Some(x) = &j.expect {
                    parts.push(Doc::text(format!(" expect {}", x.cardinality.as_str())));
                }
                concat(parts)
            }
            ItemKind::Filter { expr, .. } => concat([Doc::text("filter "), self.expr(expr)]),
            ItemKind::Let { name, expr } => concat([
                Doc::text(format!("let {} = ", written(&name.name))),
                self.expr(expr),
            ]),
            ItemKind::Assign(kind, assigns) => {
                let list = self.comma_list(
                    &BRACES,
                    assigns,
                    |a| a.span,
                    |p, _, a| {
                        concat([
                            Doc::text(format!("{} = ", written(&a.name.name))),
                            p.expr(&a.expr),
                        ])
                    },
                );
                concat([Doc::text(format!("{} ", kind.keyword())), list])
            }
            ItemKind::Group(g) => {
                let keys = self.comma_list(&BRACES, &g.keys, |e| e.span, |p, _, e| p.expr(e));
                let mut body = self.lines(&g.body, |i| i.span, |p, i| p.item(i));
                let body_start = g.keys.last().map_or(it.span.start, |k| k.span.end);
                body.push(self.closing(body_start, it.span.end));
                concat([
                    Doc::text("group "),
                    keys,
                    Doc::text(" "),
                    Self::braces("(", body, ")"),
                ])
            }
            ItemKind::Sort(keys) => {
                // A key's span covers its `asc`/`desc`.
                let keys: Vec<(Span, &SortKey)> = keys
                    .iter()
                    .map(|k| {
                        let mut sp = k.expr.span;
                        if k.desc || k.asc_written {
                            sp.end = self.extend_over(sp.end, &["desc", "asc"]);
                        }
                        if k.nulls.is_some() {
                            sp.end = self.extend_over(sp.end, &["nulls_first", "nulls_last"]);
                        }
                        (sp, k)
                    })
                    .collect();
                let list = self.comma_list(
                    &BRACES,
                    &keys,
                    |(sp, _)| *sp,
                    |p, _, (_, k)| {
                        let dir = if k.desc {
                            " desc"
                        } else if k.asc_written {
                            " asc"
                        } else {
                            ""
                        };
                        concat([p.expr(&k.expr), Doc::text(dir), nulls_doc(k.nulls)])
                    },
                );
                concat([Doc::text("sort "), list])
            }
            ItemKind::Take { start, end } => Doc::text(match end {
                Some(e) => format!("take {start}..{e}"),
                None => format!("take {start}"),
            }),
            ItemKind::Expand { column, alias } => Doc::text(match alias {
                Some(a) => format!("expand {} as {}", written(&column.name), written(&a.name)),
                None => format!("expand {}", written(&column.name)),
            }),
            ItemKind::SetOp { kind, input } => {
                Doc::text(format!("{} {}", kind.keyword(), written(&input.name)))
            }
            ItemKind::Dedup { by } => match by {
                Some(keys) if !keys.is_empty() => {
                    let list = self.comma_list(&BARE, keys, |e| e.span, |p, _, e| p.expr(e));
                    concat([Doc::text("dedup by"), list])
                }
                _ => Doc::text("dedup"),
            },
            ItemKind::PartitionBy { exprs, freshness } => {
                let list =
                    self.comma_list(&BRACKETS_STRICT, exprs, |e| e.span, |p, _, e| p.expr(e));
                let mut parts = vec![Doc::text("partition_by "), list];
                if let Some(f) = freshness {
                    let fresh = self.freshness(f);
                    parts.push(Doc::nest(concat([Doc::Line, fresh])));
                }
                Doc::group(concat(parts))
            }
            ItemKind::Freshness(f) => self.freshness(f),
            ItemKind::Incremental(i) => self.incremental(i),
        }
    }

    /// `freshness: vals [freshness_column: c] [incremental ..]`, its parts
    /// on lines of their own when it does not fit.
    fn freshness(&mut self, f: &Freshness) -> Doc {
        let values: Vec<String> = f
            .values
            .iter()
            .map(|(v, sp)| self.fresh_value(v, *sp))
            .collect();
        let mut rest = Vec::new();
        if let Some(c) = &f.column {
            rest.push(Doc::Line);
            rest.push(Doc::text(format!("freshness_column: {}", written(&c.name))));
        }
        if let Some(i) = &f.incremental {
            rest.push(Doc::Line);
            rest.push(self.incremental(i));
        }
        Doc::group(concat([
            Doc::text(format!("freshness: {}", values.join(", "))),
            Doc::nest(concat(rest)),
        ]))
    }

    fn fresh_value(&self, v: &str, sp: Span) -> String {
        if self.written_quoted(sp) == Some(true) {
            return self.string_value(v, sp);
        }
        let digits = v.len() - v.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let (num, unit) = v.split_at(digits);
        let bare = if num.is_empty() {
            lits::is_ident(unit) || unit == "incremental"
        } else {
            unit.is_empty() || lits::is_ident(unit)
        };
        if !bare {
            lits::quote(v)
        } else if !num.is_empty() && unit.starts_with('_') {
            // `1_x` would lex as the number `1_` then `x`.
            format!("{num} {unit}")
        } else {
            v.to_string()
        }
    }

    /// `incremental [merge_strategy: s] [merge_keys: [..]] [cdc_column: c]`.
    fn incremental(&mut self, i: &Incremental) -> Doc {
        let mut rest = Vec::new();
        if let Some(s) = &i.strategy {
            rest.push(Doc::Line);
            rest.push(Doc::text(format!("merge_strategy: {}", written(&s.name))));
        }
        if let Some(keys) = &i.merge_keys {
            let list = self.comma_list(&BRACKETS_STRICT, keys, |e| e.span, |p, _, e| p.expr(e));
            rest.push(Doc::Line);
            rest.push(Doc::text("merge_keys: "));
            rest.push(list);
        }
        if let Some(c) = &i.cdc_column {
            rest.push(Doc::Line);
            rest.push(Doc::text(format!("cdc_column: {}", written(&c.name))));
        }
        Doc::group(concat([Doc::text("incremental"), Doc::nest(concat(rest))]))
    }

    // ---------------------------------------------------------------------
    // Expressions

    pub(crate) fn expr(&mut self, e: &Expr) -> Doc {
        match &e.kind {
            ExprKind::Int(i) => Doc::text(self.int_text(*i, e.span)),
            ExprKind::Float(v, text) => Doc::text(float_text(*v, text)),
            ExprKind::Str(s) => Doc::text(lits::quote(s)),
            ExprKind::Template(parts) => Doc::text(lits::quote_parts(parts)),
            ExprKind::Bool(b) => Doc::text(b.to_string()),
            ExprKind::Null => Doc::text("null"),
            ExprKind::Column { qualifier, name } => Doc::text(match qualifier {
                Some(q) => format!("{}.{}", written(&q.name), written(&name.name)),
                None => written(&name.name).into_owned(),
            }),
            ExprKind::Call(c) => self.call(c),
            ExprKind::Unary { op, operand } => {
                let parens = matches!(operand.kind, ExprKind::Binary { .. });
                // `- -x`, not `-(-x)`: parentheses would count as nesting
                // levels, and a deep chain that parsed must re-parse.
                let spaced = *op == UnaryOp::Neg
                    && match &operand.kind {
                        ExprKind::Unary { op: inner, .. } => *inner == UnaryOp::Neg,
                        ExprKind::Int(i) => *i < 0,
                        _ => false,
                    };
                let inner = self.expr(operand);
                let prefix = match op {
                    UnaryOp::Not => "not ",
                    UnaryOp::Neg if spaced => "- ",
                    UnaryOp::Neg => "-",
                };
                if parens {
                    concat([Doc::text(format!("{prefix}(")), inner, Doc::text(")")])
                } else {
                    concat([Doc::text(prefix), inner])
                }
            }
            ExprKind::Binary { .. } => self.binary(e),
            ExprKind::Star => Doc::text("*"),
            ExprKind::List(items) => {
                self.comma_list(&BRACKETS, items, |e| e.span, |p, _, e| p.expr(e))
            }
            ExprKind::Comprehension { element, var, iter } => {
                // The element takes the comments after `[`.
                let el = self.within(e.span.start, |p| {
                    p.node(element.span, false, |p| p.expr(element))
                });
                let it = self.expr(iter);
                Doc::group(concat([
                    Doc::text("["),
                    Doc::nest(concat([
                        Doc::SoftLine,
                        el,
                        Doc::Line,
                        Doc::text(format!("for {} in ", written(&var.name))),
                        it,
                    ])),
                    Doc::SoftLine,
                    Doc::text("]"),
                ]))
            }
            // The comments of the header are left to the enclosing entry.
            ExprKind::Model(m) => {
                let head_end = Self::model_head_end(m);
                self.within(head_end, |p| p.model(m))
            }
        }
    }

    fn binary(&mut self, e: &Expr) -> Doc {
        let prec = match &e.kind {
            ExprKind::Binary { op, .. } => op.precedence(),
            _ => return self.expr(e),
        };
        // Flatten the left-associative chain of operators of this level.
        let mut rights: Vec<(BinOp, &Expr)> = Vec::new();
        let mut cur = e;
        loop {
            match &cur.kind {
                ExprKind::Binary { op, lhs, rhs, .. } if op.precedence() == prec => {
                    rights.push((*op, rhs));
                    cur = lhs;
                }
                _ => break,
            }
        }
        rights.reverse();
        let first = self.operand(cur, prec, false);
        let mut rest = Vec::new();
        for (op, rhs) in rights {
            rest.push(Doc::Line);
            rest.push(Doc::text(format!("{} ", op.symbol())));
            rest.push(self.operand(rhs, prec, true));
        }
        Doc::group(concat([first, Doc::nest(concat(rest))]))
    }

    fn operand(&mut self, e: &Expr, prec: u8, right: bool) -> Doc {
        let parens = match &e.kind {
            ExprKind::Binary { op, .. } => {
                let p = op.precedence();
                if right {
                    p <= prec
                } else {
                    p < prec
                }
            }
            _ => false,
        };
        let d = self.expr(e);
        if parens {
            concat([Doc::text("("), d, Doc::text(")")])
        } else {
            d
        }
    }

    fn call(&mut self, c: &Call) -> Doc {
        let name = c.name.name.as_str();
        // The arguments, then an ordered aggregate's sort: [..].
        let items: Vec<Option<&Arg>> = c
            .args
            .iter()
            .map(Some)
            .chain(c.sort.as_ref().map(|_| None))
            .collect();
        let args = if items.is_empty() && c.distinct {
            Doc::text("(distinct)")
        } else {
            self.comma_list(
                &PARENS,
                &items,
                |a| match a {
                    Some(a) => match &a.name {
                        Some(n) => n.span.to(a.value.span),
                        None => a.value.span,
                    },
                    None => c.sort.as_ref().map_or(c.name.span, |s| s.span),
                },
                |p, i, a| {
                    let Some(a) = a else {
                        let keys = c.sort.as_ref().map_or(&[][..], |s| &s.keys[..]);
                        let distinct = if i == 0 && c.distinct {
                            "distinct "
                        } else {
                            ""
                        };
                        return concat([Doc::text(format!("{distinct}sort: ")), p.sort_keys(keys)]);
                    };
                    let mut parts = Vec::new();
                    if i == 0 && c.distinct {
                        parts.push(Doc::text("distinct "));
                    }
                    if let Some(n) = &a.name {
                        parts.push(Doc::text(format!("{}: ", written(&n.name))));
                    }
                    match &a.value.kind {
                        // The unit slots of date_trunc/date_diff take a bare word.
                        ExprKind::Str(s)
                            if a.name.is_none()
                                && crate::catalog::is_unit_slot(name, i)
                                && lits::is_ident(s) =>
                        {
                            parts.push(Doc::text(s.clone()))
                        }
                        _ => parts.push(p.expr(&a.value)),
                    }
                    concat(parts)
                },
            )
        };
        let mut parts = vec![Doc::text(written(name).into_owned()), args];
        if let Some(w) = &c.over {
            parts.push(Doc::text(" over "));
            parts.push(self.window(w));
        }
        concat(parts)
    }

    /// `[k desc nulls_last, ..]` of a window's or an ordered aggregate's
    /// `sort:`.
    fn sort_keys(&mut self, sort: &[WindowKey]) -> Doc {
        let keys: Vec<(Span, &WindowKey)> = sort
            .iter()
            .map(|k| {
                let mut sp = k.expr.span;
                if k.desc {
                    sp.end = self.extend_over(sp.end, &["desc"]);
                }
                if k.nulls.is_some() {
                    sp.end = self.extend_over(sp.end, &["nulls_first", "nulls_last"]);
                }
                (sp, k)
            })
            .collect();
        self.comma_list(
            &BRACKETS_STRICT,
            &keys,
            |(sp, _)| *sp,
            |p, _, (_, k)| {
                concat([
                    p.expr(&k.expr),
                    Doc::text(if k.desc { " desc" } else { "" }),
                    nulls_doc(k.nulls),
                ])
            },
        )
    }

    fn window(&mut self, w: &Window) -> Doc {
        // Each part once, in the order first written.
        let mut order: Vec<bool> = Vec::new();
        for &p in &w.parts_written {
            if !order.contains(&p) {
                order.push(p);
            }
        }
        if !order.contains(&true) && !w.partition_by.is_empty() {
            order.insert(0, true);
        }
        if !order.contains(&false) && !w.sort.is_empty() {
            order.push(false);
        }
        let mut parts = Vec::new();
        for (i, is_partition) in order.iter().enumerate() {
            if i > 0 {
                parts.push(Doc::text(","));
                parts.push(Doc::Line);
            }
            if *is_partition {
                let list = self.comma_list(
                    &BRACKETS_STRICT,
                    &w.partition_by,
                    |e| e.span,
                    |p, _, e| p.expr(e),
                );
                parts.push(Doc::text("partition_by: "));
                parts.push(list);
            } else {
                let list = self.sort_keys(&w.sort);
                parts.push(Doc::text("sort: "));
                parts.push(list);
            }
        }
        if let Some(f) = &w.frame {
            if !parts.is_empty() {
                parts.push(Doc::text(","));
                parts.push(Doc::Line);
            }
            let bound = |b: FrameBound| match b {
                FrameBound::Unbounded => "unbounded".to_string(),
                FrameBound::Offset(v) => v.to_string(),
            };
            parts.push(Doc::text(format!(
                "{}: [{}, {}]",
                f.unit.word(),
                bound(f.start),
                bound(f.end)
            )));
        }
        if parts.is_empty() {
            return Doc::text("()");
        }
        Doc::group(concat([
            Doc::text("("),
            Doc::nest(concat([Doc::SoftLine, concat(parts)])),
            Doc::SoftLine,
            Doc::text(")"),
        ]))
    }
}

fn is_nil(d: &Doc) -> bool {
    match d {
        Doc::Concat(v) => v.iter().all(is_nil),
        Doc::Text(s) => s.is_empty(),
        _ => false,
    }
}

/// A float as written; a rebuilt text only for nodes made without one.
fn float_text(v: f64, text: &str) -> String {
    if !text.is_empty() {
        return text.to_string();
    }
    let s = format!("{v}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

pub(crate) fn type_ref(t: &TypeRef) -> String {
    match &t.kind {
        TypeRefKind::Int64 => "int64".into(),
        TypeRefKind::Float32 => "float32".into(),
        TypeRefKind::Float64 => "float64".into(),
        TypeRefKind::String => "string".into(),
        TypeRefKind::Bool => "bool".into(),
        TypeRefKind::Date => "date".into(),
        TypeRefKind::Timestamp => "timestamp".into(),
        TypeRefKind::TimestampTz => "timestamptz".into(),
        TypeRefKind::Uuid => "uuid".into(),
        TypeRefKind::Json => "json".into(),
        TypeRefKind::Decimal(p, s) => format!("decimal({p}, {s})"),
        TypeRefKind::Money(None) => "money".into(),
        TypeRefKind::Money(Some(c)) => format!("money({})", written(c)),
        TypeRefKind::Array(inner) => format!("array({})", type_ref(inner)),
        TypeRefKind::Named(n) => written(n).into_owned(),
    }
}

/// An entry of a test body: its severity, a `given` block or a check.
enum TestEntry<'t> {
    Severity(Severity, Span),
    Given(&'t Given),
    Check(&'t TestCheck),
}

impl TestEntry<'_> {
    fn span(&self) -> Span {
        match self {
            TestEntry::Severity(_, span) => *span,
            TestEntry::Given(g) => g.span,
            TestEntry::Check(c) => c.span,
        }
    }
}

/// ` nulls_first` / ` nulls_last` after a sort key, as written.
fn nulls_doc(nulls: Option<Nulls>) -> Doc {
    match nulls {
        Some(n) => Doc::text(format!(" {}", n.word())),
        None => Doc::text(""),
    }
}
