//! The queries of an editor over one document's module, as plain values
//! (byte offsets and spans, strings, small enums): what the language server
//! translates to the protocol, one file per family of requests. As
//! rust-analyzer's `ide` crate is to its server.
//!
//! [`Analysis`] is a document's module checked and linted; the queries take
//! it and a byte offset of the document, and those that search the
//! workspace take every open document's analysis.

mod actions;
mod analysis;
mod completion;
mod fixture;
mod hover;
mod index;
mod navigation;
mod rename;
mod sql;
mod symbols;

pub use actions::{quick_fixes, Edit, QuickFix};
pub use analysis::Analysis;
pub use completion::{completions, Completion, CompletionKind};
pub use hover::hover;
pub use index::{Index, Occurrence, Target};
pub use navigation::{definition, occurrences_of, references};
pub use rename::{prepare_rename, rename};
pub use sql::{compiled_sql, ModelSql};
pub use symbols::{
    document_symbols, file_symbols, workspace_symbols, ColumnSymbol, Symbol, SymbolKind,
};
