//! The definition: every rule of the grammar as data.
//!
//! Syntax rules work on tokens: reserved words ([`Node::Kw`]), contextual
//! words ([`Node::Word`]), symbols ([`Node::Sym`]), token rules
//! ([`Node::Tok`]) and other syntax rules ([`Node::Ref`]). They say nothing
//! about whitespace: the lowering (`super::lower`) puts a separator before
//! every token, as strict as the lexer needs between the two tokens.
//! Token and space rules work on characters ([`Node::Text`],
//! [`Node::Chars`]) and are printed as written.
//!
//! Where the parser keeps a table (model attributes, join cardinalities,
//! column annotations, symbols, reserved words) the grammar is built from
//! that table; `super::tests` ties the rest to the parser and the lexer.

use crate::lexer::{KEYWORDS, SYMBOLS1, SYMBOLS2, TYPE_KEYWORDS};
use crate::parser::{ANNOTATIONS, ATTRS, CARDINALITIES};

/// Where a choice ([`Node::Alt`], [`Node::Opt`], [`Node::Star`]) sits in the
/// grammar: numbered in rule order, so the sampler can report which
/// alternatives it reached.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Choice(pub u32);

/// A character class: `[a-z_]`, or `[^"\\]` when negated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Class {
    pub negated: bool,
    /// Inclusive ranges, in order.
    pub ranges: Vec<(char, char)>,
}

impl Class {
    pub fn contains(&self, c: char) -> bool {
        self.ranges.iter().any(|(a, b)| (*a..=*b).contains(&c)) != self.negated
    }
}

