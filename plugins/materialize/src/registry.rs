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
//!     strata_materialize::registry::MaterializeCheck {
//!         name: "not-empty",
//!         order: 300,
//!         run: |cx| { /* count rows of cx.table; Err(Failure::Data(..)) to abort */ Ok(()) },
//!     }
//! }
//! ```

use strata_lang::ir;
use strata_lang::sql;

use crate::warehouse::Warehouse;
use crate::{checks, Failure, Progress};

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
    pub wh: &'a Warehouse,
    pub module: &'a ir::Module,
    pub model: &'a ir::Model,
    /// The table the model was just materialized into.
    pub table: &'a str,
    /// The relation each of the model's inputs read in this run (what a
    /// check of an input must count).
    pub relation: &'a dyn Fn(&ir::Input) -> String,
    /// The run's report lines so far (`  ok  ...`).
    pub report: &'a mut Vec<String>,
    pub progress: &'a dyn Progress,
}

/// Every registered check, in run order.
pub fn registered_checks() -> Vec<&'static MaterializeCheck> {
    let mut all: Vec<&'static MaterializeCheck> =
        inventory::iter::<MaterializeCheck>.into_iter().collect();
    all.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.name.cmp(b.name)));
    all
}

/// The contract pins of a model with a contract (LIFECYCLE.md).
fn contract_pins(cx: &mut CheckContext) -> Result<(), Failure> {
    let (m, module) = (cx.model, cx.module);
    if let Some(contract) = m
        .contract
        .as_ref()
        .and_then(|c| module.contracts.iter().find(|x| &x.name == c))
    {
        cx.progress.step(&format!("pins {}", m.name));
        checks::pins(cx.wh, m, contract, cx.table, cx.report)?;
    }
    Ok(())
}

/// The join cardinality checks of a model's annotated joins, on exactly the
/// relations it read (JOIN-CARDINALITY.md section 4).
fn join_cardinality(cx: &mut CheckContext) -> Result<(), Failure> {
    let m = cx.model;
    let join_inputs: Vec<usize> = m
        .inputs
        .iter()
        .enumerate()
        .filter(|(_, i)| i.role == ir::InputRole::Join)
        .map(|(k, _)| k)
        .collect();
    for check in sql::cardinality_checks(m) {
        cx.progress.step(&format!(
            "check {} {} {}",
            m.name,
            check.join_kind.name(),
            check.table
        ));
        let rel = (cx.relation)(&m.inputs[check.input]);
        // The join this check belongs to: the one whose input index matches
        // (right side) or the join it was derived from (left side).
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
        checks::cardinality(cx.wh, &check, &rel, join, cx.report)?;
    }
    Ok(())
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
