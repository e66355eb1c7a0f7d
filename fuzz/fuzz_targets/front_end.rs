//! libFuzzer target: the parser, the checker, the rules and the formatter
//! must not panic on any UTF-8 input; diagnostic spans lie within their
//! file; the formatter's output re-parses without errors. (tests/fuzz.rs
//! checks the same properties on seeded mutations of the corpus.)
#![no_main]

use libfuzzer_sys::fuzz_target;
use strata_lang::{Diagnostic, FileId};

fn assert_spans(stage: &str, diags: &[Diagnostic], files: &[(FileId, &str)]) {
    for d in diags {
        for span in std::iter::once(d.span).chain(d.labels.iter().map(|l| l.span)) {
            let text = files
                .iter()
                .find(|(id, _)| *id == span.file)
                .map(|(_, t)| *t)
                .unwrap_or_else(|| panic!("{stage}: {} has a span in unknown file", d.code));
            let (start, end) = (span.start as usize, span.end as usize);
            assert!(
                start <= end
                    && end <= text.len()
                    && text.is_char_boundary(start)
                    && text.is_char_boundary(end),
                "{stage}: {} `{}` has a bad span {start}..{end} (file of {} bytes)",
                d.code,
                d.message,
                text.len()
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let main_file = [(FileId(0), text)];

    let (_, diags) = strata_lang::parser::parse(FileId(0), text);
    assert_spans("parse", &diags, &main_file);

    let checked = strata_rules::check_module_text("fuzz.strata", text);
    let files: Vec<(FileId, &str)> = checked
        .sources
        .files()
        .map(|(id, f)| (id, f.text.as_str()))
        .collect();
    assert_spans("check", &checked.diagnostics, &files);

    match strata_lang::fmt::format_source(FileId(0), text) {
        Ok(out) => {
            let (_, diags) = strata_lang::parser::parse(FileId(0), &out);
            if let Some(d) = diags.iter().find(|d| d.is_error()) {
                panic!(
                    "the formatter's output does not re-parse: {} {}\n--- output ---\n{out}",
                    d.code, d.message
                );
            }
        }
        Err(diags) => assert_spans("fmt", &diags, &main_file),
    }
});
