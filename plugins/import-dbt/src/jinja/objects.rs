//! The objects a model's Jinja calls: each records what it learns (the
//! relations a model reads, its config) in the render's [`Record`].

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use minijinja::value::{Kwargs, Object, ObjectRepr};
use minijinja::{Error, ErrorKind, State, Value};
use serde_json::{Map, Value as Json};

use super::{refuse, Shared};

/// A relation a model reads.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Dep {
    /// `ref('name')`: a model, seed or snapshot.
    Ref(String),
    /// `source('source', 'table')`.
    Source(String, String),
}

/// How a relation appears in the rendered SQL: a quoted identifier the
/// SQL translator recognises (`"$ref$stg_orders"`), never confused with a
/// CTE or a table of the same name.
pub fn ref_marker(name: &str) -> String {
    format!("\"$ref${}\"", name.replace('"', "\"\""))
}

/// What `{{ run_started_at }}` renders as (and what the time dbt's run
/// started becomes in compiled SQL): text the SQL translator reads as the
/// run's start, strata's `current_timestamp()`.
pub const RUN_STARTED_AT: &str = "$run_started_at$";

/// What `{{ invocation_id }}` renders as (and what dbt's invocation id
/// becomes in compiled SQL): text the SQL translator reads as the run's
/// id, strata's `run_id()`.
pub const INVOCATION_ID: &str = "$invocation_id$";

pub fn source_marker(source: &str, table: &str) -> String {
    format!(
        "\"$source${}${}\"",
        source.replace('"', "\"\""),
        table.replace('"', "\"\"")
    )
}

pub fn this_marker(name: &str) -> String {
    format!("\"$this${}\"", name.replace('"', "\"\""))
}

/// A relation value (`ref(...)`, `source(...)`, `this`): renders as its
/// marker, and has dbt's attributes.
#[derive(Debug)]
pub struct Relation {
    marker: String,
    identifier: String,
    schema: String,
}

impl Relation {
    pub fn model(name: &str) -> Relation {
        Relation {
            marker: this_marker(name),
            identifier: name.to_string(),
            schema: "main".into(),
        }
    }
}

impl Object for Relation {
    fn repr(self: &Arc<Self>) -> ObjectRepr {
        ObjectRepr::Plain
    }

    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        Some(match key.as_str()? {
            "identifier" | "name" | "table" => Value::from(self.identifier.clone()),
            "schema" => Value::from(self.schema.clone()),
            "database" => Value::from("main"),
            _ => return None,
        })
    }

    fn call_method(
        self: &Arc<Self>,
        _state: &State<'_, '_>,
        method: &str,
        _args: &[Value],
    ) -> Result<Value, Error> {
        match method {
            "render" | "__str__" => Ok(Value::from_safe_string(self.marker.clone())),
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }

    fn render(self: &Arc<Self>, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.marker)
    }
}

/// Split a call's arguments into positional ones and keyword arguments.
fn split_args(args: &[Value]) -> (Vec<Value>, Option<Kwargs>) {
    match args.last() {
        Some(last) if last.is_kwargs() => (
            args[..args.len() - 1].to_vec(),
            Kwargs::try_from(last.clone()).ok(),
        ),
        _ => (args.to_vec(), None),
    }
}

fn string_arg(v: Option<&Value>) -> Option<String> {
    v.and_then(|v| v.as_str().map(str::to_string))
}

#[derive(Debug)]
pub struct RefFn {
    pub record: Shared,
}

impl Object for RefFn {
    fn call(self: &Arc<Self>, _state: &State<'_, '_>, args: &[Value]) -> Result<Value, Error> {
        let (pos, kwargs) = split_args(args);
        // ref('name'), ref('package', 'name'), ref('name', v=2)
        let name = match pos.len() {
            1 => string_arg(pos.first()),
            2 => string_arg(pos.get(1)),
            _ => None,
        };
        let Some(name) = name else {
            return Err(refuse(
                &self.record,
                "ref() takes a model name (and optionally its package first)".into(),
            ));
        };
        if let Some(k) = &kwargs {
            if k.has("v") || k.has("version") {
                return Err(refuse(
                    &self.record,
                    format!(
                        "ref('{name}') names a model version: versioned models are not converted"
                    ),
                ));
            }
        }
        if let Ok(mut r) = self.record.lock() {
            r.deps.push(Dep::Ref(name.clone()));
        }
        Ok(Value::from_object(Relation {
            marker: ref_marker(&name),
            identifier: name,
            schema: "main".into(),
        }))
    }
}

