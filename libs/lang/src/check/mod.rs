//! Resolving and type-checking a loaded module into the typed IR: the
//! declaration tables, domains, model dependency order, each model, the
//! contracts and the declarative tests. Every error of the module is
//! reported, each at its span, in source order.
//!
//! Models are checked in parallel, a rayon task each, a model's task
//! started by the last of the models it reads to be checked; each model's
//! syntax tree is dropped once the model is checked.

mod expr;
mod fixture_value;
mod frame;
mod generated;
mod model;
mod scope;
mod source_table;
mod test;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use strata_codes as codes;

use crate::hash::FastMap as HashMap;
use std::path::PathBuf;

use crate::ast::{self, Annotation, Decl, ExprKind, FieldDef, TypeRef, TypeRefKind};
use crate::diag::{sort_diagnostics, Diagnostic};
use crate::ir::{self, Column};
use crate::load::{self, LoadOptions, Loaded};
use crate::span::SourceMap;
use crate::types::Type;
use crate::Name;

/// The result of checking a module: its files, the typed IR and every
/// diagnostic, in source order.
#[derive(Debug, Default)]
pub struct Checked {
    pub sources: SourceMap,
    pub module: ir::Module,
    pub diagnostics: Vec<Diagnostic>,
    /// The comments of every file of the module, in file then source order
    /// (`strata lint` reads its suppression comments from them).
    pub comments: Vec<ast::Comment>,
    /// Root files that could not be read: `(path, reason)`.
    pub io_errors: Vec<(PathBuf, String)>,
}

impl Checked {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(|d| d.is_error())
    }
}

/// Check one module given as text. `path` names it in diagnostics and is the
/// base directory for its imports.
pub fn check_text(path: impl Into<PathBuf>, text: &str) -> Checked {
    let path = path.into();
    on_pool(|| check_loaded(load::load_text(path, text, &LoadOptions::default())))
}

/// Check the module made of the given root files (each with its imports).
pub fn check_files(paths: &[PathBuf], options: &LoadOptions) -> Checked {
    on_pool(|| check_loaded(load::load_files(paths, options)))
}

/// Run `work` on a thread of rayon's pool, the caller waiting. Parallel
/// work started from outside the pool keeps the caller's thread coming and
/// going beside the pool's, one thread more than cores: two of the pool's
/// threads could then share a core for a whole check (measured: the models
/// of a 2,000-model check took 14 to 27 ms from run to run, 14 to 17 ms
/// on the pool).
fn on_pool<R: Send>(work: impl FnOnce() -> R + Send) -> R {
    rayon::scope(|_| work())
}

/// A checked model's schema, for the models that read it.
#[derive(Clone, Debug)]
pub struct ModelResult {
    /// Shared by every model that reads it.
    pub columns: Arc<Vec<Column>>,
    /// The schema is complete (see `ir::Model::schema_complete`).
    pub ok: bool,
    /// The model's fingerprint (part of its readers' fingerprints).
    pub fingerprint: String,
}

/// Declaration tables of a module (first declaration of a name wins; later
/// ones are reported as E025).
pub struct Env<'a> {
    pub sources: HashMap<&'a str, &'a ast::SourceDecl>,
    /// Resolved columns: `None` when a column type failed to resolve,
    /// `Some(None)` when the source declares no columns.
    source_cols: HashMap<&'a str, Option<Option<Arc<Vec<Column>>>>>,
    pub contracts: HashMap<&'a str, &'a ast::ContractDecl>,
    contract_cols: HashMap<&'a str, Option<Vec<Column>>>,
    pub domains: HashMap<&'a str, Option<Type>>,
    /// Each model's position in dependency order.
    pub models: HashMap<Name, usize>,
    /// The result of the model at each position, set once it is checked.
    /// A model is checked after every model it reads.
    model_results: Vec<OnceLock<ModelResult>>,
}

impl<'a> Env<'a> {
    pub fn source_columns(&self, name: &str) -> Option<Option<&Arc<Vec<Column>>>> {
        match self.source_cols.get(name) {
            Some(Some(cols)) => Some(cols.as_ref()),
            _ => None,
        }
    }

