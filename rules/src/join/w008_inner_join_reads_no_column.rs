use strata_codes as codes;
use strata_lang::ast::JoinKind;
use strata_lang::ir;
use strata_lang::Diagnostic;

use super::joins_reading_no_column;
use crate::rule;

/// A `join_inner` whose right side nothing reads after its `on`: a `join_semi` in disguise.
///
/// ## What it means
///
/// When no column of the right input is used after an inner join (no later
/// clause reads one, and the model's `select` does not), the join only
/// decides which left rows stay: those with a match.
///
/// * With `expect many_to_one` or `one_to_one` each left row matches at most
///   one right row, so the join keeps exactly the left rows that have a
///   match: that is `join_semi`, which says so and cannot multiply rows.
/// * Without `expect`, it also repeats a left row once per match, which a
///   semi join would not: a filter that also duplicates rows is rarely
///   intended.
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
/// model known_customer_orders {
///   owner: "analytics"
///   from orders
///   join_inner customers on orders.customer_id == customers.customer_id expect many_to_one
///   select { order_id = order_id, amount = amount }
/// }
/// ```
///
/// ## How to fix
///
/// Keep the rows that have a match with `join_semi` (it takes no `expect`:
/// it never multiplies rows):
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, country: string }
/// }
/// model known_customer_orders {
///   owner: "analytics"
///   from orders
///   join_semi customers on orders.customer_id == customers.customer_id
///   select { order_id = order_id, amount = amount }
/// }
/// ```
#[rule(W008)]
pub fn inner_join_reads_no_column(module: &ir::Module, out: &mut Vec<Diagnostic>) {
    for c in joins_reading_no_column(module, JoinKind::Inner) {
        let (right, left) = (&c.join.input, &c.join.left_input);
        out.push(match c.join.expect {
            Some(card) => Diagnostic::new(
                &codes::W008,
                c.join.keyword_span,
                format!(
                    "no column of `{right}` is read after this join_inner: with `expect {}` it keeps the rows of `{left}` that have a match, which is join_semi",
                    card.as_str()
                ),
            )
            .with_label("only filters rows")
            .with_help(format!(
                "write `join_semi {right} on ...` and drop `expect {}` (a semi join never multiplies rows)",
                card.as_str()
            )),
            None => Diagnostic::new(
                &codes::W008,
                c.join.keyword_span,
                format!(
                    "no column of `{right}` is read after this join_inner: it keeps the rows of `{left}` that have a match, repeated once per matching row of `{right}`"
                ),
            )
            .with_label("only filters (and may repeat) rows")
            .with_help(format!(
                "write `join_semi {right} on ...` to keep each matching row of `{left}` once"
            )),
        });
    }
}
