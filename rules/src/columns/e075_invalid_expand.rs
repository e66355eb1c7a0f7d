use crate::rule;

/// `expand` is used on something it cannot unnest.
///
/// ## What it means
///
/// `expand xs` turns each element of the array column `xs` into its own row
/// (`expand xs as x` keeps `xs` and adds the element column `x`; the element
/// column is always nullable). It is rejected when:
///
/// * `xs` is not a column of the `from` input as declared (joined, `let` and
///   output columns do not qualify), or is not a one-dimensional array
///   (`array(T)` where `T` is not itself an array);
/// * the model has no `from`, or already has an `expand` (at most one per
///   model);
/// * it is inside a group body;
/// * the `as` name collides with another column of the `from` input.
///
/// An `expand` after a set operation is E076.
///
/// ## Example
///
/// ```strata
/// source posts(ns: "blog", dataset: "posts") {
///   columns: { post_id: int64 nonnull, tags: array(string) }
/// }
/// model post_tags {
///   from posts
///   expand post_id
/// }
/// ```
///
/// ## How to fix
///
/// Expand the array column of the `from` input:
///
/// ```strata
/// source posts(ns: "blog", dataset: "posts") {
///   columns: { post_id: int64 nonnull, tags: array(string) }
/// }
/// model post_tags {
///   from posts
///   expand tags as tag
///   select { post_id = post_id, tag = tag }
/// }
/// ```
#[rule(E075)]
pub struct InvalidExpand;
