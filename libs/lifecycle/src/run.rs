//! `strata run`: materialize the selected models in one unit of work,
//! check them, and publish (or undo everything).

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use strata_engine::{Failure, Origin};
use strata_lang::ir;
use strata_lang::sql::{Clock, ClockPart};

use crate::build::{Build, RunReport};
use crate::cardinality::{Ledger, Sampling};
use crate::content::{self, Scanned, SourcePolicy};
use crate::delta::Plan;
use crate::failpoint::failpoint;
use crate::freeze::Freezing;
use crate::naming::{live_view, short_hash, snapshot, staged_view};
use crate::prepare::{Prepared, RunOptions};
use crate::select::sources_read;
use crate::session::Session;
use crate::state::history::RunRecord;
use crate::timing::{ms_since, Timings};
use crate::work::Work;

impl Session<'_> {
    /// `strata run`: the whole lifecycle in one transaction.
    pub fn run(&self, module: &ir::Module, opts: &RunOptions) -> Result<RunReport, Failure> {
        let progress = self.progress();
        let started = Instant::now();
        let Prepared {
            mut models,
            origins,
            mut relations,
        } = self.prepare(module, opts)?;

        // What `current_date()` reads: the run's start (or `--now`).
        let clock = opts.clock.clone().unwrap_or_else(crate::clock::now);
        // The run id: a content hash of what the run does.
        let mut scanned = self.content_hashes(&origins, &relations, &opts.policies)?;
        let mut skipped = Vec::new();
        if opts.only_stale {
            let contents = content::contents(&scanned);
            for v in self.verdicts(&models, &contents, &opts.branch, &clock)? {
                if v.why.is_fresh() {
                    skipped.push((v.model, v.live_run));
                }
            }
            models.retain(|m| !skipped.iter().any(|(s, _)| *s == m.name));
            let needed = sources_read(&models);
            relations.retain(|s, _| needed.contains(s));
            scanned.retain(|s, _| needed.contains(s));
            if models.is_empty() {
                progress.finish();
                return Ok(RunReport {
                    skipped,
                    ..RunReport::default()
                });
            }
        }
        let mut notes = Vec::new();
        let bases = self.bases(&models, &opts.branch, opts.full_refresh, &mut notes)?;
        // How each source with an append column is frozen: checked now, one
        // scan of its new rows each.
        let plans = self.delta_plan(
            &self.reader().runs()?,
            &scanned,
            &relations,
            &opts.policies,
            &origins,
        )?;
        let mut parts = vec![opts.branch.clone(), opts.stage_only.to_string()];
        for m in &models {
            parts.push(format!("{}={}", m.name, m.fingerprint));
            // A merge's result depends on the snapshot it merges into.
            if let Some(base) = bases.get(&m.name) {
                parts.push(format!("{}<-{base}", m.name));
            }
        }
        for (s, x) in &scanned {
            parts.push(format!("{s}:{}:{}", origins[s].describe(), x.content));
        }
        // A sampled run checks less than an exact one: a different run. (Exact
        // runs keep the ids they always had.)
        if let Some(n) = opts.sample_rows {
            parts.push(format!("cardinality-sample-rows={n}"));
        }
        // Rows that read the clock depend on it (only as much as they read:
        // two runs on one day share the rows of `current_date()`).
        let reads_clock = ClockPart::read_by(models.iter().copied());
        if let Some(part) = reads_clock {
            parts.push(format!("clock={}", clock.key(part)));
        }
        let run_id = short_hash(&parts);

        let selected = Selected {
            models: &models,
            origins: &origins,
            relations: &relations,
            scanned: &scanned,
            policies: &opts.policies,
            plans: &plans,
            bases: &bases,
            started,
            clock: (&clock, reads_clock.is_some()),
        };
        let result = self.atomically(|work| {
            work.run_in_transaction(module, opts, &selected, &run_id, (skipped, notes))
        });
        progress.finish();
        result
    }
}

/// What a run builds, settled before its transaction.
struct Selected<'a, 'm> {
    models: &'a [&'m ir::Model],
    origins: &'a BTreeMap<String, Origin>,
    relations: &'a BTreeMap<String, String>,
    /// Content hash and rows of each source read.
    scanned: &'a BTreeMap<String, Scanned>,
    /// How strata.toml says to freeze each source, and the delta planned
    /// for each with an append column.
    policies: &'a BTreeMap<String, SourcePolicy>,
    plans: &'a BTreeMap<String, Plan>,
    /// The previous snapshot each incremental model merges into.
    bases: &'a BTreeMap<String, String>,
    /// When the run started (its recorded wall time ends at the record).
    started: Instant,
    /// What `current_date()` reads, and whether a model reads it.
    clock: (&'a Clock, bool),
}

