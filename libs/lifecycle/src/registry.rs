//! The checks the materializer runs on each model right after building it,
//! before anything is published: a registry that plugin crates submit to
//! through `inventory`, as rules and commands register. The built-in ones
//! (contract pins, then join cardinality) are registered here like any
//! other; a failing check aborts the run and nothing is published.
//!
//! A plugin crate adds a check by depending on `strata-materialize` and
//! `inventory`:
//!
//! ```text
//! inventory::submit! {
//!     strata_lifecycle::registry::MaterializeCheck {
//!         name: "not-empty",
//!         order: 300,
//!         run: |cx| { /* count rows of cx.table; Err(Failure::Data(..)) to abort */ Ok(()) },
//!     }
//! }
//! ```

use strata_lang::ir;

use strata_engine::{Engine, Failure};

use crate::cardinality::{JoinChecks, Ledger};
use crate::Progress;

/// A check of one freshly built model.
pub struct MaterializeCheck {
    /// What the check is (`contract-pins`, `join-cardinality`).
    pub name: &'static str,
    /// Checks run in ascending order (built-ins: 100 pins, 200 join
    /// cardinality); ties by name.
    pub order: u32,
    /// Check the model; report lines go to `report`, a failure aborts the run.
    pub run: fn(&mut CheckContext) -> Result<(), Failure>,
}

inventory::collect!(MaterializeCheck);

/// What a check sees of the model it checks.
pub struct CheckContext<'a> {
    /// The warehouse (what the check sends is counted by the engine:
    /// `Connection::statements`).
    pub wh: &'a (dyn Engine + 'a),
    pub module: &'a ir::Module,
    pub model: &'a ir::Model,
    /// The table the model was just materialized into.
    pub table: &'a str,
    /// The relation each of the model's inputs read in this run (what a
    /// check of an input must count).
    pub relation: &'a dyn Fn(&ir::Input) -> String,
    /// The run's report lines so far (`  ok  ...`).
    pub report: &'a mut Vec<String>,
    /// The run's uniqueness proofs: what was counted or pinned earlier in
    /// this run, so that a (relation, keys) is counted once.
    pub ledger: &'a mut Ledger,
    pub progress: &'a dyn Progress,
}

/// Every registered check, in run order.
pub fn registered_checks() -> Vec<&'static MaterializeCheck> {
    let mut all: Vec<&'static MaterializeCheck> =
        inventory::iter::<MaterializeCheck>.into_iter().collect();
    all.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.name.cmp(b.name)));
    all
}

/// The contract pins of a model with a contract: column types, `nonnull`,
/// `enum`, `unique`/`primary_key`, checked on its output before publishing.
fn contract_pins(cx: &mut CheckContext) -> Result<(), Failure> {
    let (m, module) = (cx.model, cx.module);
    if let Some(contract) = m
        .contract
        .as_ref()
        .and_then(|c| module.contracts.iter().find(|x| &x.name == c))
    {
        cx.progress.step(&format!("pins {}", m.name));
        let table = cx.wh.ident(cx.table);
        for (column, kind) in cx.pins(contract)? {
            let field = format!("{}.{column}", m.name);
            cx.ledger.pin_passed(&table, &column, field, kind);
        }
    }
    Ok(())
}

/// The join cardinality checks of a model's annotated joins, on exactly the
/// relations it read: the right side, and for `one_to_one` the left too.
fn join_cardinality(cx: &mut CheckContext) -> Result<(), Failure> {
    JoinChecks {
        wh: cx.wh,
        ledger: cx.ledger,
        report: cx.report,
        progress: cx.progress,
    }
    .check_model(cx.model, cx.relation)
}

inventory::submit! {
    MaterializeCheck { name: "contract-pins", order: 100, run: contract_pins }
}

inventory::submit! {
    MaterializeCheck { name: "join-cardinality", order: 200, run: join_cardinality }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_checks_are_registered_pins_first() {
        let names: Vec<&str> = registered_checks().iter().map(|c| c.name).collect();
        assert_eq!(names, ["contract-pins", "join-cardinality"]);
    }
}
