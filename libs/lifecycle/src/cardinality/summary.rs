//! What the cardinality checks of a run did, side by side: how each side
//! was settled, and the report lines and summary a run prints.

use std::collections::BTreeSet;

use strata_lang::ast::Cardinality;
use strata_lang::ir;

use super::sampling::Sampling;

/// What established a uniqueness earlier in the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProofSource {
    /// An exact pass of a cardinality check (its bracket and side).
    Check { bracket: String, left_side: bool },
    /// A `unique` / `primary_key` contract pin on a model's output.
    Pin { field: String, kind: &'static str },
    /// The model was built in this run by a `group` or `dedup` on the keys.
    Construction(ir::UniqueBy),
}

impl std::fmt::Display for ProofSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProofSource::Check { bracket, left_side } => {
                write!(f, "check [{bracket}]")?;
                if *left_side {
                    write!(f, " (left side)")?;
                }
                Ok(())
            }
            ProofSource::Pin { field, kind } => write!(f, "pin {field}: {kind}"),
            ProofSource::Construction(how) => write!(f, "{}", how.describe()),
        }
    }
}

/// How one check side was settled.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The exact duplicate-group query ran and found none.
    Counted,
    /// A uniqueness proven earlier in this run covers it; no query.
    ProvenEarlier {
        by: ProofSource,
        /// The keys the proof is on (a subset of the check's keys).
        keys: Vec<String>,
    },
    /// No duplicate in a hash sample of `rows` of the relation's `of`
    /// rows; `reused` names the earlier check whose sample it shares.
    Sampled {
        rows: i64,
        of: i64,
        reused: Option<String>,
    },
}

/// One settled check side, for reports and the JSON output.
#[derive(Clone, Debug)]
pub struct CheckResult {
    /// `<model> <kind> <joined input>`.
    pub bracket: String,
    pub cardinality: Cardinality,
    pub left_side: bool,
    /// The logical relation (source or model name) and its keys.
    pub table: String,
    pub keys: Vec<String>,
    pub outcome: Outcome,
    /// Time spent on the check's query (0 when none ran).
    pub ms: f64,
}

/// What the cardinality checks of one run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub results: Vec<CheckResult>,
    /// Duplicate-group queries actually executed.
    pub queries_executed: usize,
    pub sampling: Option<Sampling>,
}

impl Summary {
    pub fn checks(&self) -> usize {
        self.results.len()
    }

    /// Settled by a proof of an earlier check or pin of this run.
    pub fn proven_earlier(&self) -> usize {
        self.count(|o| {
            matches!(o, Outcome::ProvenEarlier { by, .. } if !matches!(by, ProofSource::Construction(_)))
        })
    }

    /// Settled by how the relation was built (its group or dedup keys).
    pub fn proven_by_construction(&self) -> usize {
        self.count(|o| {
            matches!(
                o,
                Outcome::ProvenEarlier {
                    by: ProofSource::Construction(_),
                    ..
                }
            )
        })
    }

    pub fn sampled(&self) -> usize {
        self.count(|o| matches!(o, Outcome::Sampled { .. }))
    }

    fn count(&self, f: impl Fn(&Outcome) -> bool) -> usize {
        self.results.iter().filter(|r| f(&r.outcome)).count()
    }

    /// The one-line summary of a run's report, e.g. `cardinality: 3 checks;
    /// 1 duplicate-group query executed; 2 proven earlier in this run; 0
    /// sampled`, and with sampling on a second line saying how.
    pub fn lines(&self) -> Vec<String> {
        if self.results.is_empty() {
            return Vec::new();
        }
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let mut out = vec![format!(
            "cardinality: {}; {} executed; {} proven earlier in this run; {} sampled",
            plural(self.checks(), "check", "checks"),
            plural(
                self.queries_executed,
                "duplicate-group query",
                "duplicate-group queries"
            ),
            self.proven_earlier(),
            self.sampled()
        )];
        let built = self.proven_by_construction();
        if built > 0 {
            out[0].push_str(&format!("; {built} proven by construction"));
        }
        if let Some(s) = &self.sampling {
            out.push(format!(
                "sampling: relations over {} rows are checked on a hash sample of their keys (salt {}); a sampled pass is not exact",
                s.rows,
                s.salt_hex()
            ));
        }
        out
    }
}

/// The report line of a passed check side.
pub(super) fn line(r: &CheckResult) -> String {
    let what = format!(
        "{}: {} ({} unique on {}",
        r.bracket,
        r.cardinality.as_str(),
        r.table,
        r.keys.join(", ")
    );
    match &r.outcome {
        Outcome::Counted => format!("  ok  {what})"),
        Outcome::ProvenEarlier { by, keys } => {
            let same = keys.iter().collect::<BTreeSet<_>>() == r.keys.iter().collect();
            let on = if same || matches!(by, ProofSource::Pin { .. }) {
                String::new()
            } else {
                format!(" on {}", keys.join(", "))
            };
            match by {
                ProofSource::Construction(_) => format!("  ok  {what}, by {by}{on})"),
                _ => format!("  ok  {what}, proven earlier in this run by {by}{on})"),
            }
        }
        Outcome::Sampled { rows, of, reused } => {
            let again = reused
                .as_ref()
                .map(|b| format!(" already checked by [{b}]"))
                .unwrap_or_default();
            format!("  sampled ({rows} of {of} rows)  {what}, in the sample{again})")
        }
    }
}
