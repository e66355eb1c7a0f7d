//! Join cardinality checks at run time, before anything is published:
//! duplicate key groups counted on exactly the relation each annotated join
//! read, with the uniqueness proofs of a run reused and an opt-in bounded
//! sample for huge relations.
//!
//! One [`Ledger`] lives for one run (`run`, `test`, `replay --execute`).
//! Every side of every annotated join goes through [`Ledger::check`], which
//! decides, in this order:
//!
//! 1. **Proven earlier in this run.** An exact pass of an earlier check, or
//!    a `unique` / `primary_key` contract pin verified on a model's output,
//!    proves "relation R is unique on keys K" (NULL keys excluded, as in the
//!    check). A later check on R whose keys include K needs no query:
//!    duplicates on a superset of K would be duplicates on K. R is the
//!    *physical* relation read in this run (a frozen input, a model's
//!    snapshot or staged table, an upstream live view), so a name shared
//!    across branches or runs never carries a proof over; a table rebuilt
//!    in the run loses its proofs. Only passes that ran are recorded, and a
//!    failure aborts the run, so a proof always precedes its reuse. A
//!    declared `unique` flag on a source proves nothing.
//! 2. **Sampled.** With a row bound N set, a relation of more than N rows
//!    is checked on the rows whose key hash falls under a threshold chosen
//!    for about N rows. The hash covers all key columns, so every row of a
//!    sampled key is in the sample and a duplicated key that is sampled is
//!    always caught. A sampled pass is reported as `sampled (n of M rows)`
//!    (M: the relation's rows; n: the sampled rows whose keys are all
//!    non-NULL, the only rows a check counts) and is *not* a proof; the
//!    same (relation, keys) sampled again in the run reuses its result (the
//!    query would be identical).
//! 3. **Counted**: the exact duplicate-group query, one aggregation.
//!
//! The sample's salt makes the hash differ between runs: see [`Sampling`].

mod count;
mod sampling;
mod summary;

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use strata_engine::{Engine, Failure};
use strata_lang::ir;
use strata_lang::sql::{self, CardinalityCheck};

use crate::Progress;
use count::failure;
pub use count::{duplicate_groups, duplicate_groups_sql, Counted};
pub use sampling::Sampling;
use summary::line;
pub use summary::{CheckResult, Outcome, ProofSource, Summary};

/// "`relation` is unique on `keys`", proven in this run.
#[derive(Clone, Debug)]
struct Proof {
    relation: String,
    keys: BTreeSet<String>,
    key_list: Vec<String>,
    by: ProofSource,
}

/// A sampled pass, reused for the same (relation, keys).
#[derive(Clone, Debug)]
struct SampledPass {
    relation: String,
    keys: BTreeSet<String>,
    rows: i64,
    bracket: String,
}

/// The cardinality state of one run: proofs, sampled passes, row counts.
#[derive(Debug, Default)]
pub struct Ledger {
    proofs: Vec<Proof>,
    samples: Vec<SampledPass>,
    rows: HashMap<String, i64>,
    summary: Summary,
}

impl Ledger {
    pub fn new(sampling: Option<Sampling>) -> Ledger {
        Ledger {
            summary: Summary {
                sampling,
                ..Summary::default()
            },
            ..Ledger::default()
        }
    }

    pub fn summary(&self) -> &Summary {
        &self.summary
    }

    pub fn into_summary(self) -> Summary {
        self.summary
    }

    /// `relation` (quoted, as SQL reads it) has `rows` rows: spares a count
    /// when sampling.
    pub fn know_rows(&mut self, relation: &str, rows: i64) {
        self.rows.insert(relation.to_string(), rows);
    }

    /// `relation` was (re)built in this run: what was proven on it before
    /// no longer holds.
    pub fn rebuilt(&mut self, relation: &str, rows: i64) {
        self.proofs.retain(|p| p.relation != relation);
        self.samples.retain(|s| s.relation != relation);
        self.know_rows(relation, rows);
    }

    /// `relation` was just built from model `m`: what its construction
    /// proves (the keys of its `group`, of its `dedup by`) holds on it.
    pub fn built_from(&mut self, relation: &str, m: &ir::Model) {
        for (keys, how) in m.unique_by_construction() {
            let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
            self.prove(relation, &keys, ProofSource::Construction(how));
        }
    }

