//! Reading a dbt project: `dbt_project.yml` (paths, vars, the hierarchical
//! `models:` / `seeds:` configs), the model, seed and macro files, every
//! property file (`.yml` / `.yaml`) under the model and seed paths, and the
//! adapter of the project's profile.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::error::{io_reason, Failure};
pub use crate::properties::{
    ColumnProps, Constraint, Loc, ModelProps, Properties, SourceTable, TestSpec, UnitTest,
};
use crate::yaml::{self, str_field};

/// A dbt project as read from disk.
#[derive(Debug, Default)]
pub struct Project {
    pub root: PathBuf,
    pub name: String,
    /// The adapter type of the profile's target (`duckdb` when there is no
    /// profile to read), and where it came from.
    pub adapter: String,
    pub adapter_from: String,
    /// `vars:` of dbt_project.yml, the project's own scope merged in, then
    /// `--vars`.
    pub vars: Map<String, Value>,
    pub models: Vec<ModelFile>,
    pub seeds: Vec<SeedFile>,
    pub macros: Vec<MacroFile>,
    /// Singular data tests (`.sql` under the test paths).
    pub singular_tests: Vec<ModelFile>,
    /// The test paths (`test-paths:`, relative to the root): unit tests'
    /// CSV fixture files are under their `fixtures/`.
    pub test_paths: Vec<String>,
    pub props: Properties,
    /// `{% docs name %}` blocks of the `.md` files under the model paths.
    pub docs: BTreeMap<String, String>,
    pub(crate) models_config: Value,
    pub(crate) seeds_config: Value,
    /// `data_tests:` (or `tests:`) of dbt_project.yml.
    pub(crate) tests_config: Value,
    /// The packages installed in `dbt_packages/` (`dbt deps`), by name.
    pub packages: BTreeMap<String, Package>,
    /// `dispatch:`: per macro namespace, the packages `adapter.dispatch`
    /// searches, in order.
    pub dispatch: BTreeMap<String, Vec<String>>,
}

/// An installed package: its own dbt_project.yml's configs and the vars
/// its models and macros see.
#[derive(Debug, Default)]
pub struct Package {
    pub name: String,
    /// Relative to the root project.
    pub rel: String,
    pub(crate) models_config: Value,
    /// `var()` in the package: its own vars, then the root project's (its
    /// global ones, then those scoped to the package), then `--vars`.
    pub vars: Map<String, Value>,
}

/// A model's `.sql` (or `.py`) file.
#[derive(Clone, Debug)]
pub struct ModelFile {
    pub name: String,
    /// Relative to the project's root.
    pub rel: String,
    /// `[project, dir..., name]`: how dbt_project.yml's configs address it.
    pub fqn: Vec<String>,
    pub text: String,
    pub python: bool,
    /// The installed package it comes from (`None`: the root project).
    pub package: Option<String>,
}

#[derive(Clone, Debug)]
pub struct SeedFile {
    pub name: String,
    pub path: PathBuf,
    pub rel: String,
    pub fqn: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct MacroFile {
    pub rel: String,
    pub text: String,
    /// The installed package it comes from (`None`: the root project).
    pub package: Option<String>,
}

/// Options that change how the project is read.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// `--vars` (a YAML or JSON mapping).
    pub vars: Option<String>,
    /// `--profiles-dir`.
    pub profiles_dir: Option<PathBuf>,
}

/// Config keys that apply at a level of dbt_project.yml's `models:` tree
/// without a `+` prefix (a key that is none of them names a directory or a
/// model).
const CONFIG_KEYS: &[&str] = &[
    "materialized",
    "enabled",
    "schema",
    "database",
    "alias",
    "tags",
    "docs",
    "persist_docs",
    "pre-hook",
    "post-hook",
    "full_refresh",
    "column_types",
    "quote_columns",
    "meta",
    "grants",
    "contract",
    "on_schema_change",
    "unique_key",
    "incremental_strategy",
    "sql_header",
    "delimiter",
    "group",
    "access",
    "severity",
    "store_failures",
    "where",
    "limit",
    "event_time",
    "batch_size",
    "lookback",
    "begin",
    "sort",
    "dist",
    "cluster_by",
    "partition_by",
    "labels",
    "snowflake_warehouse",
    "transient",
    "copy_grants",
    "query_tag",
    "file_format",
    "location_root",
];

