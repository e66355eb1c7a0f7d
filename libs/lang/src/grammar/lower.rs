//! From the definition to GBNF rules: separators between tokens.
//!
//! A syntax rule lists tokens; the text between two tokens is whitespace and
//! comments. How much is needed depends on the two tokens, and is asked of
//! the lexer itself: for every pair (last token, next token), with example
//! texts of each, the lexer must read `a` + separator + `b` as the tokens of
//! `a` then those of `b`:
//!
//! * `ws`: nothing is needed (`f(x)`, `a == b`);
//! * `sep`: at least one space or comment, else they run together
//!   (`from orders`, `1 _x`);
//! * `ws-no-slash` / `sep-no-slash`: the same, but not starting with `/`,
//!   after a token that ends in `/` (`a / /* c */ b` but not `a //* c */ b`).
//!
//! Inside a rule the lowering knows which token comes last on each path, so
//! the separator is exact: `decimal(10,2)` and `decimal(10 2)` are both
//! accepted, since an optional `,` splits the path in two. A repetition
//! carries the separator that its own ending needs when that is what
//! decides (`}model` but `import a model`). Where a rule refers to another,
//! the separator is the strictest one over the tokens the other rule can
//! start or end with: `(a) and b` is accepted but `(a)and b` is not,
//! because an operand can also end with a name. That is the only place
//! where a separator is stricter than the lexer needs; none is looser.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::def::{Avoid, Choice, Class, Kind, Node, Rule};
use crate::lexer::{lex, TokenKind};
use crate::span::FileId;

/// A rule body as printed and sampled: the definition's choices become
/// [`G::Mark`]s, optional parts alternatives with an empty branch.
#[derive(Clone, Debug, PartialEq)]
pub enum G {
    Text(String),
    Class(Class),
    Ref(&'static str),
    Seq(Vec<G>),
    /// Branches; a branch that matches nothing makes the whole optional.
    Alt(Vec<G>),
    Plus(Box<G>),
    /// Matches nothing; records that the sampler took branch `.1` of a
    /// choice of the definition (for an optional part or a repetition: 0
    /// when absent, 1 when present).
    Mark(Choice, u32),
}

impl G {
    /// Whether this matches only the empty text.
    pub fn is_empty(&self) -> bool {
        match self {
            G::Mark(..) => true,
            G::Seq(items) | G::Alt(items) => items.iter().all(G::is_empty),
            _ => false,
        }
    }
}

/// A lowered rule.
#[derive(Clone, Debug)]
pub struct GRule {
    pub name: &'static str,
    pub kind: Kind,
    pub doc: &'static str,
    pub body: G,
    pub avoid: Avoid,
}

/// The lowered grammar.
#[derive(Debug)]
pub struct Lowered {
    pub rules: Vec<GRule>,
    /// Places where a separator inside a rule had to be stricter than the
    /// lexer needs (none, with the definition as written: a test checks).
    pub coarse: Vec<String>,
}

/// What the lexer needs between two tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Gap {
    /// Nothing at all: the start of a rule (the caller places it).
    Nothing,
    /// `ws`: whitespace and comments, possibly none.
    Optional,
    /// `ws-no-slash`.
    OptionalNoSlash,
    /// `sep`: at least one space or comment.
    Required,
    /// `sep-no-slash`.
    RequiredNoSlash,
}

impl Gap {
    fn from_flags(required: bool, no_slash: bool) -> Gap {
        match (required, no_slash) {
            (false, false) => Gap::Optional,
            (false, true) => Gap::OptionalNoSlash,
            (true, false) => Gap::Required,
            (true, true) => Gap::RequiredNoSlash,
        }
    }

    fn flags(self) -> (bool, bool) {
        match self {
            Gap::Nothing | Gap::Optional => (false, false),
            Gap::OptionalNoSlash => (false, true),
            Gap::Required => (true, false),
            Gap::RequiredNoSlash => (true, true),
        }
    }

    /// The stricter of the two.
    fn join(self, other: Gap) -> Gap {
        if self == Gap::Nothing {
            return other;
        }
        if other == Gap::Nothing {
            return self;
        }
        let (r1, n1) = self.flags();
        let (r2, n2) = other.flags();
        Gap::from_flags(r1 || r2, n1 || n2)
    }

