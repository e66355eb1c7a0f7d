//! Descriptions from comments: the comment lines directly above a
//! declaration or column (no blank line between), or a comment ending the
//! column's line. `# strata:` directives are not descriptions.

use strata_lang::ast::Comment;
use strata_lang::{FileId, SourceMap, Span};

/// The comments of a module by file, each file's in source order.
pub struct Comments<'a> {
    sources: &'a SourceMap,
    by_file: Vec<Vec<&'a Comment>>,
}

impl<'a> Comments<'a> {
    pub fn new(sources: &'a SourceMap, comments: &'a [Comment]) -> Comments<'a> {
        let mut by_file: Vec<Vec<&Comment>> = Vec::new();
        for c in comments {
            let f = c.span.file.0 as usize;
            if by_file.len() <= f {
                by_file.resize_with(f + 1, Vec::new);
            }
            by_file[f].push(c);
        }
        for file in &mut by_file {
            file.sort_by_key(|c| c.span.start);
        }
        Comments { sources, by_file }
    }

    fn of(&self, file: FileId) -> &[&'a Comment] {
        self.by_file
            .get(file.0 as usize)
            .map_or(&[][..], Vec::as_slice)
    }

    /// The description of what starts at `span`: the comments on the lines
    /// directly above it, else a comment after it on its last line.
    pub fn describe(&self, span: Span) -> Option<String> {
        let text = &self.sources.get(span.file).text;
        let comments = self.of(span.file);
        let mut block: Vec<&Comment> = Vec::new();
        let mut line_start = line_start(text, span.start as usize);
        // Walk up while the line above ends a comment that starts its own
        // line (a `/* */` comment may span several).
        while line_start > 0 {
            let above_end = line_start - 1;
            let before = comments.partition_point(|c| (c.span.start as usize) < above_end);
            let Some(c) = before.checked_sub(1).map(|i| comments[i]) else {
                break;
            };
            let (start, end) = (c.span.start as usize, c.span.end as usize);
            let own_line = self::line_start(text, start);
            if end <= above_end
                && !text[end..above_end].contains('\n')
                && text[end..above_end].trim().is_empty()
                && text[own_line..start].trim().is_empty()
            {
                block.push(c);
                line_start = own_line;
            } else {
                break;
            }
        }
        block.reverse();
        let above = clean(block.iter().map(|c| c.text.as_str()));
        if above.is_some() {
            return above;
        }
        // A comment ending the line of the definition (`a: int64  # id`).
        let end = span.end as usize;
        let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
        let after = comments.partition_point(|c| (c.span.start as usize) < end);
        comments
            .get(after)
            .filter(|c| (c.span.start as usize) < line_end)
            .and_then(|c| clean(std::iter::once(c.text.as_str())))
    }

    /// The comments opening a file, up to its first blank line: what the
    /// module is about.
    pub fn file_header(&self, file: FileId) -> Option<String> {
        let text = &self.sources.get(file).text;
        let mut block = Vec::new();
        let mut at = 0usize;
        for c in self.of(file) {
            let before = &text[at..c.span.start as usize];
            if !before.trim().is_empty() || before.matches('\n').count() > 1 {
                break;
            }
            block.push(c.text.as_str());
            at = c.span.end as usize;
        }
        clean(block.into_iter())
    }
}

fn line_start(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1)
}

/// Comment texts without their markers, as lines; `None` when nothing is
/// left (or only `strata:` directives).
fn clean<'t>(texts: impl Iterator<Item = &'t str>) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    for t in texts {
        let body = if let Some(b) = t.strip_prefix("/*") {
            b.strip_suffix("*/").unwrap_or(b)
        } else {
            t.strip_prefix("//")
                .or_else(|| t.strip_prefix('#'))
                .unwrap_or(t)
        };
        if body.trim_start().starts_with("strata:") {
            continue;
        }
        for line in body.lines() {
            let line = line.trim_end();
            let line = line.trim_start().strip_prefix('*').map_or(line, |rest| {
                if line.trim_start().starts_with("*/") {
                    ""
                } else {
                    rest
                }
            });
            // One space after the marker is the marker's; more is indentation.
            lines.push(line.strip_prefix(' ').unwrap_or(line).to_string());
        }
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn described(text: &str, at: &str) -> Option<String> {
        let checked = strata_rules::check_module_text("m.strata", text);
        let start = text.find(at).unwrap_or(0);
        let span = Span::new(FileId(0), start, start + at.len());
        Comments::new(&checked.sources, &checked.comments).describe(span)
    }

    const TEXT: &str = "# The module.\n\n# Orders.\n# One row each.\n# strata: allow(W001)\nsource orders(ns: \"n\", dataset: \"d\") {\n  columns: {\n    // The id.\n    id: int64\n    amount: float64  # In euros.\n\n    note: string\n  }\n}\n";

    #[test]
    fn comments_directly_above_without_directives() {
        assert_eq!(
            described(TEXT, "source orders").as_deref(),
            Some("Orders.\nOne row each.")
        );
        assert_eq!(described(TEXT, "id: int64").as_deref(), Some("The id."));
    }

    #[test]
    fn a_comment_ending_the_line() {
        assert_eq!(
            described(TEXT, "amount: float64").as_deref(),
            Some("In euros.")
        );
    }

    #[test]
    fn a_blank_line_or_code_above_is_no_description() {
        assert_eq!(described(TEXT, "note: string"), None);
        assert_eq!(described(TEXT, "columns:"), None);
    }

    #[test]
    fn the_file_header() {
        let checked = strata_rules::check_module_text("m.strata", TEXT);
        let header = Comments::new(&checked.sources, &checked.comments).file_header(FileId(0));
        assert_eq!(header.as_deref(), Some("The module."));
    }
}
