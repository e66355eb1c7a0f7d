//! The scope a model is checked against: an insertion-ordered map from bare
//! names to columns, plus the inputs the model reads.

use std::sync::Arc;

use smallvec::SmallVec;

use crate::hash::FastMap as HashMap;

use crate::ir::{Column, InputKind, InputRole};
use crate::span::Span;
use crate::Name;

/// Where a scope entry's value comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Origin {
    /// Column number `column` of input number `index` (0 = the from input),
    /// unchanged.
    Input {
        index: usize,
        column: usize,
    },
    Let,
    Output,
    GroupKey,
    Expand,
    SetOp,
    /// A column of a `rows` or `series` clause.
    Generated,
}

/// One `(input, column)` pair a value is computed from, by number: input
/// `.0` of the model, column `.1` of that input's columns. Lineage names them
/// only for the model's outputs (see `ModelChecker::source_names`).
pub type Src = (u32, u32);

/// The `(input, column)` pairs a value is computed from (lineage), in
/// first-seen order, without repeats ([`merge`]). A single pair (a column
/// reference) is kept inline.
pub type Sources = SmallVec<[Src; 1]>;

/// Append the pairs of `other` that `into` does not have yet.
pub fn merge(into: &mut Sources, other: &Sources) {
    for s in other {
        if !into.contains(s) {
            into.push(*s);
        }
    }
}

/// A scope entry's column: a column of an input (shared with the input, not
/// copied) or one the model defined.
#[derive(Clone, Debug)]
pub enum EntryCol {
    /// Column number `.1` of the input columns `.0`.
    Input(Arc<Vec<Column>>, usize),
    Own(Column),
}

impl std::ops::Deref for EntryCol {
    type Target = Column;

    fn deref(&self) -> &Column {
        match self {
            EntryCol::Input(cols, i) => &cols[*i],
            EntryCol::Own(c) => c,
        }
    }
}

/// A named column in scope.
#[derive(Clone, Debug)]
pub struct Entry {
    pub col: EntryCol,
    pub origin: Origin,
    /// `(input, column)` pairs the value is computed from (lineage).
    pub sources: Sources,
    /// Lineage kind: `passthrough`, `joined`, `derived`, ...
    pub how: &'static str,
}

/// From this many names on, a scope keeps a hash index; below, a scan of the
/// names is cheaper than hashing.
pub(super) const INDEXED: usize = 32;

/// Insertion-ordered name -> entry map. Re-inserting a name overwrites the
/// entry in place (keeping its position), as the language's scope does.
#[derive(Clone, Debug, Default)]
pub struct Scope {
    /// Each entry's name.
    order: Vec<Name>,
    /// Each name's [`name_key`]: a lookup of a few names scans these.
    keys: Vec<u64>,
    /// Name -> position, once there are [`INDEXED`] names.
    index: HashMap<Name, usize>,
    entries: Vec<Entry>,
}

/// A name's length and first 7 bytes in one word: names of up to 7 bytes
/// (most column names) are equal exactly when their keys are, and longer
/// ones are compared only when their keys are.
fn name_key(name: &str) -> u64 {
    let bytes = name.as_bytes();
    let mut key = u64::from(u8::try_from(bytes.len()).unwrap_or(u8::MAX)) << 56;
    for (i, b) in bytes.iter().take(7).enumerate() {
        key |= u64::from(*b) << (8 * i);
    }
    key
}

impl Scope {
    /// The position of `name`, in insertion order.
    pub fn position(&self, name: &str) -> Option<usize> {
        if self.order.len() >= INDEXED {
            return self.index.get(name).copied();
        }
        let key = name_key(name);
        let mut from = 0;
        while let Some(i) = self.keys.get(from..)?.iter().position(|k| *k == key) {
            let at = from + i;
            if name.len() <= 7 || self.order[at] == name {
                return Some(at);
            }
            from = at + 1;
        }
        None
    }

    pub fn insert(&mut self, name: &str, entry: Entry) {
        match self.position(name) {
            Some(i) => self.entries[i] = entry,
            None => {
                let i = self.entries.len();
                let name = if entry.col.name == name {
                    entry.col.name.clone()
                } else {
                    Name::new(name)
                };
                self.keys.push(name_key(&name));
                self.order.push(name.clone());
                self.entries.push(entry);
                if self.order.len() == INDEXED {
                    self.reindex();
                } else if self.order.len() > INDEXED {
                    self.index.insert(name, i);
                }
            }
        }
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// Room for `n` more names.
    pub fn reserve(&mut self, n: usize) {
        self.order.reserve(n);
        self.keys.reserve(n);
        self.entries.reserve(n);
    }

    pub fn get(&self, name: &str) -> Option<&Entry> {
        self.position(name).map(|i| &self.entries[i])
    }

    pub fn contains(&self, name: &str) -> bool {
        self.position(name).is_some()
    }

    /// The name and entry at position `i` of the insertion order.
    pub fn at(&self, i: usize) -> (&Name, &Entry) {
        (&self.order[i], &self.entries[i])
    }

    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.order.iter().map(Name::as_str)
    }