    /// The space rule that matches it.
    pub(crate) fn rule(self) -> Option<&'static str> {
        match self {
            Gap::Nothing => None,
            Gap::Optional => Some("ws"),
            Gap::OptionalNoSlash => Some("ws-no-slash"),
            Gap::Required => Some("sep"),
            Gap::RequiredNoSlash => Some("sep-no-slash"),
        }
    }
}

/// A token as the separator analysis sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Leaf {
    /// A reserved word, contextual word or symbol: its text.
    Lit(&'static str),
    /// A token rule.
    Tok(&'static str),
    /// The end of the file.
    Eof,
}

/// Example texts of a token rule: one of each shape that can change how it
/// runs together with a neighbour (first character a letter or `_`, last
/// character a letter, digit or `_`, a float starting with `.`). `None` for
/// a name that is not a token rule used by syntax rules.
pub(crate) fn token_examples(name: &str) -> Option<&'static [&'static str]> {
    Some(match name {
        "ident" | "module-name" => &["a", "_a", "a1", "a_", "`a`"],
        "unit" => &["h", "h1", "h_"],
        "int" => &["1", "1_"],
        "float" => &["1.5", ".5", "1.5_"],
        "string" => &["\"s\""],
        _ => return None,
    })
}

fn examples(leaf: Leaf) -> Vec<&'static str> {
    match leaf {
        Leaf::Lit(text) => vec![text],
        Leaf::Tok(name) => token_examples(name).unwrap_or(&[]).to_vec(),
        Leaf::Eof => vec![""],
    }
}

/// The tokens of `text` as (kind, text), or `None` on a lex error.
fn tokens(text: &str) -> Option<Vec<(TokenKind<'_>, String)>> {
    let lexed = lex(FileId(0), text);
    if !lexed.diagnostics.is_empty() {
        return None;
    }
    Some(
        lexed
            .tokens
            .into_iter()
            .filter(|t| t.kind != TokenKind::Eof)
            .map(|t| (t.kind, text.get(t.span.range()).unwrap_or("").to_string()))
            .collect(),
    )
}

/// Whether the lexer reads `a + between + b` as the tokens of `a` then
/// those of `b`.
fn apart(a: &str, between: &str, b: &str) -> bool {
    let (Some(mut ta), Some(tb)) = (tokens(a), tokens(b)) else {
        return false;
    };
    ta.extend(tb);
    tokens(&format!("{a}{between}{b}")) == Some(ta)
}

/// The separator the lexer needs between two tokens, and whether some
/// whitespace does separate them (it always should).
pub(crate) fn pair_sep(a: Leaf, b: Leaf) -> (Gap, bool) {
    let mut required = false;
    let mut no_slash = false;
    let mut separable = true;
    for x in examples(a) {
        for y in examples(b) {
            required |= !apart(x, "", y);
            no_slash |= !apart(x, "/*c*/", y) || !apart(x, "//c\n", y);
            separable &= apart(x, " ", y) && apart(x, "\n", y) && apart(x, "#c\n", y);
        }
    }
    (Gap::from_flags(required, no_slash), separable)
}

/// What can come before the next token on one path through a rule.
#[derive(Clone, Debug, PartialEq)]
enum Pred {
    /// Nothing yet: the start of the rule.
    Start,
    /// One of these tokens.
    Leaves(BTreeSet<Leaf>),
}

/// One path (or several merged) through the part of a rule rendered so far.
#[derive(Clone, Debug)]
struct Out {
    items: Vec<G>,
    pred: Pred,
}

type Sets = HashMap<&'static str, BTreeSet<Leaf>>;

struct Lowering {
    first: Sets,
    last: Sets,
    /// The tokens that can follow each syntax rule.
    follow: Sets,
    /// For a token, the separator needed before each other token.
    sig: BTreeMap<Leaf, BTreeMap<Leaf, Gap>>,
    coarse: Vec<String>,
    /// The rule being lowered (for `coarse`).
    current: &'static str,
}

