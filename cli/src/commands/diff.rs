//! `strata diff OLD NEW` / `strata diff --base REV NEW`: what changed
//! between two versions of a module, column by column, with the blast
//! radius of each change; a breaking change is E030 and exit 1 (a CI gate).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde::Serialize;
use strata_lang::{Checked, Diagnostic, LoadOptions};
use strata_rules::ModuleInput;

use strata_analysis::diff::{describe_downstream, Change, Pair};

use crate::exit;
use crate::render;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    /// The changes on stdout, E030 diagnostics on stderr.
    Human,
    /// One JSON document: every change with its blast radius, and the
    /// diagnostics.
    Json,
    /// SARIF 2.1.0 of the E030 diagnostics (and the new version's errors),
    /// for code-scanning tools.
    Sarif,
}

/// The arguments of `strata diff` (its help is on [`crate::Command::Diff`]).
#[derive(Debug, clap::Args)]
pub struct DiffArgs {
    /// OLD and NEW module root files; with --base, only NEW (default: the
    /// project's module, strata.toml in the current directory or above).
    #[arg(value_name = "FILE", num_args = 1..=2)]
    pub files: Vec<PathBuf>,
    /// Read the old version from git at this revision (a branch, tag or
    /// commit): the module's file and its imports as they were there.
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable;
    /// for both versions).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = DiffFormat::Human)]
    pub format: DiffFormat,
}

/// The old version read from git into a temporary directory.
struct GitBase {
    dir: tempfile::TempDir,
    rev: String,
    root: PathBuf,
    search_dirs: Vec<PathBuf>,
    /// Whether the root file exists at the revision.
    exists: bool,
}

impl GitBase {
    /// How an old file is named in reports: `REV:path/in/repo`.
    fn name(&self, path: &Path) -> String {
        match path.strip_prefix(self.dir.path()) {
            Ok(rel) => format!("{}:{}", self.rev, rel.display()),
            Err(_) => path.display().to_string(),
        }
    }
}

fn git(top: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .arg("-C")
        .arg(top)
        .args(args)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    Ok(out.stdout)
}

/// Write the `.strata` files of `file`'s directory and of the search
/// directories, as they are at `rev`, into a temporary directory. `Err`
/// carries the exit code and message.
fn read_base(rev: &str, file: &Path, search_dirs: &[PathBuf]) -> Result<GitBase, (i32, String)> {
    let env = |m: String| (exit::ENVIRONMENT, m);
    let abs = std::fs::canonicalize(file).map_err(|e| env(format!("{}: {e}", file.display())))?;
    let start = abs.parent().unwrap_or(Path::new("/"));
    let top = git(start, &["rev-parse", "--show-toplevel"])
        .map_err(|e| env(format!("--base needs a git repository: {e}")))?;
    let top = PathBuf::from(String::from_utf8_lossy(&top).trim());
    let top = std::fs::canonicalize(&top).unwrap_or(top);
    git(
        &top,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{rev}^{{commit}}"),
        ],
    )
    .map_err(|_| (exit::USAGE, format!("--base {rev}: no such revision")))?;
    let rel = |p: &Path| -> Option<PathBuf> {
        let p = std::fs::canonicalize(p).ok()?;
        p.strip_prefix(&top).ok().map(Path::to_path_buf)
    };
    let root_rel =
        rel(&abs).ok_or_else(|| env(format!("{} is outside the repository", file.display())))?;
    let mut dirs = vec![root_rel.parent().map(Path::to_path_buf).unwrap_or_default()];
    let mut mapped_search = Vec::new();
    for d in search_dirs {
        match rel(d) {
            Some(r) => dirs.push(r),
            // Outside the repository: the same directory for both versions.
            None => mapped_search.push(d.clone()),
        }
    }
    let dir = tempfile::Builder::new()
        .prefix("strata-diff-")
        .tempdir()
        .map_err(|e| env(format!("cannot create a temporary directory: {e}")))?;
    let mut args: Vec<String> = ["ls-tree", "-r", "-z", "--name-only", rev, "--"]
        .map(String::from)
        .to_vec();
    args.extend(dirs.iter().map(|d| {
        let s = d.display().to_string();
        if s.is_empty() {
            ".".to_string()
        } else {
            s
        }
    }));
    let listed = git(&top, &args.iter().map(String::as_str).collect::<Vec<_>>()).map_err(env)?;
    for path in listed
        .split(|b| *b == 0)
        .filter(|p| p.ends_with(b".strata"))
    {
        let path = String::from_utf8_lossy(path).to_string();
        let text = git(&top, &["show", &format!("{rev}:{path}")]).map_err(env)?;
        let to = dir.path().join(&path);
        if let Some(parent) = to.parent() {
            std::fs::create_dir_all(parent).map_err(|e| env(e.to_string()))?;
        }
        std::fs::write(&to, text).map_err(|e| env(format!("{}: {e}", to.display())))?;
    }
    let root = dir.path().join(&root_rel);
    for d in &dirs[1..] {
        mapped_search.push(dir.path().join(d));
    }
    Ok(GitBase {
        exists: root.exists(),
        root,
        search_dirs: mapped_search,
        rev: rev.to_string(),
        dir,
    })
}

fn check(file: &Path, search_dirs: &[PathBuf]) -> Checked {
    let options = LoadOptions {
        search_dirs: search_dirs.to_vec(),
        ..LoadOptions::default()
    };
    strata_rules::check_module(
        ModuleInput::Files(std::slice::from_ref(&file.to_path_buf())),
        &options,
    )
}