    pub fn contract_columns(&self, name: &str) -> Option<&Vec<Column>> {
        self.contract_cols.get(name).and_then(Option::as_ref)
    }

    pub fn model_result(&self, name: &str) -> Option<&ModelResult> {
        self.result_at(*self.models.get(name)?)
    }

    /// The result of the model at position `pos` in dependency order, once
    /// it is checked.
    pub fn result_at(&self, pos: usize) -> Option<&ModelResult> {
        self.model_results.get(pos)?.get()
    }

    /// The type a `cast(x, "name")` produces.
    pub fn cast_target(&self, name: &str) -> Result<Type, String> {
        let name = name.trim();
        if let Some(t) = Type::from_scalar_name(name) {
            return Ok(t);
        }
        if name == "array" || name.starts_with("array(") || name.starts_with("array<") {
            return Err(
                "cast() cannot produce an array; build arrays with array_construct(...)".into(),
            );
        }
        if name == "decimal" {
            return Err("cast() to decimal needs a precision and scale: write cast(x, \"decimal(18,2)\") or declare a domain".into());
        }
        if let Some(args) = name
            .strip_prefix("decimal(")
            .and_then(|r| r.strip_suffix(')'))
        {
            let parts: Vec<&str> = args.split(',').map(str::trim).collect();
            if let [p, s] = parts.as_slice() {
                if let (Ok(p), Ok(s)) = (p.parse::<u32>(), s.parse::<u32>()) {
                    return Ok(Type::Decimal(p, s));
                }
            }
            return Err(format!("cast() type '{name}' is not a valid decimal(p,s)"));
        }
        if let Some(cur) = name
            .strip_prefix("money(")
            .and_then(|r| r.strip_suffix(')'))
        {
            let cur = cur.trim();
            if !cur.is_empty() && cur.chars().all(|c| c.is_alphanumeric() || c == '_') {
                return Ok(Type::Money(Box::new(cur.to_string())));
            }
        }
        if let Some(Some(t)) = self.domains.get(name) {
            return Ok(t.clone());
        }
        // The reference gives an unknown type for any other name.
        Ok(Type::Unknown)
    }
}

/// Check a loaded module (`check_files` is `load::load_files`, then this;
/// `strata profile` times the two apart).
pub fn check_loaded(mut loaded: Loaded) -> Checked {
    let mut diags = std::mem::take(&mut loaded.diagnostics);
    let (decls, models) = sort_decls(loaded.take_decls(), &mut diags);
    let module = build_module(&decls, models, &mut diags);
    sort_diagnostics(&mut diags);
    diags.dedup();
    // The files are in the order of their ids, each file's comments in the
    // text's order.
    let comments = loaded
        .files
        .into_iter()
        .flat_map(|(_, f)| f.comments)
        .collect();
    Checked {
        sources: loaded.sources,
        module,
        diagnostics: diags,
        comments,
        io_errors: loaded.io_errors,
    }
}

fn duplicate(kind: &str, name: &ast::Ident, first: &ast::Ident) -> Diagnostic {
    Diagnostic::new(
        &codes::E025,
        name.span,
        format!("{kind} '{}' is declared more than once", name.name),
    )
    .with_secondary(first.span, "first declared here")
    .with_help(format!("rename or remove one of the two {kind}s"))
}

/// A module's declarations other than its models, by kind, in merged order;
/// of two with the same name only the first (the second is E025).
#[derive(Default)]
struct Decls {
    sources: Vec<ast::SourceDecl>,
    contracts: Vec<ast::ContractDecl>,
    domains: Vec<ast::DomainDecl>,
    pipelines: Vec<ast::PipelineDecl>,
    tests: Vec<ast::TestDecl>,
}

/// Declarations of one kind in merged order, each name once (the first; a
/// repeat is E025), and the index of each name.
struct Unique<T> {
    list: Vec<T>,
    index: HashMap<Name, usize>,
}

impl<T> Unique<T> {
    fn new() -> Self {
        Unique {
            list: Vec::new(),
            index: HashMap::default(),
        }
    }

