use crate::rule;

/// A value in a fixture row does not fit its column.
///
/// ## What it means
///
/// Each value of a `given` or `expect rows` row fills the column at its
/// position in the column list, and must be a value of that column's type:
///
/// | column | values |
/// |---|---|
/// | `int64` | an integer (`-3`, `1_000`) |
/// | `float64` | a number (`2`, `2.5`) |
/// | `decimal(p,s)`, `money` | a number with at most `s` (money: 2) decimal places and `p - s` digits before the point |
/// | `string` | a string (`"a \"b\"\n"`) |
/// | `bool` | `true`, `false` |
/// | `date` | `"YYYY-MM-DD"` |
/// | `timestamp` | `"YYYY-MM-DD HH:MM[:SS[.ffffff]]"` (or with `T`), no time zone |
/// | `uuid` | `"123e4567-e89b-12d3-a456-426614174000"` |
/// | `json` | a string holding JSON: `"{\"a\": 1}"` |
/// | `array(T)` | a list of `T` values: `[1, 2]` |
///
/// `null` fits every column except one that is never null: a source or
/// contract column declared `nonnull` (or `primary_key`), or a model output
/// the checker proves non-null. Such data cannot exist, so a test of it
/// would prove nothing.
///
/// ## Example
///
/// ```strata
/// source payments(ns: "shop", dataset: "payments") {
///   columns: { id: int64 nonnull, paid_on: date, amount: decimal(10, 2) }
/// }
/// model recent { from payments filter paid_on >= cast("2024-01-01", "date") }
/// test recent "payments from 2024 on" {
///   given payments(id, paid_on, amount) {
///     ("1", "2024-02-30", 9.999)
///     (null, "2023-12-31", 5)
///   }
///   expect rows(id) { (1) }
/// }
/// ```
///
/// ## How to fix
///
/// Write each value in its column's type:
///
/// ```strata
/// source payments(ns: "shop", dataset: "payments") {
///   columns: { id: int64 nonnull, paid_on: date, amount: decimal(10, 2) }
/// }
/// model recent { from payments filter paid_on >= cast("2024-01-01", "date") }
/// test recent "payments from 2024 on" {
///   given payments(id, paid_on, amount) {
///     (1, "2024-02-29", 9.99)
///     (2, "2023-12-31", 5)
///   }
///   expect rows(id) { (1) }
/// }
/// ```
#[rule(E113)]
pub struct FixtureValueMismatch;
