//! Symbols: the declarations of a file (with a model's outputs and a
//! source's or contract's columns as children), and those of every file
//! of the workspace whose name matches a query.

use strata_lang::ast::{self, Decl, ItemKind};
use strata_lang::{FileId, Span};

use super::analysis::Analysis;

/// What a symbol declares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Source,
    Contract,
    Model,
    Test,
    Pipeline,
    Domain,
    Function,
}

/// A declaration of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    /// Its name (`test <model>` for a test).
    pub name: String,
    pub kind: SymbolKind,
    /// The whole declaration.
    pub span: Span,
    /// Its name.
    pub name_span: Span,
    /// Its columns: a source's or contract's, a model's outputs.
    pub columns: Vec<ColumnSymbol>,
}

/// A column of a symbol.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnSymbol {
    pub name: String,
    pub span: Span,
    /// Its declared type (empty for a model's output).
    pub detail: String,
}

/// The declarations of a parsed file, in source order.
pub fn file_symbols(file: &ast::File) -> Vec<Symbol> {
    fn fields(f: &[ast::FieldDef]) -> Vec<ColumnSymbol> {
        f.iter()
            .map(|f| column(&f.name, format!("{:?}", f.ty.kind).to_lowercase()))
            .collect()
    }
    fn column(ident: &ast::Ident, detail: String) -> ColumnSymbol {
        ColumnSymbol {
            name: ident.name.to_string(),
            span: ident.span,
            detail,
        }
    }
    let symbol = |name: String, kind, span, name_span, columns| Symbol {
        name,
        kind,
        span,
        name_span,
        columns,
    };
    file.decls
        .iter()
        .filter_map(|d| {
            Some(match d {
                Decl::Source(s) => symbol(
                    s.name.name.to_string(),
                    SymbolKind::Source,
                    s.span,
                    s.name.span,
                    s.columns.as_deref().map(fields).unwrap_or_default(),
                ),
                Decl::Contract(c) => symbol(
                    c.name.name.to_string(),
                    SymbolKind::Contract,
                    c.span,
                    c.name.span,
                    fields(&c.fields),
                ),
                Decl::Model(m) => {
                    let outputs = m
                        .items
                        .iter()
                        .filter_map(|it| match &it.kind {
                            ItemKind::Assign(_, a) => Some(
                                a.iter()
                                    .map(|a| column(&a.name, String::new()))
                                    .collect::<Vec<_>>(),
                            ),
                            _ => None,
                        })
                        .flatten()
                        .collect();
                    symbol(
                        m.name.name.to_string(),
                        SymbolKind::Model,
                        m.span,
                        m.name.span,
                        outputs,
                    )
                }
                Decl::Test(t) => symbol(
                    format!("test {}", t.model.name),
                    SymbolKind::Test,
                    t.span,
                    t.model.span,
                    Vec::new(),
                ),
                Decl::Pipeline(p) => symbol(
                    p.name.name.to_string(),
                    SymbolKind::Pipeline,
                    p.span,
                    p.name.span,
                    Vec::new(),
                ),
                Decl::Domain(x) => symbol(
                    x.name.name.to_string(),
                    SymbolKind::Domain,
                    x.span,
                    x.name.span,
                    Vec::new(),
                ),
                Decl::Fn(f) => symbol(
                    f.name.name.to_string(),
                    SymbolKind::Function,
                    f.span,
                    f.name.span,
                    Vec::new(),
                ),
                Decl::Import(_) | Decl::Generator(_) => return None,
            })
        })
        .collect()
}

/// The declarations of the document's own file.
pub fn document_symbols(a: &Analysis) -> Vec<Symbol> {
    a.files()
        .iter()
        .find(|(id, _)| *id == a.file)
        .map(|(_, file)| file_symbols(file))
        .unwrap_or_default()
}

/// The declarations of every file of `workspace` (the analyses of the
/// open documents) whose name contains `query`, ignoring case: with the
/// analysis and the file they are in. A file several modules read is
/// listed with each.
pub fn workspace_symbols<'w>(
    workspace: &[&'w Analysis],
    query: &str,
) -> Vec<(&'w Analysis, FileId, Symbol)> {
    let query = query.to_lowercase();
    let mut out = Vec::new();
    for &a in workspace {
        for (id, file) in a.files() {
            for s in file_symbols(file) {
                if s.name.to_lowercase().contains(&query) {
                    out.push((a, *id, s));
                }
            }
        }
    }
    out
}