    /// Add `decl` (a `kind`) unless its name is taken.
    fn add(
        &mut self,
        kind: &str,
        decl: T,
        name: fn(&T) -> &ast::Ident,
        diags: &mut Vec<Diagnostic>,
    ) {
        match self.index.get(&name(&decl).name) {
            Some(&first) => diags.push(duplicate(kind, name(&decl), name(&self.list[first]))),
            None => {
                self.index.insert(name(&decl).name.clone(), self.list.len());
                self.list.push(decl);
            }
        }
    }
}

/// Sort the declarations by kind, reporting repeated names (E025) and
/// generators (E060).
fn sort_decls(all: Vec<Decl>, diags: &mut Vec<Diagnostic>) -> (Decls, Unique<ast::ModelDecl>) {
    let mut decls = Decls::default();
    let (mut sources, mut contracts, mut domains, mut models) =
        (Unique::new(), Unique::new(), Unique::new(), Unique::new());
    for decl in all {
        match decl {
            Decl::Source(s) => sources.add("source", s, |s| &s.name, diags),
            Decl::Contract(c) => contracts.add("contract", c, |c| &c.name, diags),
            Decl::Domain(d) => domains.add("domain", d, |d| &d.name, diags),
            Decl::Model(m) => models.add("model", m, |m| &m.name, diags),
            Decl::Pipeline(p) => decls.pipelines.push(p),
            Decl::Test(t) => decls.tests.push(t),
            Decl::Generator(e) => diags.push(
                Diagnostic::new(
                    &codes::E060,
                    e.span,
                    "compile-time generators are not supported by this version of strata",
                )
                .with_help("write the generated models out as plain `model` declarations"),
            ),
            Decl::Import(_) | Decl::Fn(_) => {}
        }
    }
    decls.sources = sources.list;
    decls.contracts = contracts.list;
    decls.domains = domains.list;
    (decls, models)
}

/// Check every declaration of a module: its IR. Each model's syntax tree is
/// dropped once the model is checked.
fn build_module(
    decls: &Decls,
    models: Unique<ast::ModelDecl>,
    diags: &mut Vec<Diagnostic>,
) -> ir::Module {
    let mut env = prepare(decls, diags);
    let (order, positions) = dependency_order(&models.list, &models.index, diags);
    env.models = models.index;
    for at in env.models.values_mut() {
        *at = positions[*at];
    }
    env.model_results = order.iter().map(|_| OnceLock::new()).collect();
    let mut ir_models = check_models(&env, &order, models.list, diags);
    // Every model is checked: each schema is the IR's again (moved back, as
    // nothing else holds it any more).
    for (model, result) in ir_models.iter_mut().zip(env.model_results.iter_mut()) {
        if let Some(r) = result.take() {
            model.columns = Arc::try_unwrap(r.columns).unwrap_or_else(|c| c.as_ref().clone());
        }
    }

    let ir_tests = decls
        .tests
        .iter()
        .map(|t| test::check_test(t, &env, &ir_models, diags))
        .collect();
    let ir_pipelines = decls.pipelines.iter().map(|p| pipeline(p, diags)).collect();

    ir::Module {
        sources: decls
            .sources
            .iter()
            .map(|s| ir::Source {
                name: s.name.name.to_string(),
                span: s.span,
                args: s
                    .args
                    .iter()
                    .map(|kv| (kv.key.name.to_string(), kv.value.clone()))
                    .collect(),
                table: source_table::declared(s, diags),
                columns: env
                    .source_columns(&s.name.name)
                    .and_then(|c| c.map(|c| c.as_ref().clone())),
                column_spans: s.columns.iter().flatten().map(|f| f.span).collect(),
            })
            .collect(),
        contracts: decls
            .contracts
            .iter()
            .map(|c| ir::Contract {
                name: c.name.name.to_string(),
                span: c.span,
                columns: env
                    .contract_columns(&c.name.name)
                    .cloned()
                    .unwrap_or_default(),
                column_spans: c.fields.iter().map(|f| f.span).collect(),
            })
            .collect(),
        models: ir_models,
        pipelines: ir_pipelines,
        tests: ir_tests,
    }
}

