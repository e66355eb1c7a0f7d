//! `strata lineage FILE NODE.COLUMN`: one column's lineage, downstream or
//! upstream, as text, JSON or Graphviz dot; and `strata lineage-diff
//! --change SRC:COL`, the reference's E030 gate on changing a source
//! column (with a second file: `strata diff`).

use std::path::PathBuf;

use strata_analysis::graph::Graph;
use strata_analysis::lineage::{self, Direction, Lineage};

use crate::exit;
use crate::modules::check_valid;
use crate::render;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LineageFormat {
    /// One edge a line, then the other reads.
    Text,
    /// One JSON document: the column, the edges, the other reads.
    Json,
    /// Graphviz (`strata lineage m.strata orders.id --format dot | dot -Tsvg`).
    Dot,
}

/// The arguments of `strata lineage`.
#[derive(Debug, clap::Args)]
pub struct LineageArgs {
    /// The module's root file. Default: the project's module (strata.toml
    /// in the current directory or above).
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// The column (required): MODEL.COLUMN, SOURCE.COLUMN or
    /// CONTRACT.COLUMN (`SOURCE:COLUMN` also works).
    #[arg(value_name = "COLUMN")]
    pub column: Option<String>,
    /// Follow it downstream: every column computed from it, transitively,
    /// and every other read (filters, join keys, contracts, tests). The
    /// default.
    #[arg(long, conflicts_with = "upstream")]
    pub downstream: bool,
    /// Follow it upstream: every column it is computed from, down to the
    /// sources.
    #[arg(long)]
    pub upstream: bool,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = LineageFormat::Text)]
    pub format: LineageFormat,
}

/// The arguments of `strata lineage-diff` (the reference's command).
#[derive(Debug, clap::Args)]
pub struct LineageDiffArgs {
    /// The module's root file (with HEAD: the old version).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// A second version of the module: the column-level diff FILE..HEAD,
    /// as `strata diff FILE HEAD`.
    #[arg(value_name = "HEAD", conflicts_with = "change")]
    pub head: Option<PathBuf>,
    /// The source (or model) column to change, as SOURCE:COLUMN: its
    /// downstream lineage, and E030 (exit 1) when anything consumes it.
    #[arg(long, value_name = "SOURCE:COLUMN", required_unless_present = "head")]
    pub change: Option<String>,
    /// One JSON document instead of text.
    #[arg(long)]
    pub json: bool,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<PathBuf>,
}

/// Check the module and follow `spec`; the error is the exit code.
fn traced(
    file: &std::path::Path,
    search_dir: &[PathBuf],
    spec: &str,
    direction: Direction,
    what: &str,
) -> Result<(strata_lang::Checked, Graph, Lineage), i32> {
    let checked = check_valid(file, search_dir, what)?;
    let graph = Graph::of(&checked.module);
    let column = lineage::resolve(&graph, spec).map_err(|e| {
        eprintln!("error: {e} in {}", file.display());
        exit::USAGE
    })?;
    let l = lineage::trace(&graph, &column, direction);
    Ok((checked, graph, l))
}

pub fn run(args: LineageArgs) -> i32 {
    let direction = match args.upstream {
        true => Direction::Upstream,
        false => Direction::Downstream,
    };
    let (file, column) =
        match crate::project::module_then(args.file.clone(), args.column.clone(), "lineage") {
            Ok((found, Some(column))) => (found.file, column),
            Ok((_, None)) => {
                eprintln!("error: `strata lineage` needs the COLUMN to follow (MODEL.COLUMN)");
                return exit::USAGE;
            }
            Err(code) => return code,
        };
    let (_, _, l) = match traced(&file, &args.search_dir, &column, direction, "lineage") {
        Ok(t) => t,
        Err(code) => return code,
    };
    match args.format {
        LineageFormat::Text => render::print_text(l.text().trim_end()),
        LineageFormat::Json => render::print_json(&l),
        LineageFormat::Dot => render::print_text(l.dot().trim_end()),
    }
    exit::OK
}

pub fn run_diff(args: LineageDiffArgs) -> i32 {
    let Some(change) = &args.change else {
        let head = args.head.clone().unwrap_or_default();
        return crate::commands::diff::run(crate::commands::diff::DiffArgs {
            files: vec![args.file, head],
            base: None,
            search_dir: args.search_dir,
            format: match args.json {
                true => crate::commands::diff::DiffFormat::Json,
                false => crate::commands::diff::DiffFormat::Human,
            },
        });
    };
    let (checked, graph, l) = match traced(
        &args.file,
        &args.search_dir,
        change,
        Direction::Downstream,
        "lineage-diff",
    ) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let span = graph
        .node(&l.column.node)
        .map(|n| n.span)
        .unwrap_or_default();
    let diagnostic = lineage::change_diagnostic(&l, span);
    if args.json {
        render::print_json(&serde_json::json!({
            "change": lineage::column_name(&l.column),
            "lineage": l,
            "consumers": l.consumers(),
            "breaking": diagnostic.is_some(),
            "diagnostics": diagnostic.iter().map(|d| render::json_diagnostic(&checked.sources, d)).collect::<Vec<_>>(),
        }));
    } else {
        render::print_text(l.text().trim_end());
    }
    match diagnostic {
        Some(d) => {
            render::print_diagnostics(&checked.sources, &[d]);
            exit::MODULE_ERRORS
        }
        None => exit::OK,
    }
}
