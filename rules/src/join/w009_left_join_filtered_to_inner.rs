use strata_codes as codes;
use strata_lang::ast::{BinOp, JoinKind, UnaryOp};
use strata_lang::ir::{self, ColumnRef, Step, TExpr, TExprKind};
use strata_lang::Diagnostic;

use super::joins_of_kind;
use crate::rule;

/// A `join_left` whose unmatched rows a later condition drops: it works as a `join_inner`.
///
/// ## What it means
///
/// A left join keeps the left rows that match no right row, with NULL in
/// every column of the right input. A later condition that cannot be true
/// when those columns are NULL drops exactly these rows, so the model gets
/// what `join_inner` gives, while its text promises to keep them. Either the
/// inner join was meant (say so), or the unmatched rows were meant to stay
/// (the condition is a bug: the classic "WHERE on the outer side" mistake).
///
/// The conditions recognised are the `filter`s after the join and the `on`
/// of a later `join_inner` or `join_semi` (which drop the left rows they
/// find no match for). A condition drops the unmatched rows when, with the
/// right input's columns NULL, it is NULL or false:
///
/// * a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`, `in`) whose operand is
///   a column of the right input, possibly inside arithmetic, `-`, `not` or
///   `cast` (NULL in, NULL out), or a boolean column of the right input;
/// * `a and b` when `a` or `b` does; `a or b` when both do.
///
/// Function calls are not looked into (`coalesce(customers.country, "")`
/// keeps the unmatched rows), so the lint reports only sure cases.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, country: string }
/// }
/// model german_orders {
///   owner: "analytics"
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id expect many_to_one
///   filter customers.country == "DE"
///   select { order_id = order_id, amount = amount, country = customers.country }
/// }
/// ```
///
/// ## How to fix
///
/// Say that only matched rows are wanted:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, country: string }
/// }
/// model german_orders {
///   owner: "analytics"
///   from orders
///   join_inner customers on orders.customer_id == customers.customer_id expect many_to_one
///   filter customers.country == "DE"
///   select { order_id = order_id, amount = amount, country = customers.country }
/// }
/// ```
///
/// Or, to keep every order and attach only German customers, move the
/// condition into the join:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, country: string }
/// }
/// model orders_with_german_customers {
///   owner: "analytics"
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id and customers.country == "DE" expect many_to_one
///   select { order_id = order_id, amount = amount, country = customers.country }
/// }
/// ```
#[rule(W009)]
pub fn left_join_filtered_to_inner(module: &ir::Module, out: &mut Vec<Diagnostic>) {
    for c in joins_of_kind(module, JoinKind::Left) {
        let dropping = c.later_steps().find_map(|(i, s)| match s {
            Step::Filter(e) if not_true_when_null(e, c.input) => Some((i, None)),
            Step::Join { join, on, .. } => {
                let later = c.model.joins.get(*join)?;
                (matches!(later.kind, JoinKind::Inner | JoinKind::Semi)
                    && on
                        .as_ref()
                        .is_some_and(|on| not_true_when_null(on, c.input)))
                .then_some((i, Some(later)))
            }
            _ => None,
        });
        let Some((step, later_join)) = dropping else {
            continue;
        };
        let right = &c.join.input;
        let left = &c.join.left_input;
        let at = c
            .model
            .step_spans
            .get(step)
            .copied()
            .unwrap_or(c.join.keyword_span);
        let (what, label) = match later_join {
            None => (
                "the filter after it drops them".to_string(),
                format!("false or NULL where `{right}` has no match"),
            ),
            Some(j) => (
                format!("the {} after it drops them", j.kind.keyword()),
                format!(
                    "finds no match where the columns of `{right}` are NULL, and drops the row"
                ),
            ),
        };
        out.push(
            Diagnostic::new(
                &codes::W009,
                c.join.keyword_span,
                format!(
                    "this join_left keeps the rows of `{left}` that match no row of `{right}`, but {what}: it works as a join_inner"
                ),
            )
            .with_label(format!("keeps unmatched rows, with NULL for the columns of `{right}`"))
            .with_secondary(at, label)
            .with_help(format!(
                "write `join_inner {right} ...` if only matched rows are wanted; to keep the unmatched rows, move the condition into the join's `on`, or make it true for NULL (e.g. with coalesce)"
            )),
        );
    }
}

