//! Where a source's rows come from: a relation of the warehouse, or a file
//! read with DuckDB's readers.

use std::path::{Path, PathBuf};

pub use strata_lang::table_name::TableName;

/// Where a source's rows come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// A table or view in the warehouse: where it keeps its relations, or
    /// in the schema (and catalog) named.
    Table(TableName),
    /// A `.csv`, `.parquet` or `.json` file, read with DuckDB's readers.
    File(PathBuf),
}

/// How a source file is read, by its extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileFormat {
    Csv,
    Parquet,
    Json,
}

impl Origin {
    pub fn file_format(path: &Path) -> FileFormat {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("parquet") => FileFormat::Parquet,
            Some("json") | Some("jsonl") | Some("ndjson") => FileFormat::Json,
            _ => FileFormat::Csv,
        }
    }

    /// The table `name` where the warehouse keeps its relations.
    pub fn table(name: &str) -> Origin {
        Origin::Table(TableName::bare(name))
    }

    pub fn describe(&self) -> String {
        match self {
            Origin::Table(t) => format!("table {t}"),
            Origin::File(p) => format!("file {}", p.display()),
        }
    }

    /// The origin [`Origin::describe`] described (as a run records its
    /// overrides). A table recorded before tables had schemas, whose name
    /// does not read as one, is that table.
    pub fn from_description(text: &str) -> Option<Origin> {
        if let Some(t) = text.strip_prefix("table ") {
            return Some(Origin::Table(
                TableName::parse(t).unwrap_or_else(|_| TableName::bare(t)),
            ));
        }
        text.strip_prefix("file ")
            .map(|p| Origin::File(PathBuf::from(p)))
    }
}
