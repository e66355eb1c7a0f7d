use crate::rule;

/// A `rows` or `series` clause is misplaced or its series cannot be generated.
///
/// ## What it means
///
/// `rows(..) { .. }` (literal rows) and `series NAME from START to END
/// [step N UNIT]` (generated values) are a model's input: they replace its
/// `from`, so a model has one of them, first, and no `from` besides (joins,
/// filters and the other clauses may follow, as after `from`). A series
/// counts from one constant to another: its bounds cannot read a column, are
/// both `int64`, both `date` or both `timestamp`, and its step is a whole
/// number above zero, with a unit (years, quarters, months, weeks, days)
/// only for dates and timestamps.
///
/// ## Example
///
/// ```strata
/// model days {
///   series day from cast("2024-01-01", "date") to 10
/// }
/// ```
///
/// ## How to fix
///
/// Give both bounds the same type:
///
/// ```strata
/// model days {
///   series day from cast("2024-01-01", "date") to cast("2024-01-10", "date")
/// }
/// ```
#[rule(E120)]
pub struct GeneratedInputMisuse;