impl Project {
    /// Read the project at `root`, and where dbt writes its artifacts
    /// (`manifest.json`, `catalog.json`): `target_path`, else
    /// `<root>/target`. What `import-dbt` and `audit` both start from.
    pub fn read_with_target(
        root: &Path,
        options: &ReadOptions,
        target_path: Option<&Path>,
    ) -> Result<(Project, PathBuf), Failure> {
        let project = Project::read(root, options)?;
        let target = target_path.map_or_else(|| project.root.join("target"), Path::to_path_buf);
        Ok((project, target))
    }

    /// Read the project at `root`.
    pub fn read(root: &Path, options: &ReadOptions) -> Result<Project, Failure> {
        let project_file = root.join("dbt_project.yml");
        let text = match std::fs::read_to_string(&project_file) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let what = if root.is_dir() {
                    format!(
                        "{} has no dbt_project.yml: it is not a dbt project",
                        root.display()
                    )
                } else if root.exists() {
                    format!(
                        "{} is not a directory: give the directory of a dbt project",
                        root.display()
                    )
                } else {
                    format!("{} does not exist", root.display())
                };
                return Err(Failure::environment(what));
            }
            Err(e) => return Err(Failure::unreadable(&project_file, &e)),
        };
        let doc = yaml::parse(&project_file, &text)?;
        if !doc.is_object() {
            return Err(Failure::project(format!(
                "{}: expected a mapping with `name:` and the project's settings",
                project_file.display()
            )));
        }
        let Some(name) = str_field(&doc, "name").map(str::to_string) else {
            return Err(Failure::project(format!(
                "{}: the project has no `name:`",
                project_file.display()
            )));
        };
        let mut vars = Map::new();
        if let Some(Value::Object(all)) = doc.get("vars") {
            for (k, v) in all {
                if k != &name && !v.is_object() {
                    vars.insert(k.clone(), v.clone());
                }
            }
            if let Some(Value::Object(own)) = all.get(&name) {
                for (k, v) in own {
                    vars.insert(k.clone(), v.clone());
                }
            }
            // A scope of another package, or a plain mapping value.
            for (k, v) in all {
                if k != &name && v.is_object() && !vars.contains_key(k) {
                    vars.insert(k.clone(), v.clone());
                }
            }
        }
        let mut cli_vars = Map::new();
        if let Some(cli) = &options.vars {
            let parsed =
                yaml::parse(Path::new("--vars"), cli).map_err(|f| Failure::usage(f.message))?;
            match parsed {
                Value::Object(m) => cli_vars = m,
                Value::Null => {}
                _ => return Err(Failure::usage(
                    "--vars: expected a YAML or JSON mapping such as '{start_date: 2024-01-01}'",
                )),
            }
        }
        vars.extend(cli_vars.clone());

        let (adapter, adapter_from) = adapter_of(root, &doc, options)?;
        let mut project = Project {
            root: root.to_path_buf(),
            name: name.clone(),
            adapter,
            adapter_from,
            vars,
            models_config: doc.get("models").cloned().unwrap_or(Value::Null),
            seeds_config: doc.get("seeds").cloned().unwrap_or(Value::Null),
            tests_config: doc
                .get("data_tests")
                .or_else(|| doc.get("tests"))
                .cloned()
                .unwrap_or(Value::Null),
            test_paths: paths(&doc, "test-paths", "", "tests"),
            dispatch: dispatch_of(&doc),
            ..Project::default()
        };
        read_tree(&mut project, &doc, "", None)?;
        let install = str_field(&doc, "packages-install-path").unwrap_or("dbt_packages");
        for p in crate::packages::installed(root, &name, &doc, install, &cli_vars)? {
            read_tree(&mut project, &p.doc, &format!("{}/", p.rel), Some(&p.name))?;
            project.packages.insert(
                p.name.clone(),
                Package {
                    models_config: p.doc.get("models").cloned().unwrap_or(Value::Null),
                    name: p.name,
                    rel: p.rel,
                    vars: p.vars,
                },
            );
        }
        Ok(project)
    }

    /// The config of a model: dbt_project.yml's hierarchy, then its
    /// property file's `config:` (the file's own `config()` comes later).
    pub fn model_config(&self, model: &ModelFile) -> Map<String, Value> {
        let mut out = Map::new();
        // A package's own dbt_project.yml, then the root's (which
        // addresses the package's models under its name).
        if let Some(p) = model.package.as_ref().and_then(|p| self.packages.get(p)) {
            resolve_config(&p.models_config, &model.fqn, &mut out);
        }
        resolve_config(&self.models_config, &model.fqn, &mut out);
        if let Some(p) = self.props.models.get(&model.name) {
            out.extend(p.config.clone());
        }
        out
    }

    /// The config of a singular test: dbt_project.yml's `data_tests:`.
    pub fn test_config(&self, test: &ModelFile) -> Map<String, Value> {
        let mut out = Map::new();
        resolve_config(&self.tests_config, &test.fqn, &mut out);
        out
    }

    /// What `var()` sees in a model or macro of `package` (`None`: the
    /// root project).
    pub fn vars_of(&self, package: Option<&str>) -> &Map<String, Value> {
        package
            .and_then(|p| self.packages.get(p))
            .map_or(&self.vars, |p| &p.vars)
    }

    pub fn seed_config(&self, seed: &SeedFile) -> Map<String, Value> {
        let mut out = Map::new();
        resolve_config(&self.seeds_config, &seed.fqn, &mut out);
        if let Some(p) = self.props.seeds.get(&seed.name) {
            out.extend(p.config.clone());
        }
        out
    }
}

