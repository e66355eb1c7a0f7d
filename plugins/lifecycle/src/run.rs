//! `strata run` and `strata test`: materialize the selected models in one
//! transaction of the warehouse, check them, and publish (or roll
//! everything back).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use strata_lang::ir::{self, InputKind};
use strata_lang::sql;

use crate::cardinality::{Ledger, Sampling, Summary};
use crate::checks;
use crate::engine::Warehouse;
use crate::incremental;
use crate::inputs::{self, Origin};
use crate::registry::{registered_checks, CheckContext};
use crate::replay::{self, RunRecord};
use crate::stale;
use crate::{Failure, Progress};

/// What to run.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The module file (recorded with the run).
    pub module_path: PathBuf,
    /// Models named on the command line (their upstream models come along).
    pub models: Vec<String>,
    /// The pipeline selecting models and source overrides.
    pub pipeline: Option<String>,
    /// `--source NAME=TABLE_OR_FILE` overrides.
    pub sources: Vec<(String, Origin)>,
    pub branch: String,
    /// Build, check and snapshot, but do not repoint the live views.
    pub stage_only: bool,
    /// Check relations of more than this many rows on a hash sample of
    /// about this many rows (`--cardinality-sample-rows`); `None`: exact.
    pub sample_rows: Option<u64>,
    /// Rebuild only the stale models (and those downstream of them); the
    /// fresh ones keep the snapshot their live view shows.
    pub only_stale: bool,
    /// Build incremental models in full instead of merging new rows into
    /// their previous snapshot.
    pub full_refresh: bool,
}

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
    /// What the join cardinality checks did: each side's outcome, the
    /// queries executed, the sampling used.
    pub cardinality: Summary,
    /// `--only-stale`: the selected models found fresh and not rebuilt,
    /// with the run whose snapshot their live view keeps showing.
    pub skipped: Vec<(String, Option<String>)>,
}

/// The models to build: the selection (pipeline models or names) with their
/// upstream models, in dependency order.
pub fn select_models<'m>(
    module: &'m ir::Module,
    names: &[String],
    pipeline: Option<&ir::Pipeline>,
) -> Result<Vec<&'m ir::Model>, Failure> {
    let mut wanted: Vec<String> = names.to_vec();
    if let Some(p) = pipeline {
        wanted.extend(p.models.iter().cloned());
    }
    if wanted.is_empty() {
        return Ok(module.models.iter().collect());
    }
    let by_name: HashMap<&str, &ir::Model> =
        module.models.iter().map(|m| (m.name.as_str(), m)).collect();
    let mut keep: BTreeSet<&str> = BTreeSet::new();
    let mut stack: Vec<String> = Vec::new();
    for w in &wanted {
        if !by_name.contains_key(w.as_str()) {
            let hint = strata_lang::suggest::closest(w, by_name.keys().copied())
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            return Err(Failure::Usage(format!(
                "no model '{w}' in the module{hint}"
            )));
        }
        stack.push(w.clone());
    }
    while let Some(n) = stack.pop() {
        let Some(m) = by_name.get(n.as_str()) else {
            continue;
        };
        if keep.insert(m.name.as_str()) {
            for i in &m.inputs {
                if i.kind == InputKind::Model {
                    stack.push(i.name.to_string());
                }
            }
        }
    }
    Ok(module
        .models
        .iter()
        .filter(|m| keep.contains(m.name.as_str()))
        .collect())
}

/// Find the pipeline by name.
pub fn find_pipeline<'m>(
    module: &'m ir::Module,
    name: Option<&str>,
) -> Result<Option<&'m ir::Pipeline>, Failure> {
    let Some(name) = name else {
        return Ok(None);
    };
    match module.pipelines.iter().find(|p| p.name == name) {
        Some(p) => Ok(Some(p)),
        None => {
            let hint = strata_lang::suggest::closest(
                name,
                module.pipelines.iter().map(|p| p.name.as_str()),
            )
            .map(|s| format!(" (did you mean `{s}`?)"))
            .unwrap_or_default();
            Err(Failure::Usage(format!("unknown pipeline '{name}'{hint}")))
        }
    }
}

