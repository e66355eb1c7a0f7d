//! The canonical source formatter (`strata fmt`).
//!
//! # Style
//!
//! * Lines are at most [`WIDTH`] (100) columns where the code allows it
//!   (comments do not count); indentation is 2 spaces; output ends with one
//!   newline; no trailing whitespace; line endings are those of the file's
//!   first line (`\n` or `\r\n`); a byte-order mark is dropped.
//! * Declarations are separated by one blank line. Runs of `import` lines and
//!   runs of `domain` lines keep the user's choice of zero or one blank line
//!   between them.
//! * Inside a body (source, contract, model, group, pipeline, test), one
//!   entry per line. A blank line the user left between two entries is kept
//!   (at most one); blank lines at the start or end of a body are removed.
//! * `source s(args) { columns: { .. } props }`: the `columns` block first,
//!   one field per line without separators, then the other properties. A
//!   source without columns or properties has no braces.
//! * Contract fields: one per line, no separators.
//! * Lists (`select`/`derive`/`aggregate`/`sort`/`group` keys, `enum`,
//!   `[..]`, call arguments, windows): on one line when they fit, with spaces
//!   inside braces (`select { a = x, b = y }`) and none inside brackets and
//!   parentheses (`[a, b]`, `f(a, b)`); otherwise one element per line, with
//!   a trailing comma where the grammar accepts one.
//! * Long binary chains break before the operator, indented one level.
//!   Parentheses are the minimal ones for the precedence table (`or` <
//!   `and` < comparisons and `in` < `+ - ||` < `* / %`, all left-associative;
//!   prefix `not`/`-` bind tightest): `not (x > 1)`, `(a + b) * c`,
//!   `a - (b - c)`; a double negation is written `- -x` (parentheses
//!   would add nesting levels the parser counts against its limit: the
//!   output never nests deeper than the input).
//! * Normalisations: `where` is written `filter`; `take A .. B` is written
//!   `take A..B`; `freshness 1h` is written `freshness: 1h` (its parts and
//!   those of `incremental` go on lines of their own when too long); a fn
//!   body is always braced on its own lines; a pipeline's entries are written
//!   `env`, `models`, `sources` (a header `env:` moves into the body); a
//!   window part written twice is merged; strings are re-escaped (`\n \t \"
//!   \\`, and `$\{` for a literal `${`) and templates re-emitted with
//!   `${v}`; the unit argument of `date_trunc`/`date_diff` is a bare word.
//! * Kept as written: numbers (`1_000`, `1.50`), contextual words, `asc`,
//!   join `expect`, the quoting of names, values and enum members, the order
//!   of clauses and fields.
//!
//! # Comments
//!
//! Comments are never dropped and block comments are written verbatim. Each
//! is placed by position:
//! * a comment on its own line goes before the next entry (declaration,
//!   field, property, clause, assignment, list element) at that entry's
//!   indentation, keeping one blank line before or after it if there was
//!   one;
//! * a comment with code before it on its line stays at the end of that
//!   code's line: after the entry it follows (a block comment only when
//!   nothing of the entry follows it), or after an opening brace or bracket;
//!   a list holding such a comment is written one element per line;
//! * a comment inside an entry that none of the above places (inside an
//!   expression, between a field's words, ...) goes on its own line before
//!   the entry;
//! * comments after the last entry of a body stay at the end of the body,
//!   comments after the last declaration at the end of the file.
//!
//! [`format_model`] and [`format_expr`] give the canonical text of a node,
//! without comments and independent of spans. (A model's fingerprint does
//! not hash it: see [`crate::fingerprint`].)

mod doc;
mod lits;
mod printer;

#[cfg(test)]
mod tests;

use crate::ast;
use crate::diag::Diagnostic;
use crate::span::FileId;
use printer::Printer;

/// The line width the formatter aims for.
pub const WIDTH: usize = 100;

/// The canonical text of a parsed file, comments kept. `source` must be the
/// text `file` was parsed from.
pub fn format_file(file: &ast::File, source: &str) -> String {
    let mut p = Printer::with_source(source, &file.comments);
    let d = p.file(file);
    let out = doc::render(&d, WIDTH);
    // Line endings follow the file's first one (like rustfmt's "auto").
    let crlf = source
        .find('\n')
        .is_some_and(|i| source[..i].ends_with('\r'));
    if crlf {
        out.replace('\n', "\r\n")
    } else {
        out
    }
}

/// Parses `source` and returns its canonical text, or the parse errors (a
/// file with parse errors is never formatted).
pub fn format_source(file_id: FileId, source: &str) -> Result<String, Vec<Diagnostic>> {
    let (file, diags) = crate::parser::parse(file_id, source);
    let errors: Vec<Diagnostic> = diags.into_iter().filter(|d| d.is_error()).collect();
    if errors.is_empty() {
        Ok(format_file(&file, source))
    } else {
        Err(errors)
    }
}

/// A string literal for `value`, quotes included, escaped as the formatter
/// writes strings (`\n \t \" \\`, and `$\{` for a literal `${`).
pub fn quote_string(value: &str) -> String {
    lits::quote(value)
}

/// The canonical text of an expression (no trailing newline).
pub fn format_expr(e: &ast::Expr) -> String {
    let mut p = Printer::bare();
    let d = p.expr(e);
    trim_final_newline(doc::render(&d, WIDTH))
}

/// The canonical text of a model (no trailing newline). It depends neither on
/// comments nor on spans.
pub fn format_model(m: &ast::ModelDecl) -> String {
    let mut p = Printer::bare();
    let d = p.model(m);
    trim_final_newline(doc::render(&d, WIDTH))
}

fn trim_final_newline(mut s: String) -> String {
    if s.ends_with('\n') {
        s.pop();
    }
    s
}