/// Check the models of `order` (`decls` in merged order), each as soon as
/// the models it reads are checked: a rayon task a model, started by the
/// last of its reads to finish. Their IR, in `order`.
fn check_models(
    env: &Env,
    order: &[Ordered],
    decls: Vec<ast::ModelDecl>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<ir::Model> {
    /// What the tasks share.
    struct Tasks<'e, 'a> {
        env: &'e Env<'a>,
        order: &'e [Ordered],
        /// Each model's syntax tree until its task takes it (and drops it
        /// once the model is checked).
        decls: Vec<Mutex<Option<ast::ModelDecl>>>,
        /// The models reading each one (once a read).
        readers: Vec<Vec<usize>>,
        /// How many of its reads each model still waits for.
        waiting: Vec<AtomicUsize>,
        done: Vec<OnceLock<(ir::Model, Vec<Diagnostic>)>>,
    }
    fn run<'s>(scope: &rayon::Scope<'s>, tasks: &'s Tasks<'s, 's>, pos: usize) {
        let decl = tasks.decls[pos].lock().ok().and_then(|mut d| d.take());
        if let Some(decl) = decl {
            let mut found = Vec::new();
            let (model, result) = check_one(tasks.env, &tasks.order[pos], &decl, &mut found);
            // Set once: each task runs once.
            let _ = tasks.env.model_results[pos].set(result);
            let _ = tasks.done[pos].set((model, found));
        }
        for &reader in &tasks.readers[pos] {
            if tasks.waiting[reader].fetch_sub(1, Ordering::AcqRel) == 1 {
                scope.spawn(move |scope| run(scope, tasks, reader));
            }
        }
    }
    let mut readers = vec![Vec::new(); order.len()];
    for (pos, o) in order.iter().enumerate() {
        for &read in &o.reads {
            readers[read].push(pos);
        }
    }
    let mut decls: Vec<Option<ast::ModelDecl>> = decls.into_iter().map(Some).collect();
    let tasks = Tasks {
        env,
        order,
        decls: order
            .iter()
            .map(|o| Mutex::new(decls[o.index].take()))
            .collect(),
        readers,
        waiting: order
            .iter()
            .map(|o| AtomicUsize::new(o.reads.len()))
            .collect(),
        done: order.iter().map(|_| OnceLock::new()).collect(),
    };
    rayon::scope(|scope| {
        let tasks = &tasks;
        for (pos, o) in order.iter().enumerate() {
            if o.reads.is_empty() {
                scope.spawn(move |scope| run(scope, tasks, pos));
            }
        }
    });
    // Every model's reads come before it in `order`: every task ran.
    tasks
        .done
        .into_iter()
        .filter_map(OnceLock::into_inner)
        .map(|(model, found)| {
            diags.extend(found);
            model
        })
        .collect()
}

/// The declaration tables of a module before its models are checked: the
/// declarations by name, domains, source and contract columns. The models'
/// positions and results are set by the caller.
fn prepare<'a>(decls: &'a Decls, diags: &mut Vec<Diagnostic>) -> Env<'a> {
    let by_name = |n: &'a ast::Ident| n.name.as_str();
    let domain_decls: HashMap<&str, &ast::DomainDecl> = decls
        .domains
        .iter()
        .map(|d| (by_name(&d.name), d))
        .collect();

    // Domains, eagerly (E078 for unknown names and cycles), in source order.
    let mut domains: HashMap<&str, Option<Type>> = HashMap::default();
    let mut domain_names: Vec<&ast::DomainDecl> = decls.domains.iter().collect();
    domain_names.sort_by_key(|d| (d.span.file, d.span.start));
    for d in domain_names {
        let mut visiting = Vec::new();
        resolve_domain(d, &domain_decls, &mut domains, &mut visiting, diags);
    }

    let mut env = Env {
        sources: decls
            .sources
            .iter()
            .map(|s| (by_name(&s.name), s))
            .collect(),
        source_cols: HashMap::default(),
        contracts: decls
            .contracts
            .iter()
            .map(|c| (by_name(&c.name), c))
            .collect(),
        contract_cols: HashMap::default(),
        domains,
        models: HashMap::default(),
        model_results: Vec::new(),
    };
    // Source and contract columns.
    for s in &decls.sources {
        let cols = s
            .columns
            .as_ref()
            .map(|fields| resolve_fields(fields, &env, diags).map(Arc::new));
        let cols = match cols {
            None => Some(None),
            Some(Some(c)) => Some(Some(c)),
            Some(None) => None,
        };
        env.source_cols.insert(&s.name.name, cols);
    }
    for c in &decls.contracts {
        let cols = resolve_fields(&c.fields, &env, diags);
        env.contract_cols.insert(&c.name.name, cols);
    }
    env
}