#[derive(Debug)]
pub struct SourceFn {
    pub record: Shared,
}

impl Object for SourceFn {
    fn call(self: &Arc<Self>, _state: &State<'_, '_>, args: &[Value]) -> Result<Value, Error> {
        let (pos, _) = split_args(args);
        let (Some(source), Some(table)) = (string_arg(pos.first()), string_arg(pos.get(1))) else {
            return Err(refuse(
                &self.record,
                "source() takes a source name and a table name".into(),
            ));
        };
        if let Ok(mut r) = self.record.lock() {
            r.deps.push(Dep::Source(source.clone(), table.clone()));
        }
        Ok(Value::from_object(Relation {
            marker: source_marker(&source, &table),
            identifier: table,
            schema: source,
        }))
    }
}

/// `config(...)` records; `config.get('key', default)` reads.
#[derive(Debug)]
pub struct ConfigFn {
    pub record: Shared,
}

impl Object for ConfigFn {
    fn call(self: &Arc<Self>, _state: &State<'_, '_>, args: &[Value]) -> Result<Value, Error> {
        let (_, kwargs) = split_args(args);
        if let Some(k) = kwargs {
            if let Ok(mut r) = self.record.lock() {
                for key in k.args() {
                    let v: Value = k.peek(key).unwrap_or(Value::UNDEFINED);
                    let json = serde_json::to_value(&v).unwrap_or(Json::Null);
                    r.config.insert(key.to_string(), json);
                }
            }
        }
        Ok(Value::from(""))
    }

    fn call_method(
        self: &Arc<Self>,
        _state: &State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        match method {
            "get" | "require" => {
                let (pos, _) = split_args(args);
                let key = string_arg(pos.first()).unwrap_or_default();
                let found = self
                    .record
                    .lock()
                    .ok()
                    .and_then(|r| r.config.get(&key).cloned());
                match (found, pos.get(1)) {
                    (Some(v), _) => Ok(Value::from_serialize(v)),
                    (None, Some(d)) => Ok(d.clone()),
                    (None, None) if method == "get" => Ok(Value::from(())),
                    (None, None) => Err(refuse(
                        &self.record,
                        format!("config.require('{key}'): the model sets no `{key}`"),
                    )),
                }
            }
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }
}

/// `var('name', default)`.
#[derive(Debug)]
pub struct VarFn {
    pub vars: Arc<Map<String, Json>>,
    pub record: Shared,
}

impl Object for VarFn {
    fn call(self: &Arc<Self>, state: &State<'_, '_>, args: &[Value]) -> Result<Value, Error> {
        let (pos, _) = split_args(args);
        let Some(name) = string_arg(pos.first()) else {
            return Err(refuse(&self.record, "var() takes a variable name".into()));
        };
        match (self.vars.get(&name), pos.get(1)) {
            // A var whose value is Jinja (a package's
            // `"{{ source('github', 'issue') }}"`) is rendered, as dbt does.
            (Some(Json::String(s)), _) if s.contains("{{") || s.contains("{%") => {
                let ctx = Value::from_iter(vec![
                    (
                        "source",
                        Value::from_object(SourceFn {
                            record: self.record.clone(),
                        }),
                    ),
                    (
                        "ref",
                        Value::from_object(RefFn {
                            record: self.record.clone(),
                        }),
                    ),
                    (
                        "var",
                        Value::from_object(VarFn {
                            vars: self.vars.clone(),
                            record: self.record.clone(),
                        }),
                    ),
                ]);
                state
                    .env()
                    .render_str(s, ctx)
                    .map(Value::from_safe_string)
            }
            (Some(v), _) => Ok(Value::from_serialize(v)),
            (None, Some(d)) => Ok(d.clone()),
            (None, None) => Err(refuse(
                &self.record,
                format!("var('{name}') is not set: give it in dbt_project.yml `vars:` or with --vars, or a default"),
            )),
        }
    }