    /// A `unique` / `primary_key` pin passed on `column` of `relation`.
    pub fn pin_passed(&mut self, relation: &str, column: &str, field: String, kind: &'static str) {
        self.prove(
            relation,
            &[column.to_string()],
            ProofSource::Pin { field, kind },
        );
    }

    fn prove(&mut self, relation: &str, keys: &[String], by: ProofSource) {
        self.proofs.push(Proof {
            relation: relation.to_string(),
            keys: keys.iter().cloned().collect(),
            key_list: keys.to_vec(),
            by,
        });
    }

    /// The earliest proof on `relation` whose keys are a subset of `keys`.
    fn proof_covering(&self, relation: &str, keys: &BTreeSet<String>) -> Option<&Proof> {
        self.proofs
            .iter()
            .find(|p| p.relation == relation && p.keys.is_subset(keys))
    }
}

/// The join cardinality checks of models against the warehouse: where
/// their report lines go, and the run's ledger of proofs (a relation and
/// keys counted once a run).
pub struct JoinChecks<'a> {
    pub wh: &'a (dyn Engine + 'a),
    pub ledger: &'a mut Ledger,
    pub report: &'a mut Vec<String>,
    pub progress: &'a dyn Progress,
}

impl JoinChecks<'_> {
    /// The rows of `relation`, counted once a run.
    fn row_count(&mut self, relation: &str) -> Result<i64, Failure> {
        if let Some(n) = self.ledger.rows.get(relation) {
            return Ok(*n);
        }
        let n = self.wh.count(&format!("SELECT COUNT(*) FROM {relation}"))?;
        self.ledger.rows.insert(relation.to_string(), n);
        Ok(n)
    }

    /// Run the cardinality checks of model `m`, whose inputs read the
    /// relations `relation` gives: per annotated join, the right side, then
    /// the left side for one_to_one.
    pub fn check_model(
        &mut self,
        m: &ir::Model,
        relation: &dyn Fn(&ir::Input) -> String,
    ) -> Result<(), Failure> {
        let progress = self.progress;
        let join_inputs: Vec<usize> = m
            .inputs
            .iter()
            .enumerate()
            .filter(|(_, i)| i.role == ir::InputRole::Join)
            .map(|(k, _)| k)
            .collect();
        for check in sql::cardinality_checks(m) {
            progress.step(&format!("check {} on {}", check.bracket(), check.table));
            let rel = relation(&m.inputs[check.input]);
            // The join this check belongs to: the one whose input index
            // matches (right side) or the join it was derived from (left
            // side).
            let join = m
                .joins
                .iter()
                .zip(join_inputs.iter())
                .find(|(j, k)| {
                    j.expect == Some(check.cardinality)
                        && j.input == check.join_input
                        && (check.left_side || **k == check.input)
                })
                .map(|(j, _)| j)
                .ok_or_else(|| {
                    Failure::Environment("internal: join of a cardinality check not found".into())
                })?;
            self.check(&check, &rel, join)?;
        }
        Ok(())
    }

    /// Settle one side of an annotated join on `relation` (quoted, exactly
    /// what the model read): reuse a proof, or run the (possibly sampled)
    /// duplicate-group query. A report line is appended on a pass; a
    /// duplicate is a data failure.
    fn check(
        &mut self,
        check: &CardinalityCheck,
        relation: &str,
        join: &ir::Join,
    ) -> Result<(), Failure> {
        let wh = self.wh;
        let keys: BTreeSet<String> = check.keys.iter().cloned().collect();
        let mut result = CheckResult {
            bracket: check.bracket(),
            cardinality: check.cardinality,
            left_side: check.left_side,
            table: check.table.clone(),
            keys: check.keys.clone(),
            outcome: Outcome::Counted,
            ms: 0.0,
        };
        if let Some(p) = self.ledger.proof_covering(relation, &keys) {
            result.outcome = Outcome::ProvenEarlier {
                by: p.by.clone(),
                keys: p.key_list.clone(),
            };
            self.report.push(line(&result));
            self.ledger.summary.results.push(result);
            return Ok(());
        }
        let sample = match self.ledger.summary.sampling {
            Some(s) => {
                let total = self.row_count(relation)?;
                let quoted: Vec<String> = check.keys.iter().map(|k| wh.ident(k)).collect();
                s.cut(u64::try_from(total).unwrap_or(0))
                    .map(|(salt, threshold)| (wh.sample_condition(&quoted, salt, threshold), total))
            }
            None => None,
        };
        if let Some((_, total)) = &sample {
            if let Some(prev) = self
                .ledger
                .samples
                .iter()
                .find(|s| s.relation == relation && s.keys == keys)
            {
                result.outcome = Outcome::Sampled {
                    rows: prev.rows,
                    of: *total,
                    reused: Some(prev.bracket.clone()),
                };
                self.report.push(line(&result));
                self.ledger.summary.results.push(result);
                return Ok(());
            }
        }
        let start = Instant::now();
        let counted = duplicate_groups(
            wh,
            &check.keys,
            relation,
            sample.as_ref().map(|s| s.0.as_str()),
        );
        result.ms = start.elapsed().as_secs_f64() * 1000.0;
        self.ledger.summary.queries_executed += 1;
        let counted = counted?;
        let sampled = sample.map(|(_, total)| (counted.rows, total));
        if counted.groups > 0 {
            self.ledger.summary.results.push(result);
            return Err(failure(check, join, &counted, sampled, self.report));
        }
        match sampled {
            Some((rows, of)) => {
                result.outcome = Outcome::Sampled {
                    rows,
                    of,
                    reused: None,
                };
                self.ledger.samples.push(SampledPass {
                    relation: relation.to_string(),
                    keys,
                    rows,
                    bracket: check.bracket(),
                });
            }
            None => self.ledger.prove(
                relation,
                &check.keys,
                ProofSource::Check {
                    bracket: check.bracket(),
                    left_side: check.left_side,
                },
            ),
        }
        self.report.push(line(&result));
        self.ledger.summary.results.push(result);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{DataFailure, NoProgress, Target};
    use std::time::Duration;

    fn module(src: &str) -> ir::Module {
        let checked = strata_lang::check_text("m.strata", src);
        assert!(!checked.has_errors(), "{:?}", checked.diagnostics);
        checked.module
    }

    fn warehouse(sql: &str) -> Box<strata_engine::Warehouse> {
        let wh = match strata_engine::open(
            &Target::DuckDb(":memory:".into()),
            strata_engine::Lock {
                wait: Duration::from_secs(1),
                relation: crate::state::schema::LOCK,
            },
        ) {
            Ok(wh) => wh,
            Err(e) => panic!("open: {e:?}"),
        };
        exec(&*wh, sql);
        wh
    }

    fn exec(wh: &dyn Engine, sql: &str) {
        if let Err(e) = wh.exec(sql) {
            panic!("{sql}: {e:?}");
        }
    }

    /// Check every model of `m` in order, each input reading the table of
    /// its own name; the report, or the failure.
    fn check_all(
        wh: &dyn Engine,
        m: &ir::Module,
        ledger: &mut Ledger,
    ) -> Result<Vec<String>, Box<DataFailure>> {
        let mut report = Vec::new();
        for model in &m.models {
            let relation = |i: &ir::Input| wh.ident(&i.name);
            let mut checks = JoinChecks {
                wh,
                ledger,
                report: &mut report,
                progress: &NoProgress,
            };
            match checks.check_model(model, &relation) {
                Ok(()) => {}
                Err(Failure::Data(d)) => return Err(d),
                Err(e) => panic!("{e:?}"),
            }
        }
        Ok(report)
    }

    const DIMS: &str = r#"
source facts(ns: "a") { columns: { id: int64, k: int64, j: string } }
source dims(ns: "a") { columns: { k: int64 primary_key, j: string, label: string } }
"#;

    fn joins(lines: &[&str]) -> String {
        let mut src = DIMS.to_string();
        for (i, on) in lines.iter().enumerate() {
            src.push_str(&format!(
                "model m{i} {{ from facts join_left dims on {on} expect many_to_one select {{ id = id, label = dims.label }} }}\n"
            ));
        }
        src
    }

    const TABLES: &str =
        "CREATE TABLE facts AS SELECT i AS id, i % 10 AS k, 'x' AS j FROM range(100) r(i);
        CREATE TABLE dims AS SELECT i AS k, 'x' AS j, 'l' || i AS label FROM range(10) r(i);";

    #[test]
    fn one_query_for_the_same_relation_and_keys() {
        let m = module(&joins(&[
            "facts.k == dims.k",
            "dims.k == facts.k",
            "facts.k == dims.k and facts.id > 3",
        ]));
        let wh = warehouse(TABLES);
        let mut ledger = Ledger::new(None);
        let report = check_all(&*wh, &m, &mut ledger).unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(ledger.summary().queries_executed, 1);
        assert_eq!(ledger.summary().proven_earlier(), 2);
        assert_eq!(
            report,
            [
                "  ok  m0 left dims: many_to_one (dims unique on k)",
                "  ok  m1 left dims: many_to_one (dims unique on k, proven earlier in this run by check [m0 left dims])",
                "  ok  m2 left dims: many_to_one (dims unique on k, proven earlier in this run by check [m0 left dims])",
            ]
        );
    }

    #[test]
    fn a_proof_on_a_subset_covers_a_superset_but_not_the_reverse() {
        let m = module(&joins(&[
            "facts.k == dims.k and facts.j == dims.j",
            "facts.k == dims.k",
            "facts.j == dims.j and facts.k == dims.k",
            "facts.k == dims.k and facts.j == dims.label",
        ]));
        let wh = warehouse(TABLES);
        let mut ledger = Ledger::new(None);
        let report = check_all(&*wh, &m, &mut ledger).unwrap_or_else(|d| panic!("{d:?}"));
        // (k, j) proves nothing about k alone: m1 counts; (j, k) is the
        // set m0 proved.
        assert_eq!(ledger.summary().queries_executed, 2);
        assert_eq!(
            report[1],
            "  ok  m1 left dims: many_to_one (dims unique on k)"
        );
        assert_eq!(
            report[2],
            "  ok  m2 left dims: many_to_one (dims unique on j, k, proven earlier in this run by check [m0 left dims])"
        );
        assert_eq!(
            report[3],
            "  ok  m3 left dims: many_to_one (dims unique on k, label, proven earlier in this run by check [m1 left dims] on k)"
        );
    }

    /// Check model `m` of `src` (which joins `agg` on `k`) after `agg` was
    /// "built" as the DuckDB table `agg`: the report and queries executed.
    fn after_building_agg(src: &str) -> (Vec<String>, usize) {
        let m = module(&format!("{DIMS}{src}"));
        let wh = warehouse(&format!(
            "{TABLES} CREATE TABLE agg AS SELECT k, COUNT(*) AS n, k AS kk FROM facts GROUP BY k;"
        ));
        let mut ledger = Ledger::new(None);
        let agg = m.models.iter().find(|x| x.name == "agg").expect("agg");
        ledger.built_from("\"agg\"", agg);
        let report = check_all(&*wh, &m, &mut ledger).unwrap_or_else(|d| panic!("{d:?}"));
        (report, ledger.summary().queries_executed)
    }

    #[test]
    fn a_relation_grouped_or_deduplicated_on_the_keys_needs_no_query() {
        let join = "model m { from facts join_left agg on facts.k == agg.k expect many_to_one select { id = id, n = agg.n } }";
        let grouped = format!(
            "model agg {{ from facts group {{ k }} ( aggregate {{ n = count() }} ) filter n > 0 sort {{ k }} }}\n{join}"
        );
        let (report, queries) = after_building_agg(&grouped);
        assert_eq!(queries, 0);
        assert_eq!(
            report,
            ["  ok  m left agg: many_to_one (agg unique on k, by its group keys)"]
        );
        // A key kept under a new name is still unique.
        let renamed = "model agg { from facts group { j } ( aggregate { n = count() } ) select { k = j, n = n } }\n\
            model m { from facts join_left agg on facts.j == agg.k expect many_to_one select { id = id, n = agg.n } }";
        let (report, queries) = after_building_agg(renamed);
        assert_eq!(
            (queries, report[0].contains("by its group keys")),
            (0, true),
            "{report:?}"
        );
        let dedup =
            format!("model agg {{ from facts select {{ k = k, n = id }} dedup by k }}\n{join}");
        let (report, queries) = after_building_agg(&dedup);
        assert_eq!(
            (queries, report),
            (
                0,
                vec!["  ok  m left agg: many_to_one (agg unique on k, by its dedup)".to_string()]
            )
        );
        // A join after the group can repeat a key; a group on more keys
        // proves nothing about one of them; a declared flag is no proof.
        for src in [
            "model agg { from facts group { k } ( aggregate { n = count() } ) join_left dims on k == dims.k select { k = k, n = n } }",
            "model agg { from facts group { k, j } ( aggregate { n = count() } ) select { k = k, n = n } }",
            "model agg { from facts group { k } ( aggregate { n = count() } ) select { k = n, n = n } }",
        ] {
            let (report, queries) = after_building_agg(&format!("{src}\n{join}"));
            assert_eq!(queries, 1, "{src}: {report:?}");
        }
    }

    #[test]
    fn a_pin_proves_a_declared_flag_does_not_and_a_rebuild_forgets() {
        let m = module(&joins(&["facts.k == dims.k"]));
        let wh = warehouse(TABLES);
        // `dims` declares k primary_key: declared only, so the check counts.
        let mut ledger = Ledger::new(None);
        check_all(&*wh, &m, &mut ledger).unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(ledger.summary().queries_executed, 1);
        // A verified pin on the same relation and column proves it.
        let mut ledger = Ledger::new(None);
        ledger.pin_passed("\"dims\"", "k", "dims.k".into(), "primary_key");
        let report = check_all(&*wh, &m, &mut ledger).unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(ledger.summary().queries_executed, 0);
        assert_eq!(
            report,
            ["  ok  m0 left dims: many_to_one (dims unique on k, proven earlier in this run by pin dims.k: primary_key)"]
        );
        // ... on another relation it does not; and a rebuilt table loses it.
        let mut ledger = Ledger::new(None);
        ledger.pin_passed("\"dims_old\"", "k", "dims.k".into(), "unique");
        ledger.pin_passed("\"dims\"", "k", "dims.k".into(), "unique");
        ledger.rebuilt("\"dims\"", 10);
        check_all(&*wh, &m, &mut ledger).unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(ledger.summary().queries_executed, 1);
    }

    #[test]
    fn a_duplicate_is_found_after_a_proof_on_another_relation() {
        let m = module(&joins(&["facts.k == dims.k"]));
        let wh = warehouse(&format!(
            "{TABLES} INSERT INTO dims VALUES (3, 'y', 'again');"
        ));
        let mut ledger = Ledger::new(None);
        ledger.pin_passed("\"facts\"", "k", "facts.k".into(), "unique");
        let d = check_all(&*wh, &m, &mut ledger).expect_err("a duplicate");
        assert!(
            d.diagnostic.message.starts_with(
                "join cardinality FAILED [m0 left dims]: expected many_to_one but dims has 1 duplicate key groups (k)"
            ),
            "{}",
            d.diagnostic.message
        );
        assert_eq!(ledger.summary().queries_executed, 1);
    }

    #[test]
    fn a_sampled_pass_is_not_a_proof_and_small_relations_stay_exact() {
        let m = module(&joins(&[
            "facts.k == dims.k",
            "facts.k == dims.k",
            "facts.k == dims.k and facts.j == dims.j",
        ]));
        let wh = warehouse(
            "CREATE TABLE facts AS SELECT i AS id, i AS k, 'x' AS j FROM range(10) r(i);
             CREATE TABLE dims AS SELECT i AS k, 'x' AS j, 'l' || i AS label FROM range(1000) r(i);",
        );
        let mut ledger = Ledger::new(Some(Sampling::seeded(100, "t")));
        let report = check_all(&*wh, &m, &mut ledger).unwrap_or_else(|d| panic!("{d:?}"));
        // m0 samples; m1 has the same (relation, keys): the same sample, no
        // query, still `sampled`; m2's superset is not covered by a sample.
        assert_eq!(ledger.summary().queries_executed, 2);
        assert_eq!(ledger.summary().sampled(), 3);
        assert_eq!(ledger.summary().proven_earlier(), 0);
        assert!(
            report.iter().all(|l| l.starts_with("  sampled (")),
            "{report:?}"
        );
        assert!(report[1].ends_with(", in the sample already checked by [m0 left dims])"));
        // A bound at least the relation's size: exact, and a proof.
        let mut ledger = Ledger::new(Some(Sampling::seeded(1000, "t")));
        let report = check_all(&*wh, &m, &mut ledger).unwrap_or_else(|d| panic!("{d:?}"));
        assert_eq!(
            report[0],
            "  ok  m0 left dims: many_to_one (dims unique on k)"
        );
        assert_eq!(ledger.summary().queries_executed, 1);
    }

    /// The acceptance test of bounded sampling: on a 20,000-row dimension
    /// sampled at 2,000 rows, with 200 salts, a duplicate planted on a key
    /// the sample contains is always found, the sample holds about 2,000
    /// rows, and a duplicate planted on a fixed key is found by about a
    /// tenth of the salts (each salt samples different keys).
    #[test]
    fn a_duplicate_on_a_sampled_key_is_always_found() {
        let src = format!(
            "{DIMS}model m {{ from facts join_left dims on facts.k == dims.k and facts.j == dims.j expect many_to_one select {{ id = id }} }}\n"
        );
        let m = module(&src);
        let wh = warehouse(
            "CREATE TABLE facts AS SELECT 1 AS id, 1 AS k, 'a' AS j;
             CREATE TABLE base AS SELECT i AS k, CAST(i % 7 AS VARCHAR) AS j, 'l' || i AS label FROM range(20000) r(i);
             INSERT INTO base VALUES (NULL, 'n', 'null keys are never checked'), (NULL, 'n', 'again');",
        );
        let total = 20_003u64; // with the planted row
        let keys = [wh.ident("k"), wh.ident("j")];
        let mut fixed_key_caught = 0;
        for seed in 0..200 {
            let sampling = Sampling::seeded(2000, &format!("seed {seed}"));
            let (salt, threshold) = sampling.cut(total).expect("sampled");
            let cond = wh.sample_condition(&keys, salt, threshold);
            let in_sample = wh
                .rows(&format!(
                    "SELECT k, j FROM base WHERE k IS NOT NULL AND {cond} ORDER BY hash(k) LIMIT 1 OFFSET {}",
                    seed % 50
                ))
                .expect("sample");
            let (k, j) = match in_sample.first() {
                Some(r) => (
                    r[0].clone().unwrap_or_default(),
                    r[1].clone().unwrap_or_default(),
                ),
                None => panic!("seed {seed}: empty sample"),
            };
            // A duplicate on a sampled key: always found.
            exec(
                &*wh,
                &format!(
                    "CREATE OR REPLACE TABLE dims AS SELECT * FROM base; INSERT INTO dims VALUES ({k}, '{j}', 'planted')"
                ),
            );
            let mut ledger = Ledger::new(Some(sampling));
            let d = check_all(&*wh, &m, &mut ledger)
                .err()
                .unwrap_or_else(|| panic!("seed {seed}: the duplicate on k={k}, j={j} was missed"));
            let msg = &d.diagnostic.message;
            assert!(
                msg.contains("has 1 duplicate key groups (k, j) in a sample of "),
                "{msg}"
            );
            assert!(
                msg.ends_with(&format!(" of {total} rows (there may be more)")),
                "{msg}"
            );
            let rows: u64 = msg
                .split(" in a sample of ")
                .nth(1)
                .and_then(|r| r.split(' ').next())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0);
            assert!(
                (1500..=2500).contains(&rows),
                "seed {seed}: {rows} rows sampled"
            );
            let notes: Vec<&str> = d.diagnostic.notes.iter().map(String::as_str).collect();
            assert!(
                notes.contains(&format!("e.g. k={k}, j={j} (2 rows)").as_str()),
                "{notes:?}"
            );
            // A duplicate on key 12345: found iff the salt samples it.
            exec(
                &*wh,
                "CREATE OR REPLACE TABLE dims AS SELECT * FROM base; INSERT INTO dims VALUES (12345, '4', 'planted')",
            );
            let sampled = wh
                .count(&format!(
                    "SELECT COUNT(*) FROM dims WHERE k = 12345 AND j = '4' AND {cond}"
                ))
                .expect("count");
            let mut ledger = Ledger::new(Some(sampling));
            let found = check_all(&*wh, &m, &mut ledger).is_err();
            assert_eq!(found, sampled == 2, "seed {seed}");
            fixed_key_caught += usize::from(found);
        }
        // 2,000 of 20,003 rows: about 20 of 200 salts sample key 12345.
        assert!(
            (5..=45).contains(&fixed_key_caught),
            "{fixed_key_caught} of 200 salts caught the fixed key"
        );
    }
}
