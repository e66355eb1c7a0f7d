//! `strata explain CODE`: print the documentation of a diagnostic code.

use std::io::Write;

use clap::Args;
use strata_lang::suggest::edit_distance;
use strata_rules::Rule;

use crate::exit;

/// Print what a diagnostic code means, an example that triggers it and how
/// to fix it.
///
/// The text is the rule's documentation, the same for every code that
/// `strata rules` lists.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The code to explain, e.g. `E079`, `F001`, `W002`, `ParseError` or
    /// `PinError` (case-insensitive).
    #[arg(value_name = "CODE")]
    pub code: String,
}

pub fn run(args: ExplainArgs) -> i32 {
    match strata_rules::find(&args.code) {
        Some(rule) => {
            // A closed pipe (`strata explain E079 | head`) is not an error.
            let _ = std::io::stdout()
                .lock()
                .write_all(explanation(rule).as_bytes());
            exit::OK
        }
        None => {
            eprintln!("{}", unknown_code(&args.code));
            exit::USAGE
        }
    }
}

/// `CODE (name, severity): summary`, a blank line, then the rest of the doc.
pub fn explanation(rule: &Rule) -> String {
    let body = rule
        .doc
        .split_once('\n')
        .map_or("", |(_, rest)| rest)
        .trim_start_matches('\n');
    let mut text = format!(
        "{} ({}, {}): {}\n",
        rule.code,
        rule.name,
        rule.severity_name(),
        rule.summary()
    );
    if !body.is_empty() {
        text.push('\n');
        text.push_str(body);
        text.push('\n');
    }
    text
}

fn unknown_code(code: &str) -> String {
    let mut message = format!("error: unknown diagnostic code `{code}`\n");
    if let Some((rule, _)) = code.split_once(':') {
        message.push_str(&format!(
            "note: `{code}` is a code of the external rule `{rule}`: its documentation is the rule's own (docs/external-rules.md)"
        ));
        return message;
    }
    let codes: Vec<String> = suggestions(code)
        .iter()
        .map(|r| format!("`{}` ({})", r.code, r.name))
        .collect();
    match codes.as_slice() {
        [] => {}
        [one] => message.push_str(&format!("help: did you mean {one}?\n")),
        [init @ .., last] => message.push_str(&format!(
            "help: did you mean {} or {last}?\n",
            init.join(", ")
        )),
    }
    message.push_str("note: `strata rules` lists every code");
    message
}

/// Up to three known rules whose code or name is a likely typo of `input`:
/// those at the smallest edit distance, nearest number first among codes of
/// one family, so `E097` suggests `E096` before `E092`.
fn suggestions(input: &str) -> Vec<&'static Rule> {
    let input = input.trim().to_ascii_lowercase();
    let limit = (input.chars().count() / 3).max(1);
    let number = |code: &str| code.get(1..).and_then(|n| n.parse::<i64>().ok());
    let wanted = number(&input);
    let mut candidates: Vec<(usize, i64, &'static Rule)> = strata_rules::all()
        .into_iter()
        .filter_map(|rule| {
            let distance = edit_distance(&input, &rule.code.to_ascii_lowercase())
                .min(edit_distance(&input, rule.name));
            let gap = match (wanted, number(rule.code)) {
                (Some(a), Some(b)) => (a - b).abs(),
                _ => i64::MAX,
            };
            (distance <= limit).then_some((distance, gap, rule))
        })
        .collect();
    let best = candidates.iter().map(|(distance, _, _)| *distance).min();
    candidates.retain(|(distance, _, _)| Some(*distance) == best);
    // Stable: ties keep the registry order.
    candidates.sort_by_key(|(_, gap, _)| *gap);
    candidates.into_iter().take(3).map(|(_, _, r)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(input: &str) -> Vec<&'static str> {
        suggestions(input).iter().map(|r| r.code).collect()
    }

    #[test]
    fn suggests_close_codes_nearest_number_first() {
        assert_eq!(codes("E79"), ["E079"]);
        assert_eq!(codes("E097"), ["E096", "E094", "E092"]);
        assert_eq!(codes("parse_error"), ["ParseError"]);
        assert_eq!(codes("unknown-colum"), ["E040"]);
        assert!(codes("completely-unrelated").is_empty());
    }

    #[test]
    fn explanation_starts_with_the_header() {
        let rule = strata_rules::find("E040").expect("E040 is declared");
        let text = explanation(rule);
        assert!(
            text.starts_with("E040 (unknown-column, error): Unknown column.\n\n## What it means\n")
        );
        assert!(text.ends_with("```\n"));
    }
}
