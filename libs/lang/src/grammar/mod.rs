//! The language's grammar, for constrained decoding (`strata grammar`) and
//! for testing the parser with random programs (`strata grammar sample`).
//!
//! One definition ([`def`]): the rules as data, built from the parser's and
//! the lexer's own tables where they have them. From it, [`lower`] derives
//! the separators between tokens by asking the lexer what runs together;
//! [`print`] writes the result as GBNF (llama.cpp's grammar format) and
//! [`sample`] draws programs from the same result. The tests tie it to the
//! parser: every keyword of the lexer is a terminal and every terminal word
//! a keyword or a contextual word, sampled programs parse, the corpus and
//! the examples are accepted (by an independent GBNF consumer, in
//! `tests/gbnf.rs`).
//!
//! # Where the grammar and the parser differ
//!
//! A context-free grammar over characters cannot check everything the
//! parser checks. The grammar accepts more than the parser only here (the
//! sampler never writes these, so every sampled program parses):
//! * a reserved word where a name is expected (`from select`): `ident` is
//!   any word (or any text between backticks, `` from `select` ``, which
//!   the parser takes too); the four corpus programs showing this are
//!   listed in `tests/gbnf.rs`;
//! * integers of any size (the lexer wants an int64, `decimal` a u32);
//! * nesting of any depth (the parser stops at 200 levels);
//! * in a source body, `columns: {` can also be read as a property whose
//!   value is `{`.
//!
//! It accepts less than the parser only in rare spellings:
//! * names with letters other than ASCII, Latin-1 and Latin Extended-A/B
//!   (the lexer takes any Unicode letter), and a NUL character after `\`
//!   in a string;
//! * no space where the parser needs none but the grammar cannot tell:
//!   between a rule's last token and the next token, or the previous token
//!   and a rule's first token, the separator is the strictest over the
//!   tokens the rule can end or start with ([`lower`]): `(a)and b`,
//!   `filter(a > 1)`, `x in[1, 2]` and `freshness"daily"` need a space
//!   (`strata fmt` always writes one there);
//! * `take 5. .10` (the parser reads `.10` as the range's end), and a
//!   freshness unit starting with `_` (`1 _h`).

pub mod def;
pub mod lower;
pub mod print;
pub mod sample;
#[cfg(test)]
mod tests;

use std::sync::OnceLock;

pub use def::{Avoid, Choice, Class, Kind, Node, Rule};
pub use lower::{GRule, Lowered, G};

/// The definition, choices numbered.
pub fn definition() -> &'static [Rule] {
    static RULES: OnceLock<Vec<Rule>> = OnceLock::new();
    RULES.get_or_init(def::rules)
}

/// The lowered grammar (separators in place).
pub fn lowered() -> &'static Lowered {
    static LOWERED: OnceLock<Lowered> = OnceLock::new();
    LOWERED.get_or_init(|| lower::lower(definition()))
}

/// The grammar as GBNF text; with `doc`, a comment line before each rule.
pub fn gbnf(doc: bool) -> String {
    print::gbnf(&lowered().rules, doc)
}

/// The seed of the `index`-th program of a run with `seed`.
pub(crate) fn program_seed(seed: u64, index: u64) -> u64 {
    sample::Rng::new(seed ^ index.wrapping_mul(0xA076_1D64_78BD_642F)).next_u64()
}

/// The sampler's view of the lowered grammar.
pub fn sample_tables() -> &'static sample::Tables<'static> {
    static TABLES: OnceLock<sample::Tables<'static>> = OnceLock::new();
    TABLES.get_or_init(|| sample::Tables::new(&lowered().rules))
}

/// The `index`-th random program for `seed`: the same on every run.
pub fn sample_program(seed: u64, index: u64) -> String {
    sample::Sampler::new(sample_tables(), program_seed(seed, index)).program()
}
