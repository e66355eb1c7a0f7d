//! Quick fixes at a range of the document: a did-you-mean replaced, an
//! unused suppression removed, a countable join promised `expect
//! many_to_one`. Each is a set of edits of the document's text.

use std::ops::Range;

use strata_lang::{Diagnostic, Span};

use super::analysis::Analysis;

/// A replacement of the bytes `range` of the document's text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edit {
    pub range: Range<usize>,
    pub new_text: String,
}

/// A quick fix: its title, whether the editor should prefer it, and the
/// edits of the document that make it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuickFix {
    pub title: String,
    pub preferred: bool,
    pub edits: Vec<Edit>,
}

fn edit(start: usize, end: usize, new: &str) -> Edit {
    Edit {
        range: start..end,
        new_text: new.to_string(),
    }
}

/// The quick fixes of what the bytes `start..end` of the document touch.
pub fn quick_fixes(a: &Analysis, start: usize, end: usize) -> Vec<QuickFix> {
    let mut actions = Vec::new();
    let touches = |s: Span| (s.start as usize) <= end && start <= s.end as usize;
    for d in a
        .checked
        .diagnostics
        .iter()
        .filter(|d| d.span.file == a.file && touches(d.span))
    {
        let action = |title: String, edits: Vec<Edit>| QuickFix {
            title,
            preferred: true,
            edits,
        };
        let help = d.help.as_deref().unwrap_or("");
        if let Some(name) = help
            .strip_prefix("did you mean `")
            .and_then(|h| h.strip_suffix("`?"))
        {
            // One name is written quoted when it must be (`date`); a
            // qualified `a.b` or a `given x` is taken as it is.
            let text = if name.contains('.') || name.starts_with("given ") {
                name.into()
            } else {
                strata_lang::ident::written(name)
            };
            actions.push(action(
                format!("replace with `{name}`"),
                vec![edit(d.span.start as usize, d.span.end as usize, &text)],
            ));
        }
        if d.code == "W090" {
            if let Some(edits) = drop_suppressed_code(a, d) {
                actions.push(action(
                    format!(
                        "remove the unused suppression ({})",
                        help.trim_start_matches("remove ")
                    ),
                    edits,
                ));
            }
        }
    }
    // A join without a promise whose `on` a check can count: promise it.
    if let Some(decl) = a.model_decl_at(start) {
        if let Some(model) = a.model(&decl.name.name) {
            for j in model
                .joins
                .iter()
                .filter(|j| j.expect.is_none() && j.implied_keys.is_some())
            {
                if !(touches(j.keyword_span) || touches(j.on_span)) {
                    continue;
                }
                let at = j.on_span.end as usize;
                actions.push(QuickFix {
                    title: format!(
                        "promise `expect many_to_one` on {} {} (checked at run time)",
                        j.kind.keyword(),
                        j.input
                    ),
                    preferred: false,
                    edits: vec![edit(at, at, " expect many_to_one")],
                });
            }
        }
    }
    actions
}

/// The edit that removes an unused code from its `# strata: allow(..)`
/// comment (the whole comment line when it was the only one).
fn drop_suppressed_code(a: &Analysis, d: &Diagnostic) -> Option<Vec<Edit>> {
    let text = a.text(a.file);
    let c = a.checked.comments.iter().find(|c| {
        c.span.file == a.file && c.span.start <= d.span.start && d.span.end <= c.span.end
    })?;
    let open = text[c.span.range()].find('(')? + c.span.start as usize + 1;
    let close = text[c.span.range()].rfind(')')? + c.span.start as usize;
    let codes: Vec<&str> = text
        .get(open..close)?
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let unused = text.get(d.span.range())?.trim();
    let kept: Vec<&str> = codes.into_iter().filter(|c| *c != unused).collect();
    if kept.is_empty() {
        let line_start = text[..c.span.start as usize]
            .rfind('\n')
            .map_or(0, |i| i + 1);
        let line_end = text[c.span.end as usize..]
            .find('\n')
            .map_or(text.len(), |i| c.span.end as usize + i + 1);
        let only_comment = text[line_start..c.span.start as usize].trim().is_empty();
        let (s, e) = if only_comment {
            (line_start, line_end)
        } else {
            (c.span.start as usize, c.span.end as usize)
        };
        return Some(vec![edit(s, e, "")]);
    }
    Some(vec![edit(open, close, &kept.join(", "))])
}