/// Lower the definition.
pub fn lower(rules: &[Rule]) -> Lowered {
    let first = sets(rules, false);
    let last = sets(rules, true);
    let follow = follow_sets(rules, &first);
    let mut leaves = BTreeSet::new();
    for rule in rules.iter().filter(|r| is_syntax(r.kind)) {
        collect_leaves(&rule.body, &mut leaves);
    }
    let mut coarse = Vec::new();
    let mut sig = BTreeMap::new();
    for a in &leaves {
        let mut row = BTreeMap::new();
        for b in leaves.iter().chain([&Leaf::Eof]) {
            let (sep, separable) = pair_sep(*a, *b);
            if !separable {
                coarse.push(format!("whitespace does not separate {a:?} and {b:?}"));
            }
            row.insert(*b, sep);
        }
        sig.insert(*a, row);
    }
    let mut l = Lowering {
        first,
        last,
        follow,
        sig,
        coarse,
        current: "",
    };
    let mut next_choice = max_choice(rules) + 1;
    let mut out = Vec::new();
    for rule in rules {
        l.current = rule.name;
        let body = match rule.kind {
            Kind::Root => l.root(&rule.body, &mut next_choice),
            Kind::Syntax => {
                let follow = l.follow.get(rule.name).cloned().unwrap_or_default();
                let outs = l.render(&rule.body, &Pred::Start, &follow);
                G::Seq(merge_all(outs).items)
            }
            Kind::Token | Kind::Space => to_g(&rule.body),
        };
        out.push(GRule {
            name: rule.name,
            kind: rule.kind,
            doc: rule.doc,
            body: simplify(body),
            avoid: rule.avoid,
        });
    }
    Lowered {
        rules: out,
        coarse: l.coarse,
    }
}

fn is_syntax(kind: Kind) -> bool {
    matches!(kind, Kind::Root | Kind::Syntax)
}

fn max_choice(rules: &[Rule]) -> u32 {
    fn walk(n: &Node, max: &mut u32) {
        match n {
            Node::Alt(items, c) => {
                *max = (*max).max(c.0);
                items.iter().for_each(|i| walk(i, max));
            }
            Node::Opt(x, c) | Node::Star(x, c) => {
                *max = (*max).max(c.0);
                walk(x, max);
            }
            Node::Plus(x) => walk(x, max),
            Node::Seq(items) => items.iter().for_each(|i| walk(i, max)),
            _ => {}
        }
    }
    let mut max = 0;
    rules.iter().for_each(|r| walk(&r.body, &mut max));
    max
}

fn collect_leaves(n: &Node, out: &mut BTreeSet<Leaf>) {
    match n {
        Node::Kw(t) | Node::Word(t) | Node::Sym(t) => {
            out.insert(Leaf::Lit(t));
        }
        Node::Tok(t) => {
            out.insert(Leaf::Tok(t));
        }
        Node::Seq(items) | Node::Alt(items, _) => items.iter().for_each(|i| collect_leaves(i, out)),
        Node::Opt(x, _) | Node::Star(x, _) | Node::Plus(x) => collect_leaves(x, out),
        Node::Ref(_) | Node::Text(_) | Node::Chars(_) => {}
    }
}

/// The FIRST (or, `from_end`, LAST) token sets of every syntax rule (a
/// fixpoint).
pub(crate) fn sets(rules: &[Rule], from_end: bool) -> Sets {
    let mut known: Sets = HashMap::new();
    loop {
        let mut changed = false;
        for rule in rules.iter().filter(|r| is_syntax(r.kind)) {
            let set = edge(&rule.body, &known, from_end).0;
            let entry = known.entry(rule.name).or_default();
            let before = entry.len();
            entry.extend(set);
            changed |= entry.len() != before;
        }
        if !changed {
            return known;
        }
    }
}

