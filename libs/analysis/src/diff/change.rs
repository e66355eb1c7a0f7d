//! What a diff reports: each change, its kind, and what it reaches
//! downstream.

use std::collections::BTreeSet;

use serde::Serialize;
use strata_lang::Span;

use crate::graph::{ColumnId, NodeId, NodeKind, Read};

/// What kind of change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Added,
    Removed,
    Renamed,
    Retyped,
    /// A column became nullable.
    Nullable,
    /// A column became non-null.
    Nonnull,
    /// `unique`, `primary_key`, `protected` or enum values changed.
    Flags,
    /// A model's definition changed (its columns did not).
    Definition,
    /// A join's kind (`left`, `inner`, ...) changed.
    JoinKind,
    JoinAdded,
    JoinRemoved,
    /// A join's `expect` promise changed.
    Promise,
    /// The contract a model promises changed.
    Contract,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Added => "added",
            Kind::Removed => "removed",
            Kind::Renamed => "renamed",
            Kind::Retyped => "retyped",
            Kind::Nullable => "nullable",
            Kind::Nonnull => "nonnull",
            Kind::Flags => "flags",
            Kind::Definition => "definition",
            Kind::JoinKind => "join kind",
            Kind::JoinAdded => "join added",
            Kind::JoinRemoved => "join removed",
            Kind::Promise => "promise",
            Kind::Contract => "contract",
        }
    }
}

/// Everything downstream that a change reaches.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Downstream {
    pub columns: BTreeSet<ColumnId>,
    pub models: BTreeSet<String>,
    pub contracts: BTreeSet<String>,
    pub tests: BTreeSet<String>,
}

impl Downstream {
    pub fn is_empty(&self) -> bool {
        self.models.is_empty() && self.contracts.is_empty() && self.tests.is_empty()
    }

    pub(super) fn add_node(&mut self, id: &NodeId) {
        let set = match id.kind {
            NodeKind::Model => &mut self.models,
            NodeKind::Contract => &mut self.contracts,
            NodeKind::Test => &mut self.tests,
            NodeKind::Source => return,
        };
        set.insert(id.name.clone());
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Change {
    /// The node changed (`model:enriched_orders`).
    pub node: NodeId,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    pub kind: Kind,
    /// What changed, as text: `revenue: float64 -> int64`.
    pub detail: String,
    /// Why the change breaks a consumer; `None` when it does not.
    pub breaking: Option<String>,
    pub downstream: Downstream,
    /// Where it was (old version) and is (new version), in the shared map.
    #[serde(skip)]
    pub old_span: Option<Span>,
    #[serde(skip)]
    pub new_span: Option<Span>,
    /// The old version's direct readers of what changed.
    #[serde(skip)]
    pub readers: Vec<Read>,
}

/// `2 models (a, b), contract C, 1 test (t)`.
pub fn describe_downstream(d: &Downstream) -> String {
    let part = |set: &BTreeSet<String>, one: &str, many: &str| -> Option<String> {
        let names: Vec<&str> = set.iter().map(String::as_str).collect();
        match names.len() {
            0 => None,
            1 => Some(format!("{one} {}", names[0])),
            n => Some(format!("{n} {many} ({})", names.join(", "))),
        }
    };
    [
        part(&d.models, "model", "models"),
        part(&d.contracts, "contract", "contracts"),
        part(&d.tests, "test", "tests"),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(", ")
}
