//! `#[rule(CODE)]`: documents a strata diagnostic code and registers it in
//! the rule registry of the `strata-rules` crate.
//!
//! ```text
//! /// Unknown column.
//! ///
//! /// ## What it means
//! /// ...
//! #[rule(E040)]
//! pub struct UnknownColumn;
//!
//! /// The model has no `owner:`.
//! #[rule(W002)]
//! pub fn model_without_owner(module: &strata_lang::ir::Module, out: &mut Vec<strata_lang::Diagnostic>) {}
//!
//! /// A code that a rule crate declares itself (`pub const W020: Code = ...`).
//! #[rule(crate::W020)]
//! pub fn join_could_promise_many_to_one(module: &strata_lang::ir::Module, out: &mut Vec<strata_lang::Diagnostic>) {}
//! ```
//!
//! The argument is the code's constant: a bare name is a built-in code of
//! `strata-codes` (`E040` is `::strata_codes::E040`), a path names a code
//! declared elsewhere (`crate::W020`). The code's name, severity, phase and
//! default level are the constant's; only its documentation is written
//! here, as the doc comment.
//!
//! On a `struct` the rule documents a code that the parser, the checker or
//! the materializer emits; on a `fn` it is also a check over the typed IR.
//! Either way the item is kept and an `::inventory::submit!` of a
//! `::strata_rules::Rule` is emitted beside it, so a crate using the macro
//! depends on `strata-rules`, `strata-rules-macros` and `inventory` (and on
//! `strata-codes` for a bare name).
//!
//! The argument and the doc comment are validated at compile time; the
//! validation is plain functions over parsed syntax ([`RuleArgs::from_args`],
//! [`doc_text`]) so that it is unit-tested here without a compile-fail
//! harness.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, Item, Lit, LitStr, MetaNameValue, Token};

