//! What each model of a run cost: its build time and rows, and each check's
//! time and the statements it sent to the warehouse (the engine's count,
//! `strata_engine::Connection::statements`, before and after
//! the check). A run
//! records them in its history (`state::history`); `replay RUN`,
//! `profile --run` and the run metrics show them.

use serde::{Deserialize, Serialize};

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

#[cfg(test)]
mod tests {
    use super::*;

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
