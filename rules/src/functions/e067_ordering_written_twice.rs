use crate::rule;

/// Where NULLs sort, or a window's frame, is written twice.
///
/// ## What it means
///
/// A sort key (in `sort { .. }` or a window's `sort: [..]`) takes one of
/// `nulls_first` / `nulls_last`, and a window takes one `rows:` or `range:`
/// frame. A second one would silently override or contradict the first, so
/// it is an error; the first is kept and the check goes on.
///
/// ## Example
///
/// ```strata
/// source visits(ns: "web", dataset: "visits") {
///   columns: { visitor: string nonnull, seen_on: date }
/// }
/// model recent_visits {
///   from visits
///   sort { seen_on desc nulls_last nulls_first }
/// }
/// ```
///
/// ## How to fix
///
/// Keep one placement (one frame):
///
/// ```strata
/// source visits(ns: "web", dataset: "visits") {
///   columns: { visitor: string nonnull, seen_on: date }
/// }
/// model recent_visits {
///   from visits
///   sort { seen_on desc nulls_last }
/// }
/// ```
#[rule(E067)]
pub struct OrderingWrittenTwice;