/// Document and register a rule. See the crate documentation.
#[proc_macro_attribute]
pub fn rule(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = TokenStream2::from(item);
    match expand(attr.into(), item.clone()) {
        Ok(tokens) => tokens.into(),
        // Keep the item so that its uses do not add errors of their own.
        Err(err) => {
            let err = err.to_compile_error();
            quote!(#item #err).into()
        }
    }
}

fn expand(attr: TokenStream2, item: TokenStream2) -> syn::Result<TokenStream2> {
    let args = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(attr)?;
    let args = RuleArgs::from_args(args.into_iter().collect())?;
    let item: Item = syn::parse2(item)?;
    let (attrs, check) = match &item {
        Item::Struct(s) => (&s.attrs, None),
        Item::Fn(f) => (&f.attrs, Some(&f.sig.ident)),
        other => {
            return Err(syn::Error::new(
                other.span(),
                "#[rule] goes on a `struct` (a code that the parser, checker or \
                 materializer emits) or on a `fn` (a check over the typed IR)",
            ))
        }
    };
    let doc = doc_text(attrs, item_ident_span(&item))?;
    Ok(registration(&item, &args, &doc, check))
}

fn item_ident_span(item: &Item) -> Span {
    match item {
        Item::Struct(s) => s.ident.span(),
        Item::Fn(f) => f.sig.ident.span(),
        other => other.span(),
    }
}

fn registration(
    item: &Item,
    args: &RuleArgs,
    doc: &str,
    check: Option<&syn::Ident>,
) -> TokenStream2 {
    let code = args.code_path();
    let doc = LitStr::new(doc, Span::call_site());
    let check = match check {
        Some(f) => quote!(::core::option::Option::Some(#f)),
        None => quote!(::core::option::Option::None),
    };
    quote! {
        #item
        ::inventory::submit! {
            ::strata_rules::Rule::new(&#code, #doc, #check)
        }
    }
}

/// The validated argument of `#[rule(...)]`: the path of the code's
/// constant, as written.
pub(crate) struct RuleArgs {
    pub(crate) code: syn::Path,
}

impl std::fmt::Debug for RuleArgs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let code = &self.code;
        f.debug_struct("RuleArgs")
            .field("code", &quote!(#code).to_string())
            .finish()
    }
}

/// What a wrong argument is told to write instead.
const USAGE: &str = "write the code's constant: `#[rule(E040)]` for a built-in code, \
                     `#[rule(crate::W020)]` for one the crate declares itself";

impl RuleArgs {
    /// Validate the arguments: exactly one, the path of a constant. Every
    /// problem is reported (the errors are combined), each at the argument
    /// it is about; a missing argument is reported at the attribute.
    pub(crate) fn from_args(args: Vec<Expr>) -> syn::Result<RuleArgs> {
        let mut errors = Errors::default();
        let mut paths = Vec::new();
        for arg in &args {
            match arg {
                Expr::Path(p)
                    if p.qself.is_none()
                        && p.attrs.is_empty()
                        && p.path.segments.iter().all(|s| s.arguments.is_none()) =>
                {
                    paths.push(p.path.clone())
                }
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => errors.push(
                    s.span(),
                    format!(
                        "the code is its constant, not a string: write `#[rule({})]`",
                        s.value()
                    ),
                ),
                Expr::Assign(a) => errors.push(
                    a.span(),
                    format!(
                        "#[rule] takes no `key = value` arguments: a code's name, severity, \
                         phase and level are declared with the code (in strata-codes for a \
                         built-in code); {USAGE}"
                    ),
                ),
                other => errors.push(other.span(), format!("expected a code; {USAGE}")),
            }
        }
        if args.is_empty() {
            errors.push(Span::call_site(), format!("missing the code; {USAGE}"));
        }
        if let [_, extra, ..] = args.as_slice() {
            errors.push(
                extra.span(),
                "a rule documents exactly one code: give each code its own #[rule] \
                 (and its own file)"
                    .to_string(),
            );
        }
        errors.finish()?;
        match paths.pop() {
            Some(code) => Ok(RuleArgs { code }),
            // Unreachable: no argument was reported above.
            None => Err(syn::Error::new(Span::call_site(), "incomplete #[rule]")),
        }
    }

    /// The constant's path in the expansion: a bare name is a built-in code
    /// of `strata-codes`; any other path is used as written.
    fn code_path(&self) -> TokenStream2 {
        let code = &self.code;
        match code.get_ident() {
            Some(ident) => quote!(::strata_codes::#ident),
            None => quote!(#code),
        }
    }
}

/// Accumulates errors so that one compile shows every problem.
#[derive(Default)]
struct Errors(Option<syn::Error>);

impl Errors {
    fn push(&mut self, span: Span, message: String) {
        self.add(syn::Error::new(span, message));
    }

    fn add(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    fn finish(self) -> syn::Result<()> {
        self.0.map_or(Ok(()), Err)
    }
}

/// The item's doc comment as text: `#[doc]` lines joined with newlines, the
/// one leading space that `/// ` leaves stripped, trailing blank lines
/// removed. Its first line, the summary, must not be blank.
pub(crate) fn doc_text(attrs: &[Attribute], item_span: Span) -> syn::Result<String> {
    let mut lines = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("doc")) {
        let text = match &attr.meta {
            syn::Meta::NameValue(MetaNameValue {
                value:
                    Expr::Lit(ExprLit {
                        lit: Lit::Str(s), ..
                    }),
                ..
            }) => s.value(),
            _ => {
                return Err(syn::Error::new(
                    attr.span(),
                    "a rule's documentation must be written as `///` doc comments",
                ))
            }
        };
        for line in text.split('\n') {
            let line = line.strip_suffix('\r').unwrap_or(line);
            lines.push(line.strip_prefix(' ').unwrap_or(line).to_owned());
        }
    }
    let first = lines.iter().position(|l| !l.trim().is_empty());
    let last = lines.iter().rposition(|l| !l.trim().is_empty());
    match (first, last) {
        (Some(first), Some(last)) if first == 0 => Ok(lines[first..=last].join("\n")),
        (Some(_), _) => Err(syn::Error::new(
            item_span,
            "the first line of a rule's doc comment is its summary and must not be blank",
        )),
        _ => Err(syn::Error::new(
            item_span,
            "a rule needs a doc comment: a one-line summary (shown by `strata rules`), \
             then what the code means, a failing example and the fix (shown by `strata explain`)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(text: &str) -> syn::Result<RuleArgs> {
        let parsed = Punctuated::<Expr, Token![,]>::parse_terminated
            .parse_str(text)
            .map_err(|e| syn::Error::new(e.span(), format!("test input does not parse: {e}")))?;
        RuleArgs::from_args(parsed.into_iter().collect())
    }

    fn error_of(text: &str) -> String {
        match args(text) {
            Ok(a) => panic!("expected an error for `{text}`, got {a:?}"),
            Err(e) => e
                .into_iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n"),
        }
    }

    fn path_of(text: &str) -> String {
        let a = args(text).unwrap_or_else(|e| panic!("`{text}` is valid: {e}"));
        a.code_path().to_string()
    }

    #[test]
    fn a_bare_name_is_a_built_in_code() {
        assert_eq!(path_of("E040"), ":: strata_codes :: E040");
        assert_eq!(path_of("ParseError"), ":: strata_codes :: ParseError");
        // A trailing comma is allowed, as in any Rust argument list.
        assert_eq!(path_of("W002,"), ":: strata_codes :: W002");
    }

    #[test]
    fn a_path_is_used_as_written() {
        assert_eq!(path_of("crate::W020"), "crate :: W020");
        assert_eq!(path_of("::strata_codes::E040"), ":: strata_codes :: E040");
        assert_eq!(path_of("my_codes::W021"), "my_codes :: W021");
    }

    #[test]
    fn the_code_is_a_constant_not_a_string() {
        let err = error_of(r#""E040""#);
        assert!(
            err.contains("the code is its constant, not a string: write `#[rule(E040)]`"),
            "{err}"
        );
    }

    #[test]
    fn the_old_key_value_arguments_are_explained() {
        let err = error_of(r#"code = "E040", name = "unknown-column", severity = error"#);
        let told = err
            .lines()
            .filter(|l| l.contains("takes no `key = value` arguments"))
            .count();
        assert_eq!(told, 3, "{err}");
        assert!(err.contains("declared with the code"), "{err}");
        assert!(err.contains("`#[rule(E040)]`"), "{err}");
    }

    #[test]
    fn other_expressions_are_not_codes() {
        for bad in ["E040::<u8>", "1", "E040 + 1", "f()", "<T as X>::E040"] {
            let err = error_of(bad);
            assert!(err.contains("expected a code"), "{bad}: {err}");
        }
    }

    #[test]
    fn exactly_one_code() {
        let err = error_of("");
        assert!(err.contains("missing the code"), "{err}");
        let err = error_of("E040, E041");
        assert!(err.contains("a rule documents exactly one code"), "{err}");
        assert!(!err.contains("missing the code"), "{err}");
    }

    #[test]
    fn every_problem_is_reported_at_once() {
        let err = error_of(r#""E040", name = "x", 1"#);
        assert!(err.contains("not a string"), "{err}");
        assert!(err.contains("takes no `key = value` arguments"), "{err}");
        assert!(err.contains("expected a code"), "{err}");
        assert!(err.contains("exactly one code"), "{err}");
    }

    fn doc_of(item: &str) -> syn::Result<String> {
        let item: syn::ItemStruct = syn::parse_str(item)?;
        doc_text(&item.attrs, item.ident.span())
    }

    #[test]
    fn doc_is_collected_with_one_leading_space_stripped() {
        let doc = doc_of(
            "///\n/// Unknown column.\n///\n/// ## Example\n/// ```strata\n///   indented\n/// ```\n///\nstruct X;",
        );
        // The summary is the first line, so it cannot be preceded by a blank one.
        assert!(doc.is_err());
        let doc = doc_of(
            "/// Unknown column.\n///\n/// ## Example\n/// ```strata\n///   indented\n/// ```\n///\nstruct X;",
        )
        .expect("valid doc");
        assert_eq!(
            doc,
            "Unknown column.\n\n## Example\n```strata\n  indented\n```"
        );
    }

    #[test]
    fn block_doc_comments_and_doc_attributes_work() {
        let doc = doc_of("#[doc = \"Summary.\"]\n#[doc = \" More.\"]\nstruct X;").expect("valid");
        assert_eq!(doc, "Summary.\nMore.");
    }

    #[test]
    fn a_missing_or_blank_doc_is_an_error() {
        let err = doc_of("struct X;").expect_err("no doc");
        assert!(
            err.to_string().contains("a rule needs a doc comment"),
            "{err}"
        );
        let err = doc_of("///\n///   \nstruct X;").expect_err("blank doc");
        assert!(
            err.to_string().contains("a rule needs a doc comment"),
            "{err}"
        );
        let err = doc_of("#[doc = include_str!(\"x.md\")]\nstruct X;").expect_err("not literal");
        assert!(err.to_string().contains("`///` doc comments"), "{err}");
    }

    #[test]
    fn expansion_registers_the_rule() {
        let attr: TokenStream2 = syn::parse_str("E079").expect("tokens");
        let item: TokenStream2 =
            syn::parse_str("/// Summary.\npub fn join_shape(m: &M, out: &mut Vec<D>) {}")
                .expect("tokens");
        let out = expand(attr, item).expect("expands").to_string();
        assert!(out.contains("pub fn join_shape"), "{out}");
        assert!(
            out.contains(
                ":: inventory :: submit ! { :: strata_rules :: Rule :: new \
                 (& :: strata_codes :: E079 , \"Summary.\" , \
                 :: core :: option :: Option :: Some (join_shape)) }"
            ),
            "{out}"
        );
    }

    #[test]
    fn expansion_of_a_struct_has_no_check() {
        let attr: TokenStream2 = syn::parse_str("crate::W020").expect("tokens");
        let item: TokenStream2 = syn::parse_str("/// Summary.\npub struct W;").expect("tokens");
        let out = expand(attr, item).expect("expands").to_string();
        assert!(out.contains("pub struct W ;"), "{out}");
        assert!(
            out.contains(
                ":: strata_rules :: Rule :: new (& crate :: W020 , \"Summary.\" , \
                 :: core :: option :: Option :: None)"
            ),
            "{out}"
        );
    }

    #[test]
    fn expansion_rejects_other_items() {
        let attr: TokenStream2 = syn::parse_str("E079").expect("tokens");
        let item: TokenStream2 = syn::parse_str("/// S.\nconst X: u8 = 1;").expect("tokens");
        let err = expand(attr, item).expect_err("const is not a rule item");
        assert!(err.to_string().contains("goes on a `struct`"), "{err}");
    }
}