impl Work<'_> {
    /// The run in its unit of work: freeze, build, test, publish, record.
    fn run_in_transaction(
        &self,
        module: &ir::Module,
        opts: &RunOptions,
        selected: &Selected,
        run_id: &str,
        (skipped, notes): (Vec<(String, Option<String>)>, Vec<String>),
    ) -> Result<RunReport, Failure> {
        let (work, progress) = (self, self.progress());
        let Selected {
            models,
            origins,
            relations,
            scanned,
            policies,
            plans,
            bases,
            started,
            clock: (clock, reads_clock),
        } = *selected;
        let (wh, state) = (self.wh(), self.state());
        let sampling = opts.sample_rows.map(|n| Sampling::seeded(n, run_id));
        let mut build = Build {
            work,
            module,
            source_rel: BTreeMap::new(),
            model_rel: HashMap::new(),
            branch: opts.branch.clone(),
            report: notes,
            materialized: Vec::new(),
            timings: Vec::new(),
            ledger: Ledger::new(sampling),
            reuse_snapshots: true,
            clock: clock.clone(),
            run_id: Some(run_id.to_string()),
        };
        // 1. Freeze the inputs.
        let mut frozen = BTreeMap::new();
        let mut reused = Vec::new();
        let mut freezes = Vec::new();
        let earlier = state.frozen_earlier(scanned.values().map(|x| x.content.as_str()))?;
        let unset = SourcePolicy::default();
        for (s, x) in scanned {
            progress.step(&format!("freeze {s}"));
            let note = work.freeze(
                &Freezing {
                    source: s,
                    declared: crate::state::files::declared(module, s),
                    origin: &origins[s],
                    relation: &relations[s],
                    scanned: x,
                    policy: policies.get(s).unwrap_or(&unset),
                    plan: plans.get(s),
                },
                run_id,
                &earlier,
            )?;
            if note.how == "reused" {
                reused.push(s.clone());
            }
            build.ledger.know_rows(&note.reads, x.rows);
            build.source_rel.insert(s.clone(), note.reads.clone());
            frozen.insert(s.clone(), note.relation.clone());
            freezes.push(note);
        }
        // 2-3. Build each model as its snapshot, with its pins and checks.
        for m in models {
            let base = bases.get(&m.name).map(String::as_str);
            build.model(m, &snapshot(run_id, &m.name), base)?;
        }
        // 4. Declarative tests, on the snapshots this run built (and the live
        // views of the models it did not select).
        let built: HashMap<String, String> = build
            .materialized
            .iter()
            .map(|(m, snap, _)| (m.clone(), wh.ident(snap)))
            .collect();
        let branch = opts.branch.clone();
        let relation_of = |name: &str| -> Option<String> {
            Some(
                built
                    .get(name)
                    .cloned()
                    .unwrap_or_else(|| wh.ident(&live_view(name, &branch))),
            )
        };
        build.tests(models, &relation_of)?;
        // 5. Publish, now that every check and test has passed: repoint the
        // staged views, then the live ones. (An engine without transactions
        // repoints nothing for a run that failed.)
        failpoint("before publish");
        let mut views = Vec::new();
        for (m, snapshot, _) in &build.materialized {
            views.push((wh.ident(&staged_view(m, &opts.branch)), wh.ident(snapshot)));
        }
        if !opts.stage_only {
            for (m, snapshot, _) in &build.materialized {
                views.push((wh.ident(&live_view(m, &opts.branch)), wh.ident(snapshot)));
            }
        }
        wh.replace_views(&views)?;
        // 6. Record the run (last: a run without its record is not a run).
        let overrides: BTreeMap<String, String> = origins
            .iter()
            .filter(|(s, o)| {
                module
                    .sources
                    .iter()
                    .find(|d| &d.name == *s)
                    .is_none_or(|d| **o != crate::inputs::declared(d))
            })
            .map(|(s, o)| (s.clone(), o.describe()))
            .collect();
        let timings = Timings {
            total_ms: ms_since(started),
            models: std::mem::take(&mut build.timings),
        };
        state.record_run(&RunRecord {
            run_id: run_id.to_string(),
            started_at: String::new(),
            module: opts.module_path.display().to_string(),
            branch: opts.branch.clone(),
            stage_only: opts.stage_only,
            models: models.iter().map(|m| m.name.clone()).collect(),
            fingerprints: models
                .iter()
                .map(|m| (m.name.clone(), m.fingerprint.clone()))
                .collect(),
            overrides,
            inputs: frozen,
            snapshots: build
                .materialized
                .iter()
                .map(|(m, s, _)| (m.clone(), s.clone()))
                .collect(),
            report: build.report.join("\n"),
            sampling,
            skipped: skipped.iter().map(|(m, _)| m.clone()).collect(),
            bases: bases.clone(),
            timings: timings.clone(),
            backfill_of: opts.backfill.as_ref().map(|(id, _)| id.clone()),
            reason: opts.backfill.as_ref().map(|(_, why)| why.clone()),
            clock: reads_clock.then(|| clock.timestamp().to_string()),
        })?;
        Ok(RunReport {
            run_id: run_id.to_string(),
            materialized: build
                .materialized
                .iter()
                .map(|(m, snap, rows)| {
                    let shown = if opts.stage_only {
                        snap.clone()
                    } else {
                        live_view(m, &opts.branch)
                    };
                    (m.clone(), shown, *rows)
                })
                .collect(),
            report: build.report,
            reused_inputs: reused,
            frozen: freezes,
            cardinality: build.ledger.into_summary(),
            skipped,
            timings,
        })
    }
}
