//! `strata rules`: list every registered rule.

use std::io::Write;

use clap::Args;
use serde::Serialize;
use strata_rules::{Level, Phase, Rule};

use crate::exit;
use crate::render::Format;

/// List every diagnostic code strata can report: its code, name, severity,
/// default level and one-line summary.
///
/// The level is what a firing diagnostic does unless `strata.toml` or a
/// flag of `strata lint` changes it: `allow` (not reported), `warn`, `deny`
/// (an error, exit 1). Errors are always `deny`. The list comes from the
/// rule registry, so it also includes rules linked in from other crates. `strata explain CODE` prints a code's full
/// documentation.
#[derive(Debug, Args)]
pub struct RulesArgs {
    /// How to print the list: `human` is an aligned table, `json` an array of
    /// `{code, name, severity, level, phase, summary}` objects.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

pub fn run(args: RulesArgs) -> i32 {
    let rules = strata_rules::all();
    let text = match args.format {
        Format::Human => table(&rules),
        Format::Json => match json(&rules) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("error: cannot serialise the rules: {e}");
                return exit::ENVIRONMENT;
            }
        },
    };
    // A closed pipe (`strata rules | head`) is not an error.
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    exit::OK
}

fn table(rules: &[&Rule]) -> String {
    let header = ["CODE", "NAME", "SEVERITY", "LEVEL", "SUMMARY"];
    let rows: Vec<[&str; 5]> = rules
        .iter()
        .map(|r| {
            [
                r.code,
                r.name,
                r.severity_name(),
                r.default_level.as_str(),
                r.summary(),
            ]
        })
        .collect();
    let width = |i: usize| {
        rows.iter()
            .map(|row| row[i].chars().count())
            .chain([header[i].len()])
            .max()
            .unwrap_or(0)
    };
    let widths = [width(0), width(1), width(2), width(3)];
    let mut text = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let line = format!(
            "{:w0$}  {:w1$}  {:w2$}  {:w3$}  {}",
            row[0],
            row[1],
            row[2],
            row[3],
            row[4],
            w0 = widths[0],
            w1 = widths[1],
            w2 = widths[2],
            w3 = widths[3],
        );
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

#[derive(Serialize)]
struct RuleRow {
    code: &'static str,
    name: &'static str,
    severity: &'static str,
    level: Level,
    phase: Phase,
    summary: &'static str,
}

fn json(rules: &[&Rule]) -> serde_json::Result<String> {
    let rows: Vec<RuleRow> = rules
        .iter()
        .map(|r| RuleRow {
            code: r.code,
            name: r.name,
            severity: r.severity_name(),
            level: r.default_level,
            phase: r.phase,
            summary: r.summary(),
        })
        .collect();
    let mut text = serde_json::to_string_pretty(&rows)?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_columns_are_aligned() {
        let rules = strata_rules::all();
        let text = table(&rules);
        let mut lines = text.lines();
        let header = lines.next().unwrap_or_default();
        let summary_at = header.find("SUMMARY").unwrap_or_default();
        assert!(summary_at > 0);
        let e040 = text
            .lines()
            .find(|l| l.starts_with("E040 "))
            .unwrap_or_default();
        assert_eq!(e040.find("Unknown column."), Some(summary_at), "{text}");
    }

    #[test]
    fn json_lists_every_rule() {
        let rules = strata_rules::all();
        let text = json(&rules).unwrap_or_default();
        let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let rows = value.as_array().cloned().unwrap_or_default();
        assert_eq!(rows.len(), rules.len());
        assert_eq!(rows[0]["code"], "ParseError");
        assert_eq!(rows[0]["phase"], "parse");
        assert_eq!(rows[0]["severity"], "error");
        assert_eq!(rows[0]["level"], "deny");
    }
}
