//! What an editor's query reads about a document: its module checked and
//! linted, and (built at the first query that needs them) its files parsed
//! and the index of names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use strata_lang::ast::{self, Decl};
use strata_lang::ir;
use strata_lang::{Checked, FileId, LoadOptions};
use strata_rules::ModuleInput;

use super::index::{self, Index};

/// One document's module, checked.
pub struct Analysis {
    pub checked: Checked,
    /// The document's own file in the module.
    pub file: FileId,
    /// Why the lints were left out: the message of a `strata.toml` that
    /// cannot be used (the module's own diagnostics are there anyway).
    pub lint_error: Option<String>,
    /// Its files parsed and the index of names: built by the first request
    /// that needs them, not on the way to the diagnostics.
    syntax: std::cell::OnceCell<Syntax>,
}

struct Syntax {
    /// Every file of the module, parsed (the checker keeps no syntax tree).
    files: Vec<(FileId, ast::File)>,
    index: Index,
}

impl Analysis {
    /// Check the module rooted at `path`, reading open documents from
    /// `overlay`, with the lints at the levels of the nearest strata.toml.
    pub fn new(path: &Path, overlay: BTreeMap<PathBuf, String>) -> Analysis {
        let options = LoadOptions {
            search_dirs: Vec::new(),
            overlay,
        };
        let mut checked =
            strata_rules::check_module(ModuleInput::Files(&[path.to_path_buf()]), &options);
        let lint_error = crate::lints::add_lints(path, &mut checked, None, &[])
            .err()
            .map(|e| e.message().to_string());
        let file = checked.sources.find(path).unwrap_or(FileId(0));
        Analysis {
            checked,
            file,
            lint_error,
            syntax: std::cell::OnceCell::new(),
        }
    }

    fn syntax(&self) -> &Syntax {
        self.syntax.get_or_init(|| {
            let files: Vec<(FileId, ast::File)> = self
                .checked
                .sources
                .files()
                .map(|(id, f)| (id, strata_lang::parser::parse(id, &f.text).0))
                .collect();
            let index = index::index(&self.checked.module, &files);
            Syntax { files, index }
        })
    }

    /// Every file of the module, parsed.
    pub fn files(&self) -> &[(FileId, ast::File)] {
        &self.syntax().files
    }

    /// The names of the module's files and what they refer to.
    pub fn index(&self) -> &Index {
        &self.syntax().index
    }

    /// The text of one of the module's files.
    pub fn text(&self, file: FileId) -> &str {
        &self.checked.sources.get(file).text
    }

    /// The path of one of the module's files, as the module read it.
    pub fn path(&self, file: FileId) -> &Path {
        &self.checked.sources.get(file).path
    }

    /// The checked model `name`.
    pub fn model(&self, name: &str) -> Option<&ir::Model> {
        self.checked.module.models.iter().find(|m| m.name == name)
    }

    /// The model declaration of this file that holds `offset`.
    pub fn model_decl_at(&self, offset: usize) -> Option<&ast::ModelDecl> {
        self.files()
            .iter()
            .filter(|(id, _)| *id == self.file)
            .flat_map(|(_, f)| &f.decls)
            .find_map(|d| match d {
                Decl::Model(m)
                    if (m.span.start as usize) <= offset && offset <= m.span.end as usize =>
                {
                    Some(m)
                }
                _ => None,
            })
    }
}