/// One element of a rule body.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// A reserved word of the lexer (`model`, `int64`).
    Kw(&'static str),
    /// A contextual word: an identifier that the parser reads as a word
    /// here (`many_to_one`, `columns`) and that stays a name elsewhere.
    Word(&'static str),
    /// A symbol (`{`, `==`), or symbols written together (`..`).
    Sym(&'static str),
    /// A token rule (`ident`, `int`, `string`, ...).
    Tok(&'static str),
    /// A syntax rule.
    Ref(&'static str),
    /// Characters, as written (token and space rules only).
    Text(&'static str),
    /// One character of a class (token and space rules only).
    Chars(Class),
    Seq(Vec<Node>),
    Alt(Vec<Node>, Choice),
    Opt(Box<Node>, Choice),
    Star(Box<Node>, Choice),
    Plus(Box<Node>),
}

/// What a rule works on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The start rule: declarations, with whitespace around them.
    Root,
    /// Tokens; separators are added by the lowering.
    Syntax,
    /// The characters of one token.
    Token,
    /// Whitespace and comments.
    Space,
}

/// Words a token rule matches that the parser does not take at the places
/// the rule is used: the over-approximations of a context-free grammar. The
/// sampler never writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Avoid {
    Nothing,
    /// The lexer's reserved words (an identifier is never one).
    ReservedWords,
    /// The reserved words and these.
    ReservedWordsAnd(&'static [&'static str]),
}

impl Avoid {
    pub fn avoids(self, text: &str) -> bool {
        match self {
            Avoid::Nothing => false,
            Avoid::ReservedWords => {
                KEYWORDS.contains(&text)
                    || TYPE_KEYWORDS.contains(&text)
                    || unquoted_outside_grammar(text)
            }
            Avoid::ReservedWordsAnd(words) => {
                words.contains(&text) || Avoid::ReservedWords.avoids(text)
            }
        }
    }
}

/// Whether `text` is a quoted name that `strata fmt` writes bare (the
/// lexer takes it as a word: `` `日` ``) in letters the grammar has no bare
/// word for: the sampler does not write it, so that a formatted sample is
/// in the grammar too.
fn unquoted_outside_grammar(text: &str) -> bool {
    static LETTERS: std::sync::LazyLock<Vec<(char, char)>> =
        std::sync::LazyLock::new(word_start_ranges);
    let Some(inner) = text.strip_prefix('`').and_then(|t| t.strip_suffix('`')) else {
        return false;
    };
    crate::ident::is_plain(inner)
        && !inner
            .chars()
            .all(|c| c.is_ascii_digit() || LETTERS.iter().any(|(a, b)| (*a..=*b).contains(&c)))
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub name: &'static str,
    pub kind: Kind,
    /// One line: what the rule is (`strata grammar --doc`).
    pub doc: &'static str,
    pub body: Node,
    pub avoid: Avoid,
}

// ----- constructors ------------------------------------------------------

fn kw(k: &'static str) -> Node {
    Node::Kw(k)
}

fn word(w: &'static str) -> Node {
    Node::Word(w)
}

fn sym(s: &'static str) -> Node {
    Node::Sym(s)
}

fn tok(t: &'static str) -> Node {
    Node::Tok(t)
}

fn r(name: &'static str) -> Node {
    Node::Ref(name)
}

fn text(t: &'static str) -> Node {
    Node::Text(t)
}

fn seq<const N: usize>(items: [Node; N]) -> Node {
    Node::Seq(items.into())
}

fn alt<const N: usize>(items: [Node; N]) -> Node {
    Node::Alt(items.into(), Choice::default())
}

fn alt_of(items: Vec<Node>) -> Node {
    Node::Alt(items, Choice::default())
}

fn opt(n: Node) -> Node {
    Node::Opt(Box::new(n), Choice::default())
}

fn star(n: Node) -> Node {
    Node::Star(Box::new(n), Choice::default())
}

fn plus(n: Node) -> Node {
    Node::Plus(Box::new(n))
}

fn chars(ranges: &[(char, char)]) -> Node {
    Node::Chars(Class {
        negated: false,
        ranges: ranges.to_vec(),
    })
}

fn not_chars(excluded: &[char]) -> Node {
    Node::Chars(Class {
        negated: true,
        ranges: excluded.iter().map(|c| (*c, *c)).collect(),
    })
}

/// `item (sep item)*`: a non-empty list with separators.
fn list(item: Node, sep: &'static str) -> Node {
    seq([item.clone(), star(seq([self::sym(sep), item]))])
}

/// `[item (sep item)* [sep]]`: a possibly empty list that may end with its
/// separator.
fn list_trailing(item: Node, sep: &'static str) -> Node {
    opt(seq([list(item, sep), opt(self::sym(sep))]))
}

/// `[item ([sep] item)* [sep]]`: entries each optionally followed by `sep`
/// (the parser's `while .. { entry; eat(sep) }`), written so that the
/// separator before an entry depends only on whether `sep` was written.
fn entries(item: Node, sep: Node) -> Node {
    opt(seq([
        item.clone(),
        star(seq([opt(sep.clone()), item])),
        opt(sep),
    ]))
}

/// Entries in any order where each of `once` is written at most once (the
/// parser reports a key given twice, E025) and the other entry any number
/// of times, optionally ending with `,`: `first` is the other entry as the
/// first one, `again` as a later one (its separator included), and
/// `lead(x)` one of `once` after an earlier entry.
fn entries_once(once: &[Node], first: Node, again: Node, lead: &dyn Fn(Node) -> Node) -> Node {
    // The entries after a first one, with `left` still allowed once each.
    fn rest(left: &[Node], again: &Node, lead: &dyn Fn(Node) -> Node) -> Node {
        let repeats = star(again.clone());
        if left.is_empty() {
            return repeats;
        }
        let next = (0..left.len())
            .map(|i| {
                let mut others = left.to_vec();
                let x = others.remove(i);
                seq([lead(x), rest(&others, again, lead)])
            })
            .collect();
        seq([repeats, opt(alt_of(next))])
    }
    let firsts = std::iter::once(seq([first, rest(once, &again, lead)]))
        .chain((0..once.len()).map(|i| {
            let mut others = once.to_vec();
            let x = others.remove(i);
            seq([x, rest(&others, &again, lead)])
        }))
        .collect();
    opt(seq([alt_of(firsts), opt(sym(","))]))
}

/// A pipeline's body: `models:`/`env:` (those in `once`) at most once each,
/// `sources:` any number of times, `,` after any of them optional.
fn pipeline_entries(once: &[Node]) -> Node {
    entries_once(
        once,
        r("pipeline-sources"),
        seq([opt(sym(",")), r("pipeline-sources")]),
        &|x| seq([opt(sym(",")), x]),
    )
}

fn syntax(name: &'static str, doc: &'static str, body: Node) -> Rule {
    Rule {
        name,
        kind: Kind::Syntax,
        doc,
        body,
        avoid: Avoid::Nothing,
    }
}

fn token(name: &'static str, doc: &'static str, body: Node, avoid: Avoid) -> Rule {
    Rule {
        name,
        kind: Kind::Token,
        doc,
        body,
        avoid,
    }
}

fn space(name: &'static str, doc: &'static str, body: Node) -> Rule {
    Rule {
        name,
        kind: Kind::Space,
        doc,
        body,
        avoid: Avoid::Nothing,
    }
}

/// Letters a word may start with: ASCII letters, `_`, and the letters
/// (`char::is_alphabetic`, as the lexer) of Latin-1 and Latin Extended-A/B.
/// Other scripts are words for the lexer but not for the grammar.
fn word_start_ranges() -> Vec<(char, char)> {
    let mut ranges = vec![('A', 'Z'), ('_', '_'), ('a', 'z')];
    let mut run: Option<(char, char)> = None;
    for c in '\u{80}'..='\u{24f}' {
        if c.is_alphabetic() {
            run = Some(match run {
                Some((a, _)) => (a, c),
                None => (c, c),
            });
        } else if let Some(done) = run.take() {
            ranges.push(done);
        }
    }
    ranges.extend(run);
    ranges
}

// ----- the rules ---------------------------------------------------------

/// Every rule, `root` first, then the syntax rules, the token rules and the
/// space rules, with their choices numbered.
pub fn rules() -> Vec<Rule> {
    let mut rules = Vec::new();
    rules.extend(declarations());
    rules.extend(models());
    rules.extend(expressions());
    rules.extend(tokens());
    rules.extend(spaces());
    let mut next = 0;
    for rule in &mut rules {
        number(&mut rule.body, &mut next);
    }
    rules
}

fn number(node: &mut Node, next: &mut u32) {
    match node {
        Node::Alt(items, c) => {
            *c = Choice(*next);
            *next += 1;
            items.iter_mut().for_each(|n| number(n, next));
        }
        Node::Opt(n, c) | Node::Star(n, c) => {
            *c = Choice(*next);
            *next += 1;
            number(n, next);
        }
        Node::Plus(n) => number(n, next),
        Node::Seq(items) => items.iter_mut().for_each(|n| number(n, next)),
        _ => {}
    }
}

fn declarations() -> Vec<Rule> {
    let annotation = alt_of(
        ANNOTATIONS
            .iter()
            .map(|a| match *a {
                "enum" => seq([
                    kw("enum"),
                    sym("{"),
                    entries(r("any-token-but-brace"), sym(",")),
                    sym("}"),
                ]),
                "classification" => seq([
                    kw("classification"),
                    sym(":"),
                    alt([tok("string"), tok("ident")]),
                ]),
                flag => kw(flag),
            })
            .collect(),
    );
    // Any token: a name, a reserved word, a literal, a symbol.
    let any_token = |symbols: &'static str| {
        alt([
            tok("ident"),
            r("reserved-word"),
            tok("int"),
            tok("float"),
            tok("string"),
            r(symbols),
        ])
    };
    let symbols_but = |excluded: &[&str]| {
        alt_of(
            SYMBOLS2
                .iter()
                .chain(SYMBOLS1)
                .filter(|s| !excluded.contains(s))
                .map(|s| sym(s))
                .collect(),
        )
    };
    // A property whose key is `,`: only where the parser has not just
    // eaten a `,` as the separator (first, or after an explicit `,`).
    let comma_property = || seq([sym(","), sym(":"), r("any-token")]);
    vec![
        Rule {
            name: "root",
            kind: Kind::Root,
            doc: "A file: declarations, with whitespace and comments around them \
                  (a byte-order mark may start it, a line comment may end it without a newline).",
            // Split by how they end, so that `}model` needs no space while
            // `import a model` does.
            body: plus(alt([r("block-decl"), r("line-decl")])),
            avoid: Avoid::Nothing,
        },
        syntax(
            "block-decl",
            "A declaration that ends with `}` or `)`: the next one may follow directly.",
            alt([
                r("source-decl"),
                r("contract-decl"),
                r("model-decl"),
                r("pipeline-decl"),
                r("test-decl"),
                r("generator"),
            ]),
        ),
        syntax(
            "line-decl",
            "A declaration that may end with a name or a number: `import`, `domain`, `fn`.",
            alt([r("import-decl"), r("domain-decl"), r("fn-decl")]),
        ),
        syntax(
            "import-decl",
            "`import a.b`: the module a/b.strata.",
            seq([kw("import"), list(tok("module-name"), ".")]),
        ),
        syntax(
            "source-decl",
            "A warehouse table: resource arguments, then its columns and properties.",
            seq([
                kw("source"),
                tok("ident"),
                sym("("),
                opt(list(r("source-arg"), ",")),
                sym(")"),
                opt(seq([
                    sym("{"),
                    entries_once(
                        &[r("source-columns")],
                        alt([r("source-property"), comma_property()]),
                        alt([
                            seq([sym(","), alt([r("source-property"), comma_property()])]),
                            r("source-property"),
                        ]),
                        &|x| seq([opt(sym(",")), x]),
                    ),
                    sym("}"),
                ])),
            ]),
        ),
        syntax(
            "source-arg",
            "A resource argument: `ns: \"app\"`.",
            seq([tok("ident"), sym(":"), alt([tok("string"), tok("ident")])]),
        ),
        syntax(
            "source-columns",
            "`columns: { fields }`: at most once in a source.",
            seq([
                word("columns"),
                sym(":"),
                sym("{"),
                opt(r("fields")),
                sym("}"),
            ]),
        ),
        syntax(
            "source-property",
            "A property: a token (not `,`), `:`, any token.",
            seq([r("property-key"), sym(":"), r("any-token")]),
        ),
        syntax(
            "any-token",
            "Any single token: where the parser takes a token's text as it is.",
            any_token("symbol"),
        ),
        syntax(
            "any-token-but-brace",
            "Any single token except `}`.",
            any_token("symbol-but-brace"),
        ),
        syntax(
            "property-key",
            "Any single token except `}` and `,`.",
            any_token("symbol-but-brace-comma"),
        ),
        syntax(
            "reserved-word",
            "A reserved word of the lexer.",
            alt_of(
                KEYWORDS
                    .iter()
                    .chain(TYPE_KEYWORDS)
                    .map(|k| kw(k))
                    .collect(),
            ),
        ),
        syntax("symbol", "A symbol.", symbols_but(&[])),
        syntax(
            "symbol-but-brace",
            "A symbol other than `}`.",
            symbols_but(&["}"]),
        ),
        syntax(
            "symbol-but-brace-comma",
            "A symbol other than `}` and `,`.",
            symbols_but(&["}", ","]),
        ),
        syntax(
            "contract-decl",
            "An output schema a model can promise: `contract C { fields }`.",
            seq([
                kw("contract"),
                tok("ident"),
                sym("{"),
                opt(r("fields")),
                sym("}"),
            ]),
        ),
        syntax(
            "fields",
            "Column definitions, each optionally followed by `,` and then `;`.",
            seq([
                r("field"),
                star(seq([opt(r("field-end")), r("field")])),
                opt(r("field-end")),
            ]),
        ),
        syntax(
            "field-end",
            "What may follow a column definition: `,`, `;` or `, ;`.",
            alt([seq([sym(","), opt(sym(";"))]), sym(";")]),
        ),
        syntax(
            "field",
            "A column: `name: type` and its flags.",
            seq([tok("ident"), sym(":"), r("type"), star(r("annotation"))]),
        ),
        syntax(
            "annotation",
            "A column flag: nonnull, unique, primary_key, protected, `enum { .. }`, \
             `classification: ..`.",
            annotation,
        ),
        syntax(
            "type",
            "A column type: a type keyword, `decimal(p, s)`, `money[(CUR)]`, `array(T)` \
             or a domain name.",
            alt([
                kw("int64"),
                kw("float32"),
                kw("float64"),
                kw("string"),
                kw("bool"),
                kw("date"),
                kw("timestamp"),
                kw("timestamptz"),
                kw("uuid"),
                kw("json"),
                seq([
                    kw("decimal"),
                    sym("("),
                    tok("int"),
                    opt(sym(",")),
                    tok("int"),
                    sym(")"),
                ]),
                seq([kw("money"), opt(seq([sym("("), tok("ident"), sym(")")]))]),
                seq([kw("array"), sym("("), r("type"), sym(")")]),
                tok("ident"),
            ]),
        ),
        syntax(
            "domain-decl",
            "A named type: `domain email = string`.",
            seq([kw("domain"), tok("ident"), sym("="), r("type")]),
        ),
        syntax(
            "pipeline-decl",
            "Which models to build and which sources to read, per environment.",
            seq([
                kw("pipeline"),
                tok("ident"),
                // `env:` once: after the name or in the body.
                alt([
                    seq([
                        r("pipeline-env"),
                        sym("{"),
                        pipeline_entries(&[r("pipeline-models")]),
                        sym("}"),
                    ]),
                    seq([
                        sym("{"),
                        pipeline_entries(&[r("pipeline-models"), r("pipeline-env")]),
                        sym("}"),
                    ]),
                ]),
            ]),
        ),
        syntax(
            "pipeline-models",
            "`models: [..]`: the models to build, at most once in a pipeline.",
            seq([
                word("models"),
                sym(":"),
                sym("["),
                list_trailing(r("expr"), ","),
                sym("]"),
            ]),
        ),
        syntax(
            "pipeline-env",
            "`env: name`: at most once in a pipeline.",
            seq([word("env"), sym(":"), tok("ident")]),
        ),
        syntax(
            "pipeline-sources",
            "`sources: { overrides }`: may be given more than once.",
            seq([
                word("sources"),
                sym(":"),
                sym("{"),
                entries(r("source-override"), sym(",")),
                sym("}"),
            ]),
        ),
        syntax(
            "source-override",
            "A source read differently in this pipeline: `orders: from(dataset: \"x\")`.",
            seq([
                tok("ident"),
                opt(seq([
                    sym(":"),
                    r("any-token"),
                    sym("("),
                    entries(r("override-arg"), sym(",")),
                    sym(")"),
                ])),
            ]),
        ),
        syntax(
            "override-arg",
            "An argument of a source override: `dataset: \"x\"`.",
            seq([tok("ident"), sym(":"), r("any-token")]),
        ),
        syntax(
            "test-decl",
            "A test of a model: checks on its materialized data, or with `given` rows a fixture test.",
            seq([
                kw("test"),
                tok("ident"),
                opt(tok("string")),
                sym("{"),
                opt(r("test-severity")),
                entries(alt([r("test-check"), r("given-block")]), sym(";")),
                sym("}"),
            ]),
        ),
        syntax(
            "test-severity",
            "`severity: warn`: a failing check of this test is reported and never blocks publishing (`error`, the default, stops the run). First in the body.",
            seq([
                word("severity"),
                sym(":"),
                alt([word("warn"), word("error")]),
                opt(sym(";")),
            ]),
        ),
        syntax(
            "test-check",
            "`expect row_count > 0`, `expect col == 1`, `expect col in model.col`, `expect rows(col) { (1) }`.",
            alt([
                seq([
                    kw("expect"),
                    tok("ident"),
                    alt([
                        seq([r("compare-op"), r("test-literal")]),
                        seq([kw("in"), tok("ident"), sym("."), tok("ident")]),
                    ]),
                ]),
                seq([kw("expect"), word("rows"), r("fixture-block")]),
            ]),
        ),
        syntax(
            "test-literal",
            "A literal in a test check (no sign).",
            alt([
                tok("int"),
                tok("float"),
                tok("string"),
                kw("true"),
                kw("false"),
                kw("null"),
            ]),
        ),
        syntax(
            "given-block",
            "`given orders(id, amount) { (1, 2.5) }`: the rows of an input of the tested model.",
            seq([word("given"), tok("ident"), r("fixture-block")]),
        ),
        syntax(
            "fixture-block",
            "A column list and its rows, or `{}` for no rows.",
            alt([
                seq([
                    sym("("),
                    list(tok("ident"), ","),
                    opt(sym(",")),
                    sym(")"),
                    sym("{"),
                    entries(r("fixture-row"), sym(",")),
                    sym("}"),
                ]),
                seq([sym("{"), sym("}")]),
            ]),
        ),
        syntax(
            "fixture-row",
            "`(1, \"a\", null)`: one row of literal values.",
            seq([sym("("), list_trailing(r("fixture-value"), ","), sym(")")]),
        ),
        syntax(
            "fixture-value",
            "A literal in a fixture row: a number (signed), a string, true, false, null or a list.",
            alt([
                seq([opt(sym("-")), alt([tok("int"), tok("float")])]),
                tok("string"),
                kw("true"),
                kw("false"),
                kw("null"),
                seq([sym("["), list_trailing(r("fixture-value"), ","), sym("]")]),
            ]),
        ),
        syntax(
            "fn-decl",
            "A compile-time function: parameters, a return type and a body.",
            seq([
                kw("fn"),
                tok("ident"),
                sym("("),
                opt(list(r("fn-param"), ",")),
                sym(")"),
                sym("->"),
                r("fn-type"),
                alt([seq([sym("{"), r("expr"), sym("}")]), r("expr")]),
            ]),
        ),
        syntax(
            "fn-param",
            "`name: type`.",
            seq([tok("ident"), sym(":"), r("fn-type")]),
        ),
        syntax(
            "fn-type",
            "A function's parameter or return type: `List<T>`, a type keyword or a name.",
            alt_of(
                [
                    seq([word("List"), sym("<"), r("fn-type"), sym(">")]),
                    tok("ident"),
                ]
                .into_iter()
                .chain(TYPE_KEYWORDS.iter().map(|k| kw(k)))
                .collect(),
            ),
        ),
        syntax(
            "generator",
            "A top-level call of a compile-time function: `make_models(\"x\")`.",
            seq([tok("ident"), r("call-rest")]),
        ),
    ]
}

fn models() -> Vec<Rule> {
    let model_head = |items: &'static str| {
        seq([
            kw("model"),
            alt([tok("ident"), tok("string")]),
            opt(seq([sym("->"), kw("contract"), tok("ident")])),
            sym("{"),
            star(r(items)),
            sym("}"),
        ])
    };
    let assign_block =
        |k: &'static str| seq([kw(k), sym("{"), list_trailing(r("assign"), ","), sym("}")]);
    let attrs = alt_of(ATTRS.iter().map(|a| word(a)).collect());
    let cardinalities = alt_of(CARDINALITIES.iter().map(|c| word(c)).collect());
    vec![
        syntax(
            "model-decl",
            "A model: its name, an optional `-> contract C` and its clauses.",
            model_head("model-item"),
        ),
        syntax(
            "model-item",
            "An attribute or a clause of a model.",
            alt([
                r("attribute"),
                r("from-clause"),
                r("rows-clause"),
                r("series-clause"),
                r("join-clause"),
                r("filter-clause"),
                r("let-clause"),
                r("select-clause"),
                r("derive-clause"),
                r("aggregate-clause"),
                r("group-clause"),
                r("sort-clause"),
                r("take-clause"),
                r("expand-clause"),
                r("set-clause"),
                r("dedup-clause"),
                r("partition-clause"),
                r("freshness-clause"),
                r("incremental-clause"),
            ]),
        ),
        syntax(
            "model-value",
            "A model written as a value in an expression (a fn body).",
            model_head("model-value-item"),
        ),
        syntax(
            "model-value-item",
            "What a model value may contain: attributes, from, joins, filter, let, \
             derive, take.",
            alt([
                r("attribute"),
                r("from-clause"),
                r("join-clause"),
                r("filter-clause"),
                r("let-clause"),
                r("derive-clause"),
                r("take-clause"),
            ]),
        ),
        syntax(
            "attribute",
            "A model attribute: `owner: \"team\"`.",
            seq([attrs, sym(":"), tok("string")]),
        ),
        syntax(
            "from-clause",
            "The model's first input: `from orders`.",
            seq([kw("from"), tok("ident")]),
        ),
        syntax(
            "rows-clause",
            "Literal rows as the model's input, instead of a `from`: \
             `rows(code: int64, label: string) { (1, \"placed\") }` (`rows` is a contextual word).",
            seq([
                word("rows"),
                sym("("),
                list(r("field"), ","),
                opt(sym(",")),
                sym(")"),
                sym("{"),
                entries(r("fixture-row"), sym(",")),
                sym("}"),
            ]),
        ),
        syntax(
            "series-clause",
            "Generated values as the model's input, instead of a `from`: \
             `series day from START to END [step N UNIT]` (`series`, `to` and `step` are contextual words).",
            seq([
                word("series"),
                tok("ident"),
                kw("from"),
                r("expr"),
                word("to"),
                r("expr"),
                opt(seq([
                    word("step"),
                    tok("int"),
                    opt(alt([
                        word("years"),
                        word("quarters"),
                        word("months"),
                        word("weeks"),
                        word("days"),
                    ])),
                ])),
            ]),
        ),
        syntax(
            "join-clause",
            "A join: its kind, input and condition, and an optional cardinality \
             expectation (on every kind: E079 rejects it on anti, semi and cross joins). \
             `join_cross INPUT` has no condition.",
            alt([
                seq([
                    alt([
                        kw("join_left"),
                        kw("join_inner"),
                        kw("join_right"),
                        kw("join_full"),
                        kw("join_anti"),
                        kw("join_semi"),
                    ]),
                    tok("ident"),
                    kw("on"),
                    r("expr"),
                    opt(r("join-expect")),
                ]),
                seq([kw("join_cross"), tok("ident"), opt(r("join-expect"))]),
            ]),
        ),
        syntax(
            "join-expect",
            "`expect many_to_one` or `expect one_to_one` (contextual words).",
            seq([kw("expect"), cardinalities]),
        ),
        syntax(
            "filter-clause",
            "Keep the rows where a condition holds.",
            seq([alt([kw("filter"), kw("where")]), r("expr")]),
        ),
        syntax(
            "let-clause",
            "A named intermediate column: `let x = expr`.",
            seq([kw("let"), tok("ident"), sym("="), r("expr")]),
        ),
        syntax(
            "select-clause",
            "The output columns.",
            assign_block("select"),
        ),
        syntax(
            "derive-clause",
            "Columns added to those in scope.",
            assign_block("derive"),
        ),
        syntax(
            "aggregate-clause",
            "Aggregated output columns.",
            assign_block("aggregate"),
        ),
        syntax(
            "assign",
            "`name = expr`.",
            seq([tok("ident"), sym("="), r("expr")]),
        ),
        syntax(
            "group-clause",
            "`group { keys } ( body )`.",
            seq([
                kw("group"),
                sym("{"),
                list_trailing(r("expr"), ","),
                sym("}"),
                sym("("),
                star(r("group-item")),
                sym(")"),
            ]),
        ),
        syntax(
            "group-item",
            "A clause of a group body.",
            alt([
                r("filter-clause"),
                r("aggregate-clause"),
                r("sort-clause"),
                r("take-clause"),
            ]),
        ),
        syntax(
            "sort-clause",
            "`sort { key [asc|desc], .. }`.",
            seq([
                kw("sort"),
                sym("{"),
                list_trailing(r("sort-key"), ","),
                sym("}"),
            ]),
        ),
        syntax(
            "sort-key",
            "An expression, an optional direction and where NULLs go.",
            seq([
                r("expr"),
                opt(alt([kw("desc"), kw("asc")])),
                opt(r("nulls-placement")),
            ]),
        ),
        syntax(
            "nulls-placement",
            "Where NULLs sort: `nulls_first` or `nulls_last` (the default).",
            alt([word("nulls_first"), word("nulls_last")]),
        ),
        syntax(
            "take-clause",
            "`take N` or `take A..B`.",
            seq([
                kw("take"),
                tok("int"),
                opt(seq([
                    alt([sym(".."), seq([sym("."), sym(".")])]),
                    tok("int"),
                ])),
            ]),
        ),
        syntax(
            "expand-clause",
            "One row per element of an array column: `expand tags as tag`.",
            seq([
                kw("expand"),
                tok("ident"),
                opt(seq([word("as"), tok("ident")])),
            ]),
        ),
        syntax(
            "set-clause",
            "`union [all]`, `intersect` or `except` another model.",
            seq([
                alt([
                    seq([kw("union"), opt(kw("all"))]),
                    kw("intersect"),
                    kw("except"),
                ]),
                tok("ident"),
            ]),
        ),
        syntax(
            "dedup-clause",
            "`dedup` or `dedup by keys`.",
            seq([kw("dedup"), opt(seq([kw("by"), list(r("expr"), ",")]))]),
        ),
        syntax(
            "partition-clause",
            "`partition_by [exprs]`, optionally with a freshness.",
            seq([
                kw("partition_by"),
                sym("["),
                opt(list(r("expr"), ",")),
                sym("]"),
                opt(seq([kw("freshness"), opt(sym(":")), r("freshness-spec")])),
            ]),
        ),
        syntax(
            "freshness-clause",
            "`freshness: 1h`, optionally followed by an incremental clause.",
            seq([
                kw("freshness"),
                opt(sym(":")),
                r("freshness-spec"),
                opt(r("incremental-clause")),
            ]),
        ),
        syntax(
            "freshness-spec",
            "Freshness values and an optional `freshness_column: c` (after `freshness` \
             and an optional `:`).",
            seq([
                list(r("fresh-value"), ","),
                opt(seq([kw("freshness_column"), sym(":"), tok("ident")])),
            ]),
        ),
        syntax(
            "fresh-value",
            "`1h` (a number and a unit), `7`, `daily`, a string or `incremental`.",
            alt([
                seq([tok("int"), opt(tok("unit"))]),
                tok("string"),
                tok("ident"),
                kw("incremental"),
            ]),
        ),
        syntax(
            "incremental-clause",
            "`incremental [merge_strategy: s] [merge_keys: [..]] [cdc_column: c]`.",
            seq([
                kw("incremental"),
                opt(seq([kw("merge_strategy"), sym(":"), tok("ident")])),
                opt(seq([
                    kw("merge_keys"),
                    sym(":"),
                    sym("["),
                    opt(list(r("expr"), ",")),
                    sym("]"),
                ])),
                opt(seq([kw("cdc_column"), sym(":"), tok("ident")])),
            ]),
        ),
    ]
}

