//! SARIF 2.1.0 logs (`strata lint --format sarif`), for code-scanning tools
//! such as GitHub's. One run of the `strata` driver; its `rules` are the
//! rules that have results, described from their documentation; each result
//! has the level its diagnostic was reported at. Columns count Unicode code
//! points (`columnKind`), as everywhere in strata. The tests validate the
//! output against the official schema (tests/sarif/).

use serde_json::{json, Value};
use strata_lang::{Diagnostic, Severity, SourceMap};
use strata_rules::{Level, Rule};

use crate::render::{position, Position};

/// The official schema's URI (the OASIS 2.1.0 errata 01 schema).
pub const SCHEMA_URI: &str =
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";

/// The log of the diagnostics of several modules (each with its files).
pub fn log(modules: &[(&SourceMap, &[Diagnostic])]) -> Value {
    let mut codes: Vec<&'static str> = modules
        .iter()
        .flat_map(|(_, diags)| diags.iter().map(|d| d.code))
        .collect();
    codes.sort_by(|a, b| strata_rules::compare_codes(a, b));
    codes.dedup();
    let rules: Vec<&'static Rule> = codes.iter().filter_map(|c| strata_rules::find(c)).collect();
    let results: Vec<Value> = modules
        .iter()
        .flat_map(|(sources, diags)| diags.iter().map(|d| result(sources, d, &rules)))
        .collect();
    json!({
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "strata",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules.iter().map(|r| descriptor(r)).collect::<Vec<_>>(),
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    })
}

/// A rule as a `reportingDescriptor`.
fn descriptor(r: &Rule) -> Value {
    let configuration = match r.default_level {
        Level::Allow => json!({ "enabled": false, "level": "warning" }),
        Level::Warn => json!({ "level": "warning" }),
        Level::Deny => json!({ "level": "error" }),
    };
    json!({
        "id": r.code,
        "name": r.name,
        "shortDescription": { "text": r.summary() },
        "fullDescription": { "text": what_it_means(r.doc).unwrap_or(r.summary()) },
        "help": { "text": r.doc, "markdown": r.doc },
        "defaultConfiguration": configuration,
    })
}

/// The `## What it means` section of a rule's documentation.
fn what_it_means(doc: &str) -> Option<&str> {
    let start = doc.find("## What it means")? + "## What it means".len();
    let rest = &doc[start..];
    let end = rest.find("\n## ").unwrap_or(rest.len());
    Some(rest[..end].trim()).filter(|s| !s.is_empty())
}

fn result(sources: &SourceMap, d: &Diagnostic, rules: &[&Rule]) -> Value {
    let mut text = d.message.clone();
    if let Some(h) = &d.help {
        text.push_str(&format!("\nhelp: {h}"));
    }
    for n in &d.notes {
        text.push_str(&format!("\nnote: {n}"));
    }
    let mut result = json!({
        "ruleId": d.code,
        "level": match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        "message": { "text": text },
        "locations": [location(&position(sources, d.span), None)],
    });
    if let Some(index) = rules.iter().position(|r| r.code == d.code) {
        result["ruleIndex"] = json!(index);
    }
    if !d.labels.is_empty() {
        result["relatedLocations"] = d
            .labels
            .iter()
            .enumerate()
            .map(|(i, l)| location(&position(sources, l.span), Some((i, &l.message))))
            .collect();
    }
    result
}

/// A `location`: the file and region; related locations also have an id and
/// a message.
fn location(at: &Position, related: Option<(usize, &str)>) -> Value {
    let mut location = json!({
        "physicalLocation": {
            "artifactLocation": { "uri": uri(&at.file) },
            "region": {
                "startLine": at.line,
                "startColumn": at.column,
                "endLine": at.end_line,
                "endColumn": at.end_column,
            }
        }
    });
    if let Some((id, message)) = related {
        location["id"] = json!(id);
        location["message"] = json!({ "text": message });
    }
    location
}

/// A file path as a URI reference: `/` separators, and every byte outside
/// the unreserved characters and `/` percent-encoded.
fn uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_codes as codes;

    #[test]
    fn paths_become_uri_references() {
        assert_eq!(uri("models/shop.strata"), "models/shop.strata");
        assert_eq!(uri("my models\\a#1.strata"), "my%20models/a%231.strata");
        assert_eq!(uri("caf\u{e9}.strata"), "caf%C3%A9.strata");
    }

    #[test]
    fn the_description_is_the_what_it_means_section() {
        let doc = "Summary.\n\n## What it means\n\nIt means this.\n\n## Example\n\nx";
        assert_eq!(what_it_means(doc), Some("It means this."));
        assert_eq!(what_it_means("Summary."), None);
    }

    #[test]
    fn results_name_their_rule_and_region() {
        let mut sources = SourceMap::new();
        let file = sources.add("m.strata", "model m {\n  from s\n}\n");
        let d = Diagnostic::new(&codes::W002, strata_lang::Span::new(file, 6, 7), "no owner")
            .with_help("add one");
        let log = log(&[(&sources, std::slice::from_ref(&d))]);
        let run = &log["runs"][0];
        assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "W002");
        let r = &run["results"][0];
        assert_eq!(r["ruleId"], "W002");
        assert_eq!(r["ruleIndex"], 0);
        assert_eq!(r["level"], "warning");
        assert_eq!(r["message"]["text"], "no owner\nhelp: add one");
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert_eq!(
            (
                &region["startLine"],
                &region["startColumn"],
                &region["endColumn"]
            ),
            (&json!(1), &json!(7), &json!(8))
        );
    }
}
