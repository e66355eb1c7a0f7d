use crate::rule;

/// A JSON key or path is not in the supported form.
///
/// ## What it means
///
/// * `json_get(j, key)` and `json_value(j, key)` take a single key: a
///   literal key must be a simple identifier (`[A-Za-z_][A-Za-z0-9_]*`), not
///   a dotted path;
/// * `json_build(k1, v1, ...)` keys must be string literals of that form;
/// * `json_path(j, path)` takes a string literal path: `$` followed by
///   `.name` and `[n]` steps. Recursive descent (`..`), filters, wildcards
///   (`[*]`) and quoted keys are not supported.
///
/// ## Example
///
/// ```strata
/// source events(ns: "app", dataset: "events") {
///   columns: { event_id: int64 nonnull, payload: json }
/// }
/// model event_users {
///   from events
///   select { event_id = event_id, user_id = json_value(payload, "user.id") }
/// }
/// ```
///
/// ## How to fix
///
/// Use `json_path` to reach nested values, or a single simple key:
///
/// ```strata
/// source events(ns: "app", dataset: "events") {
///   columns: { event_id: int64 nonnull, payload: json }
/// }
/// model event_users {
///   from events
///   select { event_id = event_id, user = json_path(payload, "$.user.id") }
/// }
/// ```
#[rule(E074)]
pub struct InvalidJsonKey;