fn expressions() -> Vec<Rule> {
    vec![
        syntax(
            "expr",
            "An expression; `or` binds loosest. Every binary operator is left-associative.",
            seq([r("and-expr"), star(seq([kw("or"), r("and-expr")]))]),
        ),
        syntax(
            "and-expr",
            "Operands of `and`.",
            seq([r("comparison"), star(seq([kw("and"), r("comparison")]))]),
        ),
        syntax(
            "comparison",
            "Operands of the comparisons and `in`.",
            seq([
                r("sum"),
                star(seq([alt([r("compare-op"), kw("in")]), r("sum")])),
            ]),
        ),
        syntax(
            "compare-op",
            "A comparison operator.",
            alt([
                sym("=="),
                sym("!="),
                sym("<"),
                sym("<="),
                sym(">"),
                sym(">="),
            ]),
        ),
        syntax(
            "sum",
            "Operands of `+`, `-` and `||`.",
            seq([
                r("product"),
                star(seq([alt([sym("+"), sym("-"), sym("||")]), r("product")])),
            ]),
        ),
        syntax(
            "product",
            "Operands of `*`, `/` and `%` (after `/`, a `*` operand needs a space: \
             `/*` starts a comment).",
            seq([
                r("unary"),
                star(alt([
                    seq([alt([sym("*"), sym("%")]), r("unary")]),
                    seq([sym("/"), alt([r("operand"), sym("*")])]),
                ])),
            ]),
        ),
        syntax(
            "unary",
            "An operand, or `*` (as in `count(*)`).",
            alt([r("operand"), sym("*")]),
        ),
        syntax(
            "operand",
            "`not` or `-` applied to a unary expression, or a primary expression.",
            alt([seq([alt([kw("not"), sym("-")]), r("unary")]), r("primary")]),
        ),
        syntax(
            "primary",
            "A literal, a column, a call, a list, a model value or a parenthesized expression.",
            alt([
                tok("int"),
                tok("float"),
                tok("string"),
                kw("true"),
                kw("false"),
                kw("null"),
                seq([sym("("), r("expr"), sym(")")]),
                r("list"),
                r("model-value"),
                seq([tok("ident"), r("call-rest")]),
                seq([tok("ident"), sym("."), tok("ident")]),
                tok("ident"),
            ]),
        ),
        syntax(
            "list",
            "`[]`, `[a, b]` or a comprehension `[e for x in xs]`.",
            alt([
                seq([sym("["), sym("]")]),
                seq([
                    sym("["),
                    r("expr"),
                    kw("for"),
                    tok("ident"),
                    kw("in"),
                    r("expr"),
                    sym("]"),
                ]),
                seq([sym("["), list(r("expr"), ","), opt(sym(",")), sym("]")]),
            ]),
        ),
        syntax(
            "call-rest",
            "A call's arguments (`distinct` first for `count(distinct x)`, an ordered aggregate's `sort: [..]` last) and window.",
            seq([
                sym("("),
                opt(kw("distinct")),
                opt(alt([
                    seq([
                        list(r("call-arg"), ","),
                        opt(seq([sym(","), r("call-sort")])),
                    ]),
                    r("call-sort"),
                ])),
                sym(")"),
                opt(r("window")),
            ]),
        ),
        syntax(
            "call-sort",
            "An ordered aggregate's order: `string_agg(s, \",\", sort: [k desc])`.",
            seq([kw("sort"), sym(":"), r("sort-keys")]),
        ),
        syntax(
            "sort-keys",
            "`[expr [desc] [nulls_first|nulls_last], ..]` after `sort:` in a window or a call.",
            seq([
                sym("["),
                opt(list(
                    seq([r("expr"), opt(kw("desc")), opt(r("nulls-placement"))]),
                    ",",
                )),
                sym("]"),
            ]),
        ),
        syntax(
            "call-arg",
            "An argument, possibly named: `f(x)`, `f(name: x)`.",
            alt([seq([tok("ident"), sym(":"), r("expr")]), r("expr")]),
        ),
        syntax(
            "window",
            "`over (partition_by: [..], sort: [..], rows: [..])`: parts in any order, the frame once.",
            seq([
                kw("over"),
                sym("("),
                opt(alt([
                    seq([
                        list(r("window-part"), ","),
                        opt(seq([sym(","), r("window-frame")])),
                    ]),
                    seq([
                        r("window-frame"),
                        star(seq([sym(","), r("window-part")])),
                    ]),
                ])),
                sym(")"),
            ]),
        ),
        syntax(
            "window-part",
            "`partition_by: [exprs]` or `sort: [expr [desc] [nulls_first|nulls_last], ..]`.",
            alt([
                seq([
                    kw("partition_by"),
                    sym(":"),
                    sym("["),
                    opt(list(r("expr"), ",")),
                    sym("]"),
                ]),
                seq([kw("sort"), sym(":"), r("sort-keys")]),
            ]),
        ),
        syntax(
            "window-frame",
            "`rows: [start, end]` or `range: [start, end]`: each bound `unbounded` or an offset from the current row (-2 before, 0 the row, 3 after).",
            seq([
                alt([word("rows"), word("range")]),
                sym(":"),
                sym("["),
                r("frame-bound"),
                sym(","),
                r("frame-bound"),
                sym("]"),
            ]),
        ),
        syntax(
            "frame-bound",
            "`unbounded`, or a whole number, negative before the current row.",
            alt([word("unbounded"), seq([opt(sym("-")), tok("int")])]),
        ),
    ]
}

