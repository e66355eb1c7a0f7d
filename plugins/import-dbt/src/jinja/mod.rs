//! Rendering dbt's Jinja with minijinja (the engine dbt Fusion uses): the
//! project's macros and dbt's built-in ones in one template every model
//! imports, and per render the functions a model calls — `ref`, `source`,
//! `config`, `var`, `env_var`, `is_incremental`, `this`, `target`,
//! `adapter.dispatch`, the `dbt.` and `dbt_utils.` namespaces.
//!
//! What needs a warehouse while compiling (`run_query`, `statement`,
//! `adapter.get_columns_in_relation`, ...), a macro nobody defines, a
//! missing `var`, fails the render: the model is needs review, with the
//! reason and the line.

mod config;
mod objects;
pub(crate) use objects::this_marker;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use minijinja::{Environment, ErrorKind, UndefinedBehavior, Value};
use serde_json::{Map, Value as Json};

use crate::project::{Loc, MacroFile, Project};

pub use config::render_project_yaml;
use objects::{
    package_template, Adapter, ConfigFn, Macros, Namespace, RefFn, Relation, SourceFn, VarFn,
};
pub use objects::{ref_marker, source_marker, Dep, INVOCATION_ID, RUN_STARTED_AT};

const BUILTINS: &str = include_str!("builtins.jinja");
const MACROS: &str = "__dbt_macros__";
/// How much work one render may do (minijinja's fuel): a model whose Jinja
/// loops forever is needs review instead of hanging the import.
const FUEL: u64 = 5_000_000;

/// The project's macros and dbt's, ready to render models with.
pub struct Renderer {
    env: Environment<'static>,
    /// Every macro name the macro template defines (imported into each
    /// model's scope, as dbt makes them global).
    names: Vec<String>,
    /// Where each file starts in each macro template (the root's, each
    /// installed package's): `(first line, file)`.
    files: BTreeMap<String, Vec<(usize, String)>>,
    /// Macro files that do not parse: `(file, line, message)`.
    pub broken: Vec<(String, usize, String)>,
    project_name: String,
    adapter: String,
    /// What `var()` sees, per package (`""`: the root project).
    vars: BTreeMap<String, Arc<Map<String, Json>>>,
    macros: Arc<Macros>,
}

/// A rendered model.
#[derive(Debug, Default)]
pub struct Rendered {
    pub sql: String,
    /// `ref`s and `source`s, in call order.
    pub deps: Vec<Dep>,
    /// What `config(...)` set.
    pub config: Map<String, Json>,
}

/// Why a model does not render.
#[derive(Debug, Clone)]
pub struct RenderFailure {
    pub message: String,
    pub loc: Loc,
    /// `ref`s and `source`s seen before the failure (so the model still
    /// takes its place in the graph).
    pub deps: Vec<Dep>,
    /// What `config(...)` set before the failure (a model disabled there
    /// is disabled, whatever fails after).
    pub config: Map<String, Json>,
}

/// The context variable `is_incremental()` reads.
const INCREMENTAL: &str = "__strata_is_incremental";

/// What a render records (shared by the functions of one render).
#[derive(Debug, Default)]
pub(crate) struct Record {
    pub deps: Vec<Dep>,
    pub config: Map<String, Json>,
    /// The first reason the render must fail for (set by a function that
    /// also returns an error: minijinja's message may lose it).
    pub refusal: Option<String>,
}

pub(crate) type Shared = Arc<Mutex<Record>>;

/// The marker error message of a refusal.
pub(crate) fn refuse(record: &Shared, why: String) -> minijinja::Error {
    if let Ok(mut r) = record.lock() {
        if r.refusal.is_none() {
            r.refusal = Some(why.clone());
        }
    }
    minijinja::Error::new(ErrorKind::InvalidOperation, why)
}

