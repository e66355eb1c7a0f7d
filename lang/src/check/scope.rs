//! The scope a model is checked against: an insertion-ordered map from bare
//! names to columns, plus the inputs the model reads.

use std::collections::HashMap;

use crate::ir::{Column, InputKind, InputRole};
use crate::span::Span;

/// Where a scope entry's value comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// Column `name` of input number `index` (0 = the from input), unchanged.
    Input {
        index: usize,
        name: String,
    },
    Let,
    Output,
    GroupKey,
    Expand,
    SetOp,
}

/// A named column in scope.
#[derive(Clone, Debug)]
pub struct Entry {
    pub col: Column,
    pub origin: Origin,
    /// `(input, column)` pairs the value is computed from (lineage).
    pub sources: Vec<(String, String)>,
    /// Lineage kind: `passthrough`, `joined`, `derived`, ...
    pub how: &'static str,
}

/// Insertion-ordered name -> entry map. Re-inserting a name overwrites the
/// entry in place (keeping its position), as the language's scope does.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    order: Vec<String>,
    index: HashMap<String, usize>,
    entries: Vec<Entry>,
}

impl Scope {
    pub fn insert(&mut self, name: &str, entry: Entry) {
        match self.index.get(name) {
            Some(&i) => self.entries[i] = entry,
            None => {
                self.index.insert(name.to_string(), self.entries.len());
                self.order.push(name.to_string());
                self.entries.push(entry);
            }
        }
    }

    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.index.get(name).map(|&i| &self.entries[i])
    }

    pub fn contains(&self, name: &str) -> bool {
        self.index.contains_key(name)
    }

    /// Names and entries in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Entry)> {
        self.order
            .iter()
            .map(String::as_str)
            .zip(self.entries.iter())
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.order.iter().map(String::as_str)
    }

    /// Keep only the entries whose name satisfies `keep`, in order.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        let old = std::mem::take(self);
        for (name, entry) in old.order.into_iter().zip(old.entries) {
            if keep(&name) {
                self.insert(&name, entry);
            }
        }
    }
}

/// An input (from, join or set-op operand) as the model sees it.
#[derive(Clone, Debug)]
pub struct InputState {
    /// The alias: the input's name (there is no `AS`).
    pub alias: String,
    pub kind: InputKind,
    pub role: InputRole,
    /// The input's own columns, as declared or checked upstream.
    pub columns: Vec<Column>,
    /// Right side of a `join_left`: its columns become nullable.
    pub nullable_side: bool,
    /// Right side of a `join_semi`/`join_anti` after its `on` condition:
    /// it filters rows but contributes no columns.
    pub condition_only: bool,
    /// The input's schema is incomplete (its own check failed): unknown
    /// columns on it are not reported again.
    pub poisoned: bool,
    pub span: Span,
}

impl InputState {
    pub fn column(&self, name: &str) -> Option<Column> {
        self.columns.iter().rev().find(|c| c.name == name).map(|c| {
            let mut c = c.clone();
            if self.nullable_side {
                c.nullable = true;
            }
            c
        })
    }
}

/// A fresh column with only a type and a nullability (no flags).
pub fn fresh_column(name: &str, ty: crate::types::Type, nullable: bool) -> Column {
    Column {
        name: name.to_string(),
        ty,
        nullable,
        unique: false,
        primary_key: false,
        protected: false,
        enum_values: None,
        classification: None,
    }
}
