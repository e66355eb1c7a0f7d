//! Small HTML helpers of the docs site: escaping, prose from comments, the
//! page shell every page shares.

use std::fmt::Write as _;

pub use strata_plugin::html_escape as esc;

/// A description as HTML: paragraphs split at blank lines; lines indented
/// by two spaces or more (command examples in a comment) as preformatted
/// text.
pub fn prose(text: &str) -> String {
    let mut out = String::new();
    for para in text.split("\n\n").filter(|p| !p.trim().is_empty()) {
        let mut words: Vec<&str> = Vec::new();
        let mut pre: Vec<&str> = Vec::new();
        let flush_words = |out: &mut String, words: &mut Vec<&str>| {
            if !words.is_empty() {
                let _ = write!(out, "<p>{}</p>", esc(&words.join(" ")));
                words.clear();
            }
        };
        let flush_pre = |out: &mut String, pre: &mut Vec<&str>| {
            if !pre.is_empty() {
                let _ = write!(out, "<pre>{}</pre>", esc(&pre.join("\n")));
                pre.clear();
            }
        };
        for line in para.lines() {
            if line.starts_with("  ") {
                flush_words(&mut out, &mut words);
                pre.push(line.trim_start());
            } else {
                flush_pre(&mut out, &mut pre);
                words.push(line.trim());
            }
        }
        flush_words(&mut out, &mut words);
        flush_pre(&mut out, &mut pre);
    }
    out
}

/// The first sentence-ish line of a description, for lists.
pub fn summary(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .take_while(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// What every page shares: `root` is the way back to the site's root
/// (`""` or `"../"`).
pub struct Shell<'a> {
    pub site_title: &'a str,
    pub footer: &'a str,
}

impl Shell<'_> {
    pub fn page(&self, title: &str, root: &str, body: &str) -> String {
        let mut out = String::with_capacity(body.len() + 1024);
        let _ = write!(
            out,
            "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
             <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
             <title>{} · {}</title>\n<link rel=\"stylesheet\" href=\"{root}assets/site.css\">\n</head>\n<body>\n\
             <header class=\"top\"><a class=\"brand\" href=\"{root}index.html\">{}</a>\
             <form class=\"search\" action=\"{root}index.html\" role=\"search\">\
             <input id=\"search\" name=\"q\" type=\"search\" autocomplete=\"off\" \
             placeholder=\"Search models, sources, contracts and columns\" aria-label=\"Search\"></form></header>\n\
             <main>\n{body}</main>\n<footer>{}</footer>\n</body>\n</html>\n",
            esc(title),
            esc(self.site_title),
            esc(self.site_title),
            esc(self.footer),
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prose_escapes_and_keeps_examples_preformatted() {
        assert_eq!(
            prose("Orders <b>&\nmore.\n\n  strata run x\nEnd."),
            "<p>Orders &lt;b&gt;&amp; more.</p><pre>strata run x</pre><p>End.</p>"
        );
    }

    #[test]
    fn the_shell_escapes_titles() {
        let shell = Shell {
            site_title: "a<b",
            footer: "f",
        };
        let page = shell.page("t\"", "../", "<p>x</p>");
        assert!(page.contains("<title>t&quot; · a&lt;b</title>"), "{page}");
        assert!(page.contains("<link rel=\"stylesheet\" href=\"../assets/site.css\">"));
    }
}
