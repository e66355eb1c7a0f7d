use crate::rule;

/// Models depend on each other in a cycle.
///
/// ## What it means
///
/// Models are checked and built upstream first: a model's inputs (its
/// `from`, its joins and its set-operation models) must be built before it.
/// Here following those inputs leads back to the starting model, so there
/// is no order in which to build them. A cycle can be long (`a` reads `b`,
/// `b` reads `c`, `c` reads `a`) or a model can read itself. The message
/// names a model on the cycle.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// model paid_orders { from order_totals }
/// model order_totals { from paid_orders }
/// ```
///
/// ## How to fix
///
/// Make the data flow one way: decide which model is upstream and have it
/// read a source (or another upstream model) instead:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, customer_id: int64, amount: float64 }
/// }
/// model paid_orders { from orders filter amount > 0 }
/// model order_totals { from paid_orders }
/// ```
#[rule(F001)]
pub struct ModelCycle;