#[derive(Serialize)]
struct JsonDiff<'a> {
    base: String,
    head: String,
    ok: bool,
    breaking: usize,
    changes: &'a [Change],
    diagnostics: Vec<render::JsonDiagnostic>,
}

pub fn run(args: DiffArgs) -> i32 {
    let (old_file, new_file) = match (&args.base, args.files.as_slice()) {
        (None, [old, new]) => (Some(old.clone()), new.clone()),
        (Some(_), [new]) => (None, new.clone()),
        (Some(_), []) => match crate::project::module_or_project(None, "diff --base REV") {
            Ok(new) => (None, new),
            Err(code) => return code,
        },
        (None, _) => {
            eprintln!("error: diff compares two files (OLD NEW), or one with --base REV");
            return exit::USAGE;
        }
        (Some(_), _) => {
            eprintln!("error: with --base, give only the new version's file");
            return exit::USAGE;
        }
    };
    for f in old_file.iter().chain([&new_file]) {
        if !f.is_file() {
            let why = if f.is_dir() {
                "is a directory: diff reads one module, given by its root file"
            } else {
                "no such file"
            };
            eprintln!("error: {}: {why}", f.display());
            return exit::ENVIRONMENT;
        }
    }
    let base = match &args.base {
        Some(rev) => match read_base(rev, &new_file, &args.search_dir) {
            Ok(b) => Some(b),
            Err((code, message)) => {
                eprintln!("error: {message}");
                return code;
            }
        },
        None => None,
    };
    let old = match (&base, &old_file) {
        (Some(b), _) if !b.exists => {
            let path = b.root.display().to_string();
            strata_rules::check_module(
                ModuleInput::Text {
                    path: &path,
                    text: "",
                },
                &LoadOptions::default(),
            )
        }
        (Some(b), _) => check(&b.root, &b.search_dirs),
        (None, Some(f)) => check(f, &args.search_dir),
        (None, None) => return exit::USAGE,
    };
    let new = check(&new_file, &args.search_dir);
    for c in [&old, &new] {
        if let Some((path, e)) = c.io_errors.first() {
            eprintln!("error: cannot read {}: {e}", path.display());
            return exit::ENVIRONMENT;
        }
    }
    let name = |p: &Path| match &base {
        Some(b) => b.name(p),
        None => p.display().to_string(),
    };
    let base_name = match (&base, &old_file) {
        (Some(b), _) => b.name(&b.root),
        (None, Some(f)) => f.display().to_string(),
        (None, None) => String::new(),
    };
    let pair = Pair::new(&old, &new, &name);
    if old.has_errors() {
        render::print_diagnostics(&pair.sources, &old.diagnostics);
        eprintln!(
            "error: the old version {base_name} has {}: diff compares two versions that check",
            render::count_summary(&old.diagnostics)
        );
        return exit::MODULE_ERRORS;
    }
    let changes = pair.changes();
    let mut diags: Vec<Diagnostic> = changes.iter().filter_map(|c| pair.diagnostic(c)).collect();
    let breaking = diags.len();
    let new_errors: Vec<Diagnostic> = new
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| pair.new_diagnostic(d))
        .collect();
    diags.extend(new_errors.iter().cloned());
    let ok = diags.is_empty();
    match args.format {
        DiffFormat::Human => {
            render::print_text(&human(&changes, &base_name, &new_file));
            render::print_diagnostics(&pair.sources, &diags);
            if breaking > 0 {
                eprintln!(
                    "error: {breaking} breaking change{} (E030)",
                    if breaking == 1 { "" } else { "s" }
                );
            }
            if !new_errors.is_empty() {
                eprintln!(
                    "error: {} has {}",
                    new_file.display(),
                    render::count_summary(&new_errors)
                );
            }
        }
        DiffFormat::Json => render::print_json(&JsonDiff {
            base: base_name,
            head: new_file.display().to_string(),
            ok,
            breaking,
            changes: &changes,
            diagnostics: render::json_diagnostics(&pair.sources, &diags),
        }),
        DiffFormat::Sarif => render::print_json(&crate::sarif::log(&[(&pair.sources, &diags)])),
    }
    if ok {
        exit::OK
    } else {
        exit::MODULE_ERRORS
    }
}

/// The changes as text, grouped by node.
fn human(changes: &[Change], base: &str, head: &Path) -> String {
    use std::fmt::Write as _;
    let mut out = format!("diff {base} -> {}\n", head.display());
    if changes.is_empty() {
        out.push_str("no changes\n");
        return out;
    }
    let mut last = None;
    for c in changes {
        if last != Some(&c.node) {
            let _ = writeln!(out, "{} {}", c.node.kind.as_str(), c.node.name);
            last = Some(&c.node);
        }
        let mark = if c.breaking.is_some() {
            "  BREAKING"
        } else {
            ""
        };
        let _ = writeln!(out, "  {:<12} {}{mark}", c.kind.as_str(), c.detail);
        if !c.downstream.is_empty() {
            let _ = writeln!(
                out,
                "  {:<12} reaches {}",
                "",
                describe_downstream(&c.downstream)
            );
        }
    }
    let breaking = changes.iter().filter(|c| c.breaking.is_some()).count();
    let _ = writeln!(
        out,
        "{} change{}, {breaking} breaking",
        changes.len(),
        if changes.len() == 1 { "" } else { "s" }
    );
    out
}
