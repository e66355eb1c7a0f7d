//! Writing results: the `--format` choice, stdout helpers that end
//! quietly on a closed pipe (`strata ... | head`), and HTML escaping.

use serde::Serialize;

/// Output format of commands that print structured results.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Human-readable text; diagnostics rendered with source snippets.
    #[default]
    Human,
    /// One machine-readable JSON document on stdout.
    Json,
}

/// `println!` that ignores a closed stdout (`strata ... | head`).
#[macro_export]
macro_rules! outln {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($t)*);
    }};
}

/// Write text and a newline to stdout; a closed pipe (`| head`) ends the
/// output quietly instead of failing.
pub fn print_text(s: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{s}");
}

/// Print a JSON document to stdout (pretty, one trailing newline).
pub fn print_json<T: Serialize>(value: &T) {
    match serde_json::to_string_pretty(value) {
        Ok(s) => print_text(&s),
        Err(e) => eprintln!("error: cannot serialise output: {e}"),
    }
}

/// Text escaped for HTML, in element content and in `"`-quoted attributes
/// (Graphviz's HTML-like labels, the pages of `strata docs`).
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}
