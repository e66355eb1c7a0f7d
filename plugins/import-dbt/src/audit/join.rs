//! One join of a `select`, judged as the walk meets it: its keys (the
//! equalities of `on` / `using`, traced to base columns), the proof that
//! the joined side cannot repeat its keys (and the from side, for
//! one_to_one), what to count on the data when there is none, and which
//! items' rows it repeats.

use sqlparser::ast::Expr;

use super::expr::{self as x, column_ref, conjuncts};
use super::shape::{Rel, Shape};
use super::walk::{resolve_name, CountOn, Found, Item, Key, Walker};

impl Walker<'_> {
    /// Audit the join of the last item of `items` onto the ones before.
    pub(super) fn join(
        &mut self,
        items: &mut [Item],
        kind: &str,
        (line, column): (usize, usize),
        on: Option<&Expr>,
        using: &[String],
        comma: bool,
    ) {
        let r = items.len() - 1;
        let id = self.joins.len();
        let mut found = Found {
            kind: kind.to_string(),
            line,
            column,
            from: items[..r].iter().map(|i| i.label.clone()).collect(),
            joined: items[r].label.clone(),
            ..Found::default()
        };
        // The key pairs: (left item, left column) and the right column.
        let mut pairs: Vec<(Option<(usize, String)>, String)> = Vec::new();
        for u in using {
            let left = resolve_name(&items[..r], None, u);
            pairs.push((left.map(|(i, n, _)| (i, n)), u.clone()));
        }
        if let Some(cond) = on {
            for c in conjuncts(cond) {
                let Some((left, right)) = x::equality(c) else {
                    // Not an equality: it only removes matches.
                    continue;
                };
                let side = |e: &Expr| -> Option<(usize, String)> {
                    let (q, n) = column_ref(e)?;
                    resolve_name(items, q.as_deref(), &n).map(|(i, n, _)| (i, n))
                };
                let (l, rr) = (side(left), side(right));
                let (mine, other, other_expr) = match (&l, &rr) {
                    (Some(a), _) if a.0 == r => (a.1.clone(), rr.clone(), right),
                    (_, Some(b)) if b.0 == r => (b.1.clone(), l.clone(), left),
                    _ => {
                        if mentions(items, r, c) && !comma {
                            found.unresolved.push(c.to_string());
                        }
                        continue;
                    }
                };
                match other {
                    Some((i, n)) if i != r => pairs.push((Some((i, n)), mine)),
                    Some(_) => found.unresolved.push(c.to_string()),
                    None if x::columns(other_expr).is_empty() || !comma => {
                        // A constant, or an expression of the from side.
                        pairs.push((None, mine));
                    }
                    None => {}
                }
            }
        }
        if comma && pairs.is_empty() && found.unresolved.is_empty() {
            found.kind = "cross (comma)".into();
        }
        let origin = |item: &Item, n: &str| {
            item.shape
                .col(n)
                .and_then(|c| c.origin)
                .map(|(rel, c)| format!("{}.{c}", rel.label()))
        };
        for (l, rcol) in &pairs {
            found.keys.push(Key {
                left: l
                    .as_ref()
                    .map(|(i, n)| format!("{}.{n}", items[*i].shown())),
                right: format!("{}.{rcol}", items[r].shown()),
                left_origin: l.as_ref().and_then(|(i, n)| origin(&items[*i], n)),
                right_origin: origin(&items[r], rcol),
            });
        }
        let right_keys: Vec<String> = pairs.iter().map(|p| p.1.clone()).collect();
        let mut rk = right_keys.clone();
        rk.sort();
        rk.dedup();
        let from_keys: Vec<(Rel, String)> = pairs
            .iter()
            .filter_map(|(l, _)| l.as_ref())
            .filter_map(|(i, n)| items[*i].shape.col(n).and_then(|c| c.origin))
            .collect();
        if matches!(kind, "semi" | "anti") {
            found.proof = Some((
                "cannot_repeat".into(),
                format!("{kind} join: keeps or drops rows, never repeats them"),
            ));
        } else if matches!(kind, "cross" | "cross (comma)") && rk.is_empty() {
            if let Some(f) = items[r].shape.proof(&[]) {
                found.proof = Some(("many_to_one".into(), format!("a single row: {}", f.why)));
            }
        } else if let Some(f) = items[r].shape.proof(&rk) {
            let one = left_unique(items, &pairs);
            found.proof = Some(match one {
                Some(w) => (
                    "one_to_one".into(),
                    format!(
                        "{} unique on ({}): {}; the from side too: {w}",
                        items[r].label,
                        f.columns.join(", "),
                        f.why
                    ),
                ),
                None => (
                    "many_to_one".into(),
                    format!(
                        "{} unique on ({}): {}",
                        items[r].label,
                        f.columns.join(", "),
                        f.why
                    ),
                ),
            });
        }
        if found.proof.is_none() && !rk.is_empty() && found.unresolved.is_empty() {
            found.count_on = count_on(&items[r].shape, &rk);
        }
        found.from_keys = from_keys;
        let proven = found.proof.is_some();
        self.joins.push(found);
        if !proven {
            for (i, item) in items.iter_mut().enumerate() {
                if i != r {
                    item.repeated_by.push(id);
                }
            }
        }
    }
}

/// Whether `e` mentions a column of item `r`.
fn mentions(items: &[Item], r: usize, e: &Expr) -> bool {
    x::columns(e).iter().any(|(q, n)| {
        resolve_name(items, q.as_deref(), n).is_some_and(|(i, _, _)| i == r)
            || q.as_deref() == Some(items[r].alias.as_str())
    })
}

/// Why the from side is unique on its keys too (one item, not repeated).
fn left_unique(items: &[Item], pairs: &[(Option<(usize, String)>, String)]) -> Option<String> {
    let lefts: Vec<&(usize, String)> = pairs.iter().filter_map(|p| p.0.as_ref()).collect();
    // The first item of the `from`: a later one (joined many_to_one) can
    // repeat its rows over the rows of the items before it.
    let first = lefts.first()?.0;
    if first != 0 || lefts.iter().any(|l| l.0 != first) || !items[first].repeated_by.is_empty() {
        return None;
    }
    let mut keys: Vec<String> = lefts.iter().map(|l| l.1.clone()).collect();
    keys.sort();
    items[first].shape.proof(&keys).map(|f| {
        format!(
            "{} unique on ({}): {}",
            items[first].label,
            f.columns.join(", "),
            f.why
        )
    })
}

/// What to count on the data for a joined side unique on `keys` or not.
fn count_on(shape: &Shape, keys: &[String]) -> Option<CountOn> {
    if let Some(rel) = &shape.pass {
        if !matches!(rel, Rel::Other { .. }) {
            let cols: Option<Vec<String>> = keys
                .iter()
                .map(|k| match shape.col(k)?.origin? {
                    (r, c) if &r == rel => Some(c),
                    _ => None,
                })
                .collect();
            if let Some(columns) = cols {
                return Some(CountOn::Relation {
                    rel: rel.clone(),
                    columns,
                });
            }
        }
    }
    let sql = shape.sql.clone()?;
    keys.iter()
        .all(|k| shape.col(k).is_some())
        .then(|| CountOn::Sql {
            sql,
            columns: keys.to_vec(),
        })
}
