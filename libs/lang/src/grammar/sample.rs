//! Random programs drawn from the lowered grammar: exactly what the printed
//! GBNF accepts, so every sample is accepted by it by construction; that
//! the parser accepts them too is what the tests check.
//!
//! Bounded: past [`MAX_DEPTH`] nested syntax rules, or once the program is
//! [`BUDGET`] bytes long, every choice takes the branch that ends soonest.
//! Deterministic per seed (a SplitMix64 generator).

use std::collections::{BTreeSet, HashMap};

use super::def::{Choice, Class, Kind};
use super::lower::{GRule, G};

/// Nested syntax rules before the sampler heads for the end.
pub const MAX_DEPTH: u32 = 40;
/// Program length (bytes) after which the sampler heads for the end.
pub const BUDGET: usize = 1500;
/// Most repetitions of one `+` (or `*`).
const MAX_REPEAT: u32 = 4;

/// SplitMix64: small, fast, and the same on every platform.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next_u64() % den.max(1) < num
    }
}

/// Characters a negated class is sampled from.
const ALPHABET: &[char] = &[
    'a', 'b', 'e', 'x', 'z', 'A', 'Q', '0', '7', '_', ' ', ' ', '-', '+', '*', '/', '.', ',', ';',
    ':', '(', ')', '{', '}', '[', ']', '<', '>', '=', '!', '?', '@', '&', '%', '$', '#', '"', '\\',
    '\'', '`', '~', '^', '|', 'é', 'ß', '€', '日', '\t', '\n',
];

/// What the sampler needs of a lowered grammar, computed once.
pub struct Tables<'a> {
    rules: HashMap<&'static str, &'a GRule>,
    /// For each rule, how many nested rules its shortest expansion needs.
    heights: HashMap<&'static str, u32>,
}

impl<'a> Tables<'a> {
    pub fn new(rules: &'a [GRule]) -> Tables<'a> {
        Tables {
            rules: rules.iter().map(|r| (r.name, r)).collect(),
            heights: heights(rules),
        }
    }
}

pub struct Sampler<'t, 'a> {
    tables: &'t Tables<'a>,
    rng: Rng,
    depth: u32,
    out: String,
    /// The choices taken: (choice, branch).
    pub marks: BTreeSet<(Choice, u32)>,
}

impl<'t, 'a> Sampler<'t, 'a> {
    pub fn new(tables: &'t Tables<'a>, seed: u64) -> Sampler<'t, 'a> {
        Sampler {
            tables,
            rng: Rng::new(seed),
            depth: 0,
            out: String::new(),
            marks: BTreeSet::new(),
        }
    }

    /// A program drawn from `root`.
    pub fn program(&mut self) -> String {
        self.text_of("root")
    }

    /// A text drawn from the rule `name`.
    pub fn text_of(&mut self, name: &'static str) -> String {
        self.out.clear();
        self.depth = 0;
        self.expand(name, false);
        std::mem::take(&mut self.out)
    }

    fn height(&self, g: &G) -> u32 {
        height(g, &self.tables.heights)
    }

    fn expand(&mut self, name: &'static str, short: bool) {
        let Some(rule) = self.tables.rules.get(name).copied() else {
            return;
        };
        match rule.kind {
            Kind::Token => {
                // A word the parser would not take here: draw again.
                let start = self.out.len();
                for _ in 0..100 {
                    self.out.truncate(start);
                    self.gen(&rule.body, false, false);
                    if !rule.avoid.avoids(&self.out[start..]) {
                        break;
                    }
                }
            }
            Kind::Space => self.gen(&rule.body, false, true),
            Kind::Root | Kind::Syntax => {
                self.depth += 1;
                let short = short || self.depth > MAX_DEPTH || self.out.len() > BUDGET;
                self.gen(&rule.body, short, false);
                self.depth -= 1;
            }
        }
    }

