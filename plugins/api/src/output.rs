//! Writing results: the `--format` choice, and stdout helpers that end
//! quietly on a closed pipe (`strata ... | head`).

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