/// The tokens `n` can start with (or end with, `from_end`), and whether it
/// can be empty.
fn edge(n: &Node, known: &Sets, from_end: bool) -> (BTreeSet<Leaf>, bool) {
    match n {
        Node::Kw(t) | Node::Word(t) | Node::Sym(t) => (BTreeSet::from([Leaf::Lit(t)]), false),
        Node::Tok(t) => (BTreeSet::from([Leaf::Tok(t)]), false),
        Node::Ref(r) => (known.get(r).cloned().unwrap_or_default(), false),
        Node::Text(_) | Node::Chars(_) => (BTreeSet::new(), false),
        Node::Seq(items) => {
            let ordered: Vec<&Node> = if from_end {
                items.iter().rev().collect()
            } else {
                items.iter().collect()
            };
            seq_edge(&ordered, known, from_end)
        }
        Node::Alt(items, _) => {
            let mut set = BTreeSet::new();
            let mut nullable = false;
            for item in items {
                let (s, n) = edge(item, known, from_end);
                set.extend(s);
                nullable |= n;
            }
            (set, nullable)
        }
        Node::Opt(x, _) | Node::Star(x, _) => (edge(x, known, from_end).0, true),
        Node::Plus(x) => edge(x, known, from_end),
    }
}

fn seq_edge(items: &[&Node], known: &Sets, from_end: bool) -> (BTreeSet<Leaf>, bool) {
    let mut set = BTreeSet::new();
    for item in items {
        let (s, nullable) = edge(item, known, from_end);
        set.extend(s);
        if !nullable {
            return (set, false);
        }
    }
    (set, true)
}

/// The tokens that can follow the rest `items` of a sequence that `after`
/// follows.
fn first_of_rest(items: &[Node], first: &Sets, after: &BTreeSet<Leaf>) -> BTreeSet<Leaf> {
    let refs: Vec<&Node> = items.iter().collect();
    let (mut set, nullable) = seq_edge(&refs, first, false);
    if nullable {
        set.extend(after.iter().copied());
    }
    set
}

/// The tokens that can follow each syntax rule (a fixpoint).
fn follow_sets(rules: &[Rule], first: &Sets) -> Sets {
    fn walk(n: &Node, after: &BTreeSet<Leaf>, first: &Sets, follow: &mut Sets) {
        match n {
            Node::Ref(r) => follow.entry(r).or_default().extend(after.iter().copied()),
            Node::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let next = first_of_rest(&items[i + 1..], first, after);
                    walk(item, &next, first, follow);
                }
            }
            Node::Alt(items, _) => items.iter().for_each(|i| walk(i, after, first, follow)),
            Node::Opt(x, _) => walk(x, after, first, follow),
            Node::Star(x, _) | Node::Plus(x) => {
                let mut again = edge(x, first, false).0;
                again.extend(after.iter().copied());
                walk(x, &again, first, follow);
            }
            _ => {}
        }
    }
    let mut follow: Sets = HashMap::new();
    for rule in rules.iter().filter(|r| r.kind == Kind::Root) {
        follow.insert(rule.name, BTreeSet::from([Leaf::Eof]));
    }
    loop {
        let before: usize = follow.values().map(BTreeSet::len).sum();
        for rule in rules.iter().filter(|r| is_syntax(r.kind)) {
            let after = follow.get(rule.name).cloned().unwrap_or_default();
            walk(&rule.body, &after, first, &mut follow);
        }
        if follow.values().map(BTreeSet::len).sum::<usize>() == before {
            return follow;
        }
    }
}

impl Lowering {
    /// The separator before a token of `next` after `pred`.
    fn sep_before(&self, pred: &Pred, next: &BTreeSet<Leaf>) -> Gap {
        let Pred::Leaves(leaves) = pred else {
            return Gap::Nothing;
        };
        let mut sep = Gap::Nothing;
        for a in leaves {
            if let Some(row) = self.sig.get(a) {
                for b in next {
                    sep = sep.join(row.get(b).copied().unwrap_or(Gap::Optional));
                }
            }
        }
        sep
    }

    /// The separators `pred` needs before each token of `follow`: two
    /// paths with the same ones can be merged.
    fn signature(&self, pred: &Pred, follow: &BTreeSet<Leaf>) -> Vec<Gap> {
        follow
            .iter()
            .map(|b| self.sep_before(pred, &BTreeSet::from([*b])))
            .collect()
    }