impl Renderer {
    pub fn new(project: &Project) -> Renderer {
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_fuel(Some(FUEL));
        env.set_recursion_limit(200);
        env.set_unknown_method_callback(minijinja_contrib::pycompat::unknown_method_callback);
        env.add_function("return", return_value);
        env.add_function("log", |_: minijinja::value::Rest<Value>| "");
        env.add_function("print", |_: minijinja::value::Rest<Value>| "");
        env.add_function("env_var", env_var);
        // False, but in the second rendering of an incremental model
        // (`Renderer::render_incremental`).
        env.add_function("is_incremental", |state: &minijinja::State| {
            state.lookup(INCREMENTAL).is_some_and(|v| v.is_true())
        });
        env.add_function("fromjson", |s: String| {
            serde_json::from_str::<Json>(&s)
                .map(Value::from_serialize)
                .map_err(|e| minijinja::Error::new(ErrorKind::InvalidOperation, e.to_string()))
        });
        env.add_function("tojson", |v: Value| {
            serde_json::to_string(&v)
                .map_err(|e| minijinja::Error::new(ErrorKind::InvalidOperation, e.to_string()))
        });
        env.add_function(
            "__strata_keep",
            |state: &minijinja::State, name: String, m: Value| {
                state.set_temp(&name, m);
            },
        );
        env.add_global("execute", true);
        env.add_global(
            "flags",
            Value::from_serialize(serde_json::json!({
                "FULL_REFRESH": false, "STORE_FAILURES": false, "WHICH": "run"
            })),
        );
        env.add_global(
            "target",
            Value::from_serialize(serde_json::json!({
                "name": "dev",
                "target_name": "dev",
                "type": project.adapter,
                "schema": "main",
                "database": project.name,
                "profile_name": project.name,
                "threads": 1,
            })),
        );
        env.add_global("project_name", project.name.clone());
        env.add_global("run_started_at", RUN_STARTED_AT);
        env.add_global("invocation_id", INVOCATION_ID);

        // The macro template: dbt's built-ins, then every project macro
        // file that parses (one that does not is reported, and the models
        // calling its macros fail as calling an unknown macro). Each
        // installed package has a template of its own: the built-ins, then
        // its macro files (its macros call each other unqualified).
        let mut broken = Vec::new();
        let mut files = BTreeMap::new();
        let root_files: Vec<&MacroFile> = project
            .macros
            .iter()
            .filter(|m| m.package.is_none())
            .collect();
        let (root_own, root_names) =
            add_template(&mut env, MACROS, &root_files, &mut files, &mut broken);
        let mut names = root_names;
        names.sort();
        names.dedup();
        let mut macros = Macros {
            root: project.name.clone(),
            root_own,
            dispatch: project.dispatch.clone(),
            adapter: project.adapter.clone(),
            ..Macros::default()
        };
        let mut vars = BTreeMap::new();
        vars.insert(String::new(), Arc::new(project.vars.clone()));
        for name in project.packages.keys() {
            let own_files: Vec<&MacroFile> = project
                .macros
                .iter()
                .filter(|m| m.package.as_deref() == Some(name.as_str()))
                .collect();
            let (own, _) = add_template(
                &mut env,
                &package_template(name),
                &own_files,
                &mut files,
                &mut broken,
            );
            macros.packages.insert(name.clone(), own);
            vars.insert(name.clone(), Arc::new(project.vars_of(Some(name)).clone()));
        }
        Renderer {
            env,
            names,
            files,
            broken,
            project_name: project.name.clone(),
            adapter: project.adapter.clone(),
            vars,
            macros: Arc::new(macros),
        }
    }

    /// The model's file and line of a line of the macro template.
    fn macro_loc(&self, template: &str, line: usize) -> Loc {
        let mut at = (1, "<macros>".to_string());
        for (start, file) in self.files.get(template).into_iter().flatten() {
            if *start <= line {
                at = (*start, file.clone());
            }
        }
        Loc::new(at.1, line + 1 - at.0)
    }

    /// Render model `name` of the root project (file `rel`, text `source`).
    pub fn render(&self, name: &str, rel: &str, source: &str) -> Result<Rendered, RenderFailure> {
        self.render_with(None, name, rel, source, false)
    }

    /// Render model `name` of `package` (`None`: the root project): its
    /// package's macros and vars are the ones it sees unqualified.
    pub fn render_in(
        &self,
        package: Option<&str>,
        name: &str,
        rel: &str,
        source: &str,
    ) -> Result<Rendered, RenderFailure> {
        self.render_with(package, name, rel, source, false)
    }

    /// Render it as dbt does on an incremental run: `is_incremental()`
    /// true.
    pub fn render_incremental(
        &self,
        package: Option<&str>,
        name: &str,
        rel: &str,
        source: &str,
    ) -> Result<Rendered, RenderFailure> {
        self.render_with(package, name, rel, source, true)
    }

