//! How a name is written: bare (`orders`) when it lexes as an identifier,
//! else between backticks (`` `order` ``, `` `unit price` ``). The lexer
//! reads both forms to the same [`crate::lexer::TokenKind::Ident`]; the
//! formatter, the language server, the grammar's sampler and import-dbt
//! write a name through [`written`], so it is quoted exactly when it must
//! be.
//!
//! A quoted name holds at least one character and no backtick and no
//! control character (a line break, a tab, ...): there is no escape inside
//! backticks, so such a name cannot be written.

use std::borrow::Cow;

pub use crate::lexer::is_quotable_char;
use crate::lexer::{is_word_char, is_word_start, KEYWORDS, TYPE_KEYWORDS};

/// Whether `s` lexes as one word (identifier, keyword or type keyword).
pub fn is_word(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if is_word_start(c) => {}
        _ => return false,
    }
    chars.all(is_word_char)
}

/// Whether `s` is a reserved word (a keyword or a type keyword).
pub fn is_reserved(s: &str) -> bool {
    KEYWORDS.contains(&s) || TYPE_KEYWORDS.contains(&s)
}

/// Whether `s` can be written bare: a word that is not reserved.
pub fn is_plain(s: &str) -> bool {
    is_word(s) && !is_reserved(s)
}

/// Whether `s` can be a name at all: bare, or between backticks.
pub fn is_writable(s: &str) -> bool {
    !s.is_empty() && s.chars().all(is_quotable_char)
}

/// `s` as written in a program: bare when [`is_plain`], else between
/// backticks. (A name that [`is_writable`] rejects comes back between
/// backticks too, which does not lex: callers that build names from
/// outside text check [`is_writable`] first.)
pub fn written(s: &str) -> Cow<'_, str> {
    if is_plain(s) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(format!("`{s}`"))
    }
}

/// The name a written name stands for: the text between backticks when
/// `s` is quoted, else `s` (the language server's rename takes either).
pub fn unwritten(s: &str) -> &str {
    match s.strip_prefix('`').and_then(|r| r.strip_suffix('`')) {
        Some(inner) => inner,
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_forms() {
        assert_eq!(written("orders"), "orders");
        assert_eq!(written("país"), "país");
        assert_eq!(written("order"), "order");
        assert_eq!(written("date"), "`date`");
        assert_eq!(written("select"), "`select`");
        assert_eq!(written("unit price"), "`unit price`");
        assert_eq!(written("1st"), "`1st`");
        assert_eq!(written("a.b"), "`a.b`");
        assert_eq!(written("it's \"x\""), "`it's \"x\"`");
    }

    #[test]
    fn writable() {
        assert!(is_writable("a b"));
        assert!(is_writable("date"));
        assert!(!is_writable(""));
        assert!(!is_writable("a`b"));
        assert!(!is_writable("a\nb"));
        assert!(!is_writable("a\tb"));
        assert_eq!(unwritten("`date`"), "date");
        assert_eq!(unwritten("x"), "x");
        assert_eq!(unwritten("`"), "`");
    }
}