    fn token(&self, pred: &Pred, leaf: Leaf, g: G) -> Vec<Out> {
        let sep = self.sep_before(pred, &BTreeSet::from([leaf]));
        let mut items: Vec<G> = sep.rule().map(G::Ref).into_iter().collect();
        items.push(g);
        vec![Out {
            items,
            pred: Pred::Leaves(BTreeSet::from([leaf])),
        }]
    }

    /// The paths through `n` after `pred`, merged where nothing in
    /// `follow` (what can come next) can tell them apart.
    fn render(&mut self, n: &Node, pred: &Pred, follow: &BTreeSet<Leaf>) -> Vec<Out> {
        match n {
            Node::Kw(t) | Node::Word(t) | Node::Sym(t) => {
                self.token(pred, Leaf::Lit(t), G::Text(t.to_string()))
            }
            Node::Tok(t) => self.token(pred, Leaf::Tok(t), G::Ref(t)),
            Node::Ref(r) => {
                let firsts = self.first.get(r).cloned().unwrap_or_default();
                let sep = self.sep_before(pred, &firsts);
                let mut items: Vec<G> = sep.rule().map(G::Ref).into_iter().collect();
                items.push(G::Ref(r));
                vec![Out {
                    items,
                    pred: Pred::Leaves(self.last.get(r).cloned().unwrap_or_default()),
                }]
            }
            // Characters only appear in token and space rules, which are
            // not rendered.
            Node::Text(_) | Node::Chars(_) => vec![Out {
                items: vec![to_g(n)],
                pred: pred.clone(),
            }],
            Node::Seq(items) => {
                let mut outs = vec![Out {
                    items: Vec::new(),
                    pred: pred.clone(),
                }];
                for (i, item) in items.iter().enumerate() {
                    let next = first_of_rest(&items[i + 1..], &self.first, follow);
                    let mut paths = Vec::new();
                    for o in outs {
                        for co in self.render(item, &o.pred, &next) {
                            let mut items = o.items.clone();
                            items.extend(co.items);
                            paths.push(Out {
                                items,
                                pred: co.pred,
                            });
                        }
                    }
                    outs = self.merge_equal(paths, &next);
                }
                outs
            }
            Node::Alt(branches, c) => {
                let mut outs = Vec::new();
                for (i, b) in branches.iter().enumerate() {
                    for mut o in self.render(b, pred, follow) {
                        o.items.push(G::Mark(*c, i as u32));
                        outs.push(o);
                    }
                }
                self.merge_equal(outs, follow)
            }
            Node::Opt(x, c) => {
                let mut outs = vec![Out {
                    items: vec![G::Mark(*c, 0)],
                    pred: pred.clone(),
                }];
                for mut o in self.render(x, pred, follow) {
                    o.items.push(G::Mark(*c, 1));
                    outs.push(o);
                }
                self.merge_equal(outs, follow)
            }
            Node::Star(x, c) => {
                let mut outs = vec![Out {
                    items: vec![G::Mark(*c, 0)],
                    pred: pred.clone(),
                }];
                outs.extend(self.repeat(x, Some(*c), pred, follow));
                self.merge_equal(outs, follow)
            }
            Node::Plus(x) => self.repeat(x, None, pred, follow),
        }
    }

