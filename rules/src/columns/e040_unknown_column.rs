use crate::rule;

/// Unknown column.
///
/// ## What it means
///
/// A column reference names no column that is visible at that point of the
/// model. Models are read top to bottom, against a growing set of names:
///
/// * a **bare** name (`amount`) is looked up among the columns of the
///   `from` input and the `let`, `select`, `derive`, `aggregate` and group
///   key names defined *before* it; inside a group body, the group's
///   outputs. Columns of a joined input are **never** visible by their bare
///   name, even when no other input has that name;
/// * a **qualified** name `Q.col`, where `Q` is an input of the model (the
///   `from` input or a joined one), is looked up among that input's own
///   columns as declared (`no column 'col' in input 'Q'`); `let`s and
///   outputs do not count there. After a set operation, `Q` may also be the
///   right-hand model of the set operation.
///
/// ## Example
///
/// ```strata
/// source shipments(ns: "logistics", dataset: "shipments") {
///   columns: { shipment_id: int64 nonnull, carrier_id: int64 nonnull }
/// }
/// source carriers(ns: "logistics", dataset: "carriers") {
///   columns: { carrier_id: int64 nonnull, carrier_name: string nonnull }
/// }
/// model named_shipments {
///   from shipments
///   join_inner carriers on shipments.carrier_id == carriers.carrier_id
///   select { shipment_id = shipment_id, name = carrier_name }
/// }
/// ```
///
/// ## How to fix
///
/// Correct the spelling, define the name before it is used, or qualify a
/// joined column with its input's name:
///
/// ```strata
/// source shipments(ns: "logistics", dataset: "shipments") {
///   columns: { shipment_id: int64 nonnull, carrier_id: int64 nonnull }
/// }
/// source carriers(ns: "logistics", dataset: "carriers") {
///   columns: { carrier_id: int64 nonnull, carrier_name: string nonnull }
/// }
/// model named_shipments {
///   from shipments
///   join_inner carriers on shipments.carrier_id == carriers.carrier_id
///   select { shipment_id = shipment_id, name = carriers.carrier_name }
/// }
/// ```
#[rule(E040)]
pub struct UnknownColumn;
