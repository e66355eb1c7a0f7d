use crate::rule;

/// A contract column is missing from the model.
///
/// ## What it means
///
/// The model declares `-> contract C`, and a field of `C` is not among the
/// model's output columns. Every contract field must be an output of the
/// model; extra outputs that the contract does not mention are allowed.
/// Strata checks the contract against the outputs, so a column that the
/// model reads but does not output does not satisfy it (the reference
/// implementation also looked at unprojected input columns).
///
/// ## Example
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, country_code: string }
/// }
/// contract Customer {
///   customer_id: int64 nonnull
///   country: string
/// }
/// model customer_dim -> contract Customer {
///   from customers
///   select { customer_id = customer_id, contry = country_code }
/// }
/// ```
///
/// ## How to fix
///
/// Output every contract field under its contract name:
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, country_code: string }
/// }
/// contract Customer {
///   customer_id: int64 nonnull
///   country: string
/// }
/// model customer_dim -> contract Customer {
///   from customers
///   select { customer_id = customer_id, country = country_code }
/// }
/// ```
#[rule(E010)]
pub struct MissingContractColumn;
