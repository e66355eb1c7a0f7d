//! What each model of a run cost: its build time and rows, and each check's
//! time and the statements it sent to the warehouse (counted by
//! [`Counted`], a warehouse that counts what passes through it). A run
//! records them in its history (`state::history`); `replay RUN`,
//! `profile --run` and the run metrics show them.

use std::cell::Cell;

use serde::{Deserialize, Serialize};
use strata_engine::{Capabilities, Engine, Failure, Origin, Rows, Warehouse};
use strata_lang::sql::Dialect;
use strata_lang::types::Type;

/// One check of one model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CheckTiming {
    /// The registered check (`contract-pins`, `join-cardinality`, ...).
    pub check: String,
    pub ms: f64,
    /// Statements and queries it sent to the warehouse.
    pub queries: usize,
}

/// One model of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelTiming {
    pub model: String,
    /// Building its table (0 when an existing snapshot was reused).
    pub build_ms: f64,
    pub rows: i64,
    pub checks: Vec<CheckTiming>,
}

impl ModelTiming {
    /// Build and checks together.
    pub fn total_ms(&self) -> f64 {
        self.build_ms + self.checks_ms()
    }

    pub fn checks_ms(&self) -> f64 {
        self.checks.iter().map(|c| c.ms).sum()
    }

    pub fn check_queries(&self) -> usize {
        self.checks.iter().map(|c| c.queries).sum()
    }
}

/// A run's timings as recorded: its wall time and each model's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Timings {
    pub total_ms: f64,
    pub models: Vec<ModelTiming>,
}

impl Timings {
    /// The models, most expensive first.
    pub fn by_cost(&self) -> Vec<&ModelTiming> {
        let mut v: Vec<&ModelTiming> = self.models.iter().collect();
        v.sort_by(|a, b| b.total_ms().total_cmp(&a.total_ms()));
        v
    }
}

/// Milliseconds since `t`.
pub fn ms_since(t: std::time::Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// A warehouse that counts the statements and queries sent through it.
pub struct Counted<'a> {
    inner: &'a Warehouse,
    n: Cell<usize>,
}

impl<'a> Counted<'a> {
    pub fn new(inner: &'a Warehouse) -> Counted<'a> {
        Counted {
            inner,
            n: Cell::new(0),
        }
    }

    pub fn count_so_far(&self) -> usize {
        self.n.get()
    }

    fn add(&self, k: usize) {
        self.n.set(self.n.get() + k);
    }
}

impl Engine for Counted<'_> {
    fn dialect(&self) -> Dialect {
        self.inner.dialect()
    }
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn exec(&self, sql: &str) -> Result<(), Failure> {
        self.add(1);
        self.inner.exec(sql)
    }
    fn rows(&self, sql: &str) -> Result<Rows, Failure> {
        self.add(1);
        self.inner.rows(sql)
    }
    fn rows_each(&self, queries: &[String]) -> Result<Vec<Rows>, Failure> {
        self.add(queries.len());
        self.inner.rows_each(queries)
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    fn begin(&self) -> Result<(), Failure> {
        self.inner.begin()
    }
    fn commit(&self) -> Result<(), Failure> {
        self.inner.commit()
    }
    fn rollback(&self) {
        self.inner.rollback()
    }
    fn relation_exists(&self, name: &str) -> Result<bool, Failure> {
        self.add(1);
        self.inner.relation_exists(name)
    }
    fn table_exists(&self, table: &strata_engine::TableName) -> Result<bool, Failure> {
        self.add(1);
        self.inner.table_exists(table)
    }
    fn columns(&self, relation: &str) -> Result<Vec<(String, String)>, Failure> {
        self.add(1);
        self.inner.columns(relation)
    }
    fn columns_each(&self, relations: &[String]) -> Result<Vec<Vec<(String, String)>>, Failure> {
        self.add(relations.len());
        self.inner.columns_each(relations)
    }
    fn compatible(&self, ty: &Type, physical: &str) -> bool {
        self.inner.compatible(ty, physical)
    }
    fn read(&self, source: &str, origin: &Origin) -> Result<String, Failure> {
        self.inner.read(source, origin)
    }
    fn first_unconvertible(
        &self,
        relation: &str,
        column: &str,
        ty: &Type,
    ) -> Result<Option<(String, Option<String>)>, Failure> {
        self.add(1);
        self.inner.first_unconvertible(relation, column, ty)
    }
    fn replace_table(&self, table: &str, select: &str) -> Result<Option<i64>, Failure> {
        self.add(1);
        self.inner.replace_table(table, select)
    }
    fn replace_view(&self, view: &str, relation: &str) -> Result<(), Failure> {
        self.add(1);
        self.inner.replace_view(view, relation)
    }
    fn replace_views(&self, views: &[(String, String)]) -> Result<(), Failure> {
        self.add(views.len());
        self.inner.replace_views(views)
    }
    fn hash_sum(&self, alias: &str) -> String {
        self.inner.hash_sum(alias)
    }
    fn sample_condition(&self, keys: &[String], salt: u64, threshold: u64) -> String {
        self.inner.sample_condition(keys, salt, threshold)
    }
    fn top_groups_json(&self, key_texts: &[String], filter: Option<&str>) -> String {
        self.inner.top_groups_json(key_texts, filter)
    }
    fn relation_bytes(&self, table: &str) -> Result<Option<i64>, Failure> {
        self.add(1);
        self.inner.relation_bytes(table)
    }
    fn ident(&self, name: &str) -> String {
        self.inner.ident(name)
    }
    fn string(&self, value: &str) -> String {
        self.inner.string(value)
    }
    fn text(&self, sql: &str) -> String {
        self.inner.text(sql)
    }
    fn count(&self, sql: &str) -> Result<i64, Failure> {
        self.add(1);
        self.inner.count(sql)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_statement_is_counted_once() {
        let wh = strata_engine::DuckDb::open(":memory:", std::time::Duration::ZERO)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let c = Counted::new(&wh);
        c.exec("CREATE TABLE t AS SELECT 1 AS x").expect("exec");
        assert_eq!(c.count("SELECT COUNT(*) FROM t").expect("count"), 1);
        c.rows_each(&["SELECT 1".into(), "SELECT 2".into()])
            .expect("rows");
        assert!(c.relation_exists("t").expect("exists"));
        assert_eq!(c.count_so_far(), 5);
    }

    #[test]
    fn models_sort_by_cost() {
        let t = Timings {
            total_ms: 10.0,
            models: vec![
                ModelTiming {
                    model: "a".into(),
                    build_ms: 1.0,
                    ..Default::default()
                },
                ModelTiming {
                    model: "b".into(),
                    build_ms: 1.0,
                    rows: 3,
                    checks: vec![CheckTiming {
                        check: "join-cardinality".into(),
                        ms: 4.0,
                        queries: 1,
                    }],
                },
            ],
        };
        let names: Vec<&str> = t.by_cost().iter().map(|m| m.model.as_str()).collect();
        assert_eq!(names, ["b", "a"]);
        assert_eq!(t.models[1].total_ms(), 5.0);
    }
}
