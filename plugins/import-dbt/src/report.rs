//! The report of an import: per model `converted` or `needs_review` with
//! reasons and places, per join its promise and evidence (the fan-out
//! audit), per test what it became. Written as `IMPORT.md`, printed as a
//! summary, or as JSON with `--format json`.

use std::fmt::Write as _;

use serde::Serialize;

/// A reason with its place in the dbt project.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Reason {
    pub message: String,
    pub file: String,
    /// 1-based; 0 when unknown.
    pub line: usize,
}

impl Reason {
    pub fn new(message: impl Into<String>, file: impl Into<String>, line: usize) -> Reason {
        Reason {
            message: message.into(),
            file: file.into(),
            line,
        }
    }

    fn place(&self) -> String {
        if self.line > 0 {
            format!("{}:{}", self.file, self.line)
        } else {
            self.file.clone()
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Converted,
    NeedsReview,
    Disabled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Converted => "converted",
            Status::NeedsReview => "needs_review",
            Status::Disabled => "disabled",
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct ModelEntry {
    pub name: String,
    pub status: Status,
    /// Why it needs review (or is disabled).
    pub reasons: Vec<Reason>,
    /// What changed or was left out in a converted model.
    pub notes: Vec<Reason>,
    /// The dbt file.
    pub file: String,
    /// The strata file it is in (converted models).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strata_file: Option<String>,
    /// Helper models made from its CTEs and subqueries.
    pub helpers: Vec<String>,
    /// Whether the `seeds` pipeline runs it.
    pub in_pipeline: bool,
    /// Read by other models as a source of the table dbt builds (a model
    /// that needs review but whose columns are known).
    pub declared_as_source: bool,
}

/// A join of a model, converted or not, as the audit (`strata audit`)
/// judged it, with the promise the import wrote on it.
#[derive(Clone, Debug, Serialize)]
pub struct JoinEntry {
    /// The dbt model.
    pub model: String,
    /// The strata model the join is in (the model, or a helper), and the
    /// relation it joins there, when the model is converted.
    pub strata_model: Option<String>,
    pub strata_right: Option<String>,
    pub kind: String,
    /// The from side's relations and the joined one, as the SQL names them.
    pub left: Vec<String>,
    pub right: String,
    /// The joined side's key columns and the from side's (`o.order_id`).
    pub keys: Vec<String>,
    pub left_keys: Vec<String>,
    /// The audit's verdict (`many_to_one`, `no_evidence`, ...).
    pub verdict: crate::audit::Verdict,
    pub promise: Option<String>,
    pub evidence: String,
    /// Aggregates that count the repeated rows twice, with their places.
    pub double_counts: Vec<String>,
    /// What the repeated rows do to the model's output.
    pub grain: Option<String>,
    pub file: String,
    pub line: usize,
}

impl JoinEntry {
    /// Whether nothing proves the join cannot repeat rows.
    pub fn unproven(&self) -> bool {
        !self.verdict.proven()
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct TestEntry {
    /// The tested relation (model, seed or source, as strata names it).
    pub relation: String,
    pub column: Option<String>,
    pub test: String,
    /// `pin`, `test`, `failing_rows`, `warning`, `fixture` (a dbt unit
    /// test) or `not_carried`.
    pub carried_as: String,
    pub detail: String,
    pub file: String,
    pub line: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct SeedEntry {
    pub name: String,
    pub file: String,
    pub columns: usize,
    pub problems: Vec<String>,
    /// What the import made of it that differs from dbt's reading (a
    /// column read from dbt's table rather than from the file).
    pub notes: Vec<String>,
}

/// A dbt source as strata reads it: where, and where its column types
/// came from.
#[derive(Clone, Debug, Serialize)]
pub struct SourceEntry {
    /// The strata source.
    pub name: String,
    /// The relation it reads (`schema.table`), as dbt reads it.
    pub table: String,
    pub columns: usize,
    /// Where its column types came from: `YAML`, `catalog.json`,
    /// `warehouse` (dbt's, asked read-only), each that gave one.
    pub types_from: Vec<String>,
    pub problems: Vec<String>,
}

/// The warehouse dbt built, as the `dbt` target of strata.toml: strata
/// reads where dbt reads and builds, and publishes into a schema of its own.
#[derive(Clone, Debug, Serialize)]
pub struct TargetEntry {
    pub name: String,
    /// The target's URL (never a password).
    pub url: String,
    /// The variable the password is read from (PostgreSQL).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub password_env: Option<String>,
    /// The schema strata publishes into.
    pub schema: String,
    /// Where the profile is.
    pub from: String,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Summary {
    pub models: usize,
    pub converted: usize,
    pub needs_review: usize,
    pub disabled: usize,
    pub joins: usize,
    pub joins_with_promise: usize,
    pub joins_without_evidence: usize,
    pub tests: usize,
    pub tests_carried: usize,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The root module (relative to the output directory).
    pub root: String,
    /// The pipeline that runs on the seed files, when a model reads only
    /// seeds.
    pub pipeline: Option<String>,
    /// dbt's warehouse as a strata target, when the profile names one.
    pub target: Option<TargetEntry>,
    pub project: String,
    /// The adapter the SQL was read as, and where that came from.
    pub adapter: String,
    pub adapter_from: String,
    /// Whether the SQL came from `target/manifest.json`'s compiled code.
    pub compiled_from_manifest: bool,
    pub models: Vec<ModelEntry>,
    pub joins: Vec<JoinEntry>,
    pub tests: Vec<TestEntry>,
    pub seeds: Vec<SeedEntry>,
    pub sources: Vec<SourceEntry>,
    /// Problems of the project as a whole (a macro file that does not
    /// parse, unit tests not converted, ...).
    pub notes: Vec<Reason>,
    pub summary: Summary,
}

impl Report {
    pub fn summarize(&mut self) {
        let s = &mut self.summary;
        s.models = self.models.len();
        s.converted = self
            .models
            .iter()
            .filter(|m| m.status == Status::Converted)
            .count();
        s.needs_review = self
            .models
            .iter()
            .filter(|m| m.status == Status::NeedsReview)
            .count();
        s.disabled = self
            .models
            .iter()
            .filter(|m| m.status == Status::Disabled)
            .count();
        s.joins = self.joins.len();
        s.joins_with_promise = self.joins.iter().filter(|j| j.promise.is_some()).count();
        s.joins_without_evidence = self.joins.iter().filter(|j| j.unproven()).count();
        s.tests = self.tests.len();
        s.tests_carried = self
            .tests
            .iter()
            .filter(|t| t.carried_as != "not_carried")
            .count();
    }

    /// What to run next on the import written to `dir`: check it, run it
    /// on dbt's warehouse (when the profile names one), run it on the
    /// seed files (when a model reads only seeds).
    pub fn next_commands(&self, dir: &std::path::Path) -> Vec<String> {
        let root = dir.join(&self.root);
        let mut out = vec![format!("strata check {}", dir.display())];
        if let Some(t) = &self.target {
            out.push(format!("strata run {} --target {}", root.display(), t.name));
        }
        if let Some(p) = &self.pipeline {
            out.push(format!(
                "strata run {} --pipeline {p} -o warehouse.duckdb",
                root.display()
            ));
        }
        out
    }

    /// The lines printed after an import.
    pub fn summary_text(&self) -> String {
        let s = &self.summary;
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{} of {} models converted, {} need review{}",
            s.converted,
            s.models - s.disabled,
            s.needs_review,
            if s.disabled > 0 {
                format!(" ({} disabled, skipped)", s.disabled)
            } else {
                String::new()
            }
        );
        for m in self
            .models
            .iter()
            .filter(|m| m.status == Status::NeedsReview)
        {
            for r in &m.reasons {
                let _ = writeln!(
                    out,
                    "  needs review  {}: {}: {}",
                    m.name,
                    r.place(),
                    r.message
                );
            }
        }
        let _ = writeln!(
            out,
            "{} joins: {} with a promise, {} without evidence (can repeat rows)",
            s.joins, s.joins_with_promise, s.joins_without_evidence
        );
        // Every join when there are few; else the ones that can repeat
        // rows (IMPORT.md lists them all).
        let all = self.joins.len() <= 20;
        for j in self.joins.iter().filter(|j| all || j.unproven()) {
            let _ = writeln!(
                out,
                "  {:<12}  {} {} {} on {}: {}",
                j.promise.as_deref().unwrap_or("no promise"),
                j.model,
                j.kind,
                j.right,
                if j.keys.is_empty() {
                    "-".to_string()
                } else {
                    j.keys.join(", ")
                },
                j.evidence
            );
        }
        if !all {
            let _ = writeln!(
                out,
                "  ({} joins with a promise: see IMPORT.md or --format json)",
                s.joins_with_promise
            );
        }
        let _ = writeln!(out, "{} of {} tests carried", s.tests_carried, s.tests);
        out
    }

    /// `IMPORT.md`.
    pub fn markdown(&self) -> String {
        let mut md = String::new();
        let s = &self.summary;
        let _ = writeln!(md, "# Import of the dbt project `{}`\n", self.project);
        let _ = writeln!(
            md,
            "Written by `strata import-dbt`. Root module: `{}`.\n",
            self.root
        );
        if let Some(t) = &self.target {
            let _ = writeln!(
                md,
                "Run on the warehouse dbt built ({}): `[targets.{}]` of strata.toml reads where dbt\nreads and builds, and publishes into schema `{}`, beside dbt's relations{}.\n",
                t.from,
                t.name,
                t.schema,
                match &t.password_env {
                    Some(v) => format!(" (the password from ${v})"),
                    None => String::new(),
                }
            );
        }
        // In the output directory: the check is `strata check .`.
        let next = self.next_commands(std::path::Path::new(""));
        if next.len() > 1 {
            let _ = writeln!(md, "```sh");
            for c in &next[1..] {
                let _ = writeln!(md, "{c}");
            }
            let _ = writeln!(md, "```\n");
        }
        let _ = writeln!(
            md,
            "SQL read as {} ({}){}.\n",
            self.adapter,
            self.adapter_from,
            if self.compiled_from_manifest {
                ", compiled SQL from target/manifest.json"
            } else {
                ", Jinja rendered by import-dbt"
            }
        );
        let _ = writeln!(md, "## Summary\n");
        let _ = writeln!(md, "| | |\n|---|---|");
        let _ = writeln!(
            md,
            "| models converted | {} of {} |",
            s.converted,
            s.models - s.disabled
        );
        let _ = writeln!(md, "| models that need review | {} |", s.needs_review);
        if s.disabled > 0 {
            let _ = writeln!(md, "| disabled models (skipped) | {} |", s.disabled);
        }
        let _ = writeln!(md, "| joins | {} |", s.joins);
        let _ = writeln!(md, "| joins with a promise | {} |", s.joins_with_promise);
        let _ = writeln!(
            md,
            "| joins that can repeat rows (no evidence) | {} |",
            s.joins_without_evidence
        );
        let _ = writeln!(
            md,
            "| tests carried | {} of {} |\n",
            s.tests_carried, s.tests
        );

        let _ = writeln!(md, "## Fan-out audit\n");
        let _ = writeln!(
            md,
            "Every join of every model, converted or not, as `strata audit` judges it: the verdict, the\nevidence it rests on, and where repeated rows go; for a converted model, the promise written\n(checked by `strata run` on the data before anything is published). A join with no evidence can\nrepeat the rows of its left side.\n"
        );
        if self.joins.is_empty() {
            let _ = writeln!(md, "No joins.\n");
        } else {
            let _ = writeln!(
                md,
                "| model | join | keys | verdict | promise | evidence |\n|---|---|---|---|---|---|"
            );
            for j in &self.joins {
                let keys: Vec<String> = j
                    .keys
                    .iter()
                    .zip(&j.left_keys)
                    .map(|(r, l)| {
                        if l.is_empty() {
                            r.clone()
                        } else {
                            format!("{l} = {r}")
                        }
                    })
                    .collect();
                let mut evidence = j.evidence.clone();
                for d in &j.double_counts {
                    evidence.push_str(&format!("; double counting: {d}"));
                }
                if let Some(g) = &j.grain {
                    evidence.push_str(&format!("; {g}"));
                }
                let _ = writeln!(
                    md,
                    "| `{}` ({}) | {} `{}` | {} | {} | {} | {} |",
                    j.strata_model.as_deref().unwrap_or(&j.model),
                    place(&j.file, j.line),
                    j.kind,
                    j.right,
                    cell(&keys.join(", ")),
                    j.verdict.text(),
                    j.promise
                        .as_deref()
                        .map_or("—".to_string(), |p| format!("`{p}`")),
                    cell(&evidence)
                );
            }
            md.push('\n');
        }

        let _ = writeln!(md, "## Models\n");
        let _ = writeln!(md, "| model | status | strata | notes |\n|---|---|---|---|");
        for m in &self.models {
            let mut notes: Vec<String> = m
                .reasons
                .iter()
                .chain(&m.notes)
                .map(|r| format!("{}: {}", place(&r.file, r.line), r.message))
                .collect();
            if !m.helpers.is_empty() {
                notes.push(format!(
                    "helper models: {}",
                    m.helpers
                        .iter()
                        .map(|h| format!("`{h}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            if m.declared_as_source {
                notes
                    .push("read by the models downstream as a source: the table dbt builds".into());
            }
            if m.status == Status::Converted && !m.in_pipeline {
                notes.push(match &self.pipeline {
                    Some(p) => {
                        format!("not in the `{p}` pipeline: it reads a source that is not a seed")
                    }
                    None => "no `seeds` pipeline: no model reads only seeds".to_string(),
                });
            }
            let _ = writeln!(
                md,
                "| `{}` | {} | {} | {} |",
                m.name,
                m.status.as_str(),
                m.strata_file
                    .as_deref()
                    .map_or("—".to_string(), |f| format!("`{f}`")),
                cell(&notes.join("; "))
            );
        }
        md.push('\n');

        let _ = writeln!(md, "## Tests\n");
        if self.tests.is_empty() {
            let _ = writeln!(md, "No tests.\n");
        } else {
            let _ = writeln!(
                md,
                "| relation | column | test | became | where |\n|---|---|---|---|---|"
            );
            for t in &self.tests {
                let _ = writeln!(
                    md,
                    "| `{}` | {} | `{}` | {} | {} |",
                    t.relation,
                    t.column
                        .as_deref()
                        .map_or("—".to_string(), |c| format!("`{c}`")),
                    t.test,
                    cell(&format!("{}: {}", t.carried_as.replace('_', " "), t.detail)),
                    place(&t.file, t.line)
                );
            }
            md.push('\n');
        }

        if !self.seeds.is_empty() {
            let _ = writeln!(md, "## Seeds\n");
            let _ = writeln!(
                md,
                "| seed | file | columns | problems |\n|---|---|---|---|"
            );
            for sd in &self.seeds {
                let _ = writeln!(
                    md,
                    "| `{}` | {} | {} | {} |",
                    sd.name,
                    sd.file,
                    sd.columns,
                    if sd.problems.is_empty() && sd.notes.is_empty() {
                        "—".to_string()
                    } else {
                        cell(
                            &sd.problems
                                .iter()
                                .chain(&sd.notes)
                                .cloned()
                                .collect::<Vec<_>>()
                                .join("; "),
                        )
                    }
                );
            }
            md.push('\n');
        }
        if !self.sources.is_empty() {
            let _ = writeln!(md, "## Sources\n");
            let _ = writeln!(
                md,
                "Each dbt source reads the relation dbt reads; its column types come from its YAML\n`data_type`, else target/catalog.json, else dbt's warehouse (asked read-only).\n"
            );
            let _ = writeln!(
                md,
                "| source | reads | columns | types from | problems |\n|---|---|---|---|---|"
            );
            for so in &self.sources {
                let _ = writeln!(
                    md,
                    "| `{}` | `{}` | {} | {} | {} |",
                    so.name,
                    so.table,
                    so.columns,
                    if so.types_from.is_empty() {
                        "—".to_string()
                    } else {
                        so.types_from.join(", ")
                    },
                    if so.problems.is_empty() {
                        "—".to_string()
                    } else {
                        cell(&so.problems.join("; "))
                    }
                );
            }
            md.push('\n');
        }
        if !self.notes.is_empty() {
            let _ = writeln!(md, "## Notes\n");
            for n in &self.notes {
                let _ = writeln!(md, "* {}: {}", place(&n.file, n.line), n.message);
            }
            md.push('\n');
        }
        md
    }
}

fn place(file: &str, line: usize) -> String {
    if line > 0 {
        format!("{file}:{line}")
    } else {
        file.to_string()
    }
}

/// Text safe in a Markdown table cell.
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}
