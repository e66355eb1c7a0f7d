//! `strata graph`: the module's DAG — sources, models, contracts and tests,
//! with join kinds and cardinality promises on the edges, and with
//! `--columns` the column lineage — as Graphviz dot, mermaid or JSON.

use std::path::PathBuf;

use strata_analysis::graph::{Graph, NodeId, NodeKind};
use strata_docs::drawing::{dot, mermaid};

use crate::exit;
use crate::modules::{check_valid, require_models};
use crate::render;

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    /// Graphviz (`strata graph m.strata | dot -Tsvg > m.svg`).
    Dot,
    /// A mermaid flowchart (renders in GitHub and GitLab markdown).
    Mermaid,
    /// One JSON document: nodes, edges and (with --columns) column edges.
    Json,
}

/// The arguments of `strata graph` (its help is on [`crate::Command::Graph`]).
#[derive(Debug, clap::Args)]
pub struct GraphArgs {
    /// The module's root file. Default: the project's module (strata.toml
    /// in the current directory or above); a first MODEL is then not a file.
    #[arg(value_name = "FILE")]
    pub file: Option<PathBuf>,
    /// Only these models, with everything upstream and downstream of them
    /// (default: the whole module).
    #[arg(value_name = "MODEL")]
    pub models: Vec<String>,
    /// Also draw column lineage: each column of a model linked to the
    /// columns it is computed from, a contract's columns to the model's,
    /// and the columns each test checks.
    #[arg(long)]
    pub columns: bool,
    /// Extra directory where `import a.b` looks for a/b.strata (repeatable).
    #[arg(long, value_name = "DIR")]
    pub search_dir: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = GraphFormat::Dot)]
    pub format: GraphFormat,
}

pub fn run(mut args: GraphArgs) -> i32 {
    let file = match crate::project::module_and_models(args.file.take(), &mut args.models, "graph")
    {
        Ok(found) => found.file,
        Err(code) => return code,
    };
    let checked = match check_valid(&file, &args.search_dir, "graph") {
        Ok(c) => c,
        Err(code) => return code,
    };
    if let Err(code) = require_models(&checked.module, &args.models, &file) {
        return code;
    }
    let mut graph = Graph::of(&checked.module);
    if !args.models.is_empty() {
        let seeds: Vec<NodeId> = args
            .models
            .iter()
            .map(|m| NodeId::new(NodeKind::Model, m.as_str()))
            .collect();
        graph.keep_connected(&seeds);
    }
    if !args.columns {
        graph.columns.clear();
    }
    match args.format {
        GraphFormat::Json => render::print_json(&graph),
        GraphFormat::Dot => render::print_text(&dot(&graph, args.columns)),
        GraphFormat::Mermaid => render::print_text(&mermaid(&graph, args.columns)),
    }
    exit::OK
}
