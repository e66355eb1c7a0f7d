use crate::rule;

/// A model names a contract that is not declared.
///
/// ## What it means
///
/// `model m -> contract C` refers to `C`, but the module (with its imports)
/// declares no `contract C`. Contract names are case-sensitive.
///
/// ## Example
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// contract Customer {
///   customer_id: int64 nonnull
///   name: string
/// }
/// model customer_dim -> contract Costumer {
///   from customers
/// }
/// ```
///
/// ## How to fix
///
/// Name a declared contract (or declare the one you meant, or import the
/// file that declares it):
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// contract Customer {
///   customer_id: int64 nonnull
///   name: string
/// }
/// model customer_dim -> contract Customer {
///   from customers
/// }
/// ```
#[rule(E061)]
pub struct UnknownContract;