impl Project {
    /// A description with its `{{ doc("name") }}` references replaced by
    /// the docs blocks they name (an unknown one is kept as written).
    pub fn describe(&self, text: &str) -> String {
        let mut out = String::new();
        let mut rest = text;
        while let Some(i) = rest.find("{{") {
            let Some(j) = rest[i..].find("}}") else { break };
            let inner = rest[i + 2..i + j].trim();
            let name = inner
                .strip_prefix("doc(")
                .and_then(|r| r.strip_suffix(')'))
                .map(|n| n.trim().trim_matches(|c| c == '\'' || c == '"'));
            out.push_str(&rest[..i]);
            match name.and_then(|n| self.docs.get(n)) {
                Some(block) => out.push_str(block.trim()),
                None => out.push_str(&rest[i..i + j + 2]),
            }
            rest = &rest[i + j + 2..];
        }
        out.push_str(rest);
        out
    }
}

/// `dispatch: [{macro_namespace, search_order}]` of dbt_project.yml.
fn dispatch_of(doc: &Value) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    for d in doc
        .get("dispatch")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let (Some(ns), Some(order)) = (
            str_field(d, "macro_namespace"),
            d.get("search_order").and_then(Value::as_array),
        ) else {
            continue;
        };
        let order = order
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        out.insert(ns.to_string(), order);
    }
    out
}

/// The paths dbt_project.yml gives under `key` (or its older spelling
/// `old`), else `default`.
fn paths(doc: &Value, key: &str, old: &str, default: &str) -> Vec<String> {
    match doc.get(key).or_else(|| doc.get(old)) {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        Some(Value::String(s)) => vec![s.clone()],
        _ => vec![default.to_string()],
    }
}

