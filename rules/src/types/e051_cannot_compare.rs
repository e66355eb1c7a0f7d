use crate::rule;

/// Two values of incompatible types are compared.
///
/// ## What it means
///
/// `==`, `!=`, `<`, `<=`, `>`, `>=` and `in` need both sides numeric (any
/// mix of `int64`, `float64` and `decimal`) or of exactly the same type.
/// Everything else is rejected: a `date` against a `timestamp`, a `string`
/// against a number, `money(USD)` against `money(EUR)`, and `money` against
/// a plain number (`money` is not numeric for comparisons). A side of
/// unknown type (`null`) is allowed and makes the result nullable.
///
/// Two parsing facts often lead here: `not` binds tighter than comparisons,
/// so `not x > 1` means `(not x) > 1`, a `bool` compared with an `int64`
/// (write `not (x > 1)`); and comparisons chain left to right, so
/// `a < b < c` compares the `bool` `a < b` with `c`.
///
/// ## Example
///
/// ```strata
/// source shipments(ns: "logistics", dataset: "shipments") {
///   columns: { shipment_id: int64 nonnull, fee: money nonnull }
/// }
/// model pricey_shipments {
///   from shipments
///   filter fee > 100
/// }
/// ```
///
/// ## How to fix
///
/// Compare values of the same type: convert one side with `cast`, here the
/// literal to `money`:
///
/// ```strata
/// source shipments(ns: "logistics", dataset: "shipments") {
///   columns: { shipment_id: int64 nonnull, fee: money nonnull }
/// }
/// model pricey_shipments {
///   from shipments
///   filter fee > cast(100, "money")
/// }
/// ```
#[rule(E051)]
pub struct CannotCompare;
