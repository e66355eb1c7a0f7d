//! From a line of the compiled SQL to the line of the model's own file: the
//! n-th occurrence of a word (`join`, an aggregate's name) in the compiled
//! SQL is the n-th in the model's file when both have as many (Jinja that
//! loops or calls a macro writing joins breaks that: the compiled line is
//! given then).

/// Lines (1-based) of each whole-word, case-insensitive occurrence of `word`.
fn occurrences(text: &str, word: &str) -> Vec<usize> {
    let word = word.to_ascii_lowercase();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let lower = line.to_ascii_lowercase();
        let bytes = lower.as_bytes();
        let mut from = 0;
        while let Some(i) = lower[from..].find(&word) {
            let at = from + i;
            let end = at + word.len();
            let edge =
                |b: Option<&u8>| b.is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'));
            if edge(at.checked_sub(1).and_then(|p| bytes.get(p))) && edge(bytes.get(end)) {
                out.push(n + 1);
            }
            from = end;
        }
    }
    out
}

/// The line in `source` of the occurrence of `word` the compiled SQL has on
/// `line` (its `nth` on that line), when the two texts have as many.
pub fn source_line(
    compiled: &str,
    source: &str,
    word: &str,
    line: usize,
    nth: usize,
) -> Option<usize> {
    let c = occurrences(compiled, word);
    let s = occurrences(source, word);
    if c.len() != s.len() || c.is_empty() {
        return None;
    }
    let first = c.iter().position(|&l| l == line)?;
    s.get(first + nth).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nth_join_maps_to_the_nth() {
        let source = "{{ config(x) }}\nselect *\nfrom {{ ref('a') }} a\nleft join {{ ref('b') }} b on a.id = b.id\njoin c using (id)";
        let compiled = "select *\nfrom x.a a\nleft join x.b b on a.id = b.id\njoin c using (id)";
        assert_eq!(source_line(compiled, source, "join", 3, 0), Some(4));
        assert_eq!(source_line(compiled, source, "join", 4, 0), Some(5));
        assert_eq!(source_line(compiled, "joined", "join", 3, 0), None);
        assert_eq!(occurrences("a_join join JOIN", "join"), vec![1, 1]);
    }
}
