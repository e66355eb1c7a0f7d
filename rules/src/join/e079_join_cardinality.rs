use strata_codes as codes;
use strata_lang::ast::Cardinality;
use strata_lang::ir::{self, ShapeViolation};
use strata_lang::Diagnostic;

use crate::rule;

/// A join's `expect many_to_one` / `expect one_to_one` cannot be checked as written.
///
/// ## What it means
///
/// `join_left`, `join_inner`, `join_right` and `join_full` can promise how many
/// rows of the joined (right) input each left row matches: `expect many_to_one` (at most one; the right
/// side's join keys are unique) or `expect one_to_one` (in addition, the left
/// side's join keys are unique). The promise is verified on the data when the
/// model is materialized, by counting duplicate key groups on each side. That is
/// only possible when the `on` condition says clearly which columns are the
/// keys, so the annotation requires this shape:
///
/// * Only `join_left`, `join_inner`, `join_right` and `join_full` take
///   `expect`. On `join_anti` and `join_semi` it is rejected before anything
///   else: they never multiply rows. On `join_cross` too: it has no keys, and
///   it multiplies rows by design (every row with every row).
/// * The `on` condition is read as conjuncts joined by `and` (only `and`; type
///   errors in it, such as E051, are reported first). Each conjunct is, with the
///   left input `orders` and the joined input `customers`:
///   * a plain left column `==` a plain right column, in either order
///     (`orders.customer_id == customers.customer_id`, or the bare
///     `customer_id` while it is still the from-input's own column): a key
///     **pair**;
///   * a plain right column `==` something that does not mention `customers` (a
///     literal, a left expression such as `upper(orders.email)`, a `let`
///     column, a column of an earlier join): a **right-only key**;
///   * anything else that mentions `customers` with `==`
///     (`customers.customer_id + 1 == orders.customer_id`,
///     `upper(customers.email) == orders.email`,
///     `customers.a == customers.b`): rejected, the right side is referenced
///     outside a clean equi-key;
///   * a conjunct that mentions `customers` with something other than `==`
///     (`>`, `!=`, `in`, `or`, `not`, a boolean call such as
///     `startswith(customers.segment, "B2B")`): rejected, not an equi-join key
///     on plain columns;
///   * a conjunct that mentions only the left side (`orders.amount > 100`):
///     ignored, it can only remove matches.
/// * There must be at least one right key (a pair or a right-only key).
/// * `one_to_one` needs at least one pair: right-only keys bound the matches of
///   a left row but say nothing about which left column must be unique.
///
/// A "plain column" is a column reference, not an expression. Keys may be
/// composite (`on orders.a == customers.a and orders.b == customers.b` counts
/// duplicates of the pair `(a, b)`).
///
/// The fix is always the same idea: **rewrite it upstream, out loud**. Compute
/// the expression, the filter or the resolved key as a column of an upstream
/// model, and join on that plain column. Declared `unique` or `primary_key`
/// flags never replace the check: data can violate them.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model orders_by_email {
///   from orders
///   join_left customers on upper(customers.email) == upper(orders.email) expect many_to_one
///   select { order_id = order_id, segment = customers.segment }
/// }
/// ```
///
/// ## How to fix
///
/// Compute the normalised e-mail as a column of an upstream model and join on
/// that column (the left side may stay an expression):
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model customers_by_email {
///   from customers
///   select { email_key = upper(email), segment = segment }
/// }
/// model orders_by_email {
///   from orders
///   join_left customers_by_email on customers_by_email.email_key == upper(orders.email) expect many_to_one
///   select { order_id = order_id, segment = customers_by_email.segment }
/// }
/// ```
///
/// ## Every failing shape and its fix
///
/// Each program below is complete: it declares the two sources it reads.
///
/// ### `expect` on an anti or semi join
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model orders_without_customer {
///   from orders
///   join_anti customers on orders.customer_id == customers.customer_id expect many_to_one
/// }
/// ```
///
/// An anti or semi join keeps or drops left rows; it never multiplies them.
/// Remove the annotation:
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model orders_without_customer {
///   from orders
///   join_anti customers on orders.customer_id == customers.customer_id
/// }
/// ```
///
/// ### `expect` on a cross join
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model order_customer_pairs {
///   from orders
///   join_cross customers expect many_to_one
/// }
/// ```
///
/// A cross join pairs every order with every customer: it has no keys to
/// count, and its fan-out is what it is for. Either keep the cross join
/// without a promise, or join on keys and promise that:
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model order_customer_pairs {
///   from orders
///   join_inner customers on orders.customer_id == customers.customer_id expect many_to_one
/// }
/// ```
///
/// ### The right side inside an expression
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model orders_by_email {
///   from orders
///   join_left customers on upper(customers.email) == upper(orders.email) expect many_to_one
/// }
/// ```
///
/// The check counts duplicates of plain columns, not of `upper(email)`. Compute
/// the key upstream and join on it:
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model customers_by_email {
///   from customers
///   select { email_key = upper(email), segment = segment }
/// }
/// model orders_by_email {
///   from orders
///   join_left customers_by_email on customers_by_email.email_key == upper(orders.email) expect many_to_one
/// }
/// ```
///
/// ### A comparison other than `==` on the right side
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model orders_with_real_customers {
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id and customers.segment != "test" expect many_to_one
/// }
/// ```
///
/// A filter on the right side belongs to the right input. Filter it upstream
/// and join on the key alone:
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model real_customers {
///   from customers
///   filter segment != "test"
/// }
/// model orders_with_real_customers {
///   from orders
///   join_left real_customers on orders.customer_id == real_customers.customer_id expect many_to_one
/// }
/// ```
///
/// ### `or` in the condition
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model orders_with_customer {
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id or orders.email == customers.email expect many_to_one
/// }
/// ```
///
/// With `or`, a left row may match through either key: there is no single key
/// to count. Resolve the key upstream, one plain join at a time, then join on
/// the resolved key:
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model orders_keyed {
///   from orders
///   join_left customers on orders.email == customers.email expect many_to_one
///   select { order_id = order_id, customer_key = coalesce(customer_id, customers.customer_id) }
/// }
/// model orders_with_customer {
///   from orders_keyed
///   join_left customers on orders_keyed.customer_key == customers.customer_id expect many_to_one
/// }
/// ```
///
/// ### `not` on the right side
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model orders_with_live_customers {
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id and not customers.is_deleted expect many_to_one
/// }
/// ```
///
/// Filter the right input upstream:
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model live_customers {
///   from customers
///   filter not is_deleted
/// }
/// model orders_with_live_customers {
///   from orders
///   join_left live_customers on orders.customer_id == live_customers.customer_id expect many_to_one
/// }
/// ```
///
/// ### A boolean call on the right side
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model b2b_orders {
///   from orders
///   join_inner customers on orders.customer_id == customers.customer_id and startswith(customers.segment, "B2B") expect many_to_one
/// }
/// ```
///
/// Filter the right input upstream:
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model b2b_customers {
///   from customers
///   filter startswith(segment, "B2B")
/// }
/// model b2b_orders {
///   from orders
///   join_inner b2b_customers on orders.customer_id == b2b_customers.customer_id expect many_to_one
/// }
/// ```
///
/// ### No key on the right side
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model orders_with_customer {
///   from orders
///   join_left customers on customer_id == customer_id expect many_to_one
/// }
/// ```
///
/// A bare name always means the from-input's column, so this compares
/// `orders.customer_id` with itself and never mentions `customers`. Qualify the
/// joined column:
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model orders_with_customer {
///   from orders
///   join_left customers on orders.customer_id == customers.customer_id expect many_to_one
/// }
/// ```
///
/// ### `one_to_one` without a left column paired with a right column
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model order_profiles {
///   from orders
///   join_left customers on customers.customer_id == coalesce(orders.customer_id, 0) expect one_to_one
/// }
/// ```
///
/// `coalesce(orders.customer_id, 0)` is a right-only key: enough for
/// `many_to_one`, but `one_to_one` must also count duplicates on the left, and
/// an expression is not a left column. Compute it upstream:
///
/// ```strata
/// source orders(ns: "shop") { columns: { order_id: int64 nonnull, customer_id: int64, email: string } }
/// source customers(ns: "shop") { columns: { customer_id: int64 nonnull, email: string, segment: string, is_deleted: bool nonnull } }
/// model orders_keyed {
///   from orders
///   select { order_id = order_id, customer_key = coalesce(customer_id, 0) }
/// }
/// model order_profiles {
///   from orders_keyed
///   join_left customers on orders_keyed.customer_key == customers.customer_id expect one_to_one
/// }
/// ```
#[rule(E079)]
pub fn join_cardinality_shape(module: &ir::Module, out: &mut Vec<Diagnostic>) {
    for model in &module.models {
        for join in &model.joins {
            if let (Some(card), Some(Err(violations))) = (join.expect, &join.shape) {
                for v in violations {
                    out.push(diagnostic(join, card, v));
                }
            }
        }
    }
}

/// The E079 diagnostic for one violation: the message stays close to the
/// reference implementation's wording; the span is the offending conjunct, or
/// the `expect` clause when the problem is the join as a whole.
fn diagnostic(join: &ir::Join, card: Cardinality, v: &ShapeViolation) -> Diagnostic {
    let c = card.as_str();
    let right = &join.input;
    let left = &join.left_input;
    let expect_span = join.expect_span.unwrap_or(join.keyword_span);
    match v {
        ShapeViolation::AntiSemi => {
            let kind = join.kind.name();
            let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
            Diagnostic::new(
                &codes::E079,
                expect_span,
                format!("expect {c} does not apply to {article} {kind} join (it never multiplies rows)"),
            )
            .with_label(format!("`expect` on a {}", join.kind.keyword()))
            .with_secondary(join.keyword_span, "this join keeps at most one row per left row")
            .with_help(format!(
                "remove `expect {c}`: only join_left, join_inner, join_right and join_full can multiply rows"
            ))
        }
        ShapeViolation::Cross => Diagnostic::new(
            &codes::E079,
            expect_span,
            format!("expect {c} does not apply to a cross join (it has no keys to count)"),
        )
        .with_label("`expect` on a join_cross")
        .with_secondary(
            join.keyword_span,
            format!("this join pairs every row with every row of `{right}`"),
        )
        .with_help(format!(
            "a cross join multiplies the rows by the size of `{right}` by design; to promise at most one match, join on keys: `join_inner {right} on {left}.k == {right}.k expect {c}`"
        )),
        ShapeViolation::Exotic { span } => Diagnostic::new(
            &codes::E079,
            *span,
            format!("expect {c} needs the right side referenced only through equi-join keys (found an exotic condition)"),
        )
        .with_label(format!("`{right}` is used here outside a plain `column == value` key"))
        .with_secondary(expect_span, "the promise that needs plain keys")
        .with_help(format!(
            "rewrite it upstream, out loud: compute this value as a column of a model that reads `{right}`, then join on that column (`{left}.k == {right}_keyed.k`)"
        )),
        ShapeViolation::NotEquiKey { span } => Diagnostic::new(
            &codes::E079,
            *span,
            format!("expect {c} needs equi-join keys on plain columns (top-level AND of col == col)"),
        )
        .with_label(format!("not an `==` key on `{right}`"))
        .with_secondary(expect_span, "the promise that needs plain keys")
        .with_help(format!(
            "join only on `==` between plain columns combined with `and`; filter `{right}` in an upstream model (or filter the joined rows with a `filter` after the join) instead"
        )),
        ShapeViolation::NoRightKey => Diagnostic::new(
            &codes::E079,
            expect_span,
            format!("expect {c} needs at least one equi-join key on {right}"),
        )
        .with_label(format!("no `{right}.<column> == ...` key in the `on` condition"))
        .with_secondary(join.keyword_span, "this join")
        .with_help(format!("add an equality on a column of `{right}`, e.g. `{left}.id == {right}.id`")),
        ShapeViolation::OneToOneWithoutPair => Diagnostic::new(
            &codes::E079,
            expect_span,
            "expect one_to_one needs at least one equi-join key pair relating a left column to a right column",
        )
        .with_label(format!("no plain `{left}` column is equated to a plain `{right}` column"))
        .with_secondary(join.keyword_span, "this join")
        .with_help(format!(
            "relate a plain column of `{left}` to one of `{right}` (`{left}.k == {right}.k`), computing the left key upstream if needed, or promise many_to_one"
        )),
    }
}
