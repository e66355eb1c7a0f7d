use crate::rule;

/// Unknown function.
///
/// ## What it means
///
/// The name called is not in strata's function catalog. The catalog is
/// smaller than SQL's: string functions (`upper`, `lower`, `trim`,
/// `length`, `concat`, `substring`, `replace`, `left`, `right`, ...),
/// `coalesce`, `if`, `case`, `cast`, date functions (`date_add`,
/// `date_sub`, `date_trunc`, `date_diff`), the aggregates (`count`, `sum`,
/// `avg`, `min`, `max`, `array_agg`), window functions, and array and JSON
/// functions. Function names are case-sensitive. `strata explain E059` is
/// not the place for the full list; the language reference has it.
///
/// ## Example
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// model customer_names {
///   from customers
///   select { customer_id = customer_id, name = uppercase(name) }
/// }
/// ```
///
/// ## How to fix
///
/// Call a catalog function:
///
/// ```strata
/// source customers(ns: "shop", dataset: "customers") {
///   columns: { customer_id: int64 nonnull, name: string }
/// }
/// model customer_names {
///   from customers
///   select { customer_id = customer_id, name = upper(name) }
/// }
/// ```
#[rule(E059)]
pub struct UnknownFunction;