fn tokens() -> Vec<Rule> {
    let digit = || chars(&[('0', '9')]);
    let digits = || star(chars(&[('0', '9'), ('_', '_')]));
    let any_char = || not_chars(&['\u{0}']);
    let word_start = word_start_ranges();
    let mut word_char = word_start.clone();
    word_char.insert(0, ('0', '9'));
    let mut unit_start = word_start.clone();
    unit_start.retain(|r| *r != ('_', '_'));
    vec![
        token(
            "ident",
            "A name: a word that is not a reserved word (the grammar does not \
             exclude them; the parser does), or any text between backticks \
             (`` `date` ``, `` `unit price` ``).",
            alt([
                seq([r("word-start"), star(r("word-char"))]),
                seq([text("`"), plus(r("quoted-char")), text("`")]),
            ]),
            // `columns: {` always starts a source's columns block.
            Avoid::ReservedWordsAnd(&["columns"]),
        ),
        token(
            "module-name",
            "A part of an import's path: a name, whose quoted form holds no `/`, `\\` \
             or `.` (it names a file or a directory).",
            alt([
                seq([r("word-start"), star(r("word-char"))]),
                seq([
                    text("`"),
                    plus(Node::Chars(Class {
                        negated: true,
                        ranges: vec![
                            ('\u{0}', '\u{1f}'),
                            ('.', '/'),
                            ('\\', '\\'),
                            ('`', '`'),
                            ('\u{7f}', '\u{9f}'),
                        ],
                    })),
                    text("`"),
                ]),
            ]),
            Avoid::ReservedWords,
        ),
        token(
            "quoted-char",
            "A character of a quoted name: anything but a backtick or a control \
             character.",
            Node::Chars(Class {
                negated: true,
                ranges: vec![('\u{0}', '\u{1f}'), ('`', '`'), ('\u{7f}', '\u{9f}')],
            }),
            Avoid::Nothing,
        ),
        token(
            "unit",
            "The unit after a freshness number (`1h`): a name starting with a letter.",
            seq([
                Node::Chars(Class {
                    negated: false,
                    ranges: unit_start,
                }),
                star(r("word-char")),
            ]),
            Avoid::ReservedWords,
        ),
        token(
            "word-start",
            "A letter or `_`.",
            Node::Chars(Class {
                negated: false,
                ranges: word_start,
            }),
            Avoid::Nothing,
        ),
        token(
            "word-char",
            "A letter, a digit or `_`.",
            Node::Chars(Class {
                negated: false,
                ranges: word_char,
            }),
            Avoid::Nothing,
        ),
        token(
            "int",
            "An integer: digits, `_` allowed after the first (the grammar does not \
             bound it; the lexer requires int64).",
            seq([digit(), digits()]),
            Avoid::Nothing,
        ),
        token(
            "float",
            "A decimal number: `1.5`, `.5`, `1_000.25`.",
            alt([
                seq([digit(), digits(), text("."), digit(), digits()]),
                seq([text("."), digit(), digits()]),
            ]),
            Avoid::Nothing,
        ),
        token(
            "string",
            "A double-quoted string: escapes `\\x`, interpolations `${name}`, a `$` \
             not followed by `{`.",
            seq([
                text("\""),
                star(r("string-part")),
                star(text("$")),
                text("\""),
            ]),
            Avoid::Nothing,
        ),
        token(
            "string-part",
            "A character, an escape, an interpolation, or `$`s before a character.",
            alt([
                not_chars(&['"', '\\', '$']),
                seq([text("\\"), any_char()]),
                seq([star(text("$")), text("${"), plus(r("word-char")), text("}")]),
                seq([
                    plus(text("$")),
                    alt([
                        not_chars(&['"', '\\', '$', '{']),
                        seq([text("\\"), any_char()]),
                    ]),
                ]),
            ]),
            Avoid::Nothing,
        ),
    ]
}

