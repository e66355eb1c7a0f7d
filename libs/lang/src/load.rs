//! Loading a module: its root files and, recursively, their imports.

use std::path::{Path, PathBuf};

use strata_codes as codes;

use crate::ast::{self, Decl};
use crate::diag::Diagnostic;
use crate::span::{FileId, SourceMap};

/// How a module is loaded.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Where imports are looked up besides the root module's directory.
    pub search_dirs: Vec<PathBuf>,
    /// Texts that replace files on disk (an editor's unsaved buffers), by
    /// the path they are loaded from.
    pub overlay: std::collections::BTreeMap<PathBuf, String>,
}

impl LoadOptions {
    /// The text of `path`: from the overlay, else from disk.
    fn read(&self, path: &Path) -> std::io::Result<String> {
        match self.overlay.get(path) {
            Some(text) => Ok(text.clone()),
            None => std::fs::read_to_string(path),
        }
    }

    fn exists(&self, path: &Path) -> bool {
        self.overlay.contains_key(path) || path.is_file()
    }
}

/// Every file of a module, parsed, and the order in which their
/// declarations merge (an imported file's declarations take the place of the
/// `import`).
#[derive(Debug, Default)]
pub struct Loaded {
    pub sources: SourceMap,
    /// The files, in the order they were loaded (the order of their ids).
    pub files: Vec<(FileId, ast::File)>,
    /// `(index into files, index into that file's decls)`, merged order.
    pub order: Vec<(usize, usize)>,
    pub diagnostics: Vec<Diagnostic>,
    /// Root files that could not be read: `(path, reason)`.
    pub io_errors: Vec<(PathBuf, String)>,
}

impl Loaded {
    /// Move every declaration out of the files, in merged order; the files
    /// keep their comments.
    pub fn take_decls(&mut self) -> Vec<Decl> {
        let mut files: Vec<Vec<Option<Decl>>> = self
            .files
            .iter_mut()
            .map(|(_, f)| std::mem::take(&mut f.decls).into_iter().map(Some).collect())
            .collect();
        self.order
            .drain(..)
            .filter_map(|(f, d)| files[f][d].take())
            .collect()
    }
}

struct Loader<'o> {
    options: &'o LoadOptions,
    root_dir: PathBuf,
    out: Loaded,
    /// Canonical paths of the files loaded.
    canonical: Vec<PathBuf>,
    /// Import chain being loaded: (canonical path, module name).
    stack: Vec<(PathBuf, String)>,
}

/// Load the module made of `roots` (each with its imports) from disk.
pub fn load_files(roots: &[PathBuf], options: &LoadOptions) -> Loaded {
    let mut loader = Loader::new(options, roots.first().map(PathBuf::as_path));
    for root in roots {
        match options.read(root) {
            Ok(text) => loader.add_file(root.clone(), text, root.display().to_string()),
            Err(e) => loader.out.io_errors.push((root.clone(), e.to_string())),
        }
    }
    loader.out
}

/// Load a module given as text (imports are resolved from `path`'s directory).
pub fn load_text(path: PathBuf, text: &str, options: &LoadOptions) -> Loaded {
    let mut loader = Loader::new(options, Some(&path));
    let name = path.display().to_string();
    loader.add_file(path, text.to_string(), name);
    loader.out
}

impl<'o> Loader<'o> {
    /// A loader resolving imports from the directory of `root`.
    fn new(options: &'o LoadOptions, root: Option<&Path>) -> Loader<'o> {
        Loader {
            options,
            root_dir: root
                .and_then(Path::parent)
                .map(Path::to_path_buf)
                .unwrap_or_default(),
            out: Loaded::default(),
            canonical: Vec::new(),
            stack: Vec::new(),
        }
    }

    fn add_file(&mut self, path: PathBuf, text: String, module_name: String) {
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if self.canonical.contains(&canonical) {
            return;
        }
        let id = self.out.sources.add(path, text);
        let (file, diags) = crate::parser::parse(id, &self.out.sources.get(id).text);
        self.out.diagnostics.extend(diags);
        self.canonical.push(canonical.clone());
        self.stack.push((canonical, module_name));
        let imports: Vec<(usize, ast::ImportDecl)> = file
            .decls
            .iter()
            .enumerate()
            .filter_map(|(i, d)| match d {
                Decl::Import(imp) => Some((i, imp.clone())),
                _ => None,
            })
            .collect();
        let index = self.out.files.len();
        let ndecls = file.decls.len();
        self.out.files.push((id, file));
        let mut next_import = imports.into_iter().peekable();
        for d in 0..ndecls {
            if next_import.peek().is_some_and(|(i, _)| *i == d) {
                if let Some((_, imp)) = next_import.next() {
                    self.import(&imp);
                }
                continue;
            }
            self.out.order.push((index, d));
        }
        self.stack.pop();
    }

    fn import(&mut self, imp: &ast::ImportDecl) {
        let name: Vec<&str> = imp.path.iter().map(|i| i.name.as_str()).collect();
        let dotted = name.join(".");
        let rel: PathBuf = {
            let mut p: PathBuf = name.iter().collect();
            p.set_extension("strata");
            p
        };
        let mut dirs: Vec<PathBuf> = Vec::new();
        let candidates = std::iter::once(self.root_dir.clone())
            .chain(self.options.search_dirs.iter().cloned())
            .chain(std::iter::once(PathBuf::from(".")));
        for d in candidates {
            // `` and `.` (or two spellings of one directory) are the same place.
            let same = |a: &Path, b: &Path| {
                let norm = |p: &Path| {
                    std::fs::canonicalize(if p.as_os_str().is_empty() {
                        Path::new(".")
                    } else {
                        p
                    })
                    .ok()
                };
                a == b || (norm(a).is_some() && norm(a) == norm(b))
            };
            if !dirs.iter().any(|x| same(x, &d)) {
                dirs.push(d);
            }
        }
        let found = dirs
            .iter()
            .map(|d| d.join(&rel))
            .find(|p| self.options.exists(p));
        let Some(path) = found else {
            let looked: Vec<String> = dirs
                .iter()
                .map(|d| d.join(&rel).display().to_string())
                .collect();
            self.out.diagnostics.push(
                Diagnostic::new(
                    &codes::E022,
                    imp.span,
                    format!("cannot find module '{dotted}' (looked for {})", looked.join(", ")),
                )
                .with_help("imports name a file relative to the root module's directory: `import a.b` loads a/b.strata; add --search-dir for other places"),
            );
            return;
        };
        let canonical = std::fs::canonicalize(&path).unwrap_or_else(|_| path.clone());
        if let Some(pos) = self.stack.iter().position(|(p, _)| *p == canonical) {
            let mut chain: Vec<String> = self.stack[pos..].iter().map(|(_, n)| n.clone()).collect();
            chain.push(dotted.clone());
            self.out.diagnostics.push(Diagnostic::new(
                &codes::F045,
                imp.span,
                format!("circular import: {}", chain.join(" -> ")),
            ));
            return;
        }
        match self.options.read(&path) {
            Ok(text) => self.add_file(path, text, dotted),
            Err(e) => self.out.diagnostics.push(Diagnostic::new(
                &codes::E022,
                imp.span,
                format!("cannot read module '{dotted}' ({}): {e}", path.display()),
            )),
        }
    }
}