/// Sources read by the selected models (from, join, set-op inputs).
fn sources_read(models: &[&ir::Model]) -> Vec<String> {
    let mut out: BTreeSet<String> = BTreeSet::new();
    for m in models {
        for i in &m.inputs {
            if i.kind == InputKind::Source {
                out.insert(i.name.to_string());
            }
        }
    }
    out.into_iter().collect()
}

pub(crate) fn short_hash(parts: &[String]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update(b"\x1f");
    }
    h.finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Table names must be valid identifiers in messages and views; keep the
/// branch name to safe characters.
fn branch_tag(branch: &str) -> String {
    branch
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The live view of a model on a branch.
pub fn live_view(model: &str, branch: &str) -> String {
    if branch == "main" {
        format!("v_{model}")
    } else {
        format!("v_{}__{model}", branch_tag(branch))
    }
}

/// The staged view of a model on a branch: the snapshot of the branch's
/// latest run of it, published or not.
pub fn staged_view(model: &str, branch: &str) -> String {
    format!("stg_{}__{model}", branch_tag(branch))
}

/// The materialization state shared by run, test and replay.
struct Build<'a> {
    wh: &'a Warehouse,
    module: &'a ir::Module,
    /// Relation each source reads in this run (frozen input or origin).
    source_rel: BTreeMap<String, String>,
    /// Relation each model built in this run was materialized to.
    model_rel: HashMap<String, String>,
    branch: String,
    report: Vec<String>,
    materialized: Vec<(String, String, i64)>,
    /// Proofs, samples and outcomes of the cardinality checks.
    ledger: Ledger,
    /// Whether a model's table that exists already is kept (a run's
    /// snapshots: see [`build_one`]), or always rebuilt (`test`).
    reuse_snapshots: bool,
}

impl Build<'_> {
    /// The relation a model's input reads: a source's frozen copy (or its
    /// origin), an upstream model built in this run, else its live view.
    fn relation(&self, input: &ir::Input) -> String {
        match input.kind {
            InputKind::Source => self
                .source_rel
                .get(input.name.as_str())
                .cloned()
                .unwrap_or_else(|| self.wh.ident(&input.name)),
            InputKind::Model => self.wh.ident(
                self.model_rel
                    .get(input.name.as_str())
                    .map_or(&live_view(&input.name, &self.branch), |t| t),
            ),
        }
    }

    /// Build one model into `table` with its checks, and remember it.
    fn model(
        &mut self,
        m: &ir::Model,
        table: &str,
        base: Option<&str>,
        progress: &dyn Progress,
    ) -> Result<(), Failure> {
        let mut report = std::mem::take(&mut self.report);
        let mut ledger = std::mem::take(&mut self.ledger);
        let relation = |i: &ir::Input| self.relation(i);
        let rows = build_one(
            self.wh,
            self.module,
            m,
            (table, self.reuse_snapshots),
            base,
            &relation,
            &mut Checking {
                report: &mut report,
                ledger: &mut ledger,
            },
            progress,
        );
        self.report = report;
        self.ledger = ledger;
        let rows = rows?;
        self.model_rel.insert(m.name.clone(), table.to_string());
        self.materialized
            .push((m.name.clone(), table.to_string(), rows));
        Ok(())
    }

    fn tests(
        &mut self,
        models: &[&ir::Model],
        relation_of: &dyn Fn(&str) -> Option<String>,
    ) -> Result<(), Failure> {
        for t in &self.module.tests {
            if !models.iter().any(|m| m.name == t.model) {
                continue;
            }
            let Some(rel) = relation_of(&t.model) else {
                continue;
            };
            checks::declarative(self.wh, t, &rel, relation_of, &mut self.report)?;
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

/// Build one model into `table` (reading inputs through `relation`), then
/// its pins, then its join cardinality checks on exactly the relations it
/// read. An incremental model given the `base` snapshot (a table name) is
/// that snapshot merged with its new rows. With `reuse`, a `table` that
/// exists already holds those rows and is not built again (a snapshot is
/// named by its run id, which hashes everything its rows depend on: the
/// language has no volatile functions); its checks run all the same.
/// Returns its row count.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_one(
    wh: &Warehouse,
    module: &ir::Module,
    m: &ir::Model,
    (table, reuse): (&str, bool),
    base: Option<&str>,
    relation: &dyn Fn(&ir::Input) -> String,
    checking: &mut Checking,
    progress: &dyn Progress,
) -> Result<i64, Failure> {
    progress.step(&format!("build {}", m.name));
    let merge = m.incremental.as_ref().zip(base);
    let quoted = wh.ident(table);
    if reuse && wh.relation_exists(table)? {
        checking.report.push(format!(
            "  reused {table}: an earlier run with this run's id built it (same models, fingerprints and input contents)"
        ));
    } else {
        let dialect = wh.dialect();
        let mut select = sql::lower_model(module, m, dialect, relation).map_err(|d| {
            Failure::Environment(format!(
                "model {} cannot run on {}: {}",
                m.name,
                dialect.name(),
                d.message
            ))
        })?;
        if let Some((inc, base)) = merge {
            let (merged, line) = incremental::merge(wh, m, inc, base, &select)?;
            select = merged;
            checking.report.push(line);
        }
        wh.replace_table(&quoted, &select)?;
    }
    let rows = wh.count(&format!("SELECT COUNT(*) FROM {quoted}"))?;
    // The table was just (re)built: proofs about an earlier version of it
    // no longer hold.
    checking.ledger.rebuilt(&quoted, rows);
    // A merge keeps rows the model's query did not produce: its group or
    // dedup keys prove nothing about them.
    if merge.is_none() {
        checking.ledger.built_from(&quoted, m);
    }
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
    for check in registered_checks() {
        (check.run)(&mut context)?;
    }
    Ok(rows)
}

/// What a run or test reads and builds, settled before anything runs.
struct Plan<'m> {
    /// The models to build, in dependency order.
    models: Vec<&'m ir::Model>,
    /// Where every source reads from.
    origins: BTreeMap<String, Origin>,
    /// The relation each source the models read is read through (each
    /// checked to exist and to match its declared columns).
    relations: BTreeMap<String, String>,
}

