//! The docs plugin: `strata docs`, the module as a static site — an index
//! with search and the interactive lineage graph, a page per model, source
//! and contract — that opens from the filesystem with no server and no
//! network. Registered through `inventory` like every plugin command.
//!
//! The pages are HTML written here; the graph is drawn by Cytoscape.js
//! (vendored in `assets/docs/vendor/`) from `graph.js`, which
//! holds the nodes, their places (laid out here: [`layout`]), the edges and
//! the column lineage. The same module always gives the same bytes.

mod comments;
pub mod drawing;
mod history;
mod html;
mod layout;
mod pages;
mod site;

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};

use strata_analysis::compile::compile_module;
use strata_analysis::graph::{NodeId, NodeKind};
use strata_lifecycle::Failure;
use strata_materialize::args::WarehouseArgs;
use strata_plugin::{exit, outln, DialectArg, Host, PluginCommand, Verb};

/// The site's own files, and the vendored graph library.
const ASSETS: &[(&str, &str)] = &[
    ("assets/site.css", include_str!("../assets/docs/site.css")),
    ("assets/site.js", include_str!("../assets/docs/site.js")),
    (
        "assets/cytoscape.min.js",
        include_str!("../assets/docs/vendor/cytoscape.min.js"),
    ),
];

/// The list of the files a site is made of, written last into its
/// directory: the next `docs` into that directory removes those of them it
/// does not write again (a model since removed), and nothing else.
const MANIFEST: &str = ".strata-docs";

