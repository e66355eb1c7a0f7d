use crate::rule;

/// Arithmetic on types that do not support it, or mixed currencies.
///
/// ## What it means
///
/// The operator has no meaning for the operand types:
///
/// * `+ - * / %` work on numbers (`int64`, `float64`, `decimal`); `/`
///   always gives `float64`;
/// * `money` adds, subtracts and takes the remainder only with `money` of
///   the **same currency**, may be multiplied by a number, and divided only
///   by `money` (giving `float64`): `money + 1` is an error, and so is
///   mixing `money(USD)` with `money(EUR)` (`currency mismatch`);
/// * `||` and `+` concatenate two strings;
/// * there is no arithmetic on `date`, `timestamp`, `bool` and the other
///   types (use `date_add`, `date_diff`, ...).
///
/// ## Example
///
/// ```strata
/// source invoices(ns: "billing", dataset: "invoices") {
///   columns: { invoice_id: int64 nonnull, total: money nonnull }
/// }
/// model charged_invoices {
///   from invoices
///   select { invoice_id = invoice_id, charged = total + 5 }
/// }
/// ```
///
/// ## How to fix
///
/// Make both operands the same kind of value, here by casting the literal to
/// `money`:
///
/// ```strata
/// source invoices(ns: "billing", dataset: "invoices") {
///   columns: { invoice_id: int64 nonnull, total: money nonnull }
/// }
/// model charged_invoices {
///   from invoices
///   select { invoice_id = invoice_id, charged = total + cast(5, "money") }
/// }
/// ```
#[rule(E053)]
pub struct UnsupportedOperation;