    fn render_with(
        &self,
        package: Option<&str>,
        name: &str,
        rel: &str,
        source: &str,
        incremental: bool,
    ) -> Result<Rendered, RenderFailure> {
        let record: Shared = Arc::new(Mutex::new(Record::default()));
        // The imports go on the model's first line, so that its lines keep
        // their numbers.
        let mut prelude =
            format!("{{%- import \"{MACROS}\" as __m -%}}{{%- do __strata_keep(\"__m\", __m) -%}}");
        for n in &self.names {
            prelude.push_str(&format!("{{%- set {n} = __m.{n} -%}}"));
        }
        for p in self.macros.packages.keys() {
            let t = package_template(p);
            prelude.push_str(&format!(
                "{{%- import \"{t}\" as {t} -%}}{{%- do __strata_keep(\"{t}\", {t}) -%}}"
            ));
        }
        if let Some(own) = package.and_then(|p| self.macros.packages.get(p)) {
            let t = package_template(package.unwrap_or_default());
            for n in own {
                prelude.push_str(&format!("{{%- set {n} = {t}.{n} -%}}"));
            }
        }
        let vars = self
            .vars
            .get(package.unwrap_or_default())
            .or_else(|| self.vars.get(""))
            .cloned()
            .unwrap_or_default();
        let text = format!("{prelude}{}", rewrite_return(source));
        let this = Relation::model(name);
        let refuses = |what: &'static str| {
            Value::from_object(objects::Refuses {
                record: record.clone(),
                what,
            })
        };
        // `ref` is a Rust keyword: the context is built as a list of pairs.
        let mut ctx = vec![
            (
                "ref",
                Value::from_object(RefFn {
                    record: record.clone(),
                }),
            ),
            (
                "source",
                Value::from_object(SourceFn {
                    record: record.clone(),
                }),
            ),
            (
                "config",
                Value::from_object(ConfigFn {
                    record: record.clone(),
                }),
            ),
            (
                "var",
                Value::from_object(VarFn {
                    vars,
                    record: record.clone(),
                }),
            ),
            (
                "adapter",
                Value::from_object(Adapter {
                    record: record.clone(),
                    adapter: self.adapter.clone(),
                    macros: self.macros.clone(),
                }),
            ),
            ("this", Value::from_object(this)),
            (INCREMENTAL, Value::from(incremental)),
            (
                "model",
                Value::from_serialize(
                    serde_json::json!({"name": name, "package_name": self.project_name}),
                ),
            ),
            (
                "run_query",
                refuses("run_query() runs a query in the warehouse while compiling"),
            ),
            (
                "statement",
                refuses("a statement block runs a query in the warehouse while compiling"),
            ),
            (
                "load_result",
                refuses("load_result() reads a query run in the warehouse while compiling"),
            ),
            (
                "exceptions",
                Value::from_object(objects::Exceptions {
                    record: record.clone(),
                }),
            ),
        ];
        // `dbt.`, `dbt_utils.` and each installed package's namespace.
        let mut spaces: BTreeSet<&str> = ["dbt", "dbt_utils"].into();
        spaces.extend(self.macros.packages.keys().map(String::as_str));
        for p in spaces {
            ctx.push((
                p,
                Value::from_object(Namespace {
                    record: record.clone(),
                    builtin: match p {
                        "dbt" => Some(""),
                        "dbt_utils" => Some("dbt_utils__"),
                        _ => None,
                    },
                    package: p.to_string(),
                    macros: self.macros.clone(),
                }),
            ));
        }
        let ctx = Value::from_iter(ctx);
        let result = self.env.render_named_str(rel, &text, ctx);
        let record = match record.lock() {
            Ok(mut r) => std::mem::take(&mut *r),
            Err(_) => Record::default(),
        };
        match result {
            Ok(sql) => Ok(Rendered {
                sql,
                deps: record.deps,
                config: record.config,
            }),
            Err(e) => {
                let (message, loc) = self.describe(&e, rel, source, record.refusal);
                Err(RenderFailure {
                    message,
                    loc,
                    deps: record.deps,
                    config: record.config,
                })
            }
        }
    }

    /// A failure's message and place: the innermost template the error
    /// names (a macro file, or the model).
    fn describe(
        &self,
        e: &minijinja::Error,
        rel: &str,
        source: &str,
        refusal: Option<String>,
    ) -> (String, Loc) {
        // The deepest error in the chain carries the real cause.
        let mut deepest: &minijinja::Error = e;
        let mut cur: Option<&(dyn std::error::Error + 'static)> = std::error::Error::source(e);
        while let Some(s) = cur {
            if let Some(me) = s.downcast_ref::<minijinja::Error>() {
                deepest = me;
            }
            cur = s.source();
        }
        let loc_of = |err: &minijinja::Error| match (err.name(), err.line()) {
            (Some(t), Some(l)) if self.files.contains_key(t) => self.macro_loc(t, l),
            (_, Some(l)) => Loc::new(rel, l),
            _ => Loc::new(rel, 0),
        };
        let loc = loc_of(e);
        let message = if let Some(r) = refusal {
            r
        } else {
            match deepest.kind() {
                ErrorKind::UndefinedError | ErrorKind::UnknownFunction => {
                    let line_text = if loc.file == rel {
                        source.lines().nth(loc.line.saturating_sub(1)).unwrap_or("")
                    } else {
                        ""
                    };
                    let what = undefined_name(line_text, &self.names);
                    match what {
                        Some(n) => format!("`{n}` is not defined: no macro, variable or package of that name (import-dbt provides dbt's built-in macros and the plain-SQL ones of dbt_utils)"),
                        None => format!("Jinja: {}", short_message(deepest)),
                    }
                }
                ErrorKind::OutOfFuel => {
                    "the Jinja does too much work to render (a loop that does not end?)".to_string()
                }
                _ => format!("Jinja: {}", short_message(deepest)),
            }
        };
        (message, loc)
    }
}

