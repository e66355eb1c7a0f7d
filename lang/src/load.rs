//! Loading a module: its root files and, recursively, their imports.

use std::path::{Path, PathBuf};

use strata_codes as codes;

use crate::ast::{self, Decl};
use crate::diag::Diagnostic;
use crate::span::{FileId, SourceMap, Span};

/// How a module is loaded and checked.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Where imports are looked up besides the root module's directory.
    pub search_dirs: Vec<PathBuf>,
    /// Leave every model's fingerprint empty: for a caller that shows no
    /// fingerprint, or fills them in later only when it needs them
    /// ([`crate::check::fill_fingerprints`]). Hashing every model's syntax
    /// tree is about a twentieth of a check.
    pub skip_fingerprints: bool,
    /// Keep of each model only what a report of outputs and pins reads (the
    /// hook of [`crate::check_files_with`] among them): its steps and output
    /// references are dropped as soon as it is checked, and its lineage is
    /// not built, so that the next models reuse their memory. The diagnostics are the same;
    /// the module can no longer be compiled, built, linted or handed to an
    /// external rule. At 2,000 models a check then touches 6 MB less fresh
    /// memory: 3,534 -> 1,888 page faults.
    pub outputs_only: bool,
}

/// Every file of a module, parsed, and the order in which their
/// declarations merge (an imported file's declarations take the place of the
/// `import`).
#[derive(Debug, Default)]
pub struct Loaded {
    pub sources: SourceMap,
    /// The files, each in one or more consecutive parts (a large file is
    /// parsed in pieces, see [`crate::parser::parse_deferred`]).
    pub files: Vec<(FileId, ast::File)>,
    /// `(index into files, index into that file's decls)`, merged order.
    pub order: Vec<(usize, usize)>,
    pub diagnostics: Vec<Diagnostic>,
    /// Root files that could not be read: `(path, reason)`.
    pub io_errors: Vec<(PathBuf, String)>,
    /// The model bodies skimmed, not parsed, while loading (their items are
    /// empty in `files`), each with the start of the model's span, by file
    /// part, in the order of `files` and of the text: the checker parses
    /// each just before checking its model. Empty unless loaded with
    /// skimming (see [`crate::parser::parse_deferred`]).
    pub deferred: Vec<(FileId, Vec<(u32, crate::parser::DeferredBody)>)>,
}

impl Loaded {
    pub fn decls(&self) -> impl Iterator<Item = &Decl> {
        self.order
            .iter()
            .map(move |&(f, d)| &self.files[f].1.decls[d])
    }
}

struct Loader<'o> {
    options: &'o LoadOptions,
    /// Skim model bodies instead of parsing them.
    skim: bool,
    root_dir: PathBuf,
    out: Loaded,
    /// Canonical paths of the files loaded.
    canonical: Vec<PathBuf>,
    /// Import chain being loaded: (canonical path, module name).
    stack: Vec<(PathBuf, String)>,
}

/// Load the module made of `roots` (each with its imports) from disk.
pub fn load_files(roots: &[PathBuf], options: &LoadOptions) -> Loaded {
    load_files_with(roots, options, false)
}

/// [`load_files`], skimming model bodies when `skim` is set.
pub(crate) fn load_files_with(roots: &[PathBuf], options: &LoadOptions, skim: bool) -> Loaded {
    let mut loader = Loader::new(options, skim, roots.first().map(PathBuf::as_path));
    for root in roots {
        match std::fs::read_to_string(root) {
            Ok(text) => loader.add_file(root.clone(), text, root.display().to_string()),
            Err(e) => loader.out.io_errors.push((root.clone(), e.to_string())),
        }
    }
    loader.out
}

/// Load a module given as text (imports are resolved from `path`'s directory).
pub fn load_text(path: PathBuf, text: &str, options: &LoadOptions) -> Loaded {
    load_text_with(path, text, options, false)
}

/// [`load_text`], skimming model bodies when `skim` is set.
pub(crate) fn load_text_with(
    path: PathBuf,
    text: &str,
    options: &LoadOptions,
    skim: bool,
) -> Loaded {
    let mut loader = Loader::new(options, skim, Some(&path));
    let name = path.display().to_string();
    loader.add_file(path, text.to_string(), name);
    loader.out
}

impl<'o> Loader<'o> {
    /// A loader resolving imports from the directory of `root`.
    fn new(options: &'o LoadOptions, skim: bool, root: Option<&Path>) -> Loader<'o> {
        Loader {
            options,
            skim,
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
        let text = &self.out.sources.get(id).text;
        let (parts, diags) = if self.skim {
            crate::parser::parse_deferred_parts(id, text)
        } else {
            let (file, diags) = crate::parser::parse(id, text);
            (vec![(file, Vec::new())], diags)
        };
        self.out.diagnostics.extend(diags);
        self.canonical.push(canonical.clone());
        self.stack.push((canonical, module_name));
        let ndecls: usize = parts.iter().map(|(f, _)| f.decls.len()).sum();
        self.out.order.reserve(ndecls);
        for (file, deferred) in parts {
            if !deferred.is_empty() {
                self.out.deferred.push((id, deferred));
            }
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
        let found = dirs.iter().map(|d| d.join(&rel)).find(|p| p.is_file());
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
        match std::fs::read_to_string(&path) {
            Ok(text) => self.add_file(path, text, dotted),
            Err(e) => self.out.diagnostics.push(Diagnostic::new(
                &codes::E022,
                imp.span,
                format!("cannot read module '{dotted}' ({}): {e}", path.display()),
            )),
        }
    }
}

/// A span covering nothing at the start of a file (for whole-file problems).
pub fn file_start(file: FileId) -> Span {
    Span::new(file, 0, 0)
}