    fn call_method(
        self: &Arc<Self>,
        _state: &State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        match method {
            "has_var" => Ok(Value::from(
                string_arg(args.first()).is_some_and(|n| self.vars.contains_key(&n)),
            )),
            _ => Err(Error::from(ErrorKind::UnknownMethod)),
        }
    }
}

/// The macro template's module, imported by the model as `__m`.
/// (Kept in the render's temps by the model's prelude: a macro's own
/// scope does not see the model's variables.)
fn module(state: &State<'_, '_>) -> Option<Value> {
    state.get_temp("__m").or_else(|| state.lookup("__m"))
}

/// The name of an installed package's macro template, and of the temp its
/// module is kept in.
pub(crate) fn package_template(package: &str) -> String {
    format!("__pkg__{package}")
}

fn attr(module: Option<Value>, name: &str) -> Option<Value> {
    module
        .and_then(|m| m.get_attr(name).ok())
        .filter(|v| !v.is_undefined())
}

/// Which macros each package defines, and the project's `dispatch:`
/// config: what `adapter.dispatch` and `<package>.<macro>` search.
#[derive(Debug, Default)]
pub struct Macros {
    /// The root project's name and the macros its own files define.
    pub root: String,
    pub root_own: BTreeSet<String>,
    /// Per installed package, the macros its files define.
    pub packages: BTreeMap<String, BTreeSet<String>>,
    /// `dispatch: [{macro_namespace, search_order}]` of dbt_project.yml.
    pub dispatch: BTreeMap<String, Vec<String>>,
    pub adapter: String,
}

impl Macros {
    /// Macro `name` of `package` (the root project, an installed package,
    /// or `dbt`: the built-ins), if it defines one.
    fn lookup(&self, state: &State<'_, '_>, package: &str, name: &str) -> Option<Value> {
        if package == self.root {
            return self
                .root_own
                .contains(name)
                .then(|| attr(module(state), name))
                .flatten();
        }
        if let Some(own) = self.packages.get(package) {
            return own
                .contains(name)
                .then(|| attr(state.get_temp(&package_template(package)), name))
                .flatten();
        }
        if package == "dbt" && !self.root_own.contains(name) {
            return attr(module(state), name);
        }
        None
    }

