//! Building models: one model into its table, then its checks (pins,
//! join cardinality, and any registered check) on exactly the relations it
//! read; and the state a run, a test and a replay share while they build.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use strata_engine::{Failure, Warehouse};
use strata_lang::ir::{self, InputKind};
use strata_lang::sql::{self, Clock, RunValues};

use crate::cardinality::{Ledger, Summary};
use crate::naming::live_view;
use crate::registry::{registered_checks, CheckContext};
use crate::timing::{ms_since, CheckTiming, ModelTiming, Timings};
use crate::work::Work;

/// What a successful run did.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    pub run_id: String,
    /// `(model, published relation, rows)` in build order.
    pub materialized: Vec<(String, String, i64)>,
    /// Pin, cardinality and test report lines, in order.
    pub report: Vec<String>,
    /// Sources whose frozen copy was reused.
    pub reused_inputs: Vec<String>,
    /// How each input was frozen (a run's; empty for `test`).
    pub frozen: Vec<crate::freeze::FreezeNote>,
    /// What the join cardinality checks did: each side's outcome, the
    /// queries executed, the sampling used.
    pub cardinality: Summary,
    /// `--only-stale`: the selected models found fresh and not rebuilt,
    /// with the run whose snapshot their live view keeps showing.
    pub skipped: Vec<(String, Option<String>)>,
    /// The run's wall time and what each model cost (build, rows, checks).
    pub timings: Timings,
}

/// The materialization state shared by run, test and replay.
pub(crate) struct Build<'a> {
    pub work: &'a Work<'a>,
    pub module: &'a ir::Module,
    /// Relation each source reads in this run (frozen input or origin).
    pub source_rel: BTreeMap<String, String>,
    /// Relation each model built in this run was materialized to.
    pub model_rel: HashMap<String, String>,
    pub branch: String,
    pub report: Vec<String>,
    pub materialized: Vec<(String, String, i64)>,
    /// What each model built cost, in build order.
    pub timings: Vec<ModelTiming>,
    /// Proofs, samples and outcomes of the cardinality checks.
    pub ledger: Ledger,
    /// Whether a model's table that exists already is kept (a run's
    /// snapshots: see [`Work::build_one`]), or always rebuilt (`test`).
    pub reuse_snapshots: bool,
    /// What `current_date()` and `current_timestamp()` read.
    pub clock: Clock,
    /// What `run_id()` reads: the run's id (`None` for `test`, which is no
    /// run: [`sql::NO_RUN_ID`]).
    pub run_id: Option<String>,
}

impl Build<'_> {
    fn wh(&self) -> &Warehouse {
        self.work.wh()
    }

    /// The relation a model's input reads: a source's frozen copy (or its
    /// origin), an upstream model built in this run, else its live view.
    fn relation(&self, input: &ir::Input) -> String {
        match input.kind {
            InputKind::Source => self
                .source_rel
                .get(input.name.as_str())
                .cloned()
                .unwrap_or_else(|| self.wh().ident(&input.name)),
            InputKind::Model => self.wh().ident(
                self.model_rel
                    .get(input.name.as_str())
                    .map_or(&live_view(&input.name, &self.branch), |t| t),
            ),
        }
    }

    /// Build one model into `table` with its checks, and remember it.
    pub fn model(&mut self, m: &ir::Model, table: &str, base: Option<&str>) -> Result<(), Failure> {
        let mut report = std::mem::take(&mut self.report);
        let mut ledger = std::mem::take(&mut self.ledger);
        let relation = |i: &ir::Input| self.relation(i);
        let timing = self.work.build_one(
            self.module,
            m,
            (table, self.reuse_snapshots),
            base,
            &relation,
            RunValues {
                clock: Some(&self.clock),
                id: self.run_id.as_deref(),
            },
            &mut Checking {
                report: &mut report,
                ledger: &mut ledger,
            },
        );
        self.report = report;
        self.ledger = ledger;
        let timing = timing?;
        self.model_rel.insert(m.name.clone(), table.to_string());
        self.materialized
            .push((m.name.clone(), table.to_string(), timing.rows));
        self.timings.push(timing);
        Ok(())
    }

    pub fn tests(
        &mut self,
        models: &[&ir::Model],
        relation_of: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(), Failure> {
        // A fixture test runs on its own rows (`crate::fixtures`), never on
        // the warehouse's.
        for t in self.module.tests.iter().filter(|t| !t.is_fixture) {
            if !models.iter().any(|m| m.name == t.model) {
                continue;
            }
            let Some(rel) = relation_of(&t.model) else {
                continue;
            };
            self.work
                .declarative(t, &t.model, &rel, relation_of, &mut self.report)?;
        }
        Ok(())
    }
}