fn resolve_domain<'a>(
    d: &'a ast::DomainDecl,
    decls: &HashMap<&'a str, &'a ast::DomainDecl>,
    done: &mut HashMap<&'a str, Option<Type>>,
    visiting: &mut Vec<&'a str>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Type> {
    let name = d.name.name.as_str();
    if let Some(t) = done.get(name) {
        return t.clone();
    }
    if visiting.contains(&name) {
        diags.push(Diagnostic::new(
            &codes::E078,
            d.name.span,
            format!("domain cycle involving '{name}'"),
        ));
        for v in visiting.iter() {
            done.insert(v, None);
        }
        return None;
    }
    visiting.push(name);
    let t = resolve_domain_type(&d.ty, decls, done, visiting, diags);
    visiting.pop();
    if !done.contains_key(name) {
        done.insert(name, t.clone());
    }
    done.get(name).cloned().flatten()
}

fn resolve_domain_type<'a>(
    t: &'a TypeRef,
    decls: &HashMap<&'a str, &'a ast::DomainDecl>,
    done: &mut HashMap<&'a str, Option<Type>>,
    visiting: &mut Vec<&'a str>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Type> {
    match &t.kind {
        TypeRefKind::Named(n) => match decls.get(n.as_str()) {
            Some(d) => resolve_domain(d, decls, done, visiting, diags),
            None => {
                diags.push(
                    Diagnostic::new(&codes::E078, t.span, format!("unknown domain '{n}'"))
                        .with_help(format!("declare it with `domain {n} = <type>`")),
                );
                None
            }
        },
        TypeRefKind::Array(inner) => {
            let e = resolve_domain_type(inner, decls, done, visiting, diags)?;
            Some(Type::Array(Box::new(e)))
        }
        _ => builtin_type(&t.kind),
    }
}

fn builtin_type(k: &TypeRefKind) -> Option<Type> {
    Some(match k {
        TypeRefKind::Int64 => Type::Int64,
        TypeRefKind::Float32 => Type::Float32,
        TypeRefKind::Float64 => Type::Float64,
        TypeRefKind::String => Type::String,
        TypeRefKind::Bool => Type::Bool,
        TypeRefKind::Date => Type::Date,
        TypeRefKind::Timestamp => Type::Timestamp,
        TypeRefKind::TimestampTz => Type::TimestampTz,
        TypeRefKind::Uuid => Type::Uuid,
        TypeRefKind::Json => Type::Json,
        TypeRefKind::Decimal(p, s) => Type::Decimal(*p, *s),
        TypeRefKind::Money(c) => {
            Type::Money(Box::new(c.clone().unwrap_or_else(|| "USD".to_string())))
        }
        TypeRefKind::Array(_) | TypeRefKind::Named(_) => return None,
    })
}

