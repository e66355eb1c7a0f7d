//! The packages `dbt deps` installed (`dbt_packages/<dir>`, each a dbt
//! project of its own), and the vars each package's models see, scoped as
//! dbt scopes them (`project` reads their files).

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::Failure;
use crate::yaml::{self, str_field};

/// An installed package as found: its name, directory (relative to the
/// root project), dbt_project.yml and the vars its models see.
pub(crate) struct Installed {
    pub name: String,
    pub rel: String,
    pub doc: Value,
    pub vars: Map<String, Value>,
}

/// Every package installed under `install` (relative to `root`): a
/// directory with a dbt_project.yml, named by its `name:`. The root
/// project itself (a package's `integration_tests` installs its package
/// with `local: ../`), `root_name`, is not one.
pub(crate) fn installed(
    root: &Path,
    root_name: &str,
    root_doc: &Value,
    install: &str,
    cli_vars: &Map<String, Value>,
) -> Result<Vec<Installed>, Failure> {
    let dir = root.join(install);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Ok(Vec::new());
    };
    let mut dirs: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    dirs.sort();
    let mut out: Vec<Installed> = Vec::new();
    for d in dirs {
        let file = dir.join(&d).join("dbt_project.yml");
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        let doc = yaml::parse(&file, &text)?;
        let Some(name) = str_field(&doc, "name").map(str::to_string) else {
            continue;
        };
        if name == root_name || out.iter().any(|p| p.name == name) {
            continue;
        }
        let vars = package_vars(&name, doc.get("vars"), root_doc.get("vars"), cli_vars);
        out.push(Installed {
            name,
            rel: format!("{install}/{d}"),
            doc,
            vars,
        });
    }
    Ok(out)
}

/// What `var()` sees in package `name`, as dbt merges it (later wins): the
/// package's global vars, its vars scoped to itself, the root project's
/// global vars, the root's vars scoped to the package, then `--vars`.
fn package_vars(
    name: &str,
    own: Option<&Value>,
    root: Option<&Value>,
    cli: &Map<String, Value>,
) -> Map<String, Value> {
    let mut out = Map::new();
    for doc in [own, root].into_iter().flatten() {
        let Value::Object(all) = doc else { continue };
        for (k, v) in all {
            if !v.is_object() {
                out.insert(k.clone(), v.clone());
            }
        }
        if let Some(Value::Object(scoped)) = all.get(name) {
            out.extend(scoped.clone());
        }
    }
    out.extend(cli.clone());
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn vars_scoped_as_dbt_scopes_them() {
        let own = json!({"a": 1, "b": 1, "pkg": {"b": 2, "c": 2}, "other": {"x": 1}});
        let root = json!({"c": 3, "d": 3, "pkg": {"d": 4}, "other": {"x": 9}});
        let cli = json!({"e": 5}).as_object().cloned().unwrap_or_default();
        let v = package_vars("pkg", Some(&own), Some(&root), &cli);
        assert_eq!(
            Value::Object(v),
            json!({"a": 1, "b": 2, "c": 3, "d": 4, "e": 5})
        );
    }
}
