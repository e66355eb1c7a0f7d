//! "Did you mean" suggestions by edit distance (Levenshtein, by characters,
//! from `strsim`).

pub use strsim::levenshtein as edit_distance;

/// The candidate closest to `word`, if it is close enough to be a likely typo
/// (distance at most a third of the word's length, and at least 1 allowed).
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .filter(|c| *c != word)
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The words of `candidates` close to `word` (edit distance at most 2, 1 for
/// words of up to 3 characters; none for words over 40), closest first.
pub fn close_words<'c>(word: &str, candidates: &[&'c str]) -> Vec<&'c str> {
    if word.chars().count() > 40 {
        return Vec::new();
    }
    let max = if word.chars().count() <= 3 { 1 } else { 2 };
    let mut found: Vec<(usize, &str)> = candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, _)| *d <= max)
        .collect();
    found.sort_by_key(|(d, _)| *d);
    found.into_iter().map(|(_, c)| c).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("same", "same"), 0);
    }

    #[test]
    fn suggestions() {
        assert_eq!(closest("uper", ["upper", "lower"]), Some("upper"));
        assert_eq!(closest("chek", ["check", "build"]), Some("check"));
        assert_eq!(closest("zzzzzz", ["upper"]), None);
        assert_eq!(
            close_words("modle", &["model", "source", "mode"]),
            ["mode", "model"]
        );
        assert!(close_words("imp", &["import"]).is_empty());
    }
}
