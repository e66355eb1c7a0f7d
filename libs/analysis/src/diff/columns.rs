//! The changes of one node's columns: removed, renamed, retyped, made
//! nullable or non-null, flags lost or gained.

use strata_lang::ir::Column;
use strata_lang::types::Type;

use super::change::{Change, Kind};
use super::pair::{ColumnSpans, Pair};
use crate::graph::{ColumnId, NodeId, NodeKind, Read};

impl Pair<'_> {
    /// Compare the columns of one node in both versions. `renamed(old,
    /// new)` says whether a removed and an added column are one column
    /// renamed (the same type is required too).
    pub(super) fn columns(
        &self,
        out: &mut Vec<Change>,
        id: &NodeId,
        old: &[Column],
        new: &[Column],
        renamed: &dyn Fn(&str, &str) -> bool,
        spans: &ColumnSpans,
    ) {
        let mut added: Vec<&Column> = new
            .iter()
            .filter(|c| !old.iter().any(|o| o.name == c.name))
            .collect();
        for o in old {
            let readers = self.readers(id, Some(&o.name));
            let read_by = describe_readers(&readers);
            let Some(n) = new.iter().find(|n| n.name == o.name) else {
                let to = added
                    .iter()
                    .position(|a| a.ty == o.ty && renamed(&o.name, &a.name))
                    .map(|i| added.remove(i));
                if let Some(a) = to {
                    self.renames.borrow_mut().insert(
                        ColumnId {
                            node: id.clone(),
                            column: o.name.to_string(),
                        },
                        a.name.to_string(),
                    );
                }
                let (kind, detail) = match to {
                    Some(a) => (Kind::Renamed, format!("{} -> {}", o.name, a.name)),
                    None => (Kind::Removed, format!("{}: {}", o.name, o.ty)),
                };
                let mut c = self.change(id.clone(), Some(&o.name), kind, detail);
                c.old_span = Some((spans.old)(&o.name));
                c.new_span = Some(to.map_or(spans.new_decl, |a| (spans.new)(&a.name)));
                c.downstream = self.column_downstream(id, &o.name);
                c.breaking = match (&read_by, o.protected) {
                    (Some(r), _) => Some(format!("{}.{} is read by {r}", id.name, o.name)),
                    (None, true) => Some(format!("{}.{} is protected", id.name, o.name)),
                    (None, false) => None,
                };
                c.readers = readers;
                out.push(c);
                continue;
            };
            let mut push = |kind: Kind, detail: String, breaking: Option<String>| {
                let mut c = self.change(id.clone(), Some(&o.name), kind, detail);
                c.old_span = Some((spans.old)(&o.name));
                c.new_span = Some((spans.new)(&n.name));
                c.downstream = self.column_downstream(id, &o.name);
                c.breaking = breaking;
                c.readers = readers.clone();
                out.push(c);
            };
            // A column of unknown type (the new version has errors upstream)
            // cannot be compared.
            if o.ty != n.ty && n.ty != Type::Unknown {
                let breaking = match (&read_by, o.protected) {
                    _ if widens(&o.ty, &n.ty) => None,
                    (Some(r), _) => Some(format!("{}.{} is read by {r}", id.name, o.name)),
                    (None, true) => Some(format!("{}.{} is protected", id.name, o.name)),
                    (None, false) => None,
                };
                push(
                    Kind::Retyped,
                    format!("{}: {} -> {}", o.name, o.ty, n.ty),
                    breaking,
                );
            }
            if o.nullable != n.nullable {
                if n.nullable {
                    let strict: Vec<&Read> = readers
                        .iter()
                        .filter(|r| matches!(r.reader.kind, NodeKind::Contract | NodeKind::Test))
                        .collect();
                    let breaking = match strict.first() {
                        Some(r) => Some(format!(
                            "{}.{} may now be null and {} reads it",
                            id.name, o.name, r.reader
                        )),
                        None if o.protected => Some(format!("{}.{} is protected", id.name, o.name)),
                        None if id.kind == NodeKind::Contract => Some(format!(
                            "contract {} no longer promises it non-null",
                            id.name
                        )),
                        None => None,
                    };
                    push(
                        Kind::Nullable,
                        format!("{} may now be null", o.name),
                        breaking,
                    );
                } else {
                    push(Kind::Nonnull, format!("{} is now nonnull", o.name), None);
                }
            }
            let lost = lost_flags(o, n);
            let gained = lost_flags(n, o);
            if !lost.is_empty() || !gained.is_empty() {
                let mut parts = Vec::new();
                if !lost.is_empty() {
                    parts.push(format!("lost {}", lost.join(", ")));
                }
                if !gained.is_empty() {
                    parts.push(format!("gained {}", gained.join(", ")));
                }
                let breaking = if lost.is_empty() {
                    None
                } else if id.kind == NodeKind::Contract {
                    Some(format!(
                        "contract {} promises less: {}",
                        id.name,
                        lost.join(", ")
                    ))
                } else if lost.contains(&"protected") {
                    Some(format!("{}.{} is no longer protected", id.name, o.name))
                } else {
                    None
                };
                push(
                    Kind::Flags,
                    format!("{}: {}", o.name, parts.join("; ")),
                    breaking,
                );
            }
        }
        for a in added {
            out.push(self.added(
                id.clone(),
                Some(&a.name),
                format!("{}: {}", a.name, a.ty),
                (spans.new)(&a.name),
            ));
        }
    }
}

/// Whether every value of `old` fits `new` exactly: a decimal that keeps
/// its scale or more, and its integer digits or more; a float32 as a
/// float64.
fn widens(old: &Type, new: &Type) -> bool {
    match (old, new) {
        (Type::Decimal(p, s), Type::Decimal(q, t)) => t >= s && q - t >= p - s,
        (Type::Float32, Type::Float64) => true,
        _ => false,
    }
}

/// The flags `a` has and `b` has not (enum values: `b` accepting more).
fn lost_flags(a: &Column, b: &Column) -> Vec<&'static str> {
    let mut lost = Vec::new();
    if a.primary_key && !b.primary_key {
        lost.push("primary_key");
    }
    if a.unique && !b.unique {
        lost.push("unique");
    }
    if a.protected && !b.protected {
        lost.push("protected");
    }
    let accepts_more = match (&a.enum_values, &b.enum_values) {
        (Some(_), None) => true,
        (Some(x), Some(y)) => y.iter().any(|v| !x.contains(v)),
        _ => false,
    };
    if accepts_more {
        lost.push("enum values");
    }
    lost
}

/// `revenue_by_country (filter), test enriched_orders`, or `None`.
fn describe_readers(readers: &[Read]) -> Option<String> {
    let mut names: Vec<String> = Vec::new();
    for r in readers {
        let name = match r.reader.kind {
            NodeKind::Model => format!("{} ({})", r.reader.name, r.how),
            kind => format!("{} {}", kind.as_str(), r.reader.name),
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    (!names.is_empty()).then(|| names.join(", "))
}