fn plan<'m>(
    wh: &Warehouse,
    module: &'m ir::Module,
    opts: &RunOptions,
) -> Result<Plan<'m>, Failure> {
    let pipeline = find_pipeline(module, opts.pipeline.as_deref())?;
    let models = select_models(module, &opts.models, pipeline)?;
    let module_dir = opts
        .module_path
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    let origins = inputs::resolve(module, pipeline, &opts.sources, &module_dir)?;
    let needed = sources_read(&models);
    inputs::check_exist(wh, &origins, &needed)?;
    let relations = inputs::read_all(wh, &origins, &needed)?;
    inputs::check_columns(wh, module, &origins, &relations)?;
    Ok(Plan {
        models,
        origins,
        relations,
    })
}

/// A test hook: with `STRATA_FAILPOINT_BEFORE_COMMIT_MS=n` set, a run (a
/// rollback, a gc) says so on stderr and sleeps `n` ms just before its
/// COMMIT, so a test can kill it at the worst moment.
pub(crate) fn failpoint_before_commit() {
    failpoint("before commit");
}

/// A test hook: with `STRATA_FAILPOINT_<POINT>_MS=n` set (`point` in upper
/// case, spaces as `_`), say so on stderr and sleep `n` ms.
pub(crate) fn failpoint(point: &str) {
    let var = format!(
        "STRATA_FAILPOINT_{}_MS",
        point.to_ascii_uppercase().replace(' ', "_")
    );
    if let Some(ms) = std::env::var(var).ok().and_then(|v| v.parse::<u64>().ok()) {
        eprintln!("strata: failpoint {point}: sleeping {ms} ms");
        std::thread::sleep(std::time::Duration::from_millis(ms));
    }
}

/// The content hash and row count of each source relation (what the
/// freeze records, and what `plan` compares).
pub(crate) fn content_hashes(
    wh: &Warehouse,
    origins: &BTreeMap<String, Origin>,
    relations: &BTreeMap<String, String>,
    progress: &dyn Progress,
) -> Result<BTreeMap<String, (String, i64)>, Failure> {
    progress.step("hash inputs");
    inputs::source_hashes(
        wh,
        relations
            .iter()
            .map(|(s, relation)| (s.as_str(), &origins[s], relation.as_str())),
    )
}

