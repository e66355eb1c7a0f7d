use strata_codes as codes;
use strata_lang::ast::JoinKind;
use strata_lang::ir;
use strata_lang::Diagnostic;

use super::joins_reading_no_column;
use crate::rule;

/// A `join_left` whose right side nothing reads after its `on` (dead with `expect many_to_one`).
///
/// ## What it means
///
/// A left join keeps every row of the left input and adds the columns of
/// the joined (right) input. When no column of the right input is used after
/// the join (no later clause reads one, and the model's `select` does not;
/// without a `select` the joined columns are outputs, so they count), the
/// join adds nothing, and its only possible effect is on the number of rows:
/// a left row that matches several right rows comes out several times.
///
/// * With `expect many_to_one` or `expect one_to_one` each left row matches
///   at most one right row, so the join changes neither the rows nor the
///   columns: it is **dead**. (The promise is still checked at run time,
///   which is the only thing removing the join loses.)
/// * Without `expect` the join is dead when the right keys are unique, and
///   repeats rows otherwise: a join kept only to repeat rows is rarely what
///   was meant, so it is reported too, worded as what it can do.
///
/// Only `join_left` is reported here; an inner join that reads no column
/// filters rows (W008), and anti and semi joins add no columns by design.
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
/// model order_amounts {
///   owner: "analytics"
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id expect many_to_one
///   select { order_id = order_id, amount = amount }
/// }
/// ```
///
/// ## How to fix
///
/// Remove the join, or use the column it was added for:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, country: string }
/// }
/// model order_amounts {
///   owner: "analytics"
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id expect many_to_one
///   select { order_id = order_id, amount = amount, country = customers.country }
/// }
/// ```
#[rule(W007)]
pub fn left_join_reads_no_column(module: &ir::Module, out: &mut Vec<Diagnostic>) {
    for c in joins_reading_no_column(module, JoinKind::Left) {
        let (right, left) = (&c.join.input, &c.join.left_input);
        out.push(match c.join.expect {
            Some(card) => Diagnostic::new(
                &codes::W007,
                c.join.keyword_span,
                format!(
                    "dead join: no column of `{right}` is read after this join_left, and `expect {}` allows at most one match per row of `{left}`",
                    card.as_str()
                ),
            )
            .with_label("changes neither the rows nor the columns")
            .with_help(format!(
                "remove the join (only the run-time check of `expect {}` goes with it)",
                card.as_str()
            )),
            None => Diagnostic::new(
                &codes::W007,
                c.join.keyword_span,
                format!(
                    "no column of `{right}` is read after this join_left: it keeps every row of `{left}` and can only repeat the rows that match several rows of `{right}`"
                ),
            )
            .with_label("adds no column")
            .with_help(format!(
                "remove the join if each row of `{left}` matches at most one row of `{right}` (say so with `expect many_to_one` to have it checked); repeating rows through a join is rarely intended"
            )),
        });
    }
}