/// Resolve a field's written type (domains known).
fn resolve_type(
    t: &TypeRef,
    column: &str,
    env: &Env,
    diags: &mut Vec<Diagnostic>,
    in_array: bool,
) -> Option<Type> {
    match &t.kind {
        TypeRefKind::Named(n) => match env.domains.get(n.as_str()) {
            Some(Some(t)) => Some(t.clone()),
            Some(None) => None,
            None if in_array => {
                diags.push(Diagnostic::new(
                    &codes::E063,
                    t.span,
                    format!("array elements must be a supported scalar, parameterized or nested array type, or a declared domain (got '{n}')"),
                ));
                None
            }
            None => {
                let mut d = Diagnostic::new(
                    &codes::E078,
                    t.span,
                    format!("unknown type '{n}' for column '{column}' (declare it with domain {n} = <type>)"),
                );
                let names = crate::lexer::TYPE_KEYWORDS;
                if let Some(s) = crate::suggest::closest(
                    n,
                    names.iter().copied().chain(env.domains.keys().copied()),
                ) {
                    d = d.with_help(format!("did you mean `{s}`?"));
                }
                diags.push(d);
                None
            }
        },
        TypeRefKind::Array(inner) => {
            let e = resolve_type(inner, column, env, diags, true)?;
            Some(Type::Array(Box::new(e)))
        }
        k => builtin_type(k),
    }
}

/// Columns of a source or contract; `None` if any type failed to resolve.
fn resolve_fields(
    fields: &[FieldDef],
    env: &Env,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<Column>> {
    let mut out = Vec::new();
    let mut ok = true;
    for f in fields {
        match resolve_type(&f.ty, &f.name.name, env, diags, false) {
            Some(ty) => out.push(field_column(f, ty)),
            None => ok = false,
        }
    }
    ok.then_some(out)
}

fn field_column(f: &FieldDef, ty: Type) -> Column {
    let mut c = Column {
        name: f.name.name.clone(),
        ty,
        nullable: true,
        unique: false,
        primary_key: false,
        protected: false,
        enum_values: None,
        classification: None,
    };
    for a in &f.annotations {
        match a {
            Annotation::Nonnull(_) => c.nullable = false,
            Annotation::Unique(_) => c.unique = true,
            Annotation::PrimaryKey(_) => {
                c.primary_key = true;
                c.unique = true;
                c.nullable = false;
            }
            Annotation::Protected(_) => c.protected = true,
            Annotation::Enum(values, _) => {
                c.enum_values = Some(Box::new(values.iter().map(|(v, _)| v.clone()).collect()))
            }
            Annotation::Classification(v, _) => c.classification = Some(Box::new(v.clone())),
        }
    }
    c
}

/// Topological order of the `models` (upstream first, otherwise source
/// order), and each one's position in it; models on a dependency cycle are
/// reported (F001) and flagged. `index` gives each model's name its index in
/// `models`.
fn dependency_order(
    models: &[ast::ModelDecl],
    index: &HashMap<Name, usize>,
    diags: &mut Vec<Diagnostic>,
) -> (Vec<Ordered>, Vec<usize>) {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Active,
        Done,
    }
    let deps: Vec<Vec<usize>> = models
        .iter()
        .map(|m| {
            // The inputs that are models: the dependency edges, in clause
            // order.
            ast::model_inputs(&m.items)
                .filter_map(|n| index.get(n.name.as_str()).copied())
                .collect()
        })
        .collect();
    let mut mark = vec![Mark::New; models.len()];
    let mut cyclic = vec![false; models.len()];
    let mut out: Vec<usize> = Vec::with_capacity(models.len());
    for start in 0..models.len() {
        if mark[start] != Mark::New {
            continue;
        }
        // Iterative DFS: (node, next dependency to visit).
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        mark[start] = Mark::Active;
        while let Some(&mut (node, ref mut next)) = stack.last_mut() {
            if let Some(&dep) = deps[node].get(*next) {
                *next += 1;
                match mark[dep] {
                    Mark::New => {
                        mark[dep] = Mark::Active;
                        stack.push((dep, 0));
                    }
                    Mark::Active => {
                        // A cycle: dep .. node on the stack.
                        let pos = stack.iter().position(|(n, _)| *n == dep).unwrap_or(0);
                        let members: Vec<usize> = stack[pos..].iter().map(|(n, _)| *n).collect();
                        if !members.iter().any(|&n| cyclic[n]) {
                            let first = members.iter().copied().min().unwrap_or(dep);
                            let names: Vec<&str> = members
                                .iter()
                                .map(|&n| models[n].name.name.as_str())
                                .collect();
                            let mut d = Diagnostic::new(
                                &codes::F001,
                                models[first].name.span,
                                format!(
                                    "model dependency cycle involving '{}'",
                                    models[first].name.name
                                ),
                            );
                            if names.len() == 1 {
                                d = d.with_note(format!(
                                    "'{0}' reads itself; a model named like the source it reads is read as the model",
                                    names[0]
                                ));
                            } else {
                                d = d.with_note(format!(
                                    "cycle: {} -> {}",
                                    names.join(" -> "),
                                    names[0]
                                ));
                            }
                            diags.push(d);
                        }
                        for n in members {
                            cyclic[n] = true;
                        }
                    }
                    Mark::Done => {}
                }
            } else {
                mark[node] = Mark::Done;
                out.push(node);
                stack.pop();
            }
        }
    }
    // Models depending on a cyclic model are checked with that input poisoned.
    let mut pos = vec![usize::MAX; models.len()];
    for (p, &i) in out.iter().enumerate() {
        pos[i] = p;
    }
    let order = out
        .iter()
        .enumerate()
        .map(|(p, &i)| Ordered {
            index: i,
            cyclic: cyclic[i],
            // Inputs later in the order close a cycle: no result to wait for.
            reads: deps[i].iter().map(|&d| pos[d]).filter(|&d| d < p).collect(),
        })
        .collect();
    (order, pos)
}

