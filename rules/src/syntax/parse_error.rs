use crate::rule;

/// The text is not a valid strata program.
///
/// ## What it means
///
/// The lexer or the parser could not read the module. The message says what
/// was expected and what was found, for example
/// `unexpected token '=' in model body` or
/// `expected join cardinality many_to_one or one_to_one but found ID 'one_to_many'`.
///
/// Common causes, which often come from SQL habits:
///
/// * `=` used for comparison: strata compares with `==` (`=` only appears
///   in assignments such as `select { x = a }`);
/// * a keyword or type keyword used as a name (`date`, `string`, `by`,
///   `all`, `test`, `group`...): these can never be column, model or source
///   names;
/// * a character that is not part of the language (`'`, `@`, `&`, `?`,
///   backtick), an unterminated string, or an unterminated `/* ...` comment;
/// * a word after a join's `expect` other than `many_to_one` or `one_to_one`;
/// * a source without its parentheses (`source s { ... }`): write
///   `source s() { ... }`;
/// * a `;` in a model body, or a clause other than `filter`, `aggregate`,
///   `sort` and `take` inside a `group { ... } ( ... )` body.
///
/// ## Example
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, status: string }
/// }
/// model open_orders {
///   from orders
///   filter status = "open"
/// }
/// ```
///
/// ## How to fix
///
/// Write the program as the message asks; here, compare with `==`:
///
/// ```strata
/// source orders(ns: "shop", dataset: "orders") {
///   columns: { order_id: int64 nonnull, status: string }
/// }
/// model open_orders {
///   from orders
///   filter status == "open"
/// }
/// ```
#[rule(ParseError)]
pub struct ParseError;
