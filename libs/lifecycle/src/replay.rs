//! `strata replay --execute`: re-execute a recorded run from its frozen
//! inputs with every check and compare with its snapshots. (Listing and
//! finding runs is the history's: `state::history`.)

use std::collections::{BTreeMap, HashMap};

use strata_engine::{Failure, Origin};
use strata_lang::fingerprint::{compare_recorded, Recorded};
use strata_lang::ir;

use crate::build::Checking;
use crate::cardinality::{Ledger, Summary};
use crate::content::file_hash;
use crate::freeze::recorded_origin;
use crate::naming::live_view;
use crate::select::select_models;
use crate::session::Session;
use crate::state::frozen::{FrozenEarlier, How};
use crate::state::RunRecord;

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
    /// Each input, checked to have the content the run read: `(source,
    /// how it was frozen)` (`copy`, `delta`, `hash`).
    pub inputs: Vec<(String, &'static str)>,
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

impl Session<'_> {
    /// Re-materialize a recorded run from its frozen inputs (every pin and
    /// cardinality check included) and compare each model with its snapshot.
    /// Nothing in the warehouse changes.
    pub fn replay(&self, module: &ir::Module, record: &RunRecord) -> Result<ReplayReport, Failure> {
        let (wh, progress) = (self.wh(), self.progress());
        let frozen = self.reader().frozen_all()?;
        let read_in_place = |t: &String| frozen.get(t).filter(|f| f.how == How::Hash);
        let inputs = record
            .inputs
            .iter()
            .filter(|(_, t)| read_in_place(t).is_none())
            .map(|(s, t)| ("frozen input of source", s, t));
        let snapshots = record
            .snapshots
            .iter()
            .map(|(m, t)| ("snapshot of model", m, t));
        let bases = record
            .bases
            .iter()
            .map(|(m, t)| ("previous snapshot merged into by model", m, t));
        let known = self.reader().segments()?;
        for (what, name, table) in inputs.chain(snapshots).chain(bases) {
            if !self.reader().intact(&known, table)? {
                return Err(Failure::Environment(format!(
                    "the {what} '{name}' ({table}) is gone (collected by `strata gc`?); run {} cannot be replayed",
                    record.run_id
                )));
            }
        }
        // Where each input is read: its frozen relation, or for a source read
        // in place, its origin again.
        let mut source_rel: BTreeMap<String, String> = BTreeMap::new();
        for (s, t) in &record.inputs {
            let Some(f) = read_in_place(t) else {
                source_rel.insert(s.clone(), wh.ident(t));
                continue;
            };
            let described = f.origin.clone().unwrap_or_default();
            let origin = recorded_origin(&described);
            let there = match &origin {
                Some(Origin::Table(table)) => wh.table_exists(table)?,
                Some(Origin::File(path)) => path.is_file(),
                None => false,
            };
            let Some(origin) = origin.filter(|_| there) else {
                return Err(Failure::Environment(format!(
                    "cannot replay run {}: source '{s}' was read in place (freeze = \"hash\") from {described}, which is gone; nothing was run",
                    record.run_id
                )));
            };
            let declared = crate::state::files::declared(module, s);
            source_rel.insert(
                s.clone(),
                self.state().source_relation(s, declared, &origin)?,
            );
        }
        progress.step("check inputs");
        let checked_inputs = self.same_inputs(record, &frozen, &source_rel)?;
        let models = select_models(module, &record.models, None)?;
        let (changed, format_changed) = fingerprint_changes(&record.fingerprints, &models);
        // The clock the run's models read, as it recorded it, and the run's
        // id (what `run_id()` read).
        let clock = record.clock.clone().map(strata_lang::sql::Clock::new);
        let run = strata_lang::sql::RunValues {
            clock: clock.as_ref(),
            id: Some(&record.run_id),
        };
        let work = self.begin()?;
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
                let timing = work.build_one(
                    module,
                    m,
                    (&table, false),
                    base,
                    &relation,
                    run,
                    &mut checking,
                )?;
                built.insert(m.name.clone(), table.clone());
                let rows = timing.rows;
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
                inputs: checked_inputs.clone(),
            })
        })();
        work.rollback();
        progress.finish();
        result
    }

    /// Check that every frozen input of `record` (read through `source_rel`)
    /// still has the content the run read (one scan of each; a stored file by
    /// its bytes). A source read
    /// in place (`freeze = "hash"`) that changed since is refused, saying since
    /// when; a copy that changed (which strata never does) too. Returns each
    /// source and how it was frozen.
    fn same_inputs(
        &self,
        record: &RunRecord,
        all: &BTreeMap<String, FrozenEarlier>,
        source_rel: &BTreeMap<String, String>,
    ) -> Result<Vec<(String, &'static str)>, Failure> {
        let mut out = Vec::new();
        let mut scan = Vec::new();
        for (source, table) in &record.inputs {
            // Recorded by a release before the frozen inputs were kept.
            let Some(f) = all.get(table) else {
                continue;
            };
            out.push((source.clone(), f.how.as_str()));
            match &f.file {
                Some(file) => {
                    if file_hash(std::path::Path::new(file))? != f.content_hash {
                        return Err(self.changed(record, source, f.how, None)?);
                    }
                }
                // Hashed as the run hashed it: a source read in place from its
                // origin (a Parquet file by its bytes), a frozen one by its rows.
                None => scan.push((
                    source.clone(),
                    match f.how {
                        How::Hash => f
                            .origin
                            .as_deref()
                            .and_then(recorded_origin)
                            .unwrap_or_else(|| Origin::table(table)),
                        _ => Origin::table(table),
                    },
                    source_rel[source].clone(),
                    f,
                )),
            }
        }
        let hashes = self.source_hashes(
            scan.iter().map(|(s, o, r, _)| (s.as_str(), o, r.as_str())),
            &Default::default(),
        )?;
        for (source, _, _, f) in &scan {
            if hashes.get(source).map(|x| &x.content) != Some(&f.content_hash) {
                return Err(self.changed(record, source, f.how, f.origin.as_deref())?);
            }
        }
        Ok(out)
    }

    /// Why a run whose input `source` no longer has the content it read
    /// cannot be replayed: for a source read in place, since when (the first
    /// later run that read other content, else the last run that read it
    /// unchanged).
    fn changed(
        &self,
        record: &RunRecord,
        source: &str,
        how: How,
        origin: Option<&str>,
    ) -> Result<Failure, Failure> {
        let id = &record.run_id;
        if how != How::Hash {
            return Ok(Failure::Environment(format!(
                "the frozen input of source '{source}' ({}) no longer has the content run {id} read; it cannot be replayed exactly",
                record.inputs[source]
            )));
        }
        let hashes = self.reader().frozen_hashes()?;
        let hash_of = |r: &RunRecord| r.inputs.get(source).and_then(|t| hashes.get(t)).cloned();
        let then = hash_of(record);
        let runs = self.reader().runs()?;
        let after: Vec<&RunRecord> = runs
            .iter()
            .skip_while(|r| &r.run_id != id)
            .filter(|r| r.inputs.contains_key(source) && !r.is_rollback())
            .collect();
        let since = match after.iter().find(|r| hash_of(r) != then) {
            Some(r) => format!("run {} read other content at {}", r.run_id, r.started_at),
            None => match after.last() {
                Some(r) => format!(
                    "it changed after {}, when run {} last read it unchanged",
                    r.started_at, r.run_id
                ),
                None => "it changed since".into(),
            },
        };
        Ok(Failure::Environment(format!(
            "cannot replay run {id}: source '{source}' ({}) was read in place (freeze = \"hash\") and no longer has the content the run read ({since}); replaying it would read other data, so nothing was run",
            origin.unwrap_or("its origin")
        )))
    }
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
