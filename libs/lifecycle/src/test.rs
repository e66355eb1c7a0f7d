//! `strata test`: build the selected models into the `test` branch's
//! staged tables, with every check, and run the declarative tests on them.

use std::collections::HashMap;

use strata_engine::Failure;
use strata_lang::ir;

use crate::build::{Build, RunReport};
use crate::cardinality::{Ledger, Sampling};
use crate::naming::short_hash;
use crate::prepare::{Prepared, RunOptions};
use crate::session::Session;
use crate::timing::{ms_since, Timings};

impl Session<'_> {
    /// `strata test`: materialize into the `test` branch's staged tables (pins
    /// and cardinality checks included) and run the declarative tests against
    /// them. Live views, snapshots and history are never touched.
    pub fn test(&self, module: &ir::Module, opts: &RunOptions) -> Result<RunReport, Failure> {
        let (wh, progress) = (self.wh(), self.progress());
        let started = std::time::Instant::now();
        let Prepared {
            models,
            origins,
            relations,
        } = self.prepare(module, opts)?;
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
        let bases = self.bases(&models, &opts.branch, opts.full_refresh, &mut notes)?;
        let result = self.atomically(|work| {
            let mut build = Build {
                work,
                module,
                source_rel: relations,
                model_rel: HashMap::new(),
                branch: "test".into(),
                report: notes,
                materialized: Vec::new(),
                timings: Vec::new(),
                ledger: Ledger::new(sampling),
                reuse_snapshots: false,
                clock: opts.clock.clone().unwrap_or_else(crate::clock::now),
                run_id: None,
            };
            for m in &models {
                let base = bases.get(&m.name).map(String::as_str);
                build.model(m, &format!("stg_test__{}", m.name), base)?;
            }
            let staged: HashMap<String, String> = build
                .model_rel
                .iter()
                .map(|(m, t)| (m.clone(), wh.ident(t)))
                .collect();
            let relation_of = |name: &str| staged.get(name).cloned();
            build.tests(&models, &relation_of)?;
            Ok(RunReport {
                run_id: String::new(),
                materialized: build.materialized,
                report: build.report,
                reused_inputs: Vec::new(),
                frozen: Vec::new(),
                cardinality: build.ledger.into_summary(),
                skipped: Vec::new(),
                timings: Timings {
                    total_ms: ms_since(started),
                    models: build.timings,
                },
            })
        });
        progress.finish();
        result
    }

    /// Why the declarative tests of `opts` have no data to read in `wh`: the
    /// sources its models read that do not exist (as `run` and `test` report
    /// them), or `None` when every one exists.
    pub fn missing_data(
        &self,
        module: &ir::Module,
        opts: &RunOptions,
    ) -> Result<Option<String>, Failure> {
        let (pipeline, models) = crate::select::selected(module, opts)?;
        let module_dir = opts
            .module_path
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default();
        let origins = crate::inputs::resolve(module, pipeline, &opts.sources, &module_dir)?;
        let needed = crate::select::sources_read(&models);
        match self.check_exist(&origins, &needed) {
            Ok(()) => Ok(None),
            Err(Failure::Environment(why)) => Ok(Some(why)),
            Err(other) => Err(other),
        }
    }
}