    /// Make every name in scope nullable (after a right or full join, whose
    /// unmatched joined rows have NULL in all of them).
    pub fn make_nullable(&mut self) {
        for e in &mut self.entries {
            if !e.col.nullable {
                let mut col = (*e.col).clone();
                col.nullable = true;
                e.col = EntryCol::Own(col);
            }
        }
    }

    /// Keep only the entries whose name satisfies `keep`, in order.
    pub fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        let keep: Vec<bool> = self.names().map(keep).collect();
        retain_flagged(&mut self.order, &keep);
        retain_flagged(&mut self.keys, &keep);
        retain_flagged(&mut self.entries, &keep);
        self.reindex();
    }

    /// Rebuild the name index (kept only from [`INDEXED`] names on).
    fn reindex(&mut self) {
        self.index.clear();
        if self.order.len() >= INDEXED {
            for (i, name) in self.order.iter().enumerate() {
                self.index.insert(name.clone(), i);
            }
        }
    }
}

/// Keep the items of `list` whose flag in `keep` (parallel to it) is set.
fn retain_flagged<T>(list: &mut Vec<T>, keep: &[bool]) {
    let mut flags = keep.iter();
    list.retain(|_| flags.next().copied().unwrap_or(false));
}

/// An input (from, join or set-op operand) as the model sees it.
#[derive(Clone, Debug)]
pub struct InputState {
    /// The alias: the input's name (there is no `AS`).
    pub alias: crate::Name,
    pub kind: InputKind,
    pub role: InputRole,
    /// The input's own columns, as declared or checked upstream (shared with
    /// the declaration or the upstream model's result).
    pub columns: Arc<Vec<Column>>,
    /// An input whose columns a join made nullable: the joined side of a
    /// `join_left`/`join_full`, the earlier inputs of a `join_right`/`join_full`.
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
    /// The number of the input's column `name` (the last one of that name).
    pub fn position(&self, name: &str) -> Option<usize> {
        self.columns.iter().rposition(|c| c.name == name)
    }

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
pub fn fresh_column(name: impl Into<Name>, ty: crate::types::Type, nullable: bool) -> Column {
    Column {
        name: name.into(),
        ty,
        nullable,
        unique: false,
        primary_key: false,
        protected: false,
        enum_values: None,
        classification: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::Type;

    fn entry(col: &str) -> Entry {
        Entry {
            col: EntryCol::Own(fresh_column(col, Type::Int64, false)),
            origin: Origin::Let,
            sources: Sources::default(),
            how: "derived",
        }
    }

    /// Small scopes are scanned, large ones indexed: both behave the same,
    /// through growth, overwrites (in place) and retain.
    #[test]
    fn scan_and_index_agree() {
        for n in [3, INDEXED - 1, INDEXED, 40] {
            let mut s = Scope::default();
            for i in 0..n {
                s.insert(&format!("c{i}"), entry(&format!("c{i}")));
            }
            // A name that differs from its column's name.
            s.insert("c1", entry("other"));
            assert_eq!(s.names().count(), n);
            assert_eq!(s.names().nth(1), Some("c1"));
            assert_eq!(s.get("c1").map(|e| e.col.name.as_str()), Some("other"));
            assert!(s.contains(&format!("c{}", n - 1)) && !s.contains("nope"));
            s.retain(|name| name != "c0");
            assert_eq!(s.names().next(), Some("c1"));
            assert!(!s.contains("c0"));
            assert_eq!(
                s.get(&format!("c{}", n - 1)).map(|e| e.how),
                Some("derived")
            );
            let names: Vec<&str> = s.names().collect();
            assert_eq!(names.len(), n - 1);
        }
    }

    /// Names that share their first 7 bytes and length are told apart, and
    /// short names by their key alone.
    #[test]
    fn lookups_by_key_tell_names_apart() {
        let mut s = Scope::default();
        for name in ["customer_id", "customer_ix", "customer", "cust", "cusT", ""] {
            s.insert(name, entry(name));
        }
        for name in ["customer_ix", "customer_id", "customer", "cust", "cusT", ""] {
            assert_eq!(s.get(name).map(|e| e.col.name.as_str()), Some(name));
        }
        for name in ["customer_iz", "custome", "cus", "customer_id_", "Cust"] {
            assert!(!s.contains(name), "{name}");
        }
    }

    #[test]
    fn sources_stay_unique_in_order() {
        let mut a = Sources::new();
        a.push((0, 1));
        assert!(!a.spilled());
        let b: Sources = smallvec::smallvec![(2, 0), (0, 1)];
        merge(&mut a, &b);
        assert_eq!(a.as_slice(), &[(0, 1), (2, 0)]);
    }
}
