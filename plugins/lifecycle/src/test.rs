//! `strata test`: build the selected models into the `test` branch's
//! staged tables, with every check, and run the declarative tests on them.

use std::collections::HashMap;

use strata_engine::{Failure, Warehouse};
use strata_lang::ir;

use crate::build::{Build, RunReport};
use crate::cardinality::{Ledger, Sampling};
use crate::incremental;
use crate::naming::short_hash;
use crate::prepare::{prepare, Prepared, RunOptions};
use crate::work::atomically;
use crate::Progress;

/// `strata test`: materialize into the `test` branch's staged tables (pins
/// and cardinality checks included) and run the declarative tests against
/// them. Live views, snapshots and history are never touched.
pub fn test(
    wh: &Warehouse,
    module: &ir::Module,
    opts: &RunOptions,
    progress: &dyn Progress,
) -> Result<RunReport, Failure> {
    let Prepared {
        models,
        origins,
        relations,
    } = prepare(wh, module, opts)?;
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
    let result = atomically(wh, |work| {
        let mut build = Build {
            work,
            module,
            source_rel: relations,
            model_rel: HashMap::new(),
            branch: "test".into(),
            report: notes,
            materialized: Vec::new(),
            ledger: Ledger::new(sampling),
            reuse_snapshots: false,
        };
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
        build.tests(&models, &relation_of)?;
        Ok(RunReport {
            run_id: String::new(),
            materialized: build.materialized,
            report: build.report,
            reused_inputs: Vec::new(),
            cardinality: build.ledger.into_summary(),
            skipped: Vec::new(),
        })
    });
    progress.finish();
    result
}
