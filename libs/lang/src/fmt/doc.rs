//! A small Wadler/Prettier-style document algebra and its renderer.
//!
//! The printer describes the output as a [`Doc`]: text, possible line breaks
//! and groups. A group is printed flat (every [`Doc::Line`] a space, every
//! [`Doc::SoftLine`] nothing) when it fits in the remaining width, otherwise
//! broken (every line of the group a newline at the current indentation).
//! A group that contains a [`Doc::HardLine`] or a comment is always broken.

/// Spaces per indentation level.
pub(crate) const INDENT: usize = 2;

#[derive(Clone, Debug)]
pub(crate) enum Doc {
    /// Text. Contains a newline only for a verbatim multi-line block comment.
    Text(String),
    Concat(Vec<Doc>),
    /// The inner document, one indentation level deeper after each newline.
    Nest(Box<Doc>),
    /// A space when flat, a newline when broken.
    Line,
    /// Nothing when flat, a newline when broken.
    SoftLine,
    /// Always a newline.
    HardLine,
    Group {
        doc: Box<Doc>,
        /// Contains a hard line or a comment: never printed flat.
        hard: bool,
    },
    /// `broken` when the enclosing group is broken, else `flat`.
    IfBreak(Box<Doc>, Box<Doc>),
    /// A comment that must end a line. Written at the end of the current line
    /// (before its newline); when nothing has been written on the current
    /// line yet, appended to the previous line if that line holds code only,
    /// else written on a line of its own.
    Trailing(String),
    /// A comment on a line of its own (the printer puts a newline after it).
    Comment(String),
}

impl Doc {
    pub(crate) fn text(s: impl Into<String>) -> Doc {
        Doc::Text(s.into())
    }

    pub(crate) fn nil() -> Doc {
        Doc::Concat(Vec::new())
    }

    pub(crate) fn nest(d: Doc) -> Doc {
        Doc::Nest(Box::new(d))
    }

    pub(crate) fn group(d: Doc) -> Doc {
        let hard = d.is_hard();
        Doc::Group {
            doc: Box::new(d),
            hard,
        }
    }

    pub(crate) fn if_break(broken: Doc, flat: Doc) -> Doc {
        Doc::IfBreak(Box::new(broken), Box::new(flat))
    }

    /// Whether the document forces its enclosing groups to break.
    pub(crate) fn is_hard(&self) -> bool {
        match self {
            Doc::Text(s) => s.contains('\n'),
            Doc::Concat(v) => v.iter().any(Doc::is_hard),
            Doc::Nest(d) => d.is_hard(),
            Doc::Line | Doc::SoftLine => false,
            Doc::HardLine | Doc::Trailing(_) | Doc::Comment(_) => true,
            Doc::Group { hard, .. } => *hard,
            Doc::IfBreak(b, f) => b.is_hard() || f.is_hard(),
        }
    }
}

