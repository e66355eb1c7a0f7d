//! The warehouse dbt's profile names: `profiles.yml` in `--profiles-dir`,
//! `$DBT_PROFILES_DIR`, the project, then `~/.dbt`, with `env_var()` read
//! as dbt reads it. The import asks it for the columns of sources that
//! declare none (read-only) and writes it as strata.toml's `[targets.dbt]`;
//! `audit --data` counts on it. A password is never held where it could be
//! shown: a profile's `env_var('X')` stays the name `X`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::error::Failure;
use crate::yaml::{self, str_field};

/// The schema strata publishes into on dbt's warehouse, beside dbt's own.
pub const STRATA_SCHEMA: &str = "strata";

/// The warehouse of the profile's target.
#[derive(Clone, Debug)]
pub struct Warehouse {
    /// `profile `p`, target `t` in FILE`.
    pub at: String,
    pub kind: Kind,
}

#[derive(Clone, Debug)]
pub enum Kind {
    /// A DuckDB file (absolute, or relative to the working directory) and
    /// the schema dbt builds into (`main` by default).
    DuckDb { path: PathBuf, schema: String },
    Postgres {
        user: String,
        host: String,
        port: String,
        dbname: String,
        schema: String,
        password: Option<Secret>,
    },
}

/// A password: the variable a profile's `env_var()` names, or one written
/// in profiles.yml (never shown, never written).
#[derive(Clone)]
pub enum Secret {
    Env(String),
    Given(String),
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Secret::Env(v) => write!(f, "Env({v})"),
            Secret::Given(_) => write!(f, "Given(***)"),
        }
    }
}

/// The profile's warehouse: `Ok(None)` when dbt_project.yml names no
/// profile or no profiles.yml has it; a usage failure when its target
/// cannot be read as a warehouse strata opens.
pub fn find(root: &Path, profiles_dir: Option<&Path>) -> Result<Option<Warehouse>, Failure> {
    let project_file = root.join("dbt_project.yml");
    let text = std::fs::read_to_string(&project_file)
        .map_err(|e| Failure::unreadable(&project_file, &e))?;
    let doc = yaml::parse(&project_file, &text)?;
    let Some(profile) = str_field(&doc, "profile").map(str::to_string) else {
        return Ok(None);
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
        let at = format!(
            "profile `{profile}`, target `{target}` in {}",
            path.display()
        );
        return output(root, out, at).map(Some);
    }
    Ok(None)
}

