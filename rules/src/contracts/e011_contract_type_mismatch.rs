use crate::rule;

/// A model column's type does not satisfy its contract.
///
/// ## What it means
///
/// The inferred type of an output column is not compatible with the type its
/// contract field declares. Compatible means exactly equal (parameters
/// included: `money(EUR)` is not `money(USD)`, `decimal(10,2)` is not
/// `decimal(12,2)`), with one widening: an `int64` value satisfies any
/// numeric contract type (`int64`, `float64`, `decimal(p,s)`). Nothing else
/// widens: `float64` does not satisfy `decimal`, `int64` does not satisfy
/// `money`, and a value of unknown type (a bare `null`) satisfies nothing.
///
/// ## Example
///
/// ```strata
/// source payments(ns: "shop", dataset: "payments") {
///   columns: { payment_id: int64 nonnull, amount: float64 nonnull }
/// }
/// contract Payment {
///   payment_id: int64 nonnull
///   amount: decimal(12, 2) nonnull
/// }
/// model payment_facts -> contract Payment {
///   from payments
///   select { payment_id = payment_id, amount = amount }
/// }
/// ```
///
/// ## How to fix
///
/// Make the contract state the type the model really produces, or convert
/// the value in the model (`cast(x, "int64")`, ...) so that it has the
/// contract's type:
///
/// ```strata
/// source payments(ns: "shop", dataset: "payments") {
///   columns: { payment_id: int64 nonnull, amount: float64 nonnull }
/// }
/// contract Payment {
///   payment_id: int64 nonnull
///   amount: float64 nonnull
/// }
/// model payment_facts -> contract Payment {
///   from payments
///   select { payment_id = payment_id, amount = amount }
/// }
/// ```
#[rule(E011)]
pub struct ContractTypeMismatch;
