use crate::rule;

/// An imported module file cannot be found.
///
/// ## What it means
///
/// `import a.b` loads the file `a/b.strata`. It is looked up relative to the
/// directory of the root module (also for imports inside imported files),
/// then in each search directory given on the command line, then in the
/// current directory. None of those places has the file.
///
/// ## Example
///
/// ```strata
/// import shared.calendar
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model recent_orders { from orders }
/// ```
///
/// ## How to fix
///
/// Create `shared/calendar.strata` next to the root module, pass the
/// directory that holds `shared/` as a search directory, correct the dotted
/// path, or remove an import that nothing uses:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model recent_orders { from orders }
/// ```
#[rule(E022)]
pub struct ImportNotFound;
