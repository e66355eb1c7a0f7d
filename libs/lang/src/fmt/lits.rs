//! Literal and word helpers: string re-escaping and which texts can be
//! written as a bare word.

use crate::ast::StrPart;

pub(crate) use crate::ident::{is_plain as is_ident, is_word};

/// Whether `s` is a run of ASCII digits.
pub(crate) fn is_int(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit())
}

fn escape_into(out: &mut String, s: &str) {
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            // A literal `${` must not read back as an interpolation.
            '$' if chars.peek() == Some(&'{') => out.push_str("$\\"),
            c => out.push(c),
        }
    }
}

/// A plain string literal with its quotes, re-escaped.
pub(crate) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    escape_into(&mut out, s);
    out.push('"');
    out
}

/// A string literal with `${var}` parts.
pub(crate) fn quote_parts(parts: &[StrPart]) -> String {
    let mut out = String::from("\"");
    for p in parts {
        match p {
            StrPart::Lit(s) => escape_into(&mut out, s),
            StrPart::Var(v) => {
                out.push_str("${");
                out.push_str(v);
                out.push('}');
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quote_escapes() {
        assert_eq!(quote("a\"b\\c\nd\te"), r#""a\"b\\c\nd\te""#);
        assert_eq!(quote("${x}"), r#""$\{x}""#);
    }

    #[test]
    fn template_parts() {
        let parts = vec![
            StrPart::Lit("m_".into()),
            StrPart::Var("c".into()),
            StrPart::Lit("q\n".into()),
        ];
        assert_eq!(quote_parts(&parts), r#""m_${c}q\n""#);
        assert_eq!(quote_parts(&[]), "\"\"");
    }

    #[test]
    fn words() {
        assert!(is_ident("país"));
        assert!(!is_ident("date"));
        assert!(!is_ident("1a"));
        assert!(is_word("by"));
        assert!(is_int("10"));
        assert!(!is_int(""));
    }
}
