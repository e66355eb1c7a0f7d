use crate::rule;

/// A contract `enum` or `classification` is on a column that is not a string.
///
/// ## What it means
///
/// `enum { ... }` and `classification: ...` can only describe `string`
/// columns: enum values are texts, and the membership check that runs before
/// publishing compares texts. The model's value for such a contract field
/// must therefore be a `string`.
///
/// ## Example
///
/// ```strata
/// source tickets(ns: "support", dataset: "tickets") {
///   columns: { ticket_id: int64 nonnull, priority: int64 nonnull }
/// }
/// contract Ticket {
///   ticket_id: int64 nonnull
///   priority: int64 nonnull enum {1, 2, 3}
/// }
/// model ticket_dim -> contract Ticket {
///   from tickets
///   select { ticket_id = ticket_id, priority = priority }
/// }
/// ```
///
/// ## How to fix
///
/// Output the value as a string (here, a label computed from the number) and
/// declare the enum on that string column:
///
/// ```strata
/// source tickets(ns: "support", dataset: "tickets") {
///   columns: { ticket_id: int64 nonnull, priority: int64 nonnull }
/// }
/// contract Ticket {
///   ticket_id: int64 nonnull
///   priority: string nonnull enum {LOW, MEDIUM, HIGH}
/// }
/// model ticket_dim -> contract Ticket {
///   from tickets
///   select {
///     ticket_id = ticket_id,
///     priority = case(priority == 1, "LOW", priority == 2, "MEDIUM", "HIGH")
///   }
/// }
/// ```
#[rule(E013)]
pub struct EnumOnNonString;
