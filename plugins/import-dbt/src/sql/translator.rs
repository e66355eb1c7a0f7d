//! The translator's state and the shapes it works with: the relations a
//! query level reads (`Rel`, `Scope`, `Input`), how column references
//! resolve (`Mode`, `PostMap`), and the models made so far.

use std::collections::BTreeMap;

use strata_lang::types::Type;

use super::{ColInfo, Context, Refusal, RelInfo, R};
use crate::names;
use crate::plan::{ModelPlan, SExpr};

/// A relation a query level can read: its strata name and columns.
#[derive(Clone, Debug)]
pub struct Rel {
    pub name: String,
    pub columns: Vec<ColInfo>,
}

/// The CTEs visible at a query level, innermost last.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    pub(super) ctes: Vec<(String, Rel)>,
}

impl Scope {
    pub(super) fn find(&self, name: &str) -> Option<&Rel> {
        self.ctes
            .iter()
            .rev()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, r)| r)
    }
}

/// One input of a `SELECT`: its SQL alias, its strata name, its columns.
#[derive(Clone, Debug)]
pub struct Input {
    pub alias: String,
    pub strata: String,
    pub columns: Vec<ColInfo>,
    /// Columns a `USING` join merged into an earlier input's (not repeated
    /// by `*`).
    pub merged: Vec<String>,
}

pub struct Translator<'a> {
    pub cx: &'a Context<'a>,
    pub plans: Vec<ModelPlan>,
    /// The models made here, with their columns.
    pub local: BTreeMap<String, RelInfo>,
    /// Translating a set operation's later branch, whose column names do
    /// not matter (the first branch's are kept): an expression without an
    /// alias is named by its position.
    pub(super) positional: bool,
}

/// An output of a select list: its name, its expression, its type.
pub(super) type Output = (String, SExpr, Option<Type>);

/// How column references resolve.
pub enum Mode<'m> {
    /// To the inputs' columns.
    Row,
    /// After a GROUP BY: only to the keys and aggregates of the map.
    Post(&'m PostMap),
}

/// The keys and aggregates of a grouping, by their row-level expression,
/// and the name each has after the grouping (qualified by `input` when
/// read from a helper model).
#[derive(Default, Clone, Debug)]
pub struct PostMap {
    pub keys: Vec<(SExpr, String)>,
    pub aggs: Vec<(SExpr, String)>,
    pub input: Option<String>,
}

pub(super) type Typed = (SExpr, Option<Type>);

impl<'a> Translator<'a> {
    pub fn new(cx: &'a Context<'a>) -> Translator<'a> {
        Translator {
            cx,
            plans: Vec::new(),
            local: BTreeMap::new(),
            positional: false,
        }
    }

    /// A helper name not taken yet, from `base`.
    pub(super) fn fresh(&self, base: &str) -> String {
        let free = |n: &str| {
            n != self.cx.model
                && !self.cx.taken.contains(n)
                && !self.local.contains_key(n)
                && !self.cx.known.contains_key(n)
        };
        if free(base) {
            return base.to_string();
        }
        (2..)
            .map(|i| format!("{base}_{i}"))
            .find(|n| free(n))
            .unwrap_or_else(|| base.to_string())
    }

    /// Add a finished model.
    pub(super) fn push(&mut self, mut plan: ModelPlan, columns: Vec<ColInfo>) -> R<Rel> {
        if let Some(why) = names::refusal(&plan.name) {
            return Err(Refusal::new(format!("model name: {why}"), 0));
        }
        plan.columns = columns.iter().map(|c| c.name.clone()).collect();
        self.local.insert(
            plan.name.clone(),
            RelInfo {
                columns: columns.clone(),
                is_model: true,
            },
        );
        let rel = Rel {
            name: plan.name.clone(),
            columns,
        };
        self.plans.push(plan);
        Ok(rel)
    }

    pub(super) fn relation(&self, name: &str) -> Option<&RelInfo> {
        self.local.get(name).or_else(|| self.cx.known.get(name))
    }
}