/// Add macro template `name`: dbt's built-ins, then each of `files` that
/// parses (one that does not goes to `broken`). Returns the macros the
/// files define, and every macro name of the template.
fn add_template(
    env: &mut Environment<'static>,
    name: &str,
    macro_files: &[&MacroFile],
    files: &mut BTreeMap<String, Vec<(usize, String)>>,
    broken: &mut Vec<(String, usize, String)>,
) -> (BTreeSet<String>, Vec<String>) {
    let mut text = String::from(BUILTINS);
    if !text.ends_with('\n') {
        text.push('\n');
    }
    let mut starts = vec![(1, "<dbt built-in macros>".to_string())];
    let mut own = BTreeSet::new();
    for m in macro_files {
        let source = rewrite_return(&m.text);
        let mut probe = Environment::new();
        if let Err(e) = probe.add_template_owned("probe".to_string(), source.clone()) {
            broken.push((m.rel.clone(), e.line().unwrap_or(0), short_message(&e)));
            continue;
        }
        starts.push((text.lines().count() + 1, m.rel.clone()));
        own.extend(macro_names(&source));
        text.push_str(&source);
        if !text.ends_with('\n') {
            text.push('\n');
        }
    }
    if let Err(e) = env.add_template_owned(name.to_string(), text) {
        // Each file parsed alone; together they should too. If not,
        // keep the built-ins only and say so.
        broken.push(("<macros>".into(), e.line().unwrap_or(0), short_message(&e)));
        starts.truncate(1);
        own.clear();
        let _ = env.add_template_owned(name.to_string(), BUILTINS.to_string());
    }
    files.insert(name.to_string(), starts);
    let mut names = macro_names(BUILTINS);
    names.extend(own.iter().cloned());
    (own, names)
}

/// minijinja's message without its position suffix.
fn short_message(e: &minijinja::Error) -> String {
    let detail = e.detail().map(str::to_string);
    let kind = e.kind().to_string();
    match detail {
        Some(d) if !d.is_empty() => format!("{kind}: {d}"),
        _ => kind,
    }
}

/// The names `{% macro name(` defines in `text`.
fn macro_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("{%") {
        rest = &rest[i + 2..];
        let body = rest.trim_start_matches('-').trim_start();
        if let Some(after) = body.strip_prefix("macro") {
            let after = after.trim_start();
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && after[name.len()..].trim_start().starts_with('(') {
                out.push(name);
            }
        }
    }
    out
}

