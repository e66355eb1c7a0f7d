use crate::rule;

/// A window frame (`rows:` / `range:`) that no engine would run as written.
///
/// ## What it means
///
/// A frame says which rows of its window a function reads, relative to the
/// current row: `rows: [-2, 0]` the two rows before and the current one,
/// `rows: [unbounded, 0]` every row up to the current one, `range: [-7, 0]`
/// the rows whose sort key is at most 7 below the current row's. It is
/// rejected:
///
/// * on a function that reads no frame: the ranking functions
///   (`row_number`, `rank`, `dense_rank`) and the offsets (`lag`, `lead`)
///   number or step through the whole partition, and engines reject a
///   frame on them (so do `bool_and`, `bool_or` and `median`, which some
///   engines cannot frame);
/// * when it starts after it ends (`rows: [1, -1]`);
/// * without a `sort:` (which rows come before the current one is
///   otherwise undefined), unless it is the whole partition
///   (`rows: [unbounded, unbounded]`); a `range:` frame always needs one;
/// * as a `range:` frame with an offset other than `0` whose window does
///   not sort by exactly one `int64` key (the offset is a distance in that
///   key).
///
/// ## Example
///
/// ```strata
/// source visits(ns: "web", dataset: "visits") {
///   columns: { visitor: string nonnull, seen_on: date nonnull, pages: int64 }
/// }
/// model numbered_visits {
///   from visits
///   select {
///     visitor = visitor,
///     nth = row_number() over (partition_by: [visitor], sort: [seen_on], rows: [unbounded, 0])
///   }
/// }
/// ```
///
/// ## How to fix
///
/// Drop the frame from a ranking or offset function; give a frame to an
/// aggregate, `first_value` or `last_value`:
///
/// ```strata
/// source visits(ns: "web", dataset: "visits") {
///   columns: { visitor: string nonnull, seen_on: date nonnull, pages: int64 }
/// }
/// model numbered_visits {
///   from visits
///   select {
///     visitor = visitor,
///     nth = row_number() over (partition_by: [visitor], sort: [seen_on]),
///     pages_so_far = sum(pages) over (partition_by: [visitor], sort: [seen_on], rows: [unbounded, 0])
///   }
/// }
/// ```
#[rule(E066)]
pub struct InvalidWindowFrame;