    /// One or more `x` after `pred`, the first rendered after `pred`. The
    /// separator before each later one is exact in two cases:
    /// * it does not depend on how the previous one ended (it depends only
    ///   on how the next one starts): `x (gap x)*`, the gap with each `x`;
    /// * it depends only on how the previous one ended: each `x` carries
    ///   it at its end, `(x1 gap1 | x2 gap2)* x`, `x1`, `x2` the ways `x`
    ///   can end.
    ///
    /// Otherwise the first form is used with the strictest separators
    /// (recorded in `coarse`).
    fn repeat(
        &mut self,
        x: &Node,
        c: Option<Choice>,
        pred: &Pred,
        follow: &BTreeSet<Leaf>,
    ) -> Vec<Out> {
        let firsts = edge(x, &self.first, false).0;
        let mut inner = firsts.clone();
        inner.extend(follow.iter().copied());
        let first = self.render(x, pred, &inner);
        let first = self.merge_equal(first, &inner);
        let bare = self.render(x, &Pred::Start, &inner);
        let bare = self.merge_equal(bare, &inner);
        let marked = |mut items: Vec<G>| {
            items.extend(c.map(|c| G::Mark(c, 1)));
            items
        };
        // What a later `x` can come after, and how it is rendered there.
        let ends: Vec<Pred> = first.iter().chain(&bare).map(|o| o.pred.clone()).collect();
        let mut renderings: Vec<Vec<Vec<G>>> = Vec::new();
        for e in &ends {
            let r = self.render(x, e, &inner);
            renderings.push(
                self.merge_equal(r, &inner)
                    .into_iter()
                    .map(|o| o.items)
                    .collect(),
            );
        }
        let leading = renderings.iter().all(|r| *r == renderings[0]);
        // The separator each way of ending needs before any `x`.
        let gap_after = |o: &Out| -> Option<Gap> {
            let gaps: BTreeSet<Gap> = firsts
                .iter()
                .map(|f| self.sep_before(&o.pred, &BTreeSet::from([*f])))
                .collect();
            match gaps.into_iter().collect::<Vec<_>>()[..] {
                [g] => Some(g),
                _ => None,
            }
        };
        let trailing: Option<Vec<Gap>> = first.iter().chain(&bare).map(gap_after).collect();
        let trailing = trailing.filter(|_| !leading);
        let Some(gaps) = trailing else {
            if !leading {
                self.coarse.push(format!(
                    "{}: a repetition's separator depends on how the previous one ends \
                     and on how the next one starts",
                    self.current
                ));
            }
            let union = union(&ends);
            let again = self.render(x, &union, &inner);
            let again = merge_all(again);
            let first = merge_all(first);
            let items = if first.items == again.items {
                vec![G::Plus(Box::new(G::Seq(marked(first.items))))]
            } else {
                let mut items = marked(first.items);
                items.push(G::Alt(vec![
                    G::Seq(Vec::new()),
                    G::Plus(Box::new(G::Seq(again.items))),
                ]));
                items
            };
            return vec![Out {
                items,
                pred: union_of(first.pred, again.pred),
            }];
        };
        let (first_gaps, bare_gaps) = gaps.split_at(first.len());
        let then = |outs: &[Out], gaps: &[Gap]| {
            G::Seq(factor(
                outs.iter()
                    .zip(gaps)
                    .map(|(o, gap)| {
                        let mut p = o.items.clone();
                        p.extend(gap.rule().map(G::Ref));
                        p
                    })
                    .collect(),
            ))
        };
        let more = G::Alt(vec![
            G::Seq(Vec::new()),
            G::Plus(Box::new(then(&bare, bare_gaps))),
        ]);
        let same = |a: &[Out], b: &[Out]| {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.items == y.items)
        };
        let (mut outs, lead) = if same(&first, &bare) {
            // `(x1 gap1 | x2 gap2)* x`.
            (Vec::new(), vec![more])
        } else {
            // Just one `x`; or the first and its separator, more with
            // theirs, and a last one.
            let once = first
                .iter()
                .map(|o| Out {
                    items: marked(o.items.clone()),
                    pred: o.pred.clone(),
                })
                .collect();
            (once, vec![then(&first, first_gaps), more])
        };
        for o in &bare {
            let mut items = marked(lead.clone());
            items.extend(o.items.iter().cloned());
            outs.push(Out {
                items,
                pred: o.pred.clone(),
            });
        }
        self.merge_equal(outs, follow)
    }

    /// Merge the paths that need the same separators before whatever of
    /// `follow` comes next.
    fn merge_equal(&self, outs: Vec<Out>, follow: &BTreeSet<Leaf>) -> Vec<Out> {
        let mut groups: Vec<(Vec<Gap>, Vec<Out>)> = Vec::new();
        for o in outs {
            let sig = self.signature(&o.pred, follow);
            match groups.iter_mut().find(|(s, _)| *s == sig) {
                Some((_, g)) => g.push(o),
                None => groups.push((sig, vec![o])),
            }
        }
        groups.into_iter().map(|(_, g)| merge_all(g)).collect()
    }

    /// `root`: an optional byte-order mark, whitespace, the declarations
    /// and whitespace, and an optional final line comment.
    fn root(&mut self, body: &Node, next: &mut u32) -> G {
        let mut fresh = || {
            let c = Choice(*next);
            *next += 1;
            c
        };
        let (bom, decls, end) = (fresh(), fresh(), fresh());
        let eof_set = BTreeSet::from([Leaf::Eof]);
        let merged = merge_all(self.render(body, &Pred::Start, &eof_set));
        let eof = self.sep_before(&merged.pred, &eof_set);
        if eof != Gap::Optional {
            self.coarse
                .push(format!("root: the separator before the end is {eof:?}"));
        }
        let mut decl_items = merged.items;
        decl_items.extend(eof.rule().map(G::Ref));
        decl_items.push(G::Mark(decls, 1));
        let optional = |c: Choice, items: Vec<G>| {
            let mut present = items;
            present.push(G::Mark(c, 1));
            G::Alt(vec![G::Mark(c, 0), G::Seq(present)])
        };
        G::Seq(vec![
            optional(bom, vec![G::Text("\u{feff}".to_string())]),
            G::Ref("ws"),
            G::Alt(vec![G::Mark(decls, 0), G::Seq(decl_items)]),
            optional(end, vec![G::Ref("end-comment")]),
        ])
    }
}

