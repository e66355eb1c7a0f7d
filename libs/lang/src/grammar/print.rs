//! GBNF text: one rule per line, `root` first. Rule names are lowercase
//! letters and hyphens; the text is ASCII (other characters are written
//! `\uXXXX`).

use super::def::Class;
use super::lower::{GRule, G};

/// How a printed part binds, for parentheses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    Atom,
    Seq,
    Alt,
}

/// The grammar as GBNF; with `doc`, a `#` comment line before each rule.
pub fn gbnf(rules: &[GRule], doc: bool) -> String {
    let mut out = String::new();
    for rule in rules {
        if doc {
            out.push_str("# ");
            out.push_str(rule.doc);
            out.push('\n');
        }
        let body = show(&rule.body).map_or_else(|| "\"\"".to_string(), |(text, _)| text);
        out.push_str(&format!("{} ::= {body}\n", rule.name));
    }
    out
}

/// How `g` is printed (empty when it matches only the empty text).
pub(crate) fn text(g: &G) -> String {
    show(g).map(|(t, _)| t).unwrap_or_default()
}

fn show(g: &G) -> Option<(String, Shape)> {
    match g {
        G::Mark(..) => None,
        G::Text(t) => Some((quote(t), Shape::Atom)),
        G::Class(c) => Some((class(c), Shape::Atom)),
        G::Ref(r) => Some((r.to_string(), Shape::Atom)),
        G::Seq(items) => {
            let parts: Vec<(String, Shape)> = items.iter().filter_map(show).collect();
            if parts.len() <= 1 {
                return parts.into_iter().next();
            }
            let text = parts
                .into_iter()
                .map(|(t, s)| if s == Shape::Alt { format!("({t})") } else { t })
                .collect::<Vec<_>>()
                .join(" ");
            Some((text, Shape::Seq))
        }
        G::Alt(branches) => {
            let optional = branches.iter().any(G::is_empty);
            let shown: Vec<&G> = branches.iter().filter(|b| !b.is_empty()).collect();
            if let ([only], true) = (shown.as_slice(), optional) {
                if let Some(inner) = as_plus(only) {
                    return show(inner).map(|s| (postfix(s, '*'), Shape::Atom));
                }
            }
            let mut texts: Vec<(String, Shape)> = Vec::new();
            for s in shown.iter().filter_map(|b| show(b)) {
                if !texts.iter().any(|(t, _)| *t == s.0) {
                    texts.push(s);
                }
            }
            let single = texts.len() == 1;
            let joined = match texts.len() {
                0 => return None,
                1 => texts.remove(0),
                _ => (
                    texts
                        .into_iter()
                        .map(|(t, _)| t)
                        .collect::<Vec<_>>()
                        .join(" | "),
                    Shape::Alt,
                ),
            };
            Some(if optional {
                (postfix(joined, '?'), Shape::Atom)
            } else if single {
                joined
            } else {
                (joined.0, Shape::Alt)
            })
        }
        G::Plus(x) => show(x).map(|s| (postfix(s, '+'), Shape::Atom)),
    }
}

/// `x` when `g` is `x+` (possibly with marks around it).
fn as_plus(g: &G) -> Option<&G> {
    match g {
        G::Plus(x) => Some(x),
        G::Seq(items) => {
            let mut visible = items.iter().filter(|i| !i.is_empty());
            match (visible.next(), visible.next()) {
                (Some(only), None) => as_plus(only),
                _ => None,
            }
        }
        _ => None,
    }
}

fn postfix((text, shape): (String, Shape), op: char) -> String {
    if shape == Shape::Atom {
        format!("{text}{op}")
    } else {
        format!("({text}){op}")
    }
}

/// A character as GBNF writes it inside `"..."` or `[...]`.
fn escape(c: char, special: &[char]) -> String {
    match c {
        '\\' => "\\\\".to_string(),
        '\n' => "\\n".to_string(),
        '\t' => "\\t".to_string(),
        '\r' => "\\r".to_string(),
        c if special.contains(&c) => format!("\\x{:02X}", c as u32),
        c if (' '..='~').contains(&c) => c.to_string(),
        c if (c as u32) < 0x100 => format!("\\x{:02X}", c as u32),
        c if (c as u32) < 0x10000 => format!("\\u{:04X}", c as u32),
        c => format!("\\U{:08X}", c as u32),
    }
}

fn quote(text: &str) -> String {
    let body: String = text
        .chars()
        .map(|c| {
            if c == '"' {
                "\\\"".to_string()
            } else {
                escape(c, &[])
            }
        })
        .collect();
    format!("\"{body}\"")
}

fn class(c: &Class) -> String {
    const SPECIAL: &[char] = &['[', ']', '^', '-'];
    let mut out = String::from("[");
    if c.negated {
        out.push('^');
    }
    for (a, b) in &c.ranges {
        out.push_str(&escape(*a, SPECIAL));
        if a != b {
            out.push('-');
            out.push_str(&escape(*b, SPECIAL));
        }
    }
    out.push(']');
    out
}