/// Read the files of the project whose dbt_project.yml is `doc`, at
/// `prefix` under the root (`""`: the root project itself; a package's
/// directory otherwise, whose seeds and singular tests are not read).
fn read_tree(
    project: &mut Project,
    doc: &Value,
    prefix: &str,
    package: Option<&str>,
) -> Result<(), Failure> {
    let root = project.root.clone();
    let name = str_field(doc, "name").unwrap_or_default().to_string();
    let under = |dirs: Vec<String>| -> Vec<String> {
        dirs.into_iter().map(|d| format!("{prefix}{d}")).collect()
    };
    let model_paths = under(paths(doc, "model-paths", "source-paths", "models"));
    let seed_paths = under(paths(doc, "seed-paths", "data-paths", "seeds"));
    let macro_paths = under(paths(doc, "macro-paths", "", "macros"));
    let test_paths = under(paths(doc, "test-paths", "", "tests"));
    let fqn_of = |parts: &[String]| -> Vec<String> {
        let mut fqn = vec![name.clone()];
        fqn.extend(parts.iter().cloned());
        fqn
    };
    for dir in &model_paths {
        for (path, rel, parts) in files_under(&root, dir, &["sql", "py"])? {
            let text = read_text(&path)?;
            project.models.push(ModelFile {
                name: parts.last().cloned().unwrap_or_default(),
                python: rel.ends_with(".py"),
                rel,
                fqn: fqn_of(&parts),
                text,
                package: package.map(str::to_string),
            });
        }
    }
    if package.is_none() {
        for dir in &seed_paths {
            for (path, rel, parts) in files_under(&root, dir, &["csv"])? {
                project.seeds.push(SeedFile {
                    name: parts.last().cloned().unwrap_or_default(),
                    path,
                    rel,
                    fqn: fqn_of(&parts),
                });
            }
        }
    }
    for dir in &macro_paths {
        for (path, rel, _) in files_under(&root, dir, &["sql"])? {
            let text = read_text(&path)?;
            project.macros.push(MacroFile {
                rel,
                text,
                package: package.map(str::to_string),
            });
        }
    }
    if package.is_none() {
        for dir in &test_paths {
            for (path, rel, parts) in files_under(&root, dir, &["sql"])? {
                let text = read_text(&path)?;
                project.singular_tests.push(ModelFile {
                    name: parts.last().cloned().unwrap_or_default(),
                    rel,
                    fqn: fqn_of(&parts),
                    text,
                    python: false,
                    package: None,
                });
            }
        }
    }
    for dir in &model_paths {
        for (path, _, _) in files_under(&root, dir, &["md"])? {
            let text = read_text(&path)?;
            project.docs.extend(docs_blocks(&text));
        }
    }
    let mut prop_dirs = model_paths.clone();
    if package.is_none() {
        prop_dirs.extend(seed_paths.iter().cloned());
        prop_dirs.extend(test_paths.iter().cloned());
    }
    prop_dirs.sort();
    prop_dirs.dedup();
    for dir in &prop_dirs {
        for (path, rel, _) in files_under(&root, dir, &["yml", "yaml"])? {
            let text = read_text(&path)?;
            let doc = yaml::parse(&path, &text)?;
            project.props.read_file(&rel, &text, &doc)?;
        }
    }
    Ok(())
}

/// The `{% docs name %} ... {% enddocs %}` blocks of a Markdown file.
fn docs_blocks(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("{%") {
        let Some(j) = rest[i..].find("%}") else { break };
        if j < 2 {
            rest = &rest[i + 2..];
            continue;
        }
        let tag = rest[i + 2..i + j].trim().trim_matches('-').trim();
        rest = &rest[i + j + 2..];
        let Some(name) = tag.strip_prefix("docs ").map(str::trim) else {
            continue;
        };
        let Some(end) = rest
            .find("{% enddocs %}")
            .or_else(|| rest.find("{%- enddocs %}"))
        else {
            break;
        };
        out.push((name.to_string(), rest[..end].trim().to_string()));
        rest = &rest[end..];
    }
    out
}

/// Apply the configs of `tree` along `fqn`: at each level, its config keys
/// (`+key`, or a known config name), then the child named by the next part.
fn resolve_config(tree: &Value, fqn: &[String], out: &mut Map<String, Value>) {
    let Value::Object(level) = tree else { return };
    for (k, v) in level {
        if let Some(key) = k.strip_prefix('+') {
            out.insert(key.to_string(), v.clone());
        } else if CONFIG_KEYS.contains(&k.as_str()) && fqn.first().is_none_or(|f| f != k) {
            out.insert(k.clone(), v.clone());
        }
    }
    if let Some((first, rest)) = fqn.split_first() {
        if let Some(child) = level.get(first) {
            resolve_config(child, rest, out);
        }
    }
}