/// The first name on `line` that is called or dereferenced and is neither
/// a macro nor a known global: what a strict-undefined error is about.
fn undefined_name(line: &str, macros: &[String]) -> Option<String> {
    const KNOWN: &[&str] = &[
        "ref",
        "source",
        "config",
        "var",
        "env_var",
        "adapter",
        "dbt",
        "dbt_utils",
        "this",
        "target",
        "is_incremental",
        "return",
        "log",
        "print",
        "execute",
        "model",
        "flags",
        "run_query",
        "statement",
        "load_result",
        "exceptions",
        "fromjson",
        "tojson",
        "range",
        "dict",
        "namespace",
        "lipsum",
        "cycler",
        "joiner",
        "loop",
        "true",
        "false",
        "none",
        "if",
        "else",
        "elif",
        "endif",
        "for",
        "in",
        "endfor",
        "set",
        "do",
        "not",
        "and",
        "or",
        "is",
        "macro",
        "endmacro",
        "call",
        "filter",
        "with",
        "import",
        "from",
        "as",
        "project_name",
    ];
    let mut in_jinja = false;
    let mut i = 0;
    let bytes: Vec<char> = line.chars().collect();
    while i < bytes.len() {
        if i + 1 < bytes.len() && (bytes[i] == '{' && (bytes[i + 1] == '{' || bytes[i + 1] == '%'))
        {
            in_jinja = true;
            i += 2;
            continue;
        }
        if i + 1 < bytes.len() && ((bytes[i] == '}' || bytes[i] == '%') && bytes[i + 1] == '}') {
            in_jinja = false;
            i += 2;
            continue;
        }
        if in_jinja
            && (bytes[i].is_alphabetic() || bytes[i] == '_')
            && (i == 0
                || !(bytes[i - 1].is_alphanumeric()
                    || bytes[i - 1] == '_'
                    || bytes[i - 1] == '.'
                    || bytes[i - 1] == '\''
                    || bytes[i - 1] == '"'))
        {
            let start = i;
            while i < bytes.len() && (bytes[i].is_alphanumeric() || bytes[i] == '_') {
                i += 1;
            }
            let mut name: String = bytes[start..i].iter().collect();
            if bytes.get(i) == Some(&'.') {
                let s2 = i + 1;
                let mut j = s2;
                while j < bytes.len() && (bytes[j].is_alphanumeric() || bytes[j] == '_') {
                    j += 1;
                }
                let attr: String = bytes[s2..j].iter().collect();
                if name == "dbt_utils" || name == "dbt" {
                    return Some(format!("{name}.{attr}"));
                }
                if !KNOWN.contains(&name.as_str()) && !macros.contains(&name) {
                    return Some(name);
                }
                name.clear();
                i = j;
            }
            let next = bytes[i..].iter().find(|c| !c.is_whitespace());
            if !name.is_empty()
                && next == Some(&'(')
                && !KNOWN.contains(&name.as_str())
                && !macros.contains(&name)
            {
                return Some(name);
            }
            continue;
        }
        i += 1;
    }
    None
}

/// `{% do return(x) %}` as `{{ return(x) }}`: minijinja has no early
/// return; dbt's macros mostly end with one, so emitting the value is the
/// same output (a macro that returns a list or mapping is refused by
/// [`return_value`]).
fn rewrite_return(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("{%") {
        let (before, at) = rest.split_at(i);
        out.push_str(before);
        let after_open = &at[2..];
        let dash = after_open.starts_with('-');
        let body = after_open.trim_start_matches('-').trim_start();
        if let Some(call) = body.strip_prefix("do") {
            let call_trim = call.trim_start();
            if call.starts_with(char::is_whitespace) && call_trim.starts_with("return(") {
                if let Some(end) = call_trim.find("%}") {
                    let inner = &call_trim[..end];
                    let (inner, close_dash) = match inner.trim_end().strip_suffix('-') {
                        Some(s) => (s, true),
                        None => (inner, false),
                    };
                    out.push_str(if dash { "{{-" } else { "{{" });
                    out.push(' ');
                    out.push_str(inner.trim());
                    out.push_str(if close_dash { " -}}" } else { " }}" });
                    let consumed = at.len() - call_trim.len() + end + 2;
                    rest = &at[consumed..];
                    continue;
                }
            }
        }
        out.push_str("{%");
        rest = &at[2..];
    }
    out.push_str(rest);
    out
}

/// `return(x)`: the value of a string (what the caller receives as the
/// macro's output); a list or mapping cannot pass through a macro's output.
fn return_value(v: Value) -> Result<Value, minijinja::Error> {
    use minijinja::value::ValueKind;
    match v.kind() {
        ValueKind::String | ValueKind::Number | ValueKind::Undefined | ValueKind::None => Ok(v),
        ValueKind::Bool => Ok(v),
        other => Err(minijinja::Error::new(
            ErrorKind::InvalidOperation,
            format!("a macro returns a {other} with return(): import-dbt renders macros as text and cannot pass it on"),
        )),
    }
}

/// `env_var('NAME', default)`.
fn env_var(name: String, default: Option<Value>) -> Result<Value, minijinja::Error> {
    match std::env::var(&name) {
        Ok(v) => Ok(Value::from(v)),
        Err(_) => match default {
            Some(d) => Ok(d),
            None => Err(minijinja::Error::new(
                ErrorKind::InvalidOperation,
                format!("env_var('{name}') is not set and has no default"),
            )),
        },
    }
}

#[cfg(test)]
mod tests;