/// Where the checks of a model go: report lines, and the run's
/// cardinality ledger (proofs reused within the run).
pub(crate) struct Checking<'a> {
    pub report: &'a mut Vec<String>,
    pub ledger: &'a mut Ledger,
}

impl Work<'_> {
    /// Build one model into `table` (reading inputs through `relation`), then
    /// its pins, then its join cardinality checks on exactly the relations it
    /// read. An incremental model given the `base` snapshot (a table name) is
    /// that snapshot merged with its new rows. With `reuse`, a `table` that
    /// exists already holds those rows and is not built again (a snapshot is
    /// named by its run id, which hashes everything its rows depend on: the
    /// language has no volatile functions, and the run id hashes the clock
    /// when a model reads it, and a model reading `run_id()` reads that id);
    /// its checks run all the same. `run` is what `current_date()` and
    /// `run_id()` read (`RunValues::NONE`: the engine's clock, no run).
    /// Returns its row count and what the build and each check cost.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn build_one(
        &self,
        module: &ir::Module,
        m: &ir::Model,
        (table, reuse): (&str, bool),
        base: Option<&str>,
        relation: &dyn Fn(&ir::Input) -> String,
        run: RunValues,
        checking: &mut Checking,
    ) -> Result<ModelTiming, Failure> {
        let (work, progress) = (self, self.progress());
        let wh = work.wh();
        progress.step(&format!("build {}", m.name));
        let started = Instant::now();
        let mut build_ms = 0.0;
        let merge = m.incremental.as_ref().zip(base);
        let quoted = wh.ident(table);
        let mut known_rows = None;
        // Reused with every segment it reads (a run killed on Spark leaves its
        // snapshot, whose segments gc may have dropped since).
        if reuse
            && wh.relation_exists(table)?
            && self.reader().intact(&self.reader().segments()?, table)?
        {
            checking.report.push(format!(
                "  reused {table}: an earlier run with this run's id built it (same models, fingerprints and input contents)"
            ));
        } else {
            let dialect = wh.dialect();
            let select = sql::lower_model(module, m, dialect, relation, run).map_err(|d| {
                Failure::Environment(format!(
                    "model {} cannot run on {}: {}",
                    m.name,
                    dialect.name(),
                    d.message
                ))
            })?;
            if let Some((inc, base)) = merge {
                // A run's snapshot of an `append` model shares its rows with
                // the previous snapshot (segments).
                let (line, n) = work.build_merged(m, inc, (base, table), &select, reuse)?;
                checking.report.push(line);
                known_rows = n;
            } else {
                known_rows = work.replace_table(&quoted, &select)?;
            }
            build_ms = ms_since(started);
        }
        let rows = match known_rows {
            Some(n) => n,
            None => wh.count(&format!("SELECT COUNT(*) FROM {quoted}"))?,
        };
        // The table was just (re)built: proofs about an earlier version of it
        // no longer hold.
        checking.ledger.rebuilt(&quoted, rows);
        // A merge keeps rows the model's query did not produce: its group or
        // dedup keys prove nothing about them.
        if merge.is_none() {
            checking.ledger.built_from(&quoted, m);
        }
        let mut checks = Vec::new();
        for check in registered_checks() {
            let sent = wh.statements();
            let started = Instant::now();
            let mut context = CheckContext {
                wh,
                module,
                model: m,
                table,
                relation,
                report: checking.report,
                ledger: checking.ledger,
                progress,
            };
            (check.run)(&mut context)?;
            checks.push(CheckTiming {
                check: check.name.to_string(),
                ms: ms_since(started),
                queries: wh.statements() - sent,
            });
        }
        Ok(ModelTiming {
            model: m.name.clone(),
            build_ms,
            rows,
            checks,
        })
    }
}