/// Whether `e` is NULL whenever the columns of input `input` are NULL.
fn null_when_null(e: &TExpr, input: usize) -> bool {
    match &e.kind {
        TExprKind::Column(ColumnRef::Input { input: i, .. }) => *i == input,
        TExprKind::Unary { operand, .. } => null_when_null(operand, input),
        TExprKind::Cast { expr, .. } => null_when_null(expr, input),
        TExprKind::Binary { op, lhs, rhs } => match op {
            // NULL and false is false, NULL or true is true.
            BinOp::And | BinOp::Or => false,
            // NULL in (...) is NULL; the right side is a list.
            BinOp::In => null_when_null(lhs, input),
            _ => null_when_null(lhs, input) || null_when_null(rhs, input),
        },
        TExprKind::Lit(_) | TExprKind::Column(_) | TExprKind::Star | TExprKind::Call(_) => false,
    }
}

/// Whether the condition `e` is NULL or false whenever the columns of input
/// `input` are NULL (so a WHERE or an inner join drops the row).
fn not_true_when_null(e: &TExpr, input: usize) -> bool {
    if null_when_null(e, input) {
        return true;
    }
    match &e.kind {
        TExprKind::Binary {
            op: BinOp::And,
            lhs,
            rhs,
        } => not_true_when_null(lhs, input) || not_true_when_null(rhs, input),
        TExprKind::Binary {
            op: BinOp::Or,
            lhs,
            rhs,
        } => not_true_when_null(lhs, input) && not_true_when_null(rhs, input),
        // not (a and b) may be true when a is NULL and b false.
        TExprKind::Unary {
            op: UnaryOp::Not, ..
        } => false,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_lang::types::Type;

    fn col(input: usize) -> TExpr {
        TExpr {
            kind: TExprKind::Column(ColumnRef::Input {
                input,
                column: "c".into(),
            }),
            ty: Type::Int64,
            nullable: true,
        }
    }

    fn lit() -> TExpr {
        TExpr {
            kind: TExprKind::Lit(ir::Literal::Int(1)),
            ty: Type::Int64,
            nullable: false,
        }
    }

    fn bin(op: BinOp, lhs: TExpr, rhs: TExpr) -> TExpr {
        TExpr {
            kind: TExprKind::Binary {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            ty: Type::Bool,
            nullable: true,
        }
    }

    fn not(e: TExpr) -> TExpr {
        TExpr {
            kind: TExprKind::Unary {
                op: UnaryOp::Not,
                operand: Box::new(e),
            },
            ty: Type::Bool,
            nullable: true,
        }
    }

    #[test]
    fn three_valued_logic_decides_what_drops_unmatched_rows() {
        let right_eq = || bin(BinOp::Eq, col(1), lit());
        let left_eq = || bin(BinOp::Eq, col(0), lit());
        assert!(not_true_when_null(&right_eq(), 1));
        assert!(!not_true_when_null(&right_eq(), 0), "another input");
        assert!(not_true_when_null(&col(1), 1), "a boolean column");
        assert!(not_true_when_null(
            &bin(BinOp::Gt, bin(BinOp::Add, col(1), lit()), lit()),
            1
        ));
        assert!(not_true_when_null(&not(right_eq()), 1), "not NULL is NULL");
        assert!(not_true_when_null(
            &bin(BinOp::And, left_eq(), right_eq()),
            1
        ));
        assert!(!not_true_when_null(
            &bin(BinOp::Or, left_eq(), right_eq()),
            1
        ));
        assert!(not_true_when_null(
            &bin(BinOp::Or, right_eq(), right_eq()),
            1
        ));
        // not (x and y): NULL and false is false, so not(...) may be true.
        assert!(!not_true_when_null(
            &not(bin(BinOp::And, right_eq(), left_eq())),
            1
        ));
        assert!(!not_true_when_null(&left_eq(), 1));
    }
}
