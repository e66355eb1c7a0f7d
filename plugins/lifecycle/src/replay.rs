//! `strata replay --execute`: re-execute a recorded run from its frozen
//! inputs with every check and compare with its snapshots. (Listing and
//! finding runs is the history's: `state::history`.)

use std::collections::{BTreeMap, HashMap};

use strata_engine::{Failure, Warehouse};
use strata_lang::fingerprint::{compare_recorded, Recorded};
use strata_lang::ir;

use crate::build::{build_one, Checking};
use crate::cardinality::{Ledger, Summary};
use crate::naming::live_view;
use crate::select::select_models;
use crate::state::RunRecord;
use crate::work::Work;
use crate::Progress;

/// The outcome of re-executing a run.
#[derive(Debug, Default)]
pub struct ReplayReport {
    pub report: Vec<String>,
    /// `(model, equal to the recorded snapshot, rows)`.
    pub compared: Vec<(String, bool, i64)>,
    /// Models whose fingerprint changed since the run.
    pub changed: Vec<String>,
    /// Models whose recorded fingerprint is of an older format (written by
    /// a strata from before fingerprint v2): whether they changed since the
    /// run cannot be told.
    pub format_changed: Vec<String>,
    /// What the cardinality checks did (sampled as the run was).
    pub cardinality: Summary,
}

/// The models whose fingerprint differs from the one `recorded` for them,
/// in `models`' order: those that changed since, and those whose recorded
/// fingerprint is of an older format (which tells nothing either way). A
/// model the run did not record is in neither.
pub fn fingerprint_changes(
    recorded: &BTreeMap<String, String>,
    models: &[&ir::Model],
) -> (Vec<String>, Vec<String>) {
    let (mut changed, mut format_changed) = (Vec::new(), Vec::new());
    for m in models {
        let Some(fp) = recorded.get(&m.name) else {
            continue;
        };
        match compare_recorded(fp, &m.fingerprint) {
            Recorded::Same => {}
            Recorded::Changed => changed.push(m.name.clone()),
            Recorded::OlderFormat => format_changed.push(m.name.clone()),
        }
    }
    (changed, format_changed)
}

/// Re-materialize a recorded run from its frozen inputs (every pin and
/// cardinality check included) and compare each model with its snapshot.
/// Nothing in the warehouse changes.
pub fn execute(
    wh: &Warehouse,
    module: &ir::Module,
    record: &RunRecord,
    progress: &dyn Progress,
) -> Result<ReplayReport, Failure> {
    let inputs = record
        .inputs
        .iter()
        .map(|(s, t)| ("frozen input of source", s, t));
    let snapshots = record
        .snapshots
        .iter()
        .map(|(m, t)| ("snapshot of model", m, t));
    let bases = record
        .bases
        .iter()
        .map(|(m, t)| ("previous snapshot merged into by model", m, t));
    for (what, name, table) in inputs.chain(snapshots).chain(bases) {
        if !wh.relation_exists(table)? {
            return Err(Failure::Environment(format!(
                "the {what} '{name}' ({table}) is gone (collected by `strata gc`?); run {} cannot be replayed",
                record.run_id
            )));
        }
    }
    let models = select_models(module, &record.models, None)?;
    let (changed, format_changed) = fingerprint_changes(&record.fingerprints, &models);
    let source_rel: BTreeMap<String, String> = record
        .inputs
        .iter()
        .map(|(s, t)| (s.clone(), wh.ident(t)))
        .collect();
    let work = Work::begin(wh)?;
    let mut ledger = Ledger::new(record.sampling);
    let result = (|| {
        let mut report = Vec::new();
        let mut built: HashMap<String, String> = HashMap::new();
        let mut compared = Vec::new();
        for m in &models {
            let table = format!("stg_replay__{}", m.name);
            let relation = |i: &ir::Input| match i.kind {
                ir::InputKind::Source => source_rel
                    .get(i.name.as_str())
                    .cloned()
                    .unwrap_or_else(|| wh.ident(&i.name)),
                ir::InputKind::Model => wh.ident(
                    built
                        .get(i.name.as_str())
                        .map_or(&live_view(&i.name, &record.branch), |t| t),
                ),
            };
            let mut checking = Checking {
                report: &mut report,
                ledger: &mut ledger,
            };
            let base = record.bases.get(&m.name).map(String::as_str);
            build_one(
                &work,
                module,
                m,
                (&table, false),
                base,
                &relation,
                &mut checking,
                progress,
            )?;
            built.insert(m.name.clone(), table.clone());
            let rows = wh.count(&format!("SELECT COUNT(*) FROM {}", wh.ident(&table)))?;
            if let Some(snap) = record.snapshots.get(&m.name) {
                let (a, b) = (wh.ident(&table), wh.ident(snap));
                let diff = wh.count(&format!(
                    "SELECT COUNT(*) FROM ((SELECT * FROM {a} EXCEPT ALL SELECT * FROM {b}) UNION ALL (SELECT * FROM {b} EXCEPT ALL SELECT * FROM {a})) AS d"
                ));
                compared.push((m.name.clone(), matches!(diff, Ok(0)), rows));
            }
        }
        Ok(ReplayReport {
            report,
            compared,
            changed: changed.clone(),
            format_changed: format_changed.clone(),
            cardinality: std::mem::take(&mut ledger).into_summary(),
        })
    })();
    work.rollback();
    progress.finish();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED: &str = include_str!("../../../examples/seed/orders.strata");

    #[test]
    fn recorded_fingerprints_are_same_changed_or_of_an_older_format() {
        let checked = strata_lang::check_text("orders.strata", SEED);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        let models: Vec<&ir::Model> = checked.module.models.iter().collect();
        let current = |name: &str| {
            models
                .iter()
                .find(|m| m.name == name)
                .map(|m| m.fingerprint.clone())
                .unwrap_or_else(|| panic!("no model {name}"))
        };
        let same: BTreeMap<String, String> = ["enriched", "profiles"]
            .iter()
            .map(|n| (n.to_string(), current(n)))
            .collect();
        assert_eq!(
            fingerprint_changes(&same, &models),
            (Vec::new(), Vec::new())
        );
        // `enriched` recorded by a strata from before v2 (16 hex digits),
        // `profiles` as another model of the current format.
        let mut old = same.clone();
        old.insert("enriched".into(), "6088cd087778d30e".into());
        old.insert("profiles".into(), "0".repeat(strata_lang::fingerprint::LEN));
        assert_eq!(
            fingerprint_changes(&old, &models),
            (vec!["profiles".to_string()], vec!["enriched".to_string()])
        );
        // A model the run did not record is in neither list.
        assert_eq!(
            fingerprint_changes(&BTreeMap::new(), &models),
            (Vec::new(), Vec::new())
        );
    }
}