/// Write a static documentation site: `index.html` (every model, source,
/// contract and test, a search box over names and column names, and the
/// lineage graph), and a page per model (output schema with types,
/// nullability, flags and descriptions, where each column comes from and
/// who reads it, its joins and what each `expect` promise proves, its
/// pins and tests, its SQL), per source and per contract.
#[derive(Debug, clap::Args)]
#[command(after_help = "\
Descriptions are the comments directly above a model, source, contract or \
column (or a comment ending a column's line); a column passed through \
unchanged shows its input's description.

The site needs no server and no network: open DIR/index.html from the \
filesystem. The graph: click a node to open its page; hover a node to light \
up what it reads and what reads it; right-click (or press and hold) to keep \
that lineage and list the node's columns, then click a column to trace its \
lineage. The same module always writes the same bytes, so a site can be \
committed and diffed.

With a warehouse (--warehouse, --target or $STRATA_WAREHOUSE), each model's \
page also shows its last run: the latest run on branch main that built it \
(else on any branch), its time, the rows of its snapshot and the pins, join \
checks and tests it passed. The warehouse is only read: nothing is created \
or written, and a DuckDB file must exist.

Exit codes: 0 written; 1 the module has errors (or does not compile for \
--dialect); 2 bad arguments; 4 the directory cannot be written or the \
warehouse cannot be opened.

Manual: docs/lineage.md, in the strata source tree.")]
pub struct DocsArgs {
    /// The module's root file. Default: the project's module (strata.toml
    /// in the current directory or above).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The directory to write the site into (created if missing). The files
    /// of an earlier site there are replaced, those it no longer has are
    /// removed; nothing else in it is touched.
    #[arg(short = 'o', long = "out", value_name = "DIR")]
    pub out: PathBuf,
    /// The dialect of the SQL shown on each model's page.
    #[arg(long, value_enum, default_value_t = DialectArg::Duckdb)]
    pub dialect: DialectArg,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<PathBuf>,
    /// A warehouse to read each model's last run from (read only): a DuckDB
    /// file, `postgres://USER@HOST:PORT/DB?schema=S` (password from the
    /// URL, else `PGPASSWORD`) or a Spark Connect server as
    /// `sc://HOST:PORT/;token=T?schema=DB` (the password and the token are
    /// never written into the site). Default:
    /// `$STRATA_WAREHOUSE`; without any, the site has no run information.
    /// (`-o` is the output directory here, not the warehouse.)
    #[arg(long, value_name = "PATH_OR_URL")]
    pub warehouse: Option<String>,
    /// The warehouse `[targets.NAME]` of the nearest strata.toml names.
    #[arg(long, value_name = "NAME", conflicts_with = "warehouse")]
    pub target: Option<String>,
    /// Seconds to wait for a writer that holds a DuckDB warehouse.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    pub lock_timeout: f64,
}

impl Verb for DocsArgs {
    const NAME: &'static str = "docs";
    const ORDER: usize = 19;
    const ABOUT: &'static str =
        "Write a static documentation site: every model, source and contract, searchable, \
         with the lineage graph drawn (no server, no network)";
    fn run(self, host: &dyn Host) -> i32 {
        run(self, host)
    }
}

inventory::submit! { PluginCommand::of::<DocsArgs>() }

pub fn run(args: DocsArgs, host: &dyn Host) -> i32 {
    let file = match strata_plugin::project::module_or_project(args.file.as_deref(), "docs") {
        Ok(f) => f,
        Err(code) => return code,
    };
    let checked = match host.valid_module(&file, &args.search_dir, "docs") {
        Ok(c) => c,
        Err(code) => return code,
    };
    let dialect = args.dialect.dialect();
    let compiled = match compile_module(&checked.module, &[], dialect) {
        Ok(c) => c,
        Err(diags) => {
            host.print_diagnostics(&checked.sources, &diags);
            eprintln!(
                "error: {} cannot be compiled for {} (try another --dialect)",
                file.display(),
                dialect.name()
            );
            return exit::MODULE_ERRORS;
        }
    };
    let runs = match last_runs(&args, &file, &checked.module) {
        Ok(r) => r,
        Err(Failure::Usage(msg)) => {
            eprintln!("error: {msg}");
            return exit::USAGE;
        }
        Err(Failure::Environment(msg)) => {
            eprintln!("error: {msg}");
            return exit::ENVIRONMENT;
        }
        Err(Failure::Data(d)) => {
            eprintln!("error: {}", d.diagnostic.message);
            return exit::ENVIRONMENT;
        }
    };
    let sql: HashMap<&str, &str> = compiled
        .views
        .iter()
        .map(|v| (v.model.as_str(), v.sql.as_str()))
        .collect();
    let title = file.file_stem().map_or_else(
        || "strata".to_string(),
        |s| s.to_string_lossy().into_owned(),
    );
    let footer = format!(
        "Generated by strata {} from {}",
        env!("CARGO_PKG_VERSION"),
        file.display()
    );
    let docs = site::Docs::new(
        &checked,
        html::Shell {
            site_title: &title,
            footer: &footer,
        },
        dialect,
        sql,
        runs,
    );
    let files = site_files(&docs);
    if let Err(msg) = write_site(&args.out, &files) {
        eprintln!("error: {msg}");
        return exit::ENVIRONMENT;
    }
    outln!(
        "wrote {} files to {}: open {}",
        files.len(),
        args.out.display(),
        args.out.join("index.html").display()
    );
    exit::OK
}

/// The last run of every model, when a warehouse is named.
fn last_runs(
    args: &DocsArgs,
    file: &Path,
    module: &strata_lang::ir::Module,
) -> Result<Option<site::Runs>, Failure> {
    let from_env = std::env::var("STRATA_WAREHOUSE").is_ok_and(|w| !w.is_empty());
    if args.warehouse.is_none() && args.target.is_none() && !from_env {
        return Ok(None);
    }
    let wh = WarehouseArgs {
        warehouse: args.warehouse.clone(),
        target: args.target.clone(),
        lock_timeout: args.lock_timeout,
    }
    .open_read_only(&strata_plugin::config::Settings::around(file))?;
    let models: Vec<&str> = module.models.iter().map(|m| m.name.as_str()).collect();
    Ok(Some(site::Runs {
        warehouse: wh.name().to_string(),
        last: history::last_runs(&strata_lifecycle::StateReader::new(&*wh), &models)?,
    }))
}

/// Every file of the site, by its path under the site's directory.
fn site_files(docs: &site::Docs) -> BTreeMap<String, String> {
    let mut files: BTreeMap<String, String> = ASSETS
        .iter()
        .map(|(path, text)| (path.to_string(), text.to_string()))
        .collect();
    files.insert("index.html".into(), docs.index_page());
    files.insert("graph.js".into(), docs.graph_script());
    let module = &docs.checked.module;
    let page = |kind: NodeKind, name: &str| docs.url(&NodeId::new(kind, name)).to_string();
    for m in &module.models {
        files.insert(page(NodeKind::Model, &m.name), docs.model_page(m));
    }
    for s in &module.sources {
        files.insert(page(NodeKind::Source, &s.name), docs.source_page(s));
    }
    for c in &module.contracts {
        files.insert(page(NodeKind::Contract, &c.name), docs.contract_page(c));
    }
    files
}

/// Write `files` under `out`; remove the files an earlier site listed in
/// its manifest that this one no longer has; write the manifest.
fn write_site(out: &Path, files: &BTreeMap<String, String>) -> Result<(), String> {
    let fail = |what: &str, path: &Path, e: std::io::Error| {
        format!("cannot {what} {}: {e}", path.display())
    };
    if out.exists() && !out.is_dir() {
        return Err(format!(
            "cannot write the site into {}: it is not a directory",
            out.display()
        ));
    }
    std::fs::create_dir_all(out).map_err(|e| fail("create the site directory", out, e))?;
    let manifest = out.join(MANIFEST);
    let earlier = std::fs::read_to_string(&manifest).unwrap_or_default();
    for (rel, text) in files {
        let path = out.join(rel);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| fail("create", dir, e))?;
        }
        std::fs::write(&path, text).map_err(|e| fail("write", &path, e))?;
    }
    for rel in earlier.lines().filter(|l| !files.contains_key(*l)) {
        // Only plain relative paths inside the site: a manifest edited by
        // hand cannot make this remove anything outside it.
        let plain = !rel.is_empty()
            && Path::new(rel)
                .components()
                .all(|c| matches!(c, Component::Normal(_)));
        let path = out.join(rel);
        if plain && path.is_file() {
            std::fs::remove_file(&path).map_err(|e| fail("remove the stale page", &path, e))?;
        }
    }
    let list: String = files.keys().map(|k| format!("{k}\n")).collect();
    std::fs::write(&manifest, list).map_err(|e| fail("write", &manifest, e))?;
    Ok(())
}
