//! Joins and their cardinality annotations: the E079 shape rule and the join
//! lints, which share the question "what reads the joined input after the
//! join?".

pub mod e079_join_cardinality;
pub mod w007_left_join_reads_no_column;
pub mod w008_inner_join_reads_no_column;
pub mod w009_left_join_filtered_to_inner;

use strata_lang::ast::JoinKind;
use strata_lang::ir::{self, ColumnRef, Step};

/// One join clause of a checked model.
pub(crate) struct JoinClause<'m> {
    pub model: &'m ir::Model,
    /// Index of the join's step in `model.steps`.
    pub step: usize,
    /// Index of the joined input in `model.inputs`.
    pub input: usize,
    pub join: &'m ir::Join,
}

impl JoinClause<'_> {
    /// The steps after the join, with their index.
    pub fn later_steps(&self) -> impl Iterator<Item = (usize, &Step)> {
        self.model.steps.iter().enumerate().skip(self.step + 1)
    }

    /// Whether a column of the joined input is read after the join: by a
    /// later clause (a filter, a let, an output, a group key, a sort key,
    /// the `on` of a later join) or as an output of the passthrough. Its own
    /// `on` condition does not count.
    pub fn right_read_after(&self) -> bool {
        self.later_steps()
            .any(|(_, s)| s.exprs().iter().any(|e| e.reads_input(self.input)))
            || self
                .model
                .output_refs
                .iter()
                .any(|r| matches!(r, ColumnRef::Input { input, .. } if *input == self.input))
    }
}

/// The joins of the given kind whose joined input nothing reads after them.
pub(crate) fn joins_reading_no_column(
    module: &ir::Module,
    kind: JoinKind,
) -> impl Iterator<Item = JoinClause<'_>> {
    joins_of_kind(module, kind).filter(|c| !c.right_read_after())
}

/// Every join of the models that checked without errors, with the given kind.
pub(crate) fn joins_of_kind(
    module: &ir::Module,
    kind: JoinKind,
) -> impl Iterator<Item = JoinClause<'_>> {
    module
        .models
        .iter()
        .filter(|m| m.ok)
        .flat_map(|m| {
            m.steps
                .iter()
                .enumerate()
                .filter_map(move |(step, s)| match s {
                    Step::Join { input, join, .. } => m.joins.get(*join).map(|j| JoinClause {
                        model: m,
                        step,
                        input: *input,
                        join: j,
                    }),
                    _ => None,
                })
        })
        .filter(move |c| c.join.kind == kind)
}
