//! Lines of a model's file: where a `ref`/`source` name is, and which
//! line of the file a line of its rendered SQL comes from.

/// The line of `text` mentioning `needle` in a `ref`/`source` call.
pub(super) fn line_with(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(&format!("'{needle}'")) || l.contains(&format!("\"{needle}\"")))
        .map_or(0, |i| i + 1)
}

/// A line of the rendered SQL as a line of the model's file: the one line
/// of the file with the same text — or, where the file has Jinja
/// (`{{ ... }}`), whose text around it matches — and whether it was
/// found (else the same number).
pub(super) fn map_line(rendered: &str, source: &str, line: usize) -> (usize, bool) {
    if line == 0 {
        return (0, false);
    }
    let Some(text) = rendered.lines().nth(line - 1).map(str::trim) else {
        return (line, false);
    };
    if text.is_empty() {
        return (line, false);
    }
    let find = |matches: &dyn Fn(&str) -> bool| -> Vec<usize> {
        source
            .lines()
            .enumerate()
            .filter(|(_, l)| matches(l.trim()))
            .map(|(i, _)| i + 1)
            .collect()
    };
    for found in [
        find(&|l| l == text),
        find(&|l| l.contains("{{") && template_matches(l, text)),
    ] {
        if found.len() == 1 {
            return (found[0], true);
        }
        if found.contains(&line) {
            return (line, true);
        }
    }
    (line, false)
}

/// Whether `rendered` is `template` with each `{{ ... }}` replaced by
/// some text.
fn template_matches(template: &str, rendered: &str) -> bool {
    let mut literals: Vec<&str> = Vec::new();
    let mut rest = template;
    while let Some(i) = rest.find("{{") {
        literals.push(&rest[..i]);
        match rest[i..].find("}}") {
            Some(j) => rest = &rest[i + j + 2..],
            None => return false,
        }
    }
    literals.push(rest);
    let (Some(first), Some(last), true) = (literals.first(), literals.last(), literals.len() >= 2)
    else {
        return false;
    };
    if !rendered.starts_with(first)
        || !rendered.ends_with(last)
        || rendered.len() < first.len() + last.len()
    {
        return false;
    }
    let mut at = first.len();
    let end = rendered.len() - last.len();
    for lit in &literals[1..literals.len() - 1] {
        match rendered[at..end].find(lit) {
            Some(i) => at += i + lit.len(),
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_map_back_to_the_model_file() {
        let source = "{% set x = 1 %}\nselect a\nfrom {{ ref('t') }}\nwhere b";
        let rendered = "\nselect a\nfrom \"$ref$t\"\nwhere b";
        assert_eq!(map_line(rendered, source, 2), (2, true));
        assert_eq!(map_line(rendered, source, 4), (4, true));
        assert_eq!(map_line(rendered, source, 3), (3, true));
        assert!(template_matches(
            "from {{ ref('t') }} t",
            "from \"$ref$t\" t"
        ));
        assert!(!template_matches("from {{ ref('t') }} t", "join x"));
        assert!(!template_matches("{{", "{{"));
        assert!(template_matches("{{ a }}{{ b }}", "xy"));
        assert!(!template_matches("}} {{", "x"));
    }
}