/// Builds a concatenation, flattening nested concatenations.
pub(crate) fn concat(parts: impl IntoIterator<Item = Doc>) -> Doc {
    let mut out = Vec::new();
    for p in parts {
        match p {
            Doc::Concat(v) => out.extend(v),
            other => out.push(other),
        }
    }
    if out.len() == 1 {
        out.pop().unwrap_or_else(Doc::nil)
    } else {
        Doc::Concat(out)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Flat,
    Break,
}

struct Renderer {
    out: String,
    width: usize,
    /// Current column, in characters (including pending indentation).
    col: usize,
    /// Nothing written on the current line yet (indentation is written lazily).
    at_line_start: bool,
    indent: usize,
    /// Trailing comments waiting for the end of the current line.
    suffix: Vec<String>,
    cur_line_comment: bool,
    /// The current line ends with a `//` or `#` comment: nothing more may be
    /// written on it.
    line_comment_open: bool,
    prev_line_comment: bool,
    prev_line_blank: bool,
}

impl Renderer {
    fn write(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        if self.line_comment_open {
            let indent = self.indent;
            self.newline(indent);
        }
        if self.at_line_start {
            for _ in 0..self.indent {
                self.out.push(' ');
            }
            self.at_line_start = false;
        }
        self.out.push_str(s);
        match s.rfind('\n') {
            Some(i) => self.col = s[i + 1..].chars().count(),
            None => self.col += s.chars().count(),
        }
    }

    /// Writes a comment at the current position.
    fn comment(&mut self, c: &str) {
        self.write(c);
        self.cur_line_comment = true;
        self.line_comment_open = !c.starts_with("/*");
    }

    fn newline(&mut self, indent: usize) {
        for c in std::mem::take(&mut self.suffix) {
            if self.line_comment_open {
                // Two line comments queued for one line: the second goes on
                // a line of its own, at the indentation of the next line.
                self.out.push('\n');
                self.at_line_start = true;
                self.line_comment_open = false;
                self.indent = indent;
            } else if !self.at_line_start {
                self.write(" ");
            }
            self.comment(&c);
        }
        self.line_comment_open = false;
        if !self.cur_line_comment {
            let trimmed = self.out.trim_end_matches([' ', '\t']).len();
            self.out.truncate(trimmed);
        }
        self.prev_line_blank = self.at_line_start;
        self.prev_line_comment = self.cur_line_comment;
        self.cur_line_comment = false;
        self.out.push('\n');
        self.at_line_start = true;
        self.indent = indent;
        self.col = indent;
    }

    /// A trailing comment met at indentation `indent`.
    fn trailing(&mut self, comment: &str, indent: usize) {
        if !self.at_line_start && !self.line_comment_open {
            if self.suffix.iter().any(|c| !c.starts_with("/*")) {
                // The line already ends with a line comment: this one goes
                // on a line of its own, where it occurs.
                self.newline(indent);
                self.comment(comment);
            } else {
                self.suffix.push(comment.to_string());
            }
            return;
        }
        if self.line_comment_open {
            let indent = self.indent;
            self.newline(indent);
        }
        let appendable = self.out.ends_with('\n')
            && self.out.len() > 1
            && !self.prev_line_comment
            && !self.prev_line_blank;
        if appendable {
            self.out.pop();
            self.out.push(' ');
            self.out.push_str(comment);
            self.out.push('\n');
            self.prev_line_comment = true;
        } else {
            let indent = self.indent;
            self.comment(comment);
            self.newline(indent);
        }
    }
}

/// Whether `doc` printed flat, followed by the `rest` of the commands, fits
/// in `remaining` columns up to the next newline.
fn fits(doc: &Doc, rest: &[(usize, Mode, &Doc)], remaining: isize) -> bool {
    let mut rem = remaining;
    let mut cmds: Vec<(Mode, &Doc)> = vec![(Mode::Flat, doc)];
    let mut rest_idx = rest.len();
    loop {
        let (mode, d) = match cmds.pop() {
            Some(x) => x,
            None => {
                if rest_idx == 0 {
                    return true;
                }
                rest_idx -= 1;
                let (_, m, d) = rest[rest_idx];
                (m, d)
            }
        };
        match d {
            Doc::Text(s) => match s.find('\n') {
                Some(i) => return rem >= s[..i].chars().count() as isize,
                None => rem -= s.chars().count() as isize,
            },
            Doc::Concat(v) => {
                for x in v.iter().rev() {
                    cmds.push((mode, x));
                }
            }
            Doc::Nest(x) => cmds.push((mode, x)),
            Doc::Line => {
                if mode == Mode::Break {
                    return true;
                }
                rem -= 1;
            }
            Doc::SoftLine => {
                if mode == Mode::Break {
                    return true;
                }
            }
            Doc::HardLine => return true,
            Doc::Group { doc, hard } => {
                let m = if *hard { Mode::Break } else { mode };
                cmds.push((m, doc));
            }
            Doc::IfBreak(b, f) => cmds.push((mode, if mode == Mode::Break { b } else { f })),
            Doc::Trailing(_) | Doc::Comment(_) => {}
        }
        if rem < 0 {
            return false;
        }
    }
}

/// Renders `doc` in `width` columns. The result ends with one newline unless
/// it is empty.
pub(crate) fn render(doc: &Doc, width: usize) -> String {
    let mut r = Renderer {
        out: String::new(),
        width,
        col: 0,
        at_line_start: true,
        indent: 0,
        suffix: Vec::new(),
        cur_line_comment: false,
        line_comment_open: false,
        prev_line_comment: false,
        prev_line_blank: false,
    };
    let mut stack: Vec<(usize, Mode, &Doc)> = vec![(0, Mode::Break, doc)];
    while let Some((ind, mode, d)) = stack.pop() {
        match d {
            Doc::Text(s) => r.write(s),
            Doc::Concat(v) => {
                for x in v.iter().rev() {
                    stack.push((ind, mode, x));
                }
            }
            Doc::Nest(x) => stack.push((ind + INDENT, mode, x)),
            Doc::Line => {
                if mode == Mode::Flat {
                    r.write(" ");
                } else {
                    r.newline(ind);
                }
            }
            Doc::SoftLine => {
                if mode == Mode::Break {
                    r.newline(ind);
                }
            }
            Doc::HardLine => r.newline(ind),
            Doc::Group { doc, hard } => {
                let m = if *hard {
                    Mode::Break
                } else if mode == Mode::Flat {
                    Mode::Flat
                } else {
                    let remaining = r.width as isize - r.col as isize;
                    if fits(doc, &stack, remaining) {
                        Mode::Flat
                    } else {
                        Mode::Break
                    }
                };
                stack.push((ind, m, doc));
            }
            Doc::IfBreak(b, f) => stack.push((ind, mode, if mode == Mode::Break { b } else { f })),
            Doc::Trailing(c) => r.trailing(c, ind),
            Doc::Comment(c) => r.comment(c),
        }
    }
    if !r.suffix.is_empty() || !r.at_line_start {
        r.newline(0);
    }
    // Exactly one final newline, no leading or trailing blank lines.
    let end = r.out.trim_end_matches('\n').len();
    r.out.truncate(end);
    let start = r.out.len() - r.out.trim_start_matches('\n').len();
    let mut out = r.out.split_off(start);
    if !out.is_empty() {
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: &[&str]) -> Doc {
        let mut inner = vec![Doc::SoftLine];
        for (i, it) in items.iter().enumerate() {
            inner.push(Doc::text(*it));
            if i + 1 < items.len() {
                inner.push(Doc::text(","));
                inner.push(Doc::Line);
            } else {
                inner.push(Doc::if_break(Doc::text(","), Doc::nil()));
            }
        }
        Doc::group(concat([
            Doc::text("["),
            Doc::nest(concat(inner)),
            Doc::SoftLine,
            Doc::text("]"),
        ]))
    }

    #[test]
    fn group_flat_when_it_fits() {
        assert_eq!(render(&list(&["a", "b"]), 20), "[a, b]\n");
    }

    #[test]
    fn group_breaks_when_too_wide() {
        assert_eq!(
            render(&list(&["aaaa", "bbbb"]), 8),
            "[\n  aaaa,\n  bbbb,\n]\n"
        );
    }

    #[test]
    fn trailing_comment_appends_to_previous_line() {
        let d = concat([
            Doc::text("a {"),
            Doc::nest(concat([
                Doc::HardLine,
                Doc::Trailing("// c".into()),
                Doc::text("b"),
            ])),
            Doc::HardLine,
            Doc::text("}"),
        ]);
        assert_eq!(render(&d, 80), "a { // c\n  b\n}\n");
    }

    #[test]
    fn trailing_comment_as_line_suffix() {
        let d = concat([
            Doc::text("a"),
            Doc::Trailing("// c".into()),
            Doc::text(","),
            Doc::HardLine,
            Doc::text("b"),
        ]);
        assert_eq!(render(&d, 80), "a, // c\nb\n");
    }

    #[test]
    fn no_trailing_whitespace_on_blank_lines() {
        let d = Doc::nest(concat([
            Doc::text("a"),
            Doc::HardLine,
            Doc::HardLine,
            Doc::text("b"),
        ]));
        assert_eq!(render(&d, 80), "a\n\n  b\n");
    }
}