fn union(preds: &[Pred]) -> Pred {
    preds.iter().cloned().fold(Pred::Start, union_of)
}

fn union_of(a: Pred, b: Pred) -> Pred {
    match (a, b) {
        (Pred::Start, p) | (p, Pred::Start) => p,
        (Pred::Leaves(mut x), Pred::Leaves(y)) => {
            x.extend(y);
            Pred::Leaves(x)
        }
    }
}

/// The marks of a path: the choices it took.
fn marks(items: &[G], out: &mut Vec<(Choice, u32)>) {
    for item in items {
        match item {
            G::Mark(c, b) => out.push((*c, *b)),
            G::Seq(inner) | G::Alt(inner) => marks(inner, out),
            G::Plus(x) => marks(std::slice::from_ref(&**x), out),
            _ => {}
        }
    }
}

/// Merge paths into one: alternatives in the definition's order, common
/// beginnings and ends factored out. Paths that were merged before are
/// also tried split up again; the shorter text wins.
fn merge_all(outs: Vec<Out>) -> Out {
    let pred = union(&outs.iter().map(|o| o.pred.clone()).collect::<Vec<_>>());
    let paths: Vec<Vec<G>> = outs.into_iter().map(|o| o.items).collect();
    let ordered = |mut paths: Vec<Vec<G>>| {
        paths.sort_by_cached_key(|p| {
            // Choices are numbered outside-in, so the sorted marks of a
            // path order it as the definition does.
            let mut m = Vec::new();
            marks(p, &mut m);
            m.sort();
            m
        });
        factor(paths)
    };
    let whole = ordered(
        paths
            .iter()
            .flat_map(|p| expand(p.clone(), false))
            .collect(),
    );
    let split = ordered(paths.into_iter().flat_map(|p| expand(p, true)).collect());
    let len = |items: &[G]| super::print::text(&G::Seq(items.to_vec())).len();
    let items = if len(&split) < len(&whole) {
        split
    } else {
        whole
    };
    Out { items, pred }
}

/// The paths of an already merged path: one per branch when it is one
/// alternative, or (`anywhere`) when it holds one, so that they can be
/// ordered and factored with others.
fn expand(items: Vec<G>, anywhere: bool) -> Vec<Vec<G>> {
    let mut flat = Vec::new();
    for item in items {
        match item {
            G::Seq(inner) => flat.extend(inner),
            other => flat.push(other),
        }
    }
    let alts: Vec<usize> = (0..flat.len())
        .filter(|i| matches!(flat[*i], G::Alt(_)))
        .collect();
    let at = match alts.as_slice() {
        [at] if anywhere || flat.len() == 1 => *at,
        _ => return vec![flat],
    };
    let G::Alt(branches) = &flat[at] else {
        return vec![flat];
    };
    branches
        .iter()
        .flat_map(|b| {
            let mut path = flat[..at].to_vec();
            path.push(b.clone());
            path.extend(flat[at + 1..].iter().cloned());
            expand(path, anywhere)
        })
        .collect()
}