/// One output of a profile as a warehouse.
fn output(root: &Path, out: &Value, at: String) -> Result<Warehouse, Failure> {
    let raw = |k: &str| -> Option<String> {
        match out.get(k)? {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    };
    let field = |k: &str| -> Result<Option<String>, Failure> {
        let Some(v) = raw(k) else { return Ok(None) };
        match env_ref(&v) {
            None => Ok(Some(v)),
            Some(Ok((var, default))) => match (std::env::var(&var), default) {
                (Ok(value), _) => Ok(Some(value)),
                (Err(_), Some(d)) => Ok(Some(d)),
                (Err(_), None) => Err(Failure::usage(format!(
                    "{at}: `{k}` reads the environment variable {var}, which is not set"
                ))),
            },
            Some(Err(())) => Err(Failure::usage(format!(
                "{at}: `{k}` is Jinja other than env_var('NAME'), which strata does not render"
            ))),
        }
    };
    let kind = match str_field(out, "type").unwrap_or("") {
        "duckdb" => {
            let p = field("path")?.unwrap_or_default();
            if p.is_empty() || p == ":memory:" || p.starts_with("md:") {
                return Err(Failure::usage(format!(
                    "{at}: its DuckDB `path` is not a file strata can open"
                )));
            }
            let file = Path::new(&p);
            Kind::DuckDb {
                path: if file.is_absolute() {
                    file.to_path_buf()
                } else {
                    root.join(file)
                },
                schema: field("schema")?.unwrap_or_else(|| "main".into()),
            }
        }
        "postgres" => {
            let password = match raw("password").or_else(|| raw("pass")) {
                None => None,
                Some(v) => match env_ref(&v) {
                    None => Some(Secret::Given(v)),
                    Some(Ok((var, default))) => match (std::env::var_os(&var), default) {
                        (None, Some(d)) => Some(Secret::Given(d)),
                        _ => Some(Secret::Env(var)),
                    },
                    Some(Err(())) => {
                        return Err(Failure::usage(format!(
                            "{at}: its `password` is Jinja other than env_var('NAME'), which strata does not render"
                        )))
                    }
                },
            };
            Kind::Postgres {
                user: field("user")?.unwrap_or_else(|| "postgres".into()),
                host: field("host")?.unwrap_or_else(|| "localhost".into()),
                port: field("port")?.unwrap_or_else(|| "5432".into()),
                dbname: match field("dbname")? {
                    Some(d) => d,
                    None => field("database")?.unwrap_or_else(|| "postgres".into()),
                },
                schema: field("schema")?.unwrap_or_else(|| "public".into()),
                password,
            }
        }
        other => {
            return Err(Failure::usage(format!(
                "{at}: a `{other}` warehouse: strata reads DuckDB and PostgreSQL profiles"
            )))
        }
    };
    Ok(Warehouse { at, kind })
}

/// `{{ env_var('NAME') }}` or `{{ env_var('NAME', 'default') }}` (a filter
/// after it, as `| int`, left out): `Some(Ok((NAME, default)))`; other
/// Jinja `Some(Err(()))`; plain text `None`.
fn env_ref(text: &str) -> Option<Result<(String, Option<String>), ()>> {
    if !text.contains("{{") && !text.contains("{%") {
        return None;
    }
    let parse = || -> Option<(String, Option<String>)> {
        let inner = text.trim().strip_prefix("{{")?.strip_suffix("}}")?;
        let call = inner.split('|').next()?.trim();
        let args = call.strip_prefix("env_var")?.trim().strip_prefix('(')?;
        let args = args.strip_suffix(')')?;
        let mut out: Vec<String> = Vec::new();
        for a in args.split(',') {
            let a = a.trim();
            let q = a.chars().next()?;
            if !matches!(q, '\'' | '"') {
                return None;
            }
            out.push(a.strip_prefix(q)?.strip_suffix(q)?.to_string());
        }
        match out.as_slice() {
            [var] => Some((var.clone(), None)),
            [var, default] => Some((var.clone(), Some(default.clone()))),
            _ => None,
        }
    };
    Some(parse().ok_or(()))
}

/// `%XX`-escaped for a URL's user or database part.
fn escaped(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

impl Warehouse {
    /// A `postgres://` URL for schema `schema` (no password).
    fn pg_url(&self, schema: &str) -> Option<String> {
        let Kind::Postgres {
            user,
            host,
            port,
            dbname,
            ..
        } = &self.kind
        else {
            return None;
        };
        Some(format!(
            "postgres://{}@{host}:{port}/{}?schema={}",
            escaped(user),
            escaped(dbname),
            escaped(schema)
        ))
    }

    /// The schema dbt builds into.
    pub fn schema(&self) -> &str {
        match &self.kind {
            Kind::DuckDb { schema, .. } | Kind::Postgres { schema, .. } => schema,
        }
    }

    /// The warehouse as the engine opens it, to read from dbt's schema
    /// (the password given to the driver, never put in the URL).
    pub fn target(&self) -> Result<strata_engine::Target, Failure> {
        let failure = |e: strata_engine::Failure| match e {
            strata_engine::Failure::Usage(m) => Failure::usage(m),
            strata_engine::Failure::Environment(m) => Failure::environment(m),
            strata_engine::Failure::Data(d) => Failure::environment(format!("{d:?}")),
        };
        match &self.kind {
            Kind::DuckDb { path, .. } => Ok(strata_engine::Target::DuckDb(
                path.to_string_lossy().into_owned(),
            )),
            Kind::Postgres { password, .. } => {
                let url = self.pg_url(self.schema()).unwrap_or_default();
                let env = match password {
                    Some(Secret::Env(v)) => Some(v.as_str()),
                    _ => None,
                };
                let mut target = strata_engine::Target::parse(&url, env).map_err(failure)?;
                if let (strata_engine::Target::Postgres(pg), Some(Secret::Given(p))) =
                    (&mut target, password)
                {
                    pg.config.password(p);
                }
                Ok(target)
            }
        }
    }

    /// strata.toml's `url` and `password-env` for a target that reads
    /// where dbt builds and publishes into schema [`STRATA_SCHEMA`]: a
    /// DuckDB file as `file` (relative to strata.toml) names it.
    pub fn toml_target(&self, file: &str) -> (String, Option<String>) {
        match &self.kind {
            Kind::DuckDb { .. } => (format!("{file}?schema={STRATA_SCHEMA}"), None),
            Kind::Postgres { password, .. } => (
                self.pg_url(STRATA_SCHEMA).unwrap_or_default(),
                match password {
                    Some(Secret::Env(v)) => Some(v.clone()),
                    _ => None,
                },
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_var_is_read_as_dbt_reads_it() {
        assert_eq!(env_ref("plain"), None);
        assert_eq!(
            env_ref("{{ env_var('PW') }}"),
            Some(Ok(("PW".into(), None)))
        );
        assert_eq!(
            env_ref("{{ env_var(\"P\", 'x.duckdb') | trim }}"),
            Some(Ok(("P".into(), Some("x.duckdb".into()))))
        );
        assert_eq!(env_ref("{{ target.name }}"), Some(Err(())));
    }

    #[test]
    fn a_password_is_never_in_the_url_nor_in_debug() {
        let wh = Warehouse {
            at: String::new(),
            kind: Kind::Postgres {
                user: "a b".into(),
                host: "h".into(),
                port: "5433".into(),
                dbname: "d".into(),
                schema: "analytics".into(),
                password: Some(Secret::Given("hunter2".into())),
            },
        };
        let (url, env) = wh.toml_target("");
        assert_eq!(url, "postgres://a%20b@h:5433/d?schema=strata");
        assert_eq!(env, None);
        assert!(!format!("{wh:?}").contains("hunter2"));
        let target = wh.target().unwrap_or_else(|e| panic!("{}", e.message));
        assert!(!target.shown().contains("hunter2"));
        assert!(target.shown().ends_with("?schema=analytics"));
    }
}
