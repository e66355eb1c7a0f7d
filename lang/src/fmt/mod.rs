//! The canonical source formatter (`strata fmt`).
//!
//! # Style
//!
//! * Lines are at most [`WIDTH`] (100) columns where the code allows it;
//!   indentation is 2 spaces; output ends with one newline; no trailing
//!   whitespace.
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
//!   `a - (b - c)`; `-(-x)` keeps its parentheses for readability.
//! * Normalisations: `where` is written `filter`; `take A .. B` is written
//!   `take A..B`; `freshness 1h` is written `freshness: 1h`; a fn body is
//!   always braced on its own lines; a pipeline's `env` is written inside its
//!   body, first, then `models`, then `sources`; strings are re-escaped
//!   (`\n \t \" \\`, and `$\{` for a literal `${`) and templates re-emitted
//!   with `${v}`; floats, contextual words, `asc`, join `expect` and the
//!   quoting of names and values are kept as written; the unit argument of
//!   `date_trunc`/`date_diff` is written as a bare word.
//!
//! # Comments
//!
//! Comments are never dropped. Each is placed by position:
//! * a comment on its own line goes before the next entry (declaration,
//!   field, clause, assignment, list element) at that entry's indentation;
//! * a comment with code before it on its line stays at the end of that
//!   code's line (after the entry it follows, or after an opening brace);
//! * a comment inside an expression or a one-line clause that cannot be kept
//!   there goes on its own line before the enclosing entry;
//! * comments after the last entry of a body stay at the end of the body;
//!   comments at the end of the file stay at the end;
//! * block comments are written verbatim.
//!
//! [`format_model`] and [`format_expr`] give the canonical text of a node,
//! without comments and independent of spans (a model's fingerprint hashes
//! [`format_model`]).

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
    doc::render(&d, WIDTH)
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