fn spaces() -> Vec<Rule> {
    let blank = || chars(&[('\t', '\t'), ('\n', '\n'), ('\r', '\r'), (' ', ' ')]);
    let to_eol = || star(not_chars(&['\n']));
    vec![
        space(
            "ws",
            "Optional whitespace and comments.",
            star(alt([blank(), r("comment")])),
        ),
        space(
            "sep",
            "Whitespace or a comment, required between tokens that would otherwise \
             run together (`from orders`).",
            plus(alt([blank(), r("comment")])),
        ),
        space(
            "ws-no-slash",
            "Optional whitespace and comments not starting with `/` (after the `/` \
             operator).",
            opt(seq([alt([blank(), r("hash-comment")]), r("ws")])),
        ),
        space(
            "sep-no-slash",
            "Required whitespace or comments not starting with `/`.",
            seq([alt([blank(), r("hash-comment")]), r("ws")]),
        ),
        space(
            "comment",
            "`// ..`, `# ..` up to the end of the line, or `/* .. */` (no nesting).",
            alt([
                seq([text("//"), to_eol(), text("\n")]),
                r("hash-comment"),
                seq([
                    text("/*"),
                    star(not_chars(&['*'])),
                    plus(text("*")),
                    star(seq([
                        not_chars(&['/', '*']),
                        star(not_chars(&['*'])),
                        plus(text("*")),
                    ])),
                    text("/"),
                ]),
            ]),
        ),
        space(
            "hash-comment",
            "`# ..` up to the end of the line.",
            seq([text("#"), to_eol(), text("\n")]),
        ),
        space(
            "end-comment",
            "A line comment that ends the file without a newline.",
            seq([alt([text("//"), text("#")]), to_eol()]),
        ),
    ]
}
