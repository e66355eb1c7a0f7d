//! The warehouse dbt's profile names, as a strata target: a DuckDB file
//! (`path`, relative to the project) or a PostgreSQL URL.

use std::path::{Path, PathBuf};

use crate::error::Failure;
use crate::yaml::{self, str_field};

/// The warehouse of a profile: the target text (a path or a `postgres://`
/// URL, with no password) and the profile's password, kept apart from
/// anything shown.
pub struct Warehouse {
    pub target: String,
    pub password: Option<String>,
}

/// The warehouse of the project's profile: profiles.yml in `profiles_dir`,
/// `$DBT_PROFILES_DIR`, the project, then `~/.dbt`.
pub fn warehouse(root: &Path, profiles_dir: Option<&Path>) -> Result<Warehouse, Failure> {
    let project_file = root.join("dbt_project.yml");
    let text = std::fs::read_to_string(&project_file)
        .map_err(|e| Failure::unreadable(&project_file, &e))?;
    let doc = yaml::parse(&project_file, &text)?;
    let Some(profile) = str_field(&doc, "profile").map(str::to_string) else {
        return Err(Failure::usage(
            "dbt_project.yml names no profile: name the warehouse with -o PATH|URL",
        ));
    };
    let mut dirs: Vec<PathBuf> = Vec::new();
    dirs.extend(profiles_dir.map(Path::to_path_buf));
    dirs.extend(std::env::var_os("DBT_PROFILES_DIR").map(PathBuf::from));
    dirs.push(root.to_path_buf());
    dirs.extend(std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".dbt")));
    for dir in dirs {
        let path = dir.join("profiles.yml");
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let doc = yaml::parse(&path, &text)?;
        let Some(p) = doc.get(&profile) else { continue };
        let target = str_field(p, "target").unwrap_or("dev");
        let Some(out) = p.get("outputs").and_then(|o| o.get(target)) else {
            continue;
        };
        let field = |k: &str| -> Option<String> {
            match out.get(k)? {
                serde_json::Value::String(s) => Some(s.clone()),
                serde_json::Value::Number(n) => Some(n.to_string()),
                _ => None,
            }
        };
        let templated = |v: &Option<String>| v.as_deref().is_some_and(|s| s.contains("{{"));
        let at = format!(
            "profile `{profile}`, target `{target}` in {}",
            path.display()
        );
        return match str_field(out, "type").unwrap_or("") {
            "duckdb" => {
                let p = field("path").unwrap_or_default();
                if p.is_empty() || p == ":memory:" || templated(&Some(p.clone())) {
                    return Err(Failure::usage(format!(
                        "{at}: its DuckDB `path` is not a file strata can open read-only; name the warehouse with -o PATH"
                    )));
                }
                let file = Path::new(&p);
                Ok(Warehouse {
                    target: if file.is_absolute() {
                        p
                    } else {
                        root.join(file).to_string_lossy().into_owned()
                    },
                    password: None,
                })
            }
            "postgres" => {
                let (host, user, pass, port, db, schema) = (
                    field("host"),
                    field("user"),
                    field("password").or_else(|| field("pass")),
                    field("port"),
                    field("dbname").or_else(|| field("database")),
                    field("schema"),
                );
                if [&host, &user, &pass, &port, &db, &schema].iter().any(|v| templated(v)) {
                    return Err(Failure::usage(format!(
                        "{at}: it uses Jinja (env_var); name the warehouse with -o postgres://... (the password from $PGPASSWORD)"
                    )));
                }
                Ok(Warehouse {
                    target: format!(
                        "postgres://{}@{}:{}/{}?schema={}",
                        user.unwrap_or_else(|| "postgres".into()),
                        host.unwrap_or_else(|| "localhost".into()),
                        port.unwrap_or_else(|| "5432".into()),
                        db.unwrap_or_else(|| "postgres".into()),
                        schema.unwrap_or_else(|| "public".into())
                    ),
                    password: pass,
                })
            }
            other => Err(Failure::usage(format!(
                "{at}: a `{other}` warehouse: strata audit --data reads DuckDB and PostgreSQL profiles; name another strata target with -o URL"
            ))),
        };
    }
    Err(Failure::usage(format!(
        "profile `{profile}` not found in a profiles.yml (--profiles-dir, $DBT_PROFILES_DIR, the project, ~/.dbt): name the warehouse with -o PATH|URL"
    )))
}