/// `strata plan`: what a run with `opts` would rebuild, and why. Nothing is
/// built or written.
pub fn plan_run(
    wh: &Warehouse,
    module: &ir::Module,
    opts: &RunOptions,
    progress: &dyn Progress,
) -> Result<Vec<stale::Verdict>, Failure> {
    let Plan {
        models,
        origins,
        relations,
    } = plan(wh, module, opts)?;
    let contents = content_hashes(wh, &origins, &relations, progress)?;
    let verdicts = stale::verdicts(wh, &models, &contents, &opts.branch);
    progress.finish();
    verdicts
}

/// `strata run`: the whole lifecycle in one transaction.
pub fn run(
    wh: &Warehouse,
    module: &ir::Module,
    opts: &RunOptions,
    progress: &dyn Progress,
) -> Result<RunReport, Failure> {
    let Plan {
        mut models,
        origins,
        mut relations,
    } = plan(wh, module, opts)?;

    // The run id: a content hash of what the run does.
    let mut contents = content_hashes(wh, &origins, &relations, progress)?;
    let mut skipped = Vec::new();
    if opts.only_stale {
        for v in stale::verdicts(wh, &models, &contents, &opts.branch)? {
            if v.why.is_fresh() {
                skipped.push((v.model, v.live_run));
            }
        }
        models.retain(|m| !skipped.iter().any(|(s, _)| *s == m.name));
        let needed = sources_read(&models);
        relations.retain(|s, _| needed.contains(s));
        contents.retain(|s, _| needed.contains(s));
        if models.is_empty() {
            progress.finish();
            return Ok(RunReport {
                skipped,
                ..RunReport::default()
            });
        }
    }
    let mut notes = Vec::new();
    let bases = incremental::bases(wh, &models, &opts.branch, opts.full_refresh, &mut notes)?;
    let mut parts = vec![opts.branch.clone(), opts.stage_only.to_string()];
    for m in &models {
        parts.push(format!("{}={}", m.name, m.fingerprint));
        // A merge's result depends on the snapshot it merges into.
        if let Some(base) = bases.get(&m.name) {
            parts.push(format!("{}<-{base}", m.name));
        }
    }
    for (s, (hash, _)) in &contents {
        parts.push(format!("{s}:{}:{hash}", origins[s].describe()));
    }
    // A sampled run checks less than an exact one: a different run. (Exact
    // runs keep the ids they always had.)
    if let Some(n) = opts.sample_rows {
        parts.push(format!("cardinality-sample-rows={n}"));
    }
    let run_id = short_hash(&parts);

    wh.begin()?;
    let result = run_in_transaction(
        wh,
        module,
        opts,
        &Selected {
            models: &models,
            origins: &origins,
            relations: &relations,
            contents: &contents,
            bases: &bases,
        },
        &run_id,
        (skipped, notes),
        progress,
    );
    match result {
        Ok(report) => {
            failpoint_before_commit();
            wh.commit()?;
            progress.finish();
            Ok(report)
        }
        Err(e) => {
            wh.rollback();
            progress.finish();
            Err(e)
        }
    }
}

/// What a run builds, settled before its transaction.
struct Selected<'a, 'm> {
    models: &'a [&'m ir::Model],
    origins: &'a BTreeMap<String, Origin>,
    relations: &'a BTreeMap<String, String>,
    /// Content hash and rows of each source read.
    contents: &'a BTreeMap<String, (String, i64)>,
    /// The previous snapshot each incremental model merges into.
    bases: &'a BTreeMap<String, String>,
}