/// A model in dependency order.
struct Ordered {
    /// The model's index in merged order.
    index: usize,
    /// On a dependency cycle: not checked (F001 says why).
    cyclic: bool,
    /// Positions of the models it reads that come before it (one per read).
    reads: Vec<usize>,
}

/// Check one model; its IR and its result for the models that read it.
fn check_one(
    env: &Env,
    o: &Ordered,
    m: &ast::ModelDecl,
    diags: &mut Vec<Diagnostic>,
) -> (ir::Model, ModelResult) {
    let mut model = if o.cyclic {
        ir::Model {
            name: m.name.name.to_string(),
            span: m.span,
            name_span: m.name.span,
            contract: m.contract.as_ref().map(|c| c.name.to_string()),
            fingerprint: String::new(),
            inputs: Vec::new(),
            columns: Vec::new(),
            column_spans: Vec::new(),
            output_refs: Vec::new(),
            lineage: Vec::new(),
            joins: Vec::new(),
            attrs: Vec::new(),
            steps: Vec::new(),
            step_spans: Vec::new(),
            incremental: None,
            ok: false,
            schema_complete: false,
        }
    } else {
        model::ModelChecker::new(env, m, diags).check()
    };
    model.fingerprint = crate::fingerprint::model_fingerprint(m, &model, |name| {
        env.model_result(name).map(|r| r.fingerprint.as_str())
    });
    // The schema moves to the models that read it; it comes back at the end.
    let result = ModelResult {
        columns: Arc::new(std::mem::take(&mut model.columns)),
        ok: model.schema_complete,
        fingerprint: model.fingerprint.clone(),
    };
    (model, result)
}

fn pipeline(p: &ast::PipelineDecl, diags: &mut Vec<Diagnostic>) -> ir::Pipeline {
    let mut models = Vec::new();
    for e in &p.models {
        match &e.kind {
            ExprKind::Column { qualifier: None, name } => models.push(name.name.to_string()),
            ExprKind::Str(s) => models.push(s.clone()),
            _ => diags.push(
                Diagnostic::new(
                    &codes::E060,
                    e.span,
                    "only model names are supported in a pipeline's models (compile-time generators are not supported by this version)",
                )
                .with_help("list the model names"),
            ),
        }
    }
    ir::Pipeline {
        name: p.name.name.to_string(),
        span: p.span,
        env: p.env.as_ref().map(|e| e.name.to_string()),
        models,
        sources: p
            .sources
            .iter()
            .map(|s| {
                source_table::check_override(s, diags);
                (
                    s.source.name.to_string(),
                    s.args
                        .iter()
                        .map(|kv| (kv.key.name.to_string(), kv.value.clone()))
                        .collect(),
                )
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests;
