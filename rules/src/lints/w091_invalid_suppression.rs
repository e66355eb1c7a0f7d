use crate::rule;

/// A `# strata:` comment is not a suppression that strata can apply.
///
/// ## What it means
///
/// A comment whose text starts with `strata:` is a directive for `strata
/// lint`. The only directive is `allow`, with one or more lint codes, on
/// its own line directly above a `model`, `source` or `contract` (other
/// comment lines may sit between it and the declaration, blank lines may
/// not):
///
/// ```text
/// # strata: allow(W001, W002)
/// model m { ... }
/// ```
///
/// It is reported when:
///
/// * it is malformed (`# strata: allow W001`, `# strata: alow(W001)`,
///   `allow()` with no code);
/// * a code is unknown (`W01`), not a lint (`E040`: an error cannot be
///   allowed), or one of the suppression codes themselves (`W090`, `W091`:
///   set their level with `--allow` or `[lints]` instead);
/// * it is not directly above a declaration (after a blank line, at the end
///   of a line of code, inside a model's body, above a pipeline).
///
/// A suppression strata cannot apply would otherwise be silently ignored,
/// and the lint it was meant for would keep firing.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// # strata: allow(W01)
/// model big_orders {
///   owner: "analytics"
///   from orders
///   filter amount > 100
/// }
/// ```
///
/// ## How to fix
///
/// Write a known lint code:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// # strata: allow(W001)
/// model big_orders {
///   owner: "analytics"
///   from orders
///   filter amount > 100
/// }
/// ```
#[rule(W091)]
pub struct InvalidSuppression;
