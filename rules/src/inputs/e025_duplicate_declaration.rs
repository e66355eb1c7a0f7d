use crate::rule;

/// The same name is declared twice.
///
/// ## What it means
///
/// Two top-level declarations of the same kind (two sources, two contracts,
/// two domains or two models) have the same name, in one file or across
/// imported files. Every later declaration is reported, pointing
/// at the first one. This code is specific to this implementation: the
/// reference implementation keeps the first declaration and silently ignores
/// the others, so an edit to the second copy has no effect there. Several
/// `test` blocks for the same model are not duplicates; their checks add up.
///
/// The same holds inside a declaration for the keys that can be given once:
/// a source's `columns:` and a pipeline's `models:` and `env:` (the `env:`
/// after the pipeline's name counts). The first is kept and each later one
/// is reported; `strata fmt` leaves such a file as it is rather than drop
/// one of them.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model big_orders { from orders filter amount > 100 }
/// model big_orders { from orders filter amount > 1000 }
/// ```
///
/// ## How to fix
///
/// Keep one declaration, or give each its own name:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, amount: float64 }
/// }
/// model big_orders { from orders filter amount > 100 }
/// model huge_orders { from orders filter amount > 1000 }
/// ```
#[rule(E025)]
pub struct DuplicateDeclaration;