    /// `short`: take the branches that end soonest. `space`: whitespace,
    /// where the first branch (plain whitespace) is the likely one.
    fn gen(&mut self, g: &G, short: bool, space: bool) {
        match g {
            G::Text(t) => self.out.push_str(t),
            G::Class(c) => {
                let ch = self.pick(c);
                self.out.push(ch);
            }
            G::Ref(r) => self.expand(r, short),
            G::Seq(items) => items.iter().for_each(|i| self.gen(i, short, space)),
            G::Alt(branches) => {
                // Deeper down, more and more often the branch that ends
                // soonest: programs stay readable, and near the top every
                // branch is as likely as the others.
                let short =
                    short || (!space && self.rng.chance(self.depth.into(), MAX_DEPTH.into()));
                let i = if short {
                    let best = branches.iter().map(|b| self.height(b)).min().unwrap_or(0);
                    branches
                        .iter()
                        .position(|b| self.height(b) == best)
                        .unwrap_or(0)
                } else if space && branches.len() > 1 && self.rng.chance(3, 4) {
                    0
                } else if self.depth <= 3 && branches.iter().any(G::is_empty) {
                    // Near the top, mostly something: a module, a body.
                    let full: Vec<usize> = (0..branches.len())
                        .filter(|i| !branches[*i].is_empty() || self.rng.chance(1, 8))
                        .collect();
                    full.get(self.rng.below(full.len())).copied().unwrap_or(0)
                } else {
                    self.rng.below(branches.len())
                };
                if let Some(b) = branches.get(i) {
                    self.gen(b, short, space);
                }
            }
            G::Plus(x) => {
                let mut n = 1;
                while !short && n < MAX_REPEAT && self.rng.chance(1, 2) {
                    n += 1;
                }
                for _ in 0..n {
                    self.gen(x, short, space);
                }
            }
            G::Mark(c, b) => {
                self.marks.insert((*c, *b));
            }
        }
    }

    /// A character of `c`: for a class, mostly ASCII ones; for a negated
    /// class, one of [`ALPHABET`] it allows.
    fn pick(&mut self, c: &Class) -> char {
        if c.negated {
            let allowed: Vec<char> = ALPHABET
                .iter()
                .copied()
                .filter(|x| c.contains(*x))
                .collect();
            return allowed
                .get(self.rng.below(allowed.len()))
                .copied()
                .unwrap_or('a');
        }
        let ascii: Vec<(char, char)> = c
            .ranges
            .iter()
            .copied()
            .filter(|r| r.1.is_ascii())
            .collect();
        let ranges =
            if !ascii.is_empty() && (ascii.len() == c.ranges.len() || self.rng.chance(9, 10)) {
                ascii
            } else {
                c.ranges.clone()
            };
        let Some((a, b)) = ranges.get(self.rng.below(ranges.len())).copied() else {
            return 'a';
        };
        let span = (b as u32).saturating_sub(a as u32) as usize + 1;
        char::from_u32(a as u32 + self.rng.below(span) as u32).unwrap_or(a)
    }
}

const INFINITE: u32 = u32::MAX / 2;

/// For each rule, how many nested rules its shortest expansion needs (a
/// fixpoint).
fn heights(rules: &[GRule]) -> HashMap<&'static str, u32> {
    let mut known: HashMap<&'static str, u32> = HashMap::new();
    loop {
        let mut changed = false;
        for rule in rules {
            let v = height(&rule.body, &known).saturating_add(1).min(INFINITE);
            if known.get(rule.name) != Some(&v) {
                known.insert(rule.name, v);
                changed = true;
            }
        }
        if !changed {
            return known;
        }
    }
}

/// How many nested rules the shortest expansion of `g` needs, given those
/// of the rules.
fn height(g: &G, known: &HashMap<&'static str, u32>) -> u32 {
    match g {
        G::Text(_) | G::Class(_) | G::Mark(..) => 0,
        G::Ref(r) => known.get(r).copied().unwrap_or(INFINITE),
        G::Seq(items) => items.iter().map(|i| height(i, known)).max().unwrap_or(0),
        G::Alt(items) => items.iter().map(|i| height(i, known)).min().unwrap_or(0),
        G::Plus(x) => height(x, known),
    }
}