fn run_in_transaction(
    wh: &Warehouse,
    module: &ir::Module,
    opts: &RunOptions,
    selected: &Selected,
    run_id: &str,
    (skipped, notes): (Vec<(String, Option<String>)>, Vec<String>),
    progress: &dyn Progress,
) -> Result<RunReport, Failure> {
    let Selected {
        models,
        origins,
        relations,
        contents,
        bases,
    } = *selected;
    let sampling = opts.sample_rows.map(|n| Sampling::seeded(n, run_id));
    let mut build = Build {
        wh,
        module,
        source_rel: BTreeMap::new(),
        model_rel: HashMap::new(),
        branch: opts.branch.clone(),
        report: notes,
        materialized: Vec::new(),
        ledger: Ledger::new(sampling),
        reuse_snapshots: true,
    };
    // 1. Freeze the inputs.
    let mut frozen = BTreeMap::new();
    let mut reused = Vec::new();
    let earlier = inputs::frozen_earlier(wh, contents)?;
    for (s, (hash, rows)) in contents {
        progress.step(&format!("freeze {s}"));
        let (table, was_reused) = inputs::freeze(
            wh,
            s,
            (&origins[s], &relations[s]),
            (hash, *rows),
            run_id,
            &earlier,
        )?;
        if was_reused {
            reused.push(s.clone());
        }
        build.ledger.know_rows(&wh.ident(&table), *rows);
        build.source_rel.insert(s.clone(), wh.ident(&table));
        frozen.insert(s.clone(), table);
    }
    // 2-3. Build each model as its snapshot, with its pins and checks.
    for m in models {
        let snapshot = format!("snap_{run_id}_{}", m.name);
        let base = bases.get(&m.name).map(String::as_str);
        build.model(m, &snapshot, base, progress)?;
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
        .filter(|(s, o)| **o != Origin::Table((*s).clone()))
        .map(|(s, o)| (s.clone(), o.describe()))
        .collect();
    replay::record(
        wh,
        &RunRecord {
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
        },
    )?;
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
        cardinality: build.ledger.into_summary(),
        skipped,
    })
}

/// `strata test`: materialize into the `test` branch's staged tables (pins
/// and cardinality checks included) and run the declarative tests against
/// them. Live views, snapshots and history are never touched.
pub fn test(
    wh: &Warehouse,
    module: &ir::Module,
    opts: &RunOptions,
    progress: &dyn Progress,
) -> Result<RunReport, Failure> {
    let Plan {
        models,
        origins,
        relations,
    } = plan(wh, module, opts)?;
    // No run id here: the sample's salt comes from what the run is made
    // of (models and where each source reads from).
    let sampling = opts.sample_rows.map(|n| {
        let mut parts = vec!["test".to_string()];
        parts.extend(
            models
                .iter()
                .map(|m| format!("{}={}", m.name, m.fingerprint)),
        );
        parts.extend(origins.iter().map(|(s, o)| format!("{s}:{}", o.describe())));
        Sampling::seeded(n, &short_hash(&parts))
    });
    // Incremental models are tested as a run would publish them: merged
    // into the snapshot the branch's live view shows.
    let mut notes = Vec::new();
    let bases = incremental::bases(wh, &models, &opts.branch, opts.full_refresh, &mut notes)?;
    let mut build = Build {
        wh,
        module,
        source_rel: relations,
        model_rel: HashMap::new(),
        branch: "test".into(),
        report: notes,
        materialized: Vec::new(),
        ledger: Ledger::new(sampling),
        reuse_snapshots: false,
    };
    wh.begin()?;
    let result = (|| {
        for m in &models {
            let base = bases.get(&m.name).map(String::as_str);
            build.model(m, &format!("stg_test__{}", m.name), base, progress)?;
        }
        let staged: HashMap<String, String> = build
            .model_rel
            .iter()
            .map(|(m, t)| (m.clone(), wh.ident(t)))
            .collect();
        let relation_of = |name: &str| staged.get(name).cloned();
        build.tests(&models, &relation_of)
    })();
    match result {
        Ok(()) => {
            wh.commit()?;
            progress.finish();
            Ok(RunReport {
                run_id: String::new(),
                materialized: build.materialized,
                report: build.report,
                reused_inputs: Vec::new(),
                cardinality: build.ledger.into_summary(),
                skipped: Vec::new(),
            })
        }
        Err(e) => {
            wh.rollback();
            progress.finish();
            Err(e)
        }
    }
}
