//! `strata replay`: list recorded runs, show one, or re-execute one from its
//! frozen inputs with every check and compare with its snapshots.

use std::collections::{BTreeMap, HashMap};

use strata_lang::fingerprint::{compare_recorded, Recorded};
use strata_lang::ir;

use crate::cardinality::{Ledger, Sampling, Summary};
use crate::engine::{Warehouse, RUNS, RUN_COLUMNS};
use crate::run::{select_models, Checking};
use crate::{Failure, Progress};

/// One recorded run.
#[derive(Clone, Debug, Default)]
pub struct RunRecord {
    pub run_id: String,
    pub started_at: String,
    pub module: String,
    pub branch: String,
    pub stage_only: bool,
    pub models: Vec<String>,
    pub fingerprints: BTreeMap<String, String>,
    pub overrides: BTreeMap<String, String>,
    /// Source -> frozen input table.
    pub inputs: BTreeMap<String, String>,
    /// Model -> snapshot table.
    pub snapshots: BTreeMap<String, String>,
    pub report: String,
    /// The bound and salt of the run's sampled cardinality checks; `None`
    /// when they were exact.
    pub sampling: Option<Sampling>,
    /// Selected models `--only-stale` found fresh and did not rebuild.
    pub skipped: Vec<String>,
    /// Incremental model -> the previous snapshot its new rows were merged
    /// into (a model built in full is not in it).
    pub bases: BTreeMap<String, String>,
}

impl RunRecord {
    /// Whether this row records a `strata rollback` (not a build).
    pub fn is_rollback(&self) -> bool {
        self.report.starts_with(crate::timeline::ROLLBACK)
    }
}

/// `{"rows": N, "salt": "hex"}` as a run records it.
fn parse_sampling(s: &Option<String>) -> Option<Sampling> {
    let v: serde_json::Value = serde_json::from_str(s.as_deref()?).ok()?;
    Some(Sampling {
        rows: v["rows"].as_u64()?,
        salt: Sampling::parse_salt(v["salt"].as_str()?)?,
    })
}

fn parse<T: serde::de::DeserializeOwned + Default>(s: &Option<String>) -> T {
    s.as_deref()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default()
}

/// Every recorded run, oldest first.
pub fn list(wh: &Warehouse) -> Result<Vec<RunRecord>, Failure> {
    let rows = wh.rows(&format!(
        "SELECT run_id, {}, module, branch, {}, models, fingerprints, overrides, inputs, snapshots, report, sampling, skipped, bases FROM {} ORDER BY started_at, run_id",
        wh.text("started_at"),
        wh.text("stage_only"),
        wh.ident(RUNS)
    ))?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let cell = |i: usize| r.get(i).cloned().flatten().unwrap_or_default();
            RunRecord {
                run_id: cell(0),
                started_at: cell(1),
                module: cell(2),
                branch: cell(3),
                stage_only: cell(4) == "true",
                models: parse(&r.get(5).cloned().flatten()),
                fingerprints: parse(&r.get(6).cloned().flatten()),
                overrides: parse(&r.get(7).cloned().flatten()),
                inputs: parse(&r.get(8).cloned().flatten()),
                snapshots: parse(&r.get(9).cloned().flatten()),
                report: cell(10),
                sampling: parse_sampling(&r.get(11).cloned().flatten()),
                skipped: parse(&r.get(12).cloned().flatten()),
                bases: parse(&r.get(13).cloned().flatten()),
            }
        })
        .collect())
}

/// Append `r` to the run history (its `started_at` is the current time).
pub fn record(wh: &Warehouse, r: &RunRecord) -> Result<(), Failure> {
    let json = |v: serde_json::Value| wh.string(&v.to_string());
    let sampling = match r.sampling {
        Some(s) => json(serde_json::json!({"rows": s.rows, "salt": s.salt_hex()})),
        None => "NULL".to_string(),
    };
    let skipped = match r.skipped.is_empty() {
        true => "NULL".to_string(),
        false => json(serde_json::json!(r.skipped)),
    };
    let bases = match r.bases.is_empty() {
        true => "NULL".to_string(),
        false => json(serde_json::json!(r.bases)),
    };
    wh.exec(&format!(
        "INSERT INTO {} ({RUN_COLUMNS}) VALUES ({}, current_timestamp, {}, {}, {}, {}, {}, {}, {}, {}, {}, {sampling}, {skipped}, {bases})",
        wh.ident(RUNS),
        wh.string(&r.run_id),
        wh.string(&r.module),
        wh.string(&r.branch),
        r.stage_only,
        json(serde_json::json!(r.models)),
        json(serde_json::json!(r.fingerprints)),
        json(serde_json::json!(r.overrides)),
        json(serde_json::json!(r.inputs)),
        json(serde_json::json!(r.snapshots)),
        wh.string(&r.report),
    ))
}

/// The most recent run whose id starts with `prefix`.
pub fn find(wh: &Warehouse, prefix: &str) -> Result<RunRecord, Failure> {
    let runs = list(wh)?;
    let matching: Vec<&RunRecord> = runs
        .iter()
        .filter(|r| r.run_id.starts_with(prefix))
        .collect();
    let mut ids: Vec<&str> = Vec::new();
    for r in &matching {
        if !ids.contains(&r.run_id.as_str()) {
            ids.push(&r.run_id);
        }
    }
    match ids.len() {
        0 => Err(Failure::Usage(format!(
            "no recorded run matches '{prefix}' (strata replay FILE lists the runs)"
        ))),
        1 => Ok(matching.last().map(|r| (*r).clone()).unwrap_or_default()),
        _ => Err(Failure::Usage(format!(
            "run id prefix '{prefix}' is ambiguous: {}",
            ids.join(", ")
        ))),
    }
}

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
    wh.begin()?;
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
                        .map_or(&crate::run::live_view(&i.name, &record.branch), |t| t),
                ),
            };
            let mut checking = Checking {
                report: &mut report,
                ledger: &mut ledger,
            };
            let base = record.bases.get(&m.name).map(String::as_str);
            crate::run::build_one(
                wh,
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
    wh.rollback();
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
