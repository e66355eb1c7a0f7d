//! `run`/`test --metrics-file F`: the run's figures for the tools teams
//! already run — Prometheus text exposition format (the node_exporter
//! textfile collector's input) or JSON: run duration and result, per-model
//! rows and seconds, each check's seconds and statements, checks passed and
//! failed, duplicate-group queries executed. Each model is its own label.

use std::path::{Path, PathBuf};

use strata_lifecycle::{Failure, RunReport};

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MetricsFormat {
    /// Prometheus text exposition format 0.0.4.
    Prometheus,
    /// One JSON document.
    Json,
}

/// The metrics options of `run` and `test`.
#[derive(Debug, Clone, clap::Args)]
pub struct MetricsArgs {
    /// Write the run's metrics to this file (replaced atomically: written
    /// beside it, then renamed), whether the run passed or failed a check.
    /// Checked to be writable before anything runs.
    #[arg(long, value_name = "FILE")]
    pub metrics_file: Option<PathBuf>,
    /// The metrics file's format.
    #[arg(long, value_enum, default_value_t = MetricsFormat::Prometheus, requires = "metrics_file")]
    pub metrics_format: MetricsFormat,
}

/// What the metrics are made of: the run (or its failure).
pub struct Outcome<'a> {
    pub command: &'a str,
    pub module: &'a Path,
    pub branch: &'a str,
    pub seconds: f64,
    pub report: Option<&'a RunReport>,
    pub failure: Option<&'a Failure>,
    /// `test`: the fixture tests that passed and failed (counted as checks).
    pub fixtures: (usize, usize),
}

impl MetricsArgs {
    /// Fail before the run when the file cannot be written (exit 4).
    pub fn check_writable(&self) -> Result<(), Failure> {
        let Some(path) = &self.metrics_file else {
            return Ok(());
        };
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .map(|_| ())
            .map_err(|e| {
                Failure::Environment(format!(
                    "cannot write the metrics file {}: {e}; nothing was run",
                    path.display()
                ))
            })
    }

    /// Write the metrics of `o`, when asked.
    pub fn write(&self, o: &Outcome) -> Result<(), Failure> {
        let Some(path) = &self.metrics_file else {
            return Ok(());
        };
        let text = match self.metrics_format {
            MetricsFormat::Prometheus => prometheus(o),
            MetricsFormat::Json => json(o).to_string() + "\n",
        };
        let tmp = path.with_extension("strata-tmp");
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| {
                Failure::Environment(format!(
                    "cannot write the metrics file {}: {e}",
                    path.display()
                ))
            })
    }
}

fn passed(o: &Outcome) -> usize {
    let lines = match (o.report, o.failure) {
        (Some(r), _) => r.report.as_slice(),
        (None, Some(Failure::Data(d))) => d.report.as_slice(),
        _ => &[],
    };
    lines
        .iter()
        .filter(|l| l.trim_start().starts_with("ok "))
        .count()
        + o.fixtures.0
}

fn failed(o: &Outcome) -> usize {
    usize::from(matches!(o.failure, Some(Failure::Data(_)))) + o.fixtures.1
}

fn success(o: &Outcome) -> bool {
    o.failure.is_none() && o.fixtures.1 == 0
}

