//! Which models a run must rebuild (`strata plan`, `run --only-stale`): a
//! model is fresh when its branch's live view shows a snapshot built from
//! the same model (fingerprint) and the same input contents (the content
//! hash the freeze records), and no model it reads was published since.

use std::collections::{BTreeMap, HashMap};

use strata_lang::fingerprint::{compare_recorded, Recorded};
use strata_lang::ir::{self, InputKind};
use strata_lang::sql::{self, Clock, ClockPart};

use strata_engine::Failure;

use crate::prepare::{Prepared, RunOptions};
use crate::session::Session;
use crate::state::{pointers, RunRecord};

/// Why a model is (or is not) rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Why {
    /// The live view shows a snapshot of the same model and inputs.
    Fresh,
    /// The branch never published it (or its snapshot was collected).
    NeverBuilt,
    /// The model, or a model upstream of it, changed.
    FingerprintChanged,
    /// Recorded by an older strata: whether it changed cannot be told.
    FingerprintFormat,
    /// This source's content differs from what the snapshot was built from.
    InputChanged(String),
    /// This model it reads is rebuilt, or was published after it.
    Upstream(String),
    /// It reads the clock (`current_date()`, `current_timestamp()`), which
    /// has moved since its snapshot was built.
    ClockMoved(ClockPart),
}

impl Why {
    pub fn is_fresh(&self) -> bool {
        *self == Why::Fresh
    }

    /// A short machine name (`--format json`).
    pub fn code(&self) -> &'static str {
        match self {
            Why::Fresh => "fresh",
            Why::NeverBuilt => "never_built",
            Why::FingerprintChanged => "fingerprint_changed",
            Why::FingerprintFormat => "fingerprint_format_changed",
            Why::InputChanged(_) => "input_changed",
            Why::Upstream(_) => "upstream",
            Why::ClockMoved(_) => "clock_moved",
        }
    }
}

impl std::fmt::Display for Why {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Why::Fresh => write!(f, "fresh"),
            Why::NeverBuilt => write!(f, "never built on this branch"),
            Why::FingerprintChanged => {
                write!(f, "fingerprint changed (the model or a model upstream)")
            }
            Why::FingerprintFormat => write!(
                f,
                "fingerprint format changed (recorded by an older strata): rebuilt to be sure"
            ),
            Why::InputChanged(s) => write!(f, "input {s} changed since its snapshot"),
            Why::Upstream(m) => write!(f, "reads {m}, which is rebuilt or newer"),
            Why::ClockMoved(ClockPart::Date) => {
                write!(
                    f,
                    "reads current_date(), and the date changed since its snapshot"
                )
            }
            Why::ClockMoved(ClockPart::Timestamp) => {
                write!(
                    f,
                    "reads current_timestamp(), which changed since its snapshot"
                )
            }
        }
    }
}

/// One model's verdict.
#[derive(Clone, Debug)]
pub struct Verdict {
    pub model: String,
    pub why: Why,
    /// The run whose snapshot the live view shows.
    pub live_run: Option<String>,
}

impl Session<'_> {
    /// The verdict of each of `models` (in dependency order) on `branch`, given
    /// the current content hash of each source they read.
    pub fn verdicts(
        &self,
        models: &[&ir::Model],
        contents: &BTreeMap<String, (String, i64)>,
        branch: &str,
        clock: &Clock,
    ) -> Result<Vec<Verdict>, Failure> {
        let wh = self.wh();
        let runs = self.reader().runs()?;
        let live = pointers(&runs).live;
        let hash_of = self.reader().frozen_hashes()?;
        // Per model: its verdict, and the position in the history of the run
        // its live view shows.
        let mut seen: HashMap<&str, (bool, Option<usize>)> = HashMap::new();
        let mut out = Vec::new();
        for m in models {
            let shown = live.get(&(branch.to_string(), m.name.clone()));
            let why = match shown {
                None => Why::NeverBuilt,
                Some((_, r)) if !wh.relation_exists(&r.snapshots[&m.name])? => Why::NeverBuilt,
                Some((at, r)) => verdict(m, r, *at, (contents, clock), &hash_of, &seen),
            };
            seen.insert(&m.name, (!why.is_fresh(), shown.map(|(at, _)| *at)));
            out.push(Verdict {
                model: m.name.clone(),
                why,
                live_run: shown.map(|(_, r)| r.run_id.clone()),
            });
        }
        Ok(out)
    }

    /// `strata plan`: what a run with `opts` would rebuild, and why. Nothing is
    /// built or written.
    pub fn plan(&self, module: &ir::Module, opts: &RunOptions) -> Result<Vec<Verdict>, Failure> {
        let progress = self.progress();
        let Prepared {
            models,
            origins,
            relations,
        } = self.prepare(module, opts)?;
        let scanned = self.content_hashes(&origins, &relations, &Default::default())?;
        let verdicts = self.verdicts(
            &models,
            &crate::content::contents(&scanned),
            &opts.branch,
            &opts.clock.clone().unwrap_or_else(crate::clock::now),
        );
        progress.finish();
        verdicts
    }
}

fn verdict(
    m: &ir::Model,
    r: &RunRecord,
    at: usize,
    (contents, clock): (&BTreeMap<String, (String, i64)>, &Clock),
    hash_of: &HashMap<String, String>,
    seen: &HashMap<&str, (bool, Option<usize>)>,
) -> Why {
    match r
        .fingerprints
        .get(&m.name)
        .map(|fp| compare_recorded(fp, &m.fingerprint))
    {
        Some(Recorded::Same) => {}
        Some(Recorded::OlderFormat) => return Why::FingerprintFormat,
        Some(Recorded::Changed) | None => return Why::FingerprintChanged,
    }
    if let Some(part) = sql::reads_clock(m) {
        let was = r
            .clock
            .as_deref()
            .map(|c| Clock::new(c).key(part).to_string());
        if was.as_deref() != Some(clock.key(part)) {
            return Why::ClockMoved(part);
        }
    }
    for i in &m.inputs {
        match i.kind {
            InputKind::Source => {
                let recorded = r.inputs.get(i.name.as_str()).and_then(|t| hash_of.get(t));
                let now = contents.get(i.name.as_str()).map(|(h, _)| h);
                if recorded.is_none() || recorded != now {
                    return Why::InputChanged(i.name.to_string());
                }
            }
            InputKind::Model => {
                // Rebuilt in this run, or published after this snapshot.
                let upstream = seen.get(i.name.as_str());
                let newer =
                    upstream.is_some_and(|(stale, shown)| *stale || shown.is_some_and(|u| u > at));
                if newer {
                    return Why::Upstream(i.name.to_string());
                }
            }
        }
    }
    Why::Fresh
}
