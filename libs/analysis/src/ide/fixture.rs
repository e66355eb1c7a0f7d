//! Where the cursor is in a fixture test (`test m "x" { given s(..) {..}
//! expect rows(..) {..} }`), read from the text before it: the file may not
//! parse while a row is being typed.

use strata_lang::ident::unwritten;

/// A place in a fixture test that completion knows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Spot {
    /// After `given`: an input of the tested model.
    Input { model: String },
    /// In `given input(..`: a column of that input.
    InputColumn { model: String, input: String },
    /// In `expect rows(..`: an output column of the model.
    OutputColumn { model: String },
    /// After `expect`: `rows`, `row_count` or an output column.
    Expect { model: String },
    /// Between the entries of the test's body (`first`: before any).
    Body { model: String, first: bool },
    /// After `severity:`.
    Severity,
}

/// The tokens that matter here: names, strings (as one token) and symbols.
fn tokens(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
        } else if c == b'#' || (c == b'/' && b.get(i + 1) == Some(&b'/')) {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if c == b'"' {
            let start = i;
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i = (i + 1).min(b.len());
            out.push(&text[start..i]);
        } else if c == b'`' {
            // A quoted name, one token with its backticks.
            let start = i;
            i += 1;
            while i < b.len() && b[i] != b'`' && b[i] != b'\n' {
                i += 1;
            }
            if b.get(i) == Some(&b'`') {
                i += 1;
            }
            out.push(&text[start..i]);
        } else if c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80 {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] >= 0x80) {
                i += 1;
            }
            out.push(&text[start..i]);
        } else {
            let w = text[i..].chars().next().map_or(1, char::len_utf8);
            out.push(&text[i..i + w]);
            i += w;
        }
    }
    out
}

/// The spot at byte `offset` of `text`, when it is inside a `test` block
/// (the last one that starts a line before the cursor). `typing`: the
/// cursor ends a word being typed, which does not count.
pub fn spot(text: &str, offset: usize, typing: bool) -> Option<Spot> {
    let before = text.get(..offset)?;
    let start = before
        .rmatch_indices("test ")
        .map(|(i, _)| i)
        .find(|&i| i == 0 || before.as_bytes()[i - 1] == b'\n')?;
    let mut toks = tokens(&before[start..]);
    if typing
        && toks
            .last()
            .is_some_and(|t| t.chars().all(|c| c.is_alphanumeric() || c == '_'))
    {
        toks.pop();
    }
    let model = unwritten(toks.get(1)?).to_string();
    let open = toks.iter().position(|t| *t == "{")?;
    // Walk the body: braces, and the column list being written.
    let mut depth = 0usize;
    let mut list: Option<Spot> = None;
    for (k, t) in toks.iter().enumerate().skip(open) {
        match *t {
            "{" => depth += 1,
            "}" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return None;
                }
            }
            "(" if depth == 1 && k >= 2 => {
                list = match (toks[k - 2], toks[k - 1]) {
                    ("given", input) => Some(Spot::InputColumn {
                        model: model.clone(),
                        input: unwritten(input).to_string(),
                    }),
                    ("expect", "rows") => Some(Spot::OutputColumn {
                        model: model.clone(),
                    }),
                    _ => None,
                };
            }
            ")" => list = None,
            _ => {}
        }
    }
    if depth != 1 {
        return None;
    }
    if list.is_some() {
        return list;
    }
    Some(match toks.as_slice() {
        [.., "given"] => Spot::Input { model },
        [.., "expect"] => Spot::Expect { model },
        [.., "severity", ":"] => Spot::Severity,
        [.., last] => Spot::Body {
            model,
            first: *last == "{",
        },
        [] => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Option<Spot> {
        let offset = text.find('|').expect("a cursor");
        let text = text.replace('|', "");
        let typing = !text[..offset].ends_with(char::is_whitespace);
        spot(&text, offset, typing)
    }

    #[test]
    fn the_spot_follows_the_test_being_typed() {
        let m = || "m".to_string();
        assert_eq!(
            at("test m \"x\" {\n  given |"),
            Some(Spot::Input { model: m() })
        );
        assert_eq!(
            at("test m {\n  given orders(id, cu|"),
            Some(Spot::InputColumn {
                model: m(),
                input: "orders".into()
            })
        );
        assert_eq!(
            at("test m {\n  given o(id) { (1) }\n  expect rows(|"),
            Some(Spot::OutputColumn { model: m() })
        );
        assert_eq!(
            at("test m {\n  |"),
            Some(Spot::Body {
                model: m(),
                first: true
            })
        );
        assert_eq!(at("test m {\n  severity: w|"), Some(Spot::Severity));
        assert_eq!(
            at("test m {\n  given o(id) { (1, \"(\") }\n  |"),
            Some(Spot::Body {
                model: m(),
                first: false
            })
        );
        // Inside a row, and after the test, nothing.
        assert_eq!(
            at("test m {\n  expect |"),
            Some(Spot::Expect { model: m() })
        );
        assert_eq!(at("test m {\n  given o(id) { (|"), None);
        assert_eq!(at("test m { given o {} }\nmodel x {|"), None);
        assert_eq!(at("model x {\n  from |"), None);
    }
}
