use crate::rule;

/// A contract says `nonnull` but the model's value may be null.
///
/// ## What it means
///
/// A contract field is declared `nonnull` (or `primary_key`, which implies
/// it), and the model's output column can be null. A value is non-null when
/// it comes from a `nonnull` column or a non-null literal, or from an
/// expression whose inputs are all non-null; `coalesce` is non-null as soon
/// as one argument is. Columns of the right side of a `join_left` are
/// nullable in the output, whatever their source declares, since a left row
/// may have no match.
///
/// ## Example
///
/// ```strata
/// source carriers(ns: "logistics", dataset: "carriers") {
///   columns: { carrier_id: int64 nonnull, carrier_name: string }
/// }
/// contract Carrier {
///   carrier_id: int64 nonnull
///   carrier_name: string nonnull
/// }
/// model carrier_dim -> contract Carrier {
///   from carriers
/// }
/// ```
///
/// ## How to fix
///
/// Give the column a value when it is null (or drop `nonnull` from the
/// contract if null is a legitimate value):
///
/// ```strata
/// source carriers(ns: "logistics", dataset: "carriers") {
///   columns: { carrier_id: int64 nonnull, carrier_name: string }
/// }
/// contract Carrier {
///   carrier_id: int64 nonnull
///   carrier_name: string nonnull
/// }
/// model carrier_dim -> contract Carrier {
///   from carriers
///   select { carrier_id = carrier_id, carrier_name = coalesce(carrier_name, "unknown") }
/// }
/// ```
#[rule(E012)]
pub struct ContractNonnullViolated;
