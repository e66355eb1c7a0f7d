//! The strata language: lexer, parser, AST with spans, resolver and type
//! checker producing the typed IR, the formatter.
//!
//! Data flows one way: text -> [`parser::parse`] (AST) -> [`load`] (all files
//! of a module, imports resolved) -> [`check`] (typed IR + diagnostics).

pub mod ast;
pub mod canon;
pub mod cardinality;
pub mod catalog;
pub mod check;
pub mod diag;
pub mod fingerprint;
pub mod fmt;
pub mod grammar;
pub mod hash;
pub mod ident;
pub mod ir;
pub mod lexer;
pub mod load;
pub mod parser;
pub mod span;
pub mod sql;
pub mod suggest;
pub mod table_name;
pub mod types;

pub use diag::{Diagnostic, Severity};
/// A name in the syntax tree and the IR (column, input, function, alias):
/// immutable, stored inline up to 23 bytes, so most names cost no
/// allocation and copying one is cheap.
pub use smol_str::SmolStr as Name;
pub use span::{FileId, SourceMap, Span};

pub use check::{check_files, check_text, Checked};
pub use load::LoadOptions;

#[cfg(test)]
pub(crate) mod test_files {
    use std::path::PathBuf;

    /// Every `.strata` file under the repository's `tests/` and `examples/`,
    /// sorted (none in a checkout without them).
    pub(crate) fn repository_strata_files() -> Vec<PathBuf> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let mut files: Vec<PathBuf> = ["tests", "examples"]
            .iter()
            .flat_map(|dir| walkdir::WalkDir::new(root.join(dir)))
            .filter_map(Result::ok)
            .map(walkdir::DirEntry::into_path)
            .filter(|p| p.extension().is_some_and(|x| x == "strata"))
            .collect();
        files.sort();
        files
    }
}
