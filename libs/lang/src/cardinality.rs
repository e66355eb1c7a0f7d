//! Join cardinality at compile time: extract the keys an annotated join's
//! `on` condition equates, or say why counting keys cannot prove the promise
//! (E079: it must be an `and` of `==` using the joined side only as plain
//! columns). The result is stored in the IR and is exactly what the
//! materialize-time check counts.

use crate::ast::{BinOp, Cardinality, Expr, ExprKind, JoinClause, JoinKind};
use crate::ir::{JoinKeys, ShapeViolation};

/// What the analysis needs to know about the two sides of the join.
pub struct Sides<'a> {
    /// Alias of the model's from input.
    pub left_alias: &'a str,
    /// Alias of the joined input.
    pub right_alias: &'a str,
    /// An earlier input has the same alias, so `right.col` means that one.
    pub right_is_shadowed: bool,
    /// Whether a bare name still denotes the from input's own column (not a
    /// `let` or output that shadows it).
    pub is_plain_left_bare: &'a dyn Fn(&str) -> bool,
}

impl Sides<'_> {
    fn right_qualifier(&self, q: &str) -> bool {
        q == self.right_alias && q != self.left_alias && !self.right_is_shadowed
    }

    /// A plain column of the from input: `o.cid`, or a bare `cid` that is
    /// still the from input's column.
    fn flat_left<'e>(&self, e: &'e Expr) -> Option<&'e str> {
        match &e.kind {
            ExprKind::Column {
                qualifier: Some(q),
                name,
            } if q.name == self.left_alias => Some(&name.name),
            ExprKind::Column {
                qualifier: None,
                name,
            } if (self.is_plain_left_bare)(&name.name) => Some(&name.name),
            _ => None,
        }
    }

    /// A plain column of the joined input: `c.cid`.
    fn flat_right<'e>(&self, e: &'e Expr) -> Option<&'e str> {
        match &e.kind {
            ExprKind::Column {
                qualifier: Some(q),
                name,
            } if self.right_qualifier(&q.name) => Some(&name.name),
            _ => None,
        }
    }

    /// Whether the expression mentions the joined input anywhere.
    fn refs_right(&self, e: &Expr) -> bool {
        let mut found = false;
        e.walk(&mut |x| {
            if let ExprKind::Column {
                qualifier: Some(q), ..
            } = &x.kind
            {
                if self.right_qualifier(&q.name) {
                    found = true;
                }
            }
        });
        found
    }
}

#[derive(Default)]
struct Walk {
    pairs: Vec<(String, String)>,
    right_only: Vec<String>,
    violations: Vec<ShapeViolation>,
}

fn walk(e: &Expr, sides: &Sides, out: &mut Walk) {
    match &e.kind {
        ExprKind::Binary {
            op: BinOp::And,
            lhs,
            rhs,
            ..
        } => {
            walk(lhs, sides, out);
            walk(rhs, sides, out);
        }
        ExprKind::Binary {
            op: BinOp::Eq,
            lhs,
            rhs,
            ..
        } => {
            if let (Some(l), Some(r)) = (sides.flat_left(lhs), sides.flat_right(rhs)) {
                out.pairs.push((l.to_string(), r.to_string()));
            } else if let (Some(r), Some(l)) = (sides.flat_right(lhs), sides.flat_left(rhs)) {
                out.pairs.push((l.to_string(), r.to_string()));
            } else if let (Some(r), false) = (sides.flat_right(lhs), sides.refs_right(rhs)) {
                out.right_only.push(r.to_string());
            } else if let (false, Some(r)) = (sides.refs_right(lhs), sides.flat_right(rhs)) {
                out.right_only.push(r.to_string());
            } else if sides.refs_right(lhs) || sides.refs_right(rhs) {
                out.violations.push(ShapeViolation::Exotic { span: e.span });
            }
        }
        _ => {
            if sides.refs_right(e) {
                out.violations
                    .push(ShapeViolation::NotEquiKey { span: e.span });
            }
        }
    }
}

fn push_unique(v: &mut Vec<crate::Name>, s: &str) {
    if !v.iter().any(|x| x == s) {
        v.push(crate::Name::new(s));
    }
}

/// Analyse an annotated join (the caller has type-checked `on` cleanly).
pub fn analyze(
    join: &JoinClause,
    cardinality: Cardinality,
    sides: &Sides,
) -> Result<JoinKeys, Vec<ShapeViolation>> {
    if matches!(join.kind, JoinKind::Anti | JoinKind::Semi) {
        return Err(vec![ShapeViolation::AntiSemi]);
    }
    let Some(on) = &join.on else {
        return Err(vec![ShapeViolation::Cross]);
    };
    let mut w = Walk::default();
    walk(on, sides, &mut w);
    if !w.violations.is_empty() {
        return Err(w.violations);
    }
    let mut left = Vec::with_capacity(w.pairs.len());
    let mut right = Vec::with_capacity(w.pairs.len() + w.right_only.len());
    for (l, r) in &w.pairs {
        push_unique(&mut left, l);
        push_unique(&mut right, r);
    }
    for r in &w.right_only {
        push_unique(&mut right, r);
    }
    if right.is_empty() {
        return Err(vec![ShapeViolation::NoRightKey]);
    }
    if cardinality == Cardinality::OneToOne && w.pairs.is_empty() {
        return Err(vec![ShapeViolation::OneToOneWithoutPair]);
    }
    Ok(JoinKeys { left, right })
}
