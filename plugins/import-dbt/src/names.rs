//! Which names strata can write: identifiers (a word that is no keyword),
//! and the names import-dbt gives what dbt has no strata name for (a
//! source's tables, a CTE's helper model).

use strata_lang::lexer::{is_word_char, is_word_start, KEYWORDS, TYPE_KEYWORDS};

/// Whether `s` can be written as a strata identifier: a column, model or
/// source name.
pub fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if is_word_start(c) => {}
        _ => return false,
    }
    chars.all(is_word_char) && !KEYWORDS.contains(&s) && !TYPE_KEYWORDS.contains(&s)
}

/// Why `s` cannot be a strata name, for a needs-review reason; `None` when
/// it can: bare, or between backticks (a reserved word such as `date`, a
/// name with a space), as [`written`] writes it.
pub fn refusal(s: &str) -> Option<String> {
    if strata_lang::ident::is_writable(s) {
        return None;
    }
    Some(format!(
        "`{s}` cannot be a strata name, not even between backticks (it is empty or holds a backtick or a control character)"
    ))
}

/// A name as strata writes it: bare, or between backticks.
pub use strata_lang::ident::written;

/// The strata name of dbt source `source_name`'s table `table`: both
/// joined by `__` (a dbt source's tables are named within the source, and
/// a source table is often named like a model).
pub fn source_table(source_name: &str, table: &str) -> String {
    format!("{source_name}__{table}")
}

/// The helper model made from CTE (or subquery, or set-operation branch)
/// `part` of model `model`.
pub fn helper(model: &str, part: &str) -> String {
    format!("{model}__{part}")
}

/// A strata string literal with its quotes (escapes as the formatter
/// writes them: a literal `${` must not read back as an interpolation).
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '$' if chars.peek() == Some(&'{') => out.push_str("$\\"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers() {
        assert!(is_ident("customer_id"));
        assert!(is_ident("_x1"));
        assert!(!is_ident("date"));
        assert!(!is_ident("select"));
        assert!(!is_ident("1a"));
        assert!(!is_ident("a-b"));
        assert!(!is_ident(""));
        assert_eq!(refusal("date"), None);
        assert_eq!(refusal("a b"), None);
        assert!(refusal("a`b").is_some_and(|r| r.contains("backtick")));
        assert_eq!(written("date"), "`date`");
    }

    #[test]
    fn quoting() {
        assert_eq!(quote("a\"b\\c\n${x}"), "\"a\\\"b\\\\c\\n$\\{x}\"");
    }
}
