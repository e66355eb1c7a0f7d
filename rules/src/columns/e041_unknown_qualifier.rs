use crate::rule;

/// A column is qualified by a name that is not an input of the model.
///
/// ## What it means
///
/// In `Q.col`, `Q` must be the name of one of the model's inputs: the
/// `from` input, a joined input, or the right-hand model of a set
/// operation. Strata has no `AS` aliases: an input is always qualified by
/// its own name.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model order_amounts {
///   from orders
///   select { order_id = o.order_id, amount = amount }
/// }
/// ```
///
/// ## How to fix
///
/// Qualify with the input's name, or use the bare name for a column of the
/// `from` input:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model order_amounts {
///   from orders
///   select { order_id = orders.order_id, amount = amount }
/// }
/// ```
#[rule(E041)]
pub struct UnknownQualifier;