    /// dbt's search for `adapter.dispatch(name, namespace)`: the packages
    /// of the namespace's `search_order` (else the root project, then the
    /// namespace), in each `<adapter>__name` then `default__name`. `None`
    /// when the namespace is neither configured nor installed.
    fn dispatch(
        &self,
        state: &State<'_, '_>,
        name: &str,
        namespace: &str,
    ) -> Option<Result<Value, Vec<String>>> {
        let order = match self.dispatch.get(namespace) {
            Some(o) => o.clone(),
            None if self.packages.contains_key(namespace) => {
                vec![self.root.clone(), namespace.to_string()]
            }
            None => return None,
        };
        let mut tried = Vec::new();
        for package in &order {
            for prefix in [self.adapter.as_str(), "default"] {
                let candidate = format!("{prefix}__{name}");
                if let Some(v) = self.lookup(state, package, &candidate) {
                    return Some(Ok(v));
                }
                tried.push(format!("{package}.{candidate}"));
            }
        }
        Some(Err(tried))
    }
}

/// `adapter`: `dispatch` resolves `<adapter>__name` then
/// `default__name`; what asks the warehouse is refused.
#[derive(Debug)]
pub struct Adapter {
    pub record: Shared,
    pub adapter: String,
    pub macros: Arc<Macros>,
}

impl Object for Adapter {
    fn call_method(
        self: &Arc<Self>,
        state: &State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        let (pos, kwargs) = split_args(args);
        match method {
            "dispatch" => {
                let name = string_arg(pos.first()).unwrap_or_default();
                let namespace = string_arg(pos.get(1)).or_else(|| {
                    kwargs
                        .as_ref()
                        .and_then(|k| k.peek::<Option<String>>("macro_namespace").ok().flatten())
                });
                let searched = namespace
                    .as_deref()
                    .and_then(|ns| self.macros.dispatch(state, &name, ns));
                let tried = match searched {
                    Some(Ok(v)) => return Ok(v),
                    Some(Err(tried)) => tried,
                    None => Vec::new(),
                };
                let prefix = match namespace.as_deref() {
                    Some("dbt_utils") => "dbt_utils__",
                    _ => "",
                };
                let mut candidates = vec![
                    format!("{prefix}{}__{name}", self.adapter),
                    format!("{prefix}duckdb__{name}"),
                    format!("{prefix}default__{name}"),
                ];
                if namespace
                    .as_deref()
                    .is_some_and(|n| n == "dbt" || n == "dbt_utils")
                {
                    candidates.push(format!("{prefix}{name}"));
                }
                let m = module(state);
                for c in &candidates {
                    if let Some(v) = m.as_ref().and_then(|m| m.get_attr(c).ok()) {
                        if !v.is_undefined() {
                            return Ok(v);
                        }
                    }
                }
                let mut all = tried;
                all.extend(candidates);
                Err(refuse(
                    &self.record,
                    format!(
                        "adapter.dispatch('{name}'{}) finds no macro: none of {} is defined",
                        namespace.map(|n| format!(", '{n}'")).unwrap_or_default(),
                        all.join(", ")
                    ),
                ))
            }
            "quote" => Ok(Value::from(format!(
                "\"{}\"",
                string_arg(pos.first())
                    .unwrap_or_default()
                    .replace('"', "\"\"")
            ))),
            other => Err(refuse(
                &self.record,
                format!("adapter.{other}() asks the warehouse while compiling"),
            )),
        }
    }
}

/// `dbt.<macro>(...)`, `dbt_utils.<macro>(...)`, `<package>.<macro>(...)`:
/// an installed package's own macro; where it has none, or it cannot be
/// rendered without the warehouse, import-dbt's built-in rendering (of dbt
/// and dbt_utils).
#[derive(Debug)]
pub struct Namespace {
    pub record: Shared,
    /// How this namespace's built-in macros are named in the macro
    /// template (`None`: import-dbt has none).
    pub builtin: Option<&'static str>,
    pub package: String,
    pub macros: Arc<Macros>,
}

impl Object for Namespace {
    fn call_method(
        self: &Arc<Self>,
        state: &State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        let builtin = self
            .builtin
            .and_then(|prefix| attr(module(state), &format!("{prefix}{method}")));
        let installed = (self.package != "dbt")
            .then(|| self.macros.lookup(state, &self.package, method))
            .flatten();
        match (installed, builtin) {
            (Some(mac), Some(fallback)) => match mac.call(state, args) {
                Ok(v) => Ok(v),
                Err(_) => {
                    // The package's macro asks the warehouse (or does what
                    // import-dbt cannot render): the built-in rendering of
                    // the same macro gives what dbt compiles.
                    if let Ok(mut r) = self.record.lock() {
                        r.refusal = None;
                    }
                    fallback.call(state, args)
                }
            },
            (Some(mac), None) | (None, Some(mac)) => mac.call(state, args),
            (None, None) => Err(refuse(
                &self.record,
                if self.macros.packages.contains_key(&self.package) {
                    format!(
                        "{}.{method}() is defined by no macro of the installed package `{}`",
                        self.package, self.package
                    )
                } else if self.builtin.is_some() {
                    format!(
                        "{}.{method}() is not provided by import-dbt and the package is not installed (run `dbt deps`; import-dbt renders the macros of dbt_packages/, and without them dbt's cross-database macros and dbt_utils' plain-SQL ones: star, generate_surrogate_key, safe_divide, safe_add, safe_subtract, pivot, date_spine)",
                        self.package
                    )
                } else {
                    format!("{}.{method}(): the package is not installed", self.package)
                },
            )),
        }
    }

    fn get_value(self: &Arc<Self>, _key: &Value) -> Option<Value> {
        None
    }
}

/// A function that needs the warehouse while compiling.
#[derive(Debug)]
pub struct Refuses {
    pub record: Shared,
    pub what: &'static str,
}

impl Object for Refuses {
    fn call(self: &Arc<Self>, _state: &State<'_, '_>, _args: &[Value]) -> Result<Value, Error> {
        Err(refuse(&self.record, self.what.to_string()))
    }
}

/// `exceptions.raise_compiler_error(msg)` / `exceptions.warn(msg)`.
#[derive(Debug)]
pub struct Exceptions {
    pub record: Shared,
}

impl Object for Exceptions {
    fn call_method(
        self: &Arc<Self>,
        _state: &State<'_, '_>,
        method: &str,
        args: &[Value],
    ) -> Result<Value, Error> {
        let msg = args.first().map(|v| v.to_string()).unwrap_or_default();
        match method {
            "warn" => Ok(Value::from("")),
            _ => Err(refuse(
                &self.record,
                format!("the model's Jinja raises an error: {msg}"),
            )),
        }
    }
}