/// One sequence matching any of `paths`. Marks match nothing, so they are
/// left out when comparing paths and kept in the part of their path that
/// is not shared.
fn factor(paths: Vec<Vec<G>>) -> Vec<G> {
    let mut unique: Vec<Vec<G>> = Vec::new();
    for p in paths {
        if !unique.contains(&p) {
            unique.push(p);
        }
    }
    if unique.len() <= 1 {
        return unique.pop().unwrap_or_default();
    }
    let (marks, plain): (Vec<Vec<G>>, Vec<Vec<G>>) = unique
        .into_iter()
        .map(|p| p.into_iter().partition(|g| matches!(g, G::Mark(..))))
        .unzip();
    let shortest = plain.iter().map(Vec::len).min().unwrap_or(0);
    let prefix = (0..shortest)
        .take_while(|i| plain.iter().all(|p| p[*i] == plain[0][*i]))
        .count();
    let suffix = (0..shortest - prefix)
        .take_while(|i| {
            let at = |p: &Vec<G>| p[p.len() - 1 - i].clone();
            plain.iter().all(|p| at(p) == at(&plain[0]))
        })
        .count();
    if prefix > 0 || suffix > 0 {
        let mut items = plain[0][..prefix].to_vec();
        let middles = marks
            .into_iter()
            .zip(&plain)
            .map(|(mut m, p)| {
                m.extend(p[prefix..p.len() - suffix].iter().cloned());
                m
            })
            .collect();
        items.push(G::Seq(factor(middles)));
        items.extend(plain[0][plain[0].len() - suffix..].iter().cloned());
        return items;
    }
    // Group the paths by their first item, keeping the order.
    let mut groups: Vec<(Option<G>, Vec<Vec<G>>)> = Vec::new();
    for (mut m, p) in marks.into_iter().zip(plain) {
        let head = p.first().cloned();
        m.extend(p);
        match groups
            .iter_mut()
            .find(|(h, _)| head.is_some() && *h == head)
        {
            Some((_, g)) => g.push(m),
            None => groups.push((head, vec![m])),
        }
    }
    vec![G::Alt(
        groups.into_iter().map(|(_, g)| G::Seq(factor(g))).collect(),
    )]
}

/// A token or space rule, as written.
fn to_g(n: &Node) -> G {
    match n {
        Node::Text(t) => G::Text(t.to_string()),
        Node::Chars(c) => G::Class(c.clone()),
        Node::Kw(t) | Node::Word(t) | Node::Sym(t) => G::Text(t.to_string()),
        Node::Tok(r) | Node::Ref(r) => G::Ref(r),
        Node::Seq(items) => G::Seq(items.iter().map(to_g).collect()),
        Node::Alt(items, c) => G::Alt(
            items
                .iter()
                .enumerate()
                .map(|(i, x)| G::Seq(vec![to_g(x), G::Mark(*c, i as u32)]))
                .collect(),
        ),
        Node::Opt(x, c) => G::Alt(vec![G::Mark(*c, 0), G::Seq(vec![to_g(x), G::Mark(*c, 1)])]),
        Node::Star(x, c) => G::Alt(vec![
            G::Mark(*c, 0),
            G::Plus(Box::new(G::Seq(vec![to_g(x), G::Mark(*c, 1)]))),
        ]),
        Node::Plus(x) => G::Plus(Box::new(to_g(x))),
    }
}

/// Flatten nested sequences and drop empty ones (keeping marks).
fn simplify(g: G) -> G {
    match g {
        G::Seq(items) => {
            let mut flat = Vec::new();
            for item in items.into_iter().map(simplify) {
                match item {
                    G::Seq(inner) => flat.extend(inner),
                    other => flat.push(other),
                }
            }
            if flat.len() == 1 && !matches!(flat[0], G::Mark(..)) {
                flat.remove(0)
            } else {
                G::Seq(flat)
            }
        }
        G::Alt(items) => G::Alt(items.into_iter().map(simplify).collect()),
        G::Plus(x) => G::Plus(Box::new(simplify(*x))),
        other => other,
    }
}