/// The adapter type of the project's profile: `profiles.yml` in
/// `--profiles-dir`, `$DBT_PROFILES_DIR`, the project, then `~/.dbt`.
fn adapter_of(
    root: &Path,
    doc: &Value,
    options: &ReadOptions,
) -> Result<(String, String), Failure> {
    let profile = str_field(doc, "profile");
    let mut dirs: Vec<PathBuf> = Vec::new();
    if let Some(d) = &options.profiles_dir {
        dirs.push(d.clone());
    }
    if let Some(d) = std::env::var_os("DBT_PROFILES_DIR") {
        dirs.push(PathBuf::from(d));
    }
    dirs.push(root.to_path_buf());
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(PathBuf::from(home).join(".dbt"));
    }
    let Some(profile) = profile else {
        return Ok((
            "duckdb".into(),
            "no profile named in dbt_project.yml".into(),
        ));
    };
    for dir in dirs {
        let path = dir.join("profiles.yml");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let doc = yaml::parse(&path, &text)?;
        let Some(p) = doc.get(profile) else { continue };
        let target = str_field(p, "target").unwrap_or("dev");
        let kind = p
            .get("outputs")
            .and_then(|o| o.get(target))
            .and_then(|t| str_field(t, "type"));
        if let Some(kind) = kind {
            return Ok((
                kind.to_ascii_lowercase(),
                format!(
                    "profile `{profile}`, target `{target}` in {}",
                    path.display()
                ),
            ));
        }
    }
    Ok((
        "duckdb".into(),
        format!("profile `{profile}` not found: DuckDB assumed"),
    ))
}

/// Every file under `root/dir` with one of `exts`, sorted:
/// `(path, path relative to root, parts relative to dir without the
/// extension of the last)`. A missing directory has no files.
type Found = (PathBuf, String, Vec<String>);

fn files_under(root: &Path, dir: &str, exts: &[&str]) -> Result<Vec<Found>, Failure> {
    let base = root.join(dir);
    if !base.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for entry in walkdir::WalkDir::new(&base).sort_by_file_name() {
        let entry = entry.map_err(|e| {
            let at = e.path().map_or_else(|| base.clone(), Path::to_path_buf);
            Failure::environment(format!(
                "cannot read {}: {}",
                at.display(),
                e.io_error().map_or_else(|| e.to_string(), io_reason)
            ))
        })?;
        if !entry.file_type().is_file() {
            continue;
        }
        let path = entry.path();
        let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
            continue;
        };
        if !exts.contains(&ext) {
            continue;
        }
        let Ok(inner) = path.strip_prefix(&base) else {
            continue;
        };
        let mut parts: Vec<String> = inner
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        if let Some(last) = parts.last_mut() {
            if let Some(stem) = Path::new(last.as_str()).file_stem() {
                *last = stem.to_string_lossy().into_owned();
            }
        }
        let rel = path
            .strip_prefix(root)
            .unwrap_or(path)
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        out.push((path.to_path_buf(), rel, parts));
    }
    Ok(out)
}

fn read_text(path: &Path) -> Result<String, Failure> {
    let bytes = std::fs::read(path).map_err(|e| Failure::unreadable(path, &e))?;
    String::from_utf8(bytes).map_err(|_| {
        Failure::environment(format!(
            "cannot read {}: it is not UTF-8 text",
            path.display()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hierarchical_configs() {
        let tree = json!({
            "shop": {
                "materialized": "table",
                "staging": { "+materialized": "view", "+enabled": true, "stg_b": { "+enabled": false } },
            }
        });
        let fqn = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let mut out = Map::new();
        resolve_config(&tree, &fqn(&["shop", "staging", "stg_b"]), &mut out);
        assert_eq!(out.get("materialized"), Some(&json!("view")));
        assert_eq!(out.get("enabled"), Some(&json!(false)));
        let mut out = Map::new();
        resolve_config(&tree, &fqn(&["shop", "marts", "m"]), &mut out);
        assert_eq!(out.get("materialized"), Some(&json!("table")));
        assert_eq!(out.get("enabled"), None);
    }

    #[test]
    fn docs_blocks_and_descriptions() {
        let blocks = docs_blocks("{%}\n{% docs status %}\nThe status.\n{% enddocs %}\n{% docs %}");
        assert_eq!(
            blocks,
            vec![("status".to_string(), "The status.".to_string())]
        );
        let p = Project {
            docs: blocks.into_iter().collect(),
            ..Project::default()
        };
        assert_eq!(p.describe("Is: {{ doc(\"status\") }}"), "Is: The status.");
        assert_eq!(p.describe("{{ doc('nope') }} {{"), "{{ doc('nope') }} {{");
    }
}
