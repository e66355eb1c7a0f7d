//! How the warehouse commands report: a failure and its exit code, the
//! pins report and the cardinality summary (text and JSON).

use strata_lang::Checked;
use strata_lifecycle::cardinality::{Outcome, ProofSource};
use strata_lifecycle::{CardinalitySummary, Failure};
use strata_plugin::{exit, outln, print_json, Format, Host};

/// Report a failure and return its exit code.
pub fn report_failure(
    host: &dyn Host,
    failure: Failure,
    checked: &Checked,
    format: Format,
    what: &str,
) -> i32 {
    match failure {
        Failure::Data(data) => {
            match format {
                Format::Human => {
                    for line in &data.report {
                        outln!("{line}");
                    }
                    host.print_diagnostics(
                        &checked.sources,
                        std::slice::from_ref(&data.diagnostic),
                    );
                    eprintln!("error: {what} failed a data check; nothing was published");
                }
                Format::Json => print_json(&serde_json::json!({
                    "ok": false,
                    "report": data.report,
                    "failure": host.json_diagnostic(&checked.sources, &data.diagnostic),
                    "exit_code": exit::DATA_CHECK,
                })),
            }
            exit::DATA_CHECK
        }
        other => report_error(host, other, format),
    }
}

/// Report a usage or environment failure (a data failure, which needs the
/// module to point into, is reported by [`report_failure`]); its exit code.
pub fn report_error(host: &dyn Host, failure: Failure, format: Format) -> i32 {
    match failure {
        Failure::Usage(msg) => {
            eprintln!("error: {msg}");
            if format == Format::Json {
                print_json(
                    &serde_json::json!({ "ok": false, "error": msg, "exit_code": exit::USAGE }),
                );
            }
            exit::USAGE
        }
        Failure::Environment(msg) => host.environment_error(&msg, format),
        Failure::Data(data) => host.environment_error(&data.diagnostic.message, format),
    }
}

/// The pins report, then the cardinality summary (human format).
pub fn print_pins(report: &[String], cardinality: &CardinalitySummary) {
    if !report.is_empty() {
        outln!("pins:");
        for line in report {
            outln!("{line}");
        }
    }
    for line in cardinality.lines() {
        outln!("{line}");
    }
}

/// The cardinality checks of a run as JSON: the counts, the sampling, and
/// each check side's outcome with the time its query took.
pub fn cardinality_json(c: &CardinalitySummary) -> serde_json::Value {
    let results: Vec<serde_json::Value> = c
        .results
        .iter()
        .map(|r| {
            let mut v = serde_json::json!({
                "check": r.bracket,
                "expect": r.cardinality.as_str(),
                "side": if r.left_side { "left" } else { "right" },
                "table": r.table,
                "keys": r.keys,
                "ms": (r.ms * 1000.0).round() / 1000.0,
            });
            match &r.outcome {
                Outcome::Counted => v["outcome"] = "ok".into(),
                Outcome::ProvenEarlier { by, keys } => {
                    v["outcome"] = match by {
                        ProofSource::Construction(_) => "proven_by_construction",
                        _ => "proven_earlier",
                    }
                    .into();
                    v["proven_by"] = by.to_string().into();
                    v["proven_on"] = serde_json::json!(keys);
                }
                Outcome::Sampled { rows, of, reused } => {
                    v["outcome"] = "sampled".into();
                    v["sample_rows"] = (*rows).into();
                    v["total_rows"] = (*of).into();
                    if let Some(b) = reused {
                        v["sample_of"] = b.clone().into();
                    }
                }
            }
            v
        })
        .collect();
    serde_json::json!({
        "checks": c.checks(),
        "queries_executed": c.queries_executed,
        "proven_earlier": c.proven_earlier(),
        "proven_by_construction": c.proven_by_construction(),
        "sampled": c.sampled(),
        "sample_rows": c.sampling.map(|s| s.rows),
        "sample_salt": c.sampling.map(|s| s.salt_hex()),
        "results": results,
    })
}