/// A label value as the exposition format escapes it.
fn label(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn prometheus(o: &Outcome) -> String {
    let base = format!(
        "command=\"{}\",module=\"{}\",branch=\"{}\"",
        label(o.command),
        label(&o.module.display().to_string()),
        label(o.branch)
    );
    let mut out = String::new();
    let mut family = |name: &str, help: &str, samples: Vec<(String, String)>| {
        out.push_str(&format!("# HELP {name} {help}\n# TYPE {name} gauge\n"));
        for (labels, value) in samples {
            out.push_str(&format!("{name}{{{base}{labels}}} {value}\n"));
        }
    };
    let one = |v: String| vec![(String::new(), v)];
    family(
        "strata_run_success",
        "1 when the run published (or the test passed), 0 when it failed.",
        one(u8::from(success(o)).to_string()),
    );
    family(
        "strata_run_duration_seconds",
        "Wall time of the command's run, in seconds.",
        one(format!("{:.6}", o.seconds)),
    );
    family(
        "strata_checks_passed",
        "Pins, join cardinality checks, tests and fixture tests that passed.",
        one(passed(o).to_string()),
    );
    family(
        "strata_checks_failed",
        "Checks that failed (a failing check stops the run).",
        one(failed(o).to_string()),
    );
    let Some(r) = o.report else {
        return out;
    };
    family(
        "strata_cardinality_queries_executed",
        "Duplicate-group queries the join cardinality checks ran.",
        one(r.cardinality.queries_executed.to_string()),
    );
    let per_model = |f: &dyn Fn(&strata_lifecycle::timing::ModelTiming) -> String| {
        r.timings
            .models
            .iter()
            .map(|m| (format!(",model=\"{}\"", label(&m.model)), f(m)))
            .collect::<Vec<_>>()
    };
    family(
        "strata_model_rows",
        "Rows of each model built.",
        per_model(&|m| m.rows.to_string()),
    );
    family(
        "strata_model_build_seconds",
        "Time to build each model's table.",
        per_model(&|m| format!("{:.6}", m.build_ms / 1e3)),
    );
    let per_check = |f: &dyn Fn(&strata_lifecycle::timing::CheckTiming) -> String| {
        r.timings
            .models
            .iter()
            .flat_map(|m| {
                m.checks.iter().map(move |c| {
                    (
                        format!(
                            ",model=\"{}\",check=\"{}\"",
                            label(&m.model),
                            label(&c.check)
                        ),
                        f(c),
                    )
                })
            })
            .collect::<Vec<_>>()
    };
    family(
        "strata_model_check_seconds",
        "Time of each check of each model.",
        per_check(&|c| format!("{:.6}", c.ms / 1e3)),
    );
    family(
        "strata_model_check_queries",
        "Statements each check of each model sent to the warehouse.",
        per_check(&|c| c.queries.to_string()),
    );
    out
}

fn json(o: &Outcome) -> serde_json::Value {
    serde_json::json!({
        "command": o.command,
        "module": o.module.display().to_string(),
        "branch": o.branch,
        "success": success(o),
        "duration_seconds": o.seconds,
        "checks_passed": passed(o),
        "checks_failed": failed(o),
        "run_id": o.report.map(|r| r.run_id.clone()),
        "cardinality_queries_executed": o.report.map(|r| r.cardinality.queries_executed),
        "models": o.report.map(|r| &r.timings.models),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_lifecycle::timing::{CheckTiming, ModelTiming, Timings};

    #[test]
    fn every_model_is_its_own_label_and_values_are_escaped() {
        let report = RunReport {
            run_id: "r1".into(),
            report: vec!["  ok  m.x: nonnull".into()],
            timings: Timings {
                total_ms: 5.0,
                models: vec![ModelTiming {
                    model: "a\"b".into(),
                    build_ms: 2.0,
                    rows: 7,
                    checks: vec![CheckTiming {
                        check: "join-cardinality".into(),
                        ms: 1.0,
                        queries: 2,
                    }],
                }],
            },
            ..RunReport::default()
        };
        let o = Outcome {
            command: "run",
            module: Path::new("m.strata"),
            branch: "main",
            seconds: 0.25,
            report: Some(&report),
            failure: None,
            fixtures: (0, 0),
        };
        let text = prometheus(&o);
        assert!(text.contains("strata_model_rows{command=\"run\",module=\"m.strata\",branch=\"main\",model=\"a\\\"b\"} 7\n"), "{text}");
        assert!(
            text.contains(
                "strata_checks_passed{command=\"run\",module=\"m.strata\",branch=\"main\"} 1\n"
            ),
            "{text}"
        );
        assert!(text.contains("check=\"join-cardinality\"} 2\n"), "{text}");
        assert_eq!(json(&o)["models"][0]["rows"], 7);
    }
}
