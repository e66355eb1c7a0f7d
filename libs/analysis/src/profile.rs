//! Where the time of compiling a module goes: parsing its files, checking
//! it, the rules over the IR, and each model's SQL for a dialect
//! (`strata profile`).

use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;
use strata_lang::sql::{self, Dialect};
use strata_lang::{Checked, LoadOptions};

use crate::compile::Relations;

/// One model's SQL lowering.
#[derive(Clone, Debug, Serialize)]
pub struct ModelSql {
    pub model: String,
    pub sql_ms: f64,
    /// Characters of SQL (0 when the model cannot be lowered).
    pub sql_chars: usize,
}

/// The compile-time phases of one module.
#[derive(Debug, Serialize)]
pub struct Profile {
    pub files: usize,
    pub models: usize,
    pub sources: usize,
    pub parse_ms: f64,
    /// Checking every model (in parallel, so not split per model).
    pub check_ms: f64,
    pub rules_ms: f64,
    pub sql: Vec<ModelSql>,
    #[serde(skip)]
    pub checked: Checked,
}

impl Profile {
    pub fn total_ms(&self) -> f64 {
        self.parse_ms
            + self.check_ms
            + self.rules_ms
            + self.sql.iter().map(|m| m.sql_ms).sum::<f64>()
    }
}

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

/// Parse, check and lower `roots` for `dialect`, timing each phase. The
/// checked module comes back with the figures (its diagnostics include
/// the rules', as `rules::check_module` gives them).
pub fn profile(roots: &[PathBuf], options: &LoadOptions, dialect: Dialect) -> Profile {
    let t = Instant::now();
    let loaded = strata_lang::load::load_files(roots, options);
    let parse_ms = ms(t);
    let files = loaded.files.len();
    let t = Instant::now();
    let mut checked = strata_lang::check::check_loaded(loaded);
    let check_ms = ms(t);
    let t = Instant::now();
    if checked.io_errors.is_empty() {
        let found = strata_rules::run_checks(&checked.module);
        checked.diagnostics.extend(found);
        strata_lang::diag::sort_diagnostics(&mut checked.diagnostics);
    }
    let rules_ms = ms(t);
    let columns = sql::ModuleColumns::of(&checked.module);
    let relations = Relations::of(&checked.module, dialect);
    let rel = |i: &strata_lang::ir::Input| relations.input(i);
    let sql = checked
        .module
        .models
        .iter()
        .map(|m| {
            let t = Instant::now();
            let text = sql::lower_model_with(&columns, m, dialect, &rel, sql::RunValues::NONE)
                .unwrap_or_default();
            ModelSql {
                model: m.name.clone(),
                sql_ms: ms(t),
                sql_chars: text.len(),
            }
        })
        .collect();
    Profile {
        files,
        models: checked.module.models.len(),
        sources: checked.module.sources.len(),
        parse_ms,
        check_ms,
        rules_ms,
        sql,
        checked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_phase_and_model_is_timed() {
        let root = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../examples/shop/shop.strata"
        ));
        let p = profile(&[root], &LoadOptions::default(), Dialect::DuckDb);
        assert!(!p.checked.has_errors(), "{:?}", p.checked.diagnostics);
        assert_eq!((p.files, p.models, p.sources), (1, 4, 3));
        let mut names: Vec<&str> = p.sql.iter().map(|m| m.model.as_str()).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "customer_cards",
                "customer_stats",
                "enriched_orders",
                "revenue_by_country"
            ]
        );
        assert!(p.sql.iter().all(|m| m.sql_chars > 0));
        assert!(p.total_ms() > 0.0);
    }
}
